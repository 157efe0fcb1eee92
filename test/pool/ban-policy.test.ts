import { describe, expect, it } from 'vitest';
import { BanPolicy, type BanPolicyOptions, DEFAULT_BAN_POLICY_OPTIONS } from '../../src/pool/ban-policy.js';
import type { StratumErrorCode } from '../../src/pool/stratum-errors.js';
import { TestClock } from './pool-fakes.js';

const options: BanPolicyOptions = {
  ...DEFAULT_BAN_POLICY_OPTIONS,
  windowMs: 60_000,
  minShares: 10,
  maxInvalidRatio: 0.5,
  firstBanSeconds: 60,
  maxBanSeconds: 200,
  offenceMemoryMs: 3_600_000,
  exemptIps: ['127.0.0.1'],
};

function setup(overrides: Partial<BanPolicyOptions> = {}) {
  const clock = new TestClock();
  return { clock, bans: new BanPolicy({ ...options, ...overrides }, clock.now) };
}

/** Feeds `count` outcomes; returns the first ban triggered, if any. */
function feed(bans: BanPolicy, ip: string, outcome: 'OK' | StratumErrorCode, count: number) {
  let banned: ReturnType<BanPolicy['record']>;
  for (let i = 0; i < count; i++) banned ??= bans.record(ip, outcome);
  return banned;
}

