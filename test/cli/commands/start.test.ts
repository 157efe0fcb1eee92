import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolNode } from '../../../src/app/pool-node.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { createLogger } from '../../../src/log/logger.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { runCliForTest } from '../../helpers/cli.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';

/**
 * `fuego-pool start` names a port it cannot listen on. A stratum port in use already stops it with
 * `stratum port HOST:PORT is already in use [PORT_IN_USE]`; the API port in use escaped as a raw
 * EADDRINUSE error, which the binary prints as "unexpected failure" with a stack, exit 70.
 */
describe('fuego-pool start: the API port in use', () => {
  let redis: TestRedis;
  let blocker: Server;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as { port: number }).port;
    dir = mkdtempSync(join(tmpdir(), 'fuego-start-'));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops with exit 1 and a message naming the port, not a stack', async () => {
    const configFile = join(dir, 'pool.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        roles: ['api'],
        log: { level: 'silent' },
        redis: { url: redis.url },
        api: { host: '127.0.0.1', port },
        control: { enabled: false },
      }),
    );
    const run = await runCliForTest(['start', '--config', configFile]).catch((error: unknown) => ({
      code: 'threw',
      stdout: '',
      stderr: String(error),
    }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`127.0.0.1:${port}`);
    expect(run.stderr).toContain('in use');
  }, 30_000);
});

/**
 * A pool that stops itself on a fatal fault after it started serving (here: the daemon turns out to
 * be on another network, found by the leader while the stratum role serves the template another
 * process left in Redis) exits 1 and says why on stderr, as a failed start does. The reason was only
 * in the JSON log: with `log.level` "silent" the operator saw exit 1 and nothing else.
 */
describe('fuego-pool start: a fatal fault while serving', () => {
  let redis: TestRedis;
  let devnet: Devnet;
  let dir: string;

  beforeAll(async () => {
    [redis, devnet] = await Promise.all([startTestRedis(), startTestDevnet()]);
    dir = mkdtempSync(join(tmpdir(), 'fuego-start-fatal-'));
  });

  afterAll(async () => {
    await Promise.all([redis.stop(), devnet.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 1 naming the fault on stderr, whatever the log level', async () => {
    const config = {
      network: 'devnet',
      log: { level: 'silent' },
      redis: { url: redis.url, keyPrefix: 'fatal' },
      daemon: { port: Number(new URL(devnet.daemonUrl).port) },
      wallet: { port: Number(new URL(devnet.walletUrl).port) },
      pool: { address: devnet.control.defaultAddress },
      stratum: { ports: [{ port: 0, difficulty: 1000 }] },
      api: { enabled: false },
      control: { enabled: false },
    } as const;
    // A pool on the right network leaves its template in Redis.
    const first = await PoolNode.start(parseConfig(config), { logger: createLogger({ level: 'silent' }) });
    await first.stop();
    // A slow daemon: the stratum role serves that template before the leader finds the network wrong.
    await devnet.control.setDaemonAvailability({ kind: 'slow', delayMs: 1_000 });
    const configFile = join(dir, 'pool.json');
    writeFileSync(configFile, JSON.stringify({ ...config, network: 'mainnet' }));
    const run = await runCliForTest(['start', '--config', configFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('fuego-pool start: ');
    expect(run.stderr).toContain('the daemon is on another network');
    expect(run.stderr).toContain('[WRONG_NETWORK]');
  }, 30_000);
});
