/**
 * Cluster benchmark: connections and shares per second per node, with one and with two stratum
 * processes on this machine, the roles sharing only Redis as in production:
 *
 *   private Redis + devnet (unreachable network difficulty, no block timer, in this process)
 *   one leader process    node dist/cli.js start --role leader --node-id 100   (templates -> Redis)
 *   setup A: one stratum  node dist/cli.js start --role stratum --node-id 1    (W workers)
 *   setup B: two stratum  ... --node-id 1 and --node-id 2, own ports          (W/2 workers each)
 *
 *   npm run bench:cluster
 *
 * For each setup: (a) IDLE_MINERS idle miners log in, spread evenly over the nodes from source
 * addresses 127.0.0.2-5, and each node's RSS is read once they are in; then, after one uncounted
 * warm-up block (the broadcast code runs cold once), PUSH_ROUNDS blocks are mined one at a time,
 * and each time the arrival of every idle miner's new job is timed from the tip change (the
 * leader notices it, publishes the template, each node pushes to its miners; set
 * FUEGO_BENCH_PUSH_ROUNDS to change the count); (b) SHARE_MINERS miners
 * (spread likewise) submit pre-computed valid difficulty-1 shares (hashed before the clock runs, in
 * a verifier pool in this process; the idle miners stay connected) with MAX_IN_FLIGHT
 * unanswered each, for the same WINDOW_MS on every node; every reply is counted, and the growth of
 * the Redis share stream must equal the OK replies (0 lost). The leader, Redis and the devnet are
 * kept from setup A to B; only the stratum processes are replaced. The machine's cores are shared
 * by the pool processes, Redis, this client and the neighbours, so CPU use is reported beside the
 * rates. Prints a table, then one JSON object as the last line.
 */
import { availableParallelism, loadavg } from 'node:os';
import type { Redis } from 'ioredis';
import { hexToBytes } from '../../src/fuego/hex.js';
import { createLogger } from '../../src/log/logger.js';
import { ShareVerifierPool } from '../../src/pow/verifier-pool.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { type BenchBackends, benchPoolConfig, startBenchBackends } from '../stratum/bench-stack.js';
import {
  type JobArrivals,
  measureJobArrivals,
  PUSH_ROUNDS,
  TARGET_PUSH_P99_MS,
} from '../stratum/job-arrivals.js';
import {
  countOpenFds,
  percentile,
  printReport,
  readHostCpuTicks,
  readOpenFilesLimit,
  readProcessCpuSeconds,
  readRssKb,
  round,
  type TableRow,
} from '../stratum/measure-process.js';
import { hashShares, newPhase, type PhaseResult, prepare, sendBounded } from '../stratum/pipeline-phases.js';
import type { PoolProcess } from '../stratum/pool-process.js';
import { connectMiners, type LoggedInMiner } from '../stratum/simulated-miners.js';
import { startLeaderProcess, startStratumProcesses, stopProcesses } from './cluster-nodes.js';
import { type NodeWindowResult, type ShareLane, sendSharesForWindow } from './share-window.js';

/** Idle miners per setup, in total (two nodes: half each). */
const IDLE_MINERS = 10_000;
/** Logins in flight per node. */
const LOGIN_BATCH = 500;
/** Each source address gives ~28k ephemeral ports towards one server port. */
const LOCAL_ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
/** File descriptors left free in each process besides the miners' sockets. */
const FD_HEADROOM = 64;
/** Share-submitting miners per setup, in total (two nodes: half each). */
const SHARE_MINERS = 64;
/** Submits a miner keeps unanswered (the pool reads at most 32 per connection). */
const MAX_IN_FLIGHT = 8;
/**
 * Shares hashed ahead of time: more than the warm-up and the window take at any rate these 2 cores
 * reach (~4,000/s seen); the hashing stops at the count or after PRECOMPUTE_MAX_MS (busy neighbours).
 */
