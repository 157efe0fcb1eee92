import { FuegoPoolError } from '../../errors.js';
import { formatAtomic } from '../../fuego/money.js';
import { effectiveThreshold } from '../../model/payouts/threshold-cap.js';

/**
 * A miner's own payout threshold: the rules, and the text the miner signs to set it.
 *
 * Why a signed message: anyone can log in over stratum with any address and anyone can call the
 * API, so a threshold in the stratum password or an unauthenticated call would let a stranger
 * raise another miner's threshold and hold back their payouts. Only the wallet of the address can
 * sign with its spend key (simplewallet `sign_message`), so the pool takes a threshold only with
 * such a signature, over a message naming the pool, the address, the amount and a time. The cap
 * (`payments.payouts.maxThresholdCoins`) still bounds how long any threshold can hold funds.
 */

/** What a message is for and its format's version; a signature for anything else never matches. */
export const THRESHOLD_MESSAGE_PREFIX = 'payout-threshold:v1';
/** A message older than this is refused: a signature found later cannot be used then. */
export const THRESHOLD_MESSAGE_MAX_AGE_SEC = 86_400;
/** Clock skew allowed between the client that made the message and the pool. */
export const THRESHOLD_MESSAGE_MAX_AHEAD_SEC = 300;

export interface ThresholdSetting {
  readonly address: string;
  readonly thresholdAtomic: bigint;
  /** Unix seconds the message was made at; each accepted one must be later than the last. */
  readonly timestampSec: number;
}

/**
 * The text a miner signs (one word, so `sign_message <text>` needs no quotes):
 * `payout-threshold:v1:<pool name>:<address>:<amount in XFG, 7 decimals>:<unix seconds>`, e.g.
 * `payout-threshold:v1:fuego-pool:fire…:25.0000000:1700000000`. The amount has one spelling
 * (money.ts formatAtomic), so the pool rebuilds exactly the text the miner saw.
 */
export function thresholdMessage(poolName: string, setting: ThresholdSetting): string {
  return [
    THRESHOLD_MESSAGE_PREFIX,
    poolName,
    setting.address,
    formatAtomic(setting.thresholdAtomic),
    String(setting.timestampSec),
  ].join(':');
}

export type ThresholdRuleCode =
  | 'THRESHOLD_BELOW_MINIMUM'
  | 'THRESHOLD_ABOVE_MAXIMUM'
  | 'TIMESTAMP_OUT_OF_RANGE'
  | 'STALE_TIMESTAMP';

/**
 * A threshold setting the rules refuse (before its signature is even checked):
 * - THRESHOLD_BELOW_MINIMUM / THRESHOLD_ABOVE_MAXIMUM: outside [pool minimum, cap];
 * - TIMESTAMP_OUT_OF_RANGE: older than a day or more than 5 minutes ahead of the pool's clock;
 * - STALE_TIMESTAMP: not later than the last setting accepted for the address (a replay).
 */
export class ThresholdRuleError extends FuegoPoolError<ThresholdRuleCode> {}

export interface ThresholdLimits {
  /** The pool minimum: setting exactly this returns the miner to the pool's default. */
  readonly minAtomic: bigint;
  /** The cap (payments.payouts.maxThresholdCoins). */
  readonly maxAtomic: bigint;
}

/** Throws ThresholdRuleError when `setting` may not replace the last one (stamped `lastTimestampSec`). */
export function checkThresholdSetting(
  setting: ThresholdSetting,
  limits: ThresholdLimits,
  nowSec: number,
  lastTimestampSec: number | null,
): void {
  if (setting.thresholdAtomic < limits.minAtomic) {
    throw new ThresholdRuleError(
      'THRESHOLD_BELOW_MINIMUM',
      `the pool minimum is ${formatAtomic(limits.minAtomic)}`,
      {
        minAtomic: limits.minAtomic.toString(),
      },
    );
  }
  if (setting.thresholdAtomic > limits.maxAtomic) {
    throw new ThresholdRuleError(
      'THRESHOLD_ABOVE_MAXIMUM',
      `the pool allows at most ${formatAtomic(limits.maxAtomic)}`,
      {
        maxAtomic: limits.maxAtomic.toString(),
      },
    );
  }
  if (
    setting.timestampSec < nowSec - THRESHOLD_MESSAGE_MAX_AGE_SEC ||
    setting.timestampSec > nowSec + THRESHOLD_MESSAGE_MAX_AHEAD_SEC
  ) {
    throw new ThresholdRuleError('TIMESTAMP_OUT_OF_RANGE', `the pool's time is ${nowSec}`, { nowSec });
  }
  if (lastTimestampSec !== null && setting.timestampSec <= lastTimestampSec) {
    throw new ThresholdRuleError(
      'STALE_TIMESTAMP',
      `the last accepted message has timestamp ${lastTimestampSec}`,
      {
        lastTimestampSec,
      },
    );
  }
}

/** The threshold a miner's payouts wait for: their own (capped, raised to the minimum) or the minimum. */
export function thresholdInForce(storedAtomic: bigint | null, limits: ThresholdLimits): bigint {
  const own = effectiveThreshold(storedAtomic, limits.maxAtomic);
  return own === undefined || own < limits.minAtomic ? limits.minAtomic : own;
}
