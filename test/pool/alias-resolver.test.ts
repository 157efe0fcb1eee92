import { describe, expect, it } from 'vitest';
import { AliasResolver } from '../../src/pool/alias-resolver.js';
import { ADDRESS, FakeDaemon, silentLogger, TestClock } from './pool-fakes.js';

const options = { ttlMs: 60_000, negativeTtlMs: 10_000, unsupportedTtlMs: 30_000, maxEntries: 3 };

function setup() {
  const clock = new TestClock();
  const daemon = new FakeDaemon();
  daemon.aliases.set('alice', ADDRESS);
  const resolver = new AliasResolver(options, { daemon, logger: silentLogger, elapsedClock: clock.now });
  return { clock, daemon, resolver };
}

describe('AliasResolver', () => {
  it('resolves a found alias and caches it for the TTL', async () => {
    const { clock, daemon, resolver } = setup();
    await expect(resolver.resolve('alice')).resolves.toBe(ADDRESS);
    await expect(resolver.resolve('alice')).resolves.toBe(ADDRESS);
    expect(daemon.aliasLookups).toBe(1);
    clock.advance(60_001);
    await resolver.resolve('alice');
    expect(daemon.aliasLookups).toBe(2);
  });

  it('shares one lookup between concurrent logins', async () => {
    const { daemon, resolver } = setup();
    await Promise.all([resolver.resolve('alice'), resolver.resolve('alice'), resolver.resolve('alice')]);
    expect(daemon.aliasLookups).toBe(1);
  });

  it('refuses an unknown alias with ALIAS_NOT_FOUND and remembers it briefly', async () => {
    const { clock, daemon, resolver } = setup();
    await expect(resolver.resolve('nobody')).rejects.toMatchObject({ code: 'ALIAS_NOT_FOUND' });
    await expect(resolver.resolve('nobody')).rejects.toMatchObject({ code: 'ALIAS_NOT_FOUND' });
    expect(daemon.aliasLookups).toBe(1);
    clock.advance(10_001);
    daemon.aliases.set('nobody', ADDRESS);
    await expect(resolver.resolve('nobody')).resolves.toBe(ADDRESS);
  });

  it('treats an alias mapped to an invalid address as not found', async () => {
    const { daemon, resolver } = setup();
    daemon.aliases.set('broken', 'fireNotAnAddress');
    await expect(resolver.resolve('broken')).rejects.toMatchObject({ code: 'ALIAS_NOT_FOUND' });
  });

  it('says ALIAS_UNAVAILABLE when the daemon has no alias endpoint, and stops asking for a while', async () => {
    const { clock, daemon, resolver } = setup();
    daemon.aliasEndpoint = 'missing';
    await expect(resolver.resolve('alice')).rejects.toMatchObject({ code: 'ALIAS_UNAVAILABLE' });
    await expect(resolver.resolve('alice')).rejects.toMatchObject({ code: 'ALIAS_UNAVAILABLE' });
    expect(daemon.aliasLookups).toBe(1);
    clock.advance(30_001);
    daemon.aliasEndpoint = 'present';
    await expect(resolver.resolve('alice')).resolves.toBe(ADDRESS);
  });

  it('says ALIAS_UNAVAILABLE on a transport error without caching it', async () => {
    const { daemon, resolver } = setup();
    daemon.aliasEndpoint = 'down';
    await expect(resolver.resolve('alice')).rejects.toMatchObject({ code: 'ALIAS_UNAVAILABLE' });
    daemon.aliasEndpoint = 'present';
    await expect(resolver.resolve('alice')).resolves.toBe(ADDRESS);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const { daemon, resolver } = setup();
    for (const name of ['a', 'b', 'c', 'd']) await resolver.resolve(name).catch(() => undefined);
    expect(daemon.aliasLookups).toBe(4);
    await resolver.resolve('d').catch(() => undefined);
    expect(daemon.aliasLookups).toBe(4);
    await resolver.resolve('a').catch(() => undefined);
    expect(daemon.aliasLookups).toBe(5);
  });
});
