import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolNode } from '../../../src/app/pool-node.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { createLogger } from '../../../src/log/logger.js';
import { loadListenerFilter } from '../../../src/servers/flood-drop/listener-filter.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';

const POOL_ADDRESS =
  'fireVHx639SLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxJmAUNp';
/** The refusal budget of a peer: past it (one earned back a second) its new connections are dropped. */
const REFUSALS = 10;
/**
 * Attempts a flooding peer gets before the test gives up on a drop. The drop can come a little
 * after the budget runs out (a child reports its refusals in batches; each attempt here is a
 * loopback round trip of a few ms), but well within this.
 */
const MAX_ATTEMPTS = 300;
/** A SYN the kernel drops is never answered; an accepted one is answered at once, also on a loaded machine. */
const SYN_WAIT_MS = 1_500;

const sockets: Socket[] = [];

type Attempt = 'answered' | 'no answer';

/**
 * A connection from `localAddress` that sends `line` (if any) once open: 'answered' when the pool
 * answers the SYN (its handshake, or the reset after it) and then closes the connection or a
 * line-less one is open; 'no answer' when the SYN goes unanswered.
 */
function attempt(port: number, localAddress: string, line?: string): Promise<Attempt> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    socket.on('error', () => undefined);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('no answer');
    }, SYN_WAIT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      if (line === undefined) {
        socket.destroy();
        resolve('answered');
      } else {
        socket.write(line);
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve('answered'); // closed by the pool, or reset at accept: the kernel answered for it
    });
  });
}

/** Attempts until the pool stops answering; how many it answered (MAX_ATTEMPTS: no drop). */
async function floodUntilDropped(port: number, localAddress: string, line?: string): Promise<number> {
  let answered = 0;
  while (answered < MAX_ATTEMPTS && (await attempt(port, localAddress, line)) === 'answered') answered++;
  return answered;
}

/** A miner logged in from `localAddress`; resolves with its socket and a reader of its next reply. */
async function loggedInMiner(
  port: number,
  localAddress: string,
): Promise<{
  socket: Socket;
  sessionId: string;
  request: (method: string, params: object) => Promise<Record<string, unknown>>;
}> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  sockets.push(socket);
  socket.setEncoding('utf8');
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffer = '';
  let id = 0;
  const request = (method: string, params: object): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      id += 1;
      const onData = (chunk: string): void => {
        buffer += chunk;
        const nl = buffer.indexOf('\n');
        if (nl === -1) return;
        socket.off('data', onData);
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        resolve(JSON.parse(line) as Record<string, unknown>);
      };
      socket.on('data', onData);
      socket.once('close', () => reject(new Error('the pool closed the connection')));
      socket.write(`${JSON.stringify({ id, jsonrpc: '2.0', method, params })}\n`);
    });
  const reply = await request('login', {
    login: `${POOL_ADDRESS}.kept`,
    pass: 'x',
    agent: 'cluster-flood-drops-test/1.0',
    algo: ['cn/upx2'],
  });
  expect(reply['error']).toBeNull();
  return { socket, sessionId: (reply['result'] as { id: string }).id, request };
}

/**
 * `stratum.processes: 2`: the stratum ports are listened on by the pool process (Node cluster hands
 * each accepted connection to a child). A peer that keeps connecting while refused, by a child (its
 * lines closed as protocol violations) or by the pool process (over its connection cap), has its
 * new connections dropped by the kernel there: no SYN-ACK. Other peers still connect, the peer's
 * connections opened before stay, and /metrics counts the dropped peers.
 */
describe.skipIf(!('filter' in loadListenerFilter()))(
  'kernel flood drops with stratum child processes',
  () => {
    let redis: TestRedis;
    let devnet: Devnet;
    let pool: PoolNode;
    let port: number;

    beforeAll(async () => {
      redis = await startTestRedis();
      devnet = await startTestDevnet();
      const daemon = new URL(devnet.daemonUrl);
      const wallet = new URL(devnet.walletUrl);
      const config = parseConfig({
        network: 'devnet',
        roles: ['stratum', 'leader', 'api'],
        redis: { url: redis.url },
        daemon: { host: '127.0.0.1', port: Number(daemon.port) },
        wallet: { host: '127.0.0.1', port: Number(wallet.port) },
        pool: { address: POOL_ADDRESS, nodeId: 60 },
        pow: { workers: 1 },
        stratum: {
          processes: 2,
          ports: [{ host: '127.0.0.1', port: 0, difficulty: 1_000 }],
          limits: { maxConnectionsPerIp: 1 },
        },
        floodDrop: { refusals: REFUSALS, refusalsPerSec: 1, dropSeconds: 600, maxDropSeconds: 600 },
        api: { host: '127.0.0.1', port: 0 },
        control: { enabled: false },
      });
      pool = await PoolNode.start(config, { logger: createLogger({ level: 'silent' }), env: {} });
      port = pool.stratumSurface!.listening()[0]!.port;
    }, 120_000);

    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await pool?.stop();
      await devnet?.stop();
      await redis?.stop();
    }, 60_000);

    async function droppedPeersGauge(): Promise<string | undefined> {
      const scrape = (await pool.api!.inject({ url: '/metrics' })).payload;
      return /^fuego_pool_flood_dropped_peers\{server="stratum"\} (\d+)$/m.exec(scrape)?.[1];
    }

    it('drops a peer whose connections the children keep closing for bad lines, and no one else', async () => {
      expect(await droppedPeersGauge()).toBe('0');
      const answered = await floodUntilDropped(port, '127.0.0.2', 'not json\n');
      expect(answered).toBeGreaterThanOrEqual(REFUSALS);
      expect(answered).toBeLessThan(MAX_ATTEMPTS);
      expect(await attempt(port, '127.0.0.2', 'not json\n')).toBe('no answer');
      expect(await attempt(port, '127.0.0.4')).toBe('answered');
      expect(await droppedPeersGauge()).toBe('1');
    }, 120_000);

    it('drops a peer that keeps connecting over its connection cap, keeping the connection it holds', async () => {
      const kept = await loggedInMiner(port, '127.0.0.3');
      // Each of these is refused at accept by the pool process's cap (one connection per IP).
      const answered = await floodUntilDropped(port, '127.0.0.3');
      expect(answered).toBeGreaterThanOrEqual(REFUSALS);
      expect(answered).toBeLessThan(MAX_ATTEMPTS);
      expect(await attempt(port, '127.0.0.3')).toBe('no answer');
      expect(await attempt(port, '127.0.0.5')).toBe('answered');
      const reply = await kept.request('keepalived', { id: kept.sessionId });
      expect(reply['error']).toBeNull();
      expect(kept.socket.destroyed).toBe(false);
      expect(await droppedPeersGauge()).toBe('2');
    }, 120_000);
  },
);
