import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSelfSignedCertificate, TlsCertificateError } from '../../src/servers/tls-certificate.js';

describe('generateSelfSignedCertificate', () => {
  it('names an IP address when asked (for a client that checks the name), and refuses what is not one', async () => {
    const pem = await generateSelfSignedCertificate({ commonName: '127.0.0.1', ipAddress: '127.0.0.1' });
    const certificate = new X509Certificate(pem.cert);
    expect(certificate.subjectAltName).toBe('IP Address:127.0.0.1');
    expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    await expect(generateSelfSignedCertificate({ ipAddress: '127.0.0.1; rm -rf /' })).rejects.toBeInstanceOf(
      TlsCertificateError,
    );
  }, 30_000);
});
