import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolNode } from '../../src/app/pool-node.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/log/logger.js';
import { findPackageRoot } from '../../src/package-root.js';
import { freePort, startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/** An API node from a config that says nothing of the dashboard (as an operator's would). */
async function startApiNode(redisUrl: string, api: Record<string, unknown> = {}): Promise<PoolNode> {
  // Ports nothing listens on (not the defaults, which another test's devnet may hold): the
  // daemon and wallet polls fail at once instead of waiting for their timeouts.
  const config = parseConfig({
    roles: ['api'],
    redis: { url: redisUrl },
    daemon: { port: await freePort(), timeoutMs: 500, retries: 0 },
    wallet: { port: await freePort(), timeoutMs: 500 },
    api: { port: 0, ...api },
  });
  return PoolNode.start(config, { logger: createLogger({ level: 'silent' }), env: {} });
}

function baseUrl(node: PoolNode): string {
  const address = node.api?.server.address();
  if (address === null || address === undefined || typeof address === 'string')
    throw new Error('no API port');
  return `http://127.0.0.1:${address.port}`;
}

describe('fuego-pool start serves the shipped dashboard', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('answers / with the package dashboard/index.html by default', async () => {
    const node = await startApiNode(redis.url);
    try {
      const reply = await fetch(`${baseUrl(node)}/`);
      expect(reply.status).toBe(200);
      const shipped = readFileSync(join(findPackageRoot(), 'dashboard', 'index.html'), 'utf8');
      expect(await reply.text()).toBe(shipped);
      // Read to the end: a body left unread holds the connection, and stop() would wait for it.
      const uplot = await fetch(`${baseUrl(node)}/vendor/uplot/uPlot.esm.js`);
      expect(uplot.status).toBe(200);
      expect(await uplot.text()).toContain('export');
    } finally {
      await node.stop();
    }
  });

  it('answers 404 at / when api.dashboard is false, and the API still works', async () => {
    const node = await startApiNode(redis.url, { dashboard: false });
    try {
      const index = await fetch(`${baseUrl(node)}/`);
      expect(index.status).toBe(404);
      await index.text();
      const stats = await fetch(`${baseUrl(node)}/api/stats`);
      expect(stats.status).not.toBe(404);
      await stats.text();
    } finally {
      await node.stop();
    }
  });

  it('names the key when the switches disagree or the folder has no index.html', async () => {
    expect(() => parseConfig({ api: { dashboard: false, staticDir: '/srv/site' } })).toThrow(
      /api\.staticDir/,
    );
    expect(() => parseConfig({ api: { dashboard: 'yes' } })).toThrow(/api\.dashboard/);
    const empty = tempDir('no-dashboard-');
    await expect(startApiNode(redis.url, { staticDir: empty })).rejects.toThrow(
      /api\.staticDir: no index\.html/,
    );
  });
});
