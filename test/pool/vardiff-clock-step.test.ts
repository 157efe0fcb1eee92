import { describe, expect, it } from 'vitest';
import { Vardiff } from '../../src/pool/vardiff.js';
import { DEFAULT_POOL_BACKEND_OPTIONS } from '../helpers/config-defaults.js';

/**
 * PoolBackend drives vardiff with the wall clock (Date.now), which NTP, a VM restore or an
 * operator can step backwards. A step must cost at most one retarget interval, not its own length.
 */
const { vardiff: config, tickIntervalMs } = DEFAULT_POOL_BACKEND_OPTIONS;

describe('vardiff and a wall clock stepped backwards', () => {
  it('a miner that sends nothing is still brought down within minutes after the clock steps back an hour', () => {
    const vardiff = new Vardiff(config, 100_000, 0);
    const stepMs = 3_600_000;
    // The step comes 30 s after login; from then on the miner finds nothing at 100,000.
    const retargets: number[] = [];
    for (let realMs = 30_000; realMs <= 30_000 + 5 * 60_000; realMs += tickIntervalMs) {
      const next = vardiff.review(realMs - stepMs);
      if (next !== undefined) retargets.push(next);
    }
    // Today: none for a whole hour (the window "starts" an hour in the future), so a miner whose
    // difficulty is far too high gets no accepted share and no easier job for that long.
    expect(retargets.length).toBeGreaterThan(0);
    expect(vardiff.difficulty).toBeLessThan(100_000);
  });
});
