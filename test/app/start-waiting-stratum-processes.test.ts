import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolNode } from '../../src/app/pool-node.js';
import { createClusterKeys } from '../../src/cluster/cluster-keys.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/log/logger.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { runCliForTest } from '../helpers/cli.js';
import { childPids } from '../helpers/processes.js';
import { freePort, startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const POOL_ADDRESS =
  'fireVHx639SLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxJmAUNp';

/**
 * With `stratum.processes` > 1 the wait for the first template is in the stratum child
 * processes. The parent's control socket answers meanwhile (each child `waiting-for-template`
 * once booted: the start timeout no longer runs), and a stop during the wait ends every child
 * cleanly: their node ids are given back at once, so a restart does not find them taken for a
 * lease.
 */
describe('PoolNode with stratum child processes, the daemon down', () => {
  let redis: TestRedis;
  let client: Redis;
  let dir: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    client = await createRedisClient({ url: redis.url }, createLogger({ level: 'silent' }));
    dir = mkdtempSync(join(tmpdir(), 'fuego-waiting-children-'));
  });

  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('status shows the children waiting for the template; a stop during the wait gives every node id back', async () => {
    const socketPath = join(dir, 'control.sock');
    const [daemonPort, walletPort] = await Promise.all([freePort(), freePort()]);
    const config = parseConfig({
      roles: ['stratum', 'leader'],
      redis: { url: redis.url },
      daemon: { host: '127.0.0.1', port: daemonPort, timeoutMs: 500, retries: 0 },
      wallet: { host: '127.0.0.1', port: walletPort, timeoutMs: 500 },
      pool: { address: POOL_ADDRESS, nodeId: 20 },
      templates: { retryDelayMs: 60_000 },
      stratum: { processes: 2, ports: [{ host: '127.0.0.1', port: 0, difficulty: 1_000 }] },
      control: { socketPath },
    });
    const before = childPids();
    const shutdown = new AbortController();
    const starting = PoolNode.start(config, {
      logger: createLogger({ level: 'silent' }),
      env: {},
      shutdown: shutdown.signal,
    });
    const outcome = starting.then(
      () => 'started',
      (error: unknown) => (error as { code?: string }).code,
    );
    const keys = createClusterKeys(config.redis.keyPrefix);
    const status = await until(
      async () => {
        const run = await runCliForTest(['status', '--socket', socketPath]).catch(() => undefined);
        const claimed = await client.get(keys.nodeIdClaim(21));
        const bothWaiting =
          /#0 node 20 pid \d+ waiting-for-template; #1 node 21 pid \d+ waiting-for-template/;
        return run !== undefined && bothWaiting.test(run.stdout) && claimed !== null ? run : undefined;
      },
      30_000,
      'status while the children wait for the first template',
    );
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('waiting for the first template');
    expect(status.stdout).toContain('stratum    not listening yet: the ports open with the first template');

    const stoppedAtMs = Date.now();
    shutdown.abort();
    expect(await outcome).toBe('STOPPED_WHILE_STARTING');
    expect(Date.now() - stoppedAtMs).toBeLessThan(10_000);
    expect(await client.get(keys.nodeIdClaim(20))).toBeNull();
    expect(await client.get(keys.nodeIdClaim(21))).toBeNull();
    expect(await client.get(keys.leaderToken)).toBeNull();
    await until(() => (childPids().length > before.length ? undefined : true), 5_000, 'the children gone');
  }, 60_000);
});
