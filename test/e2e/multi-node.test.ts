import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withControlClient } from '../../src/cli/control-client.js';
import { Devnet } from '../../src/devnet/devnet.js';
import { createLogger } from '../../src/log/logger.js';
import { findBatchIds } from '../../src/pool/payouts/batch-tag.js';
import { loadHasher } from '../../src/pow/load-hasher.js';
import { freePort, type PrivateRedis, startPrivateRedis } from '../../src/tools/redis-server.js';
import { ensureXmrig } from '../../src/tools/xmrig.js';
import { StratumLineClient } from '../helpers/stratum-line-client.js';
import { until } from '../helpers/until.js';
import { XmrigRun, type XmrigRunReport } from './xmrig-runner.js';

/**
 * The pool as separate processes sharing only Redis, each `node dist/cli.js start --role ...`
 * (dist is built before the tests run): two leader candidates, two stratum nodes (node ids 1 and 2)
 * and an API node, against the in-process devnet, one real XMRig per stratum node. The active
 * leader is SIGKILLed mid-mining: the standby must take over within 10 s, mining must go on with
 * new jobs and new blocks, and every block must be credited once and every batch paid once.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const P = '{fuego}';
const LEASE_MS = 3_000;
const ADMIN_TOKEN = 'multi-node-admin-token-0123456789';

interface NodeProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string;
}

let dir: string;
let redisServer: PrivateRedis;
let redis: Redis;
let devnet: Devnet;
let xmrigPath: string;
const processes: NodeProcess[] = [];
const miners: XmrigRun[] = [];
let stratumPorts: number[] = [];
let apiPort: number;

function configFor(name: string, stratumPort: number): unknown {
  const daemonUrl = new URL(devnet.daemonUrl);
  const walletUrl = new URL(devnet.walletUrl);
  return {
    network: 'devnet',
    log: { level: 'info' },
    daemon: { host: daemonUrl.hostname, port: Number(daemonUrl.port), retries: 1 },
    wallet: { host: walletUrl.hostname, port: Number(walletUrl.port) },
    redis: { url: redisServer.url },
    // Five processes on one machine: a control socket each, not the shared default path.
    control: { socketPath: controlSocketOf(name) },
    pool: { address: devnet.walletAddress },
    pow: { workers: 1 },
    templates: { refreshIntervalMs: 5_000, retryDelayMs: 250 },
    stratum: {
      ports: [{ port: stratumPort, difficulty: 300 }],
      vardiff: { targetShareTimeSec: 2, retargetIntervalSec: 10, minDifficulty: 100 },
    },
    payments: {
      confirmDepth: 10,
      unlockIntervalSec: 1,
      poolFeePercent: 1,
      payouts: {
        intervalSec: 10,
        minPayoutCoins: '0.01',
        lockTtlSec: 10,
        // Fusions would hold the payout for 11 blocks that nobody mines once the test stops mining.
        walletUpkeep: { enabled: false },
      },
    },
    api: { port: apiPort },
    cluster: { leaderLockTtlMs: LEASE_MS, renewIntervalMs: 500 },
  };
}

async function startNode(name: string, role: string, nodeId: number, stratumPort = 0): Promise<NodeProcess> {
  const configFile = join(dir, `${name}.json`);
  await writeFile(configFile, JSON.stringify(configFor(name, stratumPort)));
  const logFile = join(dir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [CLI, 'start', '--config', configFile, '--role', role, '--node-id', String(nodeId)],
    { cwd: ROOT, stdio: ['ignore', fd, fd], env: { ...process.env, FUEGO_POOL_ADMIN_TOKEN: ADMIN_TOKEN } },
  );
  closeSync(fd);
  const node = { name, child, logFile };
  processes.push(node);
  return node;
}

function controlSocketOf(name: string): string {
  return join(dir, `${name}.sock`);
}

function controlOf(name: string): { socketPath: string } {
  return { socketPath: controlSocketOf(name) };
}

/** Logs in once on `port`; the error message, or null when the login was accepted. */
const BANNED = 'Your IP is banned';

/** The login's error message (null when it is let in; BANNED too when closed without a reply). */
async function loginError(port: number): Promise<string | null> {
  const client = await StratumLineClient.open(port);
  try {
    const reply = await client.request('login', {
      login: devnet.walletAddress,
      pass: 'x',
      agent: 'multi-node-test/1.0',
      algo: ['cn/upx2'],
    });
    // A banned peer is told why on one connection in 10 s per node; its others are reset unanswered.
    if (reply === undefined) return BANNED;
    return (reply['error'] as { message?: string } | null | undefined)?.message ?? null;
  } finally {
    client.close();
  }
}

