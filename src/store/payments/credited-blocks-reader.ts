import type { Redis } from 'ioredis';
import type { CreditedBlock } from '../../model/blocks/unlock-ledger.js';
import { createShareKeys, type ShareKeys } from '../shares/share-keys.js';
import { execStorePipeline, runStoreCommand, StoreError } from '../store-error.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';

/** A credited block a later reorg replaced at its height, as the money report shows it. */
export interface OrphanedAfterCreditBlock extends CreditedBlock {
  /** What its credits added to balances (the miners' and the fee address's), from its credits record. */
  readonly creditedAtomic: bigint;
  /** The main chain's block at its height when the watch saw it replaced. */
  readonly observedHash: string;
  readonly flaggedAtMs: number;
}

const AMOUNT = /^\d{1,20}$/;

function amountOf(value: string | null | undefined, what: string, hash: string): bigint {
  if (value === null || value === undefined || !AMOUNT.test(value)) {
    throw new StoreError('CORRUPT_RECORD', `corrupt ${what}`, { hash, value });
  }
  return BigInt(value);
}

/**
 * Reads the confirmed blocks the unlocker's reorg watch works on (`<p>:blocks:confirmed` by
 * height) and the ones it flagged (`<p>:blocks:orphaned-after-credit`). Bounded: a ZSET range
 * with a limit and one pipelined read per listed block.
 */
export class CreditedBlocksReader {
  readonly #redis: Redis;
  readonly #keys: PaymentKeys;
  readonly #shareKeys: ShareKeys;

  constructor(opts: { readonly keyPrefix: string }, modules: { readonly redis: Redis }) {
    this.#redis = modules.redis;
    this.#keys = createPaymentKeys(opts.keyPrefix);
    this.#shareKeys = createShareKeys(opts.keyPrefix);
  }

  /** Confirmed blocks at `fromHeight` and above, not flagged, highest first, at most `limit`. */
  async listCreditedFrom(fromHeight: number, limit: number): Promise<CreditedBlock[]> {
    const listed = await this.#listed('listCreditedFrom', this.#keys.blocksConfirmed, fromHeight, limit);
    const fields = ['reward', 'orphanedAfterCreditAtMs'] as const;
    const records = await this.#records('listCreditedFrom', listed, fields);
    return listed.flatMap(({ hash, height }, index) => {
      const [reward, flaggedAtMs] = records[index]!;
      if (flaggedAtMs !== null) return [];
      return [{ hash, height, rewardAtomic: amountOf(reward, 'confirmed block reward', hash) }];
    });
  }

  /** The flagged blocks, highest first, at most `limit`, each with what it credited. */
  async listOrphanedAfterCredit(limit: number): Promise<OrphanedAfterCreditBlock[]> {
    const operation = 'listOrphanedAfterCredit';
    const listed = await this.#listed(operation, this.#keys.blocksOrphanedAfterCredit, 0, limit);
    const fields = ['reward', 'observedHash', 'orphanedAfterCreditAtMs'] as const;
    const records = await this.#records(operation, listed, fields);
    const credits = this.#redis.pipeline();
    for (const { hash } of listed) credits.hvals(this.#keys.blockCredits(hash));
    const creditValues = (await execStorePipeline(operation, credits)) as string[][];
    return listed.map(({ hash, height }, index) => {
      const [reward, observedHash, flaggedAtMs] = records[index]!;
      return {
        hash,
        height,
        rewardAtomic: amountOf(reward, 'confirmed block reward', hash),
        creditedAtomic: creditValues[index]!.reduce(
          (sum, value) => sum + amountOf(value, 'block credit', hash),
          0n,
        ),
        observedHash: observedHash ?? '',
        flaggedAtMs: Number(amountOf(flaggedAtMs, 'orphanedAfterCreditAtMs', hash)),
      };
    });
  }

  /** How many blocks the watch flagged (one ZCARD: cheap enough for every /metrics scrape). */
  async countOrphanedAfterCredit(): Promise<number> {
    return runStoreCommand('countOrphanedAfterCredit', () =>
      this.#redis.zcard(this.#keys.blocksOrphanedAfterCredit),
    );
  }

  async #listed(
    operation: string,
    key: string,
    fromHeight: number,
    limit: number,
  ): Promise<{ hash: string; height: number }[]> {
    const flat = await runStoreCommand(operation, () =>
      this.#redis.zrevrangebyscore(key, '+inf', Math.max(0, fromHeight), 'WITHSCORES', 'LIMIT', 0, limit),
    );
    const listed: { hash: string; height: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) listed.push({ hash: flat[i]!, height: Number(flat[i + 1]) });
    return listed;
  }

  async #records<const F extends readonly string[]>(
    operation: string,
    listed: readonly { hash: string }[],
    fields: F,
  ): Promise<(string | null)[][]> {
    if (listed.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const { hash } of listed) pipeline.hmget(this.#shareKeys.block(hash), ...fields);
    return (await execStorePipeline(operation, pipeline)) as (string | null)[][];
  }
}
