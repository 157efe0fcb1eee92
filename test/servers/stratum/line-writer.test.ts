import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SocketLineWriter, type WriteFault } from '../../../src/servers/stratum/line-writer.js';

/**
 * A socket whose peer reads only when told to (`flush`), or at once (`autoFlush`). Records each
 * write the stream makes: one entry per _write, all chunks of a _writev in one entry.
 */
class PeerSocket extends Writable {
  readonly writes: string[][] = [];
  readonly #pending: Array<() => void> = [];
  readonly #autoFlush: boolean;

  constructor(autoFlush: boolean) {
    super({ decodeStrings: false });
    this.#autoFlush = autoFlush;
  }

  override _write(chunk: string, _encoding: BufferEncoding, done: () => void): void {
    this.#record([chunk], done);
  }

  override _writev(chunks: Array<{ chunk: string }>, done: () => void): void {
    this.#record(
      chunks.map((c) => c.chunk),
      done,
    );
  }

  /** The peer reads what the socket is writing now. */
  flush(): void {
    for (const done of this.#pending.splice(0)) done();
  }

  #record(chunks: string[], done: () => void): void {
    this.writes.push(chunks);
    if (this.#autoFlush) done();
    else this.#pending.push(done);
  }
}

const LIMITS = { maxSendQueueBytes: 64, writeTimeoutMs: 1_000 };
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function writerOn(socket: PeerSocket, limits = LIMITS) {
  const faults: WriteFault[] = [];
  const writer = new SocketLineWriter(socket, limits, (fault) => faults.push(fault));
  return { writer, faults };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('SocketLineWriter', () => {
  it('arms no write deadline for lines the peer takes at once', async () => {
    const socket = new PeerSocket(true);
    const { writer, faults } = writerOn(socket);
    writer.send('a\n');
    writer.send('b\n');
    expect(vi.getTimerCount()).toBe(0);
    await nextTurn();
    await vi.advanceTimersByTimeAsync(5 * LIMITS.writeTimeoutMs);
    expect(socket.writes.flat()).toEqual(['a\n', 'b\n']);
    expect(faults).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reports a write timeout once when queued writes make no progress for writeTimeoutMs', async () => {
    const socket = new PeerSocket(false);
    const { writer, faults } = writerOn(socket);
    writer.send('a\n');
    await vi.advanceTimersByTimeAsync(LIMITS.writeTimeoutMs - 1);
    expect(faults).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(faults).toEqual(['write-timeout']);
    await vi.advanceTimersByTimeAsync(5 * LIMITS.writeTimeoutMs);
    expect(faults).toEqual(['write-timeout']);
  });

  it('restarts the deadline on every flushed write and clears it once nothing is queued', async () => {
    const socket = new PeerSocket(false);
    const { writer, faults } = writerOn(socket);
    writer.send('a\n');
    writer.send('b\n');
    await vi.advanceTimersByTimeAsync(0.8 * LIMITS.writeTimeoutMs);
    socket.flush(); // 'a' written, 'b' now being written
    await nextTurn();
    await vi.advanceTimersByTimeAsync(0.8 * LIMITS.writeTimeoutMs);
    expect(faults).toEqual([]);
    socket.flush();
    await nextTurn();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5 * LIMITS.writeTimeoutMs);
    expect(faults).toEqual([]);
  });

  it('reports a slow consumer as soon as the send queue passes maxSendQueueBytes', () => {
    const socket = new PeerSocket(false);
    const { writer, faults } = writerOn(socket);
    writer.send(`${'x'.repeat(LIMITS.maxSendQueueBytes - 1)}\n`);
    expect(faults).toEqual([]);
    writer.send('y\n');
    expect(faults).toEqual(['slow-consumer']);
  });

  it('lines sent in one turn after batchUntilNextTick leave in one write', async () => {
    const socket = new PeerSocket(true);
    const { writer } = writerOn(socket);
    writer.batchUntilNextTick();
    writer.batchUntilNextTick();
    writer.send('a\n');
    writer.send('b\n');
    writer.send('c\n');
    expect(socket.writes).toEqual([]);
    await nextTurn();
    expect(socket.writes).toEqual([['a\n', 'b\n', 'c\n']]);
    writer.send('d\n');
    expect(socket.writes).toEqual([['a\n', 'b\n', 'c\n'], ['d\n']]);
  });

  it('after stop() writes nothing and its deadline never fires', async () => {
    const socket = new PeerSocket(false);
    const { writer, faults } = writerOn(socket);
    writer.send('a\n');
    writer.stop();
    writer.send('b\n');
    socket.flush();
    await nextTurn();
    await vi.advanceTimersByTimeAsync(5 * LIMITS.writeTimeoutMs);
    expect(socket.writes.flat()).toEqual(['a\n']);
    expect(faults).toEqual([]);
  });

  it('writes nothing to a destroyed socket', () => {
    const socket = new PeerSocket(true);
    const { writer, faults } = writerOn(socket);
    socket.destroy();
    writer.batchUntilNextTick();
    writer.send('a\n');
    expect(socket.writes).toEqual([]);
    expect(faults).toEqual([]);
  });
});
