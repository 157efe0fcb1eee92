import type { Redis } from 'ioredis';
import type { OfflineScan, OfflineWorker, OfflineWorkerSource } from '../../model/offline-workers.js';
import { runStoreCommand, StoreError } from '../store-error.js';
import { createHashrateKeys, type HashrateKeys, parseWorkerMember } from './hashrate-keys.js';

const NONE: OfflineScan = Object.freeze({ workers: [], skipped: 0 });

/**
 * Finds the workers that went offline, each once per transition, without any per-worker state.
 * The active workers ZSET scores each worker by its last share, so a worker went offline in the
 * span (previous scan, now] exactly when its score lies in (previous mark, now - offlineMs]; the
 * mark (`offlineWatch`, in Redis so a new leader carries on where the last stopped) then moves to
 * now - offlineMs. A worker that shares again gets a later score and is found again only once it
 * has stopped for offlineMs once more. A pause shorter than offlineMs (XMRig's donation minute)
 * never puts a score in a scanned span. The first scan only sets the mark: nothing is reported
 * for the time before the watch ran.
 */
export class WorkerOfflineScanner implements OfflineWorkerSource {
  readonly #redis: Redis;
  readonly #keys: HashrateKeys;

  constructor(opts: { readonly keyPrefix: string }, modules: { readonly redis: Redis }) {
    this.#redis = modules.redis;
    this.#keys = createHashrateKeys(opts.keyPrefix);
  }

  async scan(nowMs: number, offlineMs: number, maxWorkers: number): Promise<OfflineScan> {
    const until = nowMs - offlineMs;
    const key = this.#keys.offlineWatch;
    const mark = await runStoreCommand('offlineScan', () => this.#redis.get(key));
    if (mark === null) {
      await this.#setMark(until);
      return NONE;
    }
    if (!/^-?\d{1,16}$/.test(mark))
      throw new StoreError('CORRUPT_RECORD', 'corrupt offline watch mark', { key, mark });
    const from = `(${mark}`;
    if (until <= Number(mark)) return NONE;
    const active = this.#keys.activeWorkers;
    const flat = await runStoreCommand('offlineScan', () =>
      this.#redis.zrangebyscore(active, from, String(until), 'WITHSCORES', 'LIMIT', 0, maxWorkers),
    );
    const workers: OfflineWorker[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      workers.push({ ...parseWorkerMember(flat[i]!), lastShareMs: Number(flat[i + 1]) });
    }
    const skipped =
      workers.length < maxWorkers
        ? 0
        : (await runStoreCommand('offlineScan', () => this.#redis.zcount(active, from, String(until)))) -
          workers.length;
    await this.#setMark(until);
    return { workers, skipped };
  }

  async #setMark(ms: number): Promise<void> {
    await runStoreCommand('offlineScan', () => this.#redis.set(this.#keys.offlineWatch, String(ms)));
  }
}
