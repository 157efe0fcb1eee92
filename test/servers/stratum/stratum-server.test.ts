import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type {
  ConnectionInfo,
  LoginRequest,
  LoginResult,
  MinerSessionSink,
  StratumBackend,
  StratumJob,
  SubmitRequest,
} from '../../../src/pool/stratum-backend.js';
import { STRATUM_ERRORS, StratumError, type StratumErrorCode } from '../../../src/pool/stratum-errors.js';
import {
  type AdmissionVerdict,
  type ConnectionAdmission,
  ConnectionCounter,
  ProcessConnectionCap,
} from '../../../src/servers/stratum/connection-admission.js';
import type { StratumLimits } from '../../../src/servers/stratum/stratum-options.js';
import { StratumServer } from '../../../src/servers/stratum/stratum-server.js';
import {
  certificateFingerprintSha256,
  generateSelfSignedCertificate,
  type PemPair,
} from '../../../src/servers/tls-certificate.js';
import {
  DEFAULT_STRATUM_LIMITS,
  type stratumPort,
  stratumServerOptions,
} from '../../helpers/config-defaults.js';
import { listenBacklogOf, somaxconn } from '../../helpers/listen-backlog.js';
import { captureLogs, type LogCapture } from '../../helpers/log-capture.js';
import { NO_AGGREGATE_CAP } from './admission-caps.js';

// ---- fake backend --------------------------------------------------------------------------

function makeJob(n: number, blobBytes = 76): StratumJob {
  return {
    blob: `0100${n.toString(16).padStart(8, '0')}`.padEnd(blobBytes * 2, '0'),
    job_id: `job${n}`,
    target: '37894100',
    algo: 'cn/upx2',
    height: 1000 + n,
  };
}

class FakeBackend implements StratumBackend {
  readonly logins: Array<{ request: LoginRequest; connection: ConnectionInfo }> = [];
  readonly submits: Array<{ sessionId: string; request: SubmitRequest }> = [];
  readonly keepalives: string[] = [];
  readonly disconnects: string[] = [];
  readonly sinks = new Map<string, MinerSessionSink>();
  readonly bannedIps = new Set<string>();
  loginError: Error | undefined;
  submitError: Error | undefined;
  /** Replaces the default (resolve at once) submit behaviour. */
  submitImpl: ((sessionId: string, request: SubmitRequest) => Promise<void>) | undefined;
  /** Called with the sink before login resolves. */
  duringLogin: ((sink: MinerSessionSink) => void) | undefined;
  /** Awaited by login after the session is made, before it resolves. */
  loginDelay: (() => Promise<void>) | undefined;
  accepting = true;
  /** Peers holding their share of the verifier: their submits wait. */
  readonly saturatedIps = new Set<string>();
  #sessions = 0;
  #jobs = 1;

  async login(
    request: LoginRequest,
    connection: ConnectionInfo,
    sink: MinerSessionSink,
  ): Promise<LoginResult> {
    this.logins.push({ request, connection });
    if (this.loginError) throw this.loginError;
    const sessionId = `session-${++this.#sessions}`;
    this.sinks.set(sessionId, sink);
    this.duringLogin?.(sink);
    await this.loginDelay?.();
    return { sessionId, job: makeJob(this.#jobs++), extensions: ['algo', 'keepalive'] };
  }

  getJob(sessionId: string): StratumJob {
    if (!this.sinks.has(sessionId)) throw new StratumError('UNAUTHENTICATED');
    return makeJob(this.#jobs++);
  }

  async submit(sessionId: string, request: SubmitRequest): Promise<void> {
    this.submits.push({ sessionId, request });
    if (this.submitImpl) return this.submitImpl(sessionId, request);
    if (this.submitError) throw this.submitError;
  }

  keepalive(sessionId: string): void {
    this.keepalives.push(sessionId);
  }

  disconnect(sessionId: string): void {
    this.disconnects.push(sessionId);
    this.sinks.delete(sessionId);
  }

  canAcceptSubmits(ip: string): boolean {
    return this.accepting && !this.saturatedIps.has(ip);
  }

  isBanned(ip: string): boolean {
    return this.bannedIps.has(ip);
  }
}

// ---- line client ---------------------------------------------------------------------------

/**
 * How long a test waits for a reply, a close or a condition that is expected to come. Only a
 * failing test waits this long; generous, as a loaded machine can stall a process for seconds.
 */
const EVENT_WAIT_MS = 10_000;

type Json = Record<string, unknown>;

class LineClient {
  readonly raw: string[] = [];
  #buffer = '';
  #readIndex = 0;
  #wake: (() => void) | undefined;
  closed = false;
  readonly closedPromise: Promise<void>;

  constructor(readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let nl = this.#buffer.indexOf('\n');
      while (nl !== -1) {
        this.raw.push(this.#buffer.slice(0, nl + 1));
        this.#buffer = this.#buffer.slice(nl + 1);
        nl = this.#buffer.indexOf('\n');
      }
      this.#wake?.();
    });
    socket.on('error', () => {});
    this.closedPromise = new Promise((resolve) =>
      socket.on('close', () => {
        this.closed = true;
        this.#wake?.();
        resolve();
      }),
    );
  }

  /**
   * Connects; a connection the server resets at accept (a refused peer) may fail before 'connect'
   * is seen on loopback, and comes back as a client that is already closed.
   */
  static async open(port: number, host = '127.0.0.1', localAddress?: string): Promise<LineClient> {
    const socket = netConnect({ port, host, ...(localAddress === undefined ? {} : { localAddress }) });
    const client = new LineClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNRESET' ? resolve() : reject(error),
      );
    });
    return client;
  }

  send(message: Json | string): void {
    this.socket.write(typeof message === 'string' ? message : `${JSON.stringify(message)}\n`);
  }

  /** The next raw line (with its "\n"), or undefined if the socket closed first. */
  async nextRaw(timeoutMs = EVENT_WAIT_MS): Promise<string | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#readIndex >= this.raw.length) {
      if (this.closed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a line');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
    return this.raw[this.#readIndex++];
  }

  async next(timeoutMs = EVENT_WAIT_MS): Promise<Json> {
    const line = await this.nextRaw(timeoutMs);
    if (line === undefined) throw new Error('socket closed');
    return JSON.parse(line) as Json;
  }

  async waitClosed(timeoutMs = EVENT_WAIT_MS): Promise<boolean> {
    if (this.closed) return true;
    await Promise.race([this.closedPromise, new Promise((r) => setTimeout(r, timeoutMs))]);
    return this.closed;
  }

  async login(id: number | string = 1, params: Json = {}): Promise<{ sessionId: string; reply: Json }> {
    this.send({ id, jsonrpc: '2.0', method: 'login', params: { login: 'addr', pass: 'x', ...params } });
    const reply = await this.next();
    const result = reply['result'] as Json;
    return { sessionId: result['id'] as string, reply };
  }

  end(): void {
    this.socket.destroy();
  }
}

