/**
 * The connections benchmark at scale (`npm run bench:connections -- --miners N`): N idle,
 * logged-in miners held by load generators in their own processes (load-generator.ts), against
 * one pool (`node dist/cli.js start`) with `stratum.processes: "auto"`. At 1,000, 20,000,
 * 50,000, 100,000 miners (the steps below N) and at N it prints:
 * - the RSS of all the pool's processes together, and per miner above the idle pool;
 * - job push to every miner: the devnet mines a block (T0, in this process) and each miner's next
 *   job is stamped when its chunk is read (p50/p99/max over PUSH_ROUNDS pushes after one warm-up);
 * - the CPU time of all the pool's processes (every thread) from T0 until the last miner got its
 *   job, per miner per push, and the load generators' CPU apart;
 * - shares verified per second in a burst of valid difficulty-1 shares from 1,000 of the miners
 *   (hashed beforehand), to compare with the rate when only those 1,000 are connected.
 * The last line is one JSON object (miners, poolRssBytes, pushP99Ms, poolCpuUsPerMinerPush,
 * sharesPerSec, sharesPerSecAt1k and the steps).
 *
 * Open files: each process needs one per miner it holds. The benchmark first runs itself again
 * under `prlimit --nofile=M:M` (open-files-limit.ts) so that it, the pool and the generators
 * inherit M; when the host refuses (no CAP_SYS_RESOURCE), it says what to run and spreads the
 * miners over enough processes to stay under the limit it has: more load generators, and more
 * stratum processes than "auto" if one per core cannot hold them. FUEGO_BENCH_STRATUM_PROCESSES
 * sets the stratum processes instead.
 */
import { availableParallelism, loadavg } from 'node:os';
import { type BenchStack, startBenchStack } from './bench-stack.js';
import { PUSH_ROUNDS } from './job-arrivals.js';
import { LoadGenerators } from './load-generators.js';
import {
  percentile,
  printReport,
  processTree,
  readProcessCpuSplit,
  readRssKb,
  readRssPartsKb,
  round,
  type TableRow,
} from './measure-process.js';
import { howToRaise, readOpenFiles, rerunWithOpenFiles } from './open-files-limit.js';
import { nowMs } from './stratum-client.js';

