import { describe, expect, it } from 'vitest';
import { STRATUM_ERRORS, StratumError, toStratumError } from '../../src/pool/stratum-errors.js';
import { captureLogs } from '../helpers/log-capture.js';

/** XMRig 6.16 reconnects on these message prefixes (Client::isCriticalError). */
const XMRIG_CRITICAL_PREFIXES = [
  'unauthenticated',
  'your ip is banned',
  'ip address currently banned',
  'invalid job id',
];

function xmrigReconnects(message: string): boolean {
  return XMRIG_CRITICAL_PREFIXES.some((prefix) => message.toLowerCase().startsWith(prefix));
}

describe('stratum error catalogue', () => {
  it('keeps a stale share non-fatal for XMRig so a new block costs no reconnect', () => {
    expect(xmrigReconnects(STRATUM_ERRORS.BLOCK_EXPIRED.message)).toBe(false);
    expect(xmrigReconnects(STRATUM_ERRORS.DUPLICATE_SHARE.message)).toBe(false);
    expect(xmrigReconnects(STRATUM_ERRORS.LOW_DIFFICULTY.message)).toBe(false);
  });

  it('uses the reconnecting words exactly where a resync is wanted', () => {
    expect(xmrigReconnects(STRATUM_ERRORS.UNAUTHENTICATED.message)).toBe(true);
    expect(xmrigReconnects(STRATUM_ERRORS.INVALID_JOB_ID.message)).toBe(true);
    expect(xmrigReconnects(STRATUM_ERRORS.BANNED.message)).toBe(true);
  });

  it('closes the socket after fatal login errors (XMRig would otherwise idle forever)', () => {
    for (const code of ['INVALID_LOGIN', 'NO_COMPATIBLE_ALGO', 'NO_TEMPLATE', 'BANNED'] as const) {
      expect(new StratumError(code).closeConnection).toBe(true);
    }
    expect(new StratumError('LOW_DIFFICULTY').closeConnection).toBe(false);
  });

  it('a refusal captures no stack trace (an answer to the miner, not a failure of the pool)', () => {
    // Capturing one cost ~6 us, paid per bogus submit in a storm and twice per cancelled submit
    // when a ban closes a peer's backlog; toStratumError never logs a StratumError's stack.
    const refusal = new StratumError('INVALID_RESULT', { nonce: 'deadbeef' });
    expect(refusal.stack?.split('\n')).toEqual(['StratumError: Rejected share: invalid result']);
    expect(refusal).toBeInstanceOf(Error);
    expect(refusal.data).toEqual({ nonce: 'deadbeef' });
    // Other errors keep their stacks.
    expect(new Error('x').stack?.split('\n').length).toBeGreaterThan(1);
  });

  it('has a distinct message for every code', () => {
    const messages = Object.values(STRATUM_ERRORS).map((e) => e.message);
    expect(new Set(messages).size).toBe(messages.length);
  });
});

describe('toStratumError', () => {
  it('passes a StratumError through as it is, without a log line', () => {
    const { logger, records } = captureLogs();
    const refusal = new StratumError('LOW_DIFFICULTY');
    expect(toStratumError(refusal, logger, 'submit')).toBe(refusal);
    expect(records).toHaveLength(0);
  });

  it('turns anything else into INTERNAL and logs it with its stack and where it came from', () => {
    const { logger, records } = captureLogs();
    const origin = { id: 7, info: { remoteAddress: '10.0.0.9' } };
    const refusal = toStratumError(new TypeError('redis went away'), logger, 'submit', origin);
    expect(refusal).toBeInstanceOf(StratumError);
    expect(refusal.code).toBe('INTERNAL');
    expect(refusal.closeConnection).toBe(false);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: 50, method: 'submit', connection: 7, ip: '10.0.0.9' });
    expect((records[0]!['err'] as Record<string, unknown>)['stack']).toContain('redis went away');
  });

  it('logs a thrown non-Error too, without an origin when there is none', () => {
    const { logger, records } = captureLogs();
    expect(toStratumError('just a string', logger, 'login').code).toBe('INTERNAL');
    expect(records[0]).toMatchObject({ level: 50, method: 'login' });
    expect(records[0]).not.toHaveProperty('connection');
  });
});
