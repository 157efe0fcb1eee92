import type { Redis, RedisOptions } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisBanRegistry, type RedisBanRegistryOptions } from '../../src/cluster/redis-ban-registry.js';
import { createLogger } from '../../src/log/logger.js';
import { type BanChange, manualBan } from '../../src/pool/ban-registry.js';
import { keyPrefixes } from '../helpers/key-prefixes.js';
import { useTestRedisClient } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

let redis: Redis;
const registries: RedisBanRegistry[] = [];
const clients: Redis[] = [];
const logger = createLogger({ level: 'silent' });

useTestRedisClient((client) => {
  redis = client;
});

afterEach(() => {
  for (const registry of registries.splice(0)) registry.stop();
  for (const client of clients.splice(0)) client.disconnect();
});

const freshPrefix = keyPrefixes('ban-registry');

async function startRegistry(
  options: Pick<RedisBanRegistryOptions, 'keyPrefix' | 'origin'> & Partial<RedisBanRegistryOptions>,
  client: Redis = redis,
): Promise<{ registry: RedisBanRegistry; changes: BanChange[] }> {
  const registry = new RedisBanRegistry(
    { ipv6PrefixLength: 64, exemptIps: [], ...options },
    { redis: client, logger },
  );
  await registry.start();
  registries.push(registry);
  const changes: BanChange[] = [];
  registry.onChange((change) => changes.push(change));
  return { registry, changes };
}

/** A client of the test Redis of this test's own, with `options` (its subscriber inherits them). */
async function ownClient(options: RedisOptions = {}): Promise<Redis> {
  const client = redis.duplicate(options);
  clients.push(client);
  await client.connect();
  return client;
}

function automatic(ip: string, seconds = 60) {
  const now = Date.now();
  return {
    ip,
    bannedAtMs: now,
    untilMs: now + seconds * 1000,
    offences: 2,
    manual: false,
    reason: 'invalid ratio 0.60 over 40 submits',
  };
}

