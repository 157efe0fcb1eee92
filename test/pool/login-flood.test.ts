import { describe, expect, it } from 'vitest';
import { keyPairFromSeed } from '../../src/devnet/wallet/ed25519-keys.js';
import { encodeAddress } from '../../src/fuego/address.js';
import { AddressCache } from '../../src/pool/address-cache.js';
import { PeerBudget } from '../../src/pool/peer-budget.js';
import type { PoolBackendOptions } from '../../src/pool/pool-backend.js';
import { addressWithBadKey } from '../helpers/bad-key-address.js';
import { hostTestBackend } from './pool-fakes.js';

/** A valid address of its own for each `n` (real keys, so the full check passes). */
function addressNumber(n: number): string {
  const seed = (part: string) =>
    new Uint8Array(Buffer.from(`login-flood-${part}-${n}`.padEnd(32, '.').slice(0, 32)));
  return encodeAddress({
    spendPublicKey: keyPairFromSeed(seed('spend')).publicKey,
    viewPublicKey: keyPairFromSeed(seed('view')).publicKey,
  });
}

function setup(newAddressesPerPeer: PoolBackendOptions['newAddressesPerPeer']) {
  const { clock, backend, login } = hostTestBackend({ newAddressesPerPeer });
  return {
    clock,
    backend,
    login: (address: string, remoteAddress = '198.51.100.7') => login(address, remoteAddress),
  };
}

describe('login floods', () => {
  it('a host gets a burst of new addresses, then so many a minute; known ones and other hosts are not slowed', async () => {
    const { clock, login } = setup({ burst: 5, perMinute: 6, maxPeers: 100 });
    for (let n = 0; n < 5; n++) await expect(login(addressNumber(n))).resolves.toBeDefined();
    await expect(login(addressNumber(5))).rejects.toMatchObject({ code: 'LOGIN_RATE_LIMITED' });
    // Its known addresses (a farm reconnecting after a restart) cost nothing.
    for (let n = 0; n < 5; n++) await expect(login(addressNumber(n))).resolves.toBeDefined();
    await expect(login(addressNumber(5), '203.0.113.9')).resolves.toBeDefined();
    clock.advance(10_000); // 6 a minute: one token back
    await expect(login(addressNumber(6))).resolves.toBeDefined();
    await expect(login(addressNumber(7))).rejects.toMatchObject({ code: 'LOGIN_RATE_LIMITED' });
  });

  it('an IPv6 host is one peer across its /64', async () => {
    const { login } = setup({ burst: 2, perMinute: 1, maxPeers: 100 });
    await login(addressNumber(10), '2001:db8:1:2::1');
    await login(addressNumber(11), '2001:db8:1:2::99');
    await expect(login(addressNumber(12), '2001:db8:1:2:ffff::5')).rejects.toMatchObject({
      code: 'LOGIN_RATE_LIMITED',
    });
  });

  it('a refused address is remembered: repeating it costs neither a key check nor budget', async () => {
    const { login } = setup({ burst: 2, perMinute: 1, maxPeers: 100 });
    for (let i = 0; i < 10; i++) {
      await expect(login(addressWithBadKey(1))).rejects.toMatchObject({ code: 'INVALID_LOGIN' });
    }
    await expect(login(addressNumber(20))).resolves.toBeDefined();
  });

  it('the address cache checks each address once, valid or not, and remembers the outcome', () => {
    const cache = new AddressCache(10);
    const bad = addressWithBadKey(2);
    expect(cache.knows(bad)).toBe(false);
    const refusalOf = (text: string): unknown => {
      try {
        cache.decode(text);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const first = refusalOf(bad);
    expect(first).toMatchObject({ code: 'INVALID_LOGIN' });
    expect(cache.knows(bad)).toBe(true);
    // The remembered refusal itself, not a second check.
    expect(refusalOf(bad)).toBe(first);
    const good = addressNumber(30);
    const decoded = cache.decode(good);
    expect(cache.knows(good)).toBe(true);
    expect(cache.decode(good)).toBe(decoded);
  });

  it('checks a burst of new addresses one per event-loop turn, so the loop serves other miners between them', async () => {
    const { login } = setup({ burst: 20, perMinute: 1, maxPeers: 100 });
    // Counts event-loop iterations while the logins run (an I/O callback would run as often).
    let iterations = 0;
    let counting = true;
    const count = () => {
      iterations += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const finishedAt: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        login(addressNumber(40 + n)).then(() => finishedAt.push(iterations)),
      ),
    );
    counting = false;
    // Checked back to back, all eight (~11 ms of ed25519 checks) would end in one iteration.
    expect(new Set(finishedAt).size).toBe(8);
  });

  it("a peer flooding new addresses delays another peer's new address by one check, not by its burst", async () => {
    const { login } = setup({ burst: 20, perMinute: 1, maxPeers: 100 });
    const order: string[] = [];
    const flood = Array.from({ length: 10 }, (_, n) =>
      login(addressNumber(60 + n), '198.51.100.66').then(() => order.push('flood')),
    );
    const honest = login(addressNumber(80), '203.0.113.80').then(() => order.push('honest'));
    await Promise.all([...flood, honest]);
    expect(order.indexOf('honest')).toBeLessThanOrEqual(1);
  });

  it('a farm logging in at once with one new address costs one token and one check', async () => {
    const { login } = setup({ burst: 2, perMinute: 1, maxPeers: 100 });
    const rigs = await Promise.all(Array.from({ length: 30 }, () => login(addressNumber(90))));
    expect(rigs).toHaveLength(30);
    // One token of two spent: the host still has a new address left.
    await expect(login(addressNumber(91))).resolves.toBeDefined();
    await expect(login(addressNumber(92))).rejects.toMatchObject({ code: 'LOGIN_RATE_LIMITED' });
  });

  it('keeps at most maxPeers buckets, forgetting the least recently used', () => {
    const budget = new PeerBudget({ burst: 1, perMinute: 1, maxPeers: 2 });
    expect(budget.take('a', 0)).toBe(true);
    expect(budget.take('a', 0)).toBe(false);
    expect(budget.take('b', 0)).toBe(true);
    expect(budget.take('c', 0)).toBe(true); // 'a' forgotten: a full bucket again
    expect(budget.take('a', 0)).toBe(true);
  });
});
