import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoStack, startDemoStack } from '../../src/app/demo-stack.js';
import { decodeAddress, encodeIntegratedAddress } from '../../src/fuego/address.js';
import { parseBlock } from '../../src/fuego/block.js';
import { hexToBytes } from '../../src/fuego/hex.js';
import { createLogger } from '../../src/log/logger.js';
import { DaemonClient } from '../../src/rpc/daemon-client.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { ensureXmrig } from '../../src/tools/xmrig.js';
import { XmrigRun, type XmrigRunReport } from './xmrig-runner.js';

/**
 * Real XMRig 6.16.0 miners against the real pool on the devnet, all on 127.0.0.1. Difficulties are
 * low so that one CPU thread (~2-3 kH/s) finds shares every second or so and blocks every few.
 */
const NETWORK_DIFFICULTY = 4_000;
const SHARE_DIFFICULTY = 300;
const ALIAS = 'e2e-miner';
const SHARED_WORKERS = ['shared-a', 'shared-b'];
const keys = createShareKeys('fuego');

let stack: DemoStack;
let xmrigPath: string;
let redis: Redis;
let daemon: DaemonClient;

beforeAll(async () => {
  xmrigPath = await ensureXmrig();
  const logger = createLogger({ level: 'warn' });
  stack = await startDemoStack(
    {
      stratumPort: 0,
      tlsPort: 0,
      networkDifficulty: NETWORK_DIFFICULTY,
      shareDifficulty: SHARE_DIFFICULTY,
      daemonPort: 0,
      walletPort: 0,
      apiPort: 0,
      poolOverrides: {
        stratum: { vardiff: { targetShareTimeSec: 2, retargetIntervalSec: 10, minDifficulty: 100 } },
      },
    },
    logger,
  );
  redis = new Redis(stack.redis.url);
  const daemonUrl = new URL(stack.devnet.daemonUrl);
  daemon = new DaemonClient({
    host: daemonUrl.hostname,
    port: Number(daemonUrl.port),
    timeoutMs: 5_000,
    retries: 0,
  });
}, 120_000);

afterAll(async () => {
  daemon?.close();
  redis?.disconnect();
  await stack?.stop();
});

/**
 * Runs miners side by side until each has `minAccepted` accepted shares and `alsoUntil` holds (or
 * the time is up).
 */
async function mine(
  runs: Array<Parameters<typeof XmrigRun.start>[0]>,
  minAccepted: number,
  timeoutMs: number,
  alsoUntil: () => Promise<boolean> = async () => true,
): Promise<XmrigRunReport[]> {
  const miners = await Promise.all(runs.map((options) => XmrigRun.start(options)));
  let reports: XmrigRunReport[] = [];
  const deadline = Date.now() + timeoutMs;
  try {
    await Promise.all(miners.map((m) => m.waitFor((r) => r.accepted >= minAccepted, timeoutMs)));
    while (Date.now() < deadline && !(await alsoUntil())) await new Promise((r) => setTimeout(r, 250));
  } finally {
    // stop() signals only the PIDs started above and returns each miner's final counts.
    reports = await Promise.all(miners.map((m) => m.stop()));
  }
  return reports;
}

function expectCleanRun(report: XmrigRunReport, label: string): void {
  expect(report.accepted, `${label}: accepted shares\n${report.log.slice(-2000)}`).toBeGreaterThan(0);
  expect(report.rejected, `${label}: rejected ${report.rejectReasons.join(', ')}`).toBe(0);
}

/**
 * Candidates the pool recorded as accepted whose hash is the devnet's block at that height. With
 * `onSharedBlobBy`, only those that these workers found on a blob shared with other miners: the
 * nonce's top byte is one the pool reserved and XMRig kept (its own counter never gets there here).
 */
async function acceptedBlocksOnChain(onSharedBlobBy?: readonly string[]): Promise<number> {
  let onChain = 0;
  for (const hash of await redis.zrange(keys.blockCandidates, 0, -1)) {
    const record = await redis.hgetall(keys.block(hash));
    if (record['submitResult'] !== 'accepted') continue;
    if (onSharedBlobBy !== undefined) {
      if (!onSharedBlobBy.includes(record['finderWorker'] ?? '')) continue;
      if (parseBlock(hexToBytes(record['blob'] ?? '')).nonce >>> 24 === 0) continue;
    }
    const header = await daemon.getBlockHeaderByHeight(Number(record['height']));
    if (header.hash === hash) onChain += 1;
  }
  return onChain;
}