describe('BanPolicy', () => {
  it('bans an IP whose invalid results reach the ratio once it has enough submits', () => {
    const { bans } = setup();
    expect(feed(bans, '1.1.1.1', 'INVALID_RESULT', 9)).toBeUndefined();
    expect(bans.isBanned('1.1.1.1')).toBe(false);
    const ban = feed(bans, '1.1.1.1', 'INVALID_RESULT', 1);
    expect(ban).toMatchObject({ ip: '1.1.1.1', remainingSeconds: 60, offences: 1, manual: false });
    expect(bans.isBanned('1.1.1.1')).toBe(true);
    expect(bans.isBanned('2.2.2.2')).toBe(false);
  });

  it('does not ban below the ratio', () => {
    const { bans } = setup();
    feed(bans, 'ip', 'OK', 11);
    expect(feed(bans, 'ip', 'LOW_DIFFICULTY', 10)).toBeUndefined();
    expect(bans.isBanned('ip')).toBe(false);
  });

  it('weighs low difficulty like a bad hash, duplicates and expired shares much less', () => {
    const { bans } = setup();
    expect(feed(bans, 'low', 'LOW_DIFFICULTY', 10)).toBeDefined();
    // 40 duplicates alone: ratio 0.25 < 0.5.
    expect(feed(bans, 'dup', 'DUPLICATE_SHARE', 40)).toBeUndefined();
    // 40 expired: ratio 0.1.
    expect(feed(bans, 'old', 'BLOCK_EXPIRED', 40)).toBeUndefined();
    // Server-side trouble never counts against the miner.
    expect(feed(bans, 'busy', 'SERVER_BUSY', 40)).toBeUndefined();
    expect(feed(bans, 'busy', 'INTERNAL', 40)).toBeUndefined();
    // With a lower threshold, duplicates do add up.
    const strict = setup({ maxInvalidRatio: 0.2 }).bans;
    expect(feed(strict, 'dup', 'DUPLICATE_SHARE', 10)).toBeDefined();
  });

  it('counts only the sliding window', () => {
    const { clock, bans } = setup();
    feed(bans, 'ip', 'INVALID_RESULT', 9);
    clock.advance(70_000);
    // The 9 old bad ones left the window: 1 bad + 9 good.
    feed(bans, 'ip', 'OK', 9);
    expect(feed(bans, 'ip', 'INVALID_RESULT', 1)).toBeUndefined();
  });

  it('doubles repeat bans up to the maximum and forgets old offences', () => {
    const { clock, bans } = setup();
    const durations: number[] = [];
    for (let round = 0; round < 4; round++) {
      const ban = feed(bans, 'ip', 'INVALID_RESULT', 10);
      durations.push(ban?.remainingSeconds ?? -1);
      clock.advance((ban?.remainingSeconds ?? 0) * 1000 + 1);
      expect(bans.isBanned('ip')).toBe(false);
    }
    expect(durations).toEqual([60, 120, 200, 200]);
    clock.advance(3_600_001);
    expect(feed(bans, 'ip', 'INVALID_RESULT', 10)?.remainingSeconds).toBe(60);
  });

  it('ignores submits of an IP while it is banned', () => {
    const { bans } = setup();
    feed(bans, 'ip', 'INVALID_RESULT', 10);
    expect(feed(bans, 'ip', 'INVALID_RESULT', 20)).toBeUndefined();
  });

  it('never bans exempt IPs or when disabled', () => {
    const { bans } = setup();
    expect(feed(bans, '127.0.0.1', 'INVALID_RESULT', 50)).toBeUndefined();
    const off = setup({ enabled: false }).bans;
    expect(feed(off, 'ip', 'INVALID_RESULT', 50)).toBeUndefined();
  });

  it("adopts another process's ban as it is, and punishes the next offence here as the next one", () => {
    const { clock, bans } = setup();
    const other = setup().bans;
    const first = feed(other, 'ip', 'INVALID_RESULT', 10)!;
    bans.adopt(first);
    expect(bans.isBanned('ip')).toBe(true);
    expect(bans.listBans()).toEqual([first]);
    // Submits while banned do not count; after the ban a second offence doubles it.
    expect(feed(bans, 'ip', 'INVALID_RESULT', 20)).toBeUndefined();
    clock.advance(60_001);
    expect(bans.isBanned('ip')).toBe(false);
    expect(feed(bans, 'ip', 'INVALID_RESULT', 10)).toMatchObject({ offences: 2, remainingSeconds: 120 });
  });

  it('ignores an adopted ban that has ended or is shorter than the current one', () => {
    const { clock, bans } = setup();
    bans.ban('ip', 100, 'operator');
    bans.adopt({ ...bans.listBans()[0]!, untilMs: clock.now() + 10_000, reason: 'shorter' });
    expect(bans.listBans()[0]).toMatchObject({ reason: 'operator', remainingSeconds: 100 });
    bans.adopt({ ...bans.listBans()[0]!, ip: 'gone', untilMs: clock.now() - 1 });
    expect(bans.isBanned('gone')).toBe(false);
  });

  it("does not adopt another host's automatic ban of an IP exempt here; a manual one it does", () => {
    const { bans } = setup();
    const other = setup({ exemptIps: [] }).bans;
    const automatic = feed(other, '127.0.0.1', 'INVALID_RESULT', 10)!;
    expect(automatic).toMatchObject({ ip: '127.0.0.1', manual: false });
    bans.adopt(automatic);
    expect(bans.isBanned('127.0.0.1')).toBe(false);
    bans.adopt(other.ban('127.0.0.1', 60, 'operator'));
    expect(bans.isBanned('127.0.0.1')).toBe(true);
  });

  it('lets the operator list, ban and unban', () => {
    const { clock, bans } = setup();
    bans.ban('9.9.9.9', 30, 'abuse');
    feed(bans, '8.8.8.8', 'INVALID_RESULT', 10);
    const list = bans.listBans();
    expect(list.map((b) => b.ip)).toEqual(['8.8.8.8', '9.9.9.9']);
    expect(list[1]).toMatchObject({ manual: true, reason: 'abuse', remainingSeconds: 30 });
    expect(bans.unban('9.9.9.9')).toBe(true);
    expect(bans.unban('9.9.9.9')).toBe(false);
    expect(bans.isBanned('9.9.9.9')).toBe(false);
    clock.advance(61_000);
    expect(bans.listBans()).toEqual([]);
  });

  it('prunes IPs with nothing left to remember', () => {
    const { clock, bans } = setup({ offenceMemoryMs: 1000 });
    feed(bans, 'a', 'OK', 3);
    feed(bans, 'b', 'INVALID_RESULT', 10);
    expect(bans.trackedIps).toBe(2);
    clock.advance(120_000);
    bans.prune();
    expect(bans.trackedIps).toBe(0);
  });

  it('judges and bans IPv6 peers by their /64: other addresses there share the window and the ban', () => {
    const { bans } = setup();
    for (let i = 0; i < 9; i++)
      expect(bans.record(`2001:db8:1:2::${i + 1}`, 'INVALID_RESULT')).toBeUndefined();
    const ban = bans.record('2001:db8:1:2:ffff::1', 'INVALID_RESULT');
    expect(ban).toMatchObject({ ip: '2001:db8:1:2::/64', manual: false, offences: 1 });
    expect(bans.isBanned('2001:db8:1:2::abcd')).toBe(true);
    expect(bans.isBanned('2001:db8:1:3::1')).toBe(false);
    expect(bans.listBans().map((entry) => entry.ip)).toEqual(['2001:db8:1:2::/64']);
    // The operator may name the network or any address in it.
    expect(bans.unban('2001:db8:1:2::77')).toBe(true);
    expect(bans.isBanned('2001:db8:1:2::1')).toBe(false);
    bans.ban('2001:db8:9:9::5', 60);
    expect(bans.isBanned('2001:db8:9:9::6')).toBe(true);
    expect(bans.unban('2001:db8:9:9::/64')).toBe(true);
    expect(bans.listBans()).toEqual([]);
  });

  it('keeps IPv6 addresses apart with ipv6PrefixLength 128, and exempts an exact address or a network', () => {
    const apart = setup({ ipv6PrefixLength: 128 }).bans;
    apart.ban('2001:db8::1', 60);
    expect(apart.isBanned('2001:db8::1')).toBe(true);
    expect(apart.isBanned('2001:db8::2')).toBe(false);

    const exempt = setup({ exemptIps: ['2001:db8:5:5::/64', '2001:db8:6:6::1'] }).bans;
    expect(feed(exempt, '2001:db8:5:5::9', 'INVALID_RESULT', 20)).toBeUndefined();
    expect(feed(exempt, '2001:db8:6:6::1', 'INVALID_RESULT', 20)).toBeUndefined();
    expect(feed(exempt, '2001:db8:6:6::2', 'INVALID_RESULT', 20)).toMatchObject({ ip: '2001:db8:6:6::/64' });
  });
});
