import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Directories made by tempDir in this test file (each file runs in a process of its own). */
const made: string[] = [];

// Registered when a test file imports this module, so it runs after that file's last test.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new directory under the OS's temp dir, named from `prefix`, removed after this file's tests. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
