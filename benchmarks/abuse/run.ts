/**
 * Abuse benchmark: do honest miners keep their service while an attacker runs at full speed?
 *
 *   npm run bench:abuse
 *
 * The pool runs as an operator runs it (`node dist/cli.js start`, devnet and a private Redis
 * beside it, all on 127.0.0.1), with its default limits. Two load processes share the machine
 * with it: 1,000 honest miners (honest-miners.ts: each from its own loopback address, keepalived
 * every 5 s, a valid share every 10 s) and one attacker (attacker.ts). The attacker runs each
 * attack in turn at full speed from a fresh loopback address; a baseline without attack is
 * measured before the first attack and after every attack (a pause before each phase lets the
 * last one's connections close). Printed per phase: honest keepalived round trip p50/p99 and share
 * acknowledgement p99, honest failures, what the attacker sent and what the pool served it before
 * the first limit, the pool's RSS (largest seen in the phase) and CPU, its main thread's GC
 * pauses (node's --trace-gc: the largest, the total and how many; the event loop stands still in
 * each) and its event-loop delay (from its /metrics), which tells a stall of the pool apart from
 * one of the load processes on the same cores. Target: honest p99 under
 * attack at most 2x the baseline, RSS bounded. The baseline an attack is held to is the median of
 * all the baselines: a p99 of a few milliseconds on two shared cores moves by 2x between quiet
 * phases on its own (first runs with one baseline measured 2.9 and 7.0 ms for it, and 2.7x between
 * the first and the last), and the median of six is steadier than any one. The last line is JSON.
 *
 * The attacker runs at the lowest CPU priority (nice 19): it stands in for another host, and its
 * own CPU use (printed) must not be what slows the honest miners on two shared cores.
 * Not run here: the IPv6 aggregate attack (it needs many /64 source addresses; this machine's
 * rules allow 127.0.0.0/8 and ::1 only, so the aggregate caps and bans are covered by tests) and
 * the control-socket attack (a local file-system matter, covered by tests).
 * FUEGO_BENCH_ABUSE_SECONDS sets the length of each phase (default 20), FUEGO_BENCH_STRATUM_PROCESSES
 * the pool's `stratum.processes` (default 1: every role on one event loop), FUEGO_BENCH_ABUSE_ATTACKS a
 * comma-separated subset of the attacks (default all), FUEGO_BENCH_FLOOD_DROP=0 turns the kernel
 * drops of flooding peers off (`floodDrop.refusals: 0`) for a run to pair with one with them, and
 * FUEGO_BENCH_CHILD_SEMI_SPACE_MB sets the stratum children's young generation.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism, loadavg, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startBenchStack } from '../stratum/bench-stack.js';
import { childSemiSpaceOverride } from '../stratum/connections-scale.js';
import { round } from '../stratum/measure-process.js';
import { poolCpuSeconds, poolMemory } from '../stratum/pool-tree-usage.js';
import { type GcPauseSummary, GcPauses } from './gc-pauses.js';
import {
  ATTACKS,
  type AttackerEvent,
  type AttackName,
  type AttackResult,
  type HonestCommand,
  type HonestEvent,
  type HonestPhaseStats,
  type Target,
} from './messages.js';

const HONEST_MINERS = 1_000;
const PHASE_MS = Number(process.env['FUEGO_BENCH_ABUSE_SECONDS'] ?? 20) * 1000;
/** Between attacks: connections close, queues drain, so one attack's tail is not the next one's. */
const PAUSE_MS = 5_000;
const TARGET_P99_RATIO = 2;
const STRATUM_PROCESSES = stratumProcessesSetting(process.env['FUEGO_BENCH_STRATUM_PROCESSES']);
const SELECTED_ATTACKS = attacksSetting(process.env['FUEGO_BENCH_ABUSE_ATTACKS']);
const FLOOD_DROP = process.env['FUEGO_BENCH_FLOOD_DROP'] !== '0';
/** Before the baseline: one share period of every honest miner, and then some. */
const WARM_UP_MS = 15_000;

