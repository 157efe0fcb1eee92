import { describe, expect, it } from 'vitest';
import { DEMO_MAX_API_CONNECTIONS, DEMO_MAX_MINERS } from '../../src/app/demo-stack.js';
import { openFilesShortfalls } from '../../src/app/open-files-budget.js';

describe('the demo on a machine with the common open-files limit of 1,024', () => {
  it('starts without the warning a production config gets there', () => {
    const demo = {
      stratumProcesses: 1,
      stratumMaxConnections: DEMO_MAX_MINERS,
      apiMaxConnections: DEMO_MAX_API_CONNECTIONS,
    };
    expect(openFilesShortfalls(1_024, demo)).toEqual([]);
    // The defaults (100,000 miners, 4,000 API connections) are what the warning is for.
    const defaults = { stratumProcesses: 1, stratumMaxConnections: 100_000, apiMaxConnections: 4_000 };
    expect(openFilesShortfalls(1_024, defaults)).toHaveLength(2);
  });
});
