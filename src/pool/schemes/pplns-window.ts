import { SchemeError } from './scheme-error.js';

const PERMILLE = 1000n;

/**
 * The PPLNS window, `windowFactor` × network difficulty, as an exact bigint. The factor is the config's
 * number (2, 1.5, 0.5 ...) and is taken to a thousandth: round(factor × 1000) / 1000, a step that
 * gives the same integer on every node. The window is at least 1.
 *
 * @throws SchemeError INVALID_WINDOW: difficulty ≤ 0, or a factor that is not finite or rounds to 0.
 */
export function pplnsWindowDifficulty(networkDifficulty: bigint, windowFactor: number): bigint {
  if (typeof networkDifficulty !== 'bigint' || networkDifficulty <= 0n) {
    throw new SchemeError('INVALID_WINDOW', 'network difficulty must be a bigint > 0', {
      networkDifficulty: String(networkDifficulty),
    });
  }
  const factorPermille = Math.round(windowFactor * 1000);
  if (!Number.isSafeInteger(factorPermille) || factorPermille < 1) {
    throw new SchemeError('INVALID_WINDOW', 'window factor must be a finite number ≥ 0.001', {
      windowFactor,
    });
  }
  const window = (networkDifficulty * BigInt(factorPermille)) / PERMILLE;
  return window > 0n ? window : 1n;
}
