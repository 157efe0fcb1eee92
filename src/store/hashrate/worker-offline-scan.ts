import type { Redis } from 'ioredis';
import type { OfflineScan, OfflineWorker, OfflineWorkerSource } from '../../model/offline-workers.js';
import { createPaymentKeys } from '../payments/payment-keys.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { scriptLayout } from '../scripts/script-layout.js';
import { runStoreCommand, StoreError } from '../store-error.js';
import { createHashrateKeys, type HashrateKeys, parseWorkerMember } from './hashrate-keys.js';

const NONE: OfflineScan = Object.freeze({ workers: [], skipped: 0 });

/**
 * advance_offline_mark: moves the mark from the value the scan read (`readMark`, "" = none yet)
 * to `newMark`, only while the caller leads (`fencingToken` still in `<p>:leader:token`; "" = no
 * election) and only forward. A scan whose mark moved on meanwhile (a later scan of the next
 * leader) therefore changes nothing, and the range it read is claimed by exactly one scan.
 * Returns 1, or 0 when fenced, moved meanwhile or not forward.
 */
const ADVANCE_MARK = scriptLayout({
  keys: ['leaderKey', 'markKey'],
  args: ['fencingToken', 'readMark', 'newMark'],
});
const ADVANCE_MARK_LUA = `${ADVANCE_MARK.lua}
if fencingToken ~= '' and redis.call('GET', leaderKey) ~= fencingToken then return 0 end
local mark = redis.call('GET', markKey)
if (mark or '') ~= readMark then return 0 end
if mark and tonumber(newMark) <= tonumber(mark) then return 0 end
redis.call('SET', markKey, newMark)
return 1
`;

export interface WorkerOfflineScannerModules {
  readonly redis: Redis;
  /** The leader's fencing token; null: not leading (nothing is scanned); "" or absent: no election. */
  readonly fencingToken?: () => string | null;
}

/**
 * Finds the workers that went offline, each once per transition, without any per-worker state.
 * The active workers ZSET scores each worker by its last share, so a worker went offline in the
 * span (previous scan, now] exactly when its score lies in (previous mark, now - offlineMs]; the
 * mark (`offlineWatch`, in Redis so a new leader carries on where the last stopped) then moves to
 * now - offlineMs. A worker that shares again gets a later score and is found again only once it
 * has stopped for offlineMs once more. A pause shorter than offlineMs (XMRig's donation minute)
 * never puts a score in a scanned span. The first scan only sets the mark: nothing is reported
 * for the time before the watch ran.
 *
 * The workers are returned only when the fenced, compare-and-set move of the mark succeeded: a
 * leader that lost its lease mid-scan leaves the span to the next leader, and a stale scan that
 * finishes late neither moves the mark back nor reports a span a later scan already reported.
 */
export class WorkerOfflineScanner implements OfflineWorkerSource {
  readonly #redis: Redis;
  readonly #keys: HashrateKeys;
  readonly #leaderKey: string;
  readonly #fencingToken: () => string | null;
  readonly #advanceMark: ScriptRunner;

  constructor(opts: { readonly keyPrefix: string }, modules: WorkerOfflineScannerModules) {
    this.#redis = modules.redis;
    this.#keys = createHashrateKeys(opts.keyPrefix);
    this.#leaderKey = createPaymentKeys(opts.keyPrefix).leaderToken;
    this.#fencingToken = modules.fencingToken ?? (() => '');
    this.#advanceMark = defineScript(modules.redis, 'fuegoAdvanceOfflineMark', ADVANCE_MARK_LUA);
  }

  async scan(nowMs: number, offlineMs: number, maxWorkers: number): Promise<OfflineScan> {
    if (this.#fencingToken() === null) return NONE;
    const until = nowMs - offlineMs;
    const key = this.#keys.offlineWatch;
    const mark = await runStoreCommand('offlineScan', () => this.#redis.get(key));
    if (mark === null) {
      await this.#moveMark('', until);
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
    return (await this.#moveMark(mark, until)) ? { workers, skipped } : NONE;
  }

  /** The fenced compare-and-set of the mark, with the token this process holds now; false: refused. */
  async #moveMark(readMark: string, newMark: number): Promise<boolean> {
    const token = this.#fencingToken();
    if (token === null) return false;
    const reply = await runStoreCommand('offlineScan', () =>
      this.#advanceMark(
        ADVANCE_MARK.call({
          keys: { leaderKey: this.#leaderKey, markKey: this.#keys.offlineWatch },
          args: { fencingToken: token, readMark, newMark: String(newMark) },
        }),
      ),
    );
    return Number(reply) === 1;
  }
}
