import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The URL of `fileName` (a .js entry) beside the module at `moduleUrl`, for code that Node must
 * start on its own: a worker thread or a child process needs JavaScript. Compiled (dist/...), the
 * entry sits beside its module. Under vitest the module is the .ts source in src/, which Node
 * cannot start, so the compiled twin under dist/ is used instead: the test script runs
 * `npm run build` (src -> dist) before vitest.
 */
export function compiledSiblingUrl(fileName: string, moduleUrl: string): URL {
  const sibling = new URL(`./${fileName}`, moduleUrl);
  if (!moduleUrl.endsWith('.ts')) return sibling;
  const path = fileURLToPath(sibling);
  const marker = `${sep}src${sep}`;
  const at = path.lastIndexOf(marker);
  if (at < 0) return sibling;
  return pathToFileURL(`${path.slice(0, at)}${sep}dist${sep}${path.slice(at + marker.length)}`);
}
