import { describe, expect, it } from 'vitest';
import type { MinerSessionSink, StratumJob } from '../../../src/pool/stratum-backend.js';
import {
  announcing,
  CLOSED,
  closeReasonOf,
  destroyedFrom,
  established,
  loggingIn,
  OPEN,
} from '../../../src/servers/stratum/connection-state.js';

const sink: MinerSessionSink = { sendJob: () => {}, close: () => {} };
const job: StratumJob = { job_id: 'j1', blob: '00', target: 'ffffffff', algo: 'cn/upx2', height: 1 };

describe('connection phases', () => {
  it('a connection that closes before we began closing it was closed by the peer', () => {
    expect(closeReasonOf({ kind: 'open' })).toBe('peer');
  });

  it('destroying a graceful close keeps the graceful reason; destroying an open one takes the new', () => {
    const graceTimer = setTimeout(() => {}, 0);
    clearTimeout(graceTimer);
    const closing = { kind: 'closing', reason: 'shutdown', graceTimer, ended: false } as const;
    const fromClosing = destroyedFrom(closing, 'close-timeout');
    expect(fromClosing).toEqual({ kind: 'destroyed', reason: 'shutdown' });
    expect(closeReasonOf(fromClosing)).toBe('shutdown');
    expect(destroyedFrom({ kind: 'open' }, 'slow-consumer')).toEqual({
      kind: 'destroyed',
      reason: 'slow-consumer',
    });
  });

  it('the shared open and closed phases cannot be changed', () => {
    expect(Object.isFrozen(OPEN)).toBe(true);
    expect(Object.isFrozen(CLOSED)).toBe(true);
  });
});

describe('session states', () => {
  it('a job held while logging in is carried to announcing, and dropped once established', () => {
    const attempt = loggingIn(sink);
    expect(attempt).toEqual({ kind: 'logging-in', sink, heldJob: undefined });
    attempt.heldJob = job;
    const accepted = announcing(attempt, 'session-1');
    expect(accepted).toEqual({ kind: 'announcing', sink, sessionId: 'session-1', heldJob: job });
    expect(established(accepted)).toEqual({ kind: 'established', sink, sessionId: 'session-1' });
  });

  it('every state of one login holds the same sink (its liveness check is identity)', () => {
    const attempt = loggingIn(sink);
    const accepted = announcing(attempt, 's');
    expect(accepted.sink).toBe(sink);
    expect(established(accepted).sink).toBe(sink);
  });
});
