import { describe, expect, it } from 'vitest';
import { pplnsSplit } from '../../../src/pool/schemes/pplns.js';
import type { ShareRecord } from '../../../src/pool/schemes/types.js';
import { expectSound } from './scheme-test-kit.js';

const MINERS = 10_000;
const SHARES = 1_000_000;

describe('pplnsSplit at scale', () => {
  it(`splits ${SHARES} shares among ${MINERS} miners in under 2 s`, () => {
    const addresses = Array.from({ length: MINERS }, (_, i) => `fire${i.toString(36).padStart(6, '0')}`);
    const shares: ShareRecord[] = new Array(SHARES);
    let total = 0n;
    for (let i = 0; i < SHARES; i += 1) {
      // Deterministic spread of addresses and difficulties (1 000 .. 1 000 000).
      const difficulty = BigInt(1_000 + ((i * 7_919) % 999_001));
      shares[i] = { address: addresses[(i * 31) % MINERS]!, difficulty, timestampMs: SHARES - i };
      total += difficulty;
    }
    // The window ends inside the last share, so every share is walked and one counts partially.
    const windowDifficulty = total - 1n;
    const reward = 8_000_000_000n;

    // CPU time, not wall time: on a loaded machine the process waits for a core, which is not
    // the split's cost. (All of this process's threads count, the garbage collector's too.)
    const started = process.cpuUsage();
    const wallStarted = performance.now();
    const split = pplnsSplit({
      reward,
      sharesNewestFirst: shares,
      windowDifficulty,
      finder: addresses[0]!,
      fee: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 10 },
    });
    const used = process.cpuUsage(started);
    const cpuMs = (used.user + used.system) / 1_000;
    const wallMs = performance.now() - wallStarted;
    console.log(
      `pplnsSplit: ${SHARES} shares, ${MINERS} miners in ${cpuMs.toFixed(0)} ms of CPU (${wallMs.toFixed(0)} ms wall)`,
    );

    expectSound(split, reward);
    expect(split.countedDifficulty).toBe(windowDifficulty);
    expect(split.credits.size).toBe(MINERS);
    expect(cpuMs).toBeLessThan(2_000);
  });
});
