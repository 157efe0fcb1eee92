import { ConfigError } from '../../src/config/load-config.js';

/** The ConfigError `fn` throws; anything else it throws is rethrown, and no throw fails the test. */
export function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
