import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { apiOptionsSchema } from '../../../src/config/api-schema.js';
import type { AcceptedShare } from '../../../src/model/share-ledger.js';
import {
  classicStatsSchema,
  errorReplySchema,
  luckSchema,
  poolStatsSchema,
} from '../../../src/servers/api/api-schemas.js';
import { atomicToDecimal, toCsv } from '../../../src/servers/api/csv.js';
import { paymentsExportSchema, rewardsExportSchema } from '../../../src/servers/api/miner-exports.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { csvColumn, parseCsv } from '../../helpers/csv.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress, silentLogger } from './api-fixtures.js';

const NOW = Date.now();
const MINER = fuegoAddress(11);
const EXPLORER = {
  block: 'https://explorer.example/block/{hash}',
  transaction: 'https://explorer.example/tx/{hash}',
  address: null,
};

function hash(n: number): string {
  return n.toString(16).padStart(64, '0');
}

function body<S extends z.ZodType>(schema: S, payload: string): z.infer<S> {
  return schema.parse(JSON.parse(payload));
}

const sumBig = (values: readonly string[]) => values.reduce((total, v) => total + BigInt(v), 0n);

describe('effort, luck, exports and explorer links', () => {
  let server: TestRedis;
  let redis: Redis;
  const keyPrefix = 'effort-test';
  let app: FastifyInstance;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix, maxBatchDelayMs: 0 },
      { redis, logger: silentLogger },
    );
    const share = (difficulty: number, t: number): AcceptedShare => ({
      address: MINER,
      worker: 'rig',
      difficulty,
      height: 10,
      timestampMs: t,
      solo: false,
      stale: false,
    });
    // Two rounds: 500 000 then 1 500 000 against a network difficulty of 1 000 000 (efforts 0.5, 1.5).
    for (const [height, difficulty, n] of [
      [10, 500_000, 1],
      [20, 1_500_000, 2],
    ] as const) {
      const solving = share(difficulty, NOW - 100_000 + height);
      // The solving share is recorded with the candidate (it closes the round).
      await ledger.writeBlockCandidate({
        height,
        hash: hash(n),
        prevHash: hash(100 + n),
        networkDifficulty: 1_000_000n,
        share: solving,
        submitResult: 'accepted',
        blobHex: '09',
        timestampMs: NOW - 100_000 + height,
      });
    }
    await ledger.recordShare(share(250_000, NOW - 1_000)); // the open round: effort 0.25
    const keys = createShareKeys(keyPrefix);
    const money = createPaymentKeys(keyPrefix);
    // The second block was orphaned: it still counts in luck (its work was spent).
    await redis
      .multi()
      .hset(keys.block(hash(2)), 'status', 'orphaned')
      .zrem(keys.blockCandidates, hash(2))
      .zadd(money.blocksOrphaned, 20, hash(2))
      .exec();
    // 1 200 payments and credits (beyond the 1 000 an export reaches), payout entries between them.
    const multi = redis.multi();
    for (let i = 0; i < 1_200; i++) {
      multi.rpush(
        money.payments(MINER),
        JSON.stringify({
          batchId: `batch,"${i}"`,
          txHash: hash(5_000 + i),
          amountAtomic: String(10_000_000 + i),
          networkFeeAtomic: '80000',
          timestampMs: NOW - i * 1_000,
        }),
      );
    }
    for (let i = 0; i < 1_200; i++) {
      const t = String(NOW - (1_200 - i) * 1_000);
      multi.xadd(
        money.history(MINER),
        '*',
        'r',
        'block-credit',
        'a',
        String(123_456_789 + i),
        'ref',
        hash(i),
        'b',
        '0',
        't',
        t,
      );
      multi.xadd(money.history(MINER), '*', 'r', 'payout-debit', 'a', '-5', 'ref', 'b', 'b', '0', 't', t);
    }
    await multi.exec();
    ({ app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW, options: { explorer: EXPLORER } }));
    await app.ready();
    await app.pool.network.refresh();
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('GET /api/stats: currentEffort of the open round, luck of the last blocks, explorer links', async () => {
    const stats = body(poolStatsSchema, (await app.inject({ url: '/api/stats' })).payload);
    expect(stats.pool.currentEffort).toBe(0.25);
    expect(stats.pool.luck).toEqual({ blocks: 20, counted: 2, meanEffortPercent: 100 });
    expect(stats.explorer).toEqual(EXPLORER);
    const blocks = JSON.parse((await app.inject({ url: '/api/blocks' })).payload) as {
      blocks: { height: number; effortPercent: number }[];
    };
    expect(blocks.blocks.map((b) => [b.height, b.effortPercent])).toEqual([
      [20, 150],
      [10, 50],
    ]);
    const classic = body(classicStatsSchema, (await app.inject({ url: '/stats' })).payload);
    expect(classic.pool.currentEffort).toBe(0.25);
    expect(classic.pool.luck).toBe(100);
  });

  it('GET /api/luck?blocks=N: bounded N with a default', async () => {
    expect(body(luckSchema, (await app.inject({ url: '/api/luck?blocks=1' })).payload)).toEqual({
      blocks: 1,
      counted: 1,
      meanEffortPercent: 150,
    });
    expect(body(luckSchema, (await app.inject({ url: '/api/luck' })).payload).blocks).toBe(20);
    for (const bad of ['0', '101', 'x']) {
      const reply = await app.inject({ url: `/api/luck?blocks=${bad}` });
      expect(reply.statusCode).toBe(400);
    }
  });

  it('exports payments as JSON and CSV: the CSV parses and sums to the JSON totals', async () => {
    const json = await app.inject({ url: `/api/miners/${MINER}/payments.json?limit=300&page=2` });
    expect(json.headers['content-disposition']).toMatch(
      /^attachment; filename="fuego-payments-.+-page2\.json"$/,
    );
    const exported = body(paymentsExportSchema, json.payload);
    expect(exported.rows).toHaveLength(300);
    expect(exported.rows[0]!.amountAtomic).toBe(String(10_000_000 + 300));
    expect(exported.rows[0]!.amountCoins).toBe('1.0000300');
    const csvReply = await app.inject({ url: `/api/miners/${MINER}/payments.csv?limit=300&page=2` });
    expect(csvReply.headers['content-type']).toMatch(/^text\/csv/);
    expect(csvReply.headers['content-disposition']).toMatch(/\.csv"$/);
    const rows = parseCsv(csvReply.payload);
    expect(rows[0]).toEqual([
      'time_utc',
      'timestamp_ms',
      'batch_id',
      'transaction_hash',
      'amount_atomic',
      'amount_xfg',
      'network_fee_atomic',
      'network_fee_xfg',
    ]);
    expect(rows).toHaveLength(301);
    expect(csvColumn(rows, 'batch_id')[0]).toBe('batch,"300"');
    expect(sumBig(csvColumn(rows, 'amount_atomic')).toString()).toBe(exported.totals.amountAtomic);
    expect(sumBig(csvColumn(rows, 'network_fee_atomic')).toString()).toBe(exported.totals.networkFeeAtomic);
    expect(atomicToDecimal(BigInt(exported.totals.amountAtomic), 7)).toBe(exported.totals.amountCoins);
    // The newest 1 000 rows are all an export reaches; deeper pages are empty, larger limits refused.
    const last = body(
      paymentsExportSchema,
      (await app.inject({ url: `/api/miners/${MINER}/payments.json?limit=1000` })).payload,
    );
    expect(last.rows).toHaveLength(1_000);
    const beyond = body(
      paymentsExportSchema,
      (await app.inject({ url: `/api/miners/${MINER}/payments.json?limit=1000&page=2` })).payload,
    );
    expect(beyond.rows).toHaveLength(0);
    for (const query of ['limit=1001', 'limit=0', 'page=0', 'page=x']) {
      const reply = await app.inject({ url: `/api/miners/${MINER}/payments.csv?${query}` });
      expect(reply.statusCode).toBe(400);
      expect(body(errorReplySchema, reply.payload).error.code).toBe('BAD_REQUEST');
    }
  });

  it('exports block rewards (credits only, newest first, paged past the payout entries)', async () => {
    const exported = body(
      rewardsExportSchema,
      (await app.inject({ url: `/api/miners/${MINER}/rewards.json?limit=400&page=2` })).payload,
    );
    expect(exported.rows).toHaveLength(400);
    expect(exported.rows[0]).toMatchObject({
      kind: 'block-credit',
      blockHash: hash(799),
      amountAtomic: String(123_456_789 + 799),
      amountCoins: '12.3457588',
    });
    const rows = parseCsv(
      (await app.inject({ url: `/api/miners/${MINER}/rewards.csv?limit=400&page=2` })).payload,
    );
    expect(rows[0]).toEqual([
      'time_utc',
      'timestamp_ms',
      'kind',
      'block_hash',
      'amount_atomic',
      'amount_xfg',
    ]);
    expect(sumBig(csvColumn(rows, 'amount_atomic')).toString()).toBe(exported.totals.amountAtomic);
    const unknown = body(
      rewardsExportSchema,
      (await app.inject({ url: `/api/miners/${fuegoAddress(12)}/rewards.json` })).payload,
    );
    expect(unknown.rows).toEqual([]);
    expect(unknown.totals.amountAtomic).toBe('0');
  });

  it('answers 400 INVALID_ADDRESS for a bad address on every export', async () => {
    for (const path of ['payments.csv', 'payments.json', 'rewards.csv', 'rewards.json']) {
      const reply = await app.inject({ url: `/api/miners/fireNotAnAddress/${path}` });
      expect(reply.statusCode).toBe(400);
      expect(body(errorReplySchema, reply.payload).error.code).toBe('INVALID_ADDRESS');
    }
  });

  it('formats CSV and coins exactly', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          ['line\nbreak', ''],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",\r\n');
    expect(atomicToDecimal(0n, 7)).toBe('0.0000000');
    expect(atomicToDecimal(-5n, 7)).toBe('-0.0000005');
    expect(atomicToDecimal(18_446_744_073_709_551_615n, 7)).toBe('1844674407370.9551615');
    expect(atomicToDecimal(25n, 0)).toBe('25');
  });

  it('validates explorer templates: the placeholder, http(s) only, none by default', () => {
    expect(apiOptionsSchema.parse({}).explorer).toEqual({ block: null, transaction: null, address: null });
    expect(apiOptionsSchema.safeParse({ explorer: { block: 'https://x.example/b/' } }).success).toBe(false);
    expect(apiOptionsSchema.safeParse({ explorer: { block: 'javascript:alert({hash})' } }).success).toBe(
      false,
    );
    expect(apiOptionsSchema.safeParse({ explorer: { address: 'ftp://x.example/{address}' } }).success).toBe(
      false,
    );
    expect(
      apiOptionsSchema.safeParse({ explorer: { address: 'http://x.example/a/{address}' } }).success,
    ).toBe(true);
  });
});
