import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { RedisBlockAnnouncements } from '../../../src/store/shares/block-announcements.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../store-fixtures.js';

const FOUND_AT = 1_700_000_100_000;
const LATER = FOUND_AT + 600_000;

/** The unannounced marks of block-found's at-least-once delivery, written with the block records. */
describe('RedisBlockAnnouncements', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  /** Redis's clock, which scores the marks and ages them. */
  async function redisNowMs(): Promise<number> {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  function setup(label: string, clock = () => LATER) {
    const keyPrefix = uniquePrefix(label);
    return {
      keyPrefix,
      keys: createShareKeys(keyPrefix),
      ledger: new RedisShareLedger(
        { ...DEFAULT_STORE_OPTIONS, keyPrefix },
        { redis, logger: silentLogger, clock },
      ),
      marks: new RedisBlockAnnouncements({ keyPrefix }, { redis }),
    };
  }

  it('marks a found block in the write that records it (pool and solo), never a refused one', async () => {
    const s = setup('marks-found');
    const pool = makeCandidate({ hash: blockHash(0xa1), height: 10, timestampMs: FOUND_AT });
    const solo = makeCandidate({
      hash: blockHash(0xa2),
      height: 11,
      timestampMs: FOUND_AT + 1,
      share: makeShare({ address: ADDRESSES[1], solo: true }),
    });
    const refused = makeCandidate({ hash: blockHash(0xa3), height: 12, submitResult: 'rejected' });
    const before = await redisNowMs();
    for (const candidate of [pool, solo, refused]) await s.ledger.recordBlockCandidate(candidate);
    const after = await redisNowMs();
    // Scored by Redis's clock when written, not by the finder's `timestampMs` (another host's clock).
    const marks = await redis.zrange(s.keys.blocksAnnouncePending, 0, -1, 'WITHSCORES');
    expect([marks[0], marks[2]]).toEqual([pool.hash, solo.hash]);
    for (const score of [marks[1], marks[3]]) {
      expect(Number(score)).toBeGreaterThanOrEqual(before);
      expect(Number(score)).toBeLessThanOrEqual(after);
    }
    expect(await s.marks.listUnannounced(0, 1)).toEqual([
      {
        height: 10,
        hash: pool.hash,
        finderAddress: ADDRESSES[0],
        solo: false,
        timestampMs: FOUND_AT,
        foundAfterRefusal: false,
        markedAtMs: Number(marks[1]),
      },
    ]);
    expect((await s.marks.listUnannounced(0, 10)).map((b) => [b.hash, b.solo])).toEqual([
      [pool.hash, false],
      [solo.hash, true],
    ]);
    // Not yet a minute old by Redis's clock.
    expect(await s.marks.listUnannounced(60_000, 10)).toEqual([]);
    // A retried write of a recorded block (created: false) marks nothing again.
    await s.marks.markAnnounced(pool.hash);
    await s.ledger.recordBlockCandidate(pool);
    expect(await redis.zscore(s.keys.blocksAnnouncePending, pool.hash)).toBeNull();
  });

  it('marks a refused block when it is promoted (the diagnosis or the leader), at the promotion, found after refusal', async () => {
    const s = setup('marks-promoted');
    const byStratum = makeCandidate({ hash: blockHash(0xb1), height: 20, submitResult: 'rejected' });
    const byLeader = makeCandidate({ hash: blockHash(0xb2), height: 21, submitResult: 'rejected' });
    await s.ledger.recordBlockCandidate(byStratum);
    await s.ledger.recordBlockCandidate(byLeader);
    const beforePromotions = await redisNowMs();
    expect(await s.ledger.recordBlockRefusal(byStratum, 'already-on-chain')).toBe('promoted');
    const leader = new UnlockerStore({ keyPrefix: s.keyPrefix }, { redis, clock: () => LATER + 5 });
    await leader.promoteRefusedBlock({ hash: byLeader.hash, height: 21, fencingToken: '' });
    const listed = await s.marks.listUnannounced(0, 10);
    expect(listed).toEqual([
      expect.objectContaining({
        hash: byStratum.hash,
        timestampMs: byStratum.timestampMs,
        foundAfterRefusal: true,
      }),
      expect.objectContaining({ hash: byLeader.hash, foundAfterRefusal: true }),
    ]);
    // Marked at the promotion, by Redis's clock.
    for (const block of listed) expect(block.markedAtMs).toBeGreaterThanOrEqual(beforePromotions);
  });

  it('a ledger clears the mark; a leader clears it only while its token holds the lease', async () => {
    const s = setup('marks-cleared');
    const [one, two] = [blockHash(0xc1), blockHash(0xc2)];
    await s.ledger.recordBlockCandidate(makeCandidate({ hash: one, height: 30, timestampMs: FOUND_AT }));
    await s.ledger.recordBlockCandidate(makeCandidate({ hash: two, height: 31, timestampMs: FOUND_AT }));
    await s.ledger.markBlockAnnounced(one);
    await redis.set(createPaymentKeys(s.keyPrefix).leaderToken, 'token-2');
    expect(await s.marks.markAnnounced(two, 'token-1')).toBe(false);
    expect((await s.marks.listUnannounced(0, 10)).map((b) => b.hash)).toEqual([two]);
    expect(await s.marks.markAnnounced(two, 'token-2')).toBe(true);
    expect(await s.marks.listUnannounced(0, 10)).toEqual([]);
  });

  it('drops a mark whose record is gone, and never lists a record written without one (an older version)', async () => {
    const s = setup('marks-gone');
    const gone = makeCandidate({ hash: blockHash(0xd1), height: 40, timestampMs: FOUND_AT });
    const older = makeCandidate({ hash: blockHash(0xd2), height: 41, timestampMs: FOUND_AT });
    await s.ledger.recordBlockCandidate(gone);
    await s.ledger.recordBlockCandidate(older);
    await redis.del(s.keys.block(gone.hash));
    await redis.zrem(s.keys.blocksAnnouncePending, older.hash);
    expect(await s.marks.listUnannounced(0, 10)).toEqual([]);
    expect(await redis.exists(s.keys.blocksAnnouncePending)).toBe(0);
  });
});
