import { describe, expect, it } from 'vitest';
import { parseLogin } from '../../src/pool/login.js';
import { ADDRESS } from './pool-fakes.js';

/**
 * A `+DIFF` above stratum.vardiff.maxDifficulty is lowered to it (config: "also caps a `+DIFF`
 * asked in the login"); that must not depend on how many digits the miner typed.
 */
const limits = { minDifficulty: 100, maxDifficulty: 1_000_000 };

describe('login +DIFF out of range', () => {
  it('a 16-digit +DIFF is capped like a 15-digit one, not refused as an invalid address', () => {
    // 15 digits: capped to maxDifficulty.
    expect(parseLogin({ login: `${ADDRESS}+999999999999999`, pass: 'x' }, limits).fixedDifficulty).toBe(
      1_000_000,
    );
    // 16 digits: today the suffix is read as part of the address, and the miner is told
    // "Invalid address used for login" and disconnected, every 5 s, forever.
    expect(() => parseLogin({ login: `${ADDRESS}+1000000000000000`, pass: 'x' }, limits)).not.toThrow();
    expect(parseLogin({ login: `${ADDRESS}+1000000000000000`, pass: 'x' }, limits).fixedDifficulty).toBe(
      1_000_000,
    );
  });

  it('with a worker, a 16-digit +DIFF fixes the difficulty instead of becoming part of the worker name', () => {
    const parsed = parseLogin({ login: `${ADDRESS}.rig1+1000000000000000`, pass: 'x' }, limits);
    // Today: worker "rig1_1000000000000000" on vardiff.
    expect(parsed.worker).toBe('rig1');
    expect(parsed.fixedDifficulty).toBe(1_000_000);
  });
});
