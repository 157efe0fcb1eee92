import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { findPackageRoot } from './package-root.js';

/**
 * A native addon node-gyp builds (binding.gyp): its file under build/Release beside package.json,
 * loaded with require. Each loader (src/pow/native.ts, src/servers/flood-drop/listener-filter.ts)
 * says in its own words why it cannot use one.
 */

/** Absolute path of the built addon `file` (it may not exist), from the package root above `fromUrl`. */
export function builtAddonPath(file: string, fromUrl: string = import.meta.url): string {
  return join(findPackageRoot(fromUrl), 'build', 'Release', file);
}

/** The addon at `path`, or why not: the file is missing, or require failed (`reason`, `error`). */
export type AddonLoad<Addon> =
  | { readonly addon: Addon }
  | { readonly missing: true }
  | { readonly failed: true; readonly reason: string; readonly error: unknown };

/** Requires the addon at `path` (Node caches it per thread); never throws. */
export function requireAddon<Addon>(path: string): AddonLoad<Addon> {
  if (!existsSync(path)) return { missing: true };
  try {
    return { addon: createRequire(import.meta.url)(path) as Addon };
  } catch (error) {
    return { failed: true, reason: error instanceof Error ? error.message : String(error), error };
  }
}

/**
 * The built addon `file` when it loads and says this platform supports it, or why not, in words
 * a log line can carry: `what` names the feature (e.g. "socket filters").
 */
export function loadSupportedAddon<Addon extends { supported(): boolean }>(
  file: string,
  what: string,
  fromUrl: string = import.meta.url,
): { readonly addon: Addon } | { readonly unavailable: string } {
  const path = builtAddonPath(file, fromUrl);
  const loaded = requireAddon<Addon>(path);
  if ('missing' in loaded) return { unavailable: `native addon not built (${path} missing)` };
  if ('failed' in loaded) return { unavailable: `native addon failed to load: ${loaded.reason}` };
  if (!loaded.addon.supported()) return { unavailable: `${what} are not supported on ${process.platform}` };
  return { addon: loaded.addon };
}
