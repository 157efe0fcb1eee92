import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlockUnlocker } from '../../../src/app/money-services.js';
import { configSchema } from '../../../src/config/schema.js';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { DaemonClient } from '../../../src/rpc/daemon-client.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import {
  ADDRESSES,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';

const [A] = ADDRESSES;
const CONFIRM_DEPTH = 5;

/**
 * The unlocker credits a block only on a chain it can trust: a fuegod without peers (isolated) may
 * be extending a private fork only the pool mines, whose blocks vanish when it rejoins the network.
 */
describe('BlockUnlocker on an isolated daemon', () => {
  let server: TestRedis;
  let redis: Redis;
  let devnet: Devnet;
  let daemon: DaemonClient;

  beforeAll(async () => {
    [server, devnet] = await Promise.all([startTestRedis(), startTestDevnet()]);
    redis = await createRedisClient({ url: server.url }, silentLogger);
    const url = new URL(devnet.daemonUrl);
    daemon = new DaemonClient({ host: url.hostname, port: Number(url.port), timeoutMs: 2_000, retries: 0 });
  });

  afterAll(async () => {
    daemon?.close();
    redis?.disconnect();
    await Promise.all([server?.stop(), devnet?.stop()]);
  });

  /** The leader's unlocker as a config of `network` builds it, on its own key prefix. */
  function setup(label: string, network: 'mainnet' | 'testnet' | 'devnet') {
    const keyPrefix = uniquePrefix(label);
    const config = configSchema.parse({
      network,
      redis: { keyPrefix },
      payments: { confirmDepth: CONFIRM_DEPTH },
    });
    return {
      ledger: new RedisShareLedger({ ...DEFAULT_STORE_OPTIONS, keyPrefix }, { redis, logger: silentLogger }),
      unlocker: createBlockUnlocker(config, { redis, daemon, logger: silentLogger }),
      balances: new RedisBalances({ keyPrefix }, { redis }),
    };
  }

  /** Mines a block as the pool's candidate (A's share solved it) and buries it confirmDepth deep. */
  async function findBuriedBlock(s: ReturnType<typeof setup>): Promise<string> {
    const share = makeShare({ address: A, difficulty: 1000 });
    await s.ledger.recordShare(share);
    const [block] = devnet.control.mineBlocks(1);
    await s.ledger.writeBlockCandidate(
      makeCandidate({ hash: block!.id, height: block!.height, networkDifficulty: 1000n, share }),
    );
    devnet.control.mineBlocks(CONFIRM_DEPTH);
    return block!.id;
  }

  it('mainnet: a block confirmDepth deep on a daemon without peers is not credited', async () => {
    const s = setup('isolated-mainnet', 'mainnet');
    const hash = await findBuriedBlock(s);
    const run = await s.unlocker.runOnce();
    expect(run).toEqual({ skipped: 'daemon-isolated', decisions: [] });
    expect((await s.ledger.getBlockCandidate(hash))?.status).toBe('pending');
    expect((await s.balances.getTotals()).rewards).toBe(0n);
  });
});
