/**
 * The floor under the connections benchmark's job push at scale: a push to N loopback miners on
 * this host with no pool code at all. P writer processes each hold N/P accepted sockets and, on
 * `write`, queue one job-sized line for every socket with the pool's batched native writer
 * (socket-write-batch.ts) in one loop. P reader processes hold the other ends, read as the
 * benchmark's load generators do (stratum-client.ts: Node's `onread` into one shared buffer) but
 * do no more per line than stamp it. So the figures are the connections benchmark's with the pool
 * replaced by the least a pool can do per miner, one send, and the miners by the least a reader
 * can do. `--work-us N` spends N µs of CPU before each line, in slices of 15 ms as the pool's
 * broadcast writes, standing in for the pool's own work per miner.
 *
 *   npm run bench:push-floor -- [--miners N] [--processes P] [--rounds R] [--work-us N]
 *
 * Defaults: 100,000 miners, 6 processes of each kind (what the connections benchmark needs under
 * this host's open-files limit of 20,000), 5 rounds after one warm-up. Per round it prints the
 * arrival p50/p99/max from the moment the writers were told to write, and the CPU per socket of
 * the writers (user, kernel) and of the readers; the last line is one JSON object of the medians.
 * CPU times come from /proc in 10 ms ticks, so per-socket figures need tens of thousands of miners.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadSocketWriteBatch, socketFdReader } from '../../src/servers/stratum/socket-write-batch.js';
import { percentile, readProcessCpuSplit, round } from './measure-process.js';
import { nowMs } from './stratum-client.js';

/** A job notification's size and shape (a 76-byte blob in hex, a 16-byte job id), as the pool's. */
const JOB_LINE = `{"jsonrpc":"2.0","method":"job","params":{"blob":"${'ab'.repeat(76)}","job_id":"${'0'.repeat(32)}","target":"ffffffff","algo":"cn/upx2","height":123456}}\n`;
/** Connections opened before a pause, so a writer's accept queue never overflows. */
const CONNECT_BATCH = 500;
/** Source addresses per reader: ephemeral ports are per source address and destination. */
const SOURCES = 8;
const ROUND_TIMEOUT_MS = 30_000;
const SETTLE_MS = 1_000;
/** With --work-us: the pool's broadcast slice (stratum.broadcastSliceMs). */
const SLICE_MS = 15;

type Command = { readonly type: 'write' } | { readonly type: 'arm' } | { readonly type: 'stop' };
type Event =
  | { readonly type: 'ready'; readonly port?: number }
  | { readonly type: 'armed' }
  | { readonly type: 'written'; readonly loopMs: number }
  | { readonly type: 'arrivals'; readonly atMs: number[] };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function send(event: Event): void {
  process.send?.(event);
}

/** Accepts `count` connections, then writes one line to each on every `write`. */
async function writer(count: number, workUs: number): Promise<void> {
  const loaded = loadSocketWriteBatch();
  if ('unavailable' in loaded) throw new Error(`the batched writer is unavailable: ${loaded.unavailable}`);
  const { batch } = loaded;
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 2048, resolve));
  send({ type: 'ready', port: (server.address() as AddressInfo).port });
  while (sockets.length < count) await sleep(50);
  const targets = sockets.map((socket) => ({
    fd: socketFdReader(socket),
    settle: (line: Uint8Array, taken: number) => socket.write(taken > 0 ? line.subarray(taken) : line),
  }));
  send({ type: 'ready' });
  process.on('message', (command: Command) => {
    if (command.type === 'stop') process.exit(0);
    if (command.type !== 'write') return;
    const started = performance.now();
    if (workUs === 0) {
      for (const target of targets) batch.enqueue(target, JOB_LINE);
      batch.flush();
      send({ type: 'written', loopMs: performance.now() - started });
      return;
    }
    // As the pool's broadcast does: slices of SLICE_MS, each line after `workUs` of CPU.
    let next = 0;
    const slice = () => {
      const sliceStart = performance.now();
      while (next < targets.length && performance.now() - sliceStart < SLICE_MS) {
        const until = performance.now() + workUs / 1000;
        while (performance.now() < until);
        batch.enqueue(targets[next++]!, JOB_LINE);
      }
      batch.flush();
      if (next < targets.length) setImmediate(slice);
      else send({ type: 'written', loopMs: performance.now() - started });
    };
    slice();
  });
}

/** Opens `count` connections to `port` and stamps the first line each reads after `arm`. */
async function reader(index: number, port: number, count: number): Promise<void> {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  const atMs = new Float64Array(count);
  let received = 0;
  let armed = false;
  for (let i = 0; i < count; i++) {
    const slot = i;
    connect({
      port,
      host: '127.0.0.1',
      localAddress: `127.30.${index}.${(i % SOURCES) + 1}`,
      onread: {
        buffer,
        callback: (bytes: number) => {
          // As the load generator does per chunk: a string first; then only the line's end is looked for.
          const text = buffer.toString('latin1', 0, bytes);
          if (!armed || atMs[slot] !== 0 || text.indexOf('\n') < 0) return true;
          atMs[slot] = nowMs();
          if (++received === count) {
            armed = false;
            send({ type: 'arrivals', atMs: Array.from(atMs) });
          }
          return true;
        },
      },
    }).setNoDelay(true);
    if (i % CONNECT_BATCH === CONNECT_BATCH - 1) await sleep(20);
  }
  send({ type: 'ready' });
  process.on('message', (command: Command) => {
    if (command.type === 'stop') process.exit(0);
    if (command.type !== 'arm') return;
    atMs.fill(0);
    received = 0;
    armed = true;
    send({ type: 'armed' });
  });
}