const PRECOMPUTE_SHARES = 60_000;
const PRECOMPUTE_MAX_MS = 30_000;
const WARMUP_PER_MINER = 4;
const WINDOW_MS = 10_000;
/** Pause before reading RSS, so the pools' event loops and GC settle. */
const SETTLE_MS = 2_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (kb: number) => kb / 1024;
const pct = (seconds: number, wallSeconds: number) => `${((100 * seconds) / wallSeconds).toFixed(0)}%`;
const loads = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** CPU seconds each party used during the share window. */
interface WindowCpu {
  readonly nodes: number[];
  readonly leader: number;
  readonly redis: number;
  readonly client: number;
  /** Busy CPU seconds of the whole machine, neighbours included. */
  readonly hostBusy: number;
  readonly wall: number;
}

interface SetupResult {
  readonly nodeCount: number;
  readonly workersPerNode: number;
  readonly connections: number;
  readonly connectionsPerNode: number;
  readonly loginSeconds: number;
  readonly rssIdleKb: number[];
  readonly rssKb: number[];
  readonly warmupPush: JobArrivals;
  readonly pushes: JobArrivals[];
  readonly rssAfterSharesKb: number[];
  readonly precomputed: { readonly hashes: number; readonly hps: number };
  readonly warmup: PhaseResult;
  readonly window: NodeWindowResult[];
  readonly streamGrowth: number;
  readonly cpu: WindowCpu;
}

