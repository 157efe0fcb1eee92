import { keyTag } from '../key-tag.js';
import { StoreError } from '../store-error.js';

/**
 * The `<p>:hashrate:...` key family (`<p>`: the pool's hash tag, key-tag.ts). Format: key - type - content -
 * retention. Every difficulty sum is a Redis integer (HINCRBY), read back as a string.
 *
 * - `<p>:hashrate:pool:<hour>` - HASH - minute of the hour ("0".."59") -> summed difficulty of
 *   every accepted share (pool and solo) - until the hour's end + minuteRetentionMs.
 * - `<p>:hashrate:pool10:<day>` - HASH - 10-minute slot of the UTC day ("0".."143") -> summed
 *   difficulty - until the day's end + chartRetentionMs (the long pool chart).
 * - `<p>:hashrate:<hour>:m:<address>` - HASH - minute of the hour -> difficulty of one miner -
 *   until the hour's end + minuteRetentionMs.
 * - `<p>:hashrate:<hour>:w:<address>:<worker>` - HASH - the same for one worker.
 * - `<p>:hashrate:active:miners` - ZSET - address scored by its last share (ms) - members older
 *   than minuteRetentionMs are pruned by every batch.
 * - `<p>:hashrate:active:workers` - ZSET - `<address>:<worker>` scored by last share (ms) - same.
 * - `<p>:hashrate:workers:<address>` - ZSET - worker name scored by last share (ms) - pruned per
 *   batch, expires minuteRetentionMs after the miner's last share; at most maxWorkersPerMiner
 *   names plus "(others)", which takes the shares of names beyond (worker-admission.ts).
 *
 * - `<p>:hashrate:offline-watch` - STRING - the last-share time (ms) up to which the leader's
 *   worker-offline watch has looked (worker-offline-scan.ts); moved only forward and only by
 *   the lease holder (compare-and-set, fenced by `<p>:leader:token`) - no expiry.
 *
 * `<hour>` is floor(ms / 3 600 000) and `<day>` floor(ms / 86 400 000), both UTC epoch based.
 *
 * Why this shape:
 * - One HASH per entity and hour keeps 60 small integers in a listpack (~10 bytes a minute), so
 *   24 h of minute buckets cost ~16 KB per active miner or worker, and whole hours expire with
 *   EXPIREAT instead of field by field (HEXPIRE needs Redis 7.4).
 * - The hour comes before `m:`/`w:` so that a worker name containing ':' cannot collide with it;
 *   an address never contains ':' (base58), so `<address>:<worker>` splits at the first ':'.
 * - The active ZSETs answer "miners/workers with a share in the last N minutes" with ZCOUNT,
 *   never with KEYS or SCAN.
 */
export interface HashrateKeys {
  poolMinutes(hour: number): string;
  poolSlots(day: number): string;
  minerMinutes(hour: number, address: string): string;
  workerMinutes(hour: number, address: string, worker: string): string;
  readonly activeMiners: string;
  readonly activeWorkers: string;
  minerWorkers(address: string): string;
  readonly offlineWatch: string;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** Resolution of the long pool chart. */
export const POOL_SLOT_MS = 600_000;

export function createHashrateKeys(prefix: string): HashrateKeys {
  const tag = keyTag(prefix);
  const base = `${tag}:hashrate`;
  return Object.freeze({
    poolMinutes: (hour: number) => `${base}:pool:${hour}`,
    poolSlots: (day: number) => `${base}:pool10:${day}`,
    minerMinutes: (hour: number, address: string) => `${base}:${hour}:m:${address}`,
    workerMinutes: (hour: number, address: string, worker: string) =>
      `${base}:${hour}:w:${address}:${worker}`,
    activeMiners: `${base}:active:miners`,
    activeWorkers: `${base}:active:workers`,
    minerWorkers: (address: string) => `${base}:workers:${address}`,
    offlineWatch: `${base}:offline-watch`,
  });
}

/** `<address>:<worker>` member of the active workers ZSET, and back. */
export function workerMember(address: string, worker: string): string {
  return `${address}:${worker}`;
}

export function parseWorkerMember(member: string): { address: string; worker: string } {
  const at = member.indexOf(':');
  if (at <= 0) throw new StoreError('CORRUPT_RECORD', 'active worker member lacks ":"', { member });
  return { address: member.slice(0, at), worker: member.slice(at + 1) };
}
