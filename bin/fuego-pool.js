#!/usr/bin/env node
// Thin launcher so that `npx fuego-pool` works after `npm ci` (which builds dist/ in `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('fuego-pool: dist/ is missing; run `npm run build` (npm ci does it for you)\n');
  process.exit(70);
}
await import(entry.href);
