/**
 * API load check: 10,000 miners (2 workers each) of synthetic hashrate stats in a private Redis,
 * then /api/stats and /api/miners/:address timed by injection (fastify + Redis, no sockets), plus
 * the classic /stats. Target: p99 < 50 ms. Prints a table, then, as its last line, one JSON object.
 *
 *   npx tsc -p tsconfig.bench.json && node build/bench/benchmarks/api/run.js
 *   (or: npx vite-node benchmarks/api/run.ts)
 *
 * On a shared machine the numbers move with the neighbours' load.
 */
import { createApiStores } from '../../src/app/api-stores.js';
import { configSchema } from '../../src/config/schema.js';
import { keyPairFromSeed } from '../../src/devnet/wallet/ed25519-keys.js';
import { encodeAddress } from '../../src/fuego/address.js';
import { createLogger } from '../../src/log/logger.js';
import type { AcceptedShare } from '../../src/model/share-ledger.js';
import { createPoolEventBus } from '../../src/pool/events.js';
import type { DaemonInfo } from '../../src/rpc/daemon-schemas.js';
import { RpcError } from '../../src/rpc/rpc-error.js';
import { buildApiServer } from '../../src/servers/api/build-api-server.js';
import { hashrateBucketCommands } from '../../src/store/hashrate/hashrate-buckets.js';
import { createHashrateKeys } from '../../src/store/hashrate/hashrate-keys.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { RedisShareLedger } from '../../src/store/shares/redis-share-ledger.js';
import { startPrivateRedis } from '../../src/tools/redis-server.js';

const MINERS = 10_000;
const WORKERS_PER_MINER = 2;
const MINUTES = 12;
/** Miners with a real (decodable) address: the ones the benchmark requests. */
const REQUESTED_MINERS = 100;
const REQUESTS = 1_000;
const TARGET_P99_MS = 50;
/** The pool's default cap of worker names per miner (`store.maxWorkersPerMiner`). */
const MAX_WORKERS_PER_MINER = configSchema.parse({}).store.maxWorkersPerMiner;

