import { FuegoPoolError } from '../../errors.js';

/**
 * Why the unlocker or the window fixer leaves a block as it is for now (logged, retried next run):
 * - WINDOW_NOT_FIXED: a PPLNS block's window still waits to be fixed (the fixer failed on it).
 * - BLOCK_RECORD_MISSING: a block waits for its window but has no record to read it from.
 */
export type UnlockErrorCode = 'WINDOW_NOT_FIXED' | 'BLOCK_RECORD_MISSING';

export class UnlockError extends FuegoPoolError<UnlockErrorCode> {}
