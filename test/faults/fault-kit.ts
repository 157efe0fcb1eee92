import { connect, type Socket } from 'node:net';
import { type DemoStack, startDemoStack } from '../../src/app/demo-stack.js';
import type { PoolConfigInput } from '../../src/config/schema.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { createLogger, type LoggerConfig } from '../../src/log/logger.js';
import { loadNativeHasher } from '../../src/pow/native.js';
import type { PowHasher } from '../../src/pow/types.js';

/**
 * Shared by the fault suites: the demo stack tuned for synthetic miners, and a synthetic stratum
 * miner that submits real cn/upx2 shares. It logs in as `<address>+1` (fixed difficulty 1, so any
 * correct hash is a valid share), hashes with the native addon and submits one share at a time,
 * like XMRig with one thread, counting what the pool answered.
 */
export async function startFaultStack(options: {
  networkDifficulty: number;
  poolOverrides?: Partial<PoolConfigInput>;
}): Promise<DemoStack> {
  return await startDemoStack(
    {
      stratumPort: 0,
      tlsPort: null,
      networkDifficulty: options.networkDifficulty,
      shareDifficulty: 1,
      daemonPort: 0,
      walletPort: 0,
      apiPort: null,
      poolOverrides: {
        ...options.poolOverrides,
        stratum: { minLoginDifficulty: 1, ...options.poolOverrides?.stratum },
      },
    },
    createLogger({ level: (process.env['FUEGO_FAULT_LOG'] ?? 'silent') as LoggerConfig['level'] }),
  );
}

interface Job {
  readonly blob: string;
  readonly job_id: string;
  readonly target: string;
  readonly height: number;
}

export interface MinerCounts {
  /** Submits sent. */
  submitted: number;
  /** Answered {"status":"OK"}. */
  ok: number;
  /** Answered with an error, by message. */
  errors: Map<string, number>;
  /** Connections made (1 + reconnects). */
  connections: number;
  /** Jobs received (login + pushes). */
  jobs: number;
}

/** A one-thread synthetic miner; reconnects by itself (as XMRig does) when the pool closes. */
export class SyntheticMiner {
  readonly counts: MinerCounts = { submitted: 0, ok: 0, errors: new Map(), connections: 0, jobs: 0 };
  /** Wall-clock time of every OK reply (fault windows are checked against it). */
  readonly okTimesMs: number[] = [];
  readonly #hasher: PowHasher = loadNativeHasher({ portable: false });
  #running = false;
  #loop: Promise<void> | undefined;
  #socket: Socket | undefined;
  #nonce = 0;
  readonly #port: number;
  /** Pause between shares (keeps two shared cores usable). */
  readonly #pauseMs: number;

  constructor(
    port: number,
    readonly address: string,
    readonly worker: string,
    pauseMs = 20,
  ) {
    this.#port = port;
    this.#pauseMs = pauseMs;
  }

  start(): void {
    this.#running = true;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#socket?.destroy();
    await this.#loop;
  }

  errorCount(): number {
    let total = 0;
    for (const n of this.counts.errors.values()) total += n;
    return total;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      try {
        await this.#session();
      } catch {
        // connection refused / closed: retry like XMRig's retry-pause (shortened)
      }
      if (this.#running) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async #session(): Promise<void> {
    const socket = connect({ port: this.#port, host: '127.0.0.1' });
    this.#socket = socket;
    socket.setEncoding('utf8');
    const lines: string[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    let buffer = '';
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        lines.push(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
      }
      wake?.();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      wake?.();
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
      // stop() destroys the socket: a connect that never completes must not hang the loop.
      socket.once('close', () => reject(new Error('closed')));
    });
    this.counts.connections++;
    let job: Job | undefined;
    let sessionId = '';
    let nextId = 1;
    /** Next reply to request `id`; job pushes seen on the way are applied. */
    const replyTo = async (id: number): Promise<Record<string, unknown>> => {
      for (;;) {
        while (lines.length > 0) {
          const message = JSON.parse(lines.shift()!) as Record<string, unknown>;
          if (message['method'] === 'job') {
            job = message['params'] as Job;
            this.counts.jobs++;
          } else if (message['id'] === id) return message;
        }
        if (closed || !this.#running) throw new Error('closed');
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    };
    const send = (method: string, params: object): number => {
      const id = nextId++;
      socket.write(`${JSON.stringify({ id, jsonrpc: '2.0', method, params })}\n`);
      return id;
    };
    const login = await replyTo(
      send('login', {
        login: `${this.address}+1`,
        pass: 'x',
        rigid: this.worker,
        agent: 'synthetic/1',
        algo: ['cn/upx2'],
      }),
    );
    const result = login['result'] as { id: string; job: Job } | null;
    if (!result) throw new Error(`login refused: ${JSON.stringify(login['error'])}`);
    sessionId = result.id;
    job = result.job;
    this.counts.jobs++;
    while (this.#running && !closed) {
      const current = job;
      const blob = hexToBytes(current.blob);
      const nonce = this.#nonce++ >>> 0;
      blob[39] = nonce & 0xff;
      blob[40] = (nonce >>> 8) & 0xff;
      blob[41] = (nonce >>> 16) & 0xff;
      blob[42] = (nonce >>> 24) & 0xff;
      const hash = this.#hasher.hash(blob);
      const nonceHex = bytesToHex(blob.subarray(39, 43));
      this.counts.submitted++;
      const reply = await replyTo(
        send('submit', {
          id: sessionId,
          job_id: current.job_id,
          nonce: nonceHex,
          result: bytesToHex(hash),
          algo: 'cn/upx2',
        }),
      );
      const error = reply['error'] as { message?: string } | null;
      if (error === null) {
        this.counts.ok++;
        this.okTimesMs.push(Date.now());
      } else {
        const message = error?.message ?? 'unknown';
        this.counts.errors.set(message, (this.counts.errors.get(message) ?? 0) + 1);
      }
      if (this.#pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#pauseMs));
    }
    socket.destroy();
  }
}

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
