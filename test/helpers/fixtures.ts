import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of a file under test/fixtures (copied from shared/spec, see test/fixtures/README.md). */
export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}

export function readFixture(relative: string): string {
  return readFileSync(fixturePath(relative), 'utf8');
}

export function readJsonFixture<T = unknown>(relative: string): T {
  return JSON.parse(readFixture(relative)) as T;
}
