import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  functionLengths,
  importCycles,
  readSourceTree,
  readTestTree,
  SRC,
  zoneOf,
} from './helpers/source-tree.js';

/**
 * The house rules the tree keeps, checked on the source: dependencies flow one way down the
 * layers, no module imports itself back through others, the Redis client stays where Redis is
 * implemented or wired, the devnet shares only the codec and the hash with the pool, and files
 * and functions stay small enough to read.
 */
const files = readSourceTree();

/**
 * From the bottom up. A file may import its own zone and any zone of a lower layer, never one of
 * its own layer or above. `model` holds the records and ports that the pool's rules and the stores
 * both speak, so that a store implements a port without importing the rules.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts', 'fault-points.ts', 'package-root.ts', 'compiled-module-url.ts', 'monotonic-clock.ts', 'log'],
  ['fuego', 'model', 'native-addon.ts'],
  ['pow', 'rpc', 'store', 'config', 'tools'],
  ['pool'],
  ['leader', 'servers', 'cluster', 'devnet'],
  ['app'],
  ['cli'],
  ['cli.ts'],
];

function layerOf(zone: string): number {
  const layer = LAYERS.findIndex((zones) => zones.includes(zone));
  if (layer === -1) throw new Error(`src/${zone} has no layer: add it to LAYERS in ${import.meta.url}`);
  return layer;
}

describe('layering', () => {
  it('gives every zone of src/ a layer', () => {
    for (const file of files) expect(() => layerOf(zoneOf(file.path))).not.toThrow();
  });

  it('imports only downwards: no zone imports one of its own layer or above', () => {
    const offenders = files.flatMap((file) => {
      const from = zoneOf(file.path);
      return file.localImports
        .filter((target) => zoneOf(target) !== from && layerOf(zoneOf(target)) >= layerOf(from))
        .map((target) => `${file.path} -> ${target}`);
    });
    expect(offenders).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(importCycles(files)).toEqual([]);
  });

  it('imports ioredis only in store/, app/, cluster/ and tools/', () => {
    const offenders = files
      .filter((f) => f.specifiers.includes('ioredis'))
      .map((f) => f.path)
      .filter((path) => !/^(store|app|cluster|tools)\//.test(path));
    expect(offenders).toEqual([]);
  });

  it('keeps pool/ and leader/ off the store: they work through the ports in model/', () => {
    const offenders = files
      .filter((f) => ['pool', 'leader'].includes(zoneOf(f.path)))
      .flatMap((f) => f.localImports.filter((t) => zoneOf(t) === 'store').map((t) => `${f.path} -> ${t}`));
    expect(offenders).toEqual([]);
  });

  it('lets the devnet reuse only the codec and the hash, never the pool, its stores or its RPC client', () => {
    const allowed = new Set(['devnet', 'fuego', 'pow', 'errors.ts', 'log', 'package-root.ts']);
    const offenders = files
      .filter((f) => zoneOf(f.path) === 'devnet')
      .flatMap((f) => f.localImports.filter((t) => !allowed.has(zoneOf(t))).map((t) => `${f.path} -> ${t}`));
    expect(offenders).toEqual([]);
  });

  it('lets config/ import nothing of the project but its own files and the base error class', () => {
    const offenders = files
      .filter((f) => zoneOf(f.path) === 'config')
      .flatMap((f) => f.localImports.filter((t) => zoneOf(t) !== 'config' && t !== 'errors.ts'));
    expect(offenders).toEqual([]);
  });
});

const MAX_FILE_LINES = 450;
const MAX_FUNCTION_LINES = 80;

describe('size', () => {
  it(`keeps every source file within ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map((f) => ({ path: f.path, lines: f.text.split('\n').length - (f.text.endsWith('\n') ? 1 : 0) }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.path}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it(`keeps every function within ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files
      .flatMap(functionLengths)
      .filter((f) => f.lines > MAX_FUNCTION_LINES)
      .map((f) => `${f.path}#${f.name}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});

/** The project's root: a test of a benchmark's tool mirrors its path from here. */
const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Suites that test across the tree (a real miner, the devnet, faults, fuzzing) and test support. */
const CROSS_CUTTING_TEST_FOLDERS = new Set(['integration', 'e2e', 'faults', 'fuzz', 'helpers', 'fixtures']);

describe('test layout', () => {
  const tests = readTestTree();
  const sourceByName = new Map<string, string[]>();
  for (const file of files) {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1, -'.ts'.length);
    sourceByName.set(name, [...(sourceByName.get(name) ?? []), file.path]);
  }

  it('puts each unit test in the folder that mirrors the source it tests', () => {
    const misplaced = tests
      .filter((path) => !CROSS_CUTTING_TEST_FOLDERS.has(zoneOf(path)))
      .flatMap((path) => {
        // A benchmark's own tool (test/benchmarks/x/y.test.ts) mirrors benchmarks/x/y.ts.
        if (zoneOf(path) === 'benchmarks') {
          const tool = path.replace(/\.test\.ts$/, '.ts');
          return existsSync(join(ROOT, tool)) ? [] : [`${path} (no ${tool})`];
        }
        const folder = path.slice(0, path.lastIndexOf('/') + 1);
        const name = path.slice(folder.length, -'.test.ts'.length);
        const sources = sourceByName.get(name) ?? [];
        // Named after a module: it sits beside that module's mirror. Named after a behaviour: in a mirrored folder.
        if (sources.length === 1)
          return sources[0] === `${folder}${name}.ts` ? [] : [`${path} (tests src/${sources[0]})`];
        return folder === '' || existsSync(join(SRC, folder)) ? [] : [`${path} (no src/${folder})`];
      });
    expect(misplaced).toEqual([]);
  });
});

describe('consistency', () => {
  it("imports 'pino' only in log/ (everything else takes the Logger type and loggers from log/)", () => {
    const offenders = files
      .filter((f) => /(from|import\(|require\()\s*['"]pino['"]/.test(f.text))
      .map((f) => f.path)
      .filter((path) => !path.startsWith('log/'));
    expect(offenders).toEqual([]);
  });

  it('keeps private state in # members (TypeScript `private` only on constructors)', () => {
    // A member declared `private ...` at the start of a line, or a `private` parameter property.
    const privateMember = /^\s*private\s+(?!constructor\b)|[(,]\s*private\s+(readonly\s+)?\w+\??\s*:/m;
    const offenders = files.filter((f) => privateMember.test(f.text)).map((f) => f.path);
    expect(offenders).toEqual([]);
  });
});
