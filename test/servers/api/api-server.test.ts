import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createApiStores } from '../../../src/app/api-stores.js';
import { readPayoutWatchSnapshot } from '../../../src/app/money-report.js';
import { daemonChainDistrustDetail } from '../../../src/leader/unlocker/daemon-chain-trust.js';
import type { AcceptedShare } from '../../../src/model/share-ledger.js';
import { API_ERROR_CODES, API_ERRORS } from '../../../src/servers/api/api-errors.js';
import {
  adminOverviewSchema,
  blocksPageSchema,
  chartSchema,
  classicStatsAddressSchema,
  classicStatsSchema,
  classicZsetSchema,
  errorReplySchema,
  healthSchema,
  minerPaymentsPageSchema,
  minerSchema,
  paymentsPageSchema,
  poolStatsSchema,
} from '../../../src/servers/api/api-schemas.js';
import type { MinerAccountsReader } from '../../../src/servers/api/miner-accounts.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { PayoutWatchStore } from '../../../src/store/payments/payout-watch-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_MAX_WORKERS_PER_MINER, DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, FakeDaemon, fuegoAddress, silentLogger, TEST_STORE_LIMITS } from './api-fixtures.js';

const NOW = Date.now();
const ADMIN_TOKEN = 'correct-horse-battery-staple-0123456789';
const MINER_A = fuegoAddress(1);
const MINER_B = fuegoAddress(2);
const UNKNOWN = fuegoAddress(3);

function hash(n: number): string {
  return n.toString(16).padStart(64, '0');
}

/** Parses a reply body with the route's schema (strict: undeclared fields fail). */
function body<S extends z.ZodType>(schema: S, payload: string): z.infer<S> {
  return schema.parse(JSON.parse(payload));
}

