import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import {
  certificateFingerprintSha256,
  generateSelfSignedCertificate,
  type PemPair,
} from '../../src/servers/tls-certificate.js';

export interface TestCertificate extends PemPair {
  /** SHA-256 of its DER: lowercase hex, no colons. */
  readonly fingerprint: string;
}

/**
 * A self-signed certificate naming 127.0.0.1 (an IP subjectAltName), so that a client given it
 * as its CA accepts it for that address; with `namesLoopback: false`, one naming nothing a client
 * connects to.
 */
export async function testCertificate(options: {
  readonly namesLoopback: boolean;
}): Promise<TestCertificate> {
  const pem = await generateSelfSignedCertificate(
    options.namesLoopback
      ? { commonName: '127.0.0.1', ipAddress: '127.0.0.1', days: 2 }
      : { commonName: 'witness.invalid' },
  );
  return { ...pem, fingerprint: certificateFingerprintSha256(pem.cert) };
}

export interface TlsProxy {
  readonly port: number;
  /** Requests it received so far (a client that refused its certificate sends none). */
  readonly requests: () => number;
  close(): Promise<void>;
}

/**
 * An HTTPS server on 127.0.0.1 presenting `certificate` that forwards every request to the plain
 * HTTP server at `targetUrl` (a fuegod behind a TLS proxy), or answers `{}` without one.
 */
export async function startTlsProxy(certificate: PemPair, targetUrl?: string): Promise<TlsProxy> {
  let requests = 0;
  const server: Server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
    requests += 1;
    if (targetUrl === undefined) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const upstream = httpRequest(
      new URL(req.url ?? '/', targetUrl),
      { method: req.method, headers: { ...req.headers, host: new URL(targetUrl).host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * What a client pinning the proxy's certificate asks (`pinned`) is answered; what one pinning
 * another certificate asks (`impostor`) fails RPC_UNREACHABLE, and the proxy receives nothing of
 * it (the connection closed as its handshake ended).
 */
export async function expectOnlyPinnedClientsReach(
  proxy: TlsProxy,
  pinned: () => Promise<unknown>,
  impostor: () => Promise<unknown>,
): Promise<void> {
  await pinned();
  const seen = proxy.requests();
  await expect(impostor()).rejects.toMatchObject({ code: 'RPC_UNREACHABLE' });
  expect(proxy.requests()).toBe(seen);
}