// ---- harness -------------------------------------------------------------------------------

const running: StratumServer[] = [];
const clients: LineClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.end();
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function startServer(
  backend: FakeBackend,
  limits: Partial<StratumLimits> = {},
  ports: Array<Parameters<typeof stratumPort>[0]> = [{ port: 0, difficulty: 1000 }],
  log: LogCapture = captureLogs(),
  admission?: ConnectionAdmission,
): Promise<{ server: StratumServer; port: number; ports: number[]; log: LogCapture }> {
  const server = new StratumServer(
    stratumServerOptions({ ports, limits: { closeGraceMs: 500, ...limits } }),
    { backend, logger: log.logger, ...(admission ? { admission } : {}) },
  );
  await server.start();
  running.push(server);
  const bound = server.listening().map((p) => p.port);
  return { server, port: bound[0]!, ports: bound, log };
}

async function client(port: number, localAddress?: string): Promise<LineClient> {
  const c = await LineClient.open(port, '127.0.0.1', localAddress);
  clients.push(c);
  return c;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** IPv4 TCP sockets in TIME_WAIT (state 06 in /proc/net/tcp) whose local port is `port`. */
function timeWaitSocketsOnLocalPort(port: number): number {
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(`:${portHex}`) && fields[3] === '06').length;
}

async function until(condition: () => boolean, timeoutMs = EVENT_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await sleep(5);
  }
}

function submitParams(sessionId: string, extra: Json = {}): Json {
  return {
    id: sessionId,
    job_id: 'job1',
    nonce: 'db000000',
    result: 'ab'.repeat(32),
    algo: 'cn/upx2',
    ...extra,
  };
}

function expectError(reply: Json, id: number | string, code: StratumErrorCode): void {
  expect(reply).toEqual({
    id,
    jsonrpc: '2.0',
    error: { code: -1, message: STRATUM_ERRORS[code].message },
    result: null,
  });
}

/**
 * Sends 1,000 padded submits (8 MB, more than loopback socket buffers hold) while the backend's
 * submit hangs: only maxPendingRequests (8) reach the backend, the server stops reading so the
 * client's own write buffer stays full, and once submits resolve every one is answered in order.
 */
async function checkBackPressure(backend: FakeBackend, c: LineClient): Promise<void> {
  const releases: Array<() => void> = [];
  const { sessionId } = await c.login();
  backend.submitImpl = () => new Promise<void>((resolve) => releases.push(resolve));
  const total = 1000;
  const pad = 'p'.repeat(8000);
  let batch = '';
  for (let i = 0; i < total; i++) {
    const params = submitParams(sessionId, { nonce: i.toString(16).padStart(8, '0'), pad });
    batch += `${JSON.stringify({ id: 100 + i, method: 'submit', params })}\n`;
  }
  c.send(batch);
  await until(() => backend.submits.length === 8);
  await sleep(150);
  expect(backend.submits).toHaveLength(8);
  expect(c.raw).toHaveLength(1);
  expect(c.socket.writableLength).toBeGreaterThan(0);
  backend.submitImpl = async () => {};
  for (const release of releases.splice(0)) release();
  await until(() => c.raw.length === total + 1);
  const ids = c.raw.slice(1).map((line) => (JSON.parse(line) as Json)['id']);
  expect(ids).toEqual(Array.from({ length: total }, (_, i) => 100 + i));
  expect(backend.submits).toHaveLength(total);
  expect(c.closed).toBe(false);
}

// ---- tests ---------------------------------------------------------------------------------