interface Context {
  readonly backends: BenchBackends;
  readonly config: ReturnType<typeof benchPoolConfig>;
  readonly leader: PoolProcess;
  readonly redis: Redis;
  readonly sharesKey: string;
  readonly verifier: ShareVerifierPool;
  readonly say: (text: string) => void;
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** Logs in `perNode` miners on each node at once; every miner that got in is pushed onto `into`. */
async function connectOnEveryNode(
  nodes: readonly PoolProcess[],
  perNode: number,
  into: LoggedInMiner[][],
  options: { login: (node: number, index: number) => string; batchSize: number; sources?: string[] },
): Promise<void> {
  const settled = await Promise.allSettled(
    nodes.map(async (node, k) => {
      const miners = await connectMiners(0, perNode, {
        port: node.stratumPort,
        login: (i) => options.login(k + 1, i),
        batchSize: options.batchSize,
        ...(options.sources ? { localAddresses: options.sources } : {}),
      });
      into[k]!.push(...miners);
    }),
  );
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
}

async function runSetup(ctx: Context, nodeCount: number, workersPerNode: number): Promise<SetupResult> {
  const { say, redis } = ctx;
  const address = ctx.backends.minerAddress;
  const nodes = await startStratumProcesses(ctx.config, nodeCount, workersPerNode);
  const idle: LoggedInMiner[][] = nodes.map(() => []);
  const sharing: LoggedInMiner[][] = nodes.map(() => []);
  try {
    say(
      `${nodeCount} stratum node(s): ${nodes.map((n, k) => `node ${k + 1} pid ${n.pid} port ${n.stratumPort}`).join(', ')}; ${workersPerNode} verifier worker(s) each`,
    );
    await sleep(SETTLE_MS);
    const rssIdleKb = nodes.map((n) => readRssKb(n.pid));

    // (a) Connections: as many idle miners as the open-files limits leave room for, up to IDLE_MINERS.
    const nodeRoom = Math.min(
      ...nodes.map((n) => readOpenFilesLimit(n.pid) - countOpenFds(n.pid) - FD_HEADROOM - SHARE_MINERS),
    );
    const selfRoom = readOpenFilesLimit(process.pid) - countOpenFds(process.pid) - FD_HEADROOM - SHARE_MINERS;
    const perNode = Math.floor(Math.min(IDLE_MINERS / nodeCount, nodeRoom, selfRoom / nodeCount));
    const loginStarted = performance.now();
    await connectOnEveryNode(nodes, perNode, idle, {
      login: (node, i) => `${address}.n${node}idle${i}`,
      batchSize: LOGIN_BATCH,
      sources: LOCAL_ADDRESSES,
    });
    const loginSeconds = (performance.now() - loginStarted) / 1000;
    const connections = perNode * nodeCount;
    say(`${connections} idle miners logged in (${(connections / loginSeconds).toFixed(0)} logins/s)`);
    await sleep(SETTLE_MS);
    const rssKb = nodes.map((n) => readRssKb(n.pid));

    // New tips: every idle miner on every node must get a job on the new block. The first push
    // runs the nodes' broadcast code cold (not yet optimised by the JIT): reported, not counted.
    const allIdle = idle.flat();
    const mine = () => ctx.backends.devnet.control.mineBlocks(1)[0]!.height;
    const warmupPush = await measureJobArrivals(allIdle, mine);
    await sleep(SETTLE_MS);
    const pushes: JobArrivals[] = [];
    for (let r = 0; r < PUSH_ROUNDS; r++) {
      pushes.push(await measureJobArrivals(allIdle, mine));
      await sleep(SETTLE_MS);
    }
    say(
      `new job to ${allIdle.length} idle miners, p99: warm-up ${percentile(warmupPush.fromTipMs, 99).toFixed(0)} ms, then ${pushes.map((p) => percentile(p.fromTipMs, 99).toFixed(0)).join(' / ')} ms`,
    );

    // (b) Shares: miners at difficulty 1 ("+1"), their shares hashed before any timing.
    await connectOnEveryNode(nodes, SHARE_MINERS / nodeCount, sharing, {
      login: (node, i) => `${address}.n${node}share${i}+1`,
      batchSize: SHARE_MINERS,
    });
    const flat = sharing.flat();
    for (const miner of flat) {
      if (miner.job.target !== 'ffffffff')
        throw new Error(`job target ${miner.job.target}, expected difficulty 1`);
    }
    say(`${flat.length} share miners logged in; pre-computing ${PRECOMPUTE_SHARES} shares`);
    const pre = await hashShares(
      ctx.verifier,
      flat.map((m) => hexToBytes(m.job.blob)),
      PRECOMPUTE_MAX_MS,
      PRECOMPUTE_SHARES,
    );
    say(`pre-computed ${pre.hashes} shares at ${pre.hps.toFixed(0)} H/s`);
    let m = 0;
    const lanes: ShareLane[][] = sharing.map((miners) =>
      miners.map((miner) => ({
        client: miner.client,
        submits: pre.perMiner[m++]!.map((s) =>
          prepare(miner.client, miner.sessionId, miner.job.job_id, s.nonce, s.result),
        ),
      })),
    );

    // Untimed warm-up (JIT, Redis script load); counted in the lost check.
    const streamBefore = await redis.xlen(ctx.sharesKey);
    const warmup = newPhase();
    await Promise.all(
      lanes
        .flat()
        .map((lane) =>
          sendBounded(lane.client, lane.submits.splice(0, WARMUP_PER_MINER), MAX_IN_FLIGHT, warmup),
        ),
    );

    const cpuBefore = {
      nodes: nodes.map((n) => readProcessCpuSeconds(n.pid)),
      leader: readProcessCpuSeconds(ctx.leader.pid),
      redis: await redisCpuSeconds(redis),
      client: process.cpuUsage(),
      host: readHostCpuTicks(),
    };
    const started = performance.now();
    const window = await sendSharesForWindow(lanes, MAX_IN_FLIGHT, WINDOW_MS);
    const wall = (performance.now() - started) / 1000;
    const clientUse = process.cpuUsage(cpuBefore.client);
    const cpu: WindowCpu = {
      nodes: nodes.map((n, k) => readProcessCpuSeconds(n.pid) - cpuBefore.nodes[k]!),
      leader: readProcessCpuSeconds(ctx.leader.pid) - cpuBefore.leader,
      redis: (await redisCpuSeconds(redis)) - cpuBefore.redis,
      client: (clientUse.user + clientUse.system) / 1e6,
      hostBusy: (readHostCpuTicks().busy - cpuBefore.host.busy) / 100,
      wall,
    };
    const streamGrowth = (await redis.xlen(ctx.sharesKey)) - streamBefore;
    const rssAfterSharesKb = nodes.map((n) => readRssKb(n.pid));
    const windowOk = window.reduce((s, w) => s + w.phase.ok, 0);
    say(
      `shares: ${window.map((w, k) => `node ${k + 1} ${w.phase.ok}/${w.phase.sent} OK`).join(', ')} in ${wall.toFixed(1)} s`,
    );
    if (warmup.ok + windowOk !== streamGrowth)
      say(`WARNING: ${warmup.ok + windowOk} OK replies but the share stream grew by ${streamGrowth}`);
    return {
      nodeCount,
      workersPerNode,
      connections,
      connectionsPerNode: perNode,
      loginSeconds,
      rssIdleKb,
      rssKb,
      warmupPush,
      pushes,
      rssAfterSharesKb,
      precomputed: { hashes: pre.hashes, hps: pre.hps },
      warmup,
      window,
      streamGrowth,
      cpu,
    };
  } finally {
    const all = [...idle.flat(), ...sharing.flat()];
    for (const miner of all) miner.client.destroy();
    // Let the pools see the closes before they are told to stop (their shutdown would wait on them).
    if (all.length > 0) await sleep(1_000);
    await stopProcesses(nodes);
  }
}

/** Latencies of every node's window, ascending. */
function latencies(result: SetupResult): number[] {
  return result.window.flatMap((w) => w.phase.latenciesMs).sort((a, b) => a - b);
}

function rateOf(phase: PhaseResult): number {
  return phase.elapsedMs > 0 ? (phase.ok * 1000) / phase.elapsedMs : 0;
}

/** Submits sent and not answered OK, plus OK answers the share stream does not hold. */
function lostOf(result: SetupResult): number {
  const sent = result.warmup.sent + result.window.reduce((s, w) => s + w.phase.sent, 0);
  const ok = result.warmup.ok + result.window.reduce((s, w) => s + w.phase.ok, 0);
  return sent - ok + Math.max(0, ok - result.streamGrowth);
}

function formatErrors(phases: readonly PhaseResult[]): string {
  const errors: Record<string, number> = {};
  for (const phase of phases)
    for (const [message, n] of Object.entries(phase.errors)) errors[message] = (errors[message] ?? 0) + n;
  const entries = Object.entries(errors);
  return entries.length === 0 ? 'no errors' : entries.map(([message, n]) => `${message}: ${n}`).join(', ');
}

function setupRows(label: string, r: SetupResult): TableRow[] {
  const sorted = latencies(r);
  const total = r.window.reduce((s, w) => s + rateOf(w.phase), 0);
  const ok = r.warmup.ok + r.window.reduce((s, w) => s + w.phase.ok, 0);
  const lost = lostOf(r);
  const rows: TableRow[] = [
    [
      `${label}: idle miners logged in`,
      String(r.connections),
      `${r.connectionsPerNode} per node in ${r.loginSeconds.toFixed(1)} s (${(r.connections / r.loginSeconds).toFixed(0)} logins/s), ${LOGIN_BATCH} in flight per node, from ${LOCAL_ADDRESSES.length} source addresses`,
    ],
  ];
  r.rssKb.forEach((kb, k) => {
    const idleKb = r.rssIdleKb[k]!;
    rows.push([
      `${label}: node ${k + 1} RSS (MB)`,
      mb(kb).toFixed(1),
      `idle ${mb(idleKb).toFixed(1)} MB before logins, ${((kb - idleKb) / r.connectionsPerNode).toFixed(2)} kB per connection; after the shares ${mb(r.rssAfterSharesKb[k]!).toFixed(1)} MB`,
    ]);
  });
  const allPushes = r.pushes.flatMap((p) => p.fromTipMs).sort((a, b) => a - b);
  const pushP99 = percentile(allPushes, 99);
  const missing = r.pushes.reduce((n, p) => n + p.missing + p.wrongHeight, 0);
  rows.push(
    [
      `${label}: new job to ${r.connections} miners, p99 per push (ms)`,
      r.pushes.map((p) => percentile(p.fromTipMs, 99).toFixed(0)).join(' / '),
      `p50 per push ${r.pushes.map((p) => percentile(p.fromTipMs, 50).toFixed(0)).join(' / ')} ms, from the tip change (the leader's tip check included); before them, an uncounted warm-up push: p99 ${percentile(r.warmupPush.fromTipMs, 99).toFixed(0)} ms`,
    ],
    [
      `${label}: same, all ${r.pushes.length} pushes p50 / p99 / max (ms)`,
      `${percentile(allPushes, 50).toFixed(0)} / ${pushP99.toFixed(0)} / ${(allPushes.at(-1) ?? Number.NaN).toFixed(0)}`,
      `target p99 < ${TARGET_PUSH_P99_MS}: ${pushP99 < TARGET_PUSH_P99_MS ? 'met' : 'NOT met'}; missing or wrong height ${missing}`,
    ],
  );
  r.window.forEach((w, k) => {
    const s = [...w.phase.latenciesMs].sort((a, b) => a - b);
    rows.push([
      `${label}: node ${k + 1} shares/s`,
      rateOf(w.phase).toFixed(1),
      `${w.phase.ok} OK of ${w.phase.sent} in ${(w.phase.elapsedMs / 1000).toFixed(2)} s, latency p50 ${percentile(s, 50).toFixed(2)} p99 ${percentile(s, 99).toFixed(2)} ms; ${r.workersPerNode} worker(s); CPU ${pct(r.cpu.nodes[k]!, r.cpu.wall)} of a core${w.ranOut > 0 ? `; ${w.ranOut} miners ran out of shares early` : ''}`,
    ]);
  });
  rows.push(
    [
      `${label}: shares/s total`,
      total.toFixed(1),
      `${SHARE_MINERS / r.nodeCount} miners per node x ${MAX_IN_FLIGHT} in flight, ${WINDOW_MS / 1000} s window on every node at once (for scale: ${availableParallelism()} verifier workers in this process hashed ${r.precomputed.hps.toFixed(0)} H/s in the pre-computation, pools idle)`,
    ],
    [
      `${label}: latency p50 / p99 (ms)`,
      `${percentile(sorted, 50).toFixed(2)} / ${percentile(sorted, 99).toFixed(2)}`,
      `max ${(sorted.at(-1) ?? Number.NaN).toFixed(2)}, all nodes; mostly queueing: ${SHARE_MINERS * MAX_IN_FLIGHT} in flight / ${total.toFixed(0)} per s = ${((SHARE_MINERS * MAX_IN_FLIGHT * 1000) / total).toFixed(0)} ms`,
    ],
    [
      `${label}: lost`,
      String(lost),
      `OK replies ${ok} (warm-up ${r.warmup.ok} + window), share stream grew ${r.streamGrowth}: ${ok === r.streamGrowth ? 'equal' : 'NOT equal'}; ${formatErrors([r.warmup, ...r.window.map((w) => w.phase)])}`,
    ],
    [
      `${label}: CPU in the window`,
      pct(r.cpu.hostBusy, r.cpu.wall * availableParallelism()),
      `machine busy of ${availableParallelism()} cores; stratum ${r.cpu.nodes.map((s) => pct(s, r.cpu.wall)).join(' + ')}, leader ${pct(r.cpu.leader, r.cpu.wall)}, redis ${pct(r.cpu.redis, r.cpu.wall)}, this client ${pct(r.cpu.client, r.cpu.wall)} of a core; neighbours ~${pct(r.cpu.hostBusy - r.cpu.nodes.reduce((a, b) => a + b, 0) - r.cpu.leader - r.cpu.redis - r.cpu.client, r.cpu.wall)}`,
    ],
  );
  return rows;
}

async function main(): Promise<void> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const logger = createLogger({ level: 'warn' });
  const cores = availableParallelism();
  // The verifier workers of all stratum nodes together get as many threads as there are cores.
  const workersOne = cores;
  const workersTwo = Math.max(1, Math.floor(cores / 2));
  say(`load average at start: ${loads()} (${cores} cores)`);
  say(
    `verifier workers: one node ${workersOne}; two nodes ${workersTwo} each (the nodes share the ${cores} cores)`,
  );

