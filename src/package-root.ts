import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding package.json, walking up from `fromUrl`. One answer for every layout the
 * code runs from: src/ under vitest, dist/src/ after `tsc`, build/bench/src/ for the benchmarks.
 * Files shipped beside package.json (the native addon, dashboard/, .cache/) are found from here.
 */
export function findPackageRoot(fromUrl: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(fromUrl));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(fromUrl)}`);
    dir = parent;
  }
}
