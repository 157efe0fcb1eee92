import { randomInt } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolBackend } from '../../src/pool/pool-backend.js';
import type { ShareVerifier } from '../../src/pool/share-verifier.js';
import { StratumServer } from '../../src/servers/stratum/stratum-server.js';
import {
  DEFAULT_BAN_POLICY_OPTIONS,
  DEFAULT_POOL_BACKEND_OPTIONS,
  stratumServerOptions,
} from '../helpers/config-defaults.js';
import {
  ADDRESS,
  activeTemplate,
  FakeBanRegistry,
  FakeDaemon,
  FakeLedger,
  FakeTemplateSource,
  silentLogger,
} from '../pool/pool-fakes.js';
import {
  checkPoolLine,
  expectedReplyIds,
  mutateLine,
  Rng,
  randomLine,
  XMRIG_LINES,
  XMRIG_LOGIN_LINE,
} from './stratum-fuzz-kit.js';

/**
 * Socket fuzz: a real StratumServer (real framing, limits, TLS-sniffing, ordering) and the real
 * PoolBackend receive a few thousand junk lines over real loopback sockets, split into random
 * chunks. Each connection gets valid JSON-RPC replies echoing its ids in order, or is closed; the
 * server serves a real XMRig login afterwards. Default: 3,000 lines; FUEGO_SLOW=1: 30,000.
 */
const TOTAL_LINES = process.env['FUEGO_SLOW'] === '1' ? 30_000 : 3_000;
const PARALLEL = 8;
/**
 * How long one exchange waits for its replies or the close before it is judged: only an exchange
 * the server fails waits it out (a passing one ends at its last reply or the close), so it is
 * generous for a loaded machine, where the close after a violation's grace (500 ms) can be late.
 */
const EXCHANGE_WAIT_MS = 15_000;

const fastVerifier: ShareVerifier = {
  verify: async () => new Uint8Array(32).fill(0xff),
  canAcceptWork: () => true,
  cancel: () => 0,
};

interface Exchange {
  readonly raw: string;
  readonly closed: boolean;
}

/** Writes `payload` in random pieces; resolves once `expectedReplies` lines came or the peer closed. */
async function exchange(port: number, payload: Buffer, expectedReplies: number, rng: Rng): Promise<Exchange> {
  const socket: Socket = connect({ port, host: '127.0.0.1' });
  let raw = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, EXCHANGE_WAIT_MS);
    const check = (): void => {
      const replies = raw.split('\n').filter((l) => l.length > 0 && !l.includes('"method":"job"')).length;
      if (closed || replies >= expectedReplies) {
        clearTimeout(timer);
        resolve();
      }
    };
    socket.on('data', (chunk: string) => {
      raw += chunk;
      check();
    });
    socket.on('close', () => {
      closed = true;
      check();
    });
    socket.once('connect', () => {
      let at = 0;
      while (at < payload.length && !socket.destroyed) {
        const size = 1 + rng.int(rng.chance(0.5) ? 64 : 4096);
        socket.write(payload.subarray(at, at + size));
        at += size;
      }
      if (expectedReplies === 0) setTimeout(check, 50);
    });
  });
  socket.destroy();
  return { raw, closed };
}