describe('the pool ban registry over Redis', () => {
  it('a ban holds where it is made at once, and reaches every other process keyed as the stratum hosts key it', async () => {
    const keyPrefix = freshPrefix();
    const stratum = await startRegistry({ keyPrefix, origin: 'stratum-host' });
    const leader = await startRegistry({ keyPrefix, origin: 'leader' });
    const banning = leader.registry.ban(manualBan('2001:db8:7:7::1', 120, 'from the leader', Date.now()));
    // In force here before it is stored.
    expect(leader.registry.isBanned('2001:db8:7:7::/64')).toBe(true);
    expect(await banning).toMatchObject({
      ip: '2001:db8:7:7::/64',
      manual: true,
      offences: 0,
      reason: 'from the leader',
      remainingSeconds: 120,
    });
    await until(
      () => (stratum.registry.isBanned('2001:db8:7:7::/64') ? true : undefined),
      5_000,
      'the stratum host to take it',
    );
    expect(stratum.changes).toEqual([
      {
        kind: 'banned',
        entry: expect.objectContaining({ ip: '2001:db8:7:7::/64', reason: 'from the leader' }),
      },
    ]);
    const listed = await stratum.registry.list();
    expect(listed.map((b) => [b.ip, b.remainingSeconds])).toEqual([['2001:db8:7:7::/64', 120]]);
    expect(await redis.hkeys(`{${keyPrefix}}:bans`)).toEqual(['2001:db8:7:7::/64']);
  });

  it('an unban by any address of the network lifts it everywhere and in Redis; a second one finds nothing', async () => {
    const keyPrefix = freshPrefix();
    const a = await startRegistry({ keyPrefix, origin: 'host-a' });
    const b = await startRegistry({ keyPrefix, origin: 'host-b' });
    await a.registry.ban(automatic('2001:db8:1:2::5'));
    await until(() => (b.registry.isBanned('2001:db8:1:2::/64') ? true : undefined), 5_000, 'the ban');
    expect(await b.registry.unban('2001:db8:1:2::77')).toBe(true);
    expect(b.registry.isBanned('2001:db8:1:2::/64')).toBe(false);
    await until(() => (a.registry.isBanned('2001:db8:1:2::/64') ? undefined : true), 5_000, 'the unban');
    expect(a.changes.at(-1)).toEqual({ kind: 'unbanned', ip: '2001:db8:1:2::/64' });
    expect(await redis.hlen(`{${keyPrefix}}:bans`)).toBe(0);
    expect(await a.registry.unban('2001:db8:1:2::/64')).toBe(false);
    expect(await a.registry.list()).toEqual([]);
  });

  it('a process that starts takes over the bans still running, but no automatic ban of an IP exempt there', async () => {
    const keyPrefix = freshPrefix();
    const a = await startRegistry({ keyPrefix, origin: 'host-a' });
    await a.registry.ban(automatic('203.0.113.1'));
    await a.registry.ban(automatic('10.0.0.1', 300));
    await a.registry.ban(manualBan('10.0.0.2', 30, 'operator', Date.now()));
    const restarted = await startRegistry({
      keyPrefix,
      origin: 'host-b',
      exemptIps: ['10.0.0.1', '10.0.0.2'],
    });
    expect((await restarted.registry.list()).map((b) => b.ip)).toEqual(['203.0.113.1', '10.0.0.2']);
    expect(restarted.registry.isBanned('10.0.0.1')).toBe(false);
    expect(restarted.changes.map((c) => c.kind)).toEqual(['banned', 'banned']);
    // Heard later, the same rule.
    await a.registry.ban(automatic('10.0.0.2', 600));
    await a.registry.ban(automatic('203.0.113.3'));
    await until(() => (restarted.registry.isBanned('203.0.113.3') ? true : undefined), 5_000, 'the ban');
    expect((await restarted.registry.list()).find((b) => b.ip === '10.0.0.2')).toMatchObject({
      manual: true,
    });
  });

  it('an unban announced while a host was resubscribing is caught up once it is back: IPv4, IPv6 /64 and /48', async () => {
    const keyPrefix = freshPrefix();
    const a = await startRegistry({ keyPrefix, origin: 'host-a' });
    // Host b reconnects 400 ms after a drop: the unbans below are announced while it is away.
    const b = await startRegistry(
      { keyPrefix, origin: 'host-b' },
      await ownClient({ retryStrategy: () => 400 }),
    );
    const bans = ['203.0.113.20', '2001:db8:20:1::/64', '2001:db8:21::/48', '203.0.113.21'];
    for (const ip of bans) await a.registry.ban(manualBan(ip, 600, 'operator', Date.now()));
    await b.registry.ban(automatic('203.0.113.22'));
    await until(() => (bans.every((ip) => b.registry.isBanned(ip)) ? true : undefined), 5_000, 'the bans');

    await redis.client('KILL', 'TYPE', 'pubsub');
    expect(await a.registry.unban('203.0.113.20')).toBe(true);
    expect(await a.registry.unban('2001:db8:20:1::9')).toBe(true);
    expect(await a.registry.unban('2001:db8:21::/48')).toBe(true);

    await until(
      () =>
        ['203.0.113.20', '2001:db8:20:1::/64', '2001:db8:21::/48'].some((ip) => b.registry.isBanned(ip))
          ? undefined
          : true,
      5_000,
      'the missed unbans caught up',
    );
    expect(b.changes.flatMap((c) => (c.kind === 'unbanned' ? [c.ip] : []))).toEqual(
      expect.arrayContaining(['203.0.113.20', '2001:db8:20:1::/64', '2001:db8:21::/48']),
    );
    // What the list still holds stays: a's ban it did not lift, and b's own.
    expect((await b.registry.list()).map((entry) => entry.ip).sort()).toEqual([
      '203.0.113.21',
      '203.0.113.22',
    ]);
  });

  it('an unban announced while a host cannot resubscribe is caught up at its next prune', async () => {
    const keyPrefix = freshPrefix();
    const a = await startRegistry({ keyPrefix, origin: 'host-a' });
    // Host b's subscriber does not come back after a drop; its command connection stays.
    const b = await startRegistry(
      { keyPrefix, origin: 'host-b', pruneIntervalMs: 200 },
      await ownClient({ retryStrategy: () => null }),
    );
    await a.registry.ban(automatic('203.0.113.30'));
    await until(() => (b.registry.isBanned('203.0.113.30') ? true : undefined), 5_000, 'the ban');

    await redis.client('KILL', 'TYPE', 'pubsub');
    expect(await a.registry.unban('203.0.113.30')).toBe(true);
    await until(() => (b.registry.isBanned('203.0.113.30') ? undefined : true), 5_000, 'the missed unban');
    expect(b.changes.at(-1)).toEqual({ kind: 'unbanned', ip: '203.0.113.30' });
  });

  it('Redis away: a ban or unban still holds where it was made, and says it was not shared', async () => {
    const keyPrefix = freshPrefix();
    const own = redis.duplicate();
    clients.push(own);
    await own.connect();
    const { registry } = await startRegistry({ keyPrefix, origin: 'host-a' }, own);
    own.disconnect();
    await expect(registry.ban(manualBan('203.0.113.7', 60, 'manual', Date.now()))).rejects.toThrow();
    expect(registry.isBanned('203.0.113.7')).toBe(true);
    expect((await registry.list()).map((b) => b.ip)).toEqual(['203.0.113.7']);
    await expect(registry.unban('203.0.113.7')).rejects.toThrow();
    expect(registry.isBanned('203.0.113.7')).toBe(false);
  });
});
