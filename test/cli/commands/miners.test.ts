import { afterEach, describe, expect, it } from 'vitest';
import { formatMiners } from '../../../src/cli/commands/miners.js';
import { runCliForTest } from '../../helpers/cli.js';
import { MINER_A, MINER_B } from '../../servers/control/control-fakes.js';
import { type ControlFixture, startControlFixture } from '../control-cli-fixture.js';

describe('fuego-pool miners', () => {
  let fixture: ControlFixture | undefined;
  afterEach(async () => {
    await fixture?.stop();
    fixture = undefined;
  });

  it('formats the top miners table', () => {
    const lines = formatMiners(
      {
        windowSeconds: 600,
        miners: [
          { address: MINER_A, hashrate: 950_000, activeWorkers: 3, lastShareMs: 1_700_000_000_000 - 12_000 },
          { address: MINER_B, hashrate: 1_500, activeWorkers: 12, lastShareMs: 1_700_000_000_000 - 95_000 },
        ],
      },
      1_700_000_000_000,
    );
    expect(lines).toEqual([
      'top 2 miners by hashrate over 10m 00s',
      '#     hashrate  workers  last share  address',
      `1  950.00 kH/s        3  12s ago     ${MINER_A}`,
      `2    1.50 kH/s       12  1m 35s ago  ${MINER_B}`,
    ]);
  });

  it('asks the pool for --limit miners and prints them', async () => {
    fixture = await startControlFixture();
    const run = await runCliForTest(['miners', '--limit', '1', '--socket', fixture.socketPath]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe('top 1 miners by hashrate over 10m 00s');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain(MINER_A);

    const json = await runCliForTest(['miners', '--json', '--socket', fixture.socketPath]);
    expect(JSON.parse(json.stdout).miners.map((m: { address: string }) => m.address)).toEqual([
      MINER_A,
      MINER_B,
    ]);
  });

  it('says so when no miner is active, and checks --limit', async () => {
    fixture = await startControlFixture({
      stats: {
        poolHashrate: async () => ({ hashrate: 0, miners: 0, workers: 0 }),
        topMiners: async () => [],
      },
    });
    const run = await runCliForTest(['miners', '--socket', fixture.socketPath]);
    expect(run.stdout).toBe('no miner with a share in the last 10m 00s\n');
    expect((await runCliForTest(['miners', '--limit', '101', '--socket', fixture.socketPath])).code).toBe(2);
  });

  it('reports STATS_UNAVAILABLE when the store cannot be read', async () => {
    fixture = await startControlFixture({
      stats: {
        poolHashrate: () => Promise.reject(new Error('x')),
        topMiners: () => Promise.reject(new Error('x')),
      },
    });
    const run = await runCliForTest(['miners', '--socket', fixture.socketPath]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[STATS_UNAVAILABLE]');
  });
});
