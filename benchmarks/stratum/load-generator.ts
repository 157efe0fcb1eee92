/**
 * A load generator of the connections benchmark at scale, in its own process (forked by
 * connections-scale.ts): it holds its share of the idle miners, stamps each miner's job
 * notifications, and sends bursts of valid shares, as told over IPC (load-generator-messages.ts).
 * Its CPU is reported with every answer, so the benchmark can show it apart from the pool's.
 *
 * The miners that never send shares are read by a native thread (native-job-reader.ts) in batches
 * a millisecond apart, which costs the two cores the pool shares with it about half of what
 * Node's read of each line did (native/bench_job_reader.cc).
 * FUEGO_BENCH_NODE_READER=1 reads every miner through Node, as before (session of 2026-11-29).
 */
import { loadNativeHasher } from '../../src/pow/native.js';
import { difficultyOneShare, type ShareParams } from './difficulty-one-share.js';
import { jobHeight } from './job-arrivals.js';
import type { CpuReport, LoadCommand, LoadEvent } from './load-generator-messages.js';
import { NativeJobReader } from './native-job-reader.js';
import { SHARE_MINERS } from './scale-measurements.js';
import { connectMiners, type LoggedInMiner } from './simulated-miners.js';
import { nowMs, type WireJob } from './stratum-client.js';

/** Logins in flight at once, per load generator. */
const BATCH_SIZE = 500;
/** This process's number among the load generators: miner names and source addresses carry it. */
const GENERATOR_INDEX = Number(process.argv[2] ?? 0);

interface Miner {
  readonly logged: LoggedInMiner;
  /**
   * The last job notification's line, parsed only when a share is needed; kept only by the
   * miners that may send shares (the first SHARE_MINERS), so that a push does not leave a string
   * per miner for the garbage collector to move into the old generation.
   */
  lastJobLine: string | undefined;
  /** Arrival of the first job after `arm`, wall-clock ms, and that job's height. */
  armedArrivalMs: number | undefined;
  armedHeight: number | undefined;
  nonce: number;
  /** Read by the native reader, which stamps its jobs (slot: its index in `miners`). */
  readNatively: boolean;
}

const miners: Miner[] = [];
let armed = false;
/** The height the measured push brings: jobs below it are a previous push's stragglers. */
let armedHeight = 0;
let lateEarlier = 0;
let received = 0;
let onAllReceived: (() => void) | undefined;
let prepared: Array<{ readonly miner: Miner; readonly share: ShareParams }> = [];
/** How often `collect` looks whether the native reader has stamped every one of its miners. */
const NATIVE_POLL_MS = 5;

function startNativeReader(): NativeJobReader | undefined {
  if (process.env['FUEGO_BENCH_NODE_READER'] === '1') return undefined;
  const started = NativeJobReader.start();
  if (started instanceof NativeJobReader) return started;
  process.stderr.write(
    `note: load generator ${GENERATOR_INDEX} reads every miner through Node: ${started.unavailable}\n`,
  );
  return undefined;
}
const nativeReader = startNativeReader();

function send(event: LoadEvent): void {
  process.send?.(event);
}

function cpuReport(): CpuReport {
  const usage = process.resourceUsage();
  return {
    cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    wakeUps: usage.voluntaryContextSwitches,
  };
}

function track(logged: LoggedInMiner, index: number): Miner {
  const miner: Miner = {
    logged,
    lastJobLine: undefined,
    armedArrivalMs: undefined,
    armedHeight: undefined,
    nonce: 0,
    readNatively: false,
  };
  const sendsShares = index < SHARE_MINERS;
  if (!sendsShares && nativeReader !== undefined) {
    const fd = logged.client.handOverReading();
    if (fd !== undefined) {
      nativeReader.watch(index, fd);
      miner.readNatively = true;
    }
  }
  logged.client.onJob = (notification) => {
    if (sendsShares) miner.lastJobLine = notification.line;
    if (!armed || miner.armedArrivalMs !== undefined) return;
    const height = jobHeight(notification.line);
    if (height < armedHeight) {
      lateEarlier++;
      return;
    }
    miner.armedArrivalMs = notification.atMs;
    miner.armedHeight = height;
    received++;
    if (receivedAll()) onAllReceived?.();
  };
  return miner;
}

async function connect(command: Extract<LoadCommand, { type: 'connect' }>): Promise<void> {
  const started = performance.now();
  const { sources } = command;
  const added = await connectMiners(miners.length, command.total, {
    port: command.port,
    login: (i) => `${command.address}.g${GENERATOR_INDEX}w${i}`,
    batchSize: BATCH_SIZE,
    localAddresses: sources,
  });
  for (const logged of added) miners.push(track(logged, miners.length));
  send({
    type: 'connected',
    miners: miners.length,
    readNatively: miners.filter((miner) => miner.readNatively).length,
    seconds: (performance.now() - started) / 1000,
    ...cpuReport(),
  });
}

