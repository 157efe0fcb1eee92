import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { daemonClientOf } from '../../src/app/daemon-connection.js';
import { type Part, stopParts } from '../../src/app/parts.js';
import { stratumPortsFrom } from '../../src/app/stratum-options.js';
import { prepareStratumRole } from '../../src/app/stratum-role.js';
import { RedisTemplatePublisher } from '../../src/cluster/redis-template-publisher.js';
import { configSchema } from '../../src/config/schema.js';
import { keyPairFromSeed } from '../../src/devnet/wallet/ed25519-keys.js';
import { encodeAddress, encodeIntegratedAddress } from '../../src/fuego/address.js';
import type { AcceptedShare } from '../../src/model/share-ledger.js';
import { createPoolEventBus } from '../../src/pool/events.js';
import type { LoginRequest } from '../../src/pool/stratum-backend.js';
import { HashrateBucketWriter } from '../../src/store/hashrate/hashrate-buckets.js';
import { captureLogs } from '../helpers/log-capture.js';
import { freePort, useTestRedisClient } from '../helpers/redis-server.js';
import { activeTemplate, connection, FakeBanRegistry, FakeSink } from '../pool/pool-fakes.js';

const FARM_IP = '198.51.100.7';
const WARM_LOG = 'login addresses warmed from Redis';

/** A valid address of its own for each `n` (real keys, so the full check passes). */
function keysNumber(n: number) {
  const seed = (part: string) =>
    new Uint8Array(Buffer.from(`warm-farm-${part}-${n}`.padEnd(32, '.').slice(0, 32)));
  return {
    spendPublicKey: keyPairFromSeed(seed('spend')).publicKey,
    viewPublicKey: keyPairFromSeed(seed('view')).publicKey,
  };
}

function share(address: string, ageMs: number): AcceptedShare {
  return {
    address,
    worker: 'rig',
    difficulty: 5000,
    height: 10,
    timestampMs: Date.now() - ageMs,
    solo: false,
    stale: false,
  };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * A stratum role started as the pool starts it (a stratum process, or a child of one), over a
 * Redis that holds what the pool recorded before its restart.
 */
async function startRole(redis: Redis, keyPrefix: string, parts: Part[]) {
  const config = configSchema.parse({
    redis: { keyPrefix },
    pow: { workers: 1 },
    stratum: { ports: [{ port: await freePort(), difficulty: 5000 }] },
  });
  const publisher = new RedisTemplatePublisher(
    { keyPrefix },
    { redis, fencingToken: () => '', logger: captureLogs('info').logger },
  );
  parts.push({ name: 'publisher', stop: () => publisher.close() });
  await publisher.publish(activeTemplate(1, 10, 10n ** 12n), 'new-block');
  const { logger, records } = captureLogs('info');
  const { role, serve } = await prepareStratumRole(
    config,
    {
      redis,
      daemon: daemonClientOf(config.daemon),
      events: createPoolEventBus((error) => {
        throw error;
      }),
      logger,
      ports: stratumPortsFrom(config, undefined),
      bans: new FakeBanRegistry(),
    },
    parts,
  );
  await serve();
  const login = (text: string, remoteAddress = FARM_IP) => {
    const request: LoginRequest = { login: text, pass: 'x', agent: 'XMRig/6.16.0', algo: ['cn/upx2'] };
    return role.backend.login(request, connection({ remoteAddress }), new FakeSink());
  };
  return { login, records };
}

describe('stratum role start: login addresses warmed from Redis', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('a farm of 60 miners behind one IP all log in at once after a pool restart; a new address still costs its token', async () => {
    const keyPrefix = 'warm1';
    const standard = Array.from({ length: 59 }, (_, n) => encodeAddress(keysNumber(n)));
    const integrated = encodeIntegratedAddress({ ...keysNumber(59), paymentId: 'ab'.repeat(32) });
    const farm = [...standard, integrated];
    const lastChar = standard[0]!.at(-1) === '1' ? '2' : '1';
    const corrupt = [`${standard[0]!.slice(0, -1)}${lastChar}`, 'not-an-address'];
    // What the pool recorded before the restart: shares of every rig in the last hours.
    const writer = new HashrateBucketWriter({ keyPrefix, maxWorkersPerMiner: 64 }, { redis });
    await writer.record([...farm, ...corrupt].map((address, n) => share(address, n * 60_000)));

    const parts: Part[] = [];
    try {
      const { login, records } = await startRole(redis, keyPrefix, parts);
      // The warm-up runs in the background; a pool without one never logs it (then the logins tell).
      await until(() => records.some((r) => r['msg'] === WARM_LOG), 15_000);

      // Every rig at once, in every login form: solo:, worker suffixes, +DIFF, an integrated address.
      const forms = (address: string, n: number) =>
        [address, `solo:${address}`, `${address}.rig${n}`, `${address}+6000`, `${address}+7000.rig${n}`][
          n % 5
        ]!;
      const results = await Promise.allSettled(farm.map((address, n) => login(forms(address, n), FARM_IP)));
      const refused = results.flatMap((r) =>
        r.status === 'rejected' ? [(r.reason as { code: string }).code] : [],
      );
      expect(refused).toEqual([]);

      // An address the pool has not seen still draws from the IP's budget: 20 at once, then refused.
      const fresh = Array.from({ length: 21 }, (_, n) => encodeAddress(keysNumber(100 + n)));
      for (const address of fresh.slice(0, 20)) await expect(login(address)).resolves.toBeDefined();
      await expect(login(fresh[20]!)).rejects.toMatchObject({ code: 'LOGIN_RATE_LIMITED' });

      // The corrupt members were skipped, not trusted: a login with one is checked, and refused.
      await expect(login(corrupt[0]!, '203.0.113.9')).rejects.toMatchObject({ code: 'INVALID_LOGIN' });
      const warmed = records.find((r) => r['msg'] === WARM_LOG);
      expect(warmed).toMatchObject({ level: 30, addresses: 60, skipped: 2 });
      expect(typeof warmed?.['ms']).toBe('number');
    } finally {
      await stopParts(parts, captureLogs('info').logger);
    }
  });
});
