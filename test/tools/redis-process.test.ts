import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort, rawRedisCommand, spawnRedisProcess } from '../../src/tools/redis-process.js';
import { until } from '../helpers/until.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/redis/redis-then-wait.mjs', import.meta.url));
const HAVE_SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].some((path) => existsSync(path));

/** Running and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe.skipIf(!HAVE_SETPRIV)('a redis-server this project starts', () => {
  it('stops when the process that started it is killed with SIGKILL (npm run devnet, a test run)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fuego-pool-orphan-'));
    const starter = spawn(process.execPath, [FIXTURE, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let redisPid = 0;
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: starter.stdout! }).once('line', resolve);
        starter.once('exit', (code) => reject(new Error(`the starter exited with code ${code}`)));
      });
      const { pid, port } = JSON.parse(line) as { pid: number; port: number };
      redisPid = pid;
      expect(await rawRedisCommand(port, 'PING')).toBe('+PONG\r\n');
      starter.kill('SIGKILL');
      await until(() => (alive(pid) ? undefined : true), 10_000, 'redis-server to stop');
      expect(await rawRedisCommand(port, 'PING')).toBe('');
    } finally {
      starter.kill('SIGKILL');
      if (redisPid !== 0 && alive(redisPid)) process.kill(redisPid, 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('is named as not installed when redis-server is not on the PATH', async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      const port = await freePort();
      await expect(spawnRedisProcess(port, ['--port', String(port)])).rejects.toMatchObject({
        code: 'REDIS_NOT_INSTALLED',
        message: 'redis-server is not installed (apt-get install redis-server)',
      });
    } finally {
      process.env['PATH'] = path;
    }
  });
});
