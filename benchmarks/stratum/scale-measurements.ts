import type { BenchStack } from './bench-stack.js';
import type { LoadGenerators } from './load-generators.js';
import { percentile, round } from './measure-process.js';
import { poolCpu, poolCpuSeconds } from './pool-tree-usage.js';
import { nowMs } from './stratum-client.js';

/** The two measurements of the connections benchmark at scale: a job push to every miner, a share burst. */

/** Miners that send the share bursts (the first ones logged in), and shares each. */
export const SHARE_MINERS = 1_000;
const SHARES_PER_MINER = 3;
const PUSH_TIMEOUT_MS = 30_000;

export interface Distribution {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface PushResult {
  /** Arrival minus T0, ms, ascending. */
  readonly fromTipMs: number[];
  readonly missing: number;
  readonly wrongHeight: number;
  /** A previous push's jobs that arrived after this one was armed (not counted as arrivals). */
  readonly lateEarlier: number;
  readonly poolCpuSeconds: number;
  /** The part of poolCpuSeconds spent in the kernel (on loopback it includes delivering to the miner's socket). */
  readonly poolSystemSeconds: number;
  readonly generatorCpuSeconds: number;
  /** The load generators' voluntary context switches (wake-ups) in the push, all threads. */
  readonly generatorWakeUps: number;
  /** The leader's "new block template" log minus T0 (noticing the tip and fetching the template). */
  readonly templateAfterTipMs: number | undefined;
  /**
   * When the CPU above was counted, on CLOCK_MONOTONIC in seconds: the clock `perf record -k
   * CLOCK_MONOTONIC` stamps its samples with, so a profile can be cut to the pushes exactly
   * (push-profile.ts --windows).
   */
  readonly monotonicSec: { readonly from: number; readonly to: number };
}

export interface BurstResult {
  readonly shares: number;
  readonly accepted: number;
  readonly refused: Readonly<Record<string, number>>;
  readonly sharesPerSec: number;
  readonly poolCpuUsPerShare: number;
}

export function distribution(sorted: readonly number[]): Distribution {
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

/** Mines one block and waits for every miner's next job. */
export async function measurePush(stack: BenchStack, generators: LoadGenerators): Promise<PushResult> {
  // The mined block will be at the chain's height, so its jobs are one above.
  const armed = await generators.all('armed', { type: 'arm', height: stack.devnet.chain.height + 1 });
  const cpuBefore = poolCpu(stack.pool.pid);
  const fromSec = monotonicSec();
  const height = stack.devnet.control.mineBlocks(1)[0]!.height + 1;
  const t0 = nowMs();
  const arrivals = await generators.all('arrivals', { type: 'collect', height, timeoutMs: PUSH_TIMEOUT_MS });
  const cpuAfter = poolCpu(stack.pool.pid);
  const toSec = monotonicSec();
  const systemSeconds = cpuAfter.systemSeconds - cpuBefore.systemSeconds;
  const template = stack.pool.logs.find((l) => l.msg === 'new block template' && l['height'] === height);
  return {
    fromTipMs: arrivals.flatMap((a) => a.atMs.map((at) => at - t0)).sort((a, b) => a - b),
    missing: arrivals.reduce((s, a) => s + a.missing, 0),
    wrongHeight: arrivals.reduce((s, a) => s + a.wrongHeight, 0),
    lateEarlier: arrivals.reduce((s, a) => s + a.lateEarlier, 0),
    poolCpuSeconds: cpuAfter.userSeconds - cpuBefore.userSeconds + systemSeconds,
    poolSystemSeconds: systemSeconds,
    generatorCpuSeconds: arrivals.reduce((s, a, i) => s + a.cpuSeconds - armed[i]!.cpuSeconds, 0),
    generatorWakeUps: arrivals.reduce((s, a, i) => s + a.wakeUps - armed[i]!.wakeUps, 0),
    templateAfterTipMs: template ? template.time - t0 : undefined,
    monotonicSec: { from: fromSec, to: toSec },
  };
}

/** Node's hrtime is libuv's CLOCK_MONOTONIC reading. */
function monotonicSec(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}

/** SHARE_MINERS miners (spread over the generators) send SHARES_PER_MINER valid shares each at once. */
export async function measureBurst(stack: BenchStack, generators: LoadGenerators): Promise<BurstResult> {
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
  const refused = mergeRefused(bursts);
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

/** A pool using less than this share of one core is done with the closes it was handed. */
const QUIET_CPU_FRACTION = 0.3;
const QUIET_WAIT_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Closes every miner but the share miners, waits until the pool has handled the closes (its CPU
 * quiet for a second, or 30 s), and sends `bursts` share bursts: the share rate with 1,000
 * miners connected, measured a minute after the rate at the last step rather than at the first.
 * Returns the bursts and how many miners were left.
 */
export async function measureBurstsAfterDrop(
  stack: BenchStack,
  generators: LoadGenerators,
  bursts: number,
  settleMs: number,
): Promise<{ miners: number; bursts: BurstResult[] }> {
  const keep = Math.ceil(SHARE_MINERS / generators.count);
  const dropped = await generators.all('dropped', { type: 'drop', keep });
  const deadline = performance.now() + QUIET_WAIT_MS;
  for (;;) {
    const before = poolCpuSeconds(stack.pool.pid);
    await sleep(1_000);
    if (poolCpuSeconds(stack.pool.pid) - before < QUIET_CPU_FRACTION || performance.now() > deadline) break;
  }
  return {
    miners: dropped.reduce((s, d) => s + d.miners, 0),
    bursts: await measureBursts(stack, generators, bursts, settleMs),
  };
}

/** `count` share bursts, `settleMs` apart. */
export async function measureBursts(
  stack: BenchStack,
  generators: LoadGenerators,
  count: number,
  settleMs: number,
): Promise<BurstResult[]> {
  const results: BurstResult[] = [];
  for (let b = 0; b < count; b++) {
    results.push(await measureBurst(stack, generators));
    await sleep(settleMs);
  }
  return results;
}

/** The bursts' mean share rate and pool CPU per share, and the figures of each, for a table row's detail. */
export function describeBursts(bursts: readonly BurstResult[]): {
  sharesPerSec: number;
  poolCpuUsPerShare: number;
  detail: string;
} {
  const mean = (pick: (b: BurstResult) => number) =>
    bursts.reduce((s, b) => s + pick(b), 0) / Math.max(1, bursts.length);
  const each = (pick: (b: BurstResult) => number) => bursts.map((b) => pick(b).toFixed(0)).join(' / ');
  return {
    sharesPerSec: mean((b) => b.sharesPerSec),
    poolCpuUsPerShare: mean((b) => b.poolCpuUsPerShare),
    detail: `mean of ${bursts.length} bursts (${each((b) => b.sharesPerSec)}); ${describeRefused(mergeRefused(bursts))}; pool CPU ${each((b) => b.poolCpuUsPerShare)} µs per share`,
  };
}

export function describeRefused(refused: Readonly<Record<string, number>>): string {
  const entries = Object.entries(refused);
  return entries.length === 0
    ? 'none refused'
    : `refused: ${entries.map(([m, n]) => `${n} ${m}`).join(', ')}`;
}

/** Refusals of several bursts added up, by message. */
export function mergeRefused(
  bursts: ReadonlyArray<{ readonly refused: Readonly<Record<string, number>> }>,
): Record<string, number> {
  const refused: Record<string, number> = {};
  for (const b of bursts)
    for (const [message, n] of Object.entries(b.refused)) refused[message] = (refused[message] ?? 0) + n;
  return refused;
}
