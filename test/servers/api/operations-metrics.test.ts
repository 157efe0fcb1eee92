import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  readLeaderPresent,
  readPayoutWatchSnapshot,
  readSolvencySnapshot,
} from '../../../src/app/money-report.js';
import { settleOrphanedBlock } from '../../../src/app/orphan-block-settlement.js';
import { createClusterKeys } from '../../../src/cluster/cluster-keys.js';
import type { PoolBackendMetrics } from '../../../src/pool/pool-backend.js';
import { PoolCounters } from '../../../src/pool/pool-counters.js';
import type { ShareVerifierPoolMetrics } from '../../../src/pow/verifier-pool.js';
import type { MetricsSources } from '../../../src/servers/api/api-metrics.js';
import { CreditedBlocksReader } from '../../../src/store/payments/credited-blocks-reader.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisLedgerReader } from '../../../src/store/shares/ledger-reader.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { startTestRedis, type TestRedis, useTestRedisClient } from '../../helpers/redis-server.js';
import { flaggedBlock } from '../../store/payments/orphan-settlement-kit.js';
import { ADDRESSES } from '../../store/store-fixtures.js';
import { buildTestApi, daemonInfo, FakeDaemon, silentLogger } from './api-fixtures.js';

/** The pool core's own counters after a few events (the stratum role reports these). */
function backendSnapshot(): PoolBackendMetrics {
  const counters = new PoolCounters();
  counters.login();
  counters.shareRejected('LOW_DIFFICULTY');
  counters.blockRefused('stale-tip');
  counters.jobIssued(false);
  counters.jobIssued(true);
  counters.jobIssued(true);
  counters.broadcastDone(1_250);
  return counters.snapshot(1);
}

function verifierSnapshot(): ShareVerifierPoolMetrics {
  return {
    queueDepth: 0,
    inFlight: 0,
    workers: 1,
    implementation: 'typescript',
    hashesTotal: 41,
    hashTimeMsAvg: 30,
    hashTimeMsHistogram: [],
    batchesSent: 41,
    workerRestarts: 0,
    jobsRetried: 0,
  };
}

