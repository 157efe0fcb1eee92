import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/log/logger.js';
import type { StratumBackend } from '../../../src/pool/stratum-backend.js';
import { StratumError } from '../../../src/pool/stratum-errors.js';
import { ApiConnectionCaps } from '../../../src/servers/api/connection-caps.js';
import { type FloodDropOptions, FloodDrops } from '../../../src/servers/flood-drop/flood-drops.js';
import { type ListenerFilter, loadListenerFilter } from '../../../src/servers/flood-drop/listener-filter.js';
import { StratumServer } from '../../../src/servers/stratum/stratum-server.js';
import { stratumServerOptions } from '../../helpers/config-defaults.js';
import { captureLogs } from '../../helpers/log-capture.js';

const OPTIONS: FloodDropOptions = {
  refusals: 10,
  refusalsPerSec: 1,
  dropMs: 1_000,
  maxDropMs: 4_000,
  maxSources: 2,
};

/** Records what would be attached, by listener; the sources are read back from the program's compares. */
class RecordingFilter implements ListenerFilter {
  readonly attached = new Map<Server, Uint32Array | null>();
  attach(server: Server, program: Uint32Array): boolean {
    this.attached.set(server, program);
    return true;
  }
  detach(server: Server): void {
    this.attached.set(server, null);
  }
  /** The 32-bit words the program compares IPv4 sources with (jeq k after a load of offset 12). */
  ipv4Sources(server: Server): string[] {
    const program = this.attached.get(server);
    if (!program) return [];
    const sources: string[] = [];
    for (let i = 4; i + 4 < program.length; i += 4) {
      if (program[i] === 0x20 && program[i + 4] === 0x15) {
        const k = program[i + 7]!;
        sources.push([k >>> 24, (k >>> 16) & 0xff, (k >>> 8) & 0xff, k & 0xff].join('.'));
      }
    }
    return sources;
  }
}

function setup(options: FloodDropOptions = OPTIONS) {
  let nowMs = 1_000_000;
  const filter = new RecordingFilter();
  const log = captureLogs();
  const drops = new FloodDrops(options, filter, log.logger, () => nowMs);
  const server = {} as Server;
  drops.addListener(server);
  return {
    drops,
    filter,
    server,
    log,
    advance: (ms: number) => {
      nowMs += ms;
    },
    refuse: (peer: string, times: number) => {
      for (let i = 0; i < times; i++) drops.noteRefusal(peer);
    },
  };
}

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('FloodDrops', () => {
  it('drops a peer only past its burst of refusals, and only that peer', () => {
    const t = setup();
    t.refuse('127.0.0.5', 10);
    t.refuse('127.0.0.6', 3);
    expect(t.drops.dropping()).toBe(0);
    expect(t.filter.attached.size).toBe(0);
    t.refuse('127.0.0.5', 1);
    expect(t.drops.dropping()).toBe(1);
    expect(t.filter.ipv4Sources(t.server)).toEqual(['127.0.0.5']);
    const warning = t.log.records.find((r) => r['peer'] === '127.0.0.5');
    expect(warning).toMatchObject({ level: 40, dropSeconds: 1, strikes: 1 });
    t.drops.close();
  });

  it('lets a miner that retries every few seconds refuse forever without a drop', () => {
    const t = setup();
    for (let i = 0; i < 1_000; i++) {
      t.refuse('127.0.0.5', 1);
      t.advance(1_000); // one refusal a second: what the budget earns back
    }
    expect(t.drops.dropping()).toBe(0);
  });

  it('ends a drop on time, and gives a peer that floods again twice as long', async () => {
    const t = setup({ ...OPTIONS, dropMs: 50, maxDropMs: 150 });
    t.refuse('127.0.0.5', 11);
    expect(t.drops.dropping()).toBe(1);
    t.advance(60);
    await new Promise((resolve) => setTimeout(resolve, 120)); // the timer that ends it
    expect(t.drops.dropping()).toBe(0);
    expect(t.filter.attached.get(t.server)).toBeNull(); // taken off, not left empty
    t.refuse('127.0.0.5', 11);
    expect(t.log.records.filter((r) => r['peer'] === '127.0.0.5').map((r) => r['dropSeconds'])).toEqual([
      0.05, 0.1,
    ]);
    t.drops.close();
  });

  it('holds at most maxSources peers, the one ending soonest making room', () => {
    const t = setup();
    t.refuse('10.0.0.1', 11);
    t.advance(10);
    t.refuse('10.0.0.2', 11);
    t.advance(10);
    t.refuse('10.0.0.3', 11);
    expect(t.filter.ipv4Sources(t.server)).toEqual(['10.0.0.2', '10.0.0.3']);
    t.drops.close();
  });

  it("never drops an exempt peer (the operator's own proxy)", () => {
    const t = setup({ ...OPTIONS, exemptPeers: new Set(['127.0.0.5']) });
    t.refuse('127.0.0.5', 1_000);
    expect(t.drops.dropping()).toBe(0);
  });

  it('does nothing with refusals 0', () => {
    const t = setup({ ...OPTIONS, refusals: 0 });
    t.refuse('127.0.0.5', 10_000);
    expect(t.drops.dropping()).toBe(0);
    expect(t.filter.attached.size).toBe(0);
  });
});

const loaded = loadListenerFilter();

