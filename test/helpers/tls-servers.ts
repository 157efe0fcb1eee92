import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
  if (!options.namesLoopback) {
    const pem = await generateSelfSignedCertificate({ commonName: 'witness.invalid' });
    return { ...pem, fingerprint: certificateFingerprintSha256(pem.cert) };
  }
  const dir = await mkdtemp(join(tmpdir(), 'fuego-pool-test-cert-'));
  try {
    const [keyPath, certPath] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ]);
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    return { cert, key, fingerprint: certificateFingerprintSha256(cert) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface TlsProxy {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * An HTTPS server on 127.0.0.1 presenting `certificate` that forwards every request to the plain
 * HTTP server at `targetUrl` (a fuegod behind a TLS proxy), or answers `{}` without one.
 */
export async function startTlsProxy(certificate: PemPair, targetUrl?: string): Promise<TlsProxy> {
  const server: Server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
