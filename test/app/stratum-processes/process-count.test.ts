import { describe, expect, it } from 'vitest';
import { stratumProcessCount } from '../../../src/app/stratum-processes/process-count.js';
import { parseConfig } from '../../../src/config/load-config.js';

describe('stratum process count', () => {
  it('is the configured number, or one per core for "auto" (at most 64) where the open-files limit is no constraint', () => {
    const roomy = { openFilesLimit: 1_048_576 };
    expect(stratumProcessCount(parseConfig({}), { cores: 8, ...roomy })).toBe(1);
    expect(
      stratumProcessCount(parseConfig({ stratum: { processes: 3 } }), { cores: 8, openFilesLimit: 1_024 }),
    ).toBe(3);
    const auto = parseConfig({ stratum: { processes: 'auto' } });
    expect(stratumProcessCount(auto, { cores: 2, ...roomy })).toBe(2);
    expect(stratumProcessCount(auto, { cores: 1, ...roomy })).toBe(1);
    expect(stratumProcessCount(auto, { cores: 200, ...roomy })).toBe(64);
    expect(stratumProcessCount(auto, { cores: 2, openFilesLimit: null })).toBe(2); // limit unknown or none
  });

  it('"auto" starts as many as stratum.limits.maxConnections needs under the open-files limit, at most four per core', () => {
    // 20,000 open files hold 19,488 connections a process; 90% of that, for an uneven spread.
    const hundredThousand = parseConfig({ stratum: { processes: 'auto' } }); // maxConnections defaults to 100,000
    expect(stratumProcessCount(hundredThousand, { cores: 2, openFilesLimit: 20_000 })).toBe(6);
    const fiftyThousand = parseConfig({ stratum: { processes: 'auto', limits: { maxConnections: 50_000 } } });
    expect(stratumProcessCount(fiftyThousand, { cores: 2, openFilesLimit: 20_000 })).toBe(3);
    const fewMiners = parseConfig({ stratum: { processes: 'auto', limits: { maxConnections: 5_000 } } });
    expect(stratumProcessCount(fewMiners, { cores: 2, openFilesLimit: 20_000 })).toBe(2);
    // A limit far too low for the cap: four per core, and the start-up warning says the rest.
    expect(stratumProcessCount(hundredThousand, { cores: 2, openFilesLimit: 1_024 })).toBe(8);
    expect(stratumProcessCount(hundredThousand, { cores: 32, openFilesLimit: 1_024 })).toBe(64);
  });
});
