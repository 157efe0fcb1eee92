import { describe, expect, it } from 'vitest';
import { effectiveThreshold } from '../../../src/model/payouts/threshold-cap.js';
import {
  checkThresholdSetting,
  type ThresholdRuleCode,
  thresholdInForce,
  thresholdMessage,
} from '../../../src/pool/payouts/miner-threshold.js';
import { minerAddress } from '../../leader/payouts/payout-test-kit.js';

const ADDRESS = minerAddress('threshold-rules');
const LIMITS = { minAtomic: 10_000_000n, maxAtomic: 10_000_000_000n };
const NOW = 1_750_000_000;

function ruleCode(
  thresholdAtomic: bigint,
  timestampSec: number,
  last: number | null,
): ThresholdRuleCode | null {
  try {
    checkThresholdSetting({ address: ADDRESS, thresholdAtomic, timestampSec }, LIMITS, NOW, last);
    return null;
  } catch (error) {
    return (error as { code: ThresholdRuleCode }).code;
  }
}

describe('miner payout threshold rules', () => {
  it('signs one word naming the pool, the address, the amount with 7 decimals and the time', () => {
    expect(
      thresholdMessage('pool.example.org', { address: ADDRESS, thresholdAtomic: 1n, timestampSec: NOW }),
    ).toBe(`payout-threshold:v1:pool.example.org:${ADDRESS}:0.0000001:${NOW}`);
    expect(
      thresholdMessage('p', { address: ADDRESS, thresholdAtomic: 12_345_000_000n, timestampSec: 0 }),
    ).not.toMatch(/\s/);
  });

  it('accepts the minimum and the cap, a day back and 5 minutes ahead, and only a later timestamp', () => {
    expect(ruleCode(LIMITS.minAtomic, NOW, null)).toBeNull();
    expect(ruleCode(LIMITS.maxAtomic, NOW, null)).toBeNull();
    expect(ruleCode(LIMITS.minAtomic - 1n, NOW, null)).toBe('THRESHOLD_BELOW_MINIMUM');
    expect(ruleCode(LIMITS.maxAtomic + 1n, NOW, null)).toBe('THRESHOLD_ABOVE_MAXIMUM');
    expect(ruleCode(LIMITS.minAtomic, NOW - 86_400, null)).toBeNull();
    expect(ruleCode(LIMITS.minAtomic, NOW - 86_401, null)).toBe('TIMESTAMP_OUT_OF_RANGE');
    expect(ruleCode(LIMITS.minAtomic, NOW + 300, null)).toBeNull();
    expect(ruleCode(LIMITS.minAtomic, NOW + 301, null)).toBe('TIMESTAMP_OUT_OF_RANGE');
    expect(ruleCode(LIMITS.minAtomic, NOW, NOW - 1)).toBeNull();
    expect(ruleCode(LIMITS.minAtomic, NOW, NOW)).toBe('STALE_TIMESTAMP');
    expect(ruleCode(LIMITS.minAtomic, NOW, NOW + 10)).toBe('STALE_TIMESTAMP');
  });

  it('applies a stored threshold capped and raised to the minimum, whatever the config became since', () => {
    expect(effectiveThreshold(null, LIMITS.maxAtomic)).toBeUndefined();
    expect(effectiveThreshold(500n, 400n)).toBe(400n);
    expect(thresholdInForce(null, LIMITS)).toBe(LIMITS.minAtomic);
    expect(thresholdInForce(250_000_000n, LIMITS)).toBe(250_000_000n);
    expect(thresholdInForce(20_000_000_000n, LIMITS)).toBe(LIMITS.maxAtomic); // the cap was lowered
    expect(thresholdInForce(5_000_000n, LIMITS)).toBe(LIMITS.minAtomic); // the minimum was raised
  });
});
