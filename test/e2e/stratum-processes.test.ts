import { type AddressInfo, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoStack, startDemoStack } from '../../src/app/demo-stack.js';
import { PoolNode } from '../../src/app/pool-node.js';
import type { StratumProcessGroup } from '../../src/app/stratum-processes/stratum-process-group.js';
import { withControlClient } from '../../src/cli/control-client.js';
import { createLogger } from '../../src/log/logger.js';
import { manualBan } from '../../src/pool/ban-registry.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { ensureXmrig } from '../../src/tools/xmrig.js';
import { listenBacklogOf, somaxconn } from '../helpers/listen-backlog.js';
import { childPids, isRunning } from '../helpers/processes.js';
import { StratumLineClient } from '../helpers/stratum-line-client.js';
import { until } from '../helpers/until.js';
import { E2E_STACK_OPTIONS } from './e2e-stack-options.js';
import { XmrigRun } from './xmrig-runner.js';

/**
 * `stratum.processes: 2`: the pool on the devnet with its stratum role in two child processes that
 * share the ports. Miners are spread over both, real XMRig miners mine through both, bans reach
 * both, a killed child comes back, and the API shows the children as one pool.
 */
const keys = createShareKeys('fuego');
const LOGIN_PARAMS = { pass: 'x', agent: 'stratum-processes-test/1.0', algo: ['cn/upx2'] };

let stack: DemoStack;
let group: StratumProcessGroup;
let redis: Redis;
let xmrigPath: string;
let stopped = false;
const clients: StratumLineClient[] = [];

const ADMIN_TOKEN = 'stratum-processes-admin-token-0123456789';
/**
 * How long a wait for what must happen may take (a reply, a close, a ban change reaching both
 * processes, a report); only a failing run waits it out. The machine may be loaded.
 */
const EVENT_WAIT_MS = 30_000;

beforeAll(async () => {
  // The pool reads the admin token from the environment (vitest runs each file in its own fork).
  process.env['FUEGO_POOL_ADMIN_TOKEN'] = ADMIN_TOKEN;
  xmrigPath = await ensureXmrig();
  stack = await startDemoStack(
    {
      ...E2E_STACK_OPTIONS,
      tlsPort: 0,
      poolOverrides: {
        pow: { workers: 1 },
        stratum: {
          processes: 2,
          vardiff: { targetShareTimeSec: 2, retargetIntervalSec: 10, minDifficulty: 100 },
          bans: { minShares: 4, maxInvalidRatio: 0.5, firstBanSeconds: 120 },
          // Above what the other tests open at once (XMRig's 3, the line clients' 4).
          limits: { maxConnectionsPerIp: 6 },
        },
      },
    },
    createLogger({ level: 'warn' }),
  );
  const processes = stack.pool.stratumProcesses;
  if (processes === null) throw new Error('the pool did not start stratum processes');
  group = processes;
  redis = new Redis(stack.redis.url);
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  redis?.disconnect();
  if (!stopped) await stack?.stop();
  delete process.env['FUEGO_POOL_ADMIN_TOKEN'];
});

async function openClient(): Promise<StratumLineClient> {
  const client = await StratumLineClient.open(stack.stratumPort);
  clients.push(client);
  return client;
}

async function login(
  client: StratumLineClient,
  worker: string,
): Promise<Record<string, unknown> | undefined> {
  return client.request(
    'login',
    { login: `${stack.minerAddress}.${worker}`, ...LOGIN_PARAMS },
    EVENT_WAIT_MS,
  );
}

/**
 * Two new connections (round robin: one in each process) log in as `<worker>-0` and `<worker>-1`,
 * again every 200 ms until both replies are `wanted`: a ban or unban reaches the processes over
 * their IPC channels. The pair that passes stays open; the others are closed.
 */
