import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { builtAddonPath, requireAddon } from '../../../src/native-addon.js';
import type { StratumJob } from '../../../src/pool/stratum-backend.js';
import { SocketLineWriter, type WriteFault } from '../../../src/servers/stratum/line-writer.js';
import { encodeJobLine, encodeJobNotification } from '../../../src/servers/stratum/protocol.js';
import {
  loadSocketWriteBatch,
  plainSocketFd,
  type SocketWriteBatch,
  socketFdReader,
} from '../../../src/servers/stratum/socket-write-batch.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { until } from '../../helpers/until.js';

/**
 * The batched writer on real loopback sockets: what each miner reads is exactly the lines it was
 * sent, in order, whether the kernel took a line at once, in part, or not at all.
 */

const LIMITS = { maxSendQueueBytes: 8 * 1024 * 1024, writeTimeoutMs: 10_000 };

interface Pair {
  readonly server: Socket;
  readonly client: Socket;
  /** Everything the client has read so far. */
  received(): string;
}

let listener: Server;
const open: Socket[] = [];
let batch: SocketWriteBatch;

beforeAll(() => {
  const loaded = loadSocketWriteBatch();
  if (!('batch' in loaded)) throw new Error(`the addon must be built for these tests: ${loaded.unavailable}`);
  batch = loaded.batch;
});

afterEach(async () => {
  for (const socket of open.splice(0)) socket.destroy();
  if (listener?.listening) await new Promise((resolve) => listener.close(resolve));
});

