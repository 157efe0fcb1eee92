import { describe, expect, it } from 'vitest';
import { Vardiff } from '../../src/pool/vardiff.js';
import { DEFAULT_CONFIG, DEFAULT_POOL_BACKEND_OPTIONS } from '../helpers/config-defaults.js';

/**
 * A rig far faster than its port's start difficulty (a GPU rig at cn/upx2, an xmrig-proxy with
 * hundreds of miners behind it) floods the pool with shares until vardiff catches up. Each share is
 * hashed once more by the pool's verifier, and the verifier is shared fairly by IP: a flooding rig
 * behind a NAT slows the submits of every other miner behind it. Driven as PoolBackend drives it
 * (recordShare per share, review per tick), with Poisson shares and the default config.
 */
const { vardiff: config, tickIntervalMs } = DEFAULT_POOL_BACKEND_OPTIONS;
const PORT_DIFFICULTY = DEFAULT_CONFIG.stratum.ports[0]!.difficulty;

function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return (state + 0.5) / 2147483648;
  };
}

/** Shares sent and seconds taken until the difficulty is within 2x of the rig's ideal one. */
function rampUp(hashesPerSec: number, seed: number): { shares: number; seconds: number } {
  const random = lcg(seed);
  const ideal = hashesPerSec * config.targetShareTimeSec;
  const vardiff = new Vardiff(config, PORT_DIFFICULTY, 0);
  const gapMs = () => ((-Math.log(random()) * vardiff.difficulty) / hashesPerSec) * 1000;
  let shares = 0;
  let nextShare = gapMs();
  let nextTick = tickIntervalMs;
  while (vardiff.difficulty < ideal / 2) {
    const isShare = nextShare < nextTick;
    const now = isShare ? nextShare : nextTick;
    const changed = isShare ? vardiff.recordShare(now, vardiff.difficulty) : vardiff.review(now);
    if (isShare) {
      shares++;
      nextShare = now + gapMs();
    } else nextTick += tickIntervalMs;
    if (changed !== undefined) nextShare = now + gapMs();
    if (now > 3_600_000) break;
  }
  return { shares, seconds: Math.round(Math.min(nextShare, nextTick) / 1000) };
}

describe('vardiff, a rig far above the start difficulty', () => {
  it('climbs without a flood of thousands of shares', () => {
    for (const seed of [1, 2, 3, 4]) {
      // 500 kH/s (a GPU rig): 15,000,000 is its difficulty for a share every 30 s; it starts at
      // the port's 5,000, a share every 10 ms. One x4 step a minute took 6-8 minutes and ~7,900
      // shares to get within 2x.
      const gpu = rampUp(500_000, seed);
      expect(gpu.shares).toBeLessThan(1_000);
      // 50 kH/s (a large CPU): ideal 1,500,000; it took ~4 minutes and ~800 shares.
      const cpu = rampUp(50_000, seed);
      expect(cpu.shares).toBeLessThan(500);
    }
  });
});
