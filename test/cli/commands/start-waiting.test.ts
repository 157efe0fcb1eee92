import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterKeys } from '../../../src/cluster/cluster-keys.js';
import { createLogger } from '../../../src/log/logger.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { runCliForTest } from '../../helpers/cli.js';
import { DEFAULT_CONFIG } from '../../helpers/config-defaults.js';
import { freePort, startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { until } from '../../helpers/until.js';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'cli.js');
const POOL_ADDRESS =
  'fireVHx639SLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxJmAUNp';

/** Whether something accepts a TCP connection on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * `fuego-pool start` with fuegod down (or still syncing) waited for its first block template
 * before it opened the control socket and the API: `fuego-pool status` said "is the pool
 * running?" of a running process, and SIGINT/SIGTERM during the wait killed it outright (no
 * handler yet: Redis connections dropped, the leader lease left to run out, exit by signal).
 */
describe('fuego-pool start while the daemon is down', () => {
  let redis: TestRedis;
  let client: Redis;
  let dir: string;
  let child: ChildProcess;
  let output = '';
  let socketPath: string;
  let daemonPort: number;
  let stratumPort: number;
  let apiPort: number;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
    redis = await startTestRedis();
    client = await createRedisClient({ url: redis.url }, createLogger({ level: 'silent' }));
    dir = mkdtempSync(join(tmpdir(), 'fuego-start-waiting-'));
    socketPath = join(dir, 'control.sock');
    // Nothing listens on these: the daemon refuses, the stratum and API ports are the pool's.
    [daemonPort, stratumPort, apiPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const walletPort = await freePort();
    const configFile = join(dir, 'pool.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        log: { level: 'info' },
        redis: { url: redis.url },
        daemon: { host: '127.0.0.1', port: daemonPort, timeoutMs: 500, retries: 0 },
        wallet: { host: '127.0.0.1', port: walletPort, timeoutMs: 500 },
        pool: { address: POOL_ADDRESS },
        // A long backoff: a stop during the wait must not sit it out.
        templates: { retryDelayMs: 60_000 },
        stratum: { ports: [{ host: '127.0.0.1', port: stratumPort, difficulty: 1_000 }] },
        api: { host: '127.0.0.1', port: apiPort },
        control: { socketPath },
      }),
    );
    child = spawn(process.execPath, [CLI, 'start', '--config', configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  }, 30_000);

  afterAll(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    client?.disconnect();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('status answers at once: waiting for the first template, with the daemon and why; exit 1', async () => {
    const run = await until(
      async () => {
        const attempt = await runCliForTest(['status', '--socket', socketPath]);
        return attempt.stdout.includes('ECONNREFUSED') ? attempt : undefined;
      },
      15_000,
      'status to answer while the pool waits for the daemon',
    ).catch(async () => runCliForTest(['status', '--socket', socketPath]));
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('waiting for the first template');
    expect(run.stdout).toContain(`http://127.0.0.1:${daemonPort}`);
    expect(run.stdout).toContain('ECONNREFUSED');
    expect(run.code).toBe(1);

    const json = JSON.parse((await runCliForTest(['status', '--json', '--socket', socketPath])).stdout);
    expect(json.waiting).toMatchObject({ daemon: `http://127.0.0.1:${daemonPort}` });
  }, 30_000);

  it('the API is up and /health says not ready, with the reason; stratum takes no miner yet', async () => {
    const response = await fetch(`http://127.0.0.1:${apiPort}/health`);
    expect(response.status).toBe(503);
    const health = (await response.json()) as {
      status: string;
      checks: { template: { status: string; detail: string | null } };
    };
    expect(health.status).toBe('failing');
    expect(health.checks.template.status).toBe('failing');
    expect(health.checks.template.detail).toContain('waiting for the first template');
    expect(health.checks.template.detail).toContain('ECONNREFUSED');
    expect(await accepts(stratumPort)).toBe(false);
  }, 15_000);

  it('SIGTERM during the wait stops it cleanly and quickly: exit 0, lease and node id given back', async () => {
    const keys = createClusterKeys(DEFAULT_CONFIG.redis.keyPrefix);
    expect(await client.get(keys.leaderToken)).not.toBeNull();
    const startedMs = Date.now();
    child.kill('SIGTERM');
    const exit = await exited(child);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - startedMs).toBeLessThan(10_000);
    expect(output).toContain('shutting down');
    expect(await client.get(keys.leaderToken)).toBeNull();
    expect(await client.get(keys.nodeIdClaim(DEFAULT_CONFIG.pool.nodeId))).toBeNull();
  }, 20_000);
});
