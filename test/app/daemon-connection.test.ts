import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonClientOf } from '../../src/app/daemon-connection.js';
import { parseConfig } from '../../src/config/load-config.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { configErrorOf } from '../helpers/config-error.js';
import { expectOnlyPinnedClientsReach, startTlsProxy, testCertificate } from '../helpers/tls-servers.js';

/** The pool's own fuegod on another host, behind a TLS proxy there (`daemon.tls`). */
describe('daemon client over HTTPS', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet();
  });
  afterAll(() => devnet?.stop());

  it('asks fuegod through the proxy with its certificate pinned; another certificate gets no request', async () => {
    const [served, other] = await Promise.all([
      testCertificate({ namesLoopback: false }),
      testCertificate({ namesLoopback: false }),
    ]);
    const proxy = await startTlsProxy(served, devnet.daemonUrl);
    const daemonAt = (fingerprint: string) =>
      parseConfig({ daemon: { host: '127.0.0.1', port: proxy.port, retries: 0, tls: { fingerprint } } })
        .daemon;
    const pinned = daemonClientOf(daemonAt(served.fingerprint));
    const impostor = daemonClientOf(daemonAt(other.fingerprint));
    try {
      expect(pinned.endpoint).toBe(`https://127.0.0.1:${proxy.port}`);
      await expectOnlyPinnedClientsReach(
        proxy,
        async () => expect(await pinned.getBlockCount()).toBeGreaterThan(0),
        () => impostor.getBlockCount(),
      );
    } finally {
      pinned.close();
      impostor.close();
      await proxy.close();
    }
  }, 60_000);

  it('does not start with a CA file it cannot read, naming daemon.tls.caFile', () => {
    const config = parseConfig({ daemon: { tls: { caFile: '/nonexistent/fuego-ca.pem' } } });
    const error = configErrorOf(() => daemonClientOf(config.daemon));
    expect(error.code).toBe('CONFIG_UNREADABLE');
    expect(error.message).toContain('daemon.tls.caFile');
  });
});
