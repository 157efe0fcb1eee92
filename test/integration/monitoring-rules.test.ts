import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoStack, startDemoStack } from '../../src/app/demo-stack.js';
import { createLogger } from '../../src/log/logger.js';
import { createPaymentKeys } from '../../src/store/payments/payment-keys.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { E2E_STACK_OPTIONS } from '../e2e/e2e-stack-options.js';

const ROOT = join(import.meta.dirname, '..', '..');
const ALERTS = join(ROOT, 'deploy', 'prometheus', 'alerts.yml');
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'fuego-pool.json');

/** The pool's metric names an expression uses (Prometheus' own, like `up`, are not the pool's). */
function poolMetricNames(expressions: readonly string[]): Set<string> {
  return new Set(expressions.flatMap((expr) => expr.match(/\bfuego_pool_[a-z0-9_]+/g) ?? []));
}

/** Metric names a Prometheus text exposition declares (TYPE lines) or has samples of. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const declared = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (declared) {
      const name = declared[1]!;
      names.add(name);
      // A histogram's series: a histogram with no observation yet has none in the text.
      if (declared[2] === 'histogram')
        for (const part of ['bucket', 'sum', 'count']) names.add(`${name}_${part}`);
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]!);
  }
  return names;
}

/**
 * The shipped alerting rules and Grafana dashboard against a real pool: the demo stack (devnet
 * daemon and wallet, Redis, every role, two stratum child processes) scraped over HTTP.
 */
describe('monitoring: alert rules and Grafana dashboard over the metrics the pool exports', () => {
  let stack: DemoStack;
  let scrape: string;

  beforeAll(async () => {
    stack = await startDemoStack(
      { ...E2E_STACK_OPTIONS, poolOverrides: { pow: { workers: 1 }, stratum: { processes: 2 } } },
      createLogger({ level: 'warn' }),
    );
    scrape = await (await fetch(`${stack.apiUrl}/metrics`)).text();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('alerts.yml passes `promtool check rules`', () => {
    const check = spawnSync('promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' });
    if (check.error !== undefined) {
      throw new Error(
        'promtool not found: install the Debian/Ubuntu package `prometheus` (apt-get install prometheus, ' +
          'or run scripts/ensure-prereqs.sh as root)',
      );
    }
    expect(`${check.stdout}${check.stderr}`).toContain('SUCCESS');
    expect(check.status).toBe(0);
  });

  it('every metric alerts.yml uses is in a scrape of /metrics', () => {
    const expressions = [...readFileSync(ALERTS, 'utf8').matchAll(/^\s*expr:\s*(.+)$/gm)].map((m) => m[1]!);
    expect(expressions.length).toBeGreaterThanOrEqual(10);
    const used = poolMetricNames(expressions);
    const exposed = exposedNames(scrape);
    expect([...used].filter((name) => !exposed.has(name))).toEqual([]);
  });

  it('the Grafana dashboard is JSON whose panels query metrics that are in the scrape', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    expect(dashboard.panels.length).toBeGreaterThan(5);
    const expressions = dashboard.panels.flatMap((panel) => panel.targets.map((t) => t.expr));
    const used = poolMetricNames(expressions);
    expect(used.size).toBeGreaterThan(15);
    const exposed = exposedNames(scrape);
    expect([...used].filter((name) => !exposed.has(name))).toEqual([]);
  });

  it('the real pool reports its PoW implementation and what it owes', () => {
    expect(scrape).toMatch(/^fuego_pool_pow_implementation\{name="native"\} 1$/m);
    expect(scrape).toMatch(/^fuego_pool_owed_atomic\{kind="balance"\} \d+$/m);
    expect(scrape).toMatch(/^fuego_pool_leader_present 1$/m);
  });

  it('reports the peers the kernel drops on each port (FuegoPoolFloodDropping, the flood drops panel)', () => {
    expect(scrape).toMatch(/^fuego_pool_flood_dropped_peers\{server="stratum"\} 0$/m);
    expect(scrape).toMatch(/^fuego_pool_flood_dropped_peers\{server="api"\} 0$/m);
    const alerts = readFileSync(ALERTS, 'utf8');
    expect(alerts).toContain('expr: sum by (server) (fuego_pool_flood_dropped_peers) > 0');
  });

  it("times the pool's calls to fuegod and walletd (the dashboard's RPC latency panel)", async () => {
    await fetch(`${stack.apiUrl}/health`); // asks walletd too
    await expect
      .poll(async () => (await fetch(`${stack.apiUrl}/metrics`)).text())
      .toMatch(/^fuego_pool_rpc_duration_seconds_count\{service="daemon",method="[a-z_/]+"\} [1-9]\d*$/m);
    const again = await (await fetch(`${stack.apiUrl}/metrics`)).text();
    expect(again).toMatch(
      /^fuego_pool_rpc_duration_seconds_count\{service="wallet",method="[A-Za-z_/]+"\} [1-9]\d*$/m,
    );
  });

  it("counts the credited blocks the reorg watch flagged from the pool's Redis index", async () => {
    expect(scrape).toMatch(/^fuego_pool_blocks_orphaned_after_credit 0$/m);
    const redis = await createRedisClient({ url: stack.redis.url }, createLogger({ level: 'silent' }));
    const flagged = createPaymentKeys(stack.pool.config.redis.keyPrefix).blocksOrphanedAfterCredit;
    try {
      await redis.zadd(flagged, 1, 'ab'.repeat(32));
      const again = await (await fetch(`${stack.apiUrl}/metrics`)).text();
      expect(again).toMatch(/^fuego_pool_blocks_orphaned_after_credit 1$/m);
    } finally {
      await redis.del(flagged);
      redis.disconnect();
    }
  });
});
