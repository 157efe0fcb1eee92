import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderConfigReference } from '../../src/config/config-reference.js';
import { CONFIG_REFERENCE_URL } from '../../src/config/write-config-reference.js';

const STALE = 'docs/config.md is stale: run npm run docs:config';

describe('docs/config.md, the configuration reference', () => {
  const rendered = renderConfigReference();

  it('is the file the schema generates today', () => {
    const path = fileURLToPath(CONFIG_REFERENCE_URL);
    expect(existsSync(path), STALE).toBe(true);
    // One line of difference is enough to say so; the message says how to fix it.
    expect(readFileSync(path, 'utf8') === rendered, STALE).toBe(true);
  });

  it('has a row per key with type, default, range and the description from the schema', () => {
    const row = (key: string) => rendered.split('\n').find((line) => line.startsWith(`| \`${key}\` |`));
    expect(row('api.dashboard')).toMatch(/\| boolean \| `true` \| {2}\| Serve the web dashboard at `\/`/);
    expect(row('daemon.port')).toContain('| integer | `18180` | ≥ 1, ≤ 65535 |');
    expect(row('api.liveFeed.maxClients')).toContain('Connections beyond this are refused');
    expect(row('stratum.ports[].port')).toContain('| integer | required |');
    expect(row('pool.address')).toContain('| string | unset |');
  });

  it('explains every key: a key without describe() text in the schema is named here', () => {
    const keyRows = rendered.split('\n').filter((line) => line.startsWith('| `'));
    expect(keyRows.length).toBeGreaterThan(100);
    const undescribed = keyRows
      .filter(
        (line) =>
          line
            .split(' | ')
            .at(-1)
            ?.replace(/\s*\|$/, '')
            .trim() === '',
      )
      .map((line) => line.slice(3, line.indexOf('` |')));
    expect(undescribed).toEqual([]);
  });
});