function validAddress(n: number): string {
  const seed = (label: string) => new TextEncoder().encode(`bench-${label}-${n}`);
  return encodeAddress({
    spendPublicKey: keyPairFromSeed(seed('spend')).publicKey,
    viewPublicKey: keyPairFromSeed(seed('view')).publicKey,
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const info: DaemonInfo = {
  status: 'OK',
  version: '1.9.3',
  height: 900_000,
  difficulty: 150_000_000,
  tx_count: 0,
  tx_pool_size: 0,
  alt_blocks_count: 0,
  outgoing_connections_count: 8,
  incoming_connections_count: 0,
  white_peerlist_size: 0,
  grey_peerlist_size: 0,
  last_known_block_index: 899_999,
  top_block_hash: 'ab'.repeat(32),
  block_major_version: 9,
  block_minor_version: 0,
  full_deposit_amount: 0,
  last_block_reward: 60_000_000,
  last_block_timestamp: Math.floor(Date.now() / 1000),
  last_block_difficulty: 150_000_000,
};

async function main(): Promise<void> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const logger = createLogger({ level: 'warn' });
  const redisServer = await startPrivateRedis();
  const redis = await createRedisClient({ url: redisServer.url }, logger);
  const keyPrefix = 'bench';
  try {
    const requested = Array.from({ length: REQUESTED_MINERS }, (_, i) => validAddress(i));
    const address = (i: number) =>
      i < REQUESTED_MINERS ? requested[i]! : `fireSynthetic${String(i).padStart(85, '0')}`;
    const seedStart = performance.now();
    const keys = createHashrateKeys(keyPrefix);
    const now = Date.now();
    for (let minute = MINUTES; minute >= 1; minute--) {
      // One batch per minute with a share from every worker, written in chunks of 2,500 shares.
      const shares: AcceptedShare[] = [];
      for (let m = 0; m < MINERS; m++) {
        for (let w = 0; w < WORKERS_PER_MINER; w++) {
          shares.push({
            address: address(m),
            worker: `rig${w}`,
            difficulty: 10_000 + (m % 1000),
            height: 1,
            timestampMs: now - minute * 60_000 + (m % 50) * 1000,
            solo: false,
            stale: false,
          });
        }
      }
      for (let i = 0; i < shares.length; i += 2_500) {
        await redis
          .pipeline(hashrateBucketCommands(keys, shares.slice(i, i + 2_500), MAX_WORKERS_PER_MINER))
          .exec();
      }
    }
    const ledger = new RedisShareLedger(
      { ...configSchema.parse({}).store, keyPrefix, maxBatchDelayMs: 0 },
      { redis, logger },
    );
    for (let b = 0; b < 50; b++) {
      await ledger.writeBlockCandidate({
        height: 800_000 + b,
        hash: b.toString(16).padStart(64, '0'),
        prevHash: (b + 1000).toString(16).padStart(64, '0'),
        networkDifficulty: 150_000_000n,
        share: {
          address: address(b),
          worker: 'rig0',
          difficulty: 10_000,
          height: 800_000 + b,
          timestampMs: now,
          solo: false,
          stale: false,
        },
        submitResult: 'accepted',
        blobHex: '09',
        timestampMs: now,
      });
    }
    const seedMs = performance.now() - seedStart;
    say(
      `seeded ${MINERS} miners x ${WORKERS_PER_MINER} workers x ${MINUTES} minutes in ${(seedMs / 1000).toFixed(1)} s`,
    );
    say(`redis used_memory: ${/used_memory_human:(\S+)/.exec(await redis.info('memory'))?.[1] ?? '?'}`);

    const app = await buildApiServer(
      { classicApi: true },
      {
        redisProbe: () => redis.ping(),
        stores: createApiStores(keyPrefix, redis, {
          maxThresholdAtomic: 10_000_000_000n,
          maxWorkersPerMiner: MAX_WORKERS_PER_MINER,
        }),
        daemon: {
          getInfo: async () => info,
          getFeePoolInfo: async () => Promise.reject(new RpcError('RPC_NOT_SUPPORTED', 'no')),
          getDeposits: async () => Promise.reject(new RpcError('RPC_NOT_SUPPORTED', 'no')),
        },
        poolInfo: {
          name: 'bench',
          ports: [
            { port: 3333, difficulty: 10_000, varDiff: true, tls: false, solo: false, description: 'bench' },
          ],
          payments: {
            scheme: 'pplns',
            pplnsWindowFactor: 2,
            feePercent: 1,
            soloFeePercent: 1,
            minPaymentAtomic: 10_000_000n,
            maxThresholdAtomic: 10_000_000_000n,
            intervalSeconds: 3600,
            unlockDepth: 10,
            networkFeePaidBy: 'miners',
            transferFeeAtomic: 80_000n,
          },
          coin: { symbol: 'XFG', decimals: 7, blockTargetSeconds: 480 },
          version: 'bench',
        },
        events: createPoolEventBus(() => {}),
        logger,
        adminToken: null,
      },
    );
    await app.ready();
    await app.pool.network.refresh();

    const routes: [string, (i: number) => string][] = [
      ['/api/stats', () => '/api/stats'],
      ['/api/miners/:address', (i) => `/api/miners/${requested[i % REQUESTED_MINERS]}`],
      ['/stats (classic)', () => '/stats'],
    ];
    const results: Record<string, { p50: number; p99: number; max: number; requests: number }> = {};
    say('');
    say(`${'route'.padEnd(24)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}`);
    for (const [name, url] of routes) {
      for (let i = 0; i < 20; i++) await app.inject({ url: url(i) }); // warm-up
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const started = performance.now();
        const reply = await app.inject({ url: url(i) });
        times.push(performance.now() - started);
        if (reply.statusCode !== 200) throw new Error(`${name}: HTTP ${reply.statusCode} ${reply.payload}`);
      }
      times.sort((a, b) => a - b);
      const row = {
        p50: Number(percentile(times, 50).toFixed(2)),
        p99: Number(percentile(times, 99).toFixed(2)),
        max: Number((times.at(-1) ?? 0).toFixed(2)),
        requests: REQUESTS,
      };
      results[name] = row;
      say(
        `${name.padEnd(24)} ${String(row.p50).padStart(8)} ${String(row.p99).padStart(8)} ${String(row.max).padStart(8)}`,
      );
    }
    await app.close();
    const pass = Object.values(results).every((r) => r.p99 < TARGET_P99_MS);
    say('');
    say(
      JSON.stringify({
        benchmark: 'api',
        miners: MINERS,
        workersPerMiner: WORKERS_PER_MINER,
        targetP99Ms: TARGET_P99_MS,
        pass,
        results,
      }),
    );
  } finally {
    redis.disconnect();
    await redisServer.stop();
  }
}

await main();
