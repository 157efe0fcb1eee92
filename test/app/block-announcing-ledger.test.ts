import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcingBlocks } from '../../src/app/block-announcing-ledger.js';
import { likelyCauseOf } from '../../src/pool/block-refusal.js';
import { createPoolEventBus, type PoolEventMap } from '../../src/pool/events.js';
import { UnlockerStore } from '../../src/store/payments/unlocker-store.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { RedisShareLedger } from '../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { ADDRESSES, blockHash, makeCandidate, silentLogger, uniquePrefix } from '../store/store-fixtures.js';

/** The stratum side's block-found and block-refused announcements, over the real Redis ledger. */
describe('announcingBlocks', () => {
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  function setup(label: string) {
    const keyPrefix = uniquePrefix(label);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    const events = createPoolEventBus(() => undefined);
    const found: PoolEventMap['block-found'][] = [];
    events.subscribe('block-found', (payload) => found.push(payload));
    const refused: PoolEventMap['block-refused'][] = [];
    events.subscribe('block-refused', (payload) => refused.push(payload));
    return { keyPrefix, ledger, announcing: announcingBlocks(ledger, events), found, refused };
  }

  it('announces an accepted candidate, not a refused one', async () => {
    const s = setup('announce-accepted');
    const accepted = makeCandidate({ hash: blockHash(0xa1), height: 10 });
    const refused = makeCandidate({ hash: blockHash(0xa2), height: 11, submitResult: 'rejected' });
    await s.announcing.recordBlockCandidate(accepted);
    await s.announcing.recordBlockCandidate(refused);
    expect(s.found).toEqual([
      {
        height: 10,
        hash: accepted.hash,
        finderAddress: ADDRESSES[0],
        solo: false,
        timestampMs: accepted.timestampMs,
      },
    ]);
  });

  it('announces a refused block its diagnosis promotes once, marked foundAfterRefusal', async () => {
    const s = setup('announce-promoted');
    const refused = makeCandidate({ hash: blockHash(0xb1), height: 12, submitResult: 'rejected' });
    await s.announcing.recordBlockCandidate(refused);
    expect(await s.announcing.recordBlockRefusal(refused, 'already-on-chain')).toBe('promoted');
    // A second diagnosis (a retry) changes nothing and announces nothing.
    expect(await s.announcing.recordBlockRefusal(refused, 'already-on-chain')).toBe('unchanged');
    expect(s.found).toEqual([expect.objectContaining({ hash: refused.hash, foundAfterRefusal: true })]);
    // Found, not refused: already-on-chain is never announced as a refusal.
    expect(s.refused).toEqual([]);
  });

  it('announces a refusal once its reason is recorded, as block-refused with the reason and its likely cause', async () => {
    const s = setup('announce-refused');
    const stale = makeCandidate({ hash: blockHash(0xc1), height: 13, submitResult: 'rejected' });
    await s.announcing.recordBlockCandidate(stale);
    expect(s.refused).toEqual([]);
    expect(await s.announcing.recordBlockRefusal(stale, 'stale-tip')).toBe('recorded');
    const undiagnosed = makeCandidate({ hash: blockHash(0xc3), height: 15, submitResult: 'rejected' });
    await s.announcing.recordBlockCandidate(undiagnosed);
    expect(await s.announcing.recordBlockRefusal(undiagnosed, 'unknown')).toBe('recorded');
    expect(s.refused).toEqual([
      {
        height: 13,
        hash: stale.hash,
        finderAddress: ADDRESSES[0],
        solo: false,
        timestampMs: stale.timestampMs,
        reason: 'stale-tip',
        likelyCause: likelyCauseOf('stale-tip'),
      },
      expect.objectContaining({
        hash: undiagnosed.hash,
        reason: 'unknown',
        likelyCause: likelyCauseOf('unknown'),
      }),
    ]);
    expect(s.found).toEqual([]);
  });

  it('announces nothing for a refused block the leader promoted first (it announces it as found)', async () => {
    const s = setup('announce-leader-first');
    const refused = makeCandidate({ hash: blockHash(0xc2), height: 14, submitResult: 'rejected' });
    await s.announcing.recordBlockCandidate(refused);
    // The leader's unlocker found it on the chain before the diagnosis answered (it announces it).
    const unlocker = new UnlockerStore({ keyPrefix: s.keyPrefix }, { redis });
    expect(await unlocker.promoteRefusedBlock({ hash: refused.hash, height: 14, fencingToken: '' })).toEqual({
      promoted: true,
    });
    expect(await s.announcing.recordBlockRefusal(refused, 'already-on-chain')).toBe('unchanged');
    // A diagnosis that missed it on the chain (asked before it got there) is not told either.
    expect(await s.announcing.recordBlockRefusal(refused, 'unknown')).toBe('unchanged');
    expect(s.found).toEqual([]);
    expect(s.refused).toEqual([]);
  });
});
