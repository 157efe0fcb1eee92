import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OWN_OPEN_FILES,
  openFilesBudget,
  openFilesPlan,
  readOpenFilesLimit,
} from '../../src/app/open-files-budget.js';
import { tempDir } from '../helpers/temp-dir.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                20000                files
Max locked memory         8388608              8388608              bytes
`;

function limitsFile(text: string): string {
  const path = join(tempDir('limits-'), 'limits');
  writeFileSync(path, text);
  return path;
}

describe('the open-files limit', () => {
  it('is read from /proc/self/limits here, and from a file in its format', () => {
    if (process.platform === 'linux') expect(readOpenFilesLimit()).toBeGreaterThan(0);
    expect(readOpenFilesLimit(limitsFile(LIMITS))).toBe(20_000);
  });

  it('is unknown (nothing capped) when unlimited or unreadable', () => {
    expect(
      readOpenFilesLimit(
        limitsFile(LIMITS.replace('20000                20000', 'unlimited            unlimited')),
      ),
    ).toBe(undefined);
    expect(readOpenFilesLimit('/nonexistent/limits')).toBe(undefined);
  });
});

describe('sharing the open files out', () => {
  it('keeps the process its own files, gives the API at most a quarter of the rest and the miners the remainder', () => {
    expect(openFilesBudget(20_000, 4_000)).toEqual({
      limit: 20_000,
      api: 4_000,
      stratum: 20_000 - OWN_OPEN_FILES - 4_000,
    });
    // A small limit: the API is cut, the miners keep three quarters.
    expect(openFilesBudget(4_096, 4_000)).toEqual({ limit: 4_096, api: 896, stratum: 2_688 });
    expect(openFilesBudget(20_000, null)).toEqual({
      limit: 20_000,
      api: 0,
      stratum: 20_000 - OWN_OPEN_FILES,
    });
    expect(openFilesBudget(100, 4_000)).toEqual({ limit: 100, api: 0, stratum: 0 });
  });

  it('one process with every role: both caps, and a warning naming each key the limit cuts', () => {
    const plan = openFilesPlan(
      20_000,
      { stratumMaxConnections: 100_000, stratumProcesses: 1, apiMaxConnections: 4_000 },
      { quiet: false },
    );
    expect(plan).toMatchObject({ limit: 20_000, stratum: 15_488, api: 4_000 });
    expect(plan.warnings).toHaveLength(1);
    expect(plan.warnings[0]).toMatch(
      /open-files limit 20000 holds 15488 stratum connections, fewer than stratum\.limits\.maxConnections \(100000\).*LimitNOFILE/,
    );
  });

  it('stratum children: the parent warns for all of them and caps nothing of its own; a child caps itself quietly', () => {
    const parent = openFilesPlan(
      20_000,
      { stratumMaxConnections: 100_000, stratumProcesses: 2, apiMaxConnections: 4_000 },
      { quiet: false },
    );
    expect(parent.stratum).toBe(undefined);
    expect(parent.warnings[0]).toMatch(
      /holds 38976 stratum connections \(19488 in each of 2 stratum processes\)/,
    );
    const child = openFilesPlan(
      20_000,
      { stratumMaxConnections: 100_000, stratumProcesses: 1, apiMaxConnections: null },
      { quiet: true },
    );
    expect(child).toEqual({ limit: 20_000, stratum: 19_488, api: undefined, warnings: [] });
  });

  it('says nothing when the limit holds every cap, and caps nothing when the limit is unknown', () => {
    const roomy = openFilesPlan(
      1_048_576,
      { stratumMaxConnections: 100_000, stratumProcesses: 1, apiMaxConnections: 4_000 },
      { quiet: false },
    );
    expect(roomy.warnings).toEqual([]);
    expect(
      openFilesPlan(
        null,
        { stratumMaxConnections: 10, stratumProcesses: 1, apiMaxConnections: 10 },
        { quiet: false },
      ),
    ).toEqual({
      limit: null,
      stratum: undefined,
      api: undefined,
      warnings: [],
    });
  });

  it('warns when the API is cut', () => {
    const plan = openFilesPlan(
      4_096,
      { stratumMaxConnections: null, stratumProcesses: 1, apiMaxConnections: 4_000 },
      { quiet: false },
    );
    expect(plan.api).toBe(896);
    expect(plan.warnings).toEqual([
      expect.stringMatching(/holds 896 API connections, fewer than api\.maxConnections \(4000\)/),
    ]);
  });
});
