import type { Redis } from 'ioredis';
import { type PayoutBatch, sentAtMs } from '../../model/payouts/payout-batch.js';
import { toStoreError } from '../store-error.js';
import type { PaymentKeys } from './payment-keys.js';
import { PaymentStoreError } from './payment-store-error.js';
import { parseBatch } from './payout-batch-record.js';

/** Batch ids read per step: their hashes come back in one pipelined round trip. */
const SCAN_CHUNK = 100;

export interface SentBatchesPage {
  /** Sent batches skipped before the page (newest first). */
  readonly offset: number;
  readonly limit: number;
}

/**
 * The public list of payouts: sent batches, newest first, paged over sent batches only (prepared,
 * sending and failed ones are skipped before the page is cut, so no sent batch goes missing).
 * Ids are walked newest first in chunks, each chunk's hashes read with one pipeline, and at most
 * `scanLimit` ids are looked at, so a page costs a bounded number of round trips on the Redis
 * that also records shares.
 */
export class SentBatchesReader {
  readonly #redis: Redis;
  readonly #keys: PaymentKeys;
  readonly #scanLimit: number;

  constructor(modules: { readonly redis: Redis; readonly keys: PaymentKeys; readonly scanLimit: number }) {
    this.#redis = modules.redis;
    this.#keys = modules.keys;
    this.#scanLimit = modules.scanLimit;
  }

  async page(page: SentBatchesPage): Promise<PayoutBatch[]> {
    const wanted = page.offset + page.limit;
    const sent = await this.#collect(
      wanted,
      (start, count) => this.#redis.zrevrange(this.#keys.batches, start, start + count - 1),
      () => true,
    );
    return sent.slice(page.offset, wanted);
  }

  /**
   * The newest `limit` sent batches sent (sentAtMs, the time the lists show) before `beforeMs`.
   * The index's score is createdAtMs, never later than the send time, so the walk starts at the
   * first batch created before `beforeMs` rather than at the newest one: an old `beforeMs` is
   * answered however many batches came after it.
   */
  async before(beforeMs: number, limit: number): Promise<PayoutBatch[]> {
    const sent = await this.#collect(
      limit,
      (start, count) =>
        this.#redis.zrevrangebyscore(this.#keys.batches, `(${beforeMs}`, '-inf', 'LIMIT', start, count),
      (batch) => sentAtMs(batch) < beforeMs,
    );
    return sent.slice(0, limit);
  }

  /** Up to `wanted` sent batches that `keep`, walking `readIds` newest first, scanLimit ids at most. */
  async #collect(
    wanted: number,
    readIds: (start: number, count: number) => Promise<string[]>,
    keep: (batch: PayoutBatch) => boolean,
  ): Promise<PayoutBatch[]> {
    const sent: PayoutBatch[] = [];
    for (let start = 0; sent.length < wanted && start < this.#scanLimit; start += SCAN_CHUNK) {
      const count = Math.min(SCAN_CHUNK, this.#scanLimit - start);
      const ids = await read(() => readIds(start, count));
      for (const batch of await this.#readBatches(ids)) {
        if (batch.state === 'sent' && batch.txHash !== null && keep(batch)) sent.push(batch);
      }
      if (ids.length < count) break;
    }
    return sent;
  }

  async #readBatches(ids: readonly string[]): Promise<PayoutBatch[]> {
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.#keys.batch(id));
    const replies = (await read(() => pipeline.exec())) ?? [];
    const batches: PayoutBatch[] = [];
    for (const [error, raw] of replies) {
      if (error) throw toStoreError(error, 'listSentBatches');
      const fields = raw as Record<string, string>;
      if (Object.keys(fields).length > 0) batches.push(parseBatch(fields));
    }
    return batches;
  }
}

async function read<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof PaymentStoreError) throw error;
    throw toStoreError(error, 'listSentBatches');
  }
}