describe('StratumServer: login and jobs', () => {
  it('answers login exactly as XMRig needs it', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    c.send(
      '{"id":1,"jsonrpc":"2.0","method":"login","params":{"login":"test","pass":"x","agent":"XMRig/6.16.0 (Linux x86_64) libuv/1.42.0 gcc/5.4.0","rigid":"test-rig","algo":["cn/upx2","cn/1"]}}\n',
    );
    const raw = (await c.nextRaw())!;
    expect(raw.endsWith('\n')).toBe(true);
    expect(Buffer.byteLength(raw)).toBeGreaterThanOrEqual(32);
    expect(raw.startsWith('{"id":1,"jsonrpc":"2.0","error":null,"result":{"id":"session-1",')).toBe(true);
    const reply = JSON.parse(raw) as Json;
    expect(reply).toEqual({
      id: 1,
      jsonrpc: '2.0',
      error: null,
      result: { id: 'session-1', job: makeJob(1), status: 'OK', extensions: ['algo', 'keepalive'] },
    });
    expect(backend.logins[0]!.request).toEqual({
      login: 'test',
      pass: 'x',
      agent: 'XMRig/6.16.0 (Linux x86_64) libuv/1.42.0 gcc/5.4.0',
      rigid: 'test-rig',
      algo: ['cn/upx2', 'cn/1'],
    });
    expect(backend.logins[0]!.connection).toEqual({
      remoteAddress: '127.0.0.1',
      port,
      tls: false,
      startDifficulty: 1000,
      fixedDifficulty: false,
      solo: false,
    });
  });

  it('echoes a string id as a string', async () => {
    const { port } = await startServer(new FakeBackend());
    const c = await client(port);
    const { reply } = await c.login('abc');
    expect(reply['id']).toBe('abc');
  });

  it('pushes jobs after login, and holds a job pushed during login until the reply is out', async () => {
    const backend = new FakeBackend();
    backend.duringLogin = (sink) => sink.sendJob(makeJob(50));
    const { port } = await startServer(backend);
    const c = await client(port);
    const { sessionId } = await c.login();
    expect(await c.next()).toEqual({ jsonrpc: '2.0', method: 'job', params: makeJob(50) });
    backend.sinks.get(sessionId)!.sendJob(makeJob(51));
    const raw = (await c.nextRaw())!;
    expect(raw).toBe(`{"jsonrpc":"2.0","method":"job","params":${JSON.stringify(makeJob(51))}}\n`);
  });

  it('a failed login is answered, then the socket is closed (any code)', async () => {
    for (const error of [
      new StratumError('INVALID_LOGIN'),
      new StratumError('NO_TEMPLATE'),
      new Error('boom'),
    ]) {
      const backend = new FakeBackend();
      backend.loginError = error;
      const { port, log } = await startServer(backend);
      const c = await client(port);
      c.send({ id: 1, jsonrpc: '2.0', method: 'login', params: { login: 'bad' } });
      const code = error instanceof StratumError ? error.code : 'INTERNAL';
      expectError(await c.next(), 1, code);
      expect(await c.waitClosed()).toBe(true);
      if (code === 'INTERNAL') {
        const logged = log.records.find((r) => r['level'] === 50);
        expect((logged!['err'] as Json)['stack']).toContain('boom');
      }
    }
  });

  it('a login without params.login is INVALID_LOGIN and closes', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    c.send({ id: 1, method: 'login', params: {} });
    expectError(await c.next(), 1, 'INVALID_LOGIN');
    expect(await c.waitClosed()).toBe(true);
    expect(backend.logins).toHaveLength(0);
  });

  it('a second login replaces the session and disconnects the old one', async () => {
    const backend = new FakeBackend();
    const { port, server } = await startServer(backend);
    const c = await client(port);
    const first = await c.login();
    const oldSink = backend.sinks.get(first.sessionId)!;
    const second = await c.login(2);
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(backend.disconnects).toEqual([first.sessionId]);
    oldSink.sendJob(makeJob(70)); // inert now
    oldSink.close('stale');
    c.send({ id: 3, method: 'submit', params: submitParams(first.sessionId) });
    expectError(await c.next(), 3, 'UNAUTHENTICATED');
    c.send({ id: 4, method: 'keepalived', params: { id: second.sessionId } });
    expect((await c.next())['result']).toEqual({ status: 'KEEPALIVED' });
    expect(server.metrics().sessions).toBe(1);
  });

  it('bounds the logins on one connection: the one past the limit is refused and the socket closed', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    const limit = DEFAULT_STRATUM_LIMITS.maxLoginsPerConnection;
    for (let i = 1; i <= limit; i++) await c.login(i);
    c.send({
      id: 'one-too-many',
      method: 'login',
      params: { login: 'x', pass: 'x', agent: 'a', algo: ['cn/upx2'] },
    });
    expectError(await c.next(), 'one-too-many', 'TOO_MANY_LOGINS');
    expect(await c.waitClosed()).toBe(true);
    expect(backend.logins).toHaveLength(limit);
  });

  it('a job held during login that is the login job itself is not sent again', async () => {
    const backend = new FakeBackend();
    backend.duringLogin = (sink) => sink.sendJob(makeJob(1)); // the job the login reply carries
    const { port } = await startServer(backend);
    const c = await client(port);
    const { sessionId, reply } = await c.login();
    expect((reply['result'] as Json)['job']).toEqual(makeJob(1));
    c.send({ id: 2, method: 'keepalived', params: { id: sessionId } });
    expect(await c.next()).toMatchObject({ id: 2, result: { status: 'KEEPALIVED' } });
  });

  it('a miner that leaves while its login is in flight: the new session is disconnected, none counted', async () => {
    const backend = new FakeBackend();
    let release = (): void => {};
    backend.loginDelay = () => new Promise<void>((resolve) => (release = resolve));
    const { port, server } = await startServer(backend);
    const c = await client(port);
    c.send({ id: 1, method: 'login', params: { login: 'x' } });
    await until(() => backend.logins.length === 1);
    c.end();
    await until(() => server.metrics().connections.current === 0);
    release();
    await until(() => backend.disconnects.length === 1);
    expect(backend.disconnects).toEqual(['session-1']);
    expect(server.metrics()).toMatchObject({ sessions: 0, closes: { peer: 1 } });
  });

  it('the backend closing a session during its login: no login reply, closed as backend', async () => {
    const backend = new FakeBackend();
    backend.duringLogin = (sink) => sink.close('banned');
    const { port, server } = await startServer(backend);
    const c = await client(port);
    c.send({ id: 1, method: 'login', params: { login: 'x' } });
    expect(await c.waitClosed()).toBe(true);
    expect(c.raw).toEqual([]);
    expect(backend.disconnects).toEqual(['session-1']);
    await until(() => server.metrics().connections.current === 0);
    expect(server.metrics()).toMatchObject({ sessions: 0, closes: { backend: 1 } });
  });

  it('a re-login that outlasts the idle deadline closes as idle, not as a login timeout', async () => {
    const backend = new FakeBackend();
    const { port, server } = await startServer(backend, { idleTimeoutMs: 150 });
    const c = await client(port);
    await c.login();
    backend.loginDelay = () => sleep(1_000);
    c.send({ id: 2, method: 'login', params: { login: 'x' } });
    expect(await c.waitClosed()).toBe(true);
    await until(() => server.metrics().connections.current === 0);
    expect(server.metrics().closes).toEqual({ 'idle-timeout': 1 });
  });

  it('getjob returns a fresh job object', async () => {
    const { port } = await startServer(new FakeBackend());
    const c = await client(port);
    const { sessionId } = await c.login();
    c.send({ id: 5, method: 'getjob', params: { id: sessionId } });
    expect(await c.next()).toEqual({ id: 5, jsonrpc: '2.0', error: null, result: makeJob(2) });
  });
});

