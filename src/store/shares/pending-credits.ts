import type { Redis } from 'ioredis';
import type { PendingCreditEstimates } from '../../model/blocks/unlock-ledger.js';
import { toStoreError } from '../store-error.js';
import { createShareKeys, type ShareKeys } from './share-keys.js';

/**
 * Estimated credits of blocks found but not yet confirmed, for the miners' "pending" balance.
 * Statistics, not money: written once per block by the unlocker when it first sees the block on the
 * main chain (the same split it will credit, with the header's reward), read by the API, and
 * removed with the block's decision. Balances only ever move through the unlocker's credit script.
 *
 * Key: `<p>:block:<hash>:pending` - HASH address -> atomic units (decimal string) - expires after
 * `ttlMs` so an abandoned candidate cannot haunt a balance forever.
 */
export class PendingCredits implements PendingCreditEstimates {
  readonly #redis: Redis;
  readonly #keys: ShareKeys;

  constructor(opts: { readonly keyPrefix: string }, modules: { readonly redis: Redis }) {
    this.#redis = modules.redis;
    this.#keys = createShareKeys(opts.keyPrefix);
  }

  key(blockHash: string): string {
    return `${this.#keys.block(blockHash)}:pending`;
  }

  async has(blockHash: string): Promise<boolean> {
    try {
      return (await this.#redis.exists(this.key(blockHash))) === 1;
    } catch (error) {
      throw toStoreError(error, 'pending credits');
    }
  }

  async write(blockHash: string, credits: ReadonlyMap<string, bigint>, ttlMs: number): Promise<void> {
    if (credits.size === 0) return;
    const fields: string[] = [];
    for (const [address, amount] of credits) fields.push(address, amount.toString());
    try {
      await this.#redis
        .multi()
        .hset(this.key(blockHash), ...fields)
        .pexpire(this.key(blockHash), ttlMs)
        .exec();
    } catch (error) {
      throw toStoreError(error, 'pending credits');
    }
  }

  async remove(blockHash: string): Promise<void> {
    try {
      await this.#redis.del(this.key(blockHash));
    } catch (error) {
      throw toStoreError(error, 'pending credits');
    }
  }

  /** Sum over the blocks still waiting for the unlocker (the candidates set). */
  async pendingOf(address: string): Promise<bigint> {
    try {
      const hashes = await this.#redis.zrange(this.#keys.blockCandidates, 0, -1);
      if (hashes.length === 0) return 0n;
      const pipeline = this.#redis.pipeline();
      for (const hash of hashes) pipeline.hget(this.key(hash), address);
      const replies = (await pipeline.exec()) ?? [];
      let total = 0n;
      for (const [error, value] of replies) {
        if (error === null && typeof value === 'string' && /^\d+$/.test(value)) total += BigInt(value);
      }
      return total;
    } catch (error) {
      throw toStoreError(error, 'pending credits');
    }
  }
}
