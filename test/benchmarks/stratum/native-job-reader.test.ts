import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NativeJobReader } from '../../../benchmarks/stratum/native-job-reader.js';
import { StratumClient } from '../../../benchmarks/stratum/stratum-client.js';

/** A job notification as the pool writes it, with the height last. */
function jobLine(height: number): string {
  return `{"jsonrpc":"2.0","method":"job","params":{"blob":"0909","job_id":"ab01","target":"ffffff00","algo":"cn/upx2","height":${height}}}\n`;
}

describe("the connections benchmark's native job reader", () => {
  let server: Server;
  const serverSide: Socket[] = [];
  let port = 0;
  let reader: NativeJobReader;

  beforeAll(async () => {
    server = createServer((socket) => {
      socket.on('error', () => {}); // a write to a miner that closed
      serverSide.push(socket);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
    const started = NativeJobReader.start();
    if (!(started instanceof NativeJobReader)) throw new Error(started.unavailable);
    reader = started;
  });

  afterAll(async () => {
    reader.stop();
    for (const socket of serverSide) socket.destroy();
    server.close();
    await once(server, 'close');
  });

  async function connectClients(count: number): Promise<StratumClient[]> {
    const before = serverSide.length;
    const clients: StratumClient[] = [];
    for (let i = 0; i < count; i++) clients.push(await StratumClient.connect(port));
    await expect.poll(() => serverSide.length).toBe(before + count);
    return clients;
  }

  it('stamps the first job of at least the armed height per miner, counts older ones and other lines', async () => {
    const clients = await connectClients(3);
    const [first, second, third] = serverSide.slice(-3) as [Socket, Socket, Socket];
    clients.forEach((client, slot) => {
      const fd = client.handOverReading();
      expect(fd).toBeTypeOf('number');
      reader.watch(slot, fd!);
    });
    reader.arm(100);
    const armedAtMs = Date.now();

    // A line split over two reads is stamped when its end arrives.
    const line = jobLine(100);
    first.write(line.slice(0, 40));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const secondPartAtMs = Date.now();
    first.write(line.slice(40));
    second.write(jobLine(99) + jobLine(101) + jobLine(102));
    third.write('{"id":1,"jsonrpc":"2.0","error":null,"result":{"status":"OK"}}\n');
    await expect.poll(() => reader.received()).toBe(2);

    // The third miner's reply is read (or not yet): wait until it is counted.
    await expect.poll(() => reader.collect(3).otherLines).toBe(1);
    const arrivals = reader.collect(3);
    expect(arrivals.atMs[0]).toBeGreaterThanOrEqual(secondPartAtMs - 1);
    expect(arrivals.atMs[1]).toBeGreaterThanOrEqual(armedAtMs - 1);
    expect(arrivals.atMs[1]).toBeLessThanOrEqual(Date.now() + 1);
    expect(Number.isNaN(arrivals.atMs[2])).toBe(true);
    expect([...arrivals.heights.slice(0, 2)]).toEqual([100, 101]);
    expect(arrivals.lateEarlier).toBe(1);
    expect(arrivals.closed).toBe(0);
    clients.forEach((client, slot) => {
      reader.unwatch(slot);
      client.destroy();
    });
  });

  it('counts a miner the pool closed, and never reads a miner unwatched before its socket closed', async () => {
    const clients = await connectClients(2);
    const [kept, unwatched] = serverSide.slice(-2) as [Socket, Socket];
    clients.forEach((client, k) => {
      reader.watch(10 + k, client.handOverReading()!);
    });
    const closedBefore = reader.collect(0).closed;
    kept.end();
    await expect.poll(() => reader.collect(0).closed).toBe(closedBefore + 1);

    reader.unwatch(11);
    clients[1]!.destroy();
    reader.arm(5);
    unwatched.write(jobLine(5), () => {});
    // A socket accepted now may take the closed one's descriptor number: its slot is its own.
    const [again] = await connectClients(1);
    reader.watch(12, again!.handOverReading()!);
    serverSide.at(-1)!.write(jobLine(5));
    await expect.poll(() => reader.received()).toBe(1);
    const arrivals = reader.collect(13);
    expect(Number.isNaN(arrivals.atMs[11])).toBe(true);
    expect(arrivals.heights[12]).toBe(5);
    reader.unwatch(12);
    again!.destroy();
    clients[0]!.destroy();
  });

  it('leaves a socket to Node while a request awaits its reply', async () => {
    const [client] = await connectClients(1);
    const reply = client!.request('keepalived', {});
    expect(client!.handOverReading()).toBeUndefined();
    serverSide.at(-1)!.write('{"id":1,"jsonrpc":"2.0","error":null,"result":{"status":"KEEPALIVED"}}\n');
    expect((await reply).result).toEqual({ status: 'KEEPALIVED' });
    expect(client!.handOverReading()).toBeTypeOf('number');
    client!.destroy();
  });

  it('refuses a slot that is not a small integer, and a slot watched twice', async () => {
    const [client] = await connectClients(1);
    const fd = client!.handOverReading()!;
    expect(() => reader.watch(-1, fd)).toThrow(RangeError);
    expect(() => reader.watch(2 ** 24, fd)).toThrow(RangeError);
    expect(() => reader.watch(1.5, fd)).toThrow(RangeError);
    reader.watch(20, fd);
    expect(() => reader.watch(20, fd)).toThrow(/exists/);
    reader.unwatch(20);
    client!.destroy();
  });
});
