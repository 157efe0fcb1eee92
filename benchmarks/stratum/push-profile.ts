/**
 * Where the stratum processes' time goes during job pushes, from a system-wide `perf` profile of
 * the connections benchmark. Reads `perf script` output on stdin and prints, for the samples taken
 * inside pushes: the kernel's share, the part of it that is the receiving side's TCP path (on
 * loopback the kernel runs the reader's TCP input inside the writer's send, so it is counted as the
 * pool's CPU; on a network it would run on the miner's host), and the pool's parts on the stack,
 * inclusive. The kernel's figures are exact; the JavaScript ones are approximate, since
 * --perf-basic-prof's map can name reused code addresses after what was there before.
 *
 *   FUEGO_BENCH_PUSH_ROUNDS=30 FUEGO_BENCH_POOL_NODE_ARGS=--perf-basic-prof \
 *     perf record -a -g -F 999 -o /tmp/push.perf -- \
 *     node build/bench/benchmarks/stratum/connections.js --miners 20000
 *   perf script -i /tmp/push.perf -F tid,time,ip,sym --tid STRATUM_PIDS \
 *     | node build/bench/benchmarks/stratum/push-profile.js
 *
 * STRATUM_PIDS: the stratum processes the benchmark prints (comma-separated); their main threads'
 * ids are their pids. To see the load generators' time during the same pushes, give perf script
 * both sets and `--report GENERATOR_PIDS`. After the split it lists user space by its own time
 * (the leaf frame). A push is a run of samples with the broadcast on the stack, less than 300 ms
 * apart, lasting 50 ms to 1 s (a push to 20,000 miners takes 0.1-0.4 s here); 10 ms either side
 * count with it (the batch's write runs after).
 *
 * Exact windows instead: the benchmark prints when it counted each push's CPU on CLOCK_MONOTONIC
 * (its CPU row's "counted on CLOCK_MONOTONIC A-B,C-D s", and `pushWindowsSec` per step in its JSON
 * line), the clock `perf record -k CLOCK_MONOTONIC` stamps samples with. Record with `-k
 * CLOCK_MONOTONIC` and pass `--windows A-B,C-D` (say, the 100,000 step's): only samples inside
 * them count, and the broadcast's frames are not needed. `--pid` in place of `--tid` gives perf
 * script every thread of the stratum processes (V8's GC helpers too).
 */
import { createInterface } from 'node:readline';
import { parseWindows } from './perf-windows.js';

interface Sample {
  readonly tid: number;
  readonly atSec: number;
  /** Leaf first: [address, symbol]. */
  readonly frames: ReadonlyArray<readonly [string, string]>;
}

/** The broadcast's own frames: the batched writer also carries login and submit replies. */
const PUSH_MARKS = ['template-broadcast.js'];
const GAP_SEC = 0.3;
const MIN_PUSH_SEC = 0.05;
/** Longer runs are the logins, where a reused code address can pass for the broadcast. */
const MAX_PUSH_SEC = 1;
const PAD_SEC = 0.01;
/** User-space leaf symbols listed. */
const TOP_LEAVES = 30;
const RECEIVE_PATH = ['__netif_receive_skb', 'ip_rcv', 'tcp_v4_rcv', 'process_backlog'];
/** What the pool's push is made of, by a file or symbol on the stack. */
const PARTS: ReadonlyArray<readonly [string, string]> = [
  ['the broadcast loop (issue, encode, queue)', 'template-broadcast.js'],
  ['JobManager.issueShared / issue', 'job-manager.js'],
  ['encodeJobNotification', 'protocol.js'],
  ['SocketLineWriter.send', 'line-writer.js'],
  ['the batch flush (JavaScript and native)', 'socket-write-batch.js'],
  ['send(2), kernel', '__sys_sendto'],
  ['a regular expression', 'RegExp'],
  ['garbage collection', 'Scaveng'],
];

