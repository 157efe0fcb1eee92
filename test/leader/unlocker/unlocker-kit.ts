import type { Redis } from 'ioredis';
import type { Devnet } from '../../../src/devnet/devnet.js';
import {
  BlockUnlocker,
  type BlockUnlockerModules,
  type BlockUnlockerOptions,
  type UnlockerChain,
} from '../../../src/leader/unlocker/block-unlocker.js';
import { WindowFixer } from '../../../src/leader/unlocker/window-fixer.js';
import { DaemonClient } from '../../../src/rpc/daemon-client.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { PendingCredits } from '../../../src/store/shares/pending-credits.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { startTestRedis } from '../../helpers/redis-server.js';
import { silentLogger } from '../../store/store-fixtures.js';

/** The fees the unlocker tests pay with. */
export const FEE = {
  pool: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 0 },
  solo: { poolFeeBasisPoints: 50, finderBonusBasisPoints: 0 },
};

/** The reward of the stub chain's blocks in these tests, and what a solo finder is credited of it. */
export const REWARD = 90_000_000;
export const SOLO_FEE = (BigInt(REWARD) * BigInt(FEE.solo.poolFeeBasisPoints)) / 10_000n;
export const SOLO_CREDIT = BigInt(REWARD) - SOLO_FEE;

/** An unlocker (with its window fixer) whose ledger and pending estimates are on `redis` under `keyPrefix`. */
export function unlockerOn(
  redis: Redis,
  keyPrefix: string,
  options: Partial<BlockUnlockerOptions>,
  modules: Pick<BlockUnlockerModules, 'daemon' | 'logger' | 'fencingToken' | 'clock'>,
): BlockUnlocker {
  const opts: BlockUnlockerOptions = {
    scheme: 'pplns',
    fee: FEE,
    confirmDepth: 60,
    reorgWatchBlocks: 120,
    // No audit unless a test asks for one (it would add block-list calls to the watch's).
    reorgAuditBlocks: 0,
    reorgAuditIntervalMs: 3_600_000,
    pplnsWindowFactor: 2,
    emptyRound: 'credit-finder',
    ...options,
  };
  const ledger = new UnlockerStore({ keyPrefix }, { redis });
  return new BlockUnlocker(opts, {
    ...modules,
    ledger,
    windows: new WindowFixer({ pplnsWindowFactor: opts.pplnsWindowFactor }, { ...modules, ledger }),
    pendingEstimates: new PendingCredits({ keyPrefix }, { redis }),
  });
}

/**
 * A main chain whose top block is at `tipHeight` and whose block at each height is `hashAt(height)`,
 * each with `rewardAtomic`: the daemon as the unlocker reads it, without a devnet.
 */
export function stubChain(
  tipHeight: number,
  hashAt: (height: number) => string,
  rewardAtomic: number,
): UnlockerChain {
  return {
    getBlockCount: async () => tipHeight + 1,
    // fuegod lists 30 heights from the asked one down.
    getBlocksList: async (height: number) =>
      Array.from({ length: Math.min(30, height + 1) }, (_, i) => ({
        height: height - i,
        hash: hashAt(height - i),
      })),
    getBlockHeaderByHeight: async (height: number) => ({
      major_version: 9,
      minor_version: 0,
      timestamp: 1_795_303_328,
      prev_hash: '0'.repeat(64),
      nonce: 1,
      orphan_status: false,
      height,
      depth: tipHeight - height,
      deposits: 0,
      hash: hashAt(height),
      difficulty: 100_000,
      reward: rewardAtomic,
    }),
  };
}

/** A Redis and a devnet, with a client of each, for the unlocker tests against a real daemon. */
export interface DevnetUnlockerEnv {
  readonly redis: Redis;
  readonly devnet: Devnet;
  readonly daemon: DaemonClient;
  stop(): Promise<void>;
}

/** A daemon client of the devnet's fuegod, without retries. */
export function daemonClientFor(devnet: Devnet, timeoutMs: number): DaemonClient {
  const url = new URL(devnet.daemonUrl);
  return new DaemonClient({ host: url.hostname, port: Number(url.port), timeoutMs, retries: 0 });
}

export async function startDevnetUnlockerEnv(): Promise<DevnetUnlockerEnv> {
  const [server, devnet] = await Promise.all([startTestRedis(), startTestDevnet()]);
  const redis = await createRedisClient({ url: server.url }, silentLogger);
  const daemon = daemonClientFor(devnet, 2_000);
  return {
    redis,
    devnet,
    daemon,
    async stop() {
      daemon.close();
      redis.disconnect();
      await Promise.all([server.stop(), devnet.stop()]);
    },
  };
}