async function workerShares(address: string, worker: string): Promise<number> {
  return Number((await redis.hget(keys.worker(address, worker), 'sharesValid')) ?? 0);
}

describe('mining with a real XMRig on the devnet', () => {
  it('two workers on one address, over plain TCP and over TLS, get shares accepted and find blocks', async () => {
    const heightBefore = await daemon.getHeight();
    const [plain, tls] = await mine(
      [
        { xmrigPath, port: stack.stratumPort, login: stack.minerAddress, rigId: 'rig-plain' },
        {
          xmrigPath,
          port: stack.tlsPort ?? 0,
          login: stack.minerAddress,
          rigId: 'rig-tls',
          extraArgs: ['--tls', `--tls-fingerprint=${stack.tlsFingerprint}`],
        },
      ],
      6,
      120_000,
      // Blocks are a matter of luck: keep mining until one is on the chain.
      async () => (await acceptedBlocksOnChain()) > 0,
    );
    expectCleanRun(plain!, 'plain');
    expectCleanRun(tls!, 'tls');

    // Shares are durable in Redis, per worker.
    expect(await workerShares(stack.minerAddress, 'rig-plain')).toBeGreaterThan(0);
    expect(await workerShares(stack.minerAddress, 'rig-tls')).toBeGreaterThan(0);
    expect(await redis.xlen(keys.shares)).toBeGreaterThan(0);

    // Blocks were found, accepted by the devnet's independent validator, and recorded as candidates.
    expect(await acceptedBlocksOnChain()).toBeGreaterThan(0);
    expect(await daemon.getHeight()).toBeGreaterThan(heightBefore);
  }, 180_000);

  it('after a new block, two miners on one shared blob (each keeps its own top nonce byte) get shares accepted and find blocks', async () => {
    const [a, b] = await mine(
      [
        { xmrigPath, port: stack.stratumPort, login: `${stack.minerAddress}.shared-a` },
        { xmrigPath, port: stack.stratumPort, login: `${stack.minerAddress}.shared-b` },
      ],
      6,
      120_000,
      // Every job after the first block found (by either) is on a shared blob.
      async () => (await acceptedBlocksOnChain(SHARED_WORKERS)) > 0,
    );
    // A share with any other top byte would be refused ("Invalid nonce; is miner not compatible with NiceHash?").
    expectCleanRun(a!, 'shared-a');
    expectCleanRun(b!, 'shared-b');
    expect(await acceptedBlocksOnChain(SHARED_WORKERS)).toBeGreaterThan(0);
  }, 150_000);

  it('a miner with --nicehash and --keepalive mines without rejections', async () => {
    const [report] = await mine(
      [
        {
          xmrigPath,
          port: stack.stratumPort,
          login: `${stack.minerAddress}.nicehash-keepalive`,
          extraArgs: ['--nicehash', '--keepalive'],
        },
      ],
      4,
      60_000,
    );
    expectCleanRun(report!, 'nicehash+keepalive');
    expect(await workerShares(stack.minerAddress, 'nicehash-keepalive')).toBeGreaterThan(0);
  }, 90_000);

  it('miners logging in with an integrated address and with an alias are credited to the right address', async () => {
    const keysOfMiner = decodeAddress(stack.minerAddress);
    const integrated = encodeIntegratedAddress({
      spendPublicKey: keysOfMiner.spendPublicKey,
      viewPublicKey: keysOfMiner.viewPublicKey,
      paymentId: 'ab'.repeat(32),
    });
    stack.devnet.control.registerAlias(ALIAS, stack.minerAddress);
    const [integratedRun, aliasRun] = await mine(
      [
        { xmrigPath, port: stack.stratumPort, login: `${integrated}.integrated` },
        { xmrigPath, port: stack.stratumPort, login: `@${ALIAS}`, rigId: 'alias-rig' },
      ],
      4,
      60_000,
    );
    expectCleanRun(integratedRun!, 'integrated');
    expectCleanRun(aliasRun!, 'alias');
    expect(await workerShares(integrated, 'integrated')).toBeGreaterThan(0);
    expect(await workerShares(stack.minerAddress, 'alias-rig')).toBeGreaterThan(0);
  }, 90_000);
});