describe('/metrics: solvency, payout batches, dependencies, daemon chain, leader and PoW', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  let scrape: string;
  const keyPrefix = 'monitoring-test';

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    // The ledger owes 7 XFG (5 in balances, 2 in a payout); the wallet holds 4 + 1 locked.
    const paymentKeys = createPaymentKeys(keyPrefix);
    await redis.hset(paymentKeys.totals, { balance: '50000000', inPayout: '20000000' });
    // ...the balances' index agrees (one miner owed it all).
    await redis.zadd(paymentKeys.payable, 50_000_000, 'fireMiner');
    await redis.set(createClusterKeys(keyPrefix).leaderToken, '1.abc', 'PX', 60_000);
    const wallet = {
      getBalance: async () => ({
        availableBalance: 40_000_000,
        lockedAmount: 10_000_000,
        lockedDepositBalance: 0,
        unlockedDepositBalance: 0,
      }),
    };
    const sources: MetricsSources = {
      stratum: () => ({
        connections: { current: 2, total: 3, refused: {}, floodDropped: 0 },
        byPort: {},
        sessions: 2,
        protocolErrors: { total: 0, byKind: {}, byIp: {} },
        errorReplies: {},
        closes: {},
      }),
      backend: backendSnapshot,
      verifier: verifierSnapshot,
      templateAgeMs: () => 2_000,
      stratumProcesses: () => [
        { state: 'serving', restarts: 1 },
        { state: 'serving', restarts: 0 },
      ],
      payoutWatch: () => readPayoutWatchSnapshot(keyPrefix, redis),
      solvency: () => readSolvencySnapshot(keyPrefix, { redis, wallet }),
      leaderPresent: () => readLeaderPresent(keyPrefix, redis),
    };
    ({ app } = await buildTestApi({
      redis,
      keyPrefix,
      modules: { metricsSources: sources, walletProbe: async () => ({}) },
    }));
    await app.ready();
    await app.pool.network.refresh();
    await app.pool.health.probeWallet();
    scrape = (await app.inject({ url: '/metrics' })).payload;
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('exposes what the pool owes, the wallet balance, batches, dependencies, chain, leader and PoW', () => {
    expect(scrape).toMatch(/^fuego_pool_owed_atomic\{kind="balance"\} 50000000$/m);
    expect(scrape).toMatch(/^fuego_pool_owed_atomic\{kind="in_payout"\} 20000000$/m);
    expect(scrape).toMatch(/^fuego_pool_wallet_balance_atomic\{state="unlocked"\} 40000000$/m);
    expect(scrape).toMatch(/^fuego_pool_wallet_balance_atomic\{state="locked"\} 10000000$/m);
    expect(scrape).toMatch(/^fuego_pool_payout_batches\{state="open"\} 0$/m);
    expect(scrape).toMatch(/^fuego_pool_payout_batches\{state="failed"\} 0$/m);
    expect(scrape).toMatch(/^fuego_pool_dependency_up\{dependency="redis"\} 1$/m);
    expect(scrape).toMatch(/^fuego_pool_dependency_up\{dependency="daemon"\} 1$/m);
    expect(scrape).toMatch(/^fuego_pool_dependency_up\{dependency="wallet"\} 1$/m);
    expect(scrape).toMatch(/^fuego_pool_daemon_height \d+$/m);
    expect(scrape).toMatch(/^fuego_pool_daemon_known_height \d+$/m);
    expect(scrape).toMatch(/^fuego_pool_leader_present 1$/m);
    expect(scrape).toMatch(/^fuego_pool_pow_implementation\{name="reference"\} 1$/m);
    expect(scrape).toMatch(/^fuego_pool_pow_implementation\{name="native"\} 0$/m);
  });

  it('counts the jobs sent on a blob of their own and on blobs shared by many miners', () => {
    expect(scrape).toMatch(/^fuego_pool_jobs_total\{blob="own"\} 1$/m);
    expect(scrape).toMatch(/^fuego_pool_jobs_total\{blob="shared"\} 2$/m);
  });

  it('shows how long the last new template took to reach every miner', () => {
    expect(scrape).toMatch(/^fuego_pool_last_broadcast_seconds 1\.25$/m);
  });
});

describe('/metrics: credited blocks a reorg deeper than confirmDepth replaced', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('counts them apart from confirmed in fuego_pool_blocks_total (each was counted confirmed first)', async () => {
    const { app, events } = await buildTestApi({ redis, keyPrefix: 'metrics-reorg-events' });
    try {
      events.publish('block-confirmed', { height: 10, hash: 'aa'.repeat(32), rewardAtomic: 5n });
      events.publish('block-confirmed', { height: 11, hash: 'bb'.repeat(32), rewardAtomic: 5n });
      events.publish('block-orphaned-after-credit', { height: 10, hash: 'aa'.repeat(32), rewardAtomic: 5n });
      const scrape = (await app.inject({ url: '/metrics' })).payload;
      expect(scrape).toMatch(/^fuego_pool_blocks_total\{outcome="confirmed"\} 2$/m);
      expect(scrape).toMatch(/^fuego_pool_blocks_total\{outcome="orphaned_after_credit"\} 1$/m);
    } finally {
      await app.close();
    }
  });

  it('exposes how many the reorg watch flagged, read from its index at each scrape', async () => {
    const keyPrefix = 'metrics-reorg-index';
    const reader = new CreditedBlocksReader({ keyPrefix }, { redis });
    const { app } = await buildTestApi({
      redis,
      keyPrefix,
      modules: { metricsSources: { orphanedAfterCredit: () => reader.countOrphanedAfterCredit() } },
    });
    try {
      const before = (await app.inject({ url: '/metrics' })).payload;
      expect(before).toMatch(/^fuego_pool_blocks_orphaned_after_credit 0$/m);
      const flagged = createPaymentKeys(keyPrefix).blocksOrphanedAfterCredit;
      await redis.zadd(flagged, 10, 'aa'.repeat(32), 12, 'cc'.repeat(32));
      const after = (await app.inject({ url: '/metrics' })).payload;
      expect(after).toMatch(/^fuego_pool_blocks_orphaned_after_credit 2$/m);
    } finally {
      await app.close();
    }
  });

  it('exposes the settled blocks and the clawed-back ones a later reorg restored, waiting for their credit back', async () => {
    const keyPrefix = 'metrics-orphan-settled';
    const reader = new CreditedBlocksReader({ keyPrefix }, { redis });
    const hash = await flaggedBlock(redis, keyPrefix, { height: 40, credits: [[ADDRESSES[0], 5n]] });
    const { app } = await buildTestApi({
      redis,
      keyPrefix,
      modules: { metricsSources: { orphanSettlements: () => reader.countOrphanSettlements() } },
    });
    const metric = async (name: string) =>
      (await app.inject({ url: '/metrics' })).payload.match(new RegExp(`^${name} (\\d+)$`, 'm'))?.[1];
    try {
      expect(await metric('fuego_pool_blocks_orphan_settled')).toBe('0');
      await settleOrphanedBlock(keyPrefix, { redis }, { hash, mode: 'clawback', note: '', dryRun: false });
      expect(await metric('fuego_pool_blocks_orphan_settled')).toBe('1');
      expect(await metric('fuego_pool_blocks_restored_after_clawback')).toBe('0');
      await new UnlockerStore({ keyPrefix }, { redis }).noteRestoredBlock({ hash, height: 40 });
      expect(await metric('fuego_pool_blocks_restored_after_clawback')).toBe('1');
    } finally {
      await app.close();
    }
  });
});

