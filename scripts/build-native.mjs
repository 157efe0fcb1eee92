#!/usr/bin/env node
// npm "install" hook: builds the native cn/upx2 addon (binding.gyp -> build/Release/fuego_cn_upx2.node).
// By default a failed or skipped build is not an install failure: the pool then verifies shares
// with the slower TypeScript implementation, so this script exits 0 and prints one warning line.
// FUEGO_POW_SKIP_NATIVE=1 skips the build (for machines without a C++ toolchain).
// FUEGO_POOL_REQUIRE_NATIVE=1 makes the addon mandatory: a failed or skipped build fails the
// install (exit 1), so an image or a deployment never runs on the reference verifier unnoticed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const FALLBACK_NOTE = 'the pool will fall back to the slower TypeScript cn/upx2 verifier';

function warn(reason) {
  console.warn(`fuego-pool: WARNING: native cn/upx2 addon not built (${reason}); ${FALLBACK_NOTE}.`);
}

function run(command, args) {
  // .cmd shims on Windows need a shell; elsewhere spawn directly.
  return spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
}

function build() {
  if (process.env.FUEGO_POW_SKIP_NATIVE === '1') return 'FUEGO_POW_SKIP_NATIVE=1';
  const binName = process.platform === 'win32' ? 'node-gyp.cmd' : 'node-gyp';
  const localGyp = join(root, 'node_modules', '.bin', binName);
  const result = existsSync(localGyp)
    ? run(localGyp, ['rebuild'])
    : run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['exec', '--no', '--', 'node-gyp', 'rebuild']);
  if (result.error) return `could not run node-gyp: ${result.error.message}`;
  if (result.status !== 0) return `node-gyp exited with ${result.status ?? result.signal}`;
  return null;
}

const failure = build();
if (failure !== null && process.env.FUEGO_POOL_REQUIRE_NATIVE === '1') {
  console.error(
    `fuego-pool: ERROR: native cn/upx2 addon not built (${failure}) and FUEGO_POOL_REQUIRE_NATIVE=1 requires it.`,
  );
  process.exit(1);
}
if (failure !== null) warn(failure);
process.exit(0);