async function untilBothLogins(
  worker: string,
  wanted: (reply: Record<string, unknown> | undefined) => boolean,
  what: string,
): Promise<void> {
  await until(
    async () => {
      const pair: StratumLineClient[] = [];
      let all = true;
      for (let i = 0; i < 2; i++) {
        const client = await openClient();
        pair.push(client);
        all = wanted(await login(client, `${worker}-${i}`)) && all;
      }
      if (all) return true;
      for (const client of pair) client.close();
      return undefined;
    },
    EVENT_WAIT_MS,
    what,
    200,
  );
}

function loggedIn(reply: Record<string, unknown> | undefined): boolean {
  return reply !== undefined && reply['error'] === null;
}

function sessionOf(
  reply: Record<string, unknown> | undefined,
): { id: string; job: { blob: string; job_id: string } } | undefined {
  return reply?.['result'] as { id: string; job: { blob: string; job_id: string } } | undefined;
}

function errorMessageOf(reply: Record<string, unknown> | undefined): string | undefined {
  return (reply?.['error'] as { message?: string } | null | undefined)?.message;
}

/**
 * Refused as a banned peer: told so, or closed at accept without a reply (each process tells a
 * banned peer why on one connection in 10 s and closes its others unread).
 */
function refusedAsBanned(reply: Record<string, unknown> | undefined): boolean {
  return reply === undefined || errorMessageOf(reply) === 'Your IP is banned';
}

function closeAll(): void {
  for (const client of clients.splice(0)) client.close();
}

