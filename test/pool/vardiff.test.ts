import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Vardiff, type VardiffConfig } from '../../src/pool/vardiff.js';

const config: VardiffConfig = {
  targetShareTimeSec: 15,
  retargetIntervalSec: 60,
  variancePercent: 30,
  minDifficulty: 100,
  maxDifficulty: 1_000_000,
  maxChangeFactor: 4,
};

/** Feeds shares at a fixed interval and returns the difficulty after `minutes`. */
function simulate(startDifficulty: number, shareEverySec: (difficulty: number) => number, minutes: number) {
  const vardiff = new Vardiff(config, startDifficulty, 0);
  let now = 0;
  while (now < minutes * 60_000) {
    now += shareEverySec(vardiff.difficulty) * 1000;
    vardiff.recordShare(now, vardiff.difficulty);
  }
  return vardiff.difficulty;
}

describe('vardiff', () => {
  it('converges to the target share time for a steady miner', () => {
    // A 2 kH/s miner finds a share of difficulty D every D / 2000 seconds.
    const final = simulate(1_000, (d) => d / 2_000, 30);
    const shareTime = final / 2_000;
    expect(shareTime).toBeGreaterThan(15 * 0.7);
    expect(shareTime).toBeLessThan(15 * 1.3);
  });

  it('lowers the difficulty of a miner that sends nothing', () => {
    const vardiff = new Vardiff(config, 100_000, 0);
    expect(vardiff.review(61_000)).toBe(25_000);
  });

  it('leaves a miner inside the variance band alone', () => {
    const vardiff = new Vardiff(config, 30_000, 0);
    for (let t = 14_000; t <= 70_000; t += 14_000) expect(vardiff.recordShare(t, 30_000)).toBeUndefined();
  });

  it('counts work, not shares: a miner whose jobs are capped below its difficulty settles at its own', () => {
    // 200 H/s: 3,000 is its difficulty for 15 s shares, but the network (and so every job) is at
    // 1,000, so a share arrives every 5 s. Counted as whole shares that would be three times too
    // fast, retarget after retarget, up to maxDifficulty.
    const hashrate = 200;
    const networkDifficulty = 1_000;
    const vardiff = new Vardiff(config, 1_000, 0);
    let now = 0;
    while (now < 30 * 60_000) {
      const jobDifficulty = Math.min(vardiff.difficulty, networkDifficulty);
      now += (jobDifficulty / hashrate) * 1000;
      vardiff.recordShare(now, jobDifficulty);
    }
    expect(vardiff.difficulty).toBeGreaterThan(3_000 * 0.7);
    expect(vardiff.difficulty).toBeLessThan(3_000 * 1.3);
  });

  it('knows when a miner is faster than maxDifficulty says, until a window shows otherwise', () => {
    const capped = { ...config, maxDifficulty: 1_000 };
    const vardiff = new Vardiff(capped, 1_000, 0);
    expect(vardiff.fasterThanMax).toBe(false);
    // 32 shares in 10 s where one per 15 s was due: it wants 4,000.
    for (let i = 1; i <= 32; i++) expect(vardiff.recordShare(i * 300, 1_000)).toBeUndefined();
    expect(vardiff.difficulty).toBe(1_000);
    expect(vardiff.fasterThanMax).toBe(true);
    // The miner slows to one share per 15 s at 1,000: within the band.
    for (let t = 24_600; t <= 9_600 + 16 * 15_000; t += 15_000) vardiff.recordShare(t, 1_000);
    expect(vardiff.fasterThanMax).toBe(false);
  });

  it('never leaves [min, max] and never moves more than maxChangeFactor at once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.array(fc.integer({ min: 1, max: 600_000 }), { minLength: 1, maxLength: 200 }),
        (start, gaps) => {
          const vardiff = new Vardiff(config, start, 0);
          let now = 0;
          let previous = vardiff.difficulty;
          for (const gap of gaps) {
            now += gap;
            const next = vardiff.recordShare(now, vardiff.difficulty);
            const current = vardiff.difficulty;
            expect(current).toBeGreaterThanOrEqual(config.minDifficulty);
            expect(current).toBeLessThanOrEqual(config.maxDifficulty);
            if (next !== undefined) {
              expect(current / previous).toBeLessThanOrEqual(config.maxChangeFactor + 1e-9);
              expect(previous / current).toBeLessThanOrEqual(config.maxChangeFactor + 1e-9);
            }
            previous = current;
          }
        },
      ),
    );
  });
});
