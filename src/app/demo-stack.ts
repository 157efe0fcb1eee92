import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../config/load-config.js';
import type { PoolConfig, PoolConfigInput } from '../config/schema.js';
import { Devnet } from '../devnet/devnet.js';
import type { Logger } from '../log/logger.js';
import { loadHasher } from '../pow/load-hasher.js';
import { certificateFingerprintSha256, generateSelfSignedCertificate } from '../servers/tls-certificate.js';
import { type PrivateRedis, startPrivateRedis } from '../tools/redis-server.js';
import { PoolNode } from './pool-node.js';

export interface DemoStackOptions {
  /** Plain stratum port (0: any free port). */
  readonly stratumPort: number;
  /** TLS stratum port (0: any free port; null: no TLS port). */
  readonly tlsPort: number | null;
  /** Devnet network difficulty: with one XMRig thread (~3 kH/s) 15000 is a block every ~5 s. */
  readonly networkDifficulty: number;
  /** Start difficulty of both stratum ports. */
  readonly shareDifficulty: number;
  readonly daemonPort: number;
  readonly walletPort: number;
  /** HTTP API and dashboard (0: any free port; null: no API). */
  readonly apiPort: number | null;
  /** Extra pool config merged over the demo's (tests tune vardiff, grace, etc.). */
  readonly poolOverrides?: Partial<PoolConfigInput>;
  /** Devnet alias entries (alias -> address), for alias-login demos and tests. */
  readonly aliases?: ReadonlyArray<{ alias: string; address: string }>;
}

/**
 * The demo's coinbase maturity: 10 blocks instead of Fuego's 60, so a found block is paid within
 * minutes. Its `payments.confirmDepth` is the same: a shorter one would credit rewards the wallet
 * cannot spend yet.
 */
export const DEMO_COINBASE_MATURITY_BLOCKS = 10;

/** Miners and API connections a demo holds: within what an open-files limit of 1,024 gives each. */
export const DEMO_MAX_MINERS = 256;
export const DEMO_MAX_API_CONNECTIONS = 100;

export const DEFAULT_DEMO_OPTIONS: DemoStackOptions = Object.freeze({
  stratumPort: 3333,
  tlsPort: 3334,
  networkDifficulty: 15_000,
  shareDifficulty: 1_000,
  daemonPort: 0,
  walletPort: 0,
  apiPort: 8117,
});

export interface DemoStack {
  readonly devnet: Devnet;
  readonly redis: PrivateRedis;
  readonly pool: PoolNode;
  /** An address of the devnet wallet, to mine to (payouts to it show up in the wallet). */
  readonly minerAddress: string;
  readonly stratumPort: number;
  readonly tlsPort: number | null;
  readonly tlsFingerprint: string | null;
  /** Where the API and dashboard listen, e.g. http://127.0.0.1:8117 (null without API). */
  readonly apiUrl: string | null;
  /** The operator control socket (`fuego-pool status --socket PATH`). */
  readonly controlSocketPath: string;
  stop(): Promise<void>;
}

/**
 * The whole product on one machine: a private Redis, the devnet (simulated fuegod + walletd) and
 * the pool wired to them, everything on 127.0.0.1. `npm run devnet` runs this; so do the e2e tests.
 */
