/**
 * Share pipeline benchmark: simulated miners over loopback submit valid shares to the pool, which
 * runs in its own process (`node dist/cli.js start`), and we count what comes back OK end to end
 * (stratum -> verifier workers -> Redis -> OK), against the raw hash rate of a ShareVerifierPool
 * with the same worker count on the same blobs. Then an overload phase offers twice the measured
 * rate and checks that every submit is answered, every answer is OK and Redis holds each share.
 * Targets: pipeline >= 0.9 x raw verifier H/s; 0 shares lost at 2x overload.
 *
 *   npm run bench:pipeline
 *
 * All client hashing happens before the timed phases, in a ShareVerifierPool in this process, so
 * during them the client only writes lines and reads replies. The machine is shared and the
 * neighbours' load drifts, so raw samples and pipeline rounds alternate (R P R P R P R) and each
 * round is compared with the raw samples on either side. CPU seconds per share of each thread
 * (pool main thread, verifier workers, client, Redis) say where the cores went.
 * Prints a table, then one JSON object as the last line.
 *
 * FUEGO_BENCH_POW_WORKERS=N sets the verifier workers (default one per core); with fewer workers
 * than cores, the rest of the pipeline has cores of its own, as on a host sized for it.
 */
import { availableParallelism, loadavg } from 'node:os';
import type { Redis } from 'ioredis';
import { hexToBytes } from '../../src/fuego/hex.js';
import { createLogger } from '../../src/log/logger.js';
import { ShareVerifierPool } from '../../src/pow/verifier-pool.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { type BenchStack, startBenchStack } from './bench-stack.js';
import {
  type CpuSplit,
  cpuDelta,
  percentile,
  printReport,
  readHostCpuTicks,
  readProcessCpuSeconds,
  readRssKb,
  readThreadCpu,
  round,
  splitCpu,
  type TableRow,
} from './measure-process.js';
import {
  hashShares,
  newPhase,
  type PhaseResult,
  type PreparedSubmit,
  prepare,
  rawSample,
  sendBounded,
  sendPaced,
} from './pipeline-phases.js';
import { connectMiners, type LoggedInMiner } from './simulated-miners.js';

const MINERS = 50;
/** Submits a miner keeps unanswered in the timed rounds (the pool reads at most 32 per connection). */
const MAX_IN_FLIGHT = 8;
/** Pre-computation: must yield enough shares for the warm-up, the rounds and the overload. */
const PRECOMPUTE_MS = 25_000;
const WARMUP_PER_MINER = 4;
const ROUNDS = 3;
const RAW_SAMPLE_MS = 4_000;
/**
 * Share of the pre-computed shares the rounds use (equal parts); the rest is for the overload.
 * Counts, not times: the neighbours' load can double or halve the rate between samples.
 */
const ROUNDS_FRACTION = 0.55;
const OVERLOAD_FACTOR = 2;
const OVERLOAD_SECONDS = 4;
const DRAIN_TIMEOUT_MS = 60_000;
const TARGET_RATIO = 0.9;

/** CPU seconds used while something ran: the pool (split), this process (split), Redis, the host. */
interface CpuUse {
  pool: CpuSplit;
  self: CpuSplit;
  redisSeconds: number;
  /** Busy CPU seconds of the whole machine, neighbours included. */
  hostBusySeconds: number;
  wallSeconds: number;
}

const ZERO_SPLIT: CpuSplit = { mainSeconds: 0, workerSeconds: 0, otherSeconds: 0 };

function addSplit(a: CpuSplit, b: CpuSplit): CpuSplit {
  return {
    mainSeconds: a.mainSeconds + b.mainSeconds,
    workerSeconds: a.workerSeconds + b.workerSeconds,
    otherSeconds: a.otherSeconds + b.otherSeconds,
  };
}

