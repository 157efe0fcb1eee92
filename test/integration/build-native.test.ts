import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * scripts/build-native.mjs (the npm install hook) run in a copy of the package, so that a failed
 * build never touches the worktree's build/. The compiler is /bin/false: a real node-gyp failure.
 */
describe('native addon install hook (scripts/build-native.mjs)', () => {
  let copy: string;

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'fuego-build-native-'));
    cpSync(join(ROOT, 'scripts', 'build-native.mjs'), join(copy, 'scripts', 'build-native.mjs'));
    cpSync(join(ROOT, 'binding.gyp'), join(copy, 'binding.gyp'));
    cpSync(join(ROOT, 'native'), join(copy, 'native'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  });

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  function install(env: Record<string, string>) {
    const result = spawnSync(process.execPath, [join(copy, 'scripts', 'build-native.mjs')], {
      cwd: copy,
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        ...process.env,
        FUEGO_POW_SKIP_NATIVE: '',
        FUEGO_POOL_REQUIRE_NATIVE: '',
        // The headers of the running Node (Debian's nodejs ships them under /usr), never a download.
        npm_config_nodedir: join(process.execPath, '..', '..'),
        CC: '/bin/false',
        CXX: '/bin/false',
        ...env,
      },
    });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  it('with FUEGO_POOL_REQUIRE_NATIVE=1 a failed build fails the install', () => {
    const { status, output } = install({ FUEGO_POOL_REQUIRE_NATIVE: '1' });
    expect(output).toContain('node-gyp exited with');
    expect(output).toContain('FUEGO_POOL_REQUIRE_NATIVE=1 requires it');
    expect(status).toBe(1);
  });

  it('without the switch a failed build only warns', () => {
    const { status, output } = install({});
    expect(output).toContain('WARNING: native cn/upx2 addon not built (node-gyp exited with');
    expect(status).toBe(0);
  });

  it('with the switch a skipped build fails too; skipped without it only warns', () => {
    const required = install({ FUEGO_POW_SKIP_NATIVE: '1', FUEGO_POOL_REQUIRE_NATIVE: '1' });
    expect(required.output).toContain('FUEGO_POW_SKIP_NATIVE=1');
    expect(required.status).toBe(1);
    const skipped = install({ FUEGO_POW_SKIP_NATIVE: '1' });
    expect(skipped.output).toContain('WARNING');
    expect(skipped.status).toBe(0);
  });
});
