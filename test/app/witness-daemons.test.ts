import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { witnessesOf } from '../../src/app/witness-daemons.js';
import { parseConfig } from '../../src/config/load-config.js';
import type { PoolConfig } from '../../src/config/schema.js';
import type { DaemonClient } from '../../src/rpc/daemon-client.js';
import { generateSelfSignedCertificate } from '../../src/servers/tls-certificate.js';
import { configErrorOf } from '../helpers/config-error.js';
import { tempDir } from '../helpers/temp-dir.js';

const FINGERPRINT = 'ab'.repeat(32);

/** The endpoint of the client built for the config's only witness (closed: nothing was sent). */
function endpointOf(config: PoolConfig): string {
  const chain = witnessesOf(config)[0]!.chain as DaemonClient;
  chain.close();
  return chain.endpoint;
}

function witnessConfig(tls: unknown) {
  return parseConfig({ payments: { witnessDaemons: [{ host: '203.0.113.7', port: 18180, tls }] } });
}

/** `payments.witnessDaemons[].tls`: how an operator asks a remote fuegod over HTTPS. */
describe('witness daemons over HTTPS', () => {
  it('takes a fingerprint as openssl prints it (colons, upper case) or as bare hex, and keeps bare hex', () => {
    const printed = FINGERPRINT.toUpperCase().match(/../g)!.join(':');
    for (const fingerprint of [printed, FINGERPRINT]) {
      expect(witnessConfig({ fingerprint }).payments.witnessDaemons[0]!.tls).toEqual({
        fingerprint: FINGERPRINT,
      });
    }
    expect(endpointOf(witnessConfig({ fingerprint: printed }))).toBe('https://203.0.113.7:18180');
  });

  it('refuses a fingerprint that is not SHA-256, or a pin and a CA together, naming the key', () => {
    const short = configErrorOf(() => witnessConfig({ fingerprint: 'ab:cd' }));
    expect(short.message).toContain('payments.witnessDaemons.0.tls.fingerprint');
    expect(short.message).toContain('SHA-256 fingerprint');
    const both = configErrorOf(() => witnessConfig({ fingerprint: FINGERPRINT, caFile: '/ca.pem' }));
    expect(both.message).toContain('payments.witnessDaemons.0.tls');
    expect(both.message).toContain('not both');
  });

  it('stops the start on a CA file it cannot read or that holds no certificate, naming the key', async () => {
    const dir = tempDir('fuego-pool-witness-ca-');
    const missing = configErrorOf(() => witnessesOf(witnessConfig({ caFile: join(dir, 'nope.pem') })));
    expect(missing.code).toBe('CONFIG_UNREADABLE');
    expect(missing.message).toContain('payments.witnessDaemons.0.tls.caFile');
    const notPem = join(dir, 'key.pem');
    writeFileSync(notPem, 'not a certificate\n');
    const garbage = configErrorOf(() => witnessesOf(witnessConfig({ caFile: notPem })));
    expect(garbage.code).toBe('CONFIG_INVALID');
    expect(garbage.message).toContain('holds no PEM certificate');
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, (await generateSelfSignedCertificate()).cert);
    expect(endpointOf(witnessConfig({ caFile }))).toBe('https://203.0.113.7:18180');
  });

  it('asks a witness without tls over plain HTTP, as before', () => {
    const config = parseConfig({ payments: { witnessDaemons: [{ host: '10.0.0.5', port: 18180 }] } });
    expect(endpointOf(config)).toBe('http://10.0.0.5:18180');
  });
});
