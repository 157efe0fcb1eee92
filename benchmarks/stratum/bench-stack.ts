import type { PoolConfigInput } from '../../src/config/schema.js';
import { Devnet } from '../../src/devnet/devnet.js';
import { loadNativeHasher } from '../../src/pow/native.js';
import { type PrivateRedis, startPrivateRedis } from '../../src/tools/redis-server.js';
import { type PoolProcess, type PoolProcessOptions, startPoolProcess } from './pool-process.js';

/**
 * Network difficulty of the benchmark devnet: 2^53 - 1, so a share at difficulty 1 is a block with
 * probability ~1e-16 and the template never changes unless the benchmark mines a block itself.
 */
export const UNREACHABLE_NETWORK_DIFFICULTY = Number.MAX_SAFE_INTEGER;

export interface BenchStackOptions {
  /** Stratum port difficulty (the port is fixed-difficulty, so vardiff never replaces a job)... */
  readonly shareDifficulty: number;
  /**
   * ...or the start difficulty of a vardiff port, as most pools run them, with vardiff held at it
   * (its minimum and maximum): the miners' share bursts are at that difficulty, and no retarget
   * replaces a job.
   */
  readonly vardiffPort?: boolean;
  /** Merged over the benchmark's stratum section (limits, say). */
  readonly stratum?: Partial<NonNullable<PoolConfigInput['stratum']>>;
  readonly pow?: NonNullable<PoolConfigInput['pow']>;
  /** The kernel drops of flooding peers (the pool's default when absent). */
  readonly floodDrop?: NonNullable<PoolConfigInput['floodDrop']>;
  /** Merged over the benchmark's api section (its connection cap, say). */
  readonly api?: Partial<NonNullable<PoolConfigInput['api']>>;
  /** Node flags for the pool process and a reader of its non-JSON output (see PoolProcessOptions). */
  readonly pool?: Pick<PoolProcessOptions, 'nodeArgs' | 'onRawLine'>;
}

export interface BenchStack {
  readonly redis: PrivateRedis;
  /** In this process, so the benchmark can mine a block (control.mineBlocks) and know when. */
  readonly devnet: Devnet;
  readonly pool: PoolProcess;
  readonly config: PoolConfigInput;
  /** A valid payout address for the simulated miners. */
  readonly minerAddress: string;
  stop(): Promise<void>;
}

/** The pool's dependencies without the pool: a private Redis and the devnet, on 127.0.0.1. */
export interface BenchBackends {
  readonly redis: PrivateRedis;
  /** In this process, so the benchmark can mine a block (control.mineBlocks) and know when. */
  readonly devnet: Devnet;
  /** A valid payout address for the simulated miners. */
  readonly minerAddress: string;
  stop(): Promise<void>;
}

/**
 * A private Redis and the devnet (no block timer: blockTimeSeconds defaults to 0, and the network
 * difficulty is unreachable). `stop()` stops both, newest first.
 */
export async function startBenchBackends(): Promise<BenchBackends> {
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    const devnet = await Devnet.start(
      {
        daemon: { port: 0, difficulty: UNREACHABLE_NETWORK_DIFFICULTY, blockTimeSeconds: 0 },
        wallet: { port: 0, addressCount: 2 },
      },
      { hasher: loadNativeHasher({ portable: false }) },
    );
    cleanups.push(() => devnet.stop());
    return {
      redis,
      devnet,
      minerAddress: devnet.wallet.addresses[1] ?? devnet.walletAddress,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The benchmark's pool config against `backends`: one fixed-difficulty stratum port on any free
 * port, the HTTP API on any free port and no control socket (several pool processes may share the
 * machine), info logs.
 */
export function benchPoolConfig(backends: BenchBackends, options: BenchStackOptions): PoolConfigInput {
  const daemonUrl = new URL(backends.devnet.daemonUrl);
  const walletUrl = new URL(backends.devnet.walletUrl);
  return {
    network: 'devnet',
    // info: the pool logs its bound stratum port and each new template at info, shares at debug.
    log: { level: 'info' },
    daemon: { host: daemonUrl.hostname, port: Number(daemonUrl.port) },
    wallet: { host: walletUrl.hostname, port: Number(walletUrl.port) },
    redis: { url: backends.redis.url, keyPrefix: 'bench' },
    control: { enabled: false },
    api: { port: 0, ...options.api },
    pool: { address: backends.devnet.walletAddress },
    ...(options.pow ? { pow: options.pow } : {}),
    ...(options.floodDrop ? { floodDrop: options.floodDrop } : {}),
    stratum: {
      ports: [
        { port: 0, difficulty: options.shareDifficulty, fixedDifficulty: options.vardiffPort !== true },
      ],
      minLoginDifficulty: 1,
      vardiff: options.vardiffPort
        ? { minDifficulty: options.shareDifficulty, maxDifficulty: options.shareDifficulty }
        : { minDifficulty: 1 },
      ...options.stratum,
    },
  };
}

/**
 * A private Redis, the devnet (no block timer: blockTimeSeconds defaults to 0) and the pool in its
 * own process, all on 127.0.0.1. Everything started is stopped by `stop()`, newest first.
 */
export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  const backends = await startBenchBackends();
  try {
    const config = benchPoolConfig(backends, options);
    // With stratum children, each child logs "stratum listening": ready is when all of them serve.
    const processes = options.stratum?.processes ?? 1;
    const children = processes === 'auto' || processes > 1;
    const pool = await startPoolProcess(config, {
      ...options.pool,
      ...(children ? { readyMessage: 'stratum processes serving' } : {}),
    });
    const stop = async () => {
      await pool.stop().catch(() => undefined);
      await backends.stop();
    };
    return {
      redis: backends.redis,
      devnet: backends.devnet,
      pool,
      config,
      minerAddress: backends.minerAddress,
      stop,
    };
  } catch (error) {
    await backends.stop();
    throw error;
  }
}
