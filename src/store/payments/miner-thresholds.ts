import type { Redis } from 'ioredis';
import { effectiveThreshold } from '../../model/payouts/threshold-cap.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { scriptLayout } from '../scripts/script-layout.js';
import { StoreError, toStoreError } from '../store-error.js';
import { createPaymentKeys } from './payment-keys.js';

/**
 * Miners' own payout thresholds (set through the API with a signed message, see
 * src/pool/payouts/miner-threshold.ts) and, per miner, the timestamp of the last accepted message,
 * so an older signed message can never be played again.
 *
 * Key: `<p>:payout:thresholds` - HASH - address -> `<thresholdAtomic>:<timestampSec>`, both decimal
 * integers; threshold 0 means "the pool minimum" (a miner who went back to the default, whose
 * timestamp must still be kept) - written by `write` (one script: compare and set) - kept.
 * One hash for the pool: a read is one HGET, and the key shares the pool's hash tag.
 */
export interface MinerThresholdRecord {
  /** null: the pool minimum applies. */
  readonly thresholdAtomic: bigint | null;
  readonly timestampSec: number;
}

const WRITE_THRESHOLD_LAYOUT = scriptLayout({
  keys: ['thresholdsKey'],
  args: ['address', 'thresholdAtomic', 'timestampSec'],
});

/**
 * write_miner_threshold: sets the miner's field unless the stored timestamp is the same or later.
 * Reply: {1, ''}, {0, stored value}, or {-1, stored value} when that does not parse.
 */
const WRITE_THRESHOLD_LUA = `${WRITE_THRESHOLD_LAYOUT.lua}
local stored = redis.call('HGET', thresholdsKey, address)
if stored then
  local stamp = string.match(stored, '^%d+:(%d+)$')
  if not stamp then return {-1, stored} end
  if tonumber(stamp) >= tonumber(timestampSec) then return {0, stored} end
end
redis.call('HSET', thresholdsKey, address, thresholdAtomic .. ':' .. timestampSec)
return {1, ''}
`;

const RECORD_PATTERN = /^(\d+):(\d+)$/;

export interface MinerThresholdsOptions {
  readonly keyPrefix: string;
  /** The cap (payments.payouts.maxThresholdCoins as atomic units) that `thresholdOf` applies. */
  readonly maxThresholdAtomic: bigint;
}

export class RedisMinerThresholds {
  readonly key: string;
  readonly #redis: Redis;
  readonly #maxThresholdAtomic: bigint;
  readonly #write: ScriptRunner;

  constructor(opts: MinerThresholdsOptions, modules: { readonly redis: Redis }) {
    this.key = createPaymentKeys(opts.keyPrefix).payoutThresholds;
    this.#redis = modules.redis;
    this.#maxThresholdAtomic = opts.maxThresholdAtomic;
    this.#write = defineScript(modules.redis, 'fuegoPoolWriteMinerThreshold', WRITE_THRESHOLD_LUA);
  }

  async read(address: string): Promise<MinerThresholdRecord | null> {
    let stored: string | null;
    try {
      stored = await this.#redis.hget(this.key, address);
    } catch (error) {
      throw toStoreError(error, 'miner threshold read', { address });
    }
    return stored === null ? null : parseRecord(stored, address);
  }

  /**
   * Stores a threshold (null: back to the pool minimum) stamped `timestampSec`, unless the stored
   * one is stamped the same or later: then nothing changes and the answer is false.
   */
  async write(address: string, thresholdAtomic: bigint | null, timestampSec: number): Promise<boolean> {
    if (!Number.isSafeInteger(timestampSec) || timestampSec < 0) {
      throw new StoreError('INVALID_RECORD', 'timestamp must be a non-negative integer', { timestampSec });
    }
    if (thresholdAtomic !== null && thresholdAtomic <= 0n) {
      throw new StoreError('INVALID_RECORD', 'a threshold is positive (null: the pool minimum)', {
        thresholdAtomic: thresholdAtomic.toString(),
      });
    }
    let reply: unknown;
    try {
      reply = await this.#write(
        WRITE_THRESHOLD_LAYOUT.call({
          keys: { thresholdsKey: this.key },
          args: {
            address,
            thresholdAtomic: (thresholdAtomic ?? 0n).toString(),
            timestampSec: String(timestampSec),
          },
        }),
      );
    } catch (error) {
      throw toStoreError(error, 'miner threshold write', { address });
    }
    const [outcome, stored] = reply as [number, string];
    if (outcome === -1) throw corrupt(stored, address);
    return outcome === 1;
  }

  /**
   * The threshold the payout planner should apply to `address`, capped by the configured cap;
   * undefined when the miner has none (the pool minimum applies). For PayoutRunner's `thresholdOf`.
   */
  async thresholdOf(address: string): Promise<bigint | undefined> {
    const record = await this.read(address);
    return effectiveThreshold(record?.thresholdAtomic ?? null, this.#maxThresholdAtomic);
  }
}

function parseRecord(stored: string, address: string): MinerThresholdRecord {
  const match = RECORD_PATTERN.exec(stored);
  const timestampSec = match === null ? Number.NaN : Number(match[2]);
  if (match === null || !Number.isSafeInteger(timestampSec)) throw corrupt(stored, address);
  const threshold = BigInt(match[1]!);
  return { thresholdAtomic: threshold === 0n ? null : threshold, timestampSec };
}

function corrupt(stored: string, address: string): StoreError {
  return new StoreError('CORRUPT_RECORD', `miner threshold of ${address} does not parse`, {
    address,
    stored,
  });
}
