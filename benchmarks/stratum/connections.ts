/**
 * Connections benchmark: N idle, logged-in miners on one pool process (`node dist/cli.js start`):
 * the pool's RSS per connection, and how long a new job takes to reach every miner after the
 * daemon's tip changes. Targets: 20,000 idle miners under 400 MB RSS; a new job to 10,000 miners
 * with p99 < 250 ms after the tip changed.
 *
 *   npm run bench:connections
 *
 * The devnet runs in this process: T0 is the instant `devnet.control.mineBlocks(1)` returned, and
 * each miner's latency is the arrival of its next `job` line minus T0. The pool notices the new tip
 * within templates.tipCheckIntervalMs (its `/getheight` check) or pollIntervalMs, which is part of
 * that latency. One warm-up push runs first and is shown but not counted. Each push is split
 * into phases from the pool's log lines (pino time, whole ms): tip -> the leader's "new block
 * template" (tip check + getblocktemplate), -> the stratum side's "new block template from the
 * leader" (the Redis hop), -> arrivals (broadcast and delivery). The pool's main-thread CPU per
 * push is reported per miner. The client stamps a line when its chunk is read, before parsing,
 * but it shares the machine's 2 cores with the pool.
 * FUEGO_BENCH_PUSH_ROUNDS sets the number of pushes to 10,000 miners (default 3).
 * FUEGO_BENCH_STRATUM_PROCESSES=N runs the pool with `stratum.processes: N` (default 1): RSS and
 * main-thread CPU are then the sums over the pool process and its stratum children.
 * The miners log in as XMRig 6 on a vardiff port (held at 5,000), so a push gives them blobs shared
 * by 255 (`stratum.sharedJobs`); FUEGO_BENCH_SHARED_JOBS=0 gives each a blob of its own.
 * Prints a table, then one JSON object as the last line.
 *
 * `npm run bench:connections -- --miners N` runs the benchmark at scale instead (connections-scale.ts):
 * N miners in load-generator processes, the pool with `stratum.processes: "auto"`, figures at
 * 20k, 50k, 100k steps.
 */
import { availableParallelism, loadavg } from 'node:os';
import { openFilesBudget } from '../../src/app/open-files-budget.js';
import { type BenchStack, startBenchStack } from './bench-stack.js';
import { runConnectionsAtScale, sharedJobsOverride } from './connections-scale.js';
import { measureJobArrivals, PUSH_ROUNDS, TARGET_PUSH_P99_MS } from './job-arrivals.js';
import {
  countOpenFds,
  percentile,
  printReport,
  processTree,
  readOpenFilesLimit,
  readProcessCpuSeconds,
  readRssKb,
  readThreadCpu,
  round,
  type TableRow,
} from './measure-process.js';
import { connectMiners, type LoggedInMiner } from './simulated-miners.js';

const PUSH_CONNECTIONS = 10_000;
const TARGET_CONNECTIONS = 20_000;
const BATCH_SIZE = 500;
/** Blocks mined (one at a time) with PUSH_CONNECTIONS miners connected. */
/** How long to wait for the pool's template log lines after the last job arrived. */
const LOG_WAIT_MS = 1_000;
/** Pause before reading RSS and between pushes, so the pool's event loop and GC settle. */
const SETTLE_MS = 2_000;
/** File descriptors left free in each process besides the miners' sockets. */
const FD_HEADROOM = 64;
/** Each source address gives ~28k ephemeral ports towards the pool's one port. */
const LOCAL_ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
const TARGET_RSS_MB = 400;
const STRATUM_PROCESSES = Number(process.env['FUEGO_BENCH_STRATUM_PROCESSES'] ?? 1);
/**
 * The API's connection cap in the benchmark's pool. Its default (4,000) takes that many open files
 * from the miners of a one-process pool (src/app/open-files-budget.ts), and no API client runs here.
 */
const API_MAX_CONNECTIONS = 64;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PushResult {
  readonly height: number;
  /** Arrival minus T0 (the tip change), ms, ascending. */
  readonly fromTipMs: number[];
  /** Arrival minus the stratum side's "new block template from the leader" log time, ms, ascending (empty without it). */
  readonly fromTemplateMs: number[];
  /** The leader's template log time minus T0: noticing the tip plus fetching the template. */
  readonly templateAfterTipMs: number | undefined;
  /** The stratum side's template log minus the leader's: the hop through Redis. */
  readonly relayMs: number | undefined;
  readonly missing: number;
  /** Notifications whose height was above the new one (should be 0). */
  readonly wrongHeight: number;
  /** The previous push's jobs that arrived after this push began (not counted). */
  readonly lateEarlier: number;
  readonly clientCpuSeconds: number;
  /** CPU of the pool's main thread from T0 until the last miner got its job (or the timeout). */
  readonly poolMainCpuSeconds: number;
  /** p99 of fromTipMs per node id (the job id's first two bytes): which stratum process lagged. */
  readonly p99ByNodeMs: ReadonlyMap<number, number>;
}

