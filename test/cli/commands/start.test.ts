import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
