import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Devnet } from '../../../src/devnet/devnet.js';
import type { DevnetConfigInput } from '../../../src/devnet/devnet-config.js';
import type { WalletClient } from '../../../src/rpc/wallet-client.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { silentLogger } from '../../store/store-fixtures.js';
import { walletClientFor } from './payout-test-kit.js';

/** What a payout test on the devnet works with; set once the suite's beforeAll ran. */
export interface PayoutDevnetEnv {
  readonly server: TestRedis;
  readonly redis: Redis;
  readonly devnet: Devnet;
  readonly wallet: WalletClient;
}

/**
 * A describe block's devnet (`devnetConfig` on top of the test defaults) and Redis (AOF fsynced
 * before each reply, so the runner may pay), started once for the block and stopped after it;
 * before each test 11 blocks are mined, so the change of earlier payouts is spendable (10 blocks).
 */
export function usePayoutDevnet(devnetConfig: DevnetConfigInput = {}): PayoutDevnetEnv {
  const env: { -readonly [K in keyof PayoutDevnetEnv]?: PayoutDevnetEnv[K] } = {};
  beforeAll(async () => {
    [env.server, env.devnet] = await Promise.all([
      startTestRedis({ appendOnly: true }),
      startTestDevnet(devnetConfig),
    ]);
    env.redis = await createRedisClient({ url: env.server.url }, silentLogger);
    env.wallet = walletClientFor(env.devnet);
  });
  beforeEach(() => {
    env.devnet?.control.mineBlocks(11);
  });
  afterAll(async () => {
    env.wallet?.close();
    env.redis?.disconnect();
    await Promise.all([env.server?.stop(), env.devnet?.stop()]);
  });
  return env as PayoutDevnetEnv;
}
