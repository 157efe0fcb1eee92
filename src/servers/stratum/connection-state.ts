import type { MinerSessionSink, StratumJob } from '../../pool/stratum-backend.js';
import type { CloseReason } from './stratum-metrics.js';

/**
 * The socket side of a stratum connection. Every transition not listed is a no-op:
 *
 *   open ──finish(reason)──> closing ──destroy(any; the closing reason is kept)──> destroyed
 *   open ──destroy(reason)─────────────────────────────────────────────────────> destroyed
 *   open | closing | destroyed ──socket 'close'──> closed
 *
 * - open: the socket is read and requests are dispatched.
 * - closing: a graceful close. Nothing more is read and unread requests are dropped; replies
 *   being worked on still go out, then the transport is ended (`ended`). The grace timer
 *   destroys the connection if that or the peer takes longer than closeGraceMs.
 * - destroyed: both sockets destroyed on purpose (a fault, or the grace ran out); waiting for 'close'.
 * - closed: 'close' seen, the session ended, the server told. Final.
 */
export type ConnectionPhase = Open | Closing | Destroyed | { readonly kind: 'closed' };

interface Open {
  readonly kind: 'open';
}

interface Closing {
  readonly kind: 'closing';
  readonly reason: CloseReason;
  readonly graceTimer: NodeJS.Timeout;
  ended: boolean;
}

interface Destroyed {
  readonly kind: 'destroyed';
  readonly reason: CloseReason;
}

export const OPEN: ConnectionPhase = Object.freeze({ kind: 'open' });
export const CLOSED: ConnectionPhase = Object.freeze({ kind: 'closed' });

/** destroy(reason) from open or closing: a graceful close keeps its own reason for the metrics. */
export function destroyedFrom(phase: Open | Closing, reason: CloseReason): Destroyed {
  return { kind: 'destroyed', reason: phase.kind === 'closing' ? phase.reason : reason };
}

/** Why a connection in `phase` closed when its socket's 'close' came: the peer, if we had not begun. */
export function closeReasonOf(phase: Open | Closing | Destroyed): CloseReason {
  return phase.kind === 'open' ? 'peer' : phase.reason;
}

/**
 * The login session of a connection:
 *
 *   none ──login──> logging-in ──backend accepted──> announcing ──login reply written──> established
 *   logging-in ──backend refused──> none (the error reply then closes the connection)
 *   any ──socket 'close'──> none
 *   any ──login──> logging-in (a current session is ended first: disconnected in the backend)
 *
 * - logging-in: backend.login is in flight. It is a barrier: nothing else is dispatched.
 * - announcing: the backend accepted; the login reply is queued but not yet written.
 * - established: the login reply is written; requests must name `sessionId`.
 * Until `established`, a job the backend pushes is held (only the newest matters) and sent right
 * after the login reply: a miner must never get a job before it (spec §3.4).
 * A sink is live while the state holding it is the current one; a replaced one falls silent.
 */
export type SessionState =
  | { readonly kind: 'none'; readonly sink?: undefined }
  | LoggingIn
  | Announcing
  | Established;

export interface LoggingIn {
  readonly kind: 'logging-in';
  readonly sink: MinerSessionSink;
  heldJob: StratumJob | undefined;
}

export interface Announcing {
  readonly kind: 'announcing';
  readonly sink: MinerSessionSink;
  readonly sessionId: string;
  heldJob: StratumJob | undefined;
}

export interface Established {
  readonly kind: 'established';
  readonly sink: MinerSessionSink;
  readonly sessionId: string;
}

export const NO_SESSION: SessionState = Object.freeze({ kind: 'none' });

/** none → logging-in. */
export function loggingIn(sink: MinerSessionSink): LoggingIn {
  return { kind: 'logging-in', sink, heldJob: undefined };
}

/** logging-in → announcing: the backend accepted the login; a job it pushed meanwhile stays held. */
export function announcing(attempt: LoggingIn, sessionId: string): Announcing {
  return { kind: 'announcing', sink: attempt.sink, sessionId, heldJob: attempt.heldJob };
}

/** announcing → established: the login reply is written. */
export function established(from: Announcing): Established {
  return { kind: 'established', sink: from.sink, sessionId: from.sessionId };
}
