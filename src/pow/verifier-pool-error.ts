import { FuegoPoolError } from '../errors.js';

export type VerifierPoolErrorCode =
  | 'POOL_CLOSED'
  | 'POOL_NOT_STARTED'
  | 'QUEUE_FULL'
  | 'CANCELLED'
  | 'WORKER_CRASHED'
  | 'NO_WORKERS'
  | 'HASH_FAILED'
  | 'WORKER_ENTRY_MISSING';

export class VerifierPoolError extends FuegoPoolError<VerifierPoolErrorCode> {}