describe('StratumServer: submit, keepalived, errors', () => {
  it('submit OK', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    const { sessionId } = await c.login();
    c.send({ id: 2, jsonrpc: '2.0', method: 'submit', params: submitParams(sessionId) });
    const raw = (await c.nextRaw())!;
    expect(raw).toBe('{"id":2,"jsonrpc":"2.0","error":null,"result":{"status":"OK"}}\n');
    expect(backend.submits[0]).toEqual({
      sessionId,
      request: { jobId: 'job1', nonce: 'db000000', result: 'ab'.repeat(32), algo: 'cn/upx2' },
    });
  });

  it('every submit refusal has the XMRig error shape and keeps the socket open', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    const { sessionId } = await c.login();
    const codes: StratumErrorCode[] = [
      'LOW_DIFFICULTY',
      'DUPLICATE_SHARE',
      'BLOCK_EXPIRED',
      'INVALID_RESULT',
      'MALFORMED_NONCE',
      'MALFORMED_RESULT',
      'NICEHASH_NONCE',
      'WRONG_ALGO',
      'SERVER_BUSY',
      // Critical for XMRig (it closes by itself); the server keeps its side open.
      'INVALID_JOB_ID',
      'UNAUTHENTICATED',
    ];
    let id = 10;
    for (const code of codes) {
      backend.submitError = new StratumError(code);
      c.send({ id, jsonrpc: '2.0', method: 'submit', params: submitParams(sessionId) });
      const raw = (await c.nextRaw())!;
      expect(Buffer.byteLength(raw)).toBeGreaterThanOrEqual(32);
      expectError(JSON.parse(raw) as Json, id, code);
      id++;
    }
    c.send({ id, method: 'keepalived', params: { id: sessionId } });
    expect((await c.next())['result']).toEqual({ status: 'KEEPALIVED' });
    expect(c.closed).toBe(false);
  });

  it('an unexpected submit exception is INTERNAL on the wire and logged with its stack', async () => {
    const backend = new FakeBackend();
    const { port, log } = await startServer(backend);
    const c = await client(port);
    const { sessionId } = await c.login();
    backend.submitError = new TypeError('redis went away');
    c.send({ id: 2, method: 'submit', params: submitParams(sessionId) });
    expectError(await c.next(), 2, 'INTERNAL');
    const logged = log.records.find((r) => r['level'] === 50);
    expect((logged!['err'] as Json)['stack']).toContain('redis went away');
  });

  it('submit params of the wrong type are refused before reaching the backend', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    const { sessionId } = await c.login();
    c.send({ id: 2, method: 'submit', params: submitParams(sessionId, { nonce: 219 }) });
    expectError(await c.next(), 2, 'MALFORMED_NONCE');
    expect(backend.submits).toHaveLength(0);
  });

  it('keepalived answers KEEPALIVED and reaches the backend', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    const { sessionId } = await c.login();
    c.send({ id: 7, jsonrpc: '2.0', method: 'keepalived', params: { id: sessionId } });
    expect((await c.nextRaw())!).toBe(
      '{"id":7,"jsonrpc":"2.0","error":null,"result":{"status":"KEEPALIVED"}}\n',
    );
    expect(backend.keepalives).toEqual([sessionId]);
  });

  it('requests before login are Unauthenticated', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    c.send({ id: 2, method: 'submit', params: submitParams('session-1') });
    c.send({ id: 3, method: 'keepalived', params: { id: 'session-1' } });
    c.send({ id: 4, method: 'getjob', params: { id: 'session-1' } });
    expectError(await c.next(), 2, 'UNAUTHENTICATED');
    expectError(await c.next(), 3, 'UNAUTHENTICATED');
    expectError(await c.next(), 4, 'UNAUTHENTICATED');
    expect(backend.submits).toHaveLength(0);
    expect(c.closed).toBe(false);
  });

  it('a wrong session id is Unauthenticated', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const other = await client(port);
    const otherSession = (await other.login()).sessionId;
    const c = await client(port);
    await c.login();
    c.send({ id: 2, method: 'submit', params: submitParams(otherSession) });
    expectError(await c.next(), 2, 'UNAUTHENTICATED');
    c.send({ id: 3, method: 'keepalived', params: {} });
    expectError(await c.next(), 3, 'UNAUTHENTICATED');
    expect(backend.submits).toHaveLength(0);
  });

  it('unknown methods get Invalid method and the connection stays', async () => {
    const { port } = await startServer(new FakeBackend());
    const c = await client(port);
    c.send({ id: 9, method: 'mining.subscribe', params: {} });
    expectError(await c.next(), 9, 'INVALID_METHOD');
    c.send({ id: 10, params: {} });
    expectError(await c.next(), 10, 'INVALID_METHOD');
    await c.login(11);
  });

  it('answers in request order even when an earlier submit finishes later', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend);
    const c = await client(port);
    const { sessionId } = await c.login();
    let release: () => void = () => {};
    backend.submitImpl = () => new Promise<void>((resolve) => (release = resolve));
    c.send({ id: 2, method: 'submit', params: submitParams(sessionId) });
    await until(() => backend.submits.length === 1);
    c.send({ id: 3, method: 'keepalived', params: { id: sessionId } });
    await sleep(30);
    expect(c.raw).toHaveLength(1);
    release();
    expect((await c.next())['id']).toBe(2);
    expect((await c.next())['id']).toBe(3);
  });
});

