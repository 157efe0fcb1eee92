import { describe, expect, it } from 'vitest';
import { stratumProcessCount } from '../../../src/app/stratum-processes/process-count.js';
import { parseConfig } from '../../../src/config/load-config.js';

describe('stratum process count', () => {
  it('is the configured number, or one per core for "auto" (at most 64)', () => {
    expect(stratumProcessCount(parseConfig({}), 8)).toBe(1);
    expect(stratumProcessCount(parseConfig({ stratum: { processes: 3 } }), 8)).toBe(3);
    const auto = parseConfig({ stratum: { processes: 'auto' } });
    expect(stratumProcessCount(auto, 2)).toBe(2);
    expect(stratumProcessCount(auto, 1)).toBe(1);
    expect(stratumProcessCount(auto, 200)).toBe(64);
  });
});
