import type { ConnectionInfo, MinerSessionSink, StratumJob } from '../../pool/stratum-backend.js';
import { StratumError, toStratumError } from '../../pool/stratum-errors.js';
import { refusalCloseReason, type StratumConnectionContext } from './connection-context.js';
import {
  type Announcing,
  announcing,
  CLOSED,
  type ConnectionPhase,
  closeReasonOf,
  destroyedFrom,
  established,
  loggingIn,
  NO_SESSION,
  OPEN,
  type SessionState,
} from './connection-state.js';
import { LineSplitter } from './line-splitter.js';
import { type PeerWriter, SocketLineWriter } from './line-writer.js';
import {
  encodeError,
  encodeJobLine,
  encodeResult,
  getJobResultBody,
  KEEPALIVED_OK,
  loginResultBody,
  type ProtocolViolationCode,
  parseRequestLine,
  readLoginParams,
  readSessionId,
  readSubmitParams,
  type StratumRequest,
  SUBMIT_OK,
} from './protocol.js';
import { ReplyQueue, type ReplySlot } from './reply-queue.js';
import { socketFdReader } from './socket-write-batch.js';
import type { CloseReason } from './stratum-metrics.js';

/**
 * One miner connection: framing, request dispatch, reply ordering and every per-connection bound.
 *
 * Decisions (shared/spec/stratum.md):
 * - Replies go out in request order. Submits run concurrently (a proxy multiplexes many miners on
 *   one connection) and wait for their turn to be written; `login` is a barrier that runs alone.
 * - A second `login` replaces the session: the old one is disconnected in the backend first and
 *   its sink goes inert. (XMRig never does this; a proxy re-login is better served than refused.)
 * - Every failed login closes after the reply, whatever the code: without a session XMRig would
 *   sit connected and idle forever (spec §4.3). Other requests close only when the error says so.
 * - A line that is not a JSON object with a usable id closes the connection (no id to echo; XMRig
 *   never sends one) and is recorded as a protocol violation of the peer IP.
 * - At `maxPendingRequests` unanswered requests the socket is paused, never drained into memory.
 *   While backend.canAcceptSubmits(ip) is false (its peer holds its share of share verification)
 *   a connection with a submit at the head of its queue is paused too; requests behind that
 *   submit (even keepalived) wait with it, to keep the order. Other peers' connections go on.
 * - The idle deadline counts received requests only (keepalived counts, job pushes do not), and
 *   never expires while the connection is paused by our own back-pressure. Before login only the
 *   login deadline applies; other requests do not extend it.
 */
export class StratumConnection {
  readonly id: number;
  readonly info: ConnectionInfo;
  /** The socket's side: open, closing, destroyed, closed (connection-state.ts). */
  #phase: ConnectionPhase = OPEN;
  /** The login session: none, logging-in, announcing, established (connection-state.ts). */
  #session: SessionState = NO_SESSION;
  readonly #splitter: LineSplitter;
  readonly #backlog: Array<string | StratumRequest> = [];
  readonly #writer: PeerWriter;
  readonly #replies: ReplyQueue;
  #pumping = false;
  #paused = false;
  #waitingForGate = false;
  #sawFirstChunk = false;
  /** Logins seen: each may cost a key check, so limits.maxLoginsPerConnection bounds them. */
  #logins = 0;
  #activityTimer: NodeJS.Timeout;
  /**
   * What activityTimer counts down: the login deadline from accept until a session is first
   * established, then the idle deadline for good (a re-login does not bring the login one back).
   */
  #deadline: 'login' | 'idle' = 'login';
  readonly #ctx: StratumConnectionContext;

