import { FuegoPoolError } from '../../errors.js';

/**
 * The one catalogue of control-socket error codes, with the text an operator reads. Codes in
 * WIRE_CODES travel in error replies (the client rebuilds a ControlError with the same code);
 * the others are raised locally by the server at start or by the client while connecting.
 */
export const CONTROL_ERRORS = {
  // Replies to a request.
  BAD_REQUEST: 'the request is not valid',
  INVALID_IP: 'not an IPv4 or IPv6 address',
  PAYOUTS_UNAVAILABLE: 'this pool process does not run payouts',
  BANS_UNAVAILABLE: 'this pool process reaches no ban list',
  BANS_STORE_UNAVAILABLE: "the pool's ban list in Redis cannot be reached (is Redis up?)",
  PAYOUT_IN_PROGRESS:
    'a payout pass or wallet optimization requested over the control socket is already running',
  PAYOUT_FAILED: 'the payout pass failed',
  WALLET_OPTIMIZE_FAILED: 'the wallet optimization failed',
  STATS_UNAVAILABLE: 'pool statistics cannot be read (is Redis up?)',
  SHUTTING_DOWN: 'the pool is shutting down',
  INTERNAL: 'internal error',
  // Server start.
  SOCKET_DIR_MISSING: 'the directory of the control socket does not exist',
  SOCKET_PATH_TOO_LONG: 'the control socket path is too long for a Unix socket',
  SOCKET_PATH_NOT_SOCKET: 'the control socket path exists and is not a socket (refusing to delete it)',
  SOCKET_IN_USE: 'another process is listening on the control socket',
  SOCKET_FOREIGN: 'a socket of another user is at the control socket path (refusing to replace it)',
  SOCKET_DIR_UNSAFE: 'the control socket directory lets other users add files',
  SOCKET_PERMISSIONS: 'the control socket could not be created owner-only (mode 0600) in its directory',
  // Client.
  SOCKET_MISSING: 'no control socket at this path',
  SOCKET_STALE: 'nothing is listening on the control socket',
  SOCKET_NOT_OWNED: 'the control socket belongs to another user',
  PERMISSION_DENIED: 'permission denied on the control socket',
  TIMEOUT: 'the pool did not answer in time',
  DISCONNECTED: 'the pool closed the control connection',
  BAD_RESPONSE: 'the pool sent a reply this client does not understand',
} as const satisfies Record<string, string>;

export type ControlErrorCode = keyof typeof CONTROL_ERRORS;

/** Codes a server may put in an error reply. */
export const WIRE_CODES = [
  'BAD_REQUEST',
  'INVALID_IP',
  'PAYOUTS_UNAVAILABLE',
  'BANS_UNAVAILABLE',
  'BANS_STORE_UNAVAILABLE',
  'PAYOUT_IN_PROGRESS',
  'PAYOUT_FAILED',
  'WALLET_OPTIMIZE_FAILED',
  'STATS_UNAVAILABLE',
  'SHUTTING_DOWN',
  'INTERNAL',
] as const satisfies readonly ControlErrorCode[];

export type ControlWireCode = (typeof WIRE_CODES)[number];

export class ControlError extends FuegoPoolError<ControlErrorCode> {
  constructor(
    code: ControlErrorCode,
    detail?: string,
    data: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    const base = CONTROL_ERRORS[code];
    super(code, detail === undefined ? base : `${base}: ${detail}`, data, options);
  }
}

export function isWireCode(code: unknown): code is ControlWireCode {
  return typeof code === 'string' && (WIRE_CODES as readonly string[]).includes(code);
}