/** Mines one block and waits for every miner's next job notification. */
async function measurePush(stack: BenchStack, miners: readonly LoggedInMiner[]): Promise<PushResult> {
  const cpuBefore = process.cpuUsage();
  const poolPid = stack.pool.pid;
  const poolMainBefore = mainThreadCpuSeconds(poolPid);
  const push = await measureJobArrivals(miners, () => stack.devnet.control.mineBlocks(1)[0]!.height);
  const cpu = process.cpuUsage(cpuBefore);
  const poolMainCpuSeconds = mainThreadCpuSeconds(poolPid) - poolMainBefore;

  const { height, t0 } = push;
  const findLog = (msg: string) => stack.pool.logs.find((l) => l.msg === msg && l['height'] === height);
  // The pool's log lines can reach us after the jobs (its logger writes asynchronously).
  for (let waitedMs = 0; waitedMs < LOG_WAIT_MS; waitedMs += 10) {
    if (findLog('new block template') && findLog('new block template from the leader')) break;
    await sleep(10);
  }
  const templateLog = findLog('new block template');
  const relayedLog = findLog('new block template from the leader');
  const fromTemplateMs = relayedLog
    ? push.arrivals
        .flatMap((arrival) => (arrival ? [arrival.atMs - relayedLog.time] : []))
        .sort((a, b) => a - b)
    : [];
  const byNode = new Map<number, number[]>();
  for (const arrival of push.arrivals) {
    if (arrival === undefined) continue;
    const jobId = (JSON.parse(arrival.line) as { params: { job_id: string } }).params.job_id;
    const node = Number.parseInt(jobId.slice(0, 4), 16);
    const list = byNode.get(node) ?? [];
    list.push(arrival.atMs - t0);
    byNode.set(node, list);
  }
  const p99ByNodeMs = new Map(
    [...byNode].map(
      ([node, list]) =>
        [
          node,
          percentile(
            list.sort((a, b) => a - b),
            99,
          ),
        ] as const,
    ),
  );
  return {
    height,
    p99ByNodeMs,
    fromTipMs: push.fromTipMs,
    fromTemplateMs,
    templateAfterTipMs: templateLog ? templateLog.time - t0 : undefined,
    relayMs: templateLog && relayedLog ? relayedLog.time - templateLog.time : undefined,
    missing: push.missing,
    wrongHeight: push.wrongHeight,
    lateEarlier: push.lateEarlier,
    clientCpuSeconds: (cpu.user + cpu.system) / 1e6,
    poolMainCpuSeconds,
  };
}

/** Main-thread CPU of the pool process and of its stratum children, if any. */
function mainThreadCpuSeconds(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    total += readThreadCpu(member).find((t) => t.tid === member)?.cpuSeconds ?? 0;
  }
  return total;
}

/** RSS of the pool process and of its stratum children, if any. */
function poolRssKb(pid: number): number {
  return processTree(pid).reduce((sum, member) => sum + readRssKb(member), 0);
}

function summary(sorted: readonly number[]): { p50: number; p99: number; max: number } {
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

function pushRow(label: string, push: PushResult, count: number): TableRow {
  const s = summary(push.fromTipMs);
  const t = summary(push.fromTemplateMs);
  const ms = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(0));
  const byNode =
    push.p99ByNodeMs.size > 1
      ? `; p99 by stratum process: ${[...push.p99ByNodeMs]
          .sort(([a], [b]) => a - b)
          .map(([node, p99]) => `node ${node} ${round(p99)}`)
          .join(', ')}`
      : '';
  return [
    label,
    `${s.p50} / ${s.p99} / ${s.max}`,
    `height ${push.height}${byNode}, ${count - push.missing}/${count} got it; template ${ms(push.templateAfterTipMs)} ms after the tip, relayed in ${ms(push.relayMs)} ms; from there p50 ${t.p50} p99 ${t.p99} max ${t.max}; CPU meanwhile: pool main thread ${push.poolMainCpuSeconds.toFixed(2)} s (${((push.poolMainCpuSeconds * 1e6) / count).toFixed(1)} µs per miner), client ${push.clientCpuSeconds.toFixed(2)} s`,
  ];
}

