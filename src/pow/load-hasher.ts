import { FuegoPoolError } from '../errors.js';
import { loadNativeHasher, nativeHasAesNi } from './native.js';
import { typescriptHasher } from './reference/cn-upx2.js';
import { runSelfTest } from './self-test.js';
import type { PowHasher, PowImplementationName } from './types.js';

/** What the config (`pow.implementation`) and `fuego-pool hash --impl` accept. */
export type PowImplementationChoice = 'auto' | PowImplementationName;

export const POW_IMPLEMENTATION_CHOICES: readonly PowImplementationChoice[] = Object.freeze([
  'auto',
  'native',
  'native-portable',
  'typescript',
]);

export function isPowImplementationChoice(value: string): value is PowImplementationChoice {
  return (POW_IMPLEMENTATION_CHOICES as readonly string[]).includes(value);
}

/** The slice of a pino logger this module needs (a worker thread passes a forwarding stand-in). */
export interface HasherLoadLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

/** Where the implementations come from; tests swap in fakes to drive the fallback path. */
export interface HasherSources {
  loadNative(options: { portable: boolean }): PowHasher;
  nativeHasAesNi(): boolean;
  readonly typescript: PowHasher;
}

export const defaultHasherSources: HasherSources = Object.freeze({
  loadNative: loadNativeHasher,
  nativeHasAesNi,
  typescript: typescriptHasher,
});

function isNativeUnavailable(error: unknown): error is FuegoPoolError {
  return error instanceof FuegoPoolError && error.code === 'NATIVE_POW_UNAVAILABLE';
}

function pickHasher(
  choice: PowImplementationChoice,
  logger: HasherLoadLogger,
  sources: HasherSources,
): PowHasher {
  switch (choice) {
    case 'native':
      return sources.loadNative({ portable: false });
    case 'native-portable':
      return sources.loadNative({ portable: true });
    case 'typescript':
      return sources.typescript;
    case 'auto':
      try {
        // The AES-NI build faults on a CPU without AES-NI, so ask first.
        return sources.loadNative({ portable: !sources.nativeHasAesNi() });
      } catch (error) {
        // Only "the addon is not there" falls back; any other failure is a bug to surface.
        if (!isNativeUnavailable(error)) throw error;
        logger.warn(
          { code: error.code, reason: error.message },
          `native cn/upx2 addon not available (${error.message}); ` +
            'verifying shares with the TypeScript implementation, about 10x slower',
        );
        return sources.typescript;
      }
  }
}

/**
 * Returns the cn/upx2 hasher for `choice` ('auto': native with AES-NI when the CPU has it, else
 * the portable native build, else TypeScript with a warning). Every hasher must pass
 * runSelfTest before it is returned, so a wrong implementation throws PowSelfTestError
 * (POW_SELF_TEST_FAILED) here, before the pool accepts any connection; an explicit native choice
 * without the addon throws NATIVE_POW_UNAVAILABLE.
 * CPU-bound (the self-test hashes six vectors): call it in a worker thread or a CLI.
 */
export function loadHasher(
  choice: PowImplementationChoice,
  logger: HasherLoadLogger,
  sources: HasherSources = defaultHasherSources,
): PowHasher {
  const hasher = pickHasher(choice, logger, sources);
  runSelfTest(hasher);
  return hasher;
}
