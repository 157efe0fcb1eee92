import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FuegoPoolError } from '../../src/errors.js';
import { startTestDevnet } from './devnet-test-helpers.js';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  return (server.address() as { port: number }).port;
}

/**
 * `fuego-pool devnet` (and the demo) with a port taken: the raw EADDRINUSE error reached the
 * binary as "unexpected failure" with a stack (exit 70), and when the wallet port was the one
 * taken the daemon server already listening kept the process alive: it printed the failure and
 * then hung until killed.
 */
describe('Devnet.start with a port in use', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('names the daemon port in a FuegoPoolError', async () => {
    const taken = await listen(0);
    servers.push(taken);
    const started = startTestDevnet({ daemon: { port: portOf(taken) } });
    await expect(started).rejects.toBeInstanceOf(FuegoPoolError);
    await expect(started).rejects.toThrow(`127.0.0.1:${portOf(taken)}`);
  });

  it('names the wallet port and leaves nothing listening on the daemon port', async () => {
    const taken = await listen(0);
    servers.push(taken);
    const probe = await listen(0);
    const daemonPort = portOf(probe);
    await new Promise((resolve) => probe.close(resolve));
    const error = await startTestDevnet({
      daemon: { port: daemonPort },
      wallet: { port: portOf(taken) },
    }).catch((failure: unknown) => failure);
    // The daemon port is free again: the failed start closed what it had opened.
    servers.push(await listen(daemonPort));
    expect(error).toBeInstanceOf(FuegoPoolError);
    expect((error as Error).message).toContain(`127.0.0.1:${portOf(taken)}`);
  });
});
