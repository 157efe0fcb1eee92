import { FuegoPoolError } from '../errors.js';
import type { Logger } from '../log/logger.js';

/**
 * Every reason the pool refuses a stratum request, and the one place that maps a reason to the
 * words a miner sees. XMRig acts on some prefixes (shared/spec/stratum.md §4.1): "Unauthenticated",
 * "Invalid job id" and "Your IP is banned" make it reconnect, so a merely stale job must say
 * "Block expired" instead, and a fatal login error must also close the socket (`closeConnection`).
 */
export const STRATUM_ERRORS = {
  UNAUTHENTICATED: { message: 'Unauthenticated', closeConnection: false },
  INVALID_LOGIN: { message: 'Invalid address used for login', closeConnection: true },
  NO_COMPATIBLE_ALGO: {
    message: 'No compatible algorithm found, change algo option in your miner.',
    closeConnection: true,
  },
  NO_TEMPLATE: { message: 'No block template yet. Please wait.', closeConnection: true },
  ALIAS_UNAVAILABLE: {
    message: 'Alias login is not available: the pool daemon does not serve aliases',
    closeConnection: true,
  },
  ALIAS_NOT_FOUND: { message: 'Invalid address used for login: alias not found', closeConnection: true },
  BANNED: { message: 'Your IP is banned', closeConnection: true },
  /** Sent in plain text to a miner that spoke plain JSON to a TLS port. */
  TLS_REQUIRED: {
    message: 'This port requires TLS; use stratum+ssl:// (xmrig --tls) or a plain stratum port',
    closeConnection: true,
  },
  LOGIN_RATE_LIMITED: {
    message: 'Too many new login addresses from your host, try again later',
    closeConnection: true,
  },
  TOO_MANY_LOGINS: { message: 'Too many logins on this connection, reconnect', closeConnection: true },
  INVALID_JOB_ID: { message: 'Invalid job id', closeConnection: false },
  BLOCK_EXPIRED: { message: 'Block expired', closeConnection: false },
  MALFORMED_NONCE: { message: 'Malformed nonce', closeConnection: false },
  MALFORMED_RESULT: { message: 'Malformed result', closeConnection: false },
  NICEHASH_NONCE: {
    message: 'Invalid nonce; is miner not compatible with NiceHash?',
    closeConnection: false,
  },
  DUPLICATE_SHARE: { message: 'Duplicate share', closeConnection: false },
  INVALID_RESULT: { message: 'Rejected share: invalid result', closeConnection: false },
  LOW_DIFFICULTY: { message: 'Low difficulty share', closeConnection: false },
  WRONG_ALGO: { message: 'Incorrect algorithm', closeConnection: false },
  INVALID_METHOD: { message: 'Invalid method', closeConnection: false },
  INVALID_PARAMS: { message: 'Invalid params', closeConnection: false },
  SERVER_BUSY: { message: 'Server busy, please retry', closeConnection: false },
  INTERNAL: { message: 'Internal pool error, share not recorded', closeConnection: false },
} as const satisfies Record<string, { message: string; closeConnection: boolean }>;

export type StratumErrorCode = keyof typeof STRATUM_ERRORS;

export class StratumError extends FuegoPoolError<StratumErrorCode> {
  constructor(code: StratumErrorCode, data: Record<string, unknown> = {}) {
    // A refusal is an answer to the miner, not a failure of the pool: no one reads its stack
    // (toStratumError logs only other errors), and capturing one cost ~6 us, paid per bogus submit.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(code, STRATUM_ERRORS[code].message, data);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }

  get closeConnection(): boolean {
    return STRATUM_ERRORS[this.code].closeConnection;
  }
}

/** The connection a request came on, named in the log line of an unexpected error. */
export interface RequestOrigin {
  readonly id: number;
  readonly info: { readonly remoteAddress: string };
}

/**
 * What a miner is told about any failure of a request: a StratumError as it is; anything else is a
 * pool bug, INTERNAL on the wire and logged here with its stack. Only primitives and objects the
 * caller already holds are passed, so the usual path (a StratumError) allocates nothing.
 */
export function toStratumError(
  error: unknown,
  logger: Logger,
  method: string,
  origin?: RequestOrigin,
): StratumError {
  if (error instanceof StratumError) return error;
  logger.error(
    origin === undefined
      ? { err: error, method }
      : { err: error, method, connection: origin.id, ip: origin.info.remoteAddress },
    'stratum request failed unexpectedly',
  );
  return new StratumError('INTERNAL', { method });
}