async function activeBansAtApi(): Promise<number | null> {
  const response = await fetch(`http://127.0.0.1:${apiPort}/api/admin/overview`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return ((await response.json()) as { activeBans: number | null }).activeBans;
}

function logOf(node: NodeProcess): string {
  return existsSync(node.logFile) ? readFileSync(node.logFile, 'utf8') : '';
}

/** Whether something listens on `port` (one that resets a banned peer at accept listens too). */
async function accepts(port: number): Promise<boolean> {
  return await new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNRESET'));
    socket.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
  });
}

async function stopProcess(node: NodeProcess): Promise<void> {
  const { child } = node;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Pid of the process holding the lease, from `<p>:leader:holder` ("host:pid:nodeN"). */
async function leaderPid(): Promise<number | undefined> {
  const holder = await redis.get(`${P}:leader:holder`);
  const parts = holder?.split(':') ?? [];
  const pid = Number(parts[parts.length - 2]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Every block the pool recorded (pending, confirmed, orphaned) with its height. */
async function poolBlocks(): Promise<Map<string, number>> {
  const blocks = new Map<string, number>();
  for (const key of ['blocks:candidates', 'blocks:confirmed', 'blocks:orphaned']) {
    const flat = await redis.zrange(`${P}:${key}`, 0, -1, 'WITHSCORES');
    for (let i = 0; i < flat.length; i += 2) blocks.set(flat[i]!, Number(flat[i + 1]));
  }
  return blocks;
}

beforeAll(async () => {
  xmrigPath = await ensureXmrig();
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  dir = await mkdtemp(join(tmpdir(), 'fuego-multi-node-'));
  // AOF fsynced before each reply: payouts refuse a Redis that may lose the last writes.
  redisServer = await startPrivateRedis({ appendOnly: true });
  redis = new Redis(redisServer.url);
  const logger = createLogger({ level: 'warn' });
  devnet = await Devnet.start(
    { daemon: { port: 0, difficulty: 6_000 }, wallet: { port: 0, addressCount: 2 } },
    { hasher: loadHasher('auto', logger), logger },
  );
  stratumPorts = [await freePort(), await freePort()];
  apiPort = await freePort();

  // Leader A first, so that it is the one that wins; B stands by.
  const leaderA = await startNode('leader-a', 'leader', 100);
  await until(
    () => leaderPid().then((pid) => (pid === leaderA.child.pid ? pid : undefined)),
    30_000,
    'leader A',
  );
  await startNode('leader-b', 'leader', 101);
  await Promise.all([
    startNode('stratum-1', 'stratum', 1, stratumPorts[0]),
    startNode('stratum-2', 'stratum', 2, stratumPorts[1]),
    startNode('api', 'api', 200),
  ]);
  for (const port of [...stratumPorts, apiPort])
    await until(async () => ((await accepts(port)) ? true : undefined), 60_000, `port ${port}`);
}, 120_000);

afterAll(async (context) => {
  if (context.tasks.some((t) => t.result?.state === 'fail') || processes.length < 5) {
    for (const node of processes) console.error(`---- ${node.name}\n${logOf(node).slice(-4_000)}`);
  }
  await Promise.all(miners.map((m) => m.stop().catch(() => undefined)));
  await Promise.all(processes.map((p) => stopProcess(p).catch(() => undefined)));
  redis?.disconnect();
  await devnet?.stop();
  await redisServer?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('pool roles in separate processes', () => {
  it('the leader is killed while two stratum nodes mine: a standby takes over, mining goes on, money moves once', async () => {
    const minerAddress = devnet.wallet.addresses[1]!;
    try {
      miners.push(
        await XmrigRun.start({ xmrigPath, port: stratumPorts[0]!, login: minerAddress, rigId: 'node1' }),
        await XmrigRun.start({ xmrigPath, port: stratumPorts[1]!, login: minerAddress, rigId: 'node2' }),
      );
      const bothMine = (minimum: readonly XmrigRunReport[]) => async () => {
        const reports = await Promise.all(miners.map((m) => m.report()));
        return reports.every((r, i) => r.accepted >= (minimum[i]?.accepted ?? 0) + 2) ? reports : undefined;
      };
      await until(bothMine([]), 60_000, 'accepted shares on both nodes');
      await until(async () => ((await poolBlocks()).size > 0 ? true : undefined), 60_000, 'a block');

      // Kill the active leader by its pid; the standby must take the lease within 10 s.
      const oldToken = await redis.get(`${P}:leader:token`);
      const victimPid = await leaderPid();
      const victim = processes.find((p) => p.child.pid === victimPid);
      const standby = processes.find((p) => p.name.startsWith('leader-') && p !== victim);
      expect(victim).toBeDefined();
      const killedAt = Date.now();
      victim!.child.kill('SIGKILL');
      const newToken = await until(
        async () => {
          const token = await redis.get(`${P}:leader:token`);
          return token !== null && token !== oldToken ? token : undefined;
        },
        15_000,
        'a new leader',
      );
      const takeoverMs = Date.now() - killedAt;
      console.info(`leader takeover after SIGKILL: ${takeoverMs} ms (lease ${LEASE_MS} ms)`);
      expect(takeoverMs).toBeLessThan(10_000);
      expect(Number(newToken.split('.')[0])).toBeGreaterThan(Number(oldToken?.split('.')[0]));
      expect(await leaderPid()).toBe(standby!.child.pid);
      await until(() => (logOf(standby!).includes('leader lease acquired') ? true : undefined), 5_000, 'log');

      // Mining goes on: more accepted shares and new jobs on both nodes, and new blocks.
      const atTakeover = await Promise.all(miners.map((m) => m.report()));
      const highestBefore = Math.max(...(await poolBlocks()).values());
      await until(bothMine(atTakeover), 60_000, 'accepted shares after the takeover');
      await until(
        async () => {
          const reports = await Promise.all(miners.map((m) => m.report()));
          return reports.every((r, i) => r.jobs > atTakeover[i]!.jobs) ? true : undefined;
        },
        60_000,
        'new jobs after the takeover',
      );
      await until(
        async () => (Math.max(...(await poolBlocks()).values()) > highestBefore ? true : undefined),
        60_000,
        'a block found after the takeover',
      );
    } finally {
      await Promise.all(miners.splice(0).map((m) => m.stop()));
    }

    // Bury everything under the unlock depth; the new leader unlocks and pays.
    devnet.control.mineBlocks(11);
    await until(
      async () => ((await redis.zcard(`${P}:blocks:candidates`)) === 0 ? true : undefined),
      30_000,
      'every block decided',
    );
    await until(
      async () => {
        const sent = await redis.hlen(`${P}:payout:txs`);
        const open = await redis.zcard(`${P}:payout:batches:open`);
        return sent > 0 && open === 0 ? true : undefined;
      },
      30_000,
      'a payout',
    );

    // Each confirmed block was credited once: one history entry per (miner, block), and the
    // per-block credits add up to what the totals say was credited.
    const confirmed = await redis.zrange(`${P}:blocks:confirmed`, 0, -1);
    expect(confirmed.length).toBeGreaterThan(0);
    const totals = await redis.hgetall(`${P}:balances:totals`);
    expect(Number(totals['blocksConfirmed'])).toBe(confirmed.length);
    let creditedByBlocks = 0n;
    for (const hash of confirmed) {
      const credits = await redis.hgetall(`${P}:block:${hash}:credits`);
      for (const amount of Object.values(credits)) creditedByBlocks += BigInt(amount);
    }
    expect(BigInt(totals['credited'] ?? '0')).toBe(creditedByBlocks);
    const entries = await redis.xrange(`${P}:history:${minerAddress}`, '-', '+');
    const creditRefs = entries
      .map(([, fields]) =>
        Object.fromEntries(fields.flatMap((v, i, a) => (i % 2 === 0 ? [[v, a[i + 1]]] : []))),
      )
      .filter((f) => f['r'] === 'block-credit')
      .map((f) => f['ref']);
    expect(new Set(creditRefs).size).toBe(creditRefs.length);
    expect(new Set(creditRefs)).toEqual(new Set(confirmed));

    // Nothing dropped or paid twice: credited = balance + in payout + paid + fees paid.
    const balance = await redis.hgetall(`${P}:balance:${minerAddress}`);
    const sum = ['balance', 'inPayout', 'paid', 'networkFees'].reduce(
      (s, f) => s + BigInt(balance[f] ?? '0'),
      0n,
    );
    expect(sum).toBe(BigInt(balance['credited'] ?? '0'));
    expect(BigInt(balance['paid'] ?? '0')).toBeGreaterThan(0n);

    // Each sent batch is in exactly one wallet transaction (mined into a block first).
    const sentBatches = new Set(Object.values(await redis.hgetall(`${P}:payout:txs`)));
    devnet.control.mineBlocks(1);
    const { blockCount } = devnet.wallet.getStatus() as { blockCount: number };
    const { items } = devnet.wallet.getTransactions({ firstBlockIndex: 0, blockCount }) as {
      items: Array<{ transactions: Array<{ extra: string }> }>;
    };
    const walletBatchIds = items.flatMap((item) => item.transactions.flatMap((t) => findBatchIds(t.extra)));
    for (const batchId of sentBatches) expect(walletBatchIds.filter((id) => id === batchId)).toHaveLength(1);

    console.info(
      `blocks confirmed ${confirmed.length}, orphaned ${await redis.zcard(`${P}:blocks:orphaned`)}, batches sent ${sentBatches.size}`,
    );

    // The API node (its own process) reads the same state.
    const response = await fetch(`http://127.0.0.1:${apiPort}/api/blocks`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { blocks: unknown[] };
    expect(body.blocks.length).toBeGreaterThan(0);
  }, 170_000);

  it("an operator's ban on one stratum node is enforced by the other, also after it restarts; an unban there lifts it on both", async () => {
    const [port1, port2] = stratumPorts as [number, number];
    expect(await loginError(port2)).toBeNull();
    await withControlClient(controlOf('stratum-1'), (client) =>
      client.request({ type: 'ban', ip: '127.0.0.1', seconds: 120, reason: 'cross-host test' }),
    );
    await until(
      async () => ((await loginError(port2)) === BANNED ? true : undefined),
      5_000,
      'the other node to refuse the IP',
    );
    // A stratum node that starts again takes the running bans over from Redis.
    const old = processes.find((node) => node.name === 'stratum-2' && node.child.exitCode === null)!;
    await stopProcess(old);
    await startNode('stratum-2', 'stratum', 2, port2);
    await until(async () => ((await accepts(port2)) ? true : undefined), 60_000, 'stratum-2 restarted');
    expect(await loginError(port2)).toBe(BANNED);
    // The API node has no stratum role: it counts the pool's bans in Redis.
    expect(await activeBansAtApi()).toBe(1);
    // The restarted node opens its control socket after its stratum port: ask until it answers.
    const listed = await until(
      () =>
        withControlClient(controlOf('stratum-2'), (client) => client.request({ type: 'bans' })).catch(
          () => undefined,
        ),
      30_000,
      'the control socket of the restarted stratum-2',
    );
    expect(listed.bans.map((b) => [b.ip, b.reason])).toEqual([['127.0.0.1', 'cross-host test']]);
    // A node without the stratum role lists the pool's bans from Redis.
    const atApi = await withControlClient(controlOf('api'), (client) => client.request({ type: 'bans' }));
    expect(atApi.bans.map((b) => b.ip)).toEqual(['127.0.0.1']);

    await withControlClient(controlOf('stratum-2'), (client) =>
      client.request({ type: 'unban', ip: '127.0.0.1' }),
    );
    await until(
      async () => ((await loginError(port1)) === null ? true : undefined),
      5_000,
      'the first node to let the IP in again',
    );
    expect(await loginError(port2)).toBeNull();
    expect(await activeBansAtApi()).toBe(0);

    // The operator may also ban through a node without the stratum role: the leader's socket.
    const leader = await withControlClient(controlOf('leader-b'), (client) =>
      client.request({ type: 'ban', ip: '127.0.0.1', seconds: 60, reason: 'from the leader' }),
    );
    expect(leader.ban.ip).toBe('127.0.0.1');
    for (const port of [port1, port2]) {
      await until(
        async () => ((await loginError(port)) === BANNED ? true : undefined),
        5_000,
        `stratum port ${port} to refuse the IP`,
      );
    }
    await withControlClient(controlOf('api'), (client) => client.request({ type: 'unban', ip: '127.0.0.1' }));
    for (const port of [port1, port2]) {
      await until(
        async () => ((await loginError(port)) === null ? true : undefined),
        5_000,
        `port ${port} open again`,
      );
    }
  }, 90_000);
});
