import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolNode } from '../../src/app/pool-node.js';
import { parseConfig } from '../../src/config/load-config.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { createLogger } from '../../src/log/logger.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { runCliForTest } from '../helpers/cli.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

/**
 * `fuego-pool status` exits 1 when the templates of the process are unhealthy (the README and
 * CONTROL.md say so, for monitoring). A process with the stratum and leader roles (the default:
 * all roles) showed the stratum role's copy of the template from Redis, which stays "healthy"
 * while it has one: with the daemon gone for minutes, status said "templates healthy, ... 150 s
 * old" and exited 0, while the leader's poller counted failures and /health said failing.
 */
describe('fuego-pool status on the leading process when the daemon goes away', () => {
  let redis: TestRedis;
  let devnet: Devnet;
  let node: PoolNode;
  let dir: string;
  let socketPath: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    devnet = await startTestDevnet();
    dir = mkdtempSync(join(tmpdir(), 'fuego-status-'));
    socketPath = join(dir, 'control', 'control.sock');
    const config = parseConfig({
      network: 'devnet',
      roles: ['stratum', 'leader'],
      redis: { url: redis.url },
      daemon: { port: Number(new URL(devnet.daemonUrl).port), timeoutMs: 500, retries: 0 },
      wallet: { port: Number(new URL(devnet.walletUrl).port), timeoutMs: 500 },
      pool: { address: devnet.walletAddress },
      stratum: { ports: [{ port: 0, difficulty: 1_000 }] },
      control: { socketPath },
    });
    node = await PoolNode.start(config, { logger: createLogger({ level: 'silent' }), env: {} });
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    await devnet?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says UNHEALTHY and exits 1 once the leader cannot reach the daemon', async () => {
    const before = await runCliForTest(['status', '--socket', socketPath]);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('templates  healthy');

    await devnet.stop();
    const after = await until(
      async () => {
        const run = await runCliForTest(['status', '--socket', socketPath]);
        return run.code === 0 ? undefined : run;
      },
      5_000,
      'status to report the unreachable daemon',
    ).catch(() => runCliForTest(['status', '--socket', socketPath]));
    expect(after.stdout).toContain('UNHEALTHY');
    expect(after.code).toBe(1);
  }, 30_000);
});
