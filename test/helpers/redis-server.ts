import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private redis-server for one test file: its own port, its own temp dir, stopped by PID. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

async function waitForPing(port: number, child: ChildProcess, deadlineMs: number): Promise<void> {
  const { Socket } = await import('node:net');
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not answer on port ${port} within ${deadlineMs} ms`);
}

/** Starts redis-server on a free loopback port; `appendonly` for tests that restart it. */
export async function startTestRedis(options: { appendOnly?: boolean } = {}): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'fuego-pool-redis-'));
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      options.appendOnly ? 'yes' : 'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: 'ignore' },
  );
  try {
    await waitForPing(port, child, 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