async function readSamples(): Promise<Sample[]> {
  const samples: Sample[] = [];
  let current: { tid: number; atSec: number; frames: Array<readonly [string, string]> } | undefined;
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') {
      if (current) samples.push(current);
      current = undefined;
    } else if (!line.startsWith('\t')) {
      // " TID TIME:" starts a sample.
      const [tid, time] = line.trim().split(/\s+/);
      const atSec = Number.parseFloat(time ?? '');
      current = Number.isFinite(atSec) ? { tid: Number(tid), atSec, frames: [] } : undefined;
    } else if (current) {
      const text = line.trim();
      const space = text.indexOf(' ');
      current.frames.push(space < 0 ? [text, ''] : [text.slice(0, space), text.slice(space + 1)]);
    }
  }
  if (current) samples.push(current);
  return samples;
}

function onStack(sample: Sample, needle: string): boolean {
  return sample.frames.some(([, symbol]) => symbol.includes(needle));
}

function pushWindows(samples: readonly Sample[]): Array<[number, number]> {
  const marks = samples
    .filter((s) => PUSH_MARKS.some((m) => onStack(s, m)))
    .map((s) => s.atSec)
    .sort((a, b) => a - b);
  const windows: Array<[number, number]> = [];
  for (const at of marks) {
    const last = windows.at(-1);
    if (last && at - last[1] < GAP_SEC) last[1] = at;
    else windows.push([at, at]);
  }
  return windows.filter(([from, to]) => to - from >= MIN_PUSH_SEC && to - from <= MAX_PUSH_SEC);
}

function percent(part: number, whole: number): string {
  return `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`.padStart(6);
}

/**
 * --report TIDS: the samples of these threads are the ones reported (say, the load generators'),
 * while the pushes are still found in the others' (the stratum processes', given to perf script too).
 */
const reportAt = process.argv.indexOf('--report');
const reported = new Set(
  (reportAt < 0 ? '' : (process.argv[reportAt + 1] ?? '')).split(',').filter(Boolean).map(Number),
);
const windowsAt = process.argv.indexOf('--windows');
const given = windowsAt < 0 ? undefined : parseWindows(process.argv[windowsAt + 1] ?? '');
const all = await readSamples();
const windows = given ?? pushWindows(all.filter((s) => !reported.has(s.tid)));
const pad = given === undefined ? PAD_SEC : 0;
const samples = reported.size === 0 ? all : all.filter((s) => reported.has(s.tid));
const inPushes = samples.filter((s) =>
  windows.some(([from, to]) => s.atSec >= from - pad && s.atSec <= to + pad),
);
const kernelLeaf = inPushes.filter((s) => s.frames[0]?.[0].startsWith('ffffffff') === true);
const receiving = kernelLeaf.filter((s) => RECEIVE_PATH.some((r) => onStack(s, r)));
const n = inPushes.length;
process.stdout.write(`${windows.length} pushes, ${n} samples in them (of ${samples.length})\n`);
process.stdout.write(`${percent(kernelLeaf.length, n)} in the kernel\n`);
process.stdout.write(
  `${percent(receiving.length, n)} the receiving side's TCP path (${percent(receiving.length, kernelLeaf.length).trim()} of the kernel's part)\n`,
);
for (const [name, needle] of PARTS) {
  process.stdout.write(`${percent(inPushes.filter((s) => onStack(s, needle)).length, n)} ${name}\n`);
}

// Where user space spends its own time (the leaf frame), the largest first.
const leafCounts = new Map<string, number>();
for (const sample of inPushes) {
  const leaf = sample.frames[0];
  if (leaf === undefined || leaf[0].startsWith('ffffffff')) continue;
  const name = leaf[1].replace(/\+0x[0-9a-f]+$/, '') || leaf[0];
  leafCounts.set(name, (leafCounts.get(name) ?? 0) + 1);
}
process.stdout.write('user space by its own time (leaf frame):\n');
for (const [name, count] of [...leafCounts].sort((a, b) => b[1] - a[1]).slice(0, TOP_LEAVES)) {
  process.stdout.write(`${percent(count, n)} ${name.slice(0, 110)}\n`);
}
