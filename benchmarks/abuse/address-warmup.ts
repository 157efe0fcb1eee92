/**
 * What warming the login address cache costs a starting stratum process:
 *
 *   npm run bench:address-warmup
 *
 * A private Redis holds FUEGO_BENCH_WARM_ADDRESSES (default 10,000) miners in the active-miners
 * index, as the share batches leave it; the warm-up (src/pool/address-warmup.ts) reads them with
 * the production reader and fills an AddressCache as large. Printed: the wall time, the CPU time
 * of this process, and the longest stall of the event loop meanwhile (what a miner's reply could
 * wait at worst), then the same as JSON. For comparison: a full check of the same addresses
 * (ed25519 point checks, ~1.4 ms each) would take about 14 s of event loop for 10,000.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { encodeAddress } from '../../src/fuego/address.js';
import { createLogger } from '../../src/log/logger.js';
import { AddressCache } from '../../src/pool/address-cache.js';
import { warmAddressCache } from '../../src/pool/address-warmup.js';
import { createHashrateKeys } from '../../src/store/hashrate/hashrate-keys.js';
import { RedisRecentMiners } from '../../src/store/hashrate/recent-miners-reader.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { startPrivateRedis } from '../../src/tools/redis-server.js';

const COUNT = Number(process.env['FUEGO_BENCH_WARM_ADDRESSES'] ?? 10_000);
const KEY_PREFIX = 'bench';

/** Random keys: the warm-up does not check the curve points, so any 32 bytes do. */
function randomAddress(): string {
  const key = () => randomBytes(32).toString('hex');
  return encodeAddress({ spendPublicKey: key(), viewPublicKey: key() }, { checkKeys: false });
}

async function main(): Promise<void> {
  const logger = createLogger({ level: 'silent' });
  const server = await startPrivateRedis();
  const redis = await createRedisClient({ url: server.url }, logger);
  try {
    const { activeMiners } = createHashrateKeys(KEY_PREFIX);
    const nowMs = Date.now();
    for (let start = 0; start < COUNT; start += 1000) {
      const members = Array.from({ length: Math.min(1000, COUNT - start) }, (_, n) => [
        nowMs - (start + n) * 1000,
        randomAddress(),
      ]).flat();
      await redis.zadd(activeMiners, ...members);
    }
    const cache = new AddressCache(COUNT);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const cpuBefore = process.cpuUsage();
    const startedMs = performance.now();
    delay.enable();
    const outcome = await warmAddressCache(
      cache,
      { maxAgeMs: 86_400_000 * 30, maxAddresses: COUNT, pageSize: 500 },
      {
        recentMiners: new RedisRecentMiners({ keyPrefix: KEY_PREFIX }, { redis }),
        logger,
        clock: Date.now,
        elapsedClock: () => performance.now(),
        closed: () => false,
      },
    );
    delay.disable();
    const wallMs = performance.now() - startedMs;
    const cpu = process.cpuUsage(cpuBefore);
    const result = {
      addresses: outcome.addresses,
      skipped: outcome.skipped,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      longestLoopStallMs: Math.round(delay.max / 1e6),
      loopStallP99Ms: Math.round(delay.percentile(99) / 1e6),
      loadAverage: Math.round(loadavg()[0]! * 10) / 10,
    };
    console.log(
      `warmed ${result.addresses} addresses in ${result.wallMs} ms (CPU ${result.cpuMs} ms); ` +
        `event-loop stall longest ${result.longestLoopStallMs} ms, p99 ${result.loopStallP99Ms} ms ` +
        `(load average ${result.loadAverage} on ${availableParallelism()} cores)`,
    );
    console.log(JSON.stringify(result));
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

await main();
