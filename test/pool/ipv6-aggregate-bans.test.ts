import { describe, expect, it } from 'vitest';
import { AggregateBanWatch } from '../../src/pool/aggregate-bans.js';
import type { Ban } from '../../src/pool/ban-registry.js';
import { peerKey } from '../../src/pool/peer-key.js';
import { ADDRESS, hostTestBackend, TestClock } from './pool-fakes.js';

const HOUR_MS = 3_600_000;

function autoBan(ip: string, nowMs: number, manual = false): Ban {
  return { ip, bannedAtMs: nowMs, untilMs: nowMs + HOUR_MS, offences: 1, manual, reason: 'test' };
}

describe('IPv6 aggregate bans', () => {
  it('a coarser network key maps to itself', () => {
    expect(peerKey('2001:db8:7::/48', 64)).toBe('2001:db8:7::/48');
    expect(peerKey('2001:db8:7:5::/64', 48)).toBe('2001:db8:7::/48');
  });

  it('three automatic /64 bans in force in one /48 call for a ban of the /48; manual and expired ones do not count', () => {
    const clock = new TestClock();
    const watch = new AggregateBanWatch({ prefixLength: 48, threshold: 3, banSeconds: 600 }, clock.now);
    expect(watch.noteBan(autoBan('2001:db8:7:1::/64', clock.nowMs))).toBeUndefined();
    expect(watch.noteBan(autoBan('2001:db8:7:2::/64', clock.nowMs, true))).toBeUndefined(); // manual
    expect(watch.noteBan(autoBan('2001:db8:8:1::/64', clock.nowMs))).toBeUndefined(); // another /48
    expect(
      watch.noteBan({ ...autoBan('2001:db8:7:3::/64', clock.nowMs), untilMs: clock.nowMs + 1 }),
    ).toBeUndefined();
    clock.advance(10); // that one has ended
    expect(watch.noteBan(autoBan('2001:db8:7:4::/64', clock.nowMs))).toBeUndefined();
    const wider = watch.noteBan(autoBan('2001:db8:7:5::/64', clock.nowMs));
    expect(wider).toMatchObject({ ip: '2001:db8:7::/48', manual: false, untilMs: clock.nowMs + 600_000 });
    expect(watch.noteBan(autoBan('1.2.3.4', clock.nowMs))).toBeUndefined();
  });

  it('the pool core bans the /48 once enough of its /64s are banned, and refuses every address in it', async () => {
    const {
      clock,
      bans,
      backend,
      login: loginFrom,
    } = hostTestBackend({
      ipv6AggregateBans: { prefixLength: 48, threshold: 3, banSeconds: 600 },
    });
    const login = (remoteAddress: string) => loginFrom(ADDRESS, remoteAddress);
    await expect(login('2001:db8:7:99::1')).resolves.toBeDefined();
    for (const n of [1, 2, 3]) await bans.ban(autoBan(`2001:db8:7:${n}::/64`, clock.nowMs));
    expect(bans.banned.map((ban) => ban.ip)).toContain('2001:db8:7::/48');
    expect(backend.isBanned('2001:db8:7:99::1')).toBe(true);
    await expect(login('2001:db8:7:abcd::1')).rejects.toMatchObject({ code: 'BANNED' });
    await expect(login('2001:db8:8::1')).resolves.toBeDefined(); // the next /48 is not touched
    clock.advance(600_001);
    await expect(login('2001:db8:7:abcd::1')).resolves.toBeDefined();
  });
});
