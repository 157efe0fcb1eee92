import type { Redis } from 'ioredis';
import { createApiStores } from '../../../src/app/api-stores.js';
import type { ApiOptionsInput } from '../../../src/config/api-schema.js';
import { keyPairFromSeed } from '../../../src/devnet/wallet/ed25519-keys.js';
import { encodeAddress } from '../../../src/fuego/address.js';
import { createLogger } from '../../../src/log/logger.js';
import { createPoolEventBus, type PoolEventBus } from '../../../src/pool/events.js';
import type { DaemonInfo, FeePoolInfo, HeatDeposit } from '../../../src/rpc/daemon-schemas.js';
import { RpcError } from '../../../src/rpc/rpc-error.js';
import { type ApiServerModules, buildApiServer } from '../../../src/servers/api/build-api-server.js';
import type { NetworkDaemon } from '../../../src/servers/api/network-info.js';
import type { PoolInfo } from '../../../src/servers/api/pool-info.js';
import { DEFAULT_MAX_WORKERS_PER_MINER } from '../../helpers/config-defaults.js';

export const silentLogger = createLogger({ level: 'silent' });

/** A wallet for index n: its address and spend secret key (keys derived like the devnet's). */
export function fuegoWallet(n: number): { readonly address: string; readonly spendSecretKey: string } {
  const seed = (label: string) => new TextEncoder().encode(`api-test-${label}-${n}`);
  const spend = keyPairFromSeed(seed('spend'));
  const address = encodeAddress({
    spendPublicKey: spend.publicKey,
    viewPublicKey: keyPairFromSeed(seed('view')).publicKey,
  });
  return { address, spendSecretKey: spend.secretKey };
}

/** A valid Fuego address for index n. */
export function fuegoAddress(n: number): string {
  return fuegoWallet(n).address;
}

export const TEST_POOL_INFO: PoolInfo = {
  name: 'fuego-test-pool',
  ports: [
    { port: 3333, difficulty: 5000, varDiff: true, tls: false, solo: false, description: 'CPU' },
    { port: 5555, difficulty: 50000, varDiff: true, tls: true, solo: true, description: 'solo, TLS' },
  ],
  payments: {
    scheme: 'pplns',
    pplnsWindowFactor: 2,
    feePercent: 1,
    soloFeePercent: 0.5,
    minPaymentAtomic: 10_000_000n,
    maxThresholdAtomic: 10_000_000_000n,
    intervalSeconds: 3600,
    unlockDepth: 10,
    networkFeePaidBy: 'miners',
    transferFeeAtomic: 80_000n,
  },
  coin: { symbol: 'XFG', decimals: 7, blockTargetSeconds: 480 },
  version: '0.1.0',
};

export function daemonInfo(overrides: Partial<DaemonInfo> = {}): DaemonInfo {
  return {
    status: 'OK',
    version: '1.9.3',
    height: 1000,
    difficulty: 1_000_000,
    tx_count: 10,
    tx_pool_size: 2,
    alt_blocks_count: 0,
    outgoing_connections_count: 8,
    incoming_connections_count: 0,
    white_peerlist_size: 10,
    grey_peerlist_size: 10,
    last_known_block_index: 999,
    top_block_hash: 'ab'.repeat(32),
    block_major_version: 9,
    block_minor_version: 0,
    full_deposit_amount: 123_450_000_000,
    last_block_reward: 60_000_000,
    last_block_timestamp: 1_700_000_000,
    last_block_difficulty: 990_000,
    ...overrides,
  };
}

/** What createApiStores needs of the pool's limits, as the tests' pool has them. */
export const TEST_STORE_LIMITS = {
  maxThresholdAtomic: TEST_POOL_INFO.payments.maxThresholdAtomic,
  maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER,
};

/** A scripted daemon: getinfo from `info`; optional endpoints unsupported unless given. */
export class FakeDaemon implements NetworkDaemon {
  info: DaemonInfo = daemonInfo();
  failInfo = false;
  feePool: FeePoolInfo | null = null;
  deposits: HeatDeposit[] | null = null;
  calls = 0;

  async getInfo(): Promise<DaemonInfo> {
    this.calls += 1;
    if (this.failInfo) throw new RpcError('RPC_UNREACHABLE', 'connection refused');
    return this.info;
  }

  async getFeePoolInfo(): Promise<FeePoolInfo> {
    if (this.feePool === null) throw new RpcError('RPC_NOT_SUPPORTED', 'no fee pool');
    return this.feePool;
  }

  async getDeposits(): Promise<HeatDeposit[]> {
    if (this.deposits === null) throw new RpcError('RPC_NOT_SUPPORTED', 'no deposits');
    return this.deposits;
  }
}

export interface TestApiSetup {
  readonly redis: Redis;
  readonly keyPrefix: string;
  readonly options?: ApiOptionsInput;
  readonly modules?: Partial<ApiServerModules>;
  readonly daemon?: FakeDaemon;
  readonly events?: PoolEventBus;
  readonly clock?: () => number;
}

export async function buildTestApi(setup: TestApiSetup) {
  const daemon = setup.daemon ?? new FakeDaemon();
  const events = setup.events ?? createPoolEventBus(() => {});
  const app = await buildApiServer(setup.options ?? {}, {
    redisProbe: () => setup.redis.ping(),
    stores: createApiStores(setup.keyPrefix, setup.redis, TEST_STORE_LIMITS, setup.clock),
    daemon,
    poolInfo: TEST_POOL_INFO,
    events,
    logger: silentLogger,
    adminToken: null,
    ...(setup.clock === undefined ? {} : { clock: setup.clock }),
    ...setup.modules,
  });
  return { app, daemon, events };
}
