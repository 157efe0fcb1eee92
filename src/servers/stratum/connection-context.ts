import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../log/logger.js';
import type { ConnectionInfo, StratumBackend } from '../../pool/stratum-backend.js';
import type { StratumErrorCode } from '../../pool/stratum-errors.js';
import type { ProtocolViolationCode } from './protocol.js';
import type { SocketWriteBatch } from './socket-write-batch.js';
import type { CloseReason, StratumMetrics } from './stratum-metrics.js';
import type { StratumLimits } from './stratum-options.js';
import type { SubmitGate } from './submit-gate.js';

/** Errors that answer every request of a connection, and the close each one is counted as. */
const REFUSAL_CLOSE_REASONS = {
  BANNED: 'banned',
  TLS_REQUIRED: 'tls-required',
} as const satisfies Partial<Record<StratumErrorCode, CloseReason>>;

export type ConnectionRefusal = keyof typeof REFUSAL_CLOSE_REASONS;

export function refusalCloseReason(refusal: ConnectionRefusal): CloseReason {
  return REFUSAL_CLOSE_REASONS[refusal];
}

/** What a StratumConnection is made with: its sockets, what it knows, and whom it tells. */
export interface StratumConnectionContext {
  readonly id: number;
  /** The TCP socket (timeouts, socket options, the definitive 'close'). */
  readonly raw: Socket;
  /** What is read and written: `raw` itself, or a TLSSocket wrapped around it. */
  readonly transport: Duplex;
  readonly info: ConnectionInfo;
  /**
   * Every request gets this error, then the connection closes: the peer connected while banned,
   * or spoke plain text to a TLS port (its miner needs to hear why, and the reply needs its id).
   */
  readonly refusal: ConnectionRefusal | undefined;
  readonly limits: StratumLimits;
  /** Where a plain TCP connection's lines are batched past Node's stream; none: all through Node. */
  readonly directWrites?: SocketWriteBatch;
  /** What is left of limits.loginTimeoutMs, when part of it went before the connection was made. */
  readonly loginTimeLeftMs?: number;
  readonly backend: StratumBackend;
  readonly gate: SubmitGate;
  readonly metrics: StratumMetrics;
  readonly logger: Logger;
  readonly onProtocolViolation: (ip: string, code: ProtocolViolationCode) => void;
  /** The socket closed, for `reason`; called once. */
  readonly onClosed: (reason: CloseReason) => void;
}
