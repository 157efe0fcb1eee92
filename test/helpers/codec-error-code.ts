import { CodecError } from '../../src/fuego/errors.js';

/** Runs `fn`; returns 'OK' or the CodecError code, and fails on any other exception type. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof CodecError) return error.code;
    throw error;
  }
  return 'OK';
}
