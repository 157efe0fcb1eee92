/**
 * CPU of the tip check's call, `GET /getheight`, or with `--call getlastblockheader` of the poll's
 * (a JSON-RPC POST), against the devnet's daemon in a child process (so its CPU is not counted):
 * Node's HTTP client (JsonHttpClient, every other daemon call's) against the pool's own kept-alive
 * connection read by hand (KeptAliveHttpClient: getHeight's since the fourteenth session,
 * getLastBlockHeader's since the fifteenth). Calls are spaced as the tip check spaces them (25 ms
 * by default; the poll's are 100 ms apart), so each finds its caches as cold as the pool's does;
 * rounds alternate between the two clients.
 *
 *   npm run bench:tip-check -- [--calls N] [--interval-ms MS] [--call getheight|getlastblockheader]
 *
 * Prints one line per round and, last, a JSON line with the medians.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Devnet } from '../../src/devnet/devnet.js';
import { loadNativeHasher } from '../../src/pow/native.js';
import { type HttpExchange, JsonHttpClient } from '../../src/rpc/json-http.js';
import { callJsonRpc } from '../../src/rpc/json-rpc.js';
import { KeptAliveHttpClient } from '../../src/rpc/kept-alive-http.js';

const ROUNDS = 6;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The child: the devnet (no block timer), its daemon's port sent to the parent. */
async function daemon(): Promise<void> {
  const devnet = await Devnet.start(
    { daemon: { port: 0, blockTimeSeconds: 0 }, wallet: { port: 0, addressCount: 1 } },
    { hasher: loadNativeHasher({ portable: false }) },
  );
  process.send?.(new URL(devnet.daemonUrl).port);
  process.on('disconnect', () => {
    void devnet.stop().finally(() => process.exit(0));
  });
}

interface CallCpu {
  /** CPU µs per call, user space and kernel together... */
  readonly totalUs: number;
  /** ...and of it in the kernel. */
  readonly kernelUs: number;
}

/** The calls timed: each asks the daemon and returns the height its answer names. */
const CALLS = {
  getheight: async (exchange: HttpExchange) => {
    const answer = await exchange.send('GET', '/getheight');
    return answer.status === 200 ? (JSON.parse(answer.body) as { height?: unknown }).height : undefined;
  },
  getlastblockheader: async (exchange: HttpExchange) => {
    const result = (await callJsonRpc(exchange, 1, 'getlastblockheader', {})) as {
      block_header?: { height?: unknown };
    };
    return result.block_header?.height;
  },
} as const;
type CallName = keyof typeof CALLS;

function isCallName(name: string): name is CallName {
  return Object.hasOwn(CALLS, name);
}

/** CPU per call of `calls` calls spaced `intervalMs` apart. */
async function round(
  exchange: HttpExchange,
  call: CallName,
  calls: number,
  intervalMs: number,
): Promise<CallCpu> {
  let userUs = 0;
  let kernelUs = 0;
  for (let i = 0; i < calls; i++) {
    const before = process.cpuUsage();
    const height = await CALLS[call](exchange);
    const used = process.cpuUsage(before);
    userUs += used.user;
    kernelUs += used.system;
    if (typeof height !== 'number') throw new Error(`${call}: no height in the answer`);
    await sleep(intervalMs);
  }
  return { totalUs: (userUs + kernelUs) / calls, kernelUs: kernelUs / calls };
}

function medianOf(rounds: readonly CallCpu[], key: keyof CallCpu): number {
  return Number(median(rounds.map((cpu) => cpu[key])).toFixed(1));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '200' },
      'interval-ms': { type: 'string', default: '25' },
      call: { type: 'string', default: 'getheight' },
    },
  });
  const call = values.call;
  if (!isCallName(call)) {
    throw new Error(`--call must be one of ${Object.keys(CALLS).join(', ')}, got "${call}"`);
  }
  const calls = Number(values.calls);
  const intervalMs = Number(values['interval-ms']);
  if (!Number.isInteger(calls) || calls < 1)
    throw new Error(`--calls must be a positive integer, got "${values.calls}"`);
  if (!Number.isFinite(intervalMs) || intervalMs < 0) {
    throw new Error(`--interval-ms must be a number of milliseconds >= 0, got "${values['interval-ms']}"`);
  }
  const child = fork(fileURLToPath(import.meta.url), ['daemon']);
  const port = Number(await new Promise((resolve) => child.once('message', resolve)));
  const options = { host: '127.0.0.1', port, timeoutMs: 5_000 };
  const clients = { node: new JsonHttpClient(options), own: new KeptAliveHttpClient(options) };
  const perCall: Record<keyof typeof clients, CallCpu[]> = { node: [], own: [] };
  try {
    for (const name of ['node', 'own'] as const) await round(clients[name], call, 20, intervalMs); // warm-up
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? (['node', 'own'] as const) : (['own', 'node'] as const);
      for (const name of order) {
        const cpu = await round(clients[name], call, calls, intervalMs);
        perCall[name].push(cpu);
        process.stdout.write(
          `round ${i + 1}, ${name === 'node' ? "Node's HTTP client" : 'own kept-alive connection'}: ${cpu.totalUs.toFixed(1)} µs of CPU per call, ${cpu.kernelUs.toFixed(1)} of it in the kernel (${calls} calls, ${intervalMs} ms apart)\n`,
        );
      }
    }
  } finally {
    clients.node.close();
    clients.own.close();
    child.disconnect();
  }
  const result = {
    call,
    calls,
    intervalMs,
    nodeHttpCpuUsPerCall: medianOf(perCall.node, 'totalUs'),
    nodeHttpKernelUsPerCall: medianOf(perCall.node, 'kernelUs'),
    ownConnectionCpuUsPerCall: medianOf(perCall.own, 'totalUs'),
    ownConnectionKernelUsPerCall: medianOf(perCall.own, 'kernelUs'),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[2] === 'daemon') await daemon();
else await main();
