import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcingBlocks } from '../../src/app/block-announcing-ledger.js';
import { PoolNode } from '../../src/app/pool-node.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/log/logger.js';
import { createPoolEventBus } from '../../src/pool/events.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { RedisShareLedger } from '../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';
import { blockHash, makeCandidate, silentLogger, uniquePrefix } from '../store/store-fixtures.js';

const POOL_ADDRESS =
  'fireVHx639SLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxJmAUNp';

/** Found ten minutes ago: long past the moment its finder would have published it. */
const TEN_MINUTES_AGO = () => Date.now() - 10 * 60_000;

/**
 * `block-found` is published by the stratum process right after it recorded the block: one that
 * dies (or loses Redis) between the two must not cost the operator the notification. The leader
 * tells such a block itself, once; a block its finder told is not told again, and a block recorded
 * by an older version (which kept no such mark) is never told again on upgrade.
 */
describe('block-found of a block whose finder died before publishing it', () => {
  let server: TestRedis;
  let redis: Redis;
  let hook: Server;
  const foundHashes: string[] = [];

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          event: string;
          data: { hash: string };
        };
        if (body.event === 'block-found') foundHashes.push(body.data.hash);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    hook?.closeAllConnections();
    await new Promise<void>((resolve) => (hook ? hook.close(() => resolve()) : resolve()));
    redis?.disconnect();
    await server?.stop();
  });

  /**
   * Makes a block's unannounced mark ten minutes old by Redis's clock (which scores and ages the
   * marks), as if its finder had died ten minutes ago.
   */
  async function ageMark(keyPrefix: string, hash: string): Promise<void> {
    const [seconds, micros] = await redis.time();
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const key = createShareKeys(keyPrefix).blocksAnnouncePending;
    expect(await redis.zadd(key, 'XX', 'CH', nowMs - 10 * 60_000, hash)).toBe(1);
  }

  /** What an older version wrote for a found block: the record and its candidate entry, nothing else. */
  async function writeOlderVersionRecord(keyPrefix: string, hash: string, height: number): Promise<void> {
    const keys = createShareKeys(keyPrefix);
    await redis.hset(keys.block(hash), {
      height: String(height),
      hash,
      prevHash: blockHash(0xee),
      networkDifficulty: '1000',
      finderAddress: POOL_ADDRESS,
      finderWorker: 'rig',
      shareEntryId: '1-0',
      shareDifficulty: '100',
      solo: '0',
      submitResult: 'accepted',
      timestampMs: String(TEN_MINUTES_AGO()),
      status: 'pending',
      blob: '00',
    });
    await redis.zadd(keys.blockCandidates, height, hash);
  }

  it('tells a died finder’s block once across passes, and neither a told one nor an older version’s', async () => {
    const keyPrefix = uniquePrefix('retell');
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    // The finder died between the write and the publish: recorded, never announced.
    const died = makeCandidate({ hash: blockHash(0xd1), height: 301, timestampMs: TEN_MINUTES_AGO() });
    await ledger.recordBlockCandidate(died);
    await ageMark(keyPrefix, died.hash);
    // The finder announced this one as usual.
    const told = makeCandidate({ hash: blockHash(0xd2), height: 302, timestampMs: TEN_MINUTES_AGO() });
    const toldBy: string[] = [];
    const stratumBus = createPoolEventBus(() => undefined);
    stratumBus.subscribe('block-found', (found) => toldBy.push(found.hash));
    await announcingBlocks(ledger, stratumBus).recordBlockCandidate(told);
    expect(toldBy).toEqual([told.hash]);
    await writeOlderVersionRecord(keyPrefix, blockHash(0xd3), 303);

    const { port } = hook.address() as AddressInfo;
    const config = parseConfig({
      roles: ['leader'],
      redis: { url: server.url, keyPrefix },
      // Nothing listens there: the leader's daemon polls and unlock runs just fail.
      daemon: { port: 9, timeoutMs: 200, retries: 0 },
      wallet: { port: 9, timeoutMs: 200 },
      pool: { address: POOL_ADDRESS },
      control: { enabled: false },
      payments: { unlockIntervalSec: 1 },
      notifications: { webhooks: [{ url: `http://127.0.0.1:${port}/hook`, events: ['block-found'] }] },
    });
    const node = await PoolNode.start(config, { logger: createLogger({ level: 'silent' }), env: {} });
    try {
      await until(() => (foundHashes.includes(died.hash) ? true : undefined), 30_000, 'the died block told');
      // Another finder dies now: once the leader told this one too, a later pass has run.
      const later = makeCandidate({ hash: blockHash(0xd4), height: 304, timestampMs: TEN_MINUTES_AGO() });
      await ledger.recordBlockCandidate(later);
      await ageMark(keyPrefix, later.hash);
      await until(
        () => (foundHashes.includes(later.hash) ? true : undefined),
        30_000,
        'the later block told',
      );
      expect(foundHashes).toEqual([died.hash, later.hash]);
    } finally {
      await node.stop();
      await ledger.close();
    }
  }, 90_000);
});