function addUse(a: CpuUse, b: CpuUse): CpuUse {
  return {
    pool: addSplit(a.pool, b.pool),
    self: addSplit(a.self, b.self),
    redisSeconds: a.redisSeconds + b.redisSeconds,
    hostBusySeconds: a.hostBusySeconds + b.hostBusySeconds,
    wallSeconds: a.wallSeconds + b.wallSeconds,
  };
}

function emptyUse(): CpuUse {
  return { pool: ZERO_SPLIT, self: ZERO_SPLIT, redisSeconds: 0, hostBusySeconds: 0, wallSeconds: 0 };
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** Runs `work` and measures the CPU every party used meanwhile. */
async function measuring<T>(
  poolPid: number,
  workers: number,
  redis: Redis,
  work: () => Promise<T>,
): Promise<{ value: T; use: CpuUse }> {
  const clockTicksPerSecond = 100;
  const poolBefore = readThreadCpu(poolPid);
  const selfBefore = readThreadCpu(process.pid);
  const redisBefore = await redisCpuSeconds(redis);
  const hostBefore = readHostCpuTicks();
  const started = performance.now();
  const value = await work();
  const wallSeconds = (performance.now() - started) / 1000;
  const hostAfter = readHostCpuTicks();
  const use: CpuUse = {
    pool: splitCpu(cpuDelta(poolBefore, readThreadCpu(poolPid)), poolPid, workers),
    self: splitCpu(cpuDelta(selfBefore, readThreadCpu(process.pid)), process.pid, workers),
    redisSeconds: (await redisCpuSeconds(redis)) - redisBefore,
    hostBusySeconds: (hostAfter.busy - hostBefore.busy) / clockTicksPerSecond,
    wallSeconds,
  };
  return { value, use };
}

function mergePhases(phases: readonly PhaseResult[]): PhaseResult {
  const merged = newPhase();
  for (const phase of phases) {
    merged.sent += phase.sent;
    merged.ok += phase.ok;
    merged.answered += phase.answered;
    merged.elapsedMs += phase.elapsedMs;
    for (const latency of phase.latenciesMs) merged.latenciesMs.push(latency);
    for (const [message, n] of Object.entries(phase.errors))
      merged.errors[message] = (merged.errors[message] ?? 0) + n;
  }
  return merged;
}

function formatErrors(errors: Record<string, number>): string {
  const entries = Object.entries(errors);
  return entries.length === 0 ? 'none' : entries.map(([message, n]) => `${message}: ${n}`).join(', ');
}

const ms = (value: number) => value.toFixed(2);
const pct = (seconds: number, wallSeconds: number) => `${((100 * seconds) / wallSeconds).toFixed(0)}%`;
const us = (seconds: number, count: number) => ((seconds * 1e6) / count).toFixed(0);

async function main(): Promise<void> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const logger = createLogger({ level: 'warn' });
  const cores = availableParallelism();
  const workers = Number(process.env['FUEGO_BENCH_POW_WORKERS'] ?? cores);
  if (!Number.isInteger(workers) || workers < 1)
    throw new Error('FUEGO_BENCH_POW_WORKERS must be a positive integer');
  const rows: TableRow[] = [];
  const notes: string[] = [];
  say(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (${cores} cores)`,
  );

  let stack: BenchStack | undefined;
  let verifier: ShareVerifierPool | undefined;
  let redis: Redis | undefined;
  let miners: LoggedInMiner[] = [];
  try {
    stack = await startBenchStack({ shareDifficulty: 1, pow: { workers, implementation: 'native' } });
    const { pool } = stack;
    say(`pool pid ${pool.pid} on stratum port ${pool.stratumPort}, ${workers} verifier workers`);
    const redisClient = await createRedisClient({ url: stack.redis.url }, logger);
    redis = redisClient;
    const sharesKey = createShareKeys('bench').shares;
    const measure = <T>(work: () => Promise<T>) => measuring(pool.pid, workers, redisClient, work);

    const address = stack.minerAddress;
    miners = await connectMiners(0, MINERS, {
      port: pool.stratumPort,
      login: (i) => `${address}.rig${i}+1`,
      batchSize: MINERS,
    });
    for (const miner of miners) {
      if (miner.job.target !== 'ffffffff')
        throw new Error(`job target ${miner.job.target}, expected difficulty 1`);
    }
    const blobs = miners.map((m) => hexToBytes(m.job.blob));
    say(`${MINERS} miners logged in; pre-computing shares for ${PRECOMPUTE_MS / 1000} s`);

    // Raw capacity: the verifier pool alone, same worker count, same blobs. The first run's
    // hashes are the shares the miners will submit.
    const rawVerifier = new ShareVerifierPool(
      { workers, implementation: 'native', maxQueuedJobs: 4096 },
      { logger },
    );
    verifier = rawVerifier;
    await rawVerifier.start();
    const pre = await measure(() => hashShares(rawVerifier, blobs, PRECOMPUTE_MS));
    rows.push([
      'raw verifier pool, pre-computation (H/s)',
      pre.value.hps.toFixed(1),
      `${pre.value.hashes} hashes, workers at ${pct(pre.use.self.workerSeconds / workers, pre.use.wallSeconds)} of a core each`,
    ]);
    say(`pre-computed ${pre.value.hashes} shares at ${pre.value.hps.toFixed(1)} H/s`);

    const queues: PreparedSubmit[][] = miners.map((miner, m) =>
      pre.value.perMiner[m]!.map((s) =>
        prepare(miner.client, miner.sessionId, miner.job.job_id, s.nonce, s.result),
      ),
    );

    // Warm-up (untimed): the pool's first shares pay for lazy paths (JIT, Redis script load).
    const warmup = newPhase();
    await Promise.all(
      miners.map((m, i) =>
        sendBounded(m.client, queues[i]!.splice(0, WARMUP_PER_MINER), MAX_IN_FLIGHT, warmup),
      ),
    );
    if (warmup.ok !== warmup.sent) throw new Error(`warm-up: ${formatErrors(warmup.errors)}`);

    // Alternate raw samples and pipeline rounds: R P R P R P R.
    const xlenBefore = await redisClient.xlen(sharesKey);
    const rawSamples: number[] = [];
    let rawUse = emptyUse();
    let rawHashes = 0;
    const rounds: PhaseResult[] = [];
    let roundUse = emptyUse();
    for (let r = 0; r <= ROUNDS; r++) {
      const raw = await measure(() => rawSample(rawVerifier, blobs, RAW_SAMPLE_MS));
      rawSamples.push(raw.value.hps);
      rawHashes += raw.value.hashes;
      rawUse = addUse(rawUse, raw.use);
      if (r === ROUNDS) break;
      const perMiner = Math.floor((pre.value.hashes * ROUNDS_FRACTION) / ROUNDS / MINERS);
      const phase = newPhase();
      const sent = await measure(async () => {
        const started = performance.now();
        await Promise.all(
          miners.map((m, i) => sendBounded(m.client, queues[i]!.splice(0, perMiner), MAX_IN_FLIGHT, phase)),
        );
        phase.elapsedMs = performance.now() - started;
      });
      rounds.push(phase);
      roundUse = addUse(roundUse, sent.use);
      say(
        `round ${r + 1}: raw ${raw.value.hps.toFixed(1)} H/s, pipeline ${phase.ok}/${phase.sent} OK at ${((phase.ok * 1000) / phase.elapsedMs).toFixed(1)}/s`,
      );
    }
    await rawVerifier.close();
    verifier = undefined;
    const xlenAfterTimed = await redisClient.xlen(sharesKey);

    const timed = mergePhases(rounds);
    const acceptedPerSec = (timed.ok * 1000) / timed.elapsedMs;
    const rawHps = rawSamples.reduce((a, b) => a + b, 0) / rawSamples.length;
    const ratio = acceptedPerSec / rawHps;
    const latency = [...timed.latenciesMs].sort((a, b) => a - b);
    const p50 = percentile(latency, 50);
    const p99 = percentile(latency, 99);

    // Overload: offer twice what the pool just showed it can take, unbounded in flight.
    const remaining = queues.reduce((sum, q) => sum + q.length, 0);
    const overloadRate = OVERLOAD_FACTOR * acceptedPerSec;
    const wanted = Math.round(overloadRate * OVERLOAD_SECONDS);
    const offered = Math.min(remaining, wanted);
    if (offered < wanted)
      notes.push(`overload offered ${offered} of ${wanted} submits: pre-computed shares ran out`);
    const overload = newPhase();
    const paced = await sendPaced(miners, queues, offered, overloadRate, overload, DRAIN_TIMEOUT_MS);
    const xlenAfterOverload = await redisClient.xlen(sharesKey);
    const overloadLatency = [...overload.latenciesMs].sort((a, b) => a - b);
    const lost = offered - overload.answered;
    say(
      `overload: ${overload.ok}/${offered} OK, drained ${(paced.drainMs / 1000).toFixed(2)} s after the last send`,
    );
    if (!paced.finished)
      notes.push(`overload: not every submit was answered ${DRAIN_TIMEOUT_MS / 1000} s after the last`);
    const rssKb = readRssKb(pool.pid);
    const poolCpuTotal = readProcessCpuSeconds(pool.pid);

    const w = roundUse.wallSeconds;
    // Neighbour-independent view: CPU seconds per share of everything in the pipeline against CPU
    // seconds per hash of the raw verifier (its main thread included). On a machine where all of
    // them share the same cores, this is the ratio the pipeline can reach at best.
    const total = (split: CpuSplit) => split.mainSeconds + split.workerSeconds + split.otherSeconds;
    const rawCpuPerHash = total(rawUse.self) / rawHashes;
    const poolCpuPerShare = (total(roundUse.pool) + roundUse.redisSeconds) / timed.ok;
    const clientCpuPerShare = total(roundUse.self) / timed.ok;
    const cpuRatio = rawCpuPerHash / (poolCpuPerShare + clientCpuPerShare);
    const cpuRatioNoClient = rawCpuPerHash / poolCpuPerShare;
    rows.push(
      ...rawSamples.map(
        (hps, i): TableRow => [`raw sample R${i + 1} (H/s)`, hps.toFixed(1), `${RAW_SAMPLE_MS / 1000} s`],
      ),
      ...rounds.map((phase, i): TableRow => {
        const rate = (phase.ok * 1000) / phase.elapsedMs;
        const around = ((rawSamples[i] ?? 0) + (rawSamples[i + 1] ?? 0)) / 2;
        return [
          `pipeline round P${i + 1} (shares/s)`,
          rate.toFixed(1),
          `ratio ${(rate / around).toFixed(3)} vs mean(R${i + 1}, R${i + 2})`,
        ];
      }),
      [
        'pipeline accepted shares/s',
        acceptedPerSec.toFixed(1),
        `${timed.ok} OK of ${timed.sent} in ${(timed.elapsedMs / 1000).toFixed(2)} s, ${MINERS} miners x ${MAX_IN_FLIGHT} in flight`,
      ],
      ['raw verifier H/s (mean of R samples)', rawHps.toFixed(1), `${workers} workers, same blobs`],
      [
        'ratio pipeline / raw',
        ratio.toFixed(3),
        `target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`,
      ],
      ['submit latency p50 (ms)', ms(p50), ''],
      ['submit latency p99 (ms)', ms(p99), `max ${ms(latency.at(-1) ?? Number.NaN)}`],
      ['errors in the rounds', String(timed.sent - timed.ok), formatErrors(timed.errors)],
      [
        'Redis stream grew (rounds)',
        String(xlenAfterTimed - xlenBefore),
        `equals OK replies: ${xlenAfterTimed - xlenBefore === timed.ok}`,
      ],
      [
        'CPU per share: pool verifier workers (us)',
        us(roundUse.pool.workerSeconds, timed.ok),
        `raw verifier workers: ${us(rawUse.self.workerSeconds, rawHashes)} us per hash`,
      ],
      [
        'CPU per share: pool main thread (us)',
        us(roundUse.pool.mainSeconds, timed.ok),
        `other pool threads ${us(roundUse.pool.otherSeconds, timed.ok)} us`,
      ],
      [
        'CPU per share: benchmark client (us)',
        us(roundUse.self.mainSeconds + roundUse.self.otherSeconds, timed.ok),
        'main thread: socket I/O, replies, devnet RPC',
      ],
      ['CPU per share: redis-server (us)', us(roundUse.redisSeconds, timed.ok), ''],
      [
        'ratio by CPU cost, all parties',
        cpuRatio.toFixed(3),
        `raw ${us(rawCpuPerHash, 1)} us CPU per hash / pipeline ${us(poolCpuPerShare + clientCpuPerShare, 1)} us per share`,
      ],
      ['ratio by CPU cost, pool + Redis only', cpuRatioNoClient.toFixed(3), 'as if the miners ran elsewhere'],
      [
        'CPU during rounds: pool workers',
        pct(roundUse.pool.workerSeconds / workers, w),
        `of a core each (raw samples: ${pct(rawUse.self.workerSeconds / workers, rawUse.wallSeconds)})`,
      ],
      ['CPU during rounds: pool main thread', pct(roundUse.pool.mainSeconds, w), 'of a core'],
      [
        'CPU during rounds: whole machine busy',
        pct(roundUse.hostBusySeconds, w * cores),
        `of ${cores} cores; neighbours ~${pct(roundUse.hostBusySeconds - roundUse.pool.mainSeconds - roundUse.pool.workerSeconds - roundUse.pool.otherSeconds - roundUse.self.mainSeconds - roundUse.self.otherSeconds - roundUse.redisSeconds, w * cores)} (raw samples: busy ${pct(rawUse.hostBusySeconds, rawUse.wallSeconds * cores)})`,
      ],
      [
        'overload offered',
        String(offered),
        `${overloadRate.toFixed(0)}/s (${OVERLOAD_FACTOR}x accepted) for ${(paced.offerMs / 1000).toFixed(2)} s, up to ${paced.maxInFlight} in flight`,
      ],
      [
        'overload answered / OK',
        `${overload.answered} / ${overload.ok}`,
        `errors: ${formatErrors(overload.errors)}`,
      ],
      [
        'overload lost',
        String(lost),
        lost === 0 && overload.ok === offered ? 'target 0: met' : 'target 0: NOT met',
      ],
      [
        'Redis stream grew (overload)',
        String(xlenAfterOverload - xlenAfterTimed),
        `equals OK replies: ${xlenAfterOverload - xlenAfterTimed === overload.ok}`,
      ],
      [
        'overload latency p50 / p99 (ms)',
        `${ms(percentile(overloadLatency, 50))} / ${ms(percentile(overloadLatency, 99))}`,
        `max ${ms(overloadLatency.at(-1) ?? Number.NaN)}, drained ${(paced.drainMs / 1000).toFixed(2)} s after the last send`,
      ],
      [
        'pool RSS after the run (MB)',
        (rssKb / 1024).toFixed(1),
        `pool CPU total ${poolCpuTotal.toFixed(1)} s`,
      ],
    );
    printReport(say, rows, notes, {
      acceptedPerSec: round(acceptedPerSec),
      rawVerifierHps: round(rawHps),
      ratio: round(ratio, 3),
      latencyMs: { p50: round(p50, 2), p99: round(p99, 2) },
      overload: { offered, answered: overload.answered, ok: overload.ok, lost },
      workers,
      cpuCostRatio: round(cpuRatio, 3),
    });
  } finally {
    for (const miner of miners) miner.client.destroy();
    if (verifier) await verifier.close().catch(() => undefined);
    redis?.disconnect();
    await stack?.stop();
  }
}

await main();