async function main(): Promise<void> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const rows: TableRow[] = [];
  const notes: string[] = [];
  say(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (${availableParallelism()} cores)`,
  );

  let stack: BenchStack | undefined;
  const miners: LoggedInMiner[] = [];
  try {
    stack = await startBenchStack({
      shareDifficulty: 5_000,
      vardiffPort: true,
      stratum: {
        limits: { maxConnectionsPerIp: TARGET_CONNECTIONS, maxConnections: 100_000 },
        processes: STRATUM_PROCESSES,
        ...sharedJobsOverride(),
      },
      api: { maxConnections: API_MAX_CONNECTIONS },
    });
    if (STRATUM_PROCESSES > 1) {
      say(`stratum.processes ${STRATUM_PROCESSES}: pids ${processTree(stack.pool.pid).join(', ')}`);
    }
    const { pool } = stack;
    await sleep(SETTLE_MS);
    const baseRssKb = poolRssKb(pool.pid);
    const poolFdLimit = readOpenFilesLimit(pool.pid);
    const selfFdLimit = readOpenFilesLimit(process.pid);
    const poolBaseFds = countOpenFds(pool.pid);
    // What the pool holds by its own open-files budget (each child has the same limit, no API).
    const poolHolds =
      openFilesBudget(poolFdLimit, STRATUM_PROCESSES > 1 ? null : API_MAX_CONNECTIONS).stratum *
      STRATUM_PROCESSES;
    const maxConnections = Math.min(
      TARGET_CONNECTIONS,
      poolHolds,
      poolFdLimit - poolBaseFds - FD_HEADROOM,
      selfFdLimit - countOpenFds(process.pid) - FD_HEADROOM,
    );
    say(
      `pool pid ${pool.pid}, port ${pool.stratumPort}; RSS ${(baseRssKb / 1024).toFixed(1)} MB idle; open files limit pool ${poolFdLimit}, benchmark ${selfFdLimit}`,
    );
    if (maxConnections < TARGET_CONNECTIONS) {
      notes.push(
        `open-files limit ${Math.min(poolFdLimit, selfFdLimit)} (hard limit; raising it was refused) caps the run at ${maxConnections} connections, not ${TARGET_CONNECTIONS}; the 20k RSS is extrapolated from the per-connection cost`,
      );
    }

    const address = stack.minerAddress;
    const connect = async (to: number) => {
      const started = performance.now();
      const from = miners.length;
      const added = await connectMiners(from, to, {
        port: pool.stratumPort,
        login: (i) => `${address}.w${i}`,
        batchSize: BATCH_SIZE,
        localAddresses: LOCAL_ADDRESSES,
      });
      miners.push(...added);
      const seconds = (performance.now() - started) / 1000;
      say(`${miners.length} miners logged in (${(added.length / seconds).toFixed(0)} logins/s)`);
      return seconds;
    };

    const firstSeconds = await connect(Math.min(PUSH_CONNECTIONS, maxConnections));
    await sleep(SETTLE_MS);
    const rssAtPushKb = poolRssKb(pool.pid);
    const atPush = miners.length;
    rows.push(
      ['pool RSS idle (MB)', (baseRssKb / 1024).toFixed(1), 'before any connection'],
      [
        `pool RSS at ${atPush} miners (MB)`,
        (rssAtPushKb / 1024).toFixed(1),
        `${((rssAtPushKb - baseRssKb) / atPush).toFixed(2)} kB per connection; logged in in ${firstSeconds.toFixed(1)} s`,
      ],
    );

    // The first broadcast runs cold (not yet optimised by the JIT): reported, not counted.
    const warmup = await measurePush(stack, miners);
    rows.push(pushRow(`push to ${atPush}, warm-up, not counted (ms)`, warmup, atPush));
    await sleep(SETTLE_MS);
    const pushes: PushResult[] = [];
    for (let r = 0; r < PUSH_ROUNDS; r++) {
      const push = await measurePush(stack, miners);
      pushes.push(push);
      rows.push(pushRow(`push to ${atPush}, #${r + 1}: p50/p99/max (ms)`, push, atPush));
      await sleep(SETTLE_MS);
    }
    const allFromTip = pushes.flatMap((p) => p.fromTipMs).sort((a, b) => a - b);
    const allFromTemplate = pushes.flatMap((p) => p.fromTemplateMs).sort((a, b) => a - b);
    const pushLatency = summary(allFromTip);
    const fromTemplate = summary(allFromTemplate);
    const missing = pushes.reduce((s, p) => s + p.missing, 0);
    const wrongHeight = pushes.reduce((s, p) => s + p.wrongHeight, 0);
    const lateEarlier = pushes.reduce((s, p) => s + p.lateEarlier, 0);
    rows.push(
      [
        `push to ${atPush}, all ${PUSH_ROUNDS}: p50/p99/max (ms)`,
        `${pushLatency.p50} / ${pushLatency.p99} / ${pushLatency.max}`,
        `from the tip change (includes noticing it); target p99 < ${TARGET_PUSH_P99_MS}: ${pushLatency.p99 < TARGET_PUSH_P99_MS ? 'met' : 'NOT met'}; missing ${missing}, wrong height ${wrongHeight}, previous push's jobs arriving late (not counted) ${lateEarlier}`,
      ],
      [
        `  same, from the stratum side's template log (ms)`,
        `${fromTemplate.p50} / ${fromTemplate.p99} / ${fromTemplate.max}`,
        'broadcast + socket delivery only',
      ],
      [
        `  pool main-thread CPU per push (µs per miner)`,
        pushes.map((p) => ((p.poolMainCpuSeconds * 1e6) / atPush).toFixed(1)).join(' / '),
        `from the tip change until the last miner got its job`,
      ],
    );
    const rssAfterPushKb = poolRssKb(pool.pid);
    rows.push([`pool RSS after the pushes (MB)`, (rssAfterPushKb / 1024).toFixed(1), `${atPush} miners`]);

    const secondSeconds = await connect(maxConnections);
    await sleep(SETTLE_MS);
    const rssMaxKb = poolRssKb(pool.pid);
    const perConnectionKb = (rssMaxKb - baseRssKb) / miners.length;
    const projected20kMb = (baseRssKb + perConnectionKb * TARGET_CONNECTIONS) / 1024;
    rows.push(
      [
        `pool RSS at ${miners.length} miners (MB)`,
        (rssMaxKb / 1024).toFixed(1),
        `${perConnectionKb.toFixed(2)} kB per connection; +${miners.length - atPush} logged in in ${secondSeconds.toFixed(1)} s; pool open files ${countOpenFds(pool.pid)}`,
      ],
      [
        `pool RSS projected at ${TARGET_CONNECTIONS} (MB)`,
        projected20kMb.toFixed(1),
        STRATUM_PROCESSES > 1
          ? `the pool and its ${STRATUM_PROCESSES} stratum processes together; the < ${TARGET_RSS_MB} MB target is for one process (FUEGO_BENCH_STRATUM_PROCESSES=1)`
          : `target < ${TARGET_RSS_MB} MB: ${projected20kMb < TARGET_RSS_MB ? 'met' : 'NOT met'}`,
      ],
    );
    const pushAtMax = await measurePush(stack, miners);
    rows.push(pushRow(`push to ${miners.length}: p50/p99/max (ms)`, pushAtMax, miners.length));
    rows.push([
      'benchmark client RSS (MB)',
      (process.memoryUsage().rss / 1048576).toFixed(1),
      `pool CPU total ${readProcessCpuSeconds(pool.pid).toFixed(1)} s`,
    ]);
    printReport(say, rows, notes, {
      connections: miners.length,
      rssMb: round(rssMaxKb / 1024),
      rssPerConnectionKb: round(perConnectionKb, 2),
      pushLatencyMs: pushLatency,
      pushConnections: atPush,
      pushFromTemplateLogMs: fromTemplate,
      rssProjected20kMb: round(projected20kMb),
      poolMainCpuUsPerMinerPerPush: pushes.map((p) => round((p.poolMainCpuSeconds * 1e6) / atPush, 1)),
    });
  } finally {
    for (const miner of miners) miner.client.destroy();
    // Let the pool see the closes before it is told to stop (its shutdown would wait on them).
    if (miners.length > 0) await sleep(1_000);
    await stack?.stop();
  }
}

/** `--miners N` or `--miners=N`; undefined without it. */
function minersOption(args: readonly string[]): number | undefined {
  const at = args.findIndex((a) => a === '--miners' || a.startsWith('--miners='));
  if (at === -1) return undefined;
  const arg = args[at]!;
  const text = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[at + 1];
  const miners = Number(text);
  if (!Number.isInteger(miners) || miners < 1)
    throw new Error(`--miners wants a positive whole number, not ${text}`);
  return miners;
}

const scaleMiners = minersOption(process.argv.slice(2));
await (scaleMiners === undefined ? main() : runConnectionsAtScale(scaleMiners));
