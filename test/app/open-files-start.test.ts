import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { readOpenFilesLimit } from '../../src/app/open-files-budget.js';
import { startOpenFilesPlan } from '../../src/app/open-files-start.js';
import { parseConfig } from '../../src/config/load-config.js';
import { captureLogs } from '../helpers/log-capture.js';

const STRATUM_ONLY = { roles: new Set(['stratum'] as const), runApi: false };

/** Warnings logged until the logger's stream has written them. */
async function warningsOf(capture: ReturnType<typeof captureLogs>): Promise<string[]> {
  await new Promise((resolve) => setImmediate(resolve));
  return capture.records.filter((record) => record['level'] === 40).map((record) => String(record['msg']));
}

describe('the open-files plan at start', () => {
  it('warns when the limit holds fewer stratum connections than maxConnections over the processes the config starts', async () => {
    const capture = captureLogs();
    const config = parseConfig({ stratum: { processes: 3 } });
    const plan = startOpenFilesPlan(config, STRATUM_ONLY, 20_000, { logger: capture.logger, quiet: false });
    expect(plan.limit).toBe(20_000);
    const warnings = await warningsOf(capture);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('holds 58464 stratum connections (19488 in each of 3 stratum processes)');
  });

  it('counts the processes "auto" starts for that limit: enough of them, no warning', async () => {
    const capture = captureLogs();
    const config = parseConfig({ stratum: { processes: 'auto' } });
    startOpenFilesPlan(config, STRATUM_ONLY, 1_048_576, { logger: capture.logger, quiet: false });
    // At 20,000 open files, six hold 100,000 where there are two to four cores, as here and on CI.
    if (availableParallelism() >= 2)
      startOpenFilesPlan(config, STRATUM_ONLY, 20_000, { logger: capture.logger, quiet: false });
    expect(await warningsOf(capture)).toEqual([]);
  });

  it('warns nothing for a stratum child (its parent did), and caps nothing without a limit', async () => {
    const capture = captureLogs();
    const config = parseConfig({ stratum: { processes: 3 } });
    startOpenFilesPlan(config, STRATUM_ONLY, 20_000, { logger: capture.logger, quiet: true });
    const none = startOpenFilesPlan(config, STRATUM_ONLY, null, { logger: capture.logger, quiet: false });
    expect(none.limit).toBeNull();
    expect(await warningsOf(capture)).toEqual([]);
  });

  it("reads this process's own limit when none is given", () => {
    const capture = captureLogs();
    const plan = startOpenFilesPlan(parseConfig({}), STRATUM_ONLY, undefined, {
      logger: capture.logger,
      quiet: true,
    });
    expect(plan.limit).toBe(readOpenFilesLimit() ?? null);
  });
});
