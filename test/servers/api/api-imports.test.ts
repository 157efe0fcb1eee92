import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The API folder imports one way: route plugins and services never reach back into
 * build-api-server.ts (the module that builds and wires them), and no two modules import each other,
 * directly or round a longer loop. Checked on the source text, `import type` included.
 */
const API_DIR = fileURLToPath(new URL('../../../src/servers/api/', import.meta.url));

/** Each module of the folder -> the modules of the folder it imports. */
function importGraph(): Map<string, string[]> {
  const modules = readdirSync(API_DIR).filter((name) => name.endsWith('.ts'));
  return new Map(
    modules.map((name) => {
      const text = readFileSync(join(API_DIR, name), 'utf8');
      const local = [...text.matchAll(/^(?:import|export)[^'"]*from '\.\/([^'/]+)\.js';/gm)].map(
        (match) => `${match[1]}.ts`,
      );
      return [name, local.filter((target) => modules.includes(target))];
    }),
  );
}

/** Every import loop, each as the list of modules round it (starting from its first module by name). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const walk = (path: string[]): void => {
    for (const next of graph.get(path.at(-1)!) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const loop = path.slice(at);
        const first = loop.indexOf([...loop].sort()[0]!);
        const canonical = [...loop.slice(first), ...loop.slice(0, first)];
        found.set(canonical.join(' -> '), canonical);
      } else {
        walk([...path, next]);
      }
    }
  };
  for (const start of graph.keys()) walk([start]);
  return [...found.values()];
}

describe('src/servers/api imports', () => {
  it('has no import cycle', () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('imports build-api-server.ts from nowhere inside the folder', () => {
    const importers = [...importGraph()].filter(([, targets]) => targets.includes('build-api-server.ts'));
    expect(importers.map(([name]) => name)).toEqual([]);
  });
});