  let backends: BenchBackends | undefined;
  let leader: PoolProcess | undefined;
  let redis: Redis | undefined;
  let verifier: ShareVerifierPool | undefined;
  try {
    backends = await startBenchBackends();
    const config = benchPoolConfig(backends, {
      shareDifficulty: 1,
      stratum: { limits: { maxConnectionsPerIp: 20_000, maxConnections: 100_000 } },
    });
    leader = await startLeaderProcess(config);
    say(`leader pid ${leader.pid} (--role leader); Redis ${backends.redis.url}`);
    redis = await createRedisClient({ url: backends.redis.url }, logger);
    verifier = new ShareVerifierPool(
      { workers: cores, implementation: 'native', maxQueuedJobs: 4096 },
      { logger },
    );
    await verifier.start();
    const ctx: Context = {
      backends,
      config,
      leader,
      redis,
      sharesKey: createShareKeys('bench').shares,
      verifier,
      say,
    };

    say('');
    say('== one stratum node ==');
    const one = await runSetup(ctx, 1, workersOne);
    say('');
    say('== two stratum nodes ==');
    const two = await runSetup(ctx, 2, workersTwo);

    const rows: TableRow[] = [...setupRows('1 node', one), ...setupRows('2 nodes', two)];
    const oneRate = rateOf(one.window[0]!.phase);
    const twoRates = two.window.map((w) => rateOf(w.phase));
    const twoTotal = twoRates.reduce((a, b) => a + b, 0);
    rows.push([
      '2 nodes / 1 node, shares/s',
      (twoTotal / oneRate).toFixed(3),
      `same ${cores} cores, same total verifier workers`,
    ]);
    const lost = lostOf(one) + lostOf(two);
    const pushOf = (r: SetupResult) => {
      const sorted = r.pushes.flatMap((p) => p.fromTipMs).sort((a, b) => a - b);
      return {
        p50: round(percentile(sorted, 50)),
        p99: round(percentile(sorted, 99)),
        p99PerPush: r.pushes.map((p) => round(percentile(p.fromTipMs, 99))),
        warmupP99: round(percentile(r.warmupPush.fromTipMs, 99)),
      };
    };
    const latencyOf = (r: SetupResult) => {
      const sorted = latencies(r);
      return { p50: round(percentile(sorted, 50), 2), p99: round(percentile(sorted, 99), 2) };
    };
    printReport(
      say,
      rows,
      [`leader pid ${leader.pid}, Redis and the devnet were shared by both setups; RSS is VmRSS`],
      {
        oneNode: {
          connections: one.connections,
          rssMb: round(mb(one.rssKb[0]!)),
          sharesPerSec: round(oneRate),
          latencyMs: latencyOf(one),
          pushMs: pushOf(one),
          workers: workersOne,
        },
        twoNodes: {
          connections: two.connections,
          rssMbPerNode: two.rssKb.map((kb) => round(mb(kb))),
          sharesPerSecPerNode: twoRates.map((r) => round(r)),
          sharesPerSecTotal: round(twoTotal),
          latencyMs: latencyOf(two),
          pushMs: pushOf(two),
          workersPerNode: workersTwo,
        },
        lost,
      },
    );
  } finally {
    if (verifier) await verifier.close().catch(() => undefined);
    redis?.disconnect();
    if (leader) await stopProcesses([leader]);
    await backends?.stop();
  }
}

await main();