describe('stratum in two child processes', () => {
  it('starts two children with their own node ids, spreads miners over both and shows them as one pool', async () => {
    expect(group.children().map((c) => ({ nodeId: c.nodeId, state: c.state }))).toEqual([
      { nodeId: 0, state: 'serving' },
      { nodeId: 1, state: 'serving' },
    ]);
    const pids = group.children().map((c) => c.pid);
    expect(new Set(pids).size).toBe(2);
    expect(pids).not.toContain(process.pid);
    // The port the children share is listened on by the parent, with the configured backlog.
    const backlog = listenBacklogOf(stack.stratumPort);
    if (backlog !== 'no ss') expect(backlog).toBe(Math.min(4096, somaxconn()));

    for (let i = 0; i < 4; i++) {
      const reply = await login(await openClient(), `spread-${i}`);
      expect(reply?.['error']).toBeNull();
      expect(sessionOf(reply)?.job.blob).toMatch(/^[0-9a-f]+$/);
    }
    await until(
      () => (group.children().every((c) => c.sessions === 2) ? true : undefined),
      EVENT_WAIT_MS,
      'two sessions in each stratum process',
    );
    const metrics = await (await fetch(`${stack.apiUrl}/metrics`)).text();
    expect(metrics).toMatch(/^fuego_pool_stratum_sessions 4$/m);
    expect(metrics).toMatch(/^fuego_pool_stratum_processes\{state="serving"\} 2$/m);
    expect(metrics).toMatch(/^fuego_pool_stratum_process_restarts_total 0$/m);
    const status = await withControlClient({ socketPath: stack.controlSocketPath }, (control) =>
      control.request({ type: 'status' }),
    );
    expect(status.stratum).toMatchObject({ connections: 4, sessions: 4 });
    const overview = await fetch(`${stack.apiUrl}/api/admin/overview`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(((await overview.json()) as { counters: Record<string, number> }).counters).toMatchObject({
      connections: 4,
      sessions: 4,
      logins: 4,
    });
    expect(status.stratum?.processes?.map((p) => [p.nodeId, p.state, p.sessions])).toEqual([
      [0, 'serving', 2],
      [1, 'serving', 2],
    ]);
    closeAll();
    await until(
      () => (group.children().every((c) => c.sessions === 0) ? true : undefined),
      EVENT_WAIT_MS,
      'the sessions closed',
    );
  }, 120_000);

  it('real XMRig miners mine through both processes, over TCP and TLS: shares accepted, none rejected, blocks found', async () => {
    const heightBefore = await chainHeight();
    const miners = await Promise.all(
      ['rig-a', 'rig-b'].map((rigId) =>
        XmrigRun.start({ xmrigPath, port: stack.stratumPort, login: stack.minerAddress, rigId }),
      ),
    );
    let reports: Awaited<ReturnType<XmrigRun['stop']>>[] = [];
    try {
      await until(
        () => (group.children().every((c) => c.sessions === 1) ? true : undefined),
        20_000,
        'one XMRig in each stratum process',
      );
      // The TLS port is shared by the children too; the handshake runs in the child.
      miners.push(
        await XmrigRun.start({
          xmrigPath,
          port: stack.tlsPort ?? 0,
          login: stack.minerAddress,
          rigId: 'rig-tls',
          extraArgs: ['--tls', `--tls-fingerprint=${stack.tlsFingerprint}`],
        }),
      );
      await Promise.all(miners.map((m) => m.waitFor((r) => r.accepted >= 4, 120_000)));
      await until(async () => ((await acceptedBlocks()) > 0 ? true : undefined), 120_000, 'a block', 500);
    } finally {
      reports = await Promise.all(miners.map((m) => m.stop()));
    }
    for (const [i, report] of reports.entries()) {
      expect(report.accepted, `miner ${i}\n${report.log.slice(-1500)}`).toBeGreaterThan(0);
      expect(report.rejected, `miner ${i}: ${report.rejectReasons.join(', ')}`).toBe(0);
    }
    for (const worker of ['rig-a', 'rig-b', 'rig-tls']) {
      expect(
        Number(await redis.hget(keys.worker(stack.minerAddress, worker), 'sharesValid')),
        worker,
      ).toBeGreaterThan(0);
    }
    expect(await chainHeight()).toBeGreaterThan(heightBefore);
    await until(
      () => (group.stats().backend.sharesAccepted >= 12 ? true : undefined),
      EVENT_WAIT_MS,
      'the accepted shares of every process in the sum',
    );
    // The children submitted the blocks: their submitblock calls are timed in the pool's metrics.
    await until(
      async () => ((await daemonCallCount('submitblock')) >= 1 ? true : undefined),
      EVENT_WAIT_MS,
      "the children's submitblock calls in /metrics",
    );
  }, 300_000);

  it("a child's alias lookup for a login is timed in the pool's RPC metrics", async () => {
    // Only the stratum children look aliases up (the parent runs the leader and the API).
    expect(await daemonCallCount('/get_alias')).toBe(0);
    const reply = await (await openClient()).request(
      'login',
      { login: '@no-such-alias', ...LOGIN_PARAMS },
      EVENT_WAIT_MS,
    );
    expect(reply?.['error']).not.toBeNull();
    await until(
      async () => ((await daemonCallCount('/get_alias')) === 1 ? true : undefined),
      EVENT_WAIT_MS,
      "the child's /get_alias call in /metrics",
    );
    closeAll();
  }, 120_000);

  it("an operator's ban closes the IP's miners in every process and refuses it in every process", async () => {
    const a = await openClient();
    const b = await openClient();
    expect((await login(a, 'ban-a'))?.['error']).toBeNull();
    expect((await login(b, 'ban-b'))?.['error']).toBeNull();

    // As `fuego-pool ban 127.0.0.1` does it: through the parent's control socket.
    const { ban } = await withControlClient({ socketPath: stack.controlSocketPath }, (control) =>
      control.request({ type: 'ban', ip: '127.0.0.1', seconds: 120, reason: 'test ban' }),
    );
    expect(ban).toMatchObject({ ip: '127.0.0.1', reason: 'test ban' });
    expect(await a.closedWithin(EVENT_WAIT_MS)).toBe(true);
    expect(await b.closedWithin(EVENT_WAIT_MS)).toBe(true);
    // Round robin: two new connections reach both processes; both refuse the IP.
    for (let i = 0; i < 2; i++) {
      expect(refusedAsBanned(await login(await openClient(), `banned-${i}`))).toBe(true);
    }
    const unbanned = await withControlClient({ socketPath: stack.controlSocketPath }, async (control) => {
      expect((await control.request({ type: 'bans' })).bans.map((entry) => entry.ip)).toEqual(['127.0.0.1']);
      return control.request({ type: 'unban', ip: '127.0.0.1' });
    });
    expect(unbanned.wasBanned).toBe(true);
    await untilBothLogins('unbanned', loggedIn, 'the unban in both processes');
    closeAll();
  }, 120_000);

  it('a ban one process decides for bad shares reaches the other process', async () => {
    const cheat = await openClient();
    const reply = await login(cheat, 'cheat');
    const session = sessionOf(reply);
    if (session === undefined) throw new Error('the cheat could not log in');
    const jobId = session.job.job_id;
    let banned = false;
    for (let nonce = 0; nonce < 10 && !banned; nonce++) {
      const answer = await cheat.request('submit', {
        id: session.id,
        job_id: jobId,
        nonce: nonce.toString(16).padStart(8, '0'),
        result: '11'.repeat(32),
      });
      banned = answer === undefined || errorMessageOf(answer) === 'Your IP is banned' || cheat.closed;
    }
    expect(banned).toBe(true);
    await until(
      async () => ((await stack.pool.bans.list()).length === 1 ? true : undefined),
      EVENT_WAIT_MS,
      'the ban at the parent',
    );
    expect((await stack.pool.bans.list())[0]).toMatchObject({ ip: '127.0.0.1', manual: false, offences: 1 });
    await untilBothLogins('after-cheat', refusedAsBanned, 'the ban in both processes');
    await until(
      () => (group.stats().backend.bansIssued === 1 ? true : undefined),
      EVENT_WAIT_MS,
      'the ban counted once in the sum',
    );
    await stack.pool.bans.unban('127.0.0.1');
    closeAll();
  }, 120_000);

  it('the per-IP connection cap holds for the host, not for each process', async () => {
    await until(
      () => (group.connectionCount() === 0 ? true : undefined),
      EVENT_WAIT_MS,
      'earlier connections gone',
    );
    const kept: StratumLineClient[] = [];
    for (let i = 0; i < 6; i++) {
      const client = await openClient();
      expect((await login(client, `cap-${i}`))?.['error']).toBeNull();
      kept.push(client);
    }
    await until(
      () => (group.children().every((c) => c.sessions === 3) ? true : undefined),
      EVENT_WAIT_MS,
      'three sessions in each process',
    );
    // Each process holds 3 of the IP's 6, and still refuses: round robin sends one to each.
    for (let i = 0; i < 2; i++) {
      const refused = await openClient();
      expect(await refused.closedWithin(EVENT_WAIT_MS)).toBe(true);
    }
    expect(group.connectionCount()).toBe(6);
    kept[0]!.close();
    await until(
      () => (group.connectionCount() === 5 ? true : undefined),
      EVENT_WAIT_MS,
      'the closed one given back',
    );
    expect((await login(await openClient(), 'cap-again'))?.['error']).toBeNull();
    await until(
      () => (group.stats().stratum.connections.refused['per-ip-limit'] === 2 ? true : undefined),
      EVENT_WAIT_MS,
      'the refusals in the pool-wide numbers',
    );
    const metrics = await (await fetch(`${stack.apiUrl}/metrics`)).text();
    expect(metrics).toMatch(/^fuego_pool_stratum_connections_refused_total\{reason="per-ip-limit"\} 2$/m);
    closeAll();
  }, 120_000);

  it('a killed stratum process is started again, learns the bans, and miners keep connecting meanwhile', async () => {
    const victim = group.children()[1]!;
    process.kill(victim.pid!, 'SIGKILL');
    await until(
      () => (group.children()[1]!.state !== 'serving' ? true : undefined),
      EVENT_WAIT_MS,
      'the parent to see the child die',
    );
    // The surviving process takes every new connection.
    for (let i = 0; i < 2; i++) {
      expect((await login(await openClient(), `during-restart-${i}`))?.['error']).toBeNull();
    }
    closeAll();
    await stack.pool.bans.ban(manualBan('127.0.0.1', 120, 'manual', Date.now()));
    await until(
      () => {
        const child = group.children()[1]!;
        return child.state === 'serving' && child.restarts === 1 && child.pid !== victim.pid
          ? true
          : undefined;
      },
      60_000,
      'the child to be serving again',
    );
    const metrics = await (await fetch(`${stack.apiUrl}/metrics`)).text();
    expect(metrics).toMatch(/^fuego_pool_stratum_process_restarts_total 1$/m);
    await untilBothLogins('restarted', refusedAsBanned, 'the ban in both processes, the restarted one too');
    await stack.pool.bans.unban('127.0.0.1');
    await untilBothLogins('after-restart', loggedIn, 'the unban in both processes');
    await until(
      () => (group.children().every((c) => c.sessions === 1) ? true : undefined),
      EVENT_WAIT_MS,
      'a session in each process again',
    );
    closeAll();
  }, 180_000);

  it("a second stratum process with one of the children's node ids does not start", async () => {
    const config = stack.pool.config;
    const duplicate = PoolNode.start(
      {
        ...config,
        roles: ['stratum'],
        pool: { ...config.pool, nodeId: 1 },
        stratum: { ...config.stratum, processes: 1, ports: [{ ...config.stratum.ports[0]!, port: 0 }] },
        api: { ...config.api, enabled: false },
        control: { ...config.control, enabled: false },
      },
      { logger: createLogger({ level: 'silent' }) },
    );
    await expect(duplicate).rejects.toMatchObject({
      code: 'NODE_ID_IN_USE',
      message: expect.stringMatching(/^pool\.nodeId 1 is in use by [^ ]+:\d+ on the same Redis/),
    });
  }, 120_000);

  it('stopping the pool stops every stratum process', async () => {
    const pids = group.children().map((c) => c.pid!);
    redis.disconnect();
    stopped = true;
    await stack.stop();
    for (const pid of pids) expect(isRunning(pid), `pid ${pid}`).toBe(false);
    expect(group.children().map((c) => c.state)).toEqual(['stopped', 'stopped']);
  }, 60_000);
});

async function chainHeight(): Promise<number> {
  const response = await fetch(`${stack.devnet.daemonUrl}/getheight`, { method: 'POST', body: '{}' });
  return ((await response.json()) as { height: number }).height;
}

/** How many attempts of a daemon call `method` /metrics has timed (0 before the first). */
async function daemonCallCount(method: string): Promise<number> {
  const metrics = await (await fetch(`${stack.apiUrl}/metrics`)).text();
  const line = metrics
    .split('\n')
    .find((l) => l.startsWith(`fuego_pool_rpc_duration_seconds_count{service="daemon",method="${method}"} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Candidates the pool recorded as accepted by the daemon. */
async function acceptedBlocks(): Promise<number> {
  let accepted = 0;
  for (const hash of await redis.zrange(keys.blockCandidates, 0, -1)) {
    if ((await redis.hget(keys.block(hash), 'submitResult')) === 'accepted') accepted += 1;
  }
  return accepted;
}

describe('stratum processes that cannot serve', () => {
  it('fail the pool start with the reason, and leave no process behind', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const childrenBefore = childPids();
    try {
      const start = startDemoStack(
        {
          ...E2E_STACK_OPTIONS,
          stratumPort: port,
          apiPort: null,
          poolOverrides: { pow: { workers: 1 }, stratum: { processes: 2 } },
        },
        createLogger({ level: 'silent' }),
      );
      await expect(start).rejects.toMatchObject({
        code: 'CHILD_START_FAILED',
        // Whichever child reports first.
        message: expect.stringMatching(
          new RegExp(`^stratum process [01]: stratum port 127\\.0\\.0\\.1:${port} is already in use$`),
        ),
      });
      await until(
        () => (childPids().every((pid) => childrenBefore.includes(pid)) ? true : undefined),
        EVENT_WAIT_MS,
        'the stratum processes to exit',
      );
    } finally {
      taken.close();
    }
  }, 60_000);
});