describe('StratumServer: limits and protections', () => {
  it('closes on a line longer than maxLineBytes', async () => {
    const { port, server } = await startServer(new FakeBackend(), { maxLineBytes: 1024 });
    const c = await client(port);
    c.send('x'.repeat(2000));
    expect(await c.waitClosed()).toBe(true);
    expect(server.metrics().protocolErrors.byKind).toEqual({ LINE_TOO_LONG: 1 });
  });

  it('closes on a non-JSON line after answering what came before, and records the IP', async () => {
    const violations: string[] = [];
    const backend = new FakeBackend();
    const server = new StratumServer(stratumServerOptions({ ports: [{ port: 0, difficulty: 1 }] }), {
      backend,
      logger: captureLogs().logger,
      onProtocolViolation: (ip, code) => violations.push(`${ip} ${code}`),
    });
    await server.start();
    running.push(server);
    const c = await client(server.listening()[0]!.port);
    c.send('{"id":1,"method":"nope"}\n{not json}\n{"id":2,"method":"nope"}\n');
    expectError(await c.next(), 1, 'INVALID_METHOD');
    expect(await c.waitClosed()).toBe(true);
    expect(c.raw).toHaveLength(1);
    expect(server.metrics().protocolErrors.byIp).toEqual({ '127.0.0.1': 1 });
    expect(violations).toEqual(['127.0.0.1 NOT_JSON']);
  });

  it('maxPendingRequests: stops reading while submits hang, loses nothing once they resolve', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend, { maxPendingRequests: 8 });
    await checkBackPressure(backend, await client(port));
  });

  it('holds submits while the backend is saturated instead of rejecting them', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend, { submitPollMs: 5 });
    const c = await client(port);
    const { sessionId } = await c.login();
    backend.accepting = false;
    c.send({ id: 2, method: 'submit', params: submitParams(sessionId) });
    c.send({ id: 3, method: 'submit', params: submitParams(sessionId) });
    await sleep(60);
    expect(backend.submits).toHaveLength(0);
    expect(c.raw).toHaveLength(1);
    backend.accepting = true;
    expect(await c.next()).toEqual({ id: 2, jsonrpc: '2.0', error: null, result: { status: 'OK' } });
    expect((await c.next())['id']).toBe(3);
  });

  it("holds only the saturated peer's submits; another peer's go on at once", async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend, { submitPollMs: 5 });
    const flooder = await client(port, '127.0.0.2');
    const honest = await client(port, '127.0.0.1');
    const flooderSession = (await flooder.login()).sessionId;
    const honestSession = (await honest.login()).sessionId;
    backend.saturatedIps.add('127.0.0.2');
    flooder.send({ id: 2, method: 'submit', params: submitParams(flooderSession) });
    honest.send({ id: 2, method: 'submit', params: submitParams(honestSession) });
    expect(await honest.next()).toEqual({ id: 2, jsonrpc: '2.0', error: null, result: { status: 'OK' } });
    await sleep(30);
    expect(backend.submits.map((s) => s.sessionId)).toEqual([honestSession]);
    backend.saturatedIps.delete('127.0.0.2');
    expect((await flooder.next())['id']).toBe(2);
  });

  it('caps connections per IP', async () => {
    const { port, server } = await startServer(new FakeBackend(), { maxConnectionsPerIp: 3 });
    const kept = [await client(port), await client(port), await client(port)];
    const fourth = await client(port);
    expect(await fourth.waitClosed()).toBe(true);
    for (const c of kept) await c.login();
    expect(server.metrics().connections).toMatchObject({ current: 3, refused: { 'per-ip-limit': 1 } });
    kept[0]!.end();
    await until(() => server.metrics().connections.current === 2);
    await (await client(port)).login();
  });

  it('holds no more connections than its open-files limit allows, whatever the host caps allow', async () => {
    const hostCaps = new ConnectionCounter({
      ...NO_AGGREGATE_CAP,
      maxConnections: 100,
      maxConnectionsPerIp: 100,
    });
    const { port, server } = await startServer(
      new FakeBackend(),
      {},
      undefined,
      undefined,
      new ProcessConnectionCap(2, hostCaps),
    );
    const kept = [await client(port), await client(port)];
    for (const c of kept) await c.login();
    expect(await (await client(port)).waitClosed()).toBe(true);
    expect(server.metrics().connections).toMatchObject({ current: 2, refused: { 'open-files': 1 } });
    // The host's count never saw the refused one.
    expect(hostCaps.total).toBe(2);
    kept[0]!.end();
    await until(() => server.metrics().connections.current === 1);
    await (await client(port)).login();
  });

  it.runIf(process.platform === 'linux' && listenBacklogOf(0) !== 'no ss')(
    'listens with listenBacklog, so a reconnect storm after a restart waits in the kernel instead of being dropped',
    async () => {
      const { port } = await startServer(new FakeBackend(), { listenBacklog: 1234 });
      expect(listenBacklogOf(port)).toBe(1234);
      const defaults = await startServer(new FakeBackend());
      expect(listenBacklogOf(defaults.port)).toBe(Math.min(4096, somaxconn()));
    },
  );

  it.runIf(process.platform === 'linux')(
    'resets connections over the cap, so a flood of them leaves no sockets waiting in TIME_WAIT',
    async () => {
      const { port, server } = await startServer(new FakeBackend(), { maxConnectionsPerIp: 1 });
      await (await client(port)).login();
      for (let i = 0; i < 50; i++) expect(await (await client(port)).waitClosed()).toBe(true);
      expect(server.metrics().connections.refused['per-ip-limit']).toBe(50);
      // A close (FIN) from the pool's side would leave each of them in TIME_WAIT for a minute.
      expect(timeWaitSocketsOnLocalPort(port)).toBe(0);
    },
  );

  it('closes a connection that does not log in within loginTimeoutMs', async () => {
    const { port, server } = await startServer(new FakeBackend(), { loginTimeoutMs: 150 });
    const c = await client(port);
    c.send({ id: 2, method: 'keepalived', params: { id: 'x' } }); // does not count before login
    const started = Date.now();
    expect(await c.waitClosed()).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    await until(() => server.metrics().closes['login-timeout'] === 1);
  });

  it('idle timeout: keepalived keeps the session, silence closes it', async () => {
    const backend = new FakeBackend();
    // A keepalived every 100 ms, for longer than the idle timeout: a gap up to 900 ms (a stalled
    // process on a loaded machine) still keeps the session.
    const idleTimeoutMs = 1_000;
    const { port, server } = await startServer(backend, { idleTimeoutMs });
    const c = await client(port);
    const { sessionId } = await c.login();
    const loggedInAt = Date.now();
    for (let i = 0; i < 12; i++) {
      await sleep(100);
      c.send({ id: 10 + i, method: 'keepalived', params: { id: sessionId } });
      await c.next();
    }
    expect(Date.now() - loggedInAt).toBeGreaterThan(idleTimeoutMs);
    expect(c.closed).toBe(false);
    expect(await c.waitClosed()).toBe(true);
    await until(() => server.metrics().closes['idle-timeout'] === 1);
    await until(() => backend.disconnects.includes(sessionId));
  });

  it('drops a slow consumer whose send queue passes maxSendQueueBytes', async () => {
    const backend = new FakeBackend();
    const { port, server } = await startServer(backend, { maxSendQueueBytes: 64 * 1024 });
    const c = await client(port);
    const { sessionId } = await c.login();
    c.socket.pause();
    const sink = backend.sinks.get(sessionId)!;
    for (let i = 0; i < 3000 && backend.sinks.has(sessionId); i++) sink.sendJob(makeJob(100 + i, 4000));
    await until(() => server.metrics().connections.current === 0);
    expect(server.metrics().closes['slow-consumer']).toBe(1);
    expect(backend.disconnects).toEqual([sessionId]);
  });

  it('arms no write deadline for a job the kernel takes at once', async () => {
    const backend = new FakeBackend();
    const writeTimeoutMs = 12_345;
    const { port } = await startServer(backend, { writeTimeoutMs });
    const c = await client(port);
    const { sessionId } = await c.login();
    const sink = backend.sinks.get(sessionId)!;
    const armed = vi.spyOn(globalThis, 'setTimeout');
    try {
      for (let i = 0; i < 5; i++) sink.sendJob(makeJob(200 + i));
      expect(armed.mock.calls.filter((call) => call[1] === writeTimeoutMs)).toHaveLength(0);
    } finally {
      armed.mockRestore();
    }
    for (let i = 0; i < 5; i++) expect((await c.next())['params']).toEqual(makeJob(200 + i));
  });

  it('drops a peer whose queued writes make no progress for writeTimeoutMs', async () => {
    const backend = new FakeBackend();
    const { port, server } = await startServer(backend, {
      writeTimeoutMs: 200,
      maxSendQueueBytes: 64 * 1024 * 1024,
    });
    const c = await client(port);
    const { sessionId } = await c.login();
    c.socket.pause();
    const sink = backend.sinks.get(sessionId)!;
    // ~24 MB: far more than loopback socket buffers hold, far less than the queue limit.
    for (let i = 0; i < 3000; i++) sink.sendJob(makeJob(100 + i, 4000));
    await until(() => server.metrics().connections.current === 0);
    expect(server.metrics().closes['write-timeout']).toBe(1);
  });

  it('a banned IP gets "Your IP is banned" to its login, then a close', async () => {
    const backend = new FakeBackend();
    backend.bannedIps.add('127.0.0.1');
    const { port } = await startServer(backend);
    const c = await client(port);
    c.send({ id: 1, jsonrpc: '2.0', method: 'login', params: { login: 'addr' } });
    expectError(await c.next(), 1, 'BANNED');
    expect(await c.waitClosed()).toBe(true);
    expect(backend.logins).toHaveLength(0);
  });

  it('a banned peer reconnecting at once is closed at accept, unread; it is told why again later', async () => {
    const backend = new FakeBackend();
    backend.bannedIps.add('127.0.0.1');
    const { port, server } = await startServer(backend);
    const told = await client(port);
    told.send({ id: 1, jsonrpc: '2.0', method: 'login', params: { login: 'addr' } });
    expectError(await told.next(), 1, 'BANNED');
    for (let i = 0; i < 5; i++) {
      const again = await client(port);
      again.send({ id: 1, jsonrpc: '2.0', method: 'login', params: { login: 'addr' } });
      expect(await again.waitClosed()).toBe(true);
      expect(again.raw).toEqual([]);
    }
    expect(server.metrics().connections.refused).toMatchObject({ banned: 5 });
    // Another peer is not affected.
    const other = await client(port, '127.0.0.2');
    await other.login();
  });

  it('rejects start() with PORT_IN_USE naming the port', async () => {
    const { port } = await startServer(new FakeBackend());
    const second = new StratumServer(stratumServerOptions({ ports: [{ port, difficulty: 1 }] }), {
      backend: new FakeBackend(),
      logger: captureLogs().logger,
    });
    await expect(second.start()).rejects.toMatchObject({
      code: 'PORT_IN_USE',
      message: expect.stringContaining(String(port)),
    });
  });

  it('close() ends every connection, disconnects every session and stops listening', async () => {
    const backend = new FakeBackend();
    const { server, ports } = await startServer(backend, {}, [
      { port: 0, difficulty: 1 },
      { port: 0, difficulty: 2 },
    ]);
    const a = await client(ports[0]!);
    const b = await client(ports[1]!);
    const sa = (await a.login()).sessionId;
    const sb = (await b.login()).sessionId;
    const idle = await client(ports[0]!);
    expect(server.metrics().byPort[String(ports[1])]).toEqual({ current: 1, total: 1 });
    await server.close();
    expect(a.closed && b.closed && (await idle.waitClosed())).toBe(true);
    expect([...backend.disconnects].sort()).toEqual([sa, sb].sort());
    expect(server.metrics().connections.current).toBe(0);
    await expect(LineClient.open(ports[0]!)).rejects.toThrow();
  });

  it('close() lets a reply in progress go out, within the grace period', async () => {
    const backend = new FakeBackend();
    const { server, port } = await startServer(backend, { closeGraceMs: 1000 });
    const c = await client(port);
    const { sessionId } = await c.login();
    backend.submitImpl = () => sleep(100);
    c.send({ id: 2, method: 'submit', params: submitParams(sessionId) });
    await until(() => backend.submits.length === 1);
    await server.close();
    expect((await c.next())['result']).toEqual({ status: 'OK' });
    expect(await c.waitClosed()).toBe(true);
  });
});

