import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient, connectError } from '../../../src/cli/control-client.js';
import type { ControlError } from '../../../src/servers/control/control-errors.js';
import type { ControlProgress } from '../../../src/servers/control/control-protocol.js';
import { type ControlServer, startControlServer } from '../../../src/servers/control/control-server.js';
import { controlServerOptions } from '../../helpers/config-defaults.js';
import {
  controlModules,
  fakeLeader,
  MINER_A,
  SUMMARY,
  type TempDir,
  tempDir,
  UPKEEP_REPORT,
} from './control-fakes.js';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as ControlError).code;
  }
  throw new Error('expected a rejection');
}

/** Sends one net-ipc frame by hand: "IPC", then a length-tagged JSON packet (net-ipc's framing). */
function frame(json: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(json));
  const tag: number[] = [];
  let size = body.length;
  tag.push((size & 127) + 128);
  for (size >>= 7; size > 0; size >>= 7) tag.push(size & 127);
  return Buffer.concat([Buffer.from(tag.reverse()), body]);
}

/** Resolves when the server has closed this raw connection (its replies are read and discarded). */
function waitClosed(socket: ReturnType<typeof connect>): Promise<void> {
  socket.on('error', () => undefined);
  socket.resume();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

describe('control server', () => {
  let dir: TempDir;
  let socketPath: string;
  let server: ControlServer | undefined;
  let client: ControlClient | undefined;

  beforeEach(() => {
    dir = tempDir();
    socketPath = join(dir.path, 'control.sock');
  });

  afterEach(async () => {
    await client?.close();
    await server?.close();
    client = undefined;
    server = undefined;
    dir.remove();
  });

  it('creates the socket with mode 0600 and removes it on close', async () => {
    server = await startControlServer(controlServerOptions({ socketPath }), controlModules());
    const info = lstatSync(socketPath);
    expect(info.isSocket()).toBe(true);
    expect(info.mode & 0o777).toBe(0o600);
    await server.close();
    server = undefined;
    expect(() => lstatSync(socketPath)).toThrow();
  });

  it('refuses a missing directory, a non-socket file and a live socket; replaces a stale one', async () => {
    expect(
      await codeOf(
        startControlServer(
          controlServerOptions({ socketPath: join(dir.path, 'nope', 'deeper', 'c.sock') }),
          controlModules(),
        ),
      ),
    ).toBe('SOCKET_DIR_MISSING');

    const file = join(dir.path, 'file.sock');
    writeFileSync(file, 'keep me');
    expect(
      await codeOf(startControlServer(controlServerOptions({ socketPath: file }), controlModules())),
    ).toBe('SOCKET_PATH_NOT_SOCKET');
    expect(readFileSync(file, 'utf8')).toBe('keep me');

    server = await startControlServer(controlServerOptions({ socketPath }), controlModules());
    expect(await codeOf(startControlServer(controlServerOptions({ socketPath }), controlModules()))).toBe(
      'SOCKET_IN_USE',
    );
    client = await ControlClient.connect({ socketPath });
    expect((await client.request({ type: 'bans' })).bans).toEqual([]);

    // A stale socket: a second name for a socket whose server has gone.
    const stale = join(dir.path, 'stale.sock');
    const other = createServer();
    const otherPath = join(dir.path, 'other.sock');
    await new Promise<void>((resolve) => other.listen(otherPath, resolve));
    linkSync(otherPath, stale);
    await new Promise<void>((resolve) => other.close(() => resolve()));
    expect(lstatSync(stale).isSocket()).toBe(true);
    expect(await codeOf(ControlClient.connect({ socketPath: stale }))).toBe('SOCKET_STALE');
    const second = await startControlServer(controlServerOptions({ socketPath: stale }), controlModules());
    expect(statSync(stale).mode & 0o777).toBe(0o600);
    await second.close();
  });

  it("creates the socket's own directory 0700 when missing", async () => {
    const privatePath = join(dir.path, 'private', 'control.sock');
    server = await startControlServer(controlServerOptions({ socketPath: privatePath }), controlModules());
    expect(statSync(join(dir.path, 'private')).mode & 0o777).toBe(0o700);
    expect(lstatSync(privatePath).isSocket()).toBe(true);
  });

  it('refuses a directory where other users may add files (no sticky bit)', async () => {
    const open = join(dir.path, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(
      await codeOf(
        startControlServer(controlServerOptions({ socketPath: join(open, 'c.sock') }), controlModules()),
      ),
    ).toBe('SOCKET_DIR_UNSAFE');
  });

  // chown needs root; CI runs as root.
  it.runIf(process.getuid?.() === 0)("never replaces another user's stale socket", async () => {
    const planted = createServer();
    await new Promise<void>((resolve) => planted.listen(socketPath, resolve));
    const keep = join(dir.path, 'keep.sock');
    linkSync(socketPath, keep); // survives the close, as a crash leaves a socket
    await new Promise<void>((resolve) => planted.close(() => resolve()));
    chownSync(keep, 4242, 4242);
    expect(
      await codeOf(startControlServer(controlServerOptions({ socketPath: keep }), controlModules())),
    ).toBe('SOCKET_FOREIGN');
    expect(lstatSync(keep).uid).toBe(4242);
  });

  it.runIf(process.getuid?.() === 0)(
    "as root, talks to another user's socket only inside that user's private directory",
    async () => {
      const home = join(dir.path, 'pool-user');
      const inHome = join(home, 'control.sock');
      server = await startControlServer(controlServerOptions({ socketPath: inHome }), controlModules());
      chownSync(inHome, 4242, 4242);
      chownSync(home, 4242, 4242);
      client = await ControlClient.connect({ socketPath: inHome });
      expect((await client.request({ type: 'bans' })).bans).toEqual([]);
      await client.close();
      client = undefined;

      // The same socket seen through a directory anyone may add files to (as /tmp): refused.
      const shared = join(dir.path, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      const planted = join(shared, 'control.sock');
      linkSync(inHome, planted);
      expect(await codeOf(ControlClient.connect({ socketPath: planted }))).toBe('SOCKET_NOT_OWNED');
    },
  );

  it('answers status, bans, ban, unban and miners', async () => {
    const modules = controlModules();
    server = await startControlServer(
      controlServerOptions({ socketPath, hashrateWindowMs: 300_000 }),
      modules,
    );
    client = await ControlClient.connect({ socketPath });

    const status = await client.request({ type: 'status' });
    expect(status.templates).toEqual({
      healthy: true,
      height: 812_345,
      templateAgeMs: 4_200,
      consecutiveFailures: 0,
      lastError: null,
    });
    expect(status.stratum).toMatchObject({ connections: 12, sessions: 11, ports: { '3333': 10, '5555': 2 } });
    expect(status.stratum?.shares).toEqual({ accepted: 1200, stale: 7, rejected: 5 });
    expect(status.pool).toEqual({ hashrate: 1_234_567, windowSeconds: 300, miners: 8, workers: 11 });
    expect(status.payouts).toEqual({ role: 'leading', running: false });

    const banned = await client.request({
      type: 'ban',
      ip: '::FFFF:203.0.113.9',
      seconds: 600,
      reason: 'spam',
    });
    expect(banned.ban).toMatchObject({
      ip: '203.0.113.9',
      remainingSeconds: 600,
      reason: 'spam',
      manual: true,
    });
    await client.request({ type: 'ban', ip: '2001:DB8:0:0::1', seconds: 60 });
    expect([...modules.bans.entries.keys()]).toEqual(['203.0.113.9', '2001:db8::1']);
    expect((await client.request({ type: 'bans' })).bans.map((b) => b.ip)).toEqual([
      '203.0.113.9',
      '2001:db8::1',
    ]);
    expect((await client.request({ type: 'status' })).stratum?.bans).toEqual({ active: 2, issued: 4 });

    expect(await client.request({ type: 'unban', ip: '203.0.113.9' })).toEqual({
      ip: '203.0.113.9',
      wasBanned: true,
    });
    expect(await client.request({ type: 'unban', ip: '203.0.113.9' })).toEqual({
      ip: '203.0.113.9',
      wasBanned: false,
    });
    // An IPv6 network as `bans` lists it is passed on canonical (the pool maps it to its key).
    expect(await client.request({ type: 'unban', ip: '2001:DB8:0::/64' })).toMatchObject({
      ip: '2001:db8::/64',
    });

    const miners = await client.request({ type: 'miners', limit: 1 });
    expect(miners.windowSeconds).toBe(300);
    expect(miners.miners.map((m) => m.address)).toEqual([MINER_A]);
  });

  it('answers malformed requests with typed errors and keeps serving', async () => {
    server = await startControlServer(controlServerOptions({ socketPath }), controlModules());
    client = await ControlClient.connect({ socketPath, idleTimeoutMs: 2_000 });
    const raw = client as unknown as { request(body: Record<string, unknown>): Promise<unknown> };
    expect(await codeOf(raw.request({ type: 'reboot' }))).toBe('BAD_REQUEST');
    expect(await codeOf(raw.request({ type: 'ban', ip: '1.2.3.4' }))).toBe('BAD_REQUEST');
    expect(await codeOf(raw.request({ type: 'ban', ip: '1.2.3.4', seconds: -5 }))).toBe('BAD_REQUEST');
    expect(await codeOf(raw.request({ type: 'ban', ip: '1.2.3.4', seconds: 60, extra: true }))).toBe(
      'BAD_REQUEST',
    );
    expect(await codeOf(raw.request({ type: 'ban', ip: '1.2.3.4', seconds: 60, reason: 'a\u001b[2J' }))).toBe(
      'BAD_REQUEST',
    );
    expect(await codeOf(raw.request({ type: 'miners', limit: 10_000 }))).toBe('BAD_REQUEST');
    expect(await codeOf(client.request({ type: 'ban', ip: '1.2.3.999', seconds: 60 }))).toBe('INVALID_IP');
    expect(await codeOf(client.request({ type: 'unban', ip: 'fe80::1%eth0' }))).toBe('INVALID_IP');
    expect(await codeOf(client.request({ type: 'unban', ip: '10.0.0.0/8' }))).toBe('INVALID_IP');
    expect(await codeOf(client.request({ type: 'unban', ip: '2001:db8::/129' }))).toBe('INVALID_IP');

    // Garbage on a raw connection: that connection is dropped, the server lives on.
    const garbage = connect({ path: socketPath });
    await new Promise<void>((resolve) => garbage.once('connect', () => resolve()));
    const closed = waitClosed(garbage);
    garbage.write(Buffer.concat([Buffer.from('IPC'), frame({ t: 0, d: { extras: null } })]));
    garbage.write(Buffer.from([0x85, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b]));
    await closed;

    // A frame larger than the limit: dropped too.
    const big = connect({ path: socketPath });
    await new Promise<void>((resolve) => big.once('connect', () => resolve()));
    const bigClosed = waitClosed(big);
    big.write(Buffer.concat([Buffer.from('IPC'), frame({ t: 0, d: { extras: null } })]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    big.write(frame({ t: 2, n: 'x', d: { v: 1, id: 'x', type: 'status', pad: 'p'.repeat(200_000) } }));
    await bigClosed;

    expect((await client.request({ type: 'bans' })).bans).toEqual([]);
  });

  it('answers a wrong protocol version or a non-object with BAD_REQUEST', async () => {
    server = await startControlServer(controlServerOptions({ socketPath }), controlModules());
    const raw = connect({ path: socketPath });
    await new Promise<void>((resolve) => raw.once('connect', () => resolve()));
    const replies: unknown[] = [];
    let buffer = Buffer.alloc(0);
    raw.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      // Replies are small: a one- or two-byte tag then JSON.
      while (buffer.length > 0) {
        let size = 0;
        let i = 0;
        for (; i < buffer.length; i++) {
          const byte = buffer[i]!;
          size = size * 128 + (byte & 127);
          if (byte > 127) break;
        }
        if (i >= buffer.length || buffer.length < i + 1 + size) return;
        replies.push(JSON.parse(buffer.subarray(i + 1, i + 1 + size).toString()));
        buffer = buffer.subarray(i + 1 + size);
      }
    });
    raw.write(Buffer.concat([Buffer.from('IPC'), frame({ t: 0, d: { extras: null } })]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    raw.write(frame({ t: 2, n: 'r1', d: { v: 2, id: 'a1', type: 'status' } }));
    raw.write(frame({ t: 2, n: 'r2', d: 'status' }));
    await expect.poll(() => replies.length).toBe(3);
    const answers = replies.filter((r) => (r as { t: number }).t === 3) as {
      d: { ok: boolean; id: string; error: { code: string } };
    }[];
    expect(answers.map((a) => [a.d.id, a.d.ok, a.d.error.code])).toEqual([
      ['a1', false, 'BAD_REQUEST'],
      ['', false, 'BAD_REQUEST'],
    ]);
    raw.destroy();
  });

  /** A server whose leader takes 60 ms per task, a client, and a second client to ask meanwhile. */
  async function leadingServer() {
    const modules = controlModules();
    // Long enough that a second request arrives while the first task runs, on a loaded machine too.
    const leader = fakeLeader(modules.events, 300);
    server = await startControlServer(controlServerOptions({ socketPath, heartbeatMs: 25 }), {
      ...modules,
      leader: () => leader,
    });
    client = await ControlClient.connect({ socketPath });
    return { leader, first: client, second: await ControlClient.connect({ socketPath }) };
  }

  it('sends progress events for payout-now, then the summary; one money task at a time', async () => {
    const { leader, first, second } = await leadingServer();
    const progress: ControlProgress[] = [];
    const pass = first.request({ type: 'payout-now' }, { onProgress: (p) => progress.push(p) });
    await expect.poll(() => progress.length).toBeGreaterThan(0);
    expect(await codeOf(second.request({ type: 'payout-now' }))).toBe('PAYOUT_IN_PROGRESS');
    expect(await codeOf(second.request({ type: 'wallet-optimize' }))).toBe('PAYOUT_IN_PROGRESS');
    expect((await second.request({ type: 'status' })).payouts).toEqual({ role: 'leading', running: true });
    await second.close();
    const result = await pass;

    expect(leader.calls).toBe(1);
    expect(progress[0]).toMatchObject({ stage: 'started', done: 0 });
    expect(progress.some((p) => p.stage === 'running')).toBe(true);
    const sent = progress.filter((p) => p.stage === 'batch-sent');
    expect(sent.map((p) => p.done)).toEqual([1, 2]);
    expect(sent[0]!.detail).toContain('b-1');
    expect(sent[0]!.detail).toContain('12.3456789');
    expect(result.batchesSent).toBe(2);
    expect(result.summary?.batches.map((b) => [b.batchId, b.amountAtomic])).toEqual(
      SUMMARY.batches.map((b) => [b.batchId, b.amountAtomic.toString()]),
    );
  });

  it('answers PAYOUTS_UNAVAILABLE without a leader and PAYOUT_FAILED when the pass throws', async () => {
    server = await startControlServer(controlServerOptions({ socketPath }), controlModules({ leader: null }));
    client = await ControlClient.connect({ socketPath });
    expect(await codeOf(client.request({ type: 'payout-now' }))).toBe('PAYOUTS_UNAVAILABLE');
    expect((await client.request({ type: 'status' })).payouts.role).toBe('none');
    await client.close();
    await server.close();

    const failing = { payOnce: () => Promise.reject(new Error('wallet exploded')) };
    server = await startControlServer(
      controlServerOptions({ socketPath }),
      controlModules({ leader: () => failing }),
    );
    client = await ControlClient.connect({ socketPath });
    const error = await client.request({ type: 'payout-now' }).catch((e: unknown) => e as ControlError);
    expect((error as ControlError).code).toBe('PAYOUT_FAILED');
    expect((error as ControlError).message).toContain('wallet exploded');
  });

  it('runs the wallet upkeep on wallet-optimize, one money task at a time, with its typed refusals', async () => {
    const { leader, first, second } = await leadingServer();
    const progress: ControlProgress[] = [];
    const run = first.request({ type: 'wallet-optimize' }, { onProgress: (p) => progress.push(p) });
    await expect.poll(() => progress.length).toBeGreaterThan(0);
    expect(await codeOf(second.request({ type: 'payout-now' }))).toBe('PAYOUT_IN_PROGRESS');
    await second.close();
    const result = await run;
    expect(leader.optimizeCalls).toBe(1);
    expect(leader.calls).toBe(0);
    expect(result).toMatchObject({ ...UPKEEP_REPORT, elapsedMs: expect.any(Number) });
    expect(progress[0]).toMatchObject({ stage: 'started' });
    expect(progress.some((p) => p.stage === 'running')).toBe(true);
    await first.close();
    await server!.close();

    const withoutUpkeep = { payOnce: async () => SUMMARY };
    const failing = { ...withoutUpkeep, optimizeWallet: () => Promise.reject(new Error('walletd gone')) };
    for (const [leaderPart, code] of [
      [withoutUpkeep, 'PAYOUTS_UNAVAILABLE'],
      [failing, 'WALLET_OPTIMIZE_FAILED'],
    ] as const) {
      server = await startControlServer(
        controlServerOptions({ socketPath }),
        controlModules({ leader: () => leaderPart }),
      );
      client = await ControlClient.connect({ socketPath });
      expect(await codeOf(client.request({ type: 'wallet-optimize' }))).toBe(code);
      await client.close();
      await server.close();
    }
    server = await startControlServer(
      controlServerOptions({ socketPath }),
      controlModules({ leader: () => null }),
    );
    client = await ControlClient.connect({ socketPath });
    expect(await codeOf(client.request({ type: 'wallet-optimize' }))).toBe('PAYOUTS_UNAVAILABLE');
  });

  it('serves what a process of fewer roles has: standby leader, no stratum role', async () => {
    server = await startControlServer(
      controlServerOptions({ socketPath }),
      controlModules({ backend: null, bans: null, stratum: null, templates: () => null, leader: () => null }),
    );
    client = await ControlClient.connect({ socketPath });
    const status = await client.request({ type: 'status' });
    expect(status).toMatchObject({
      templates: null,
      stratum: null,
      payouts: { role: 'standby', running: false },
    });
    expect(status.pool).not.toBeNull();
    expect(await codeOf(client.request({ type: 'payout-now' }))).toBe('PAYOUTS_UNAVAILABLE');
    expect(await codeOf(client.request({ type: 'bans' }))).toBe('BANS_UNAVAILABLE');
    expect(await codeOf(client.request({ type: 'ban', ip: '1.2.3.4', seconds: 5 }))).toBe('BANS_UNAVAILABLE');
    expect(await codeOf(client.request({ type: 'unban', ip: '1.2.3.4' }))).toBe('BANS_UNAVAILABLE');
    expect((await client.request({ type: 'miners', limit: 5 })).miners).toHaveLength(2);
  });

  it("ban commands reach the pool's ban registry whatever the roles; its failure is named", async () => {
    const modules = controlModules({ backend: null, stratum: null, templates: () => null, leader: null });
    server = await startControlServer(controlServerOptions({ socketPath }), modules);
    client = await ControlClient.connect({ socketPath });
    expect((await client.request({ type: 'ban', ip: '203.0.113.4', seconds: 60 })).ban).toMatchObject({
      ip: '203.0.113.4',
      reason: 'manual (control socket)',
      manual: true,
      remainingSeconds: 60,
    });
    expect((await client.request({ type: 'bans' })).bans.map((b) => b.ip)).toEqual(['203.0.113.4']);
    expect(await client.request({ type: 'unban', ip: '203.0.113.4' })).toEqual({
      ip: '203.0.113.4',
      wasBanned: true,
    });
    // An IPv6 network: the peer size (/64) or the aggregate (/48), which bans match; no other.
    expect((await client.request({ type: 'ban', ip: '2001:DB8:7::/48', seconds: 60 })).ban.ip).toBe(
      '2001:db8:7::/48',
    );
    expect(await codeOf(client.request({ type: 'ban', ip: '2001:db8::/32', seconds: 60 }))).toBe(
      'INVALID_IP',
    );
    modules.bans.failing = true;
    expect(await codeOf(client.request({ type: 'bans' }))).toBe('BANS_STORE_UNAVAILABLE');
    expect(await codeOf(client.request({ type: 'ban', ip: '203.0.113.4', seconds: 60 }))).toBe(
      'BANS_STORE_UNAVAILABLE',
    );
    expect(await codeOf(client.request({ type: 'unban', ip: '203.0.113.4' }))).toBe('BANS_STORE_UNAVAILABLE');
  });

  it('waits for a payout pass in flight before closing', async () => {
    const modules = controlModules();
    const leader = fakeLeader(modules.events, 80);
    server = await startControlServer(controlServerOptions({ socketPath }), {
      ...modules,
      leader: () => leader,
    });
    client = await ControlClient.connect({ socketPath });
    const pass = client.request({ type: 'payout-now' }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await server.close();
    server = undefined;
    expect(await pass).toMatchObject({ batchesSent: 2 });
  });

  it('tells the operator what is wrong when it cannot connect', async () => {
    expect(await codeOf(ControlClient.connect({ socketPath }))).toBe('SOCKET_MISSING');
    writeFileSync(socketPath, '');
    expect(await codeOf(ControlClient.connect({ socketPath }))).toBe('SOCKET_MISSING');
    // Root ignores file modes, so EACCES is mapped, not provoked.
    expect(connectError(Object.assign(new Error('x'), { code: 'EACCES' }), socketPath).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(connectError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), socketPath).code).toBe(
      'SOCKET_STALE',
    );
  });

  it.skipIf(process.getuid?.() === 0)('denies a client without permission on the socket', async () => {
    server = await startControlServer(controlServerOptions({ socketPath }), controlModules());
    const { chmodSync } = await import('node:fs');
    chmodSync(socketPath, 0o000);
    expect(await codeOf(ControlClient.connect({ socketPath }))).toBe('PERMISSION_DENIED');
    chmodSync(socketPath, 0o600);
  });

  it('times out when the pool stays silent longer than the idle timeout', async () => {
    const slow = {
      payOnce: () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 400)),
    };
    server = await startControlServer(
      controlServerOptions({ socketPath, heartbeatMs: 10_000 }),
      controlModules({ leader: () => slow }),
    );
    client = await ControlClient.connect({ socketPath, idleTimeoutMs: 200 });
    expect(await codeOf(client.request({ type: 'payout-now' }))).toBe('TIMEOUT');
  });
});
