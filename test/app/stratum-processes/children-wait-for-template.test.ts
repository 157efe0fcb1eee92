import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolNode } from '../../../src/app/pool-node.js';
import { StratumProcessGroup } from '../../../src/app/stratum-processes/stratum-process-group.js';
import { createClusterKeys } from '../../../src/cluster/cluster-keys.js';
import { parseConfig } from '../../../src/config/load-config.js';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { createLogger } from '../../../src/log/logger.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { isRunning } from '../../helpers/processes.js';
import { freePort, startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { StratumLineClient } from '../../helpers/stratum-line-client.js';
import { until } from '../../helpers/until.js';
import { FakeBanRegistry } from '../../pool/pool-fakes.js';

const POOL_ADDRESS =
  'fireVHx639SLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxJmAUNp';
/** Short, so that the test outlives it; the real children boot well within it (~1 s; a few on a loaded machine). */
const START_TIMEOUT_MS = 10_000;

/**
 * Stratum child processes (the real child, from dist/) whose daemon is down: they boot and then
 * wait for their first template as long as it takes (fuegod may sync for hours). The start
 * timeout covers the boot only; a child waiting for its template is not killed when it runs out,
 * and serves once the daemon comes up.
 */
describe('stratum child processes waiting for their first template', () => {
  let redis: TestRedis;
  let client: Redis;
  let leader: PoolNode | undefined;
  let group: StratumProcessGroup | undefined;
  let devnet: Devnet | undefined;
  const miners: StratumLineClient[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    client = await createRedisClient({ url: redis.url }, createLogger({ level: 'silent' }));
  });

  afterAll(async () => {
    for (const miner of miners) miner.close();
    await group?.stop();
    await leader?.stop();
    await devnet?.stop();
    client?.disconnect();
    await redis?.stop();
  });

  it('outlive the start timeout while the daemon is down, and serve miners once it is up', async () => {
    const [daemonPort, walletPort] = await Promise.all([freePort(), freePort()]);
    const base = {
      network: 'devnet',
      redis: { url: redis.url },
      daemon: { host: '127.0.0.1', port: daemonPort, timeoutMs: 500, retries: 0 },
      wallet: { host: '127.0.0.1', port: walletPort, timeoutMs: 500 },
      pool: { address: POOL_ADDRESS, nodeId: 40 },
      templates: { retryDelayMs: 250 },
      control: { enabled: false },
    } as const;
    // The templates come from the leader through Redis: here it polls a daemon that is not there.
    leader = await PoolNode.start(parseConfig({ ...base, roles: ['leader'] }), {
      logger: createLogger({ level: 'silent' }),
      env: {},
    });
    const config = parseConfig({
      ...base,
      roles: ['stratum'],
      pow: { workers: 1 },
      stratum: { processes: 2, ports: [{ host: '127.0.0.1', port: 0, difficulty: 1_000 }] },
    });
    const startedAtMs = Date.now();
    const waiting = new StratumProcessGroup(
      { config, processes: 2, startTimeoutMs: START_TIMEOUT_MS },
      { logger: createLogger({ level: 'silent' }), bans: new FakeBanRegistry() },
    );
    group = waiting;
    let outcome = 'pending';
    waiting.serve().then(
      () => {
        outcome = 'started';
      },
      (error: unknown) => {
        outcome = (error as { code?: string }).code ?? String(error);
      },
    );

    // Both children booted (each claimed its node id), then the start timeout runs out.
    const keys = createClusterKeys(config.redis.keyPrefix);
    await until(
      async () =>
        (await client.get(keys.nodeIdClaim(40))) !== null && (await client.get(keys.nodeIdClaim(41))) !== null
          ? true
          : undefined,
      START_TIMEOUT_MS,
      'both children to claim their node ids',
    );
    const pids = waiting.children().map((c) => c.pid);
    await new Promise((resolve) => setTimeout(resolve, startedAtMs + START_TIMEOUT_MS + 1_500 - Date.now()));
    expect(outcome).toBe('pending');
    expect(waiting.children().map((c) => [c.state, c.pid])).toEqual([
      ['waiting-for-template', pids[0]],
      ['waiting-for-template', pids[1]],
    ]);
    expect(pids.every((pid) => pid !== null && isRunning(pid))).toBe(true);

    devnet = await startTestDevnet({ daemon: { port: daemonPort }, wallet: { port: walletPort } });
    await until(() => (outcome === 'pending' ? undefined : true), 15_000, 'the children to serve');
    expect(outcome).toBe('started');
    expect(waiting.children().map((c) => [c.state, c.restarts, c.pid])).toEqual([
      ['serving', 0, pids[0]],
      ['serving', 0, pids[1]],
    ]);
    const port = waiting.listening()[0]!.port;
    for (let i = 0; i < 2; i++) {
      const miner = await StratumLineClient.open(port);
      miners.push(miner);
      const reply = await miner.request('login', {
        login: `${POOL_ADDRESS}.waited-${i}`,
        pass: 'x',
        agent: 'template-wait-test/1.0',
        algo: ['cn/upx2'],
      });
      expect(reply?.['error']).toBeNull();
      expect((reply?.['result'] as { job?: { blob: string } } | undefined)?.job?.blob).toMatch(/^[0-9a-f]+$/);
    }
  }, 60_000);
});