/** A comma-separated subset of ATTACKS (to look at one attack, e.g. under a profiler); all by default. */
function attacksSetting(setting: string | undefined): readonly AttackName[] {
  if (setting === undefined || setting === '') return ATTACKS;
  const names = setting.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(ATTACKS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `FUEGO_BENCH_ABUSE_ATTACKS: unknown ${unknown.join(', ')} (known: ${ATTACKS.join(', ')})`,
    );
  return names as AttackName[];
}

function stratumProcessesSetting(setting: string | undefined): number | 'auto' {
  if (setting === undefined) return 1;
  if (setting === 'auto') return setting;
  const count = Number(setting);
  if (!Number.isInteger(count) || count < 1)
    throw new Error('FUEGO_BENCH_STRATUM_PROCESSES must be "auto" or >= 1');
  return count;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function forkLoad(file: string): ChildProcess {
  return fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string }) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as T);
    };
    const onExit = (code: number | null) =>
      reject(new Error(`load process exited (${code}) before "${type}"`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

interface PoolUse {
  /** How long the phase lasted: an attack's lasts until its attacker reports, so an overrun shows. */
  readonly seconds: number;
  /** Largest RSS of the pool's processes, sampled every 500 ms. */
  readonly poolRssMb: number;
  /** CPU time of the pool's processes over the phase, as a share of one core. */
  readonly poolCpuPercent: number;
  /** The pool main thread's GC pauses in the phase (its event loop stood still). */
  readonly gc: GcPauseSummary;
  /** The pool's event-loop delay over the phase (its /metrics, reset at the phase's start), ms. */
  readonly loopDelayMaxMs: number;
  readonly loopDelayP99Ms: number;
}

/** prom-client's event-loop timer (its eventLoopMonitoringPrecision default). */
const LOOP_DELAY_RESOLUTION_MS = 10;

/**
 * The pool's event-loop delay since the previous call, from its /metrics (prom-client's default
 * metrics reset their event-loop histogram at each scrape; 10 ms resolution). It tells a stall of
 * the pool apart from one of the load processes, which share the cores.
 */
async function scrapeLoopDelay(apiPort: number): Promise<{ maxMs: number; p99Ms: number }> {
  const response = await fetch(`http://127.0.0.1:${apiPort}/metrics`);
  const text = await response.text();
  const seconds = (name: string) =>
    Number(new RegExp(`^${name} ([\\d.e+-]+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  // The histogram records each 10 ms timer's whole interval: the delay is what exceeds it.
  const delayMs = (name: string) => round(Math.max(0, seconds(name) * 1000 - LOOP_DELAY_RESOLUTION_MS), 1);
  return {
    maxMs: delayMs('fuego_pool_nodejs_eventloop_lag_max_seconds'),
    p99Ms: delayMs('fuego_pool_nodejs_eventloop_lag_p99_seconds'),
  };
}

/** What the pool's processes used while `during` runs. */
async function poolUse(
  pool: { readonly pid: number; readonly apiPort: number },
  gc: GcPauses,
  during: Promise<unknown>,
): Promise<PoolUse> {
  const poolPid = pool.pid;
  await scrapeLoopDelay(pool.apiPort);
  const startedAtMs = Date.now();
  const started = performance.now();
  const cpuBefore = poolCpuSeconds(poolPid);
  let peak = 0;
  let done = false;
  void during.finally(() => {
    done = true;
  });
  while (!done) {
    peak = Math.max(peak, poolMemory(poolPid).rssBytes / 2 ** 20);
    await Promise.race([sleep(500), during]);
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  const cpuPercent = ((poolCpuSeconds(poolPid) - cpuBefore) / elapsedSeconds) * 100;
  const loopDelay = await scrapeLoopDelay(pool.apiPort);
  // The last pause's trace line is read a moment after it ends.
  await sleep(50);
  return {
    seconds: round(elapsedSeconds, 1),
    poolRssMb: round(peak, 0),
    poolCpuPercent: round(cpuPercent, 0),
    gc: gc.between(startedAtMs, Date.now()),
    loopDelayMaxMs: loopDelay.maxMs,
    loopDelayP99Ms: loopDelay.p99Ms,
  };
}

async function apiPortOf(logs: readonly { msg: string; [field: string]: unknown }[]): Promise<number> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const line = logs.find((l) => l.msg === 'API listening');
    const port = line && /:(\d+)/.exec(JSON.stringify(line['address']))?.[1];
    if (port) return Number(port);
    await sleep(100);
  }
  throw new Error('the pool did not log "API listening"');
}

interface PhaseRow extends PoolUse {
  readonly honest: HonestPhaseStats;
  readonly attack: AttackResult | undefined;
}

/** What attacks are held to: the median p99s of the phases without attack. */
interface Baseline {
  readonly keepaliveP99Ms: number;
  readonly shareP99Ms: number;
}

function medianBaseline(rows: readonly PhaseRow[]): Baseline {
  const quiet = rows.filter((r) => r.attack === undefined).map((r) => r.honest);
  const median = (values: number[]) => {
    const sorted = values.sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid]! : round((sorted[mid - 1]! + sorted[mid]!) / 2, 2);
  };
  return {
    keepaliveP99Ms: median(quiet.map((h) => h.keepaliveP99Ms)),
    shareP99Ms: median(quiet.map((h) => h.shareP99Ms)),
  };
}

function printRows(rows: readonly PhaseRow[], base: Baseline): void {
  const ratio = (value: number, of: number) => (of > 0 ? `${round(value / of, 2)}x` : '-');
  console.log(
    '\nphase               length  keepalived p50/p99 ms (x base)   share ack p99 ms (x base)  honest fails  attacker sent / served / before limit, first limit      pool RSS  pool CPU  GC pauses: largest / total ms (n)  event-loop delay max / p99 ms',
  );
  for (const {
    honest,
    attack,
    seconds,
    poolRssMb,
    poolCpuPercent,
    gc,
    loopDelayMaxMs,
    loopDelayP99Ms,
  } of rows) {
    const attackText = attack
      ? `${attack.sent} / ${attack.served} / ${attack.servedBeforeLimit}, ${attack.firstLimit}; ${round(attack.attackerCpuMs / 1000, 1)} s CPU`
      : '-';
    console.log(
      [
        honest.phase.padEnd(19),
        `${seconds} s`.padEnd(7),
        `${honest.keepaliveP50Ms} / ${honest.keepaliveP99Ms} (${ratio(honest.keepaliveP99Ms, base.keepaliveP99Ms)})`.padEnd(
          33,
        ),
        `${honest.shareP99Ms} (${ratio(honest.shareP99Ms, base.shareP99Ms)})`.padEnd(26),
        String(honest.failures).padEnd(13),
        attackText.padEnd(70),
        `${poolRssMb} MB`.padEnd(9),
        `${poolCpuPercent}%`.padEnd(9),
        `${gc.maxMs} / ${gc.totalMs} (${gc.count})`.padEnd(32),
        `${loopDelayMaxMs} / ${loopDelayP99Ms}`,
      ].join(' '),
    );
  }
}

async function main(): Promise<void> {
  console.log(
    `abuse benchmark: ${HONEST_MINERS} honest miners, ${PHASE_MS / 1000} s per phase, stratum.processes ${STRATUM_PROCESSES}, kernel flood drops ${FLOOD_DROP ? 'on' : 'off'}, ${availableParallelism()} cores, load ${loadavg()[0]?.toFixed(2)}`,
  );
  const gc = new GcPauses();
  const stack = await startBenchStack({
    shareDifficulty: 1,
    stratum: { processes: STRATUM_PROCESSES, ...childSemiSpaceOverride() },
    ...(FLOOD_DROP ? {} : { floodDrop: { refusals: 0 } }),
    pool: { nodeArgs: ['--trace-gc'], onRawLine: (line) => gc.record(line) },
  });
  const honest = forkLoad('./honest-miners.js');
  const attacker = forkLoad('./attacker.js');
  // The attacker stands in for another host: full speed, but at the lowest CPU priority, so that
  // on the two cores it shares with the pool the honest figures measure the pool, not the load.
  if (attacker.pid !== undefined) setPriority(attacker.pid, 19);
  const tell = (command: HonestCommand) => honest.send(command);
  try {
    const target: Target = {
      stratumPort: stack.pool.stratumPort,
      apiPort: await apiPortOf(stack.pool.logs),
      address: stack.minerAddress,
    };
    const pool = { pid: stack.pool.pid, apiPort: target.apiPort };
    const ready = nextMessage<{ miners: number }>(honest, 'ready');
    tell({ type: 'start', target, miners: HONEST_MINERS });
    console.log(`honest miners logged in: ${(await ready).miners}`);
    // Every miner's first share and keepalive (first writes of its worker, JIT) fall in here.
    await sleep(WARM_UP_MS);

    const rows: ({ name: string; attack: AttackResult | undefined } & PoolUse)[] = [];
    const measureBaseline = async (index: number) => {
      const name = `baseline-${index}`;
      tell({ type: 'phase', name });
      rows.push({ name, attack: undefined, ...(await poolUse(pool, gc, sleep(PHASE_MS))) });
    };
    await measureBaseline(0);
    for (const [i, attack] of SELECTED_ATTACKS.entries()) {
      // An attack selected again gets a phase of its own.
      const name = SELECTED_ATTACKS.indexOf(attack) === i ? attack : `${attack}-${i}`;
      tell({ type: 'phase', name: `pause-before-${name}` });
      await sleep(PAUSE_MS);
      tell({ type: 'phase', name });
      console.log(`attack: ${name}`);
      const result = nextMessage<AttackerEvent>(attacker, 'result');
      attacker.send({
        type: 'attack',
        name: attack,
        target,
        durationMs: PHASE_MS,
        source: `127.2.0.${i + 1}`,
      });
      const use = await poolUse(pool, gc, result);
      rows.push({ name, attack: (await result).result, ...use });
      tell({ type: 'phase', name: `pause-after-${name}` });
      await sleep(PAUSE_MS);
      await measureBaseline(i + 1);
    }
    tell({ type: 'phase', name: 'done' });
    const report = nextMessage<Extract<HonestEvent, { type: 'report' }>>(honest, 'report');
    tell({ type: 'report' });
    const phases = new Map((await report).phases.map((p) => [p.phase, p]));
    const table: PhaseRow[] = rows.map((row) => ({ ...row, honest: phases.get(row.name)! }));
    const base = medianBaseline(table);
    printRows(table, base);
    const worst = Math.max(
      ...table
        .filter((r) => r.attack !== undefined)
        .map((r) =>
          Math.max(r.honest.keepaliveP99Ms / base.keepaliveP99Ms, r.honest.shareP99Ms / base.shareP99Ms),
        ),
    );
    console.log(
      `\nbaseline (median of ${table.length - SELECTED_ATTACKS.length} phases without attack): keepalived p99 ${base.keepaliveP99Ms} ms, share ack p99 ${base.shareP99Ms} ms`,
    );
    console.log(
      `worst honest p99 under attack: ${round(worst, 2)}x the baseline (target at most ${TARGET_P99_RATIO}x): ${worst <= TARGET_P99_RATIO ? 'met' : 'NOT met'}`,
    );
    console.log(
      JSON.stringify({
        honestMiners: HONEST_MINERS,
        phaseSeconds: PHASE_MS / 1000,
        worstP99Ratio: round(worst, 2),
        baselineKeepaliveP99Ms: base.keepaliveP99Ms,
        baselineShareP99Ms: base.shareP99Ms,
        phases: table.map((r) => ({
          ...r.honest,
          attack: r.attack,
          seconds: r.seconds,
          poolRssMb: r.poolRssMb,
          poolCpuPercent: r.poolCpuPercent,
          gcPauseMaxMs: r.gc.maxMs,
          gcPauseTotalMs: r.gc.totalMs,
          gcPauses: r.gc.count,
          loopDelayMaxMs: r.loopDelayMaxMs,
          loopDelayP99Ms: r.loopDelayP99Ms,
        })),
      }),
    );
  } finally {
    tell({ type: 'stop' });
    attacker.send({ type: 'stop' });
    await sleep(500);
    honest.kill();
    attacker.kill();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
