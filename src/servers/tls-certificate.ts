import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FuegoPoolError } from '../errors.js';

export type TlsCertificateErrorCode = 'OPENSSL_MISSING' | 'OPENSSL_FAILED' | 'BAD_CERTIFICATE';

export class TlsCertificateError extends FuegoPoolError<TlsCertificateErrorCode> {}

export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

export interface SelfSignedOptions {
  readonly commonName?: string;
  /** An IP address the certificate names (subjectAltName), for a client that checks the name. */
  readonly ipAddress?: string;
  readonly days?: number;
  /** Name or path of the openssl binary (tests use a missing one). */
  readonly opensslPath?: string;
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 60_000 }, (error, _stdout, stderr) => {
      if (!error) {
        resolve();
        return;
      }
      const errno = (error as NodeJS.ErrnoException).code;
      if (errno === 'ENOENT') {
        reject(
          new TlsCertificateError(
            'OPENSSL_MISSING',
            `cannot generate a TLS certificate: "${file}" is not on PATH; install openssl or configure TLS cert and key files`,
            { file },
          ),
        );
        return;
      }
      reject(
        new TlsCertificateError(
          'OPENSSL_FAILED',
          `openssl failed: ${String(stderr).trim() || error.message}`,
          {
            file,
          },
        ),
      );
    });
  });
}

/**
 * A fresh self-signed RSA-2048 certificate for the demo and tests, made by the `openssl` CLI in a
 * private temp dir that is removed afterwards. XMRig accepts self-signed certificates (no CA or
 * hostname check); miners that care pin the fingerprint (see certificateFingerprintSha256).
 */
export async function generateSelfSignedCertificate(options: SelfSignedOptions = {}): Promise<PemPair> {
  const commonName = options.commonName ?? 'fuego-pool';
  if (!/^[A-Za-z0-9.-]{1,64}$/.test(commonName)) {
    throw new TlsCertificateError('OPENSSL_FAILED', 'commonName must be a host-like name', { commonName });
  }
  const { ipAddress } = options;
  if (ipAddress !== undefined && isIP(ipAddress) === 0) {
    throw new TlsCertificateError('OPENSSL_FAILED', 'ipAddress must be an IP address', { ipAddress });
  }
  const dir = await mkdtemp(join(tmpdir(), 'fuego-pool-tls-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    await run(options.opensslPath ?? 'openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      String(options.days ?? 3650),
      '-subj',
      `/CN=${commonName}`,
      ...(ipAddress === undefined ? [] : ['-addext', `subjectAltName=IP:${ipAddress}`]),
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ]);
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    return { cert, key };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * SHA-256 of the certificate's DER encoding as lowercase hex without colons: the value XMRig prints
 * as `fingerprint (SHA-256)` and compares with `--tls-fingerprint` (spec/stratum.md §8).
 */
export function certificateFingerprintSha256(certPem: string): string {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certPem);
  } catch (error) {
    throw new TlsCertificateError('BAD_CERTIFICATE', 'not a PEM X.509 certificate', {}, { cause: error });
  }
  return createHash('sha256').update(certificate.raw).digest('hex');
}
