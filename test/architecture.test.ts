import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering the code relies on, checked on the source text: the Redis client only where Redis
 * is implemented or wired, and the money path's services (src/leader) and rules (src/pool) behind
 * their ports, never reaching into the store.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(text: string): string[] {
  return [...text.matchAll(/^import[^'"]*from '([^']+)';/gm)].map((m) => m[1]!);
}

const files = sourceFiles(SRC).map((path) => {
  const text = readFileSync(path, 'utf8');
  return { path: relative(SRC, path), text, imports: importsOf(text) };
});

describe('layering', () => {
  it('imports ioredis only in store/, app/, cluster/ and tools/', () => {
    const offenders = files
      .filter((f) => f.imports.includes('ioredis'))
      .map((f) => f.path)
      .filter((path) => !/^(store|app|cluster|tools)\//.test(path));
    expect(offenders).toEqual([]);
  });

  it('keeps pool/ and leader/ off the store (they work through the ports in pool/)', () => {
    const offenders = files
      .filter((f) => /^(pool|leader)\//.test(f.path))
      .filter((f) => f.imports.some((spec) => /\/store\//.test(spec) || spec.startsWith('../store')))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('keeps pool/ free of the leader and the edges', () => {
    const offenders = files
      .filter((f) => f.path.startsWith('pool/'))
      .filter((f) => f.imports.some((spec) => /\/(leader|servers|app|cluster|cli)\//.test(spec)))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('lets config/ import nothing of the project but its own files and the base error class', () => {
    const offenders = files
      .filter((f) => f.path.startsWith('config/'))
      .filter((f) =>
        f.imports.some((spec) => spec.startsWith('.') && !spec.startsWith('./') && spec !== '../errors.js'),
      )
      .map((f) => f.path);
    expect(offenders).toEqual([]);
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
