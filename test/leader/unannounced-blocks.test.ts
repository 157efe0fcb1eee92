import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { announcingBlocks } from '../../src/app/block-announcing-ledger.js';
import { LeaderLoop } from '../../src/leader/leader-loop.js';
import { UnannouncedBlocksWatch } from '../../src/leader/unannounced-blocks.js';
import type { BlockUnlocker } from '../../src/leader/unlocker/block-unlocker.js';
import type { UnlockRunListener } from '../../src/leader/unlocker/unlock-run-listener.js';
import { createPoolEventBus, type PoolEventMap } from '../../src/pool/events.js';
import { createPaymentKeys } from '../../src/store/payments/payment-keys.js';
import { UnlockerStore } from '../../src/store/payments/unlocker-store.js';
import { RedisBlockAnnouncements } from '../../src/store/shares/block-announcements.js';
import { RedisShareLedger } from '../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../helpers/config-defaults.js';
import { useTestRedisClient } from '../helpers/redis-server.js';
import { ADDRESSES, blockHash, makeCandidate, silentLogger, uniquePrefix } from '../store/store-fixtures.js';

/**
 * The watch's UNANNOUNCED_AFTER_MS, shortened so that the tests wait for it in real time; long
 * enough that a loaded machine does not age a mark past it between two steps that expect it fresh.
 */
const AFTER_MS = 1_500;
/** Long enough for a mark written now to be AFTER_MS old by Redis's clock. */
const PAST_AFTER_MS = AFTER_MS + 100;

