import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { builtAddonPath, requireAddon } from '../src/native-addon.js';
import { findPackageRoot } from '../src/package-root.js';

/** The find-and-require both native addon loaders share (the PoW hasher, the listener filter). */
describe('native addons: build/Release from the package root, required or why not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuego-addon-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('looks in build/Release beside the package.json above the caller', () => {
    const root = findPackageRoot();
    expect(builtAddonPath('x.node')).toBe(join(root, 'build', 'Release', 'x.node'));
    writeFileSync(join(dir, 'package.json'), '{}');
    const deep = pathToFileURL(join(dir, 'dist', 'pow', 'native.js')).href;
    expect(builtAddonPath('y.node', deep)).toBe(join(dir, 'build', 'Release', 'y.node'));
  });

  it('says a missing file is missing, and a file that is not an addon failed with the reason', () => {
    expect(requireAddon(join(dir, 'missing.node'))).toEqual({ missing: true });
    const garbage = join(dir, 'garbage.node');
    writeFileSync(garbage, 'not a shared object');
    const loaded = requireAddon(garbage);
    expect(loaded).toEqual({
      failed: true,
      reason: expect.stringContaining(garbage),
      error: expect.any(Error),
    });
  });

  it('requires a built addon', () => {
    const path = builtAddonPath('fuego_cn_upx2.node');
    const loaded = requireAddon<{ hasAesNi(): boolean }>(path);
    if ('missing' in loaded) return; // not built here: the PoW tests say so
    expect('addon' in loaded && typeof loaded.addon.hasAesNi()).toBe('boolean');
  });
});
