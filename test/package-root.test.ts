import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findPackageRoot } from '../src/package-root.js';

describe('findPackageRoot', () => {
  it('finds this package from src/ and from a file deep below it', () => {
    const root = findPackageRoot();
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name).toBe('fuego-pool');
    const deep = pathToFileURL(join(root, 'dist', 'servers', 'api', 'not-built-yet.js')).href;
    expect(findPackageRoot(deep)).toBe(root);
  });

  it('throws when no directory above holds a package.json', () => {
    expect(() => findPackageRoot('file:///no-such-dir/module.js')).toThrow();
  });
});