export async function startDemoStack(options: DemoStackOptions, logger: Logger): Promise<DemoStack> {
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
  };
  try {
    // AOF fsynced before each reply: payouts refuse a Redis that may lose the last writes.
    const redis = await startPrivateRedis({ appendOnly: true });
    cleanups.push(() => redis.stop());
    const devnet = await startDemoDevnet(options, logger);
    cleanups.push(() => devnet.stop());

    // One private dir for the stack's files: TLS material and the control socket.
    const stackDir = await mkdtemp(join(tmpdir(), 'fuego-pool-demo-'));
    cleanups.push(() => rm(stackDir, { recursive: true, force: true }));
    const controlSocketPath = join(stackDir, 'control.sock');
    const tls = options.tlsPort === null ? null : await writeDemoTls(stackDir);

    const config = demoPoolConfig(options, { devnet, redis, controlSocketPath, tls });
    const pool = await PoolNode.start(config, { logger: logger.child({ module: 'pool-node' }) });
    cleanups.push(() => pool.stop());

    const listening = pool.stratumListening();
    const minerAddress = devnet.wallet.addresses[1] ?? devnet.walletAddress;
    return {
      devnet,
      redis,
      pool,
      minerAddress,
      stratumPort: listening[0]?.port ?? options.stratumPort,
      tlsPort: options.tlsPort === null ? null : (listening[1]?.port ?? options.tlsPort),
      tlsFingerprint: tls?.fingerprint ?? null,
      controlSocketPath,
      apiUrl: pool.api ? `http://127.0.0.1:${apiPortOf(pool)}` : null,
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

function startDemoDevnet(options: DemoStackOptions, logger: Logger): Promise<Devnet> {
  const hasher = loadHasher('auto', logger.child({ module: 'devnet-pow' }));
  return Devnet.start(
    {
      daemon: {
        port: options.daemonPort,
        difficulty: options.networkDifficulty,
        coinbaseMaturityBlocks: DEMO_COINBASE_MATURITY_BLOCKS,
      },
      wallet: { port: options.walletPort, addressCount: 2 },
      extensions: { aliases: options.aliases ?? [] },
    },
    { hasher, logger: logger.child({ module: 'devnet' }) },
  );
}

interface DemoTls {
  readonly certFile: string;
  readonly keyFile: string;
  /** SHA-256 of the certificate, for XMRig's --tls-fingerprint. */
  readonly fingerprint: string;
}

/** A self-signed certificate and its key in `dir`, for the demo's TLS stratum port. */
async function writeDemoTls(dir: string): Promise<DemoTls> {
  const pem = await generateSelfSignedCertificate({ commonName: 'fuego-pool-devnet' });
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  await writeFile(certFile, pem.cert);
  await writeFile(keyFile, pem.key, { mode: 0o600 });
  return { certFile, keyFile, fingerprint: certificateFingerprintSha256(pem.cert) };
}

interface DemoParts {
  readonly devnet: Devnet;
  readonly redis: PrivateRedis;
  readonly controlSocketPath: string;
  readonly tls: DemoTls | null;
}

/** The demo's pool config: short unlock and payout times, the options' ports, overrides last. */
function demoPoolConfig(options: DemoStackOptions, parts: DemoParts): Readonly<PoolConfig> {
  const daemonUrl = new URL(parts.devnet.daemonUrl);
  const walletUrl = new URL(parts.devnet.walletUrl);
  const ports: Array<{ port: number; difficulty: number; tls?: boolean }> = [
    { port: options.stratumPort, difficulty: options.shareDifficulty },
  ];
  if (options.tlsPort !== null)
    ports.push({ port: options.tlsPort, difficulty: options.shareDifficulty, tls: true });
  const tls = parts.tls === null ? undefined : { certFile: parts.tls.certFile, keyFile: parts.tls.keyFile };
  return parseConfig({
    network: 'devnet',
    log: { level: 'info' },
    daemon: { host: daemonUrl.hostname, port: Number(daemonUrl.port), retries: 1 },
    wallet: { host: walletUrl.hostname, port: Number(walletUrl.port) },
    redis: { url: parts.redis.url },
    pool: { address: parts.devnet.walletAddress },
    templates: { refreshIntervalMs: 5_000, retryDelayMs: 250 },
    control: { socketPath: parts.controlSocketPath },
    // Short demo settings: a block unlocks after 10 confirmations (not 60), payouts every 30 s.
    payments: {
      confirmDepth: DEMO_COINBASE_MATURITY_BLOCKS,
      unlockIntervalSec: 5,
      payouts: { intervalSec: 30, minPayoutCoins: '0.1' },
    },
    ...options.poolOverrides,
    // The dashboard at the API's `/`; tests may tune other API settings through poolOverrides.api.
    api:
      options.apiPort === null
        ? { enabled: false }
        : { port: options.apiPort, maxConnections: DEMO_MAX_API_CONNECTIONS, ...options.poolOverrides?.api },
    stratum: {
      ports,
      ...(tls ? { tls } : {}),
      vardiff: { targetShareTimeSec: 5, retargetIntervalSec: 20, minDifficulty: 100 },
      // A demo serves a few miners: caps that fit the common open-files limit of 1,024 keep the
      // start from warning that the limit holds fewer connections than a production pool's.
      limits: { maxConnections: DEMO_MAX_MINERS },
      ...options.poolOverrides?.stratum,
    },
  });
}

function apiPortOf(pool: PoolNode): number {
  const address = pool.api?.server.address();
  return address && typeof address === 'object' ? address.port : 0;
}
