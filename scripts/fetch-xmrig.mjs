#!/usr/bin/env node
// Prints the path of the checksum-verified XMRig 6.16.0 used by the benchmark, fetching it into
// .cache/xmrig on first use (see src/tools/xmrig.ts). Needs `npm run build` first.
import { ensureXmrig } from '../dist/tools/xmrig.js';

try {
  process.stdout.write(`${await ensureXmrig()}\n`);
} catch (error) {
  process.stderr.write(`fetch-xmrig: ${error.message}${error.code ? ` [${error.code}]` : ''}\n`);
  process.exitCode = 1;
}
