import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseOpenFilesLimits } from '../../src/app/open-files-budget.js';
import { childProcessIds } from '../../src/tools/child-processes.js';

/**
 * Readers of /proc for the pool process (Linux only): resident memory, CPU time per thread and
 * open file descriptors. The benchmarks run the pool in its own process precisely so these
 * numbers are the pool's alone.
 */

/** VmRSS of `pid` in kB. */
export function readRssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

/** VmRSS of `pid` split (kB): anonymous memory, file-backed pages (the node binary, shared by every Node process) and shared memory. */
export function readRssPartsKb(pid: number): { anonKb: number; fileKb: number; shmemKb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? 0);
  return { anonKb: field('RssAnon'), fileKb: field('RssFile'), shmemKb: field('RssShmem') };
}

/** `pid` and its child processes (a pool with stratum.processes > 1 has one per stratum process). */
export function processTree(pid: number): number[] {
  return [pid, ...childProcessIds(pid)];
}

/** Open file descriptors of `pid`. */
export function countOpenFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Soft limit on open files of `pid`. */
export function readOpenFilesLimit(pid: number): number {
  const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
  return parseOpenFilesLimits(limits)?.soft ?? Number.POSITIVE_INFINITY;
}

export interface ThreadCpu {
  readonly tid: number;
  readonly name: string;
  /** utime + stime, in seconds. */
  readonly cpuSeconds: number;
}

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time of every thread of `pid`. /proc/<pid>/task/<tid>/stat: field 2 is "(comm)", which may
 * hold spaces, so the numeric fields are counted from the closing parenthesis; utime and stime
 * are fields 14 and 15 (1-based), in clock ticks (USER_HZ, 100 on Linux).
 */
export function readThreadCpu(pid: number): ThreadCpu[] {
  const threads: ThreadCpu[] = [];
  for (const entry of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${entry}/stat`, 'utf8');
    } catch {
      continue; // the thread exited between readdir and read
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14 -> fields[11], stime field 15 -> fields[12].
    const ticks = Number(fields[11]) + Number(fields[12]);
    threads.push({
      tid: Number(entry),
      name: stat.slice(open + 1, close),
      cpuSeconds: ticks / CLOCK_TICKS_PER_SECOND,
    });
  }
  return threads;
}

/** Total CPU seconds of `pid` (all threads). */
export function readProcessCpuSeconds(pid: number): number {
  return readThreadCpu(pid).reduce((sum, t) => sum + t.cpuSeconds, 0);
}

/** CPU seconds of `pid`, all threads, in user space and in the kernel (/proc/PID/stat fields 14 and 15). */
export function readProcessCpuSplit(pid: number): { userSeconds: number; systemSeconds: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    userSeconds: Number(fields[11]) / CLOCK_TICKS_PER_SECOND,
    systemSeconds: Number(fields[12]) / CLOCK_TICKS_PER_SECOND,
  };
}

/** CPU seconds per thread between two snapshots, by thread, busiest first. */
export function cpuDelta(before: readonly ThreadCpu[], after: readonly ThreadCpu[]): ThreadCpu[] {
  const start = new Map(before.map((t) => [t.tid, t.cpuSeconds]));
  return after
    .map((t) => ({ ...t, cpuSeconds: t.cpuSeconds - (start.get(t.tid) ?? 0) }))
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds);
}

/** Value at percentile `p` (0..100) of an ascending array (nearest rank); NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export function round(value: number, digits = 1): number {
  return Number(value.toFixed(digits));
}

export type TableRow = readonly [string, string, string];

/** The benchmark table: what | value | detail, as benchmarks/pow/run.ts prints it. */
export function formatTable(rows: readonly TableRow[], valueHeading: string): string[] {
  const all: TableRow[] = [['what', valueHeading, 'detail'], ...rows];
  const w0 = Math.max(...all.map((r) => r[0].length));
  const w1 = Math.max(...all.map((r) => r[1].length));
  const line = (r: TableRow) => `${r[0].padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2]}`;
  return [line(all[0]!), line(['-'.repeat(w0), '-'.repeat(w1), '------']), ...rows.map(line)];
}

/**
 * The end of every stratum/cluster benchmark: the table, the notes with the load average at the
 * end appended (the machine is shared), then `summary` as one JSON object on the last line.
 */
export function printReport(
  say: (text: string) => void,
  rows: readonly TableRow[],
  notes: readonly string[],
  summary: object,
): void {
  say('');
  for (const line of formatTable(rows, 'value')) say(line);
  const loads = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  for (const note of [...notes, `load average at end: ${loads}`]) say(`note: ${note}`);
  say(JSON.stringify(summary));
}

/** A process's CPU seconds split into its main thread, its `workers` busiest other threads, and the rest. */
export interface CpuSplit {
  readonly mainSeconds: number;
  readonly workerSeconds: number;
  readonly otherSeconds: number;
}

/**
 * Splits a CPU delta (from cpuDelta) of process `pid`. The verifier's worker threads are taken to
 * be the `workers` busiest threads besides the main one (all Node threads are named "node").
 */
export function splitCpu(delta: readonly ThreadCpu[], pid: number, workers: number): CpuSplit {
  const main = delta.find((t) => t.tid === pid)?.cpuSeconds ?? 0;
  const others = delta.filter((t) => t.tid !== pid).sort((a, b) => b.cpuSeconds - a.cpuSeconds);
  const sum = (threads: readonly ThreadCpu[]) => threads.reduce((s, t) => s + t.cpuSeconds, 0);
  return {
    mainSeconds: main,
    workerSeconds: sum(others.slice(0, workers)),
    otherSeconds: sum(others.slice(workers)),
  };
}

/** Busy and total CPU ticks of the whole machine (first line of /proc/stat), every process included. */
export function readHostCpuTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // user nice system idle iowait irq softirq steal ...: idle and iowait are the idle ones.
  const total = fields.slice(0, 8).reduce((s, v) => s + v, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}
