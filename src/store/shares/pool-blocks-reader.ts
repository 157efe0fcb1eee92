import type { Redis } from 'ioredis';
import type { StoredBlockCandidate } from '../../model/blocks/stored-block.js';
import { createPaymentKeys } from '../payments/payment-keys.js';
import { execStorePipeline } from '../store-error.js';
import { parseBlockRecord } from './ledger-reader.js';
import { createShareKeys } from './share-keys.js';

/** Deepest row a blocks page may reach (offset + limit). */
export const MAX_BLOCK_ROWS = 1_000;

export interface PoolBlock extends StoredBlockCandidate {
  /** Set by the unlocker on confirmation (`reward` of the block record). */
  readonly rewardAtomic: bigint | null;
}

/**
 * The pool's blocks across the three ZSETs the ledger and the unlocker keep them in
 * (`<p>:blocks:candidates` pending, `<p>:blocks:confirmed`, `<p>:blocks:orphaned`; rejected ones
 * are not listed), highest first. A page reads offset + limit members of each set and merges:
 * bounded by MAX_BLOCK_ROWS, and three ZREVRANGEs plus one HGETALL per listed block.
 */
export class PoolBlocksReader {
  readonly #redis: Redis;
  readonly #sets: readonly string[];
  readonly #blockKey: (hash: string) => string;

  constructor(opts: { readonly keyPrefix: string }, modules: { readonly redis: Redis }) {
    const keys = createShareKeys(opts.keyPrefix);
    const paymentKeys = createPaymentKeys(opts.keyPrefix);
    this.#redis = modules.redis;
    this.#sets = [keys.blockCandidates, paymentKeys.blocksConfirmed, paymentKeys.blocksOrphaned];
    this.#blockKey = keys.block;
  }

  /** Blocks found (pending + confirmed + orphaned). */
  async count(): Promise<number> {
    const pipeline = this.#redis.pipeline();
    for (const key of this.#sets) pipeline.zcard(key);
    const replies = await execStorePipeline('countBlocks', pipeline);
    return replies.reduce<number>((sum, value) => sum + Number(value), 0);
  }

  /** Highest first; `beforeHeight` (exclusive) serves the classic `/get_blocks?height=`. */
  async list(page: { offset: number; limit: number }, beforeHeight?: number): Promise<PoolBlock[]> {
    const rows = Math.min(page.offset + page.limit, MAX_BLOCK_ROWS);
    if (rows <= page.offset) return [];
    const max = beforeHeight === undefined ? '+inf' : `(${beforeHeight}`;
    const pipeline = this.#redis.pipeline();
    for (const key of this.#sets) pipeline.zrevrangebyscore(key, max, '-inf', 'WITHSCORES', 'LIMIT', 0, rows);
    const replies = await execStorePipeline('listBlocks', pipeline);
    const members: { hash: string; height: number }[] = [];
    for (const reply of replies) {
      const flat = reply as string[];
      for (let i = 0; i + 1 < flat.length; i += 2)
        members.push({ hash: flat[i]!, height: Number(flat[i + 1]) });
    }
    members.sort((a, b) => b.height - a.height || a.hash.localeCompare(b.hash));
    const chosen = members.slice(page.offset, rows);
    if (chosen.length === 0) return [];
    const records = this.#redis.pipeline();
    for (const { hash } of chosen) records.hgetall(this.#blockKey(hash));
    const fields = await execStorePipeline('listBlocks', records);
    const blocks: PoolBlock[] = [];
    chosen.forEach(({ hash }, index) => {
      const record = fields[index] as Record<string, string>;
      if (Object.keys(record).length === 0) return; // a listed block without a record: skip, never invent
      const reward = record['reward'];
      blocks.push({
        ...parseBlockRecord(hash, record),
        rewardAtomic: reward !== undefined && /^\d{1,20}$/.test(reward) ? BigInt(reward) : null,
      });
    });
    return blocks;
  }
}