async function pairs(count: number): Promise<Pair[]> {
  const accepted: Socket[] = [];
  listener = createServer((socket) => accepted.push(socket));
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const { port } = listener.address() as AddressInfo;
  const clients: Socket[] = [];
  for (let i = 0; i < count; i++) {
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    clients.push(client);
  }
  while (accepted.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
  open.push(...accepted, ...clients);
  // Accepted in connect order (one at a time above), so server i is client i's peer.
  return clients.map((client, i) => {
    const chunks: Buffer[] = [];
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    return { server: accepted[i]!, client, received: () => Buffer.concat(chunks).toString('utf8') };
  });
}

function directWriter(socket: Socket, limits = LIMITS) {
  const faults: WriteFault[] = [];
  const writer = new SocketLineWriter(socket, limits, (fault) => faults.push(fault), {
    batch,
    fd: socketFdReader(socket),
  });
  return { writer, faults };
}

/** Waits for `condition` (polled every 5 ms), failing the test after `timeoutMs`. */
const settled = (condition: () => boolean, what: string, timeoutMs = 5_000) =>
  until(() => condition() || undefined, timeoutMs, what, 5);

const jobLine = (miner: number, n: number) =>
  `{"jsonrpc":"2.0","method":"job","params":{"blob":"${'ab'.repeat(76)}","job_id":"${miner}-${n}","note":"é✓"}}\n`;

describe('batched socket writes', () => {
  it('delivers every miner its lines in order, batched with replies held in a corked turn', async () => {
    const miners = await pairs(40);
    const expected = miners.map(() => '');
    const writers = miners.map((pair) => directWriter(pair.server).writer);
    for (let round = 0; round < 3; round++) {
      const flushesBefore = batch.flushes;
      // One push: every miner's job in the same turn (one batch)...
      writers.forEach((writer, i) => {
        writer.send(jobLine(i, round));
        expected[i] += jobLine(i, round);
      });
      // ...then, in the same turn, a corked reply to some: the batch goes out before the first.
      writers.forEach((writer, i) => {
        if (i % 3 !== round) return;
        writer.batchUntilNextTick();
        const reply = `{"id":${round},"result":{"status":"OK"}}\n`;
        writer.send(reply);
        expected[i] += reply;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(batch.flushes - flushesBefore).toBe(1);
    }
    await settled(
      () => miners.every((pair, i) => pair.received().length >= expected[i]!.length),
      'every line',
    );
    miners.forEach((pair, i) => {
      expect(pair.received()).toBe(expected[i]);
    });
  });

  it('writes what the kernel did not take through Node, in order, once the miner reads again', async () => {
    const [pair] = await pairs(1);
    pair!.client.pause();
    const { writer, faults } = directWriter(pair!.server);
    const line = `${'x'.repeat(60_000)}\n`;
    let expected = '';
    // A paused reader fills the kernel's buffers: some line is taken in part or not at all.
    for (let i = 0; i < 200 && pair!.server.writableLength === 0; i++) {
      const numbered = `${i}:${line}`;
      writer.send(numbered);
      expected += numbered;
      batch.flush();
    }
    expect(pair!.server.writableLength).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      writer.send(`tail ${i}\n`);
      expected += `tail ${i}\n`;
    }
    pair!.client.resume();
    await settled(() => pair!.received().length >= expected.length, 'every byte', 10_000);
    expect(pair!.received()).toBe(expected);
    expect(faults).toEqual([]);
  });

  it('writes a job line held as parts byte for byte, in a batch and through Node behind a full buffer', async () => {
    const [reading, paused] = (await pairs(2)) as [Pair, Pair];
    paused.client.pause();
    const sharedBlob = { head: 'ab'.repeat(42), tail: 'cd'.repeat(33) };
    const job = (n: number): StratumJob => {
      const top = ((n % 255) + 1).toString(16).padStart(2, '0');
      const blob = sharedBlob.head + top + sharedBlob.tail;
      return {
        blob,
        job_id: `0a0b0c0d${top}`,
        target: 'b88d0600',
        algo: 'cn/upx2',
        height: 7,
        sharedBlob,
        nonceTopHex: top,
        jobIdPrefix: '0a0b0c0d',
      };
    };
    const writers = [directWriter(reading.server), directWriter(paused.server)];
    const expected = ['', ''];
    // The paused miner's kernel buffers fill first, so its job lines queue in Node behind them.
    for (let i = 0; i < 200 && paused.server.writableLength === 0; i++) {
      const filler = `${i}:${'z'.repeat(60_000)}\n`;
      writers[1]!.writer.send(filler);
      expected[1] += filler;
      batch.flush();
    }
    expect(paused.server.writableLength).toBeGreaterThan(0);
    for (let n = 0; n < 300; n++) {
      const line = encodeJobLine(job(n));
      expect(typeof line).toBe('object');
      writers.forEach(({ writer }, i) => {
        writer.send(line);
        expected[i] += encodeJobNotification(job(n));
      });
      if (n % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    paused.client.resume();
    await settled(
      () =>
        reading.received().length >= expected[0]!.length && paused.received().length >= expected[1]!.length,
      'every line',
      10_000,
    );
    expect(reading.received()).toBe(expected[0]);
    expect(paused.received()).toBe(expected[1]);
    expect(writers.flatMap((w) => w.faults)).toEqual([]);
  });

  it('still reports a slow consumer for what it leaves queued in Node', async () => {
    const [pair] = await pairs(1);
    pair!.client.pause();
    const { writer, faults } = directWriter(pair!.server, {
      maxSendQueueBytes: 100_000,
      writeTimeoutMs: 10_000,
    });
    const line = `${'y'.repeat(50_000)}\n`;
    for (let i = 0; i < 400 && faults.length === 0; i++) {
      writer.send(line);
      batch.flush();
    }
    expect(faults).toEqual(['slow-consumer']);
  });

  it('skips a socket destroyed after its line was queued, and writes the others', async () => {
    const miners = await pairs(3);
    const writers = miners.map((pair) => directWriter(pair.server).writer);
    writers.forEach((writer, i) => {
      writer.send(jobLine(i, 0));
    });
    miners[1]!.server.destroy();
    batch.flush();
    await settled(
      () => miners[0]!.received().length > 0 && miners[2]!.received().length > 0,
      'the open ones',
    );
    await settled(() => miners[1]!.client.closed, 'the close');
    expect(miners[0]!.received()).toBe(jobLine(0, 0));
    expect(miners[1]!.received()).toBe('');
    expect(miners[2]!.received()).toBe(jobLine(2, 0));
  });

  it('writes a held line before the socket is ended or destroyed in the same turn', async () => {
    const [ended, destroyed] = await pairs(2);
    const endedWriter = directWriter(ended!.server).writer;
    endedWriter.send(jobLine(0, 0));
    endedWriter.flushHeld();
    ended!.server.end();
    const destroyedWriter = directWriter(destroyed!.server).writer;
    destroyedWriter.send(jobLine(1, 0));
    destroyedWriter.stop();
    destroyed!.server.destroy();
    await settled(() => ended!.client.closed && destroyed!.client.closed, 'both closes');
    expect(ended!.received()).toBe(jobLine(0, 0));
    expect(destroyed!.received()).toBe(jobLine(1, 0));
  });

  it('writes a line to a socket Node is ending after the miner did, before its FIN, without an error or a fault', async () => {
    const [pair] = (await pairs(1)) as [Pair];
    const errors: Error[] = [];
    pair.server.on('error', (error) => errors.push(error));
    const { writer, faults } = directWriter(pair.server);
    // The miner's FIN ends the pool's side too (no half-open sockets): no longer writable in
    // Node, its shutdown not made yet. The writer does not ask the socket, so the line goes out.
    const ending = new Promise<{ writable: boolean; destroyed: boolean }>((resolve) => {
      // Node ends it on the tick after 'end': two ticks later, it has.
      pair.server.once('end', () =>
        process.nextTick(() =>
          process.nextTick(() => {
            const state = { writable: pair.server.writable, destroyed: pair.server.destroyed };
            writer.send(jobLine(0, 0));
            batch.flush();
            resolve(state);
          }),
        ),
      );
    });
    pair.client.end();
    expect(await ending).toEqual({ writable: false, destroyed: false });
    await settled(() => pair.client.closed, 'the close');
    expect(pair.received()).toBe(jobLine(0, 0));
    expect(errors).toEqual([]);
    expect(faults).toEqual([]);
  });

  it('never writes to a descriptor that is not a socket, and refuses a malformed batch', () => {
    type WriteLines = (
      fds: Int32Array,
      data: Uint8Array,
      ends: Uint32Array,
      count: number,
      results: Int32Array,
    ) => void;
    const loaded = requireAddon<{ writeLines: WriteLines }>(builtAddonPath('fuego_socket_write.node'));
    if (!('addon' in loaded)) throw new Error('the addon must be built for these tests');
    const path = join(tempDir('fuego-socket-write-'), 'file');
    const fd = openSync(path, 'w');
    try {
      const results = new Int32Array(2);
      loaded.addon.writeLines(Int32Array.of(fd, -1), Buffer.from('abcd'), Uint32Array.of(2, 4), 2, results);
      expect(results[0]).toBeLessThan(0); // ENOTSOCK
      expect(results[1]).toBeLessThan(0); // skipped: no descriptor
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(path, 'utf8')).toBe('');
    const write = (ends: Uint32Array, count: number) =>
      loaded.addon.writeLines(new Int32Array(2).fill(-1), new Uint8Array(4), ends, count, new Int32Array(2));
    expect(() => write(Uint32Array.of(3, 2), 2)).toThrow(RangeError);
    expect(() => write(Uint32Array.of(2, 9), 2)).toThrow(RangeError);
    expect(() => write(Uint32Array.of(2, 4), 3)).toThrow(RangeError);
    expect(() => write(Uint32Array.of(2, 4), 1e30)).toThrow(RangeError);
  });

  it('leaves a TLS or other stream without a descriptor to Node', () => {
    const stream = { destroyed: false, _handle: null } as unknown as Socket;
    expect(plainSocketFd(stream)).toBeUndefined();
    expect(socketFdReader(stream)()).toBeUndefined();
  });

  it("reads a socket's descriptor once, and gives none once the socket is destroyed", async () => {
    const [{ server }] = (await pairs(1)) as [Pair];
    const fd = plainSocketFd(server);
    const reader = socketFdReader(server);
    expect(fd).toBeGreaterThanOrEqual(0);
    expect(reader()).toBe(fd);
    server.destroy();
    expect(reader()).toBeUndefined();
    expect(plainSocketFd(server)).toBeUndefined();
  });
});