const haveOpenssl = (() => {
  try {
    execFileSync('which', ['openssl'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!haveOpenssl) console.warn('openssl not on PATH: skipping the stratum TLS tests');

/**
 * Admission decided elsewhere (a stratum child asks its parent): the answer comes later, when the
 * test says so. Caps: 2 per IP.
 */
class GatedAdmission implements ConnectionAdmission {
  readonly counter = new ConnectionCounter({
    ...NO_AGGREGATE_CAP,
    maxConnections: 100,
    maxConnectionsPerIp: 2,
  });
  readonly released: string[] = [];
  readonly #waiting: Array<() => void> = [];
  /** Replaces the counter's answer. */
  override: (() => Promise<AdmissionVerdict>) | undefined;

  admit(ip: string): Promise<AdmissionVerdict> {
    if (this.override) return this.override();
    return new Promise((resolve) => this.#waiting.push(() => resolve(this.counter.admit(ip))));
  }

  release(ip: string): void {
    this.released.push(ip);
    this.counter.release(ip);
  }

  get asked(): number {
    return this.#waiting.length;
  }

  answerAll(): void {
    for (const answer of this.#waiting.splice(0)) answer();
  }
}

describe('StratumServer: connection caps decided by another process', () => {
  it('a connection waits for the answer; what the miner sent meanwhile is served after it', async () => {
    const backend = new FakeBackend();
    const admission = new GatedAdmission();
    const { port, server } = await startServer(backend, {}, undefined, undefined, admission);
    const c = await client(port);
    const login = c.login();
    await until(() => admission.asked === 1);
    await sleep(50);
    expect(backend.logins).toHaveLength(0);
    expect(c.raw).toHaveLength(0);
    admission.answerAll();
    expect((await login).sessionId).toBe('session-1');
    expect(server.metrics().connections.current).toBe(1);
  });

  it('refused: closed without a reply, counted by reason; each admitted connection is released once', async () => {
    const backend = new FakeBackend();
    const admission = new GatedAdmission();
    const { port, server } = await startServer(backend, {}, undefined, undefined, admission);
    const kept = [await client(port), await client(port)];
    const third = await client(port);
    await until(() => admission.asked === 3);
    admission.answerAll();
    expect(await third.waitClosed()).toBe(true);
    expect(third.raw).toHaveLength(0);
    for (const c of kept) await c.login();
    expect(server.metrics().connections).toMatchObject({ current: 2, refused: { 'per-ip-limit': 1 } });
    kept[0]!.end();
    await until(() => admission.released.length === 1);
    expect(admission.counter.total).toBe(1);
    const next = await client(port);
    await until(() => admission.asked === 1);
    admission.answerAll();
    await next.login();
    expect(admission.released).toEqual(['127.0.0.1']);
  });

  it('a miner that leaves before the answer, or a server closing meanwhile, gives the count back', async () => {
    const backend = new FakeBackend();
    const admission = new GatedAdmission();
    const { port, server } = await startServer(backend, {}, undefined, undefined, admission);
    const leaver = await client(port);
    await until(() => admission.asked === 1);
    leaver.end();
    await sleep(50);
    admission.answerAll();
    await until(() => admission.released.length === 1);
    expect(admission.counter.total).toBe(0);
    expect(server.metrics().connections.current).toBe(0);

    const waiting = await client(port);
    await until(() => admission.asked === 1);
    const closed = server.close();
    admission.answerAll();
    await closed;
    expect(await waiting.waitClosed()).toBe(true);
    await until(() => admission.released.length === 2);
    expect(admission.counter.total).toBe(0);
    expect(server.metrics().connections.refused).toEqual({ 'shutting-down': 1 });
    expect(backend.logins).toHaveLength(0);
  });

  it('an IPv6 peer is counted by its /64 (ipv6PrefixLength), an IPv4 one by its address', async () => {
    const backend = new FakeBackend();
    const asked: string[] = [];
    const admission: ConnectionAdmission = {
      admit: (ip) => {
        asked.push(ip);
        return 'admit';
      },
      release: () => undefined,
    };
    const server = new StratumServer(
      stratumServerOptions({
        ports: [
          { port: 0, host: '::1', difficulty: 1 },
          { port: 0, difficulty: 1 },
        ],
        ipv6PrefixLength: 64,
      }),
      { backend, logger: captureLogs().logger, admission },
    );
    await server.start();
    running.push(server);
    const [v6, v4] = server.listening().map((p) => p.port);
    const c = await LineClient.open(v6!, '::1');
    clients.push(c);
    await c.login();
    await (await client(v4!)).login();
    expect(asked).toEqual(['::/64', '127.0.0.1']);
    expect(backend.logins[0]!.connection.remoteAddress).toBe('::1');
    expect(
      () =>
        new StratumServer(
          stratumServerOptions({ ports: [{ port: 0, difficulty: 1 }], ipv6PrefixLength: 129 }),
          { backend, logger: captureLogs().logger },
        ),
    ).toThrow(expect.objectContaining({ code: 'BAD_OPTIONS' }));
  });

  it('an admission that fails refuses the connection and says so in the log', async () => {
    const backend = new FakeBackend();
    const admission = new GatedAdmission();
    admission.override = () => Promise.reject(new Error('parent gone'));
    const log = captureLogs();
    const { port, server } = await startServer(backend, {}, undefined, log, admission);
    const c = await client(port);
    expect(await c.waitClosed()).toBe(true);
    expect(server.metrics().connections.refused).toEqual({ 'shutting-down': 1 });
    expect(log.records.some((r) => r['msg'] === 'connection admission failed; refusing the connection')).toBe(
      true,
    );
    admission.override = () => Promise.resolve('admission-timeout');
    expect(await (await client(port)).waitClosed()).toBe(true);
    expect(server.metrics().connections.refused).toEqual({ 'shutting-down': 1, 'admission-timeout': 1 });
    expect(admission.released).toEqual([]);
  });
});

describe.skipIf(!haveOpenssl)('StratumServer: TLS', () => {
  let pem: PemPair;
  beforeAll(async () => {
    pem = await generateSelfSignedCertificate();
  });

  /** A line client over TLS to `port`, once the handshake is done (closed after the test). */
  async function tlsClient(port: number): Promise<{ c: LineClient; socket: TLSSocket }> {
    const socket = tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    const c = new LineClient(socket);
    clients.push(c);
    return { c, socket };
  }

  it('round trip over TLS; the fingerprint matches what a miner sees', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend, {}, [{ port: 0, difficulty: 5, tls: pem }]);
    const { c, socket } = await tlsClient(port);
    const fingerprint = certificateFingerprintSha256(pem.cert);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(socket.getPeerCertificate().fingerprint256.replaceAll(':', '').toLowerCase()).toBe(fingerprint);
    const openssl = execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], {
      input: pem.cert,
    })
      .toString()
      .trim();
    expect(openssl.split('=')[1]!.replaceAll(':', '').toLowerCase()).toBe(fingerprint);
    const { sessionId } = await c.login();
    expect(backend.logins[0]!.connection.tls).toBe(true);
    c.send({ id: 2, method: 'submit', params: submitParams(sessionId) });
    expect((await c.next())['result']).toEqual({ status: 'OK' });
  });

  it('a TLS miner whose connection waits for another process to admit it completes the handshake after', async () => {
    const backend = new FakeBackend();
    const admission = new GatedAdmission();
    const { port } = await startServer(
      backend,
      {},
      [{ port: 0, difficulty: 5, tls: pem }],
      undefined,
      admission,
    );
    const socket = tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    const secured = new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    await until(() => admission.asked === 1);
    // The client's hello is in the server's buffer by now; the wrap must take it over.
    await sleep(50);
    admission.answerAll();
    await secured;
    const c = new LineClient(socket);
    clients.push(c);
    expect((await c.login()).sessionId).toBe('session-1');
  });

  it('a plain miner on a TLS port is told in plain text that the port needs TLS, then closed', async () => {
    const backend = new FakeBackend();
    const { port, server } = await startServer(backend, {}, [{ port: 0, difficulty: 1, tls: pem }]);
    const plain = await client(port);
    plain.send({ id: 7, jsonrpc: '2.0', method: 'login', params: { login: 'addr', pass: 'x' } });
    const reply = await plain.next(10_000);
    expect(reply).toMatchObject({ id: 7, jsonrpc: '2.0', result: null, error: { code: -1 } });
    const message = (reply['error'] as Json)['message'] as string;
    expect(message).toContain('stratum+ssl://');
    expect(await plain.waitClosed(10_000)).toBe(true);
    expect(plain.raw).toHaveLength(1);
    await until(() => server.metrics().connections.current === 0);
    expect(server.metrics().errorReplies).toEqual({ TLS_REQUIRED: 1 });
    expect(server.metrics().protocolErrors.total).toBe(0);
    expect(backend.logins).toHaveLength(0);

    // Anything else that is not TLS still meets the TLS stack, which drops it without a word.
    const other = await client(port);
    other.send('GET / HTTP/1.1\r\n\r\n');
    expect(await other.waitClosed(10_000)).toBe(true);
    expect(other.raw).toHaveLength(0);
    // A TLS miner on the same port is served as before.
    const { c } = await tlsClient(port);
    expect((await c.login()).sessionId).toBe('session-1');
  });

  it('on a TLS port, waiting for the first bytes counts against the login deadline; shutdown ends the wait', async () => {
    const backend = new FakeBackend();
    // Seconds, so that a loaded machine's stalls stay well inside the margins below.
    const { port, server } = await startServer(backend, { loginTimeoutMs: 3_000 }, [
      { port: 0, difficulty: 1, tls: pem },
    ]);
    const silent = await client(port);
    expect(await silent.waitClosed(10_000)).toBe(true);
    await until(() => server.metrics().connections.current === 0);
    // A client that speaks late (half a line here) has what is left of the deadline, not a new one.
    const late = await client(port);
    const connectedAt = Date.now();
    await sleep(2_000);
    late.send('{"id":1,');
    expect(await late.waitClosed(10_000)).toBe(true);
    // At the deadline from the connect (3 s), not a new one from the first bytes (5 s).
    expect(Date.now() - connectedAt).toBeLessThan(4_500);
    await until(() => server.metrics().connections.current === 0);
    expect(server.metrics().closes).toEqual({ 'login-timeout': 2 });

    const waiting = await client(port);
    await until(() => server.metrics().connections.current === 1);
    const started = Date.now();
    await server.close();
    // At once, not at the waiting client's login deadline (3 s).
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await waiting.waitClosed(10_000)).toBe(true);
    expect(server.metrics().closes).toMatchObject({ shutdown: 1 });
  });

  it('a TLS miner on a plain port is closed quickly', async () => {
    const backend = new FakeBackend();
    const { ports, server } = await startServer(backend, {}, [
      { port: 0, difficulty: 1, tls: pem },
      { port: 0, difficulty: 1 },
    ]);
    const started = Date.now();
    const socket = tlsConnect({ port: ports[1]!, host: '127.0.0.1', rejectUnauthorized: false });
    const failed = await new Promise<boolean>((resolve) => {
      socket.once('secureConnect', () => resolve(false));
      socket.once('error', () => resolve(true));
      socket.once('close', () => resolve(true));
    });
    socket.destroy();
    expect(failed).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    await until(() => server.metrics().connections.current === 0);
    expect(server.metrics().protocolErrors.byKind).toEqual({ TLS_ON_PLAIN_PORT: 1 });
    expect(backend.logins).toHaveLength(0);
    // The server is unharmed.
    await (await client(ports[1]!)).login();
  });

  it('maxPendingRequests back-pressure works through TLS too', async () => {
    const backend = new FakeBackend();
    const { port } = await startServer(backend, { maxPendingRequests: 8 }, [
      { port: 0, difficulty: 1, tls: pem },
    ]);
    const { c } = await tlsClient(port);
    await checkBackPressure(backend, c);
  });

  it('refuses a port whose cert/key are not PEM', () => {
    expect(
      () =>
        new StratumServer(
          stratumServerOptions({ ports: [{ port: 0, difficulty: 1, tls: { cert: 'nope', key: 'nope' } }] }),
          { backend: new FakeBackend(), logger: captureLogs().logger },
        ),
    ).toThrow(expect.objectContaining({ code: 'BAD_TLS_MATERIAL' }));
  });
});

describe('generateSelfSignedCertificate', () => {
  it('says to install openssl when the binary is missing', async () => {
    await expect(
      generateSelfSignedCertificate({ opensslPath: 'openssl-that-does-not-exist' }),
    ).rejects.toMatchObject({
      code: 'OPENSSL_MISSING',
    });
  });

  it('refuses a non-certificate when fingerprinting', () => {
    expect(() => certificateFingerprintSha256('garbage')).toThrow(
      expect.objectContaining({ code: 'BAD_CERTIFICATE' }),
    );
  });
});

describe('StratumServer: malformed input fuzz', () => {
  it('answers 2,000 junk lines only with JSON-RPC errors or a close, and never throws', async () => {
    const backend = new FakeBackend();
    const { port, server } = await startServer(backend, { maxLineBytes: 4096 });
    const junk = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ depthSize: 'large' }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
      fc.bigInt().map((n) => `{"id":${n},"method":"submit"}`),
      fc.string({ minLength: 1, maxLength: 30 }).map((s) => `{"id":1e999,"method":${JSON.stringify(s)}}`),
      fc
        .nat(60)
        .map(
          (depth) => `{"id":1,"method":"login","params":${'['.repeat(depth * 10)}${']'.repeat(depth * 10)}}`,
        ),
      fc
        .record({
          id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.double()),
          method: fc.constantFrom('login', 'submit', 'getjob', 'keepalived', 'x', 1),
          params: fc.oneof(
            fc.jsonValue(),
            fc.dictionary(fc.constantFrom('id', 'login', 'nonce', 'job_id', 'algo'), fc.jsonValue()),
          ),
        })
        .map((o) => JSON.stringify(o)),
      // Requests naming the live session, so the post-login paths see junk too.
      fc
        .record({
          id: fc.integer(),
          method: fc.constantFrom('submit', 'getjob', 'keepalived', 'login'),
          params: fc.dictionary(
            fc.constantFrom('job_id', 'nonce', 'result', 'algo', 'login'),
            fc.jsonValue(),
          ),
        })
        .map((o) => JSON.stringify({ ...o, params: { ...o.params, id: '@SESSION@' } })),
      fc.constant('x'.repeat(5000)),
    );
    const lines = fc.sample(junk, { numRuns: 2000, seed: 42 }).map((l) => l.replaceAll('\n', ' '));
    const heapBefore = process.memoryUsage().heapUsed;
    let answers = 0;
    let c: LineClient | undefined;
    let sessionId = '';
    for (const line of lines) {
      if (!c) {
        c = await client(port);
        sessionId = (await c.login()).sessionId;
      }
      // A sentinel whose answer proves the junk line was handled (replies are ordered).
      c.send(`${line.replace('@SESSION@', sessionId)}\n{"id":"sentinel","method":"nope"}\n`);
      for (;;) {
        const raw = await c.nextRaw();
        if (raw === undefined) {
          c = undefined;
          break;
        }
        expect(Buffer.byteLength(raw)).toBeGreaterThanOrEqual(32);
        const reply = JSON.parse(raw) as Json;
        if (reply['method'] === 'job') continue;
        expect(reply['jsonrpc']).toBe('2.0');
        expect(typeof reply['id'] === 'number' || typeof reply['id'] === 'string').toBe(true);
        if (reply['error'] !== null) {
          const error = reply['error'] as Json;
          expect(error['code']).toBe(-1);
          expect(Object.values(STRATUM_ERRORS).map((e) => e.message)).toContain(error['message']);
          expect(reply['result']).toBeNull();
        }
        if (reply['id'] === 'sentinel') break;
        answers++;
      }
    }
    c?.end();
    expect(answers).toBeGreaterThan(100);
    await until(() => server.metrics().connections.current === 0);
    expect(server.metrics().protocolErrors.total).toBeGreaterThan(0);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
  });
});
