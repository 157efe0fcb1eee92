import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { fencingEpoch, LeaderElection, type LeadershipChange } from '../../src/cluster/leader-election.js';
import { createLogger } from '../../src/log/logger.js';
import { PayoutStore } from '../../src/store/payments/payout-store.js';
import { UnlockerStore } from '../../src/store/payments/unlocker-store.js';
import { keyPrefixes } from '../helpers/key-prefixes.js';
import { useTestRedisClient } from '../helpers/redis-server.js';

const logger = createLogger({ level: 'silent' });
const MINER = 'fire-test-miner';

let redis: Redis;
const started: LeaderElection[] = [];

useTestRedisClient((client) => {
  redis = client;
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((e) => e.stop()));
});

function election(
  keyPrefix: string,
  nodeName: string,
  lockTtlMs = 1_000,
  clock?: () => number,
): LeaderElection {
  const e = new LeaderElection(
    { keyPrefix, lockTtlMs, renewIntervalMs: 200, nodeName },
    clock ? { redis, logger, clock } : { redis, logger },
  );
  started.push(e);
  return e;
}

const freshPrefix = keyPrefixes('el');

describe('LeaderElection', () => {
  it('one of two candidates wins; the token is in <p>:leader:token with the lease and epochs grow', async () => {
    const prefix = freshPrefix();
    const a = election(prefix, 'a');
    const b = election(prefix, 'b');
    await a.step();
    await b.step();
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    const token = a.token()!;
    expect(fencingEpoch(token)).toBe(1);
    expect(await redis.get(`{${prefix}}:leader:token`)).toBe(token);
    expect(await redis.get(`{${prefix}}:leader:holder`)).toBe('a');
    const ttl = await redis.pttl(`{${prefix}}:leader:token`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_000);

    // Graceful stop releases the lease; the standby takes it with the next epoch.
    await a.stop();
    expect(await redis.get(`{${prefix}}:leader:token`)).toBeNull();
    await b.step();
    expect(b.isLeader()).toBe(true);
    expect(fencingEpoch(b.token()!)).toBe(2);
  });

  it('renewal extends the lease past its first expiry', async () => {
    const prefix = freshPrefix();
    const a = election(prefix, 'a', 1_000);
    a.start();
    await until(() => a.isLeader());
    const token = a.token();
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(a.token()).toBe(token);
    expect(await redis.get(`{${prefix}}:leader:token`)).toBe(token);
  });

  it('a leader that cannot renew loses at its local deadline, before Redis lets a successor in', async () => {
    const prefix = freshPrefix();
    let now = 1_000_000;
    const a = election(prefix, 'a', 1_000, () => now);
    const changes: LeadershipChange[] = [];
    a.onChange((change) => changes.push(change));
    await a.step();
    expect(a.isLeader()).toBe(true);
    // No renewal for the whole lease (a stalled process): the token is withdrawn locally.
    now += 950;
    expect(a.token()).toBeNull();
    expect(changes.map((c) => c.leader)).toEqual([true, false]);
    expect(changes[1]).toMatchObject({ reason: 'lease-expired' });
  });

  it('a renewal after the lease expired in Redis and another node took it is refused: leadership lost', async () => {
    const prefix = freshPrefix();
    const a = election(prefix, 'a', 1_000);
    const b = election(prefix, 'b', 1_000);
    const lost: LeadershipChange[] = [];
    a.onChange((change) => {
      if (!change.leader) lost.push(change);
    });
    await a.step();
    const oldToken = a.token()!;
    // The lease runs out in Redis (as when this process was paused) and b takes it.
    await redis.pexpire(`{${prefix}}:leader:token`, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await b.step();
    expect(b.isLeader()).toBe(true);
    await a.step();
    expect(a.isLeader()).toBe(false);
    expect(lost).toEqual([{ leader: false, token: oldToken, reason: 'renew-refused' }]);
    expect(fencingEpoch(b.token()!)).toBeGreaterThan(fencingEpoch(oldToken)!);
  });

  it('after a leader dies, a standby takes over within the lease plus one attempt', async () => {
    const prefix = freshPrefix();
    const a = election(prefix, 'a', 1_000);
    await a.step();
    expect(a.isLeader()).toBe(true);
    // "Kill" a: no more renewals, no release.
    const b = election(prefix, 'b', 1_000);
    const killedAt = Date.now();
    b.start();
    await until(() => b.isLeader(), 5_000);
    expect(Date.now() - killedAt).toBeLessThan(1_000 + 200 + 300);
  });

  it("a stale leader's money writes are refused by the store scripts (FENCED)", async () => {
    const prefix = freshPrefix();
    const a = election(prefix, 'a', 1_000);
    const b = election(prefix, 'b', 1_000);
    await a.step();
    const staleToken = a.token()!;
    await redis.pexpire(`{${prefix}}:leader:token`, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await b.step();
    const currentToken = b.token()!;

    const unlocker = new UnlockerStore({ keyPrefix: prefix }, { redis });
    const hash = 'ab'.repeat(32);
    await redis.hset(`{${prefix}}:block:${hash}`, { status: 'pending', height: '10' });
    const credit = {
      hash,
      height: 10,
      rewardAtomic: 1_000n,
      poolFeeAtomic: 0n,
      poolFeeKeptAtomic: 0n,
      finderBonusAtomic: 0n,
      scheme: 'pplns',
      depth: 10,
      credits: [{ address: MINER, amountAtomic: 1_000n, reason: 'block-credit' as const }],
    };
    await expect(unlocker.creditBlock({ ...credit, fencingToken: staleToken })).rejects.toMatchObject({
      code: 'FENCED',
    });
    expect(await redis.hget(`{${prefix}}:block:${hash}`, 'status')).toBe('pending');
    expect(await redis.exists(`{${prefix}}:balance:${MINER}`)).toBe(0);
    // The current leader's token goes through, once.
    expect(await unlocker.creditBlock({ ...credit, fencingToken: currentToken })).toEqual({ applied: true });
    expect(await unlocker.creditBlock({ ...credit, fencingToken: currentToken })).toEqual({
      applied: false,
      status: 'confirmed',
    });

    const payouts = new PayoutStore({ keyPrefix: prefix }, { redis });
    const lockToken = 'lock-1';
    expect(await payouts.acquireLock(lockToken, 10_000)).toBe(true);
    const batch = {
      id: 'batch-1',
      transfers: [
        { address: MINER, destination: MINER, amountAtomic: 900n, feeShareAtomic: 100n, debitAtomic: 1_000n },
      ],
      paymentId: 'cd'.repeat(32),
      networkFeeAtomic: 100n,
      feePaidBy: 'miners' as const,
      walletBlockCount: 20,
    };
    await expect(payouts.prepareBatch({ fencingToken: staleToken, lockToken }, batch)).rejects.toMatchObject({
      code: 'FENCED',
    });
    expect(await payouts.getBatch('batch-1')).toBeNull();
    await payouts.prepareBatch({ fencingToken: currentToken, lockToken }, batch);
    expect((await payouts.getBatch('batch-1'))?.state).toBe('prepared');
  });
});

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
