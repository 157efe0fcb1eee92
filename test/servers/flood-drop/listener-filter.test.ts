import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { dropProgram, dropSourceOf } from '../../../src/servers/flood-drop/drop-program.js';
import { type ListenerFilter, loadListenerFilter } from '../../../src/servers/flood-drop/listener-filter.js';

const loaded = loadListenerFilter();
const filter: ListenerFilter | undefined = 'filter' in loaded ? loaded.filter : undefined;
const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(host: string): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.pipe(socket); // an echo server
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Whether a connection from `localAddress` opens within 800 ms (a dropped SYN never answers). */
function connects(host: string, port: number, localAddress: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, localAddress });
    sockets.push(socket);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, 800);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

const program = (...keys: string[]): Uint32Array =>
  dropProgram(keys.map((key) => dropSourceOf(key) ?? expect.fail(`not a source: ${key}`)));

describe('dropSourceOf', () => {
  it('reads addresses and networks from peer keys, and refuses what is not one', () => {
    expect(dropSourceOf('127.0.0.5')).toEqual({
      family: 4,
      bytes: Uint8Array.of(127, 0, 0, 5),
      prefixLength: 32,
    });
    expect(dropSourceOf('2001:db8:1:2::/64')?.prefixLength).toBe(64);
    expect(dropSourceOf('::ffff:1.2.3.4')?.bytes).toEqual(
      Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4),
    );
    expect(dropSourceOf('not-an-ip')).toBeNull();
    expect(dropSourceOf('::/0')).toBeNull(); // never everything
    expect(dropSourceOf('10.0.0.0/4')).toBeNull();
  });
});

describe.skipIf(filter === undefined)('the kernel drop filter on a listening socket', () => {
  it('drops connections from the listed IPv4 source only, and lets it in again once taken off', async () => {
    const { server, port } = await listen('127.0.0.1');
    expect(filter!.attach(server, program('127.0.0.5', '10.1.2.3'))).toBe(true);
    expect(await connects('127.0.0.1', port, '127.0.0.5')).toBe(false);
    expect(await connects('127.0.0.1', port, '127.0.0.6')).toBe(true);
    filter!.detach(server);
    expect(await connects('127.0.0.1', port, '127.0.0.5')).toBe(true);
  });

  it('keeps connections opened before the source was listed working', async () => {
    const { server, port } = await listen('127.0.0.1');
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.7' });
    sockets.push(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    filter!.attach(server, program('127.0.0.7'));
    const echoed = new Promise<string>((resolve) => socket.once('data', (data) => resolve(data.toString())));
    socket.write('still here');
    expect(await echoed).toBe('still here');
  });

  // Loopback only: a dual-stack socket bound to the IPv4-mapped loopback address (IPv4 peers reach
  // it as IPv4 packets, as on a listener on "::"), and one bound to ::1 for IPv6 sources.
  it('matches IPv4 peers of a dual-stack listener by their IPv4 address', async () => {
    const mapped = await listen('::ffff:127.0.0.1');
    filter!.attach(mapped.server, program('127.0.0.8'));
    expect(await connects('127.0.0.1', mapped.port, '127.0.0.8')).toBe(false);
    expect(await connects('127.0.0.1', mapped.port, '127.0.0.9')).toBe(true);
    filter!.attach(mapped.server, program('::/64'));
    expect(await connects('127.0.0.1', mapped.port, '127.0.0.8')).toBe(true);
  });

  it('matches IPv6 sources by their network', async () => {
    let v6: { server: Server; port: number };
    try {
      v6 = await listen('::1');
    } catch {
      return; // no IPv6 loopback on this host
    }
    expect(await connects('::1', v6.port, '::1')).toBe(true);
    filter!.attach(v6.server, program('::/64')); // ::1 is in ::/64
    expect(await connects('::1', v6.port, '::1')).toBe(false);
    filter!.attach(v6.server, program('2001:db8::/48', '::2'));
    expect(await connects('::1', v6.port, '::1')).toBe(true);
  });

  it('says a server that is not listening cannot be filtered', () => {
    expect(filter!.attach(createServer(), program('127.0.0.5'))).toBe(false);
  });
});

describe('the listener filter where its addon cannot load', () => {
  const root = mkdtempSync(join(tmpdir(), 'fuego-filter-addon-'));
  const fromUrl = pathToFileURL(join(root, 'src', 'servers', 'flood-drop', 'listener-filter.js')).href;
  const path = join(root, 'build', 'Release', 'fuego_socket_filter.node');
  writeFileSync(join(root, 'package.json'), '{}');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('says the addon is not built, and where it was looked for', () => {
    expect(loadListenerFilter(fromUrl)).toEqual({ unavailable: `native addon not built (${path} missing)` });
  });

  it('says it failed to load a file that is not an addon, and why', () => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'not a shared object');
    const loaded = loadListenerFilter(fromUrl);
    expect(loaded).toEqual({ unavailable: expect.stringMatching(/^native addon failed to load: .+/) });
    expect(loaded).toEqual({ unavailable: expect.stringContaining(path) });
  });
});