function arm(command: Extract<LoadCommand, { type: 'arm' }>): void {
  for (const miner of miners) {
    miner.armedArrivalMs = undefined;
    miner.armedHeight = undefined;
  }
  armedHeight = command.height;
  lateEarlier = 0;
  received = 0;
  nativeReader?.arm(command.height);
  armed = true;
  send({ type: 'armed', ...cpuReport() });
}

function receivedAll(): boolean {
  return received + (nativeReader?.received() ?? 0) >= miners.length;
}

async function collect(height: number, timeoutMs: number): Promise<void> {
  if (!receivedAll()) {
    let timer: NodeJS.Timeout | undefined;
    // The native reader's miners are counted on its thread: looked at every few ms.
    const poll = nativeReader && setInterval(() => receivedAll() && onAllReceived?.(), NATIVE_POLL_MS);
    await new Promise<void>((resolve) => {
      onAllReceived = resolve;
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
    clearInterval(poll);
    onAllReceived = undefined;
  }
  armed = false;
  const native = nativeReader?.collect(miners.length);
  if (native !== undefined && native.otherLines + native.closed > 0) {
    process.stderr.write(
      `note: load generator ${GENERATOR_INDEX}: ${native.otherLines} lines other than jobs and ${native.closed} closed sockets among its idle miners\n`,
    );
  }
  const atMs: number[] = [];
  let wrongHeight = 0;
  miners.forEach((miner, index) => {
    const arrivalMs = miner.readNatively ? native?.atMs[index] : miner.armedArrivalMs;
    if (arrivalMs === undefined || Number.isNaN(arrivalMs)) return;
    atMs.push(arrivalMs);
    const arrivalHeight = miner.readNatively ? native?.heights[index] : miner.armedHeight;
    if (arrivalHeight !== height) wrongHeight++;
  });
  send({
    type: 'arrivals',
    atMs,
    missing: miners.length - atMs.length,
    wrongHeight,
    lateEarlier: lateEarlier + (native?.lateEarlier ?? 0),
    ...cpuReport(),
  });
}

const hasher = loadNativeHasher({ portable: false });

function prepareShares(count: number, perMiner: number): void {
  if (count > SHARE_MINERS) throw new Error(`at most ${SHARE_MINERS} miners per generator send shares`);
  prepared = [];
  for (const miner of miners.slice(0, count)) {
    const job = miner.lastJobLine
      ? (JSON.parse(miner.lastJobLine) as { params: WireJob }).params
      : miner.logged.job;
    for (let k = 0; k < perMiner; k++)
      prepared.push({ miner, share: difficultyOneShare(hasher, job, miner.nonce++) });
  }
  send({ type: 'prepared', shares: prepared.length, ...cpuReport() });
}

async function burst(): Promise<void> {
  const refused: Record<string, number> = {};
  let accepted = 0;
  const startMs = nowMs();
  await Promise.all(
    prepared.map(async ({ miner, share }) => {
      const reply = await miner.logged.client.request('submit', { id: miner.logged.sessionId, ...share });
      if (reply.error === null) accepted++;
      else refused[reply.error.message] = (refused[reply.error.message] ?? 0) + 1;
    }),
  );
  const endMs = nowMs();
  prepared = [];
  send({ type: 'burst', accepted, refused, startMs, endMs, ...cpuReport() });
}

/** Closes a miner's socket, after the native reader let go of it (its number may be reused at once). */
function close(miner: Miner, index: number): void {
  if (miner.readNatively) nativeReader?.unwatch(index);
  miner.logged.client.destroy();
}

function drop(keep: number): void {
  const dropped = miners.splice(keep);
  for (let k = 0; k < dropped.length; k++) close(dropped[k]!, keep + k);
  send({ type: 'dropped', miners: miners.length, ...cpuReport() });
}

function stop(): void {
  nativeReader?.stop();
  for (const miner of miners) miner.logged.client.destroy();
  process.exit(0);
}

const handlers: { [K in LoadCommand['type']]: (command: Extract<LoadCommand, { type: K }>) => unknown } = {
  connect,
  arm,
  collect: (command) => collect(command.height, command.timeoutMs),
  'prepare-shares': (command) => prepareShares(command.miners, command.perMiner),
  burst,
  drop: (command) => drop(command.keep),
  stop,
};

process.on('message', (command: LoadCommand) => {
  const handler = handlers[command.type] as (command: LoadCommand) => unknown;
  Promise.resolve()
    .then(() => handler(command))
    .catch((error: unknown) =>
      send({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
});
// The benchmark is gone (it exited or crashed): nothing left to measure for.
process.on('disconnect', stop);
