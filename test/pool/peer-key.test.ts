import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalIp } from '../../src/config/canonical-ip.js';
import { peerKey } from '../../src/pool/peer-key.js';

describe('the key connection caps and bans count a peer by', () => {
  it('is an IPv4 address itself, and an IPv6 address by its /64', () => {
    expect(peerKey('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(peerKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64)).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8:1:2::1', 64)).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8:1:3::1', 64)).toBe('2001:db8:1:3::/64');
    expect(peerKey('::1', 64)).toBe('::/64');
    expect(peerKey('::', 64)).toBe('::/64');
    expect(peerKey('fe80::1:2:3:4', 64)).toBe('fe80::/64');
    expect(peerKey('64:ff9b::c000:221', 64)).toBe('64:ff9b::/64');
    expect(peerKey('64:ff9b::192.0.2.33', 64)).toBe('64:ff9b::/64');
  });

  it('follows the configured prefix length; 128 keeps each address', () => {
    expect(peerKey('2001:db8:1:2:3:4:5:6', 48)).toBe('2001:db8:1::/48');
    expect(peerKey('2001:db8:1:ff2:3:4:5:6', 56)).toBe('2001:db8:1:f00::/56');
    expect(peerKey('2001:db8:1:2:3:4:5:6', 128)).toBe('2001:db8:1:2:3:4:5:6');
    expect(peerKey('2001:db8::/64', 128)).toBe('2001:db8::');
  });

  it('maps a key to itself, and every address of a network to the same key (property)', () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    fc.assert(
      fc.property(
        fc.array(group, { minLength: 8, maxLength: 8 }),
        group,
        fc.integer({ min: 32, max: 127 }),
        (groups, other, length) => {
          const address = canonicalIp(groups.map((g) => g.toString(16)).join(':'));
          expect(address).not.toBeNull();
          const key = peerKey(address!, length);
          expect(peerKey(key, length)).toBe(key);
          const [network, bits] = key.split('/');
          expect(isIP(network!)).toBe(6);
          expect(Number(bits)).toBe(length);
          // Change a group wholly past the prefix: same key.
          const last = [...groups];
          last[7] = other;
          if (length <= 112)
            expect(peerKey(canonicalIp(last.map((g) => g.toString(16)).join(':'))!, length)).toBe(key);
        },
      ),
      { numRuns: 500 },
    );
  });
});