/** Kernel drops through the real filter: past `refusals` (1 earned back a second), 3 s each. */
function kernelDrops(refusals: number): { drops: FloodDrops; log: ReturnType<typeof captureLogs> } {
  const log = captureLogs();
  const options = { refusals, refusalsPerSec: 1, dropMs: 3_000, maxDropMs: 3_000, maxSources: 16 };
  return { drops: new FloodDrops(options, (loaded as { filter: ListenerFilter }).filter, log.logger), log };
}

/** A backend whose only answer is that 127.0.0.9 is banned: every connection of it is refused at accept. */
function bannedPeerBackend(): StratumBackend {
  const refuse = (): never => {
    throw new StratumError('UNAUTHENTICATED');
  };
  return {
    login: async () => refuse(),
    getJob: refuse,
    submit: async () => refuse(),
    keepalive: () => undefined,
    disconnect: () => undefined,
    canAcceptSubmits: () => true,
    isBanned: (ip: string) => ip === '127.0.0.9',
  } as unknown as StratumBackend;
}

/** 'answered' when the pool answers a SYN within 800 ms (its handshake, or the reset after it), else 'no answer'. */
function tcpOpen(port: number, localAddress: string): Promise<'answered' | 'no answer'> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port, localAddress });
    socket.on('error', () => undefined);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('no answer');
    }, 800);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve('answered');
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve('answered'); // reset: the kernel answered for the pool
    });
  });
}

/** A stratum server on a free loopback port whose refusals feed `drops`, closed after the test. */
async function dropFilteredStratum(drops: FloodDrops, logger: Logger, backend: StratumBackend) {
  const server = new StratumServer(stratumServerOptions({ ports: [{ port: 0, difficulty: 1000 }] }), {
    backend,
    logger,
    floodDrops: drops,
  });
  await server.start();
  closers.push(
    () => server.close(),
    () => drops.close(),
  );
  return { server, port: server.listening()[0]!.port };
}

describe.skipIf(!('filter' in loaded))('the stratum and API servers with kernel drops', () => {
  it('stops answering a banned peer that reconnects at full speed, and no one else', async () => {
    const { drops, log } = kernelDrops(20);
    const { server, port } = await dropFilteredStratum(drops, log.logger, bannedPeerBackend());

    // Each of these is accepted and reset (the first one told BANNED) until the drop starts.
    let answered = 0;
    while (answered < 40 && (await tcpOpen(port, '127.0.0.9')) === 'answered') answered++;
    expect(answered).toBeGreaterThanOrEqual(20); // its burst of refusals (and the one BANNED notice)
    expect(answered).toBeLessThanOrEqual(22);
    expect(drops.dropping()).toBe(1);
    expect(server.metrics().connections.floodDropped).toBe(1); // fuego_pool_flood_dropped_peers
    expect(await tcpOpen(port, '127.0.0.10')).toBe('answered');
    const refusedBefore = server.metrics().connections.refused['banned'] ?? 0;
    expect(await tcpOpen(port, '127.0.0.9')).toBe('no answer');
    expect(server.metrics().connections.refused['banned'] ?? 0).toBe(refusedBefore); // never reached Node

    while (drops.dropping() > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await tcpOpen(port, '127.0.0.9')).toBe('answered');
  });

  it('stops answering a peer that keeps reconnecting to log in where its logins fail', async () => {
    const { drops, log } = kernelDrops(10);
    const { port } = await dropFilteredStratum(drops, log.logger, {
      ...bannedPeerBackend(),
      login: async () => Promise.reject(new StratumError('INVALID_LOGIN')),
    });
    const failedLogin = (localAddress: string): Promise<'closed' | 'no answer'> =>
      new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port, localAddress });
        socket.on('error', () => undefined);
        const timer = setTimeout(() => {
          socket.destroy();
          resolve('no answer');
        }, 800);
        socket.once('connect', () =>
          socket.write('{"id":1,"method":"login","params":{"login":"x","pass":"x","agent":"t"}}\n'),
        );
        // The refusal (INVALID_LOGIN) comes before the pool closes: answered, so gone.
        socket.once('data', () => {
          clearTimeout(timer);
          socket.destroy();
          resolve('closed');
        });
      });
    let closed = 0;
    while (closed < 30 && (await failedLogin('127.0.0.13')) === 'closed') closed++;
    // Its burst of 10, the one that went past it, and one that may connect before that close is noted.
    expect(closed).toBeGreaterThanOrEqual(11);
    expect(closed).toBeLessThanOrEqual(12);
    expect(await failedLogin('127.0.0.14')).toBe('closed'); // another peer is still served
  });

  it('stops answering a peer that keeps connecting to the API over its connection cap', async () => {
    const { drops } = kernelDrops(20);
    const held: Socket[] = [];
    const server = createServer((socket) => held.push(socket));
    new ApiConnectionCaps(
      { maxConnections: 100, maxConnectionsPerPeer: 1, exemptIps: [], ipv6PrefixLength: 64 },
      { floodDrops: drops },
    ).attach(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () => new Promise((resolve) => server.close(resolve)),
      () => {
        for (const socket of held) socket.destroy();
      },
      () => drops.close(),
    );
    const port = (server.address() as AddressInfo).port;
    const kept = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.11' });
    closers.push(() => kept.destroy());
    await new Promise((resolve) => kept.once('connect', resolve));

    let answered = 0;
    while (answered < 40 && (await tcpOpen(port, '127.0.0.11')) === 'answered') answered++;
    expect(answered).toBeGreaterThanOrEqual(20);
    expect(answered).toBeLessThanOrEqual(21);
    expect(await tcpOpen(port, '127.0.0.12')).toBe('answered');
    expect(kept.destroyed).toBe(false); // its held connection is not cut
  });
});
