import { describe, expect, it } from 'vitest';
import { keyPairFromSeed } from '../../src/devnet/wallet/ed25519-keys.js';
import { encodeAddress } from '../../src/fuego/address.js';
import type { RecentMinerAddresses, RecentMinersQuery } from '../../src/model/recent-miners.js';
import { AddressCache } from '../../src/pool/address-cache.js';
import { warmAddressCache, warmAddressCacheLogged } from '../../src/pool/address-warmup.js';
import { addressWithBadKey } from '../helpers/bad-key-address.js';
import { captureLogs } from '../helpers/log-capture.js';

function addressNumber(n: number): string {
  const seed = (part: string) =>
    new Uint8Array(Buffer.from(`warmup-${part}-${n}`.padEnd(32, '.').slice(0, 32)));
  return encodeAddress({
    spendPublicKey: keyPairFromSeed(seed('spend')).publicKey,
    viewPublicKey: keyPairFromSeed(seed('view')).publicKey,
  });
}

/** Hands out `newestFirst` in pages as the query asks; `failAfter` pages, then a Redis error. */
class FakeRecentMiners implements RecentMinerAddresses {
  readonly queries: RecentMinersQuery[] = [];
  constructor(
    readonly newestFirst: readonly string[],
    readonly failAfter = Number.POSITIVE_INFINITY,
    readonly beforeFailure: () => void = () => undefined,
  ) {}

  async *pages(query: RecentMinersQuery): AsyncIterable<readonly string[]> {
    this.queries.push(query);
    const wanted = this.newestFirst.slice(0, query.maxCount);
    for (let start = 0, served = 0; start < wanted.length; start += query.pageSize, served++) {
      if (served >= this.failAfter) {
        this.beforeFailure();
        throw new Error('recentMiners failed: connection lost');
      }
      yield wanted.slice(start, start + query.pageSize);
    }
  }
}

const OPTIONS = { maxAgeMs: 86_400_000, maxAddresses: 100, pageSize: 2 };

function modulesWith(recentMiners: RecentMinerAddresses, closed = () => false) {
  const { logger, records } = captureLogs('info');
  let elapsed = 0;
  return {
    modules: { recentMiners, logger, clock: () => 1_000_000_000, elapsedClock: () => (elapsed += 7), closed },
    records,
  };
}

describe('address cache warm-up', () => {
  it('remembers the recent miners as known, asks for a day at most the cache size, and keeps the newest longest', async () => {
    const [a, b, c, fresh] = [0, 1, 2, 3].map(addressNumber) as [string, string, string, string];
    const source = new FakeRecentMiners([a, b, c]); // a: the most recent share
    const cache = new AddressCache(3);
    const { modules } = modulesWith(source);
    expect(await warmAddressCache(cache, { ...OPTIONS, maxAddresses: 3 }, modules)).toEqual({
      addresses: 3,
      skipped: 0,
    });
    expect(source.queries).toEqual([{ sinceMs: 1_000_000_000 - 86_400_000, maxCount: 3, pageSize: 2 }]);
    expect([a, b, c].every((text) => cache.knows(text))).toBe(true);
    // A new address fills the cache: the least recently seen miner goes first.
    cache.decode(fresh);
    expect([cache.knows(a), cache.knows(b), cache.knows(c)]).toEqual([true, true, false]);
  });

  it('skips what does not decode and leaves a refused address refused', async () => {
    const good = addressNumber(10);
    const badKey = addressWithBadKey(3);
    const cache = new AddressCache(10);
    expect(() => cache.decode(badKey)).toThrow(); // refused by the login path before the warm-up
    const badChecksum = `${good.slice(0, -1)}${good.endsWith('1') ? '2' : '1'}`;
    const { modules } = modulesWith(new FakeRecentMiners([good, badChecksum, 'x'.repeat(98), badKey]));
    expect(await warmAddressCache(cache, OPTIONS, modules)).toEqual({ addresses: 2, skipped: 2 });
    expect(cache.knows(badChecksum)).toBe(false);
    expect(() => cache.decode(badKey)).toThrow(expect.objectContaining({ code: 'INVALID_LOGIN' }));
    expect(cache.decode(good).type).toBe('standard');
  });

  it('a Redis failure is logged and ignored; a closing pool stops reading', async () => {
    const cache = new AddressCache(10);
    const failing = modulesWith(
      new FakeRecentMiners([addressNumber(20), addressNumber(21), addressNumber(22)], 1),
    );
    await expect(warmAddressCacheLogged(cache, OPTIONS, failing.modules)).resolves.toBeUndefined();
    expect(failing.records).toEqual([expect.objectContaining({ level: 40, err: expect.anything() })]);
    expect(cache.size).toBe(0);

    let stopping = false;
    // Redis closed under a pool that is stopping: no warning.
    const source = new FakeRecentMiners([addressNumber(25), addressNumber(26), addressNumber(27)], 1, () => {
      stopping = true;
    });
    const stopped = modulesWith(source, () => stopping);
    await warmAddressCacheLogged(cache, OPTIONS, stopped.modules);
    expect(stopped.records).toEqual([]);

    const closing = modulesWith(new FakeRecentMiners([addressNumber(23), addressNumber(24)]), () => true);
    await warmAddressCacheLogged(cache, OPTIONS, closing.modules);
    expect(closing.records).toEqual([
      expect.objectContaining({ level: 30, msg: 'login addresses warmed from Redis', addresses: 0, ms: 7 }),
    ]);
  });
});