/** The leader's watch of blocks whose finder never published block-found, on a real Redis. */
describe('UnannouncedBlocksWatch', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  function setup(label: string, fencingToken?: () => string | null) {
    const keyPrefix = uniquePrefix(label);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    const events = createPoolEventBus((error) => {
      throw error;
    });
    const found: PoolEventMap['block-found'][] = [];
    events.subscribe('block-found', (payload) => found.push(payload));
    const watch = new UnannouncedBlocksWatch({
      ledger: new RedisBlockAnnouncements({ keyPrefix }, { redis }),
      events,
      logger: silentLogger,
      afterMs: AFTER_MS,
      ...(fencingToken === undefined ? {} : { fencingToken }),
    });
    return { keyPrefix, ledger, events, found, watch };
  }

  it('tells a block whose finder died before publishing, with the find’s facts, once across passes', async () => {
    const s = setup('unannounced-died');
    const foundAt = Date.now();
    const died = makeCandidate({ hash: blockHash(0xa1), height: 50, timestampMs: foundAt });
    // The finder recorded it and died: no announcing wrapper, no publish.
    await s.ledger.recordBlockCandidate(died);
    expect(await s.watch.runOnce()).toEqual([]);
    await sleep(PAST_AFTER_MS);
    await s.watch.runOnce();
    await sleep(PAST_AFTER_MS);
    await s.watch.runOnce();
    expect(s.found).toEqual([
      { height: 50, hash: died.hash, finderAddress: ADDRESSES[0], solo: false, timestampMs: foundAt },
    ]);
  });

  it('does not tell a block twice when its finder’s clock is 10 minutes behind the leader’s', async () => {
    const s = setup('unannounced-finder-behind');
    // The finder's clock says 10 minutes ago; it recorded the block and is publishing it now.
    const found = makeCandidate({ hash: blockHash(0xa2), height: 51, timestampMs: Date.now() - 600_000 });
    await s.ledger.recordBlockCandidate(found);
    expect(await s.watch.runOnce()).toEqual([]);
    // The finder's publish went out and it cleared the mark: nobody tells it again.
    await new RedisBlockAnnouncements({ keyPrefix: s.keyPrefix }, { redis }).markAnnounced(found.hash);
    await sleep(PAST_AFTER_MS);
    expect(await s.watch.runOnce()).toEqual([]);
    expect(s.found).toEqual([]);
  });

  it('tells a block UNANNOUNCED_AFTER_MS after its mark by Redis’s clock, whatever the finder’s clock said', async () => {
    const s = setup('unannounced-finder-ahead');
    // The finder's clock is an hour ahead, and it died before publishing.
    const aheadMs = Date.now() + 3_600_000;
    const died = makeCandidate({ hash: blockHash(0xa3), height: 52, timestampMs: aheadMs });
    await s.ledger.recordBlockCandidate(died);
    expect(await s.watch.runOnce()).toEqual([]);
    await sleep(PAST_AFTER_MS);
    expect((await s.watch.runOnce()).map((block) => block.hash)).toEqual([died.hash]);
    expect(s.found).toEqual([expect.objectContaining({ hash: died.hash, timestampMs: aheadMs })]);
  });

  it('does not tell a block its finder announced, nor a refused one', async () => {
    const s = setup('unannounced-told');
    const finderBus = createPoolEventBus(() => undefined);
    const told: string[] = [];
    finderBus.subscribe('block-found', (payload) => told.push(payload.hash));
    const finder = announcingBlocks(s.ledger, finderBus);
    const accepted = makeCandidate({ hash: blockHash(0xb1), height: 60 });
    const refused = makeCandidate({ hash: blockHash(0xb2), height: 61, submitResult: 'rejected' });
    await finder.recordBlockCandidate(accepted);
    await finder.recordBlockCandidate(refused);
    // A refusal the diagnosis promotes is announced by the finder too.
    expect(await finder.recordBlockRefusal(refused, 'already-on-chain')).toBe('promoted');
    expect(told).toEqual([accepted.hash, refused.hash]);
    await sleep(PAST_AFTER_MS);
    expect(await s.watch.runOnce()).toEqual([]);
    expect(s.found).toEqual([]);
  });

  it('tells a promoted refusal as found after refusal; tells nothing while not leading', async () => {
    let token: string | null = null;
    const s = setup('unannounced-lease', () => token);
    const refused = makeCandidate({ hash: blockHash(0xc1), height: 70, submitResult: 'rejected' });
    await s.ledger.recordBlockCandidate(refused);
    expect(await s.ledger.recordBlockRefusal(refused, 'already-on-chain')).toBe('promoted');
    await sleep(PAST_AFTER_MS);
    expect(await s.watch.runOnce()).toEqual([]);
    // A token the lease no longer holds: told (at least once), but the mark stays for the leader.
    await redis.set(createPaymentKeys(s.keyPrefix).leaderToken, 'token-2');
    token = 'token-1';
    await s.watch.runOnce();
    token = 'token-2';
    await s.watch.runOnce();
    await s.watch.runOnce();
    const promoted = { height: 70, hash: refused.hash, finderAddress: ADDRESSES[0], solo: false };
    const payload = { ...promoted, timestampMs: refused.timestampMs, foundAfterRefusal: true };
    expect(s.found).toEqual([payload, payload]);
  });

  it('a refused block the leader’s unlocker promotes is announced by the loop and not told again', async () => {
    const s = setup('unannounced-leader-promoted');
    const refused = makeCandidate({ hash: blockHash(0xd1), height: 80, submitResult: 'rejected' });
    await s.ledger.recordBlockCandidate(refused);
    const store = new UnlockerStore({ keyPrefix: s.keyPrefix }, { redis });
    // An unlocker run that finds it on the chain and promotes it through the fenced script.
    const unlocker = {
      async runOnce(listener: UnlockRunListener) {
        const { promoted } = await store.promoteRefusedBlock({
          hash: refused.hash,
          height: 80,
          fencingToken: '',
        });
        if (promoted) {
          const { hash, height, timestampMs } = refused;
          listener.onPromoted?.({ hash, height, timestampMs, finderAddress: ADDRESSES[0], solo: false });
        }
        return { decisions: [] };
      },
      windows: { fixPending: async () => undefined },
    } as unknown as BlockUnlocker;
    const loop = new LeaderLoop(
      { unlockIntervalMs: 3_600_000, payoutIntervalMs: null },
      {
        unlocker,
        payouts: undefined as never,
        announcements: s.watch,
        events: s.events,
        logger: silentLogger,
      },
    );
    await loop.unlockOnce();
    await loop.stop();
    expect(s.found).toEqual([expect.objectContaining({ hash: refused.hash, foundAfterRefusal: true })]);
    await sleep(PAST_AFTER_MS);
    expect(await s.watch.runOnce()).toEqual([]);
    expect(s.found).toHaveLength(1);
  });
});
