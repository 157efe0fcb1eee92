import { afterEach, describe, expect, it, vi } from 'vitest';
import { cachedAliasByAddress } from '../../src/app/alias-lookup.js';
import type { AliasLookup } from '../../src/rpc/daemon-schemas.js';
import { RpcError } from '../../src/rpc/rpc-error.js';

function daemonWith(answer: (address: string) => AliasLookup | Error) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    async getAliasByAddress(address: string): Promise<AliasLookup> {
      calls += 1;
      const result = answer(address);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

describe('alias of a miner address', () => {
  it('answers from the daemon once, then from the cache until the TTL passes', async () => {
    let now = 0;
    const daemon = daemonWith((address) => ({ found: true, alias: 'miner-one', address, status: 'OK' }));
    const aliasOf = cachedAliasByAddress(daemon, { ttlMs: 1000, maxEntries: 10 }, () => now);
    expect(await aliasOf('fireA')).toBe('miner-one');
    expect(await aliasOf('fireA')).toBe('miner-one');
    expect(daemon.calls).toBe(1);
    now = 1001;
    await aliasOf('fireA');
    expect(daemon.calls).toBe(2);
  });

  it('says "no alias" for every address on a daemon without the endpoint, without asking each time', async () => {
    const daemon = daemonWith(() => new RpcError('RPC_NOT_SUPPORTED', '/get_alias_by_address is not served'));
    const aliasOf = cachedAliasByAddress(daemon, { ttlMs: 60_000, maxEntries: 10 }, () => 0);
    expect(await aliasOf('fireA')).toBeNull();
    expect(await aliasOf('fireB')).toBeNull();
    expect(daemon.calls).toBe(1);
  });

  it('an address without alias is null', async () => {
    const daemon = daemonWith((address) => ({ found: false, alias: '', address, status: 'OK' }));
    expect(await cachedAliasByAddress(daemon, { ttlMs: 1, maxEntries: 1 })('fireA')).toBeNull();
  });

  it('does not hold the miner page while the daemon does not answer, and keeps the late answer', async () => {
    // A busy or hung fuegod answers after its timeout and retries (4 x 10 s by default): the miner
    // page (/api/miners/:address, /stats_address) waited for it, though it only lacks the alias.
    let answer: (lookup: AliasLookup) => void = () => {};
    let calls = 0;
    const daemon = {
      getAliasByAddress: (address: string) =>
        new Promise<AliasLookup>((resolve) => {
          calls += 1;
          answer = (lookup) => resolve({ ...lookup, address });
        }),
    };
    const aliasOf = cachedAliasByAddress(daemon, { ttlMs: 60_000, maxEntries: 10 });
    const startedMs = Date.now();
    const late = Symbol('late');
    const first = await Promise.race([
      aliasOf('fireA'),
      new Promise<typeof late>((resolve) => setTimeout(() => resolve(late), 3_000)),
    ]);
    expect(first).toBeNull();
    expect(Date.now() - startedMs).toBeLessThan(2_000);
    // Pages asking meanwhile share the one question instead of multiplying calls to the daemon.
    expect(await aliasOf('fireA')).toBeNull();
    expect(calls).toBe(1);
    answer({ found: true, alias: 'miner-one', address: '', status: 'OK' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await aliasOf('fireA')).toBe('miner-one');
    expect(calls).toBe(1);
  }, 10_000);

  it('keeps an alias no longer than its TTL when the wall clock is set back (the cache runs on the monotonic clock)', async () => {
    let wallMs = 1_800_000_000_000;
    let elapsedMs = 10_000;
    vi.spyOn(Date, 'now').mockImplementation(() => wallMs);
    vi.spyOn(performance, 'now').mockImplementation(() => elapsedMs);
    const daemon = daemonWith((address) => ({ found: true, alias: 'miner-one', address, status: 'OK' }));
    const aliasOf = cachedAliasByAddress(daemon, { ttlMs: 1000, maxEntries: 10 });
    expect(await aliasOf('fireA')).toBe('miner-one');
    // NTP steps the clock back a day; a little more than the TTL passes.
    wallMs -= 86_400_000;
    elapsedMs += 1001;
    await aliasOf('fireA');
    expect(daemon.calls).toBe(2);
    // Forward a day, and half the TTL passes: the entry is still good.
    wallMs += 2 * 86_400_000;
    elapsedMs += 500;
    await aliasOf('fireA');
    expect(daemon.calls).toBe(2);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});