  constructor(ctx: StratumConnectionContext) {
    this.#ctx = ctx;
    this.id = ctx.id;
    this.info = ctx.info;
    this.#splitter = new LineSplitter(ctx.limits.maxLineBytes);
    const { raw, transport } = ctx;
    const direct =
      ctx.directWrites !== undefined && transport === raw
        ? { batch: ctx.directWrites, fd: socketFdReader(raw) }
        : undefined;
    this.#writer = new SocketLineWriter(transport, ctx.limits, (fault) => this.#destroy(fault), direct);
    this.#replies = new ReplyQueue(this.#writer);
    raw.setNoDelay(true);
    raw.setKeepAlive(true, 60_000);
    this.#activityTimer = setTimeout(
      () => this.#onActivityTimeout(),
      ctx.loginTimeLeftMs ?? ctx.limits.loginTimeoutMs,
    );
    transport.on('data', (chunk: Buffer) => this.#onData(chunk));
    transport.on('error', (error: Error) => this.#onSocketError(error));
    if (transport !== raw) raw.on('error', (error: Error) => this.#onSocketError(error));
    raw.on('close', () => this.#onClose());
    if (transport !== raw) transport.on('close', () => this.#onClose());
  }

  /** Ordered end for server shutdown: no new requests, pending replies still go out. */
  shutdown(): void {
    this.#finish('shutdown');
  }

  #onData(chunk: Buffer): void {
    if (this.#phase.kind !== 'open') return;
    if (!this.#sawFirstChunk) {
      this.#sawFirstChunk = true;
      // A TLS ClientHello (record type 0x16) on a plain port: XMRig with --tls would otherwise
      // wait 20 s for an answer that never comes. Closing now makes it fail fast and retry.
      if (!this.info.tls && chunk[0] === 0x16) {
        this.#violation('TLS_ON_PLAIN_PORT');
        return;
      }
    }
    const lines = this.#splitter.push(chunk);
    if (lines === undefined) {
      this.#violation('LINE_TOO_LONG');
      return;
    }
    if (lines.length === 0) return;
    if (this.#deadline === 'idle') this.#activityTimer.refresh();
    for (const line of lines) this.#backlog.push(line);
    this.#pump();
  }

  /** Dispatches backlog requests as far as ordering, the login barrier and the gate allow. */
  #pump(): void {
    if (this.#pumping) return; // the outer loop re-checks its conditions after each dispatch
    this.#pumping = true;
    try {
      while (this.#phase.kind === 'open' && this.#backlog.length > 0 && this.#session.kind !== 'logging-in') {
        if (this.#replies.length >= this.#ctx.limits.maxPendingRequests) break;
        const head = this.#backlog[0]!;
        let request: StratumRequest;
        if (typeof head === 'string') {
          const parsed = parseRequestLine(head);
          if (parsed.violation) {
            this.#backlog.shift();
            this.#violation(parsed.violation.code);
            return;
          }
          request = parsed.request;
          this.#backlog[0] = request;
        } else {
          request = head;
        }
        if (request.method === 'login' && this.#replies.length > 0) break;
        const ip = this.info.remoteAddress;
        if (request.method === 'submit' && this.#ctx.refusal === undefined && !this.#ctx.gate.isOpen(ip)) {
          if (!this.#waitingForGate) this.#ctx.gate.wait(this.#onGateOpen, ip);
          this.#waitingForGate = true;
          break;
        }
        this.#backlog.shift();
        this.#dispatch(request);
      }
    } finally {
      this.#pumping = false;
      this.#updateReading();
    }
  }

  readonly #onGateOpen = (): void => {
    this.#waitingForGate = false;
    this.#pump();
  };

  /** Reads only while there is room for more unanswered requests and nothing blocks the queue. */
  #updateReading(): void {
    const unanswered = this.#backlog.length + this.#replies.length;
    const shouldPause =
      this.#phase.kind !== 'open' ||
      this.#waitingForGate ||
      unanswered >= this.#ctx.limits.maxPendingRequests;
    if (shouldPause && !this.#paused) {
      this.#paused = true;
      this.#ctx.transport.pause();
    } else if (!shouldPause && this.#paused) {
      this.#paused = false;
      this.#ctx.transport.resume();
    }
  }

  #dispatch(request: StratumRequest): void {
    const slot = this.#replies.reserve();
    const refusal = this.#ctx.refusal;
    if (refusal !== undefined) {
      const closeReason = refusalCloseReason(refusal);
      this.#fail(slot, request.id, new StratumError(refusal), () => this.#finish(closeReason));
      return;
    }
    switch (request.method) {
      case 'login':
        void this.#handleLogin(request, slot);
        return;
      case 'submit':
        void this.#handleSubmit(request, slot);
        return;
      case 'getjob':
        this.#handleSync(request, slot, (sessionId) => getJobResultBody(this.#ctx.backend.getJob(sessionId)));
        return;
      case 'keepalived':
        this.#handleSync(request, slot, (sessionId) => {
          this.#ctx.backend.keepalive(sessionId);
          return KEEPALIVED_OK;
        });
        return;
      default:
        this.#fail(slot, request.id, new StratumError('INVALID_METHOD'));
    }
  }

  /** Ends the current session, then logs in; a barrier: nothing else is dispatched meanwhile. */
  async #handleLogin(request: StratumRequest, slot: ReplySlot): Promise<void> {
    this.#logins += 1;
    if (this.#logins > this.#ctx.limits.maxLoginsPerConnection) {
      const tooMany = new StratumError('TOO_MANY_LOGINS');
      return this.#fail(slot, request.id, tooMany, this.#closeIfFatal(tooMany));
    }
    this.#endSession();
    const attempt = loggingIn(this.#createSink());
    this.#session = attempt;
    try {
      const loginRequest = readLoginParams(request.params);
      const result = await this.#ctx.backend.login(loginRequest, this.info, attempt.sink);
      if (this.#phase.kind !== 'open' || this.#session !== attempt) {
        // The connection went away (or was told to) while the backend was logging in.
        this.#disconnectInBackend(result.sessionId);
        this.#complete(slot, null);
        return;
      }
      const accepted = announcing(attempt, result.sessionId);
      this.#session = accepted;
      this.#ctx.metrics.sessionOpened();
      const reply = encodeResult(request.id, loginResultBody(result));
      this.#complete(slot, reply, () => this.#establish(accepted, result.job));
    } catch (error) {
      if (this.#session === attempt) this.#session = NO_SESSION;
      this.#fail(slot, request.id, toStratumError(error, this.#ctx.logger, 'login', this), () =>
        this.#finish('login-failed'),
      );
    } finally {
      this.#pump();
    }
  }

  /** The login reply is written: the session may be named, jobs go out, the idle deadline runs. */
  #establish(accepted: Announcing, loginJob: StratumJob): void {
    if (this.#session !== accepted) return;
    this.#session = established(accepted);
    this.#startIdleDeadline();
    const held = accepted.heldJob;
    if (held && held.job_id !== loginJob.job_id) this.#writer.send(encodeJobLine(held));
  }

  async #handleSubmit(request: StratumRequest, slot: ReplySlot): Promise<void> {
    try {
      const sessionId = this.#requireSession(request);
      const submit = readSubmitParams(request.params);
      await this.#ctx.backend.submit(sessionId, submit);
      this.#complete(slot, encodeResult(request.id, SUBMIT_OK));
    } catch (error) {
      const stratumError = toStratumError(error, this.#ctx.logger, 'submit', this);
      this.#fail(slot, request.id, stratumError, this.#closeIfFatal(stratumError));
    }
  }

  #handleSync(request: StratumRequest, slot: ReplySlot, run: (sessionId: string) => object): void {
    try {
      this.#complete(slot, encodeResult(request.id, run(this.#requireSession(request))));
    } catch (error) {
      const stratumError = toStratumError(error, this.#ctx.logger, request.method, this);
      this.#fail(slot, request.id, stratumError, this.#closeIfFatal(stratumError));
    }
  }

  /** The request must name this connection's own, announced session (xmrig-proxy does the same). */
  #requireSession(request: StratumRequest): string {
    const session = this.#session;
    if (session.kind !== 'established' || readSessionId(request.params) !== session.sessionId) {
      throw new StratumError('UNAUTHENTICATED');
    }
    return session.sessionId;
  }

  #closeIfFatal(error: StratumError): (() => void) | undefined {
    return error.closeConnection ? () => this.#finish('fatal-error') : undefined;
  }

  /** The sink of one login; it falls silent once the session state holding it is replaced. */
  #createSink(): MinerSessionSink {
    const sink: MinerSessionSink = {
      sendJob: (job) => {
        const session = this.#session;
        if (session.kind === 'none' || session.sink !== sink || this.#phase.kind !== 'open') return;
        if (session.kind === 'established') this.#writer.send(encodeJobLine(job));
        else session.heldJob = job; // sent after the login reply (connection-state.ts)
      },
      close: (reason) => {
        if (this.#session.sink !== sink) return;
        this.#logDebug('backend closes miner', 'reason', reason);
        this.#finish('backend');
      },
    };
    return sink;
  }

  /** Forgets the current session (re-login or close): its sink falls silent, the backend is told. */
  #endSession(): void {
    const session = this.#session;
    this.#session = NO_SESSION;
    if (session.kind !== 'announcing' && session.kind !== 'established') return;
    this.#ctx.metrics.sessionClosed();
    this.#disconnectInBackend(session.sessionId);
  }

  #disconnectInBackend(sessionId: string): void {
    try {
      this.#ctx.backend.disconnect(sessionId);
    } catch (error) {
      this.#ctx.logger.error({ err: error, connection: this.id, sessionId }, 'backend.disconnect failed');
    }
  }

