import { describe, expect, it } from 'vitest';
import { type Ban, type BanChange, manualBan } from '../../src/pool/ban-registry.js';
import { LocalBans, type LocalBansOptions } from '../../src/pool/local-bans.js';
import { TestClock } from './pool-fakes.js';

function setup(overrides: Partial<LocalBansOptions> = {}) {
  const clock = new TestClock();
  const errors: unknown[] = [];
  const bans = new LocalBans(
    { ipv6PrefixLength: 64, exemptIps: ['127.0.0.1'], ...overrides },
    { clock: clock.now, onListenerError: (error) => errors.push(error) },
  );
  const changes: BanChange[] = [];
  bans.onChange((change) => changes.push(change));
  const banned = (ip: string) => bans.isBanned(bans.keyOf(ip));
  return { clock, bans, changes, errors, banned };
}

/** An automatic ban decided elsewhere, running `seconds` from `now`. */
function automatic(ip: string, now: number, seconds = 60, offences = 1): Ban {
  return {
    ip,
    bannedAtMs: now,
    untilMs: now + seconds * 1000,
    offences,
    manual: false,
    reason: 'invalid ratio 1.00 over 10 submits',
  };
}

describe('the bans in force in one process', () => {
  it('lists, bans and unbans; a ban of its own replaces the one held', () => {
    const { clock, bans, banned } = setup();
    bans.put(manualBan('9.9.9.9', 30, 'abuse', clock.now()));
    bans.put(automatic('8.8.8.8', clock.now()));
    const list = bans.list();
    expect(list.map((b) => b.ip)).toEqual(['8.8.8.8', '9.9.9.9']);
    expect(list[1]).toMatchObject({ manual: true, reason: 'abuse', remainingSeconds: 30 });
    expect(bans.put(manualBan('8.8.8.8', 10, 'shorter', clock.now()))).toMatchObject({
      remainingSeconds: 10,
    });
    expect(bans.remove('9.9.9.9')).toBe(true);
    expect(bans.remove('9.9.9.9')).toBe(false);
    expect(banned('9.9.9.9')).toBe(false);
    expect(banned('8.8.8.8')).toBe(true);
    clock.advance(10_001);
    expect(banned('8.8.8.8')).toBe(false);
    expect(bans.list()).toEqual([]);
  });

  it('takes a ban heard from elsewhere as it is, unless it has ended or a longer one is held', () => {
    const { clock, bans } = setup();
    const heard = automatic('10.0.0.1', clock.now(), 60, 3);
    expect(bans.adopt(heard)).toBe(true);
    expect(bans.list()).toEqual([{ ...heard, remainingSeconds: 60 }]);
    bans.put(manualBan('10.0.0.2', 100, 'operator', clock.now()));
    expect(bans.adopt({ ...automatic('10.0.0.2', clock.now(), 10), reason: 'shorter' })).toBe(false);
    expect(bans.list()[0]).toMatchObject({ ip: '10.0.0.2', reason: 'operator', remainingSeconds: 100 });
    expect(bans.adopt(automatic('10.0.0.3', clock.now() - 61_000))).toBe(false);
    expect(bans.isBanned('10.0.0.3')).toBe(false);
  });

  it("does not take another host's automatic ban of an IP exempt here; a manual one it does", () => {
    const { clock, bans, banned } = setup();
    expect(bans.adopt(automatic('127.0.0.1', clock.now()))).toBe(false);
    expect(banned('127.0.0.1')).toBe(false);
    expect(bans.adopt(manualBan('127.0.0.1', 60, 'operator', clock.now()))).toBe(true);
    expect(banned('127.0.0.1')).toBe(true);
  });

  it('bans IPv6 peers by their /64: the operator may name the network or any address in it', () => {
    const { clock, bans, banned } = setup();
    expect(bans.put(automatic('2001:db8:1:2:ffff::1', clock.now())).ip).toBe('2001:db8:1:2::/64');
    expect(banned('2001:db8:1:2::abcd')).toBe(true);
    expect(banned('2001:db8:1:3::1')).toBe(false);
    expect(bans.list().map((entry) => entry.ip)).toEqual(['2001:db8:1:2::/64']);
    expect(bans.remove('2001:db8:1:2::77')).toBe(true);
    expect(banned('2001:db8:1:2::1')).toBe(false);
    bans.put(manualBan('2001:db8:9:9::5', 60, 'manual', clock.now()));
    expect(banned('2001:db8:9:9::6')).toBe(true);
    expect(bans.remove('2001:db8:9:9::/64')).toBe(true);
    expect(bans.list()).toEqual([]);
  });

  it('keeps IPv6 addresses apart with ipv6PrefixLength 128, and exempts an exact address or a network', () => {
    const apart = setup({ ipv6PrefixLength: 128 });
    apart.bans.put(manualBan('2001:db8::1', 60, 'manual', apart.clock.now()));
    expect(apart.banned('2001:db8::1')).toBe(true);
    expect(apart.banned('2001:db8::2')).toBe(false);

    const { clock, bans } = setup({ exemptIps: ['2001:db8:5:5::/64', '2001:db8:6:6::1'] });
    expect(bans.adopt(automatic('2001:db8:5:5::9', clock.now()))).toBe(false);
    expect(bans.adopt(automatic('2001:db8:6:6::1', clock.now()))).toBe(false);
    expect(bans.adopt(automatic('2001:db8:6:6::2', clock.now()))).toBe(true);
  });

  it('tells every change, and a late listener the bans in force first; a failing listener stops no other', () => {
    const { clock, bans, changes, errors } = setup();
    const entry = bans.put(manualBan('10.0.0.1', 60, 'manual', clock.now()));
    bans.adopt(automatic('10.0.0.2', clock.now(), 30));
    bans.adopt(automatic('10.0.0.2', clock.now(), 10));
    bans.remove('10.0.0.3');
    expect(changes).toEqual([
      { kind: 'banned', entry },
      { kind: 'banned', entry: expect.objectContaining({ ip: '10.0.0.2', remainingSeconds: 30 }) },
      { kind: 'unbanned', ip: '10.0.0.3' },
    ]);
    bans.onChange(() => {
      throw new Error('listener bug');
    });
    const late: BanChange[] = [];
    const unsubscribe = bans.onChange((change) => late.push(change));
    expect(late.map((c) => (c.kind === 'banned' ? c.entry.ip : c.ip))).toEqual(['10.0.0.1', '10.0.0.2']);
    bans.remove('10.0.0.1');
    unsubscribe();
    bans.remove('10.0.0.2');
    expect(late).toHaveLength(3);
    expect(changes).toHaveLength(5);
    expect(errors).toHaveLength(4);
  });
});
