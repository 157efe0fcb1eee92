/**
 * The floor under the pool's job push: CPU of a bare Node server (no pool code) that writes one
 * job-sized line to each of N loopback sockets, user and kernel time per socket. The readers are
 * a child process (this file with `reader`), so the server's CPU is its own. Rounds alternate
 * between Node's `socket.write` and the pool's batched native writer (socket-write-batch.ts, when
 * the addon is built), each line queued as the pool queues a job's.
 *
 *   npm run build && tsc -p tsconfig.bench.json && node build/bench/benchmarks/stratum/loopback-write-floor.js [N]
 *
 * On loopback the kernel part includes the receiving side's TCP path, which runs in the writer's
 * `write`. Prints one line per round.
 */
import { fork } from 'node:child_process';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadSocketWriteBatch, plainSocketFd } from '../../src/servers/stratum/socket-write-batch.js';

const ROUNDS = 6;
/** Connections opened before a pause, so the server's accept queue never overflows. */
const CONNECT_BATCH = 500;
/** A job notification's size and shape (a 76-byte blob in hex, a 16-byte job id). */
const JOB_LINE = `{"jsonrpc":"2.0","method":"job","params":{"blob":"${'ab'.repeat(76)}","job_id":"${'0'.repeat(32)}","target":"ffffffff","algo":"cn/upx2","height":123456,"seed_hash":""}}\n`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The reading side: N sockets; tells the parent when each socket has read a line once more. */
async function reader(port: number, count: number): Promise<void> {
  const sockets: Socket[] = [];
  let lines = 0;
  for (let i = 0; i < count; i++) {
    const socket = connect({ port, host: '127.0.0.1', localAddress: `127.20.0.${(i % 8) + 1}` });
    socket.on('data', () => {
      if (++lines % count === 0) process.send?.('round');
    });
    sockets.push(socket);
    if (i % CONNECT_BATCH === CONNECT_BATCH - 1) await sleep(20);
  }
  process.on('disconnect', () => {
    for (const socket of sockets) socket.destroy();
    process.exit(0);
  });
}

async function writer(count: number): Promise<void> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const child = fork(fileURLToPath(import.meta.url), ['reader', String(count), String(port)]);
  try {
    while (sockets.length < count) await sleep(100);
    const loaded = loadSocketWriteBatch();
    const batch = 'batch' in loaded ? loaded.batch : undefined;
    if (batch === undefined)
      process.stdout.write(`no batched rounds: ${'unavailable' in loaded ? loaded.unavailable : ''}\n`);
    const targets = sockets.map((socket) => ({
      fd: () => plainSocketFd(socket),
      settle: (line: Uint8Array, taken: number) => socket.write(taken > 0 ? line.subarray(taken) : line),
    }));
    for (let round = 0; round < ROUNDS; round++) {
      const batched = batch !== undefined && round % 2 === 1;
      const roundDone = new Promise((resolve) => child.once('message', resolve));
      const before = process.cpuUsage();
      const started = performance.now();
      if (batched) for (const target of targets) batch.enqueue(target, JOB_LINE);
      else for (const socket of sockets) socket.write(JOB_LINE);
      batch?.flush();
      const loopMs = performance.now() - started;
      await roundDone;
      const cpu = process.cpuUsage(before);
      process.stdout.write(
        `round ${round + 1} (${batched ? 'batched native' : 'socket.write'}): ${count} sockets, write loop ${loopMs.toFixed(0)} ms; server CPU per socket: user ${(cpu.user / count).toFixed(1)} µs, kernel ${(cpu.system / count).toFixed(1)} µs\n`,
      );
      await sleep(500);
    }
  } finally {
    child.disconnect();
    for (const socket of sockets) socket.destroy();
    server.close();
  }
}

if (process.argv[2] === 'reader') await reader(Number(process.argv[4]), Number(process.argv[3]));
else await writer(Number(process.argv[2] ?? 10_000));
