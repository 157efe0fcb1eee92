import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigReference } from './config-reference.js';

/**
 * `npm run docs:config`: writes docs/config.md from the schema. The file sits two folders under
 * the package root both as src/config/*.ts and as dist/config/*.js, so the path holds for both.
 */
export const CONFIG_REFERENCE_URL = new URL('../../docs/config.md', import.meta.url);

export function writeConfigReference(path: string = fileURLToPath(CONFIG_REFERENCE_URL)): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderConfigReference());
}