const STEPS = [1_000, 20_000, 50_000, 100_000];
/** Miners that send the share bursts (the first ones logged in), and shares each. */
const SHARE_MINERS = 1_000;
const SHARES_PER_MINER = 3;
/** Bursts per step, averaged: the neighbours' load moves a single one by 20% or more. */
const BURSTS = 2;
/** Open files a process keeps besides its miners' sockets (Redis, IPC, worker threads, logs). */
const FD_RESERVE = 500;
/** A stratum process gets its connections round-robin: room for an uneven spread. */
const STRATUM_SPREAD_SLACK = 0.9;
/** Source addresses per load generator (127.10.G.1..), a few thousand connections each. */
const SOURCES_PER_GENERATOR = 16;
/** Pause before reading RSS and between pushes, so the pool's event loop and GC settle. */
const SETTLE_MS = 2_000;
const PUSH_TIMEOUT_MS = 30_000;
/** The issue's targets at 100,000 miners. */
const TARGET_RSS_BYTES = 1.5 * 1024 ** 3;
const TARGET_PUSH_P99_MS = 1_000;
const TARGET_CPU_US_PER_MINER_PUSH = 10;
const TARGET_SHARE_RATE_RATIO = 0.9;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Distribution {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

interface PushResult {
  /** Arrival minus T0, ms, ascending. */
  readonly fromTipMs: number[];
  readonly missing: number;
  readonly wrongHeight: number;
  readonly poolCpuSeconds: number;
  /** The part of poolCpuSeconds spent in the kernel (on loopback it includes delivering to the miner's socket). */
  readonly poolSystemSeconds: number;
  readonly generatorCpuSeconds: number;
  /** The leader's "new block template" log minus T0 (noticing the tip and fetching the template). */
  readonly templateAfterTipMs: number | undefined;
}

interface BurstResult {
  readonly shares: number;
  readonly accepted: number;
  readonly refused: Readonly<Record<string, number>>;
  readonly sharesPerSec: number;
  readonly poolCpuUsPerShare: number;
}

interface StepResult {
  readonly miners: number;
  readonly poolRssBytes: number;
  readonly poolRssSharedOnceBytes: number;
  readonly bytesPerMiner: number;
  readonly loginsPerSec: number;
  readonly push: Distribution;
  readonly pushMissing: number;
  readonly poolCpuUsPerMinerPush: number;
  /** The kernel's part of poolCpuUsPerMinerPush. */
  readonly poolSystemUsPerMinerPush: number;
  readonly generatorCpuUsPerMinerPush: number;
  readonly idlePoolCpuPercent: number;
  readonly sharesPerSec: number;
}

interface Plan {
  readonly generators: number;
  readonly stratumProcesses: number | 'auto';
  readonly openFiles: number;
  readonly notes: string[];
}

/** How many processes hold the miners, given the open-files limit this process got. */
function plan(miners: number, wantedOpenFiles: number): Plan {
  const limit = readOpenFiles();
  const perProcess = Math.max(1, Math.min(limit.soft, 1e9) - FD_RESERVE);
  const notes: string[] = [];
  if (limit.soft < wantedOpenFiles) {
    notes.push(
      `open-files limit ${limit.soft} per process (hard ${limit.hard}); raising it to ${wantedOpenFiles} was refused here. To raise it, run ${howToRaise(wantedOpenFiles, miners)}`,
    );
  }
  const generators = Math.max(2, Math.ceil(miners / perProcess));
  const override = process.env['FUEGO_BENCH_STRATUM_PROCESSES'];
  const needed = Math.ceil(miners / (perProcess * STRATUM_SPREAD_SLACK));
  let stratumProcesses: number | 'auto' = 'auto';
  if (override !== undefined) stratumProcesses = override === 'auto' ? 'auto' : Number(override);
  else if (needed > availableParallelism()) {
    stratumProcesses = needed;
    notes.push(
      `stratum.processes ${needed} instead of "auto" (${availableParallelism()} here): ${miners} miners at ${limit.soft} open files per process need ${needed} stratum processes`,
    );
  }
  return { generators, stratumProcesses, openFiles: limit.soft, notes };
}

function distribution(sorted: readonly number[]): Distribution {
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

interface CpuSplit {
  readonly userSeconds: number;
  readonly systemSeconds: number;
}

/** CPU seconds of the pool process and its stratum children, every thread, user and kernel. */
function poolCpu(pid: number): CpuSplit {
  let userSeconds = 0;
  let systemSeconds = 0;
  for (const member of processTree(pid)) {
    const cpu = readProcessCpuSplit(member);
    userSeconds += cpu.userSeconds;
    systemSeconds += cpu.systemSeconds;
  }
  return { userSeconds, systemSeconds };
}

function poolCpuSeconds(pid: number): number {
  const cpu = poolCpu(pid);
  return cpu.userSeconds + cpu.systemSeconds;
}

interface PoolMemory {
  /** VmRSS summed over the pool's processes (as the issue's target counts it). */
  readonly rssBytes: number;
  /**
   * The same with file-backed pages counted once, not once per process: they are mostly the node
   * binary, which every process maps and the kernel holds once.
   */
  readonly rssSharedOnceBytes: number;
}

function poolMemory(pid: number): PoolMemory {
  let rssKb = 0;
  let privateKb = 0;
  let fileKb = 0;
  for (const member of processTree(pid)) {
    rssKb += readRssKb(member);
    const parts = readRssPartsKb(member);
    privateKb += parts.anonKb + parts.shmemKb;
    fileKb = Math.max(fileKb, parts.fileKb);
  }
  return { rssBytes: rssKb * 1024, rssSharedOnceBytes: (privateKb + fileKb) * 1024 };
}

/** Mines one block and waits for every miner's next job. */
async function measurePush(stack: BenchStack, generators: LoadGenerators): Promise<PushResult> {
  const armed = await generators.all('armed', { type: 'arm' });
  const cpuBefore = poolCpu(stack.pool.pid);
  const height = stack.devnet.control.mineBlocks(1)[0]!.height + 1;
  const t0 = nowMs();
  const arrivals = await generators.all('arrivals', { type: 'collect', height, timeoutMs: PUSH_TIMEOUT_MS });
  const cpuAfter = poolCpu(stack.pool.pid);
  const systemSeconds = cpuAfter.systemSeconds - cpuBefore.systemSeconds;
  const template = stack.pool.logs.find((l) => l.msg === 'new block template' && l['height'] === height);
  return {
    fromTipMs: arrivals.flatMap((a) => a.atMs.map((at) => at - t0)).sort((a, b) => a - b),
    missing: arrivals.reduce((s, a) => s + a.missing, 0),
    wrongHeight: arrivals.reduce((s, a) => s + a.wrongHeight, 0),
    poolCpuSeconds: cpuAfter.userSeconds - cpuBefore.userSeconds + systemSeconds,
    poolSystemSeconds: systemSeconds,
    generatorCpuSeconds: arrivals.reduce((s, a, i) => s + a.cpuSeconds - armed[i]!.cpuSeconds, 0),
    templateAfterTipMs: template ? template.time - t0 : undefined,
  };
}

/** SHARE_MINERS miners (spread over the generators) send SHARES_PER_MINER valid shares each at once. */
async function measureBurst(stack: BenchStack, generators: LoadGenerators): Promise<BurstResult> {
  const perGenerator = Math.ceil(SHARE_MINERS / generators.count);
  const prepared = await generators.all('prepared', {
    type: 'prepare-shares',
    miners: perGenerator,
    perMiner: SHARES_PER_MINER,
  });
  const cpuBefore = poolCpuSeconds(stack.pool.pid);
  const bursts = await generators.all('burst', { type: 'burst' });
  const burstCpuSeconds = poolCpuSeconds(stack.pool.pid) - cpuBefore;
  const accepted = bursts.reduce((s, b) => s + b.accepted, 0);
  const refused: Record<string, number> = {};
  for (const b of bursts)
    for (const [message, n] of Object.entries(b.refused)) refused[message] = (refused[message] ?? 0) + n;
  const seconds =
    (Math.max(...bursts.map((b) => b.endMs)) - Math.min(...bursts.map((b) => b.startMs))) / 1000;
  return {
    shares: prepared.reduce((s, p) => s + p.shares, 0),
    accepted,
    refused,
    sharesPerSec: accepted / seconds,
    poolCpuUsPerShare: (burstCpuSeconds * 1e6) / Math.max(1, accepted),
  };
}

function describeRefused(refused: Readonly<Record<string, number>>): string {
  const entries = Object.entries(refused);
  return entries.length === 0
    ? 'none refused'
    : `refused: ${entries.map(([m, n]) => `${n} ${m}`).join(', ')}`;
}

export async function runConnectionsAtScale(miners: number): Promise<void> {
  const wantedOpenFiles = miners + 4 * FD_RESERVE;
  await rerunWithOpenFiles(wantedOpenFiles);
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const loads = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  say(`load average at start: ${loads()} (${availableParallelism()} cores)`);
  const { generators: generatorCount, stratumProcesses, openFiles, notes } = plan(miners, wantedOpenFiles);
  for (const note of notes) say(`note: ${note}`);

  const rows: TableRow[] = [];
  const steps: StepResult[] = [];
  let stack: BenchStack | undefined;
  let generators: LoadGenerators | undefined;
  let stopping: Promise<void> | undefined;
  const cleanUp = () => {
    stopping ??= (async () => {
      await generators?.stop();
      // Let the pool see the closes before it is told to stop (its shutdown would wait on them).
      if (generators) await sleep(1_000);
      await stack?.stop();
    })();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    say(`${signal}: stopping the load generators and the pool`);
    void cleanUp().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let reached = 0;
  try {
    stack = await startBenchStack({
      shareDifficulty: 1,
      stratum: {
        limits: { maxConnectionsPerIp: miners, maxConnections: miners + 1_000 },
        processes: stratumProcesses,
      },
    });
    const { pool } = stack;
    const poolPids = processTree(pool.pid);
    generators = LoadGenerators.start(generatorCount);
    say(
      `pool pid ${pool.pid} with ${poolPids.length - 1} stratum processes (${poolPids.slice(1).join(', ')}), stratum.processes ${JSON.stringify(stratumProcesses)}; ${generatorCount} load generators (${generators.pids.join(', ')}); open files per process ${openFiles}`,
    );
    await sleep(SETTLE_MS);
    const idle = poolMemory(pool.pid);
    const idleRssBytes = idle.rssBytes;
    rows.push([
      'pool RSS idle, all processes (MB)',
      (idleRssBytes / 1048576).toFixed(1),
      `${poolPids.length} processes; ${(idle.rssSharedOnceBytes / 1048576).toFixed(1)} MB with the node binary's pages counted once`,
    ]);

    const address = stack.minerAddress;
    const port = pool.stratumPort;
    const count = generatorCount;
    for (const step of [...STEPS.filter((s) => s < miners), miners]) {
      const started = performance.now();
      const connected = await generators.all('connected', (index) => ({
        type: 'connect',
        port,
        address,
        total: Math.floor((step * (index + 1)) / count) - Math.floor((step * index) / count),
        sources: Array.from({ length: SOURCES_PER_GENERATOR }, (_, k) => `127.10.${index}.${k + 1}`),
      }));
      reached = connected.reduce((s, c) => s + c.miners, 0);
      const loginsPerSec = (reached - (steps.at(-1)?.miners ?? 0)) / ((performance.now() - started) / 1000);
      say(`${reached} miners logged in (${loginsPerSec.toFixed(0)} logins/s); load ${loads()}`);

      const idleCpuBefore = poolCpuSeconds(pool.pid);
      await sleep(SETTLE_MS);
      const idlePoolCpuPercent = ((poolCpuSeconds(pool.pid) - idleCpuBefore) / (SETTLE_MS / 1000)) * 100;
      const memory = poolMemory(pool.pid);
      const rss = memory.rssBytes;
      const bytesPerMiner = (rss - idleRssBytes) / reached;

      // The first push to the new miners is shown but not counted (cold code, first writes).
      const warmup = await measurePush(stack, generators);
      await sleep(SETTLE_MS);
      const pushes: PushResult[] = [];
      for (let r = 0; r < PUSH_ROUNDS; r++) {
        pushes.push(await measurePush(stack, generators));
        await sleep(SETTLE_MS);
      }
      const all = pushes.flatMap((p) => p.fromTipMs).sort((a, b) => a - b);
      const push = distribution(all);
      const pushMissing = pushes.reduce((s, p) => s + p.missing + p.wrongHeight, 0);
      const poolCpuUs = pushes.reduce((s, p) => s + p.poolCpuSeconds, 0) * 1e6;
      const generatorCpuUs = pushes.reduce((s, p) => s + p.generatorCpuSeconds, 0) * 1e6;
      const perMinerPush = (us: number) => us / (reached * pushes.length);
      // The first burst warms the share path (JIT, verifier threads) and is not counted.
      if (steps.length === 0) await measureBurst(stack, generators);
      const bursts: BurstResult[] = [];
      for (let b = 0; b < BURSTS; b++) {
        bursts.push(await measureBurst(stack, generators));
        await sleep(SETTLE_MS);
      }
      const sharesPerSec = bursts.reduce((sum, b) => sum + b.sharesPerSec, 0) / bursts.length;
      const refused: Record<string, number> = {};
      for (const b of bursts)
        for (const [message, n] of Object.entries(b.refused)) refused[message] = (refused[message] ?? 0) + n;

      const result: StepResult = {
        miners: reached,
        poolRssBytes: rss,
        poolRssSharedOnceBytes: memory.rssSharedOnceBytes,
        bytesPerMiner: Math.round(bytesPerMiner),
        loginsPerSec: Math.round(loginsPerSec),
        push,
        pushMissing,
        poolCpuUsPerMinerPush: round(perMinerPush(poolCpuUs), 2),
        poolSystemUsPerMinerPush: round(
          perMinerPush(pushes.reduce((s, p) => s + p.poolSystemSeconds, 0) * 1e6),
          2,
        ),
        generatorCpuUsPerMinerPush: round(perMinerPush(generatorCpuUs), 2),
        idlePoolCpuPercent: round(idlePoolCpuPercent),
        sharesPerSec: round(sharesPerSec),
      };
      steps.push(result);
      const warm = distribution(warmup.fromTipMs);
      const template = pushes.map((p) =>
        p.templateAfterTipMs === undefined ? 'n/a' : p.templateAfterTipMs.toFixed(0),
      );
      rows.push(
        [
          `${reached}: pool RSS, all processes (MB)`,
          (rss / 1048576).toFixed(1),
          `${(memory.rssSharedOnceBytes / 1048576).toFixed(1)} MB with the node binary's pages counted once; ${(bytesPerMiner / 1024).toFixed(2)} kB per miner above idle; ${(rss / reached / 1024).toFixed(2)} kB per miner in all; logins ${loginsPerSec.toFixed(0)}/s; idle pool CPU ${idlePoolCpuPercent.toFixed(1)}%`,
        ],
        [
          `${reached}: job push p50/p99/max (ms)`,
          `${push.p50} / ${push.p99} / ${push.max}`,
          `${pushes.length} pushes (per push p99 ${pushes.map((p) => distribution(p.fromTipMs).p99).join(' / ')}); warm-up not counted ${warm.p50} / ${warm.p99} / ${warm.max}; template ${template.join(' / ')} ms after the tip; missing or wrong height ${pushMissing}`,
        ],
        [
          `${reached}: pool CPU per miner per push (µs)`,
          result.poolCpuUsPerMinerPush.toFixed(2),
          `${result.poolSystemUsPerMinerPush.toFixed(2)} of it in the kernel; all pool processes and threads, T0 to the last arrival (per push ${pushes.map((p) => ((p.poolCpuSeconds * 1e6) / reached).toFixed(1)).join(' / ')}); load generators ${result.generatorCpuUsPerMinerPush.toFixed(2)} µs per miner per push`,
        ],
        [
          `${reached}: shares verified per second`,
          sharesPerSec.toFixed(0),
          `mean of ${bursts.length} bursts (${bursts.map((b) => b.sharesPerSec.toFixed(0)).join(' / ')}) of ${bursts[0]!.shares} shares from ${SHARE_MINERS} miners at difficulty 1: ${bursts.reduce((sum, b) => sum + b.accepted, 0)} accepted, ${describeRefused(refused)}; pool CPU ${bursts.map((b) => b.poolCpuUsPerShare.toFixed(0)).join(' / ')} µs per share`,
        ],
      );
      say(
        `${rows
          .slice(-4)
          .map((r) => `  ${r[0]}: ${r[1]} (${r[2]})`)
          .join('\n')}`,
      );
    }
  } catch (error) {
    notes.push(
      `stopped at ${reached} logged-in miners: ${error instanceof Error ? error.message : String(error)}${stack ? ` | pool output: ${stack.pool.rawOutput.slice(-3).join(' | ')}` : ''}`,
    );
    process.exitCode = 1;
  } finally {
    await cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const last = steps.at(-1);
  const atOneK = steps.find((s) => s.miners === SHARE_MINERS);
  if (last && last.miners >= 100_000) {
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    notes.push(
      `targets at ${last.miners}: RSS <= 1.5 GB ${met(last.poolRssBytes <= TARGET_RSS_BYTES)} (node binary counted once: ${met(last.poolRssSharedOnceBytes <= TARGET_RSS_BYTES)}); push p99 <= ${TARGET_PUSH_P99_MS} ms ${met(last.push.p99 <= TARGET_PUSH_P99_MS)}; pool CPU <= ${TARGET_CPU_US_PER_MINER_PUSH} µs per miner per push ${met(last.poolCpuUsPerMinerPush <= TARGET_CPU_US_PER_MINER_PUSH)}; share rate within 10% of 1,000 miners' ${atOneK ? met(last.sharesPerSec >= TARGET_SHARE_RATE_RATIO * atOneK.sharesPerSec) : 'n/a'}`,
    );
  }
  printReport(say, rows, notes, {
    miners: last?.miners ?? reached,
    poolRssBytes: last?.poolRssBytes ?? null,
    poolRssSharedOnceBytes: last?.poolRssSharedOnceBytes ?? null,
    poolRssBytesPerMiner: last?.bytesPerMiner ?? null,
    pushP50Ms: last?.push.p50 ?? null,
    pushP99Ms: last?.push.p99 ?? null,
    pushMaxMs: last?.push.max ?? null,
    poolCpuUsPerMinerPush: last?.poolCpuUsPerMinerPush ?? null,
    poolSystemUsPerMinerPush: last?.poolSystemUsPerMinerPush ?? null,
    sharesPerSec: last?.sharesPerSec ?? null,
    sharesPerSecAt1k: atOneK?.sharesPerSec ?? null,
    stratumProcesses: stratumProcesses,
    loadGenerators: generatorCount,
    openFilesPerProcess: openFiles,
    steps,
  });
}