  #fail(slot: ReplySlot, id: StratumRequest['id'], error: StratumError, after?: () => void): void {
    this.#ctx.metrics.errorReply(error.code);
    this.#complete(slot, encodeError(id, error), after);
  }

  /** Replies that complete in the same turn leave in one write (batchUntilNextTick). */
  #complete(slot: ReplySlot, line: string | null, after?: () => void): void {
    this.#replies.fill(slot, line, after);
    this.#writer.batchUntilNextTick();
    this.#replies.drain();
    if (this.#phase.kind === 'closing' && this.#replies.length === 0) this.#endTransport();
    else if (this.#phase.kind === 'open') this.#pump();
  }

  #startIdleDeadline(): void {
    this.#deadline = 'idle';
    clearTimeout(this.#activityTimer);
    this.#activityTimer = setTimeout(() => this.#onActivityTimeout(), this.#ctx.limits.idleTimeoutMs);
  }

  #onActivityTimeout(): void {
    if (this.#phase.kind !== 'open') return;
    if (this.#deadline === 'login') {
      this.#finish('login-timeout');
      return;
    }
    // Paused by our own back-pressure: the miner is waiting for us, not idle.
    if (this.#paused && this.#backlog.length + this.#replies.length > 0) {
      this.#activityTimer.refresh();
      return;
    }
    this.#finish('idle-timeout');
  }

  #violation(code: ProtocolViolationCode): void {
    this.#ctx.onProtocolViolation(this.info.remoteAddress, code);
    this.#logDebug('stratum protocol violation', 'violation', code);
    // Nothing useful can follow a TLS hello or an unbounded line; a bad JSON line still lets
    // earlier requests get their replies.
    if (code === 'TLS_ON_PLAIN_PORT' || code === 'LINE_TOO_LONG') this.#destroy('protocol-violation');
    else this.#finish('protocol-violation');
  }

  /**
   * Graceful close: stop reading, drop unread requests, let replies already being worked on go
   * out, then end. A peer or backend that does not finish within closeGraceMs is destroyed.
   */
  #finish(reason: CloseReason): void {
    if (this.#phase.kind !== 'open') return;
    const graceTimer = setTimeout(() => this.#destroy('close-timeout'), this.#ctx.limits.closeGraceMs);
    this.#phase = { kind: 'closing', reason, graceTimer, ended: false };
    this.#backlog.length = 0;
    this.#ctx.gate.cancel(this.#onGateOpen);
    this.#waitingForGate = false;
    this.#updateReading();
    if (this.#replies.length === 0) this.#endTransport();
  }

  #endTransport(): void {
    const phase = this.#phase;
    if (phase.kind !== 'closing' || phase.ended) return;
    phase.ended = true;
    this.#writer.flushHeld();
    this.#ctx.transport.end();
  }

  /** Immediate close. The reason of an earlier graceful close is kept for the metrics. */
  #destroy(reason: CloseReason): void {
    const phase = this.#phase;
    if (phase.kind === 'destroyed' || phase.kind === 'closed') return;
    if (phase.kind === 'closing') clearTimeout(phase.graceTimer);
    this.#phase = destroyedFrom(phase, reason);
    this.#writer.stop();
    this.#ctx.transport.destroy();
    this.#ctx.raw.destroy();
  }

  #onSocketError(error: Error): void {
    this.#logDebug('stratum socket error', 'err', error.message);
    this.#destroy('socket-error');
  }

  #logDebug(msg: string, key: 'reason' | 'violation' | 'err', value: string): void {
    this.#ctx.logger.debug({ connection: this.id, ip: this.info.remoteAddress, [key]: value }, msg);
  }

  #onClose(): void {
    const phase = this.#phase;
    if (phase.kind === 'closed') return;
    if (phase.kind === 'closing') clearTimeout(phase.graceTimer);
    this.#phase = CLOSED;
    clearTimeout(this.#activityTimer);
    this.#writer.stop();
    this.#ctx.gate.cancel(this.#onGateOpen);
    this.#backlog.length = 0;
    this.#endSession();
    this.#ctx.transport.destroy();
    this.#ctx.raw.destroy();
    this.#ctx.onClosed(closeReasonOf(phase));
  }
}
