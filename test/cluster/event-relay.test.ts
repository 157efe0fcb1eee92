import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  decodeEvent,
  encodeEvent,
  publishRelayedEvent,
  RedisEventRelay,
} from '../../src/cluster/redis-event-relay.js';
import { createLogger } from '../../src/log/logger.js';
import { createPoolEventBus, type PoolEventMap } from '../../src/pool/events.js';
import { useTestRedisClient } from '../helpers/redis-server.js';

const logger = createLogger({ level: 'silent' });

let redis: Redis;
useTestRedisClient((client) => {
  redis = client;
});

describe('RedisEventRelay', () => {
  it('bigint amounts survive the wire', () => {
    const payload = {
      batchId: 'b',
      transactionHash: 'aa',
      recipients: 2,
      amountAtomic: 2n ** 70n,
      feeAtomic: 10n,
      timestampMs: 5,
    };
    const decoded = decodeEvent(encodeEvent({ origin: 'x', name: 'payment-sent', payload }));
    expect(decoded?.payload).toEqual(payload);
    expect(decodeEvent('{"origin":"x","name":"network-block","payload":{}}')).toBeNull();
    // A refusal is diagnosed on the stratum node and told by the leader's notifier.
    const refused: PoolEventMap['block-refused'] = {
      height: 7,
      hash: 'ab'.repeat(32),
      finderAddress: 'fireA',
      solo: false,
      timestampMs: 6,
      reason: 'pow-disagreement',
      likelyCause: 'the daemon most likely computes a different cn/upx2',
    };
    expect(
      decodeEvent(encodeEvent({ origin: 'x', name: 'block-refused', payload: refused }))?.payload,
    ).toEqual(refused);
    // A payout not mined for hours: the leader tells it, a CLI pass (cron) publishes it for the notifier.
    const unmined: PoolEventMap['payout-unmined'] = {
      batchId: 'b',
      transactionHash: 'cd'.repeat(32),
      recipients: 3,
      amountAtomic: 2n ** 70n,
      sentAtMs: 1,
      ageMs: 7 * 3_600_000,
      sighting: 'nowhere',
      blockHeight: null,
      advice: 'restart walletd',
      timestampMs: 2,
    };
    expect(
      decodeEvent(encodeEvent({ origin: 'x', name: 'payout-unmined', payload: unmined }))?.payload,
    ).toEqual(unmined);
    expect(decodeEvent('not json')).toBeNull();
  });

  it('an event published on one node reaches the other node once, and not back', async () => {
    const localA = createPoolEventBus(() => undefined);
    const localB = createPoolEventBus(() => undefined);
    const a = new RedisEventRelay({ keyPrefix: 'ev', origin: 'a' }, { redis, local: localA, logger });
    const b = new RedisEventRelay({ keyPrefix: 'ev', origin: 'b' }, { redis, local: localB, logger });
    await a.start();
    await b.start();
    const atA: unknown[] = [];
    const atB: unknown[] = [];
    a.bus.subscribe('block-confirmed', (p) => atA.push(p));
    b.bus.subscribe('block-confirmed', (p) => atB.push(p));
    const networkAtB: unknown[] = [];
    b.bus.subscribe('network-block', (p) => networkAtB.push(p));
    try {
      const payload: PoolEventMap['block-confirmed'] = {
        height: 5,
        hash: 'ab'.repeat(32),
        rewardAtomic: 123n,
      };
      a.bus.publish('block-confirmed', payload);
      a.bus.publish('network-block', { height: 1, hash: 'cd', difficulty: 1n, timestampMs: 1 });
      const deadline = Date.now() + 3_000;
      while (atB.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 100));
      expect(atA).toEqual([payload]);
      expect(atB).toEqual([payload]);
      expect(networkAtB).toEqual([]);
    } finally {
      a.stop();
      b.stop();
    }
  });

  it('a process without a relay (a CLI command) publishes an event every relay delivers', async () => {
    const local = createPoolEventBus(() => undefined);
    const node = new RedisEventRelay({ keyPrefix: 'ev-cli', origin: 'node' }, { redis, local, logger });
    await node.start();
    const heard: unknown[] = [];
    node.bus.subscribe('payout-unknown-to-wallet-resolved', (p) => heard.push(p));
    try {
      const payload: PoolEventMap['payout-unknown-to-wallet-resolved'] = {
        batchId: 'b',
        transactionHash: 'ab'.repeat(32),
        recipients: 2,
        amountAtomic: 10n,
        resolution: 'refunded',
        blockHeight: null,
        note: 'gone',
        timestampMs: 1,
      };
      await publishRelayedEvent(redis, 'ev-cli', 'payout-unknown-to-wallet-resolved', payload);
      await expect.poll(() => heard).toEqual([payload]);
      await expect(
        publishRelayedEvent(redis, 'ev-cli', 'network-block', {
          height: 1,
          hash: 'cd',
          difficulty: 1n,
          timestampMs: 1,
        }),
      ).rejects.toThrow(/not relayed/);
    } finally {
      node.stop();
    }
  });
});