describe('/metrics: the oldest block the unlocker has not decided', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it("shows how deep it is on the daemon's chain, so a held or failing unlocker can be alerted on", async () => {
    const keyPrefix = 'metrics-undecided';
    const reader = new RedisLedgerReader({ keyPrefix }, { redis });
    const daemon = new FakeDaemon();
    daemon.info = daemonInfo({ height: 200 });
    const { app } = await buildTestApi({
      redis,
      keyPrefix,
      daemon,
      modules: { metricsSources: { oldestUndecidedBlockHeight: () => reader.oldestUndecidedHeight() } },
    });
    const depth = async () =>
      /^fuego_pool_oldest_undecided_block_depth (\d+)$/m.exec(
        (await app.inject({ url: '/metrics' })).payload,
      )?.[1];
    try {
      expect(await depth()).toBe('0');
      await redis.zadd(
        createShareKeys(keyPrefix).blockCandidates,
        150,
        'aa'.repeat(32),
        120,
        'bb'.repeat(32),
      );
      expect(await depth()).toBe('79');
      daemon.info = daemonInfo({ height: 230 });
      await expect.poll(depth).toBe('109');
      await redis.zrem(createShareKeys(keyPrefix).blockCandidates, 'bb'.repeat(32));
      expect(await depth()).toBe('79');
      await redis.del(createShareKeys(keyPrefix).blockCandidates);
      expect(await depth()).toBe('0');
    } finally {
      await app.close();
    }
  });
});

describe('/metrics while a source does not answer', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  /*
   * walletd holds a request while it saves or rescans; the wallet client waits its timeout (30 s by
   * default) and retries. Prometheus gives up on a scrape after 10 s by default, so a scrape that
   * waits for the wallet loses every metric (the target looks down) just when the operator looks.
   */
  it("answers within a few seconds with the other metrics, the silent source's gauges left as they were", async () => {
    const keyPrefix = 'metrics-hung-source';
    await redis.set(createClusterKeys(keyPrefix).leaderToken, '1.abc', 'PX', 60_000);
    const sources: MetricsSources = {
      solvency: () => new Promise<never>(() => {}),
      leaderPresent: () => readLeaderPresent(keyPrefix, redis),
    };
    const { app } = await buildTestApi({ redis, keyPrefix, modules: { metricsSources: sources } });
    try {
      const started = Date.now();
      const reply = await Promise.race([
        app.inject({ url: '/metrics' }),
        new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 8_000)),
      ]);
      expect(reply).not.toBe('no answer');
      if (reply === 'no answer') return;
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(reply.statusCode).toBe(200);
      expect(reply.payload).toMatch(/^fuego_pool_leader_present 1$/m);
      expect(reply.payload).not.toMatch(/^fuego_pool_wallet_balance_atomic\{/m);
    } finally {
      await app.close();
    }
  }, 15_000);
});