/** The next event of `type` from `child`. */
function next<T extends Event['type']>(child: ChildProcess, type: T): Promise<Extract<Event, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: Event) => {
      if (event.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(event as Extract<Event, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`child ${child.pid} exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

function cpuOf(children: readonly ChildProcess[]): { user: number; system: number } {
  let user = 0;
  let system = 0;
  for (const child of children) {
    const cpu = readProcessCpuSplit(child.pid ?? 0);
    user += cpu.userSeconds;
    system += cpu.systemSeconds;
  }
  return { user, system };
}

function argument(name: string, fallback: number, min = 1): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`--${name} wants a whole number >= ${min}`);
  return value;
}

interface RoundResult {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly writerUserUs: number;
  readonly writerSystemUs: number;
  readonly readerUs: number;
}

async function main(): Promise<void> {
  const miners = argument('miners', 100_000);
  const processes = argument('processes', 6);
  const rounds = argument('rounds', 5);
  const workUs = argument('work-us', 0, 0);
  const entry = fileURLToPath(import.meta.url);
  const share = (i: number) =>
    Math.floor((miners * (i + 1)) / processes) - Math.floor((miners * i) / processes);
  const writers = Array.from({ length: processes }, (_, i) =>
    fork(entry, ['writer', String(share(i)), String(workUs)]),
  );
  const readers: ChildProcess[] = [];
  try {
    const ports = await Promise.all(writers.map((w) => next(w, 'ready')));
    const accepted = Promise.all(writers.map((w) => next(w, 'ready')));
    for (let i = 0; i < processes; i++)
      readers.push(fork(entry, ['reader', String(i), String(ports[i]!.port), String(share(i))]));
    await Promise.all(readers.map((r) => next(r, 'ready')));
    await accepted;
    process.stdout.write(
      `${miners} loopback connections; writers ${writers.map((w) => w.pid).join(',')}, readers ${readers.map((r) => r.pid).join(',')}\n`,
    );
    const results: RoundResult[] = [];
    for (let round_ = 0; round_ <= rounds; round_++) {
      await sleep(SETTLE_MS);
      await Promise.all(
        readers.map((r) => {
          const armed = next(r, 'armed');
          r.send({ type: 'arm' });
          return armed;
        }),
      );
      const writerBefore = cpuOf(writers);
      const readerBefore = cpuOf(readers);
      const arrivals = readers.map((r) => next(r, 'arrivals'));
      const t0 = nowMs();
      for (const w of writers) w.send({ type: 'write' });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error('a round did not reach every reader in 30 s')),
          ROUND_TIMEOUT_MS,
        );
      });
      const stamped = await Promise.race([Promise.all(arrivals), timeout]);
      clearTimeout(timer);
      await sleep(100); // the writers' CPU of this round, as /proc counts it in ticks
      const writerCpu = cpuOf(writers);
      const readerCpu = cpuOf(readers);
      const fromT0 = stamped.flatMap((s) => s.atMs.map((at) => at - t0)).sort((a, b) => a - b);
      const perSocketUs = (seconds: number) => round((seconds * 1e6) / miners, 2);
      const result: RoundResult = {
        p50: round(percentile(fromT0, 50)),
        p99: round(percentile(fromT0, 99)),
        max: round(fromT0.at(-1) ?? Number.NaN),
        writerUserUs: perSocketUs(writerCpu.user - writerBefore.user),
        writerSystemUs: perSocketUs(writerCpu.system - writerBefore.system),
        readerUs: perSocketUs(readerCpu.user + readerCpu.system - readerBefore.user - readerBefore.system),
      };
      process.stdout.write(
        `${round_ === 0 ? 'warm-up' : `round ${round_}`}: arrival p50 / p99 / max ${result.p50} / ${result.p99} / ${result.max} ms; per socket: writers ${round(result.writerUserUs + result.writerSystemUs, 2)} µs (user ${result.writerUserUs}, kernel ${result.writerSystemUs}), readers ${result.readerUs} µs\n`,
      );
      if (round_ > 0) results.push(result);
    }
    const median = (pick: (r: RoundResult) => number) =>
      percentile(
        results.map(pick).sort((a, b) => a - b),
        50,
      );
    process.stdout.write(
      `${JSON.stringify({
        miners,
        processes,
        rounds,
        workUs,
        pushP50Ms: median((r) => r.p50),
        pushP99Ms: median((r) => r.p99),
        pushMaxMs: median((r) => r.max),
        writerCpuUsPerSocket: round(
          median((r) => r.writerUserUs + r.writerSystemUs),
          2,
        ),
        writerSystemUsPerSocket: median((r) => r.writerSystemUs),
        readerCpuUsPerSocket: median((r) => r.readerUs),
      })}\n`,
    );
  } finally {
    for (const child of [...readers, ...writers]) child.kill();
  }
}

const role = process.argv[2];
if (role === 'writer') await writer(Number(process.argv[3]), Number(process.argv[4]));
else if (role === 'reader')
  await reader(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]));
else await main();