describe('HTTP API', () => {
  let server: TestRedis;
  let redis: Redis;
  const keyPrefix = 'api-test';
  let app: FastifyInstance;
  let daemon: FakeDaemon;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix, maxBatchDelayMs: 0 },
      { redis, logger: silentLogger },
    );
    const buckets = new HashrateBucketWriter(
      { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    );
    // 5 minutes of shares: A mines 60 000 difficulty a minute on two rigs, B 6 000 on one.
    const shares: AcceptedShare[] = [];
    for (let minute = 5; minute >= 1; minute--) {
      const t = NOW - minute * 60_000;
      for (const [address, worker, difficulty] of [
        [MINER_A, 'rig1', 30_000],
        [MINER_A, 'rig2', 30_000],
        [MINER_B, 'laptop', 6_000],
      ] as const) {
        shares.push({ address, worker, difficulty, height: 990, timestampMs: t, solo: false, stale: false });
      }
    }
    await Promise.all(shares.map((share) => ledger.recordShare(share)));
    await buckets.record(shares);
    // Three blocks: 980 confirmed, 985 orphaned, 995 pending (the open round stays after it).
    for (const [height, n] of [
      [980, 1],
      [985, 2],
      [995, 3],
    ] as const) {
      await ledger.writeBlockCandidate({
        height,
        hash: hash(n),
        prevHash: hash(100 + n),
        networkDifficulty: 1_000_000n,
        share: { ...shares[0]!, timestampMs: NOW - 1_000 * (1000 - height) },
        submitResult: 'accepted',
        blobHex: '09',
        timestampMs: NOW - 1_000 * (1000 - height),
      });
    }
    await ledger.recordShare({ ...shares[0]!, timestampMs: NOW - 500 });
    const keys = createShareKeys(keyPrefix);
    const money = createPaymentKeys(keyPrefix);
    await redis
      .multi()
      .hset(keys.block(hash(1)), 'status', 'confirmed', 'reward', '60000000')
      .zrem(keys.blockCandidates, hash(1))
      .zadd(money.blocksConfirmed, 980, hash(1))
      .hset(keys.block(hash(2)), 'status', 'orphaned', 'unlockNote', 'an old note')
      // What the unlocker writes for a block another block replaced (4 deep, below confirmDepth).
      .hset(
        keys.block(hash(3)),
        'unlockNote',
        'not on the main chain at depth 4/60: another block at this height',
        'confirmations',
        '0',
        'onMainChain',
        '0',
      )
      .zrem(keys.blockCandidates, hash(2))
      .zadd(money.blocksOrphaned, 985, hash(2))
      .hset(
        money.balance(MINER_A),
        'credited',
        '900',
        'balance',
        '500',
        'inPayout',
        '100',
        'paid',
        '290',
        'networkFees',
        '10',
      )
      .lpush(
        money.payments(MINER_A),
        JSON.stringify({
          batchId: 'b1',
          txHash: hash(77),
          amountAtomic: '290',
          networkFeeAtomic: '10',
          timestampMs: NOW - 60_000,
        }),
      )
      .exec();
    ({ app, daemon } = await buildTestApi({
      redis,
      keyPrefix,
      clock: () => NOW,
      modules: { adminToken: ADMIN_TOKEN },
    }));
    await app.ready();
    await app.pool.network.refresh();
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('GET /api/stats: hashrate, active miners and workers, round effort, last block, settings, network', async () => {
    const reply = await app.inject({ method: 'GET', url: '/api/stats' });
    expect(reply.statusCode).toBe(200);
    const stats = body(poolStatsSchema, reply.payload);
    // 5 minutes of 66 000 inside a 10-minute window ending now: 330 000 over (9 x 60 + s) seconds.
    const spanSec = 9 * 60 + (NOW % 60_000) / 1000;
    expect(stats.pool.hashrate).toBeCloseTo(330_000 / spanSec, 3);
    expect(stats.pool.miners).toBe(2);
    expect(stats.pool.workers).toBe(3);
    expect(stats.pool.lastBlock).toMatchObject({ height: 995, status: 'pending', confirmations: 0 });
    expect(stats.pool.blocksFound).toBe(3);
    expect(stats.pool.round.shareCount).toBe(1);
    expect(stats.pool.round.effortPercent).toBe(3);
    expect(stats.pool.payments.minPaymentAtomic).toBe('10000000');
    expect(stats.pool.payments.maxThresholdAtomic).toBe('10000000000');
    expect(stats.network).toMatchObject({
      height: 1000,
      difficulty: '1000000',
      depositsLockedAtomic: '123450000000',
      feePool: { status: 'not-available', message: 'not available on this node' },
      heatDeposits: { status: 'not-available', message: 'not available on this node' },
    });
  });

  it('shows the fee pool and the deposits per kind, each in its own asset, never summed across kinds', async () => {
    const fake = new FakeDaemon();
    fake.feePool = {
      fee_pool_balance: 5,
      current_epoch_swap_fees: 6,
      total_cd_locked: 7,
      current_epoch_number: 8,
      status: 'OK',
    };
    fake.deposits = [
      { id: 1, amount: 100, term: 5, unlock_height: 9, creating_tx_hash: hash(1), deposit_type: 'HEAT' },
      { id: 2, amount: 50, term: 5, unlock_height: 9, creating_tx_hash: hash(2), deposit_type: 'HEAT' },
      { id: 3, amount: 7, term: 5, unlock_height: 9, creating_tx_hash: hash(3), deposit_type: 'burn' },
    ];
    const { app: other } = await buildTestApi({ redis, keyPrefix, daemon: fake, clock: () => NOW });
    await other.pool.network.refresh();
    const payload = (await other.inject({ url: '/api/stats' })).payload;
    const stats = body(poolStatsSchema, payload);
    expect(stats.network?.feePool).toEqual({
      status: 'ok',
      balanceAtomic: '5',
      currentEpochSwapFeesAtomic: '6',
      totalCdLockedAtomic: '7',
      currentEpoch: 8,
    });
    expect(stats.network?.heatDeposits).toEqual({
      status: 'ok',
      count: 3,
      byType: {
        HEAT: { asset: 'HEAT', count: 2, amountAtomic: '150' },
        burn: { asset: null, count: 1, amountAtomic: '7' },
      },
    });
    // HEAT and a kind of unknown asset added together would mean nothing: no such total.
    expect(payload).not.toContain('totalAmountAtomic');
    await other.close();
  });

  it('serves the network from its cache: requests never call the daemon', async () => {
    const before = daemon.calls;
    for (let i = 0; i < 20; i++) await app.inject({ url: '/api/stats' });
    // Twenty requests, not one call each: at most the background refresh and health loops'
    // own ticks, should a loaded machine stretch the requests over one of their intervals.
    expect(daemon.calls - before).toBeLessThanOrEqual(2);
  });

  it('GET /api/stats/chart: 10-minute points of the pool', async () => {
    const reply = await app.inject({ url: '/api/stats/chart?days=1' });
    const chart = body(chartSchema, reply.payload);
    expect(chart.resolutionSeconds).toBe(600);
    expect(chart.points.length).toBeGreaterThanOrEqual(144);
    expect(chart.points.some((point) => point.hashrate > 0)).toBe(true);
  });

  it('GET /api/blocks: paged, highest first, with status and confirmations', async () => {
    const first = body(blocksPageSchema, (await app.inject({ url: '/api/blocks?limit=2' })).payload);
    expect(first.blocks.map((b) => [b.height, b.status, b.confirmations])).toEqual([
      [995, 'pending', 0],
      [985, 'orphaned', null],
    ]);
    // A pending block shows why it waits; a decided one shows no stale note.
    expect(first.blocks.map((b) => b.unlockNote)).toEqual([
      'not on the main chain at depth 4/60: another block at this height',
      null,
    ]);
    const second = body(blocksPageSchema, (await app.inject({ url: '/api/blocks?limit=2&page=2' })).payload);
    expect(second.blocks).toHaveLength(1);
    expect(second.blocks[0]).toMatchObject({
      height: 980,
      status: 'confirmed',
      confirmations: 19,
      rewardAtomic: '60000000',
    });
    const bad = await app.inject({ url: '/api/blocks?limit=1000' });
    expect(bad.statusCode).toBe(400);
    expect(body(errorReplySchema, bad.payload).error.code).toBe('BAD_REQUEST');
  });

  it('GET /api/miners/:address: hashrate, workers, balance, chart, payments', async () => {
    const reply = await app.inject({ url: `/api/miners/${MINER_A}` });
    expect(reply.statusCode).toBe(200);
    const miner = body(minerSchema, reply.payload);
    expect(miner.address).toBe(MINER_A);
    expect(miner.workers.map((w) => w.name).sort()).toEqual(['rig1', 'rig2']);
    expect(miner.hashrate).toBeGreaterThan(0);
    expect(miner.balance).toEqual({
      pendingAtomic: '0',
      unlockedAtomic: '500',
      inPayoutAtomic: '100',
      paidAtomic: '290',
      networkFeesAtomic: '10',
    });
    expect(miner.payments).toEqual([
      {
        batchId: 'b1',
        transactionHash: hash(77),
        timestampMs: NOW - 60_000,
        amountAtomic: '290',
        networkFeeAtomic: '10',
      },
    ]);
    expect(miner.chart.points).toHaveLength(144);
    const payments = body(
      minerPaymentsPageSchema,
      (await app.inject({ url: `/api/miners/${MINER_A}/payments` })).payload,
    );
    expect(payments.payments).toHaveLength(1);
  });

  it('answers 400 INVALID_ADDRESS for a bad address and 404 for an unknown one', async () => {
    const bad = await app.inject({ url: '/api/miners/fireNotAnAddress' });
    expect(bad.statusCode).toBe(400);
    const error = body(errorReplySchema, bad.payload).error;
    expect(error.code).toBe('INVALID_ADDRESS');
    expect(error.message).toMatch(/not a valid Fuego address/);
    const broken = await app.inject({ url: `/api/miners/${MINER_A.slice(0, -1)}x` });
    expect(body(errorReplySchema, broken.payload).error.code).toBe('INVALID_ADDRESS');
    const unknown = await app.inject({ url: `/api/miners/${UNKNOWN}` });
    expect(unknown.statusCode).toBe(404);
    expect(body(errorReplySchema, unknown.payload).error.code).toBe('NOT_FOUND');
  });

  it('GET /api/payments: sent batches, paged', async () => {
    const accounts: MinerAccountsReader = {
      getBalance: async () => ({
        pendingAtomic: null,
        unlockedAtomic: 0n,
        inPayoutAtomic: 0n,
        paidAtomic: 0n,
        networkFeesAtomic: 0n,
      }),
      listPayments: async () => [],
      listRewards: async () => [],
      listBatches: async (page) =>
        [1, 2, 3].slice(page.offset, page.offset + page.limit).map((n) => ({
          batchId: `b${n}`,
          transactionHash: hash(n),
          timestampMs: NOW - n,
          recipients: n,
          amountAtomic: 10n ** 18n,
          feeAtomic: 80_000n,
        })),
      listBatchesBefore: async () => [],
      countSentBatches: async () => 3,
    };
    const { app: other } = await buildTestApi({
      redis,
      keyPrefix,
      clock: () => NOW,
      modules: { stores: { ...createApiStores(keyPrefix, redis, TEST_STORE_LIMITS), accounts } },
    });
    const page = body(
      paymentsPageSchema,
      (await other.inject({ url: '/api/payments?page=2&limit=2' })).payload,
    );
    expect(page.payments).toEqual([
      {
        batchId: 'b3',
        transactionHash: hash(3),
        timestampMs: NOW - 3,
        recipients: 3,
        amountAtomic: '1000000000000000000',
        feeAtomic: '80000',
      },
    ]);
    await other.close();
  });

  it('GET /health: 200 when Redis and the daemon answer, 503 when the daemon stopped answering', async () => {
    const ok = await app.inject({ url: '/health' });
    expect(ok.statusCode).toBe(200);
    expect(body(healthSchema, ok.payload)).toMatchObject({
      status: 'ok',
      checks: { redis: { status: 'ok' }, daemon: { status: 'ok' }, wallet: { status: 'not-configured' } },
    });
    let now = NOW;
    const fake = new FakeDaemon();
    const { app: other } = await buildTestApi({
      redis,
      keyPrefix,
      daemon: fake,
      clock: () => now,
      modules: {
        elapsedClock: () => now, // ages are time that passed: this test lets it pass on both clocks
        templateStatus: () => ({ templateAgeMs: 500_000 }),
        walletProbe: async () => {},
      },
    });
    await other.pool.network.refresh();
    await other.pool.health.probeWallet();
    const degraded = body(healthSchema, (await other.inject({ url: '/health' })).payload);
    expect(degraded.status).toBe('degraded');
    expect(degraded.checks.template).toMatchObject({ status: 'failing', ageMs: 500_000 });
    expect(degraded.checks.wallet.status).toBe('ok');
    fake.failInfo = true;
    now += 120_000;
    await other.pool.network.refresh();
    const failing = await other.inject({ url: '/health' });
    expect(failing.statusCode).toBe(503);
    expect(body(healthSchema, failing.payload).checks.daemon).toMatchObject({
      status: 'failing',
      detail: 'RPC_UNREACHABLE',
    });
    await other.close();
  });

  it("GET /health: daemonChain, the daemon's chain as the unlocker judges it: degraded without peers or while syncing", async () => {
    expect(body(healthSchema, (await app.inject({ url: '/health' })).payload).checks.daemonChain).toEqual({
      status: 'not-configured',
      detail: null,
      ageMs: null,
    });
    const fake = new FakeDaemon();
    const { app: other } = await buildTestApi({
      redis,
      keyPrefix,
      daemon: fake,
      clock: () => NOW,
      modules: { daemonChainDistrust: daemonChainDistrustDetail },
    });
    const view = async () => {
      await other.pool.network.refresh();
      const reply = await other.inject({ url: '/health' });
      return { statusCode: reply.statusCode, ...body(healthSchema, reply.payload) };
    };
    expect(await view()).toMatchObject({
      statusCode: 200,
      status: 'ok',
      checks: { daemonChain: { status: 'ok' } },
    });
    fake.info = { ...fake.info, outgoing_connections_count: 0 };
    expect(await view()).toMatchObject({
      statusCode: 200,
      status: 'degraded',
      checks: {
        daemonChain: {
          status: 'failing',
          detail: 'the daemon has no peer connections: blocks are not credited',
        },
      },
    });
    fake.info = { ...fake.info, outgoing_connections_count: 8, last_known_block_index: 1_500 };
    expect((await view()).checks.daemonChain).toMatchObject({
      status: 'failing',
      detail: 'the daemon is at height 1000, its peers know height 1501: blocks are not credited',
    });
    await other.close();
  });

  it('GET /health: a process still waiting for its first template says what for in the template check', async () => {
    let waiting: string | null =
      'waiting for the first template from the daemon at http://127.0.0.1:18180 for 3 s';
    const { app: other } = await buildTestApi({
      redis,
      keyPrefix,
      modules: { templateStatus: () => ({ templateAgeMs: undefined, waiting }) },
    });
    await other.pool.network.refresh();
    const view = body(healthSchema, (await other.inject({ url: '/health' })).payload);
    expect(view.status).toBe('degraded');
    expect(view.checks.template).toEqual({ status: 'failing', detail: waiting, ageMs: null });
    waiting = null;
    const after = body(healthSchema, (await other.inject({ url: '/health' })).payload);
    expect(after.checks.template).toMatchObject({ status: 'failing', detail: 'no template yet' });
    await other.close();
  });

  it('GET /metrics: Prometheus text with the pool metrics, and no IPs', async () => {
    const { app: other } = await buildTestApi({
      redis,
      keyPrefix,
      modules: {
        metricsSources: {
          stratum: () => ({
            connections: { current: 7, total: 9, refused: { 'per-ip-limit': 2 }, floodDropped: 1 },
            byPort: {},
            sessions: 6,
            protocolErrors: { total: 1, byKind: {}, byIp: { '203.0.113.7': 1 } },
            errorReplies: {},
            closes: {},
          }),
          templateAgeMs: () => 1_500,
        },
      },
    });
    const reply = await other.inject({ url: '/metrics' });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/plain/);
    expect(reply.payload).toMatch(/^fuego_pool_stratum_connections 7$/m);
    expect(reply.payload).toMatch(
      /^fuego_pool_stratum_connections_refused_total\{reason="per-ip-limit"\} 2$/m,
    );
    expect(reply.payload).toMatch(/^fuego_pool_flood_dropped_peers\{server="stratum"\} 1$/m);
    expect(reply.payload).toMatch(/^fuego_pool_flood_dropped_peers\{server="api"\} 0$/m);
    expect(reply.payload).toMatch(/^fuego_pool_template_age_seconds 1\.5$/m);
    expect(reply.payload).toContain('fuego_pool_rpc_duration_seconds');
    expect(reply.payload).not.toContain('203.0.113.7');
    await other.close();
  });

  it('GET /metrics: held payouts, unknown tagged transactions and the send backoff, read from Redis', async () => {
    const prefix = `${keyPrefix}-watch`;
    const watch = new PayoutWatchStore({ keyPrefix: prefix }, { redis });
    await watch.replaceHeld([
      { address: 'A', amountAtomic: 3_000_000n, reason: 'wallet balance too low for this batch', sinceMs: 1 },
      { address: 'B', amountAtomic: 2_000_000n, reason: 'wallet balance too low for this batch', sinceMs: 1 },
    ]);
    await watch.setBackoff({
      untilMs: Date.now() + 60_000,
      attempt: 1,
      reason: 'MixIn count is too big',
      sinceMs: 1,
    });
    const { app: other } = await buildTestApi({
      redis,
      keyPrefix: prefix,
      modules: { metricsSources: { payoutWatch: () => readPayoutWatchSnapshot(prefix, redis) } },
    });
    const reply = await other.inject({ url: '/metrics' });
    expect(reply.payload).toMatch(/^fuego_pool_payouts_held_miners 2$/m);
    expect(reply.payload).toMatch(/^fuego_pool_payouts_held_atomic 5000000$/m);
    expect(reply.payload).toMatch(/^fuego_pool_payout_unknown_transactions 0$/m);
    expect(reply.payload).toMatch(/^fuego_pool_payout_sent_unknown_to_wallet 0$/m);
    expect(reply.payload).toMatch(/^fuego_pool_payout_backoff 1$/m);
    await other.close();
  });

  describe('admin', () => {
    it('needs the bearer token; a spoofed X-Forwarded-For or Host gains nothing', async () => {
      const attempts = [
        {},
        { 'x-forwarded-for': '127.0.0.1' },
        {
          'x-forwarded-for': '127.0.0.1',
          'x-real-ip': '127.0.0.1',
          host: 'localhost',
          forwarded: 'for=127.0.0.1',
        },
        { authorization: 'Bearer wrong-token-wrong-token-wrong', 'x-forwarded-for': '127.0.0.1' },
        { authorization: ADMIN_TOKEN },
      ];
      for (const headers of attempts) {
        for (const url of ['/api/admin/overview', '/api/admin/bans']) {
          const reply = await app.inject({ url, headers, remoteAddress: '127.0.0.1' });
          expect(reply.statusCode).toBe(401);
          expect(body(errorReplySchema, reply.payload).error.code).toBe('UNAUTHORIZED');
        }
      }
      const ok = await app.inject({
        url: '/api/admin/overview',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(ok.statusCode).toBe(200);
      body(adminOverviewSchema, ok.payload);
    });

    it('is disabled without a configured token', async () => {
      const { app: other } = await buildTestApi({ redis, keyPrefix });
      const reply = await other.inject({
        url: '/api/admin/overview',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(reply.statusCode).toBe(403);
      expect(body(errorReplySchema, reply.payload).error.code).toBe('ADMIN_DISABLED');
      await other.close();
    });
  });

  describe('classic cryptonote-nodejs-pool endpoints', () => {
    it('/stats', async () => {
      const stats = body(
        classicStatsSchema,
        (await app.inject({ url: `/stats?address=${MINER_A}` })).payload,
      );
      expect(stats.pool.miners).toBe(2);
      expect(stats.pool.totalBlocks).toBe(3);
      expect(stats.network).toEqual({ difficulty: 1_000_000, height: 1000 });
      expect(stats.lastblock.height).toBe(999);
      expect(stats.config.coinUnits).toBe(10_000_000);
      expect(stats.pool.blocks[0]).toBe(
        `prop:${MINER_A}:${hash(3)}:${Math.floor((NOW - 5_000) / 1000)}:1000000:30000:30000`,
      );
      expect(stats.pool.blocks[1]).toBe(995);
      expect(stats.miner['hashrate']).toBeGreaterThan(0);
    });

    it('/stats_address, /get_payments, /get_blocks', async () => {
      const miner = body(
        classicStatsAddressSchema,
        (await app.inject({ url: `/stats_address?address=${MINER_A}` })).payload,
      );
      expect('stats' in miner && miner.stats.balance).toBe('500');
      const unknown = body(
        classicStatsAddressSchema,
        (await app.inject({ url: `/stats_address?address=${UNKNOWN}` })).payload,
      );
      expect(unknown).toEqual({ error: 'Not found' });
      const payments = body(
        classicZsetSchema,
        (await app.inject({ url: `/get_payments?address=${MINER_A}&time=${Math.floor(NOW / 1000)}` }))
          .payload,
      );
      expect(payments).toEqual([`${hash(77)}:290:10:0`, Math.floor((NOW - 60_000) / 1000)]);
      const blocks = body(classicZsetSchema, (await app.inject({ url: '/get_blocks?height=990' })).payload);
      expect(blocks.filter((_, i) => i % 2 === 1)).toEqual([985, 980]);
      expect(String(blocks[2]).endsWith(':0:60000000')).toBe(true);
    });

    it('/live_stats answers at the next feed tick', async () => {
      const pending = app.inject({ url: '/live_stats' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await app.pool.liveFeed.tick();
      const reply = await pending;
      expect(reply.statusCode).toBe(200);
      body(classicStatsSchema, reply.payload);
    });
  });

  it('answers unknown routes with the error shape, and serves the dashboard folder at /', async () => {
    const missing = await app.inject({ url: '/nope' });
    expect(missing.statusCode).toBe(404);
    expect(body(errorReplySchema, missing.payload).error.code).toBe('NOT_FOUND');
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'fuego-dash-'));
    await writeFile(join(dir, 'index.html'), '<h1>dashboard</h1>');
    const { app: other } = await buildTestApi({
      redis,
      keyPrefix,
      options: { staticDir: dir, corsOrigins: ['https://pool.example'] },
    });
    const index = await other.inject({ url: '/' });
    expect(index.statusCode).toBe(200);
    expect(index.payload).toContain('dashboard');
    const cors = await other.inject({ url: '/api/stats', headers: { origin: 'https://pool.example' } });
    expect(cors.headers['access-control-allow-origin']).toBe('https://pool.example');
    const noCors = await app.inject({ url: '/api/stats', headers: { origin: 'https://pool.example' } });
    expect(noCors.headers['access-control-allow-origin']).toBeUndefined();
    await other.close();
    await rm(dir, { recursive: true });
  });

  it('keeps the error catalogue and the reply schema in sync', () => {
    const schemaCodes = errorReplySchema.shape.error.shape.code.options;
    expect([...schemaCodes].sort()).toEqual([...API_ERROR_CODES].sort());
    for (const code of API_ERROR_CODES) expect(API_ERRORS[code].status).toBeGreaterThanOrEqual(400);
  });

  it('never puts an IP address in any JSON reply', async () => {
    const ipPattern = /\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/;
    for (const url of [
      '/api/stats',
      '/api/blocks',
      `/api/miners/${MINER_A}`,
      '/stats',
      '/health',
      `/stats_address?address=${MINER_A}`,
    ]) {
      const reply = await app.inject({
        url,
        headers: { 'x-forwarded-for': '198.51.100.23' },
        remoteAddress: '192.0.2.1',
      });
      expect(reply.payload).not.toMatch(ipPattern);
    }
  });
});