describe('stratum socket fuzz (real server, real backend)', () => {
  let backend: PoolBackend;
  let server: StratumServer;
  let port: number;

  beforeAll(async () => {
    backend = new PoolBackend(
      { ...DEFAULT_POOL_BACKEND_OPTIONS, ban: { ...DEFAULT_BAN_POLICY_OPTIONS, enabled: false } },
      {
        templates: new FakeTemplateSource(activeTemplate(1, 10, 10n ** 12n)),
        verifier: fastVerifier,
        ledger: new FakeLedger(),
        daemon: new FakeDaemon(),
        logger: silentLogger,
        bans: new FakeBanRegistry(),
      },
    );
    server = new StratumServer(
      stratumServerOptions({
        ports: [{ port: 0, difficulty: 1000 }],
        limits: { maxConnectionsPerIp: 10_000, closeGraceMs: 500 },
      }),
      { backend, logger: silentLogger },
    );
    await server.start();
    port = server.listening()[0]!.port;
  });

  afterAll(async () => {
    await server?.close();
    backend?.close();
  });

  it(`answers ${TOTAL_LINES} junk lines validly or closes, then still serves a real login`, async () => {
    const seed = randomInt(2 ** 31);
    const rng = new Rng(seed);
    const invalid: string[] = [];
    let sent = 0;
    let connections = 0;
    const started = Date.now();
    const oneConnection = async (): Promise<void> => {
      const lines: string[] = [];
      if (rng.chance(0.3)) lines.push(XMRIG_LOGIN_LINE.replace('"login":"test"', `"login":"${ADDRESS}"`));
      for (let i = 1 + rng.int(15); i > 0; i--) {
        lines.push(
          (rng.chance(0.5) ? randomLine(rng) : mutateLine(rng.pick(XMRIG_LINES), rng)).replaceAll('\n', ''),
        );
      }
      // Now and then: an over-long line, a TLS ClientHello byte first, or a line without "\n".
      const special = rng.int(20);
      let payload = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
      if (special === 0) payload = Buffer.concat([payload, Buffer.alloc(40_000, 0x61)]);
      if (special === 1) payload = Buffer.concat([Buffer.from([0x16, 0x03, 0x01]), payload]);
      if (special === 2) payload = payload.subarray(0, payload.length - 1);
      // Without its "\n" the last line is never complete, so it is neither answered nor a violation.
      const received = special === 1 ? [] : special === 2 ? lines.slice(0, -1) : lines;
      const { ids, violation } = expectedReplyIds(received);
      const mustClose = violation || special === 0 || special === 1;
      const expected = ids.length;
      const result = await exchange(port, payload, mustClose ? Number.MAX_SAFE_INTEGER : expected, rng);
      sent += lines.length;
      connections++;
      const replies: unknown[] = [];
      for (const line of result.raw.split(/(?<=\n)/).filter((l) => l.length > 0)) {
        const check = checkPoolLine(line);
        if (check.kind === 'invalid') invalid.push(`${check.why}: ${line.slice(0, 200)}`);
        else if (check.kind === 'reply') replies.push(check.id);
      }
      if (JSON.stringify(replies) !== JSON.stringify(ids.slice(0, replies.length))) {
        invalid.push(`ids ${JSON.stringify(replies).slice(0, 150)} != ${JSON.stringify(ids).slice(0, 150)}`);
      }
      if (mustClose && !result.closed)
        invalid.push(`not closed after a violation: ${lines.join(' | ').slice(0, 200)}`);
      if (!mustClose && replies.length < expected && !result.closed) {
        invalid.push(`unanswered on an open connection: ${lines.join(' | ').slice(0, 200)}`);
      }
    };
    while (sent < TOTAL_LINES && invalid.length < 5) {
      await Promise.all(Array.from({ length: PARALLEL }, oneConnection));
    }
    console.info(
      `socket fuzz seed ${seed}: ${sent} lines on ${connections} connections in ${Date.now() - started} ms`,
    );
    expect(invalid).toEqual([]);

    // The server is still healthy: a real XMRig login gets a session and a job.
    const login = await exchange(
      port,
      Buffer.from(`${XMRIG_LOGIN_LINE.replace('"login":"test"', `"login":"${ADDRESS}"`)}\n`),
      1,
      rng,
    );
    const reply = JSON.parse(login.raw.split('\n')[0]!) as {
      result: { status: string; job: { job_id: string } };
    };
    expect(reply.result.status).toBe('OK');
    expect(reply.result.job.job_id).toEqual(expect.any(String));
  }, 120_000);
});
