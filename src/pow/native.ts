import { FuegoPoolError } from '../errors.js';
import { builtAddonPath, requireAddon } from '../native-addon.js';
import type { PowHasher } from './types.js';

/** File name node-gyp gives the addon (binding.gyp target `fuego_cn_upx2`). */
export const NATIVE_ADDON_FILE = 'fuego_cn_upx2.node';

/**
 * Environment switch: `FUEGO_POW_FORCE_PORTABLE=1` makes every native hasher use the portable
 * (table) AES path even when `{ portable: false }` is asked for and the CPU has AES-NI. Meant
 * for testing that path on an AES-NI machine; it is about 6x slower.
 */
export const FORCE_PORTABLE_ENV = 'FUEGO_POW_FORCE_PORTABLE';

/**
 * The native addon is missing (not built, e.g. no compiler at `npm ci`) or failed to load
 * (wrong ABI, corrupt file). `data.path` is where it was looked for.
 */
export class NativePowUnavailableError extends FuegoPoolError<'NATIVE_POW_UNAVAILABLE'> {
  constructor(message: string, data: { path: string }, options?: ErrorOptions) {
    super('NATIVE_POW_UNAVAILABLE', message, data, options);
  }
}

/** What build/Release/fuego_cn_upx2.node exports (native/addon.cc). All calls are synchronous. */
export interface NativeCnAddon {
  /** cn/upx2 of `input`: 32 bytes. `portable` forces the table AES path. */
  hash(input: Uint8Array, portable?: boolean): Buffer;
  /** cn/upx2 of `input` written to `output[0..31]` (`output` must hold at least 32 bytes). */
  hashInto(input: Uint8Array, output: Uint8Array, portable?: boolean): void;
  /** cn/upx2 of both inputs, main loops interleaved: 64 bytes, `first`'s hash then `second`'s. */
  hashPair(first: Uint8Array, second: Uint8Array, portable?: boolean): Buffer;
  /** cn/upx2 of every input (hashed in pairs). */
  hashBatch(inputs: readonly Uint8Array[], portable?: boolean): Buffer[];
  /** Other CryptoNight forms: variant 0/1/2, light on/off (light + 2 is cn/upx2). */
  slowHash(input: Uint8Array, variant: 0 | 1 | 2, light: boolean, portable?: boolean): Buffer;
  /** Test hook: CryptoNight's final hash `index` (0 BLAKE, 1 Groestl, 2 JH, 3 Skein) of a 200-byte state. */
  finalHash(index: 0 | 1 | 2 | 3, state: Uint8Array): Buffer;
  /** cn_fast_hash (Keccak-256, original padding). */
  fastHash(input: Uint8Array): Buffer;
  /** cn_fast_hash of `input` written to `output[offset..offset+31]`. */
  fastHashInto(input: Uint8Array, output: Uint8Array, offset: number): void;
  /**
   * Runs a chain of cn_fast_hash steps over `work` in place (native/hash_chain.h: per step src,
   * len, branch, depth, dst, cache, cached blocks after the count), then copies
   * `work[from, from + output.length)` to `output`.
   */
  fastHashChain(work: Uint8Array, steps: Uint32Array, output: Uint8Array, from: number): void;
  /** The CPU has AES-NI and this build contains the AES-NI path. */
  hasAesNi(): boolean;
}

/** Absolute path of the built addon (it may not exist). */
export function nativeAddonPath(fromUrl: string = import.meta.url): string {
  return builtAddonPath(NATIVE_ADDON_FILE, fromUrl);
}

/**
 * Loads the addon (Node caches it per thread). Throws NativePowUnavailableError when the file
 * is missing or cannot be loaded.
 */
export function loadNativeAddon(path: string = nativeAddonPath()): NativeCnAddon {
  const loaded = requireAddon<NativeCnAddon>(path);
  if ('addon' in loaded) return loaded.addon;
  if ('missing' in loaded) {
    throw new NativePowUnavailableError(
      `native cn/upx2 addon not found at ${path} (build it with \`npm run build:native\`)`,
      { path },
    );
  }
  throw new NativePowUnavailableError(
    `native cn/upx2 addon at ${path} failed to load: ${loaded.reason}`,
    { path },
    { cause: loaded.error },
  );
}

/**
 * A cn/upx2 hasher backed by the native addon. `{ portable: false }` uses AES-NI when the CPU
 * has it (otherwise, and when FUEGO_POW_FORCE_PORTABLE=1, the portable path): `implementation`
 * says which one actually runs. Throws NativePowUnavailableError when the addon is unavailable.
 */
export function loadNativeHasher(
  options: { portable: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): PowHasher {
  const addon = loadNativeAddon();
  const portable = options.portable || env[FORCE_PORTABLE_ENV] === '1' || !addon.hasAesNi();
  return Object.freeze({
    implementation: portable ? 'native-portable' : 'native',
    hash: (input: Uint8Array): Uint8Array => addon.hash(input, portable),
    hashPair: (first: Uint8Array, second: Uint8Array): Uint8Array => addon.hashPair(first, second, portable),
  });
}

/** True when the addon loads and the CPU has AES-NI; false when either is missing. */
export function nativeHasAesNi(): boolean {
  try {
    return loadNativeAddon().hasAesNi();
  } catch (error) {
    if (error instanceof NativePowUnavailableError) return false;
    throw error;
  }
}
