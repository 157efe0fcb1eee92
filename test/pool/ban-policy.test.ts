import { describe, expect, it } from 'vitest';
import { BanPolicy, type BanPolicyOptions } from '../../src/pool/ban-policy.js';
import { type Ban, manualBan } from '../../src/pool/ban-registry.js';
import type { StratumErrorCode } from '../../src/pool/stratum-errors.js';
import { DEFAULT_BAN_POLICY_OPTIONS } from '../helpers/config-defaults.js';
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

/** How long `ban` lasts, in seconds. */
function seconds(ban: Ban | undefined): number {
  return ban === undefined ? -1 : (ban.untilMs - ban.bannedAtMs) / 1000;
}

/** Feeds `count` outcomes; returns the first ban triggered, if any. */
function feed(bans: BanPolicy, ip: string, outcome: 'OK' | StratumErrorCode, count: number) {
  let banned: ReturnType<BanPolicy['record']>;
  for (let i = 0; i < count; i++) banned ??= bans.record(ip, outcome);
  return banned;
}

describe('BanPolicy', () => {
  it('calls for a ban of an IP whose invalid results reach the ratio once it has enough submits', () => {
    const { clock, bans } = setup();
    expect(feed(bans, '1.1.1.1', 'INVALID_RESULT', 9)).toBeUndefined();
    const ban = feed(bans, '1.1.1.1', 'INVALID_RESULT', 1);
    expect(ban).toEqual({
      ip: '1.1.1.1',
      bannedAtMs: clock.now(),
      untilMs: clock.now() + 60_000,
      offences: 1,
      manual: false,
      reason: 'invalid ratio 1.00 over 10 submits',
    });
    expect(feed(bans, '2.2.2.2', 'INVALID_RESULT', 1)).toBeUndefined();
  });

  it('does not ban below the ratio', () => {
    const { bans } = setup();
    feed(bans, 'ip', 'OK', 11);
    expect(feed(bans, 'ip', 'LOW_DIFFICULTY', 10)).toBeUndefined();
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
      durations.push(seconds(ban));
      clock.advance(Math.max(0, seconds(ban)) * 1000 + 1);
    }
    expect(durations).toEqual([60, 120, 200, 200]);
    clock.advance(3_600_001);
    expect(seconds(feed(bans, 'ip', 'INVALID_RESULT', 10))).toBe(60);
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

  it("notes another process's ban, and punishes the next offence here as the next one", () => {
    const { clock, bans } = setup();
    const other = setup().bans;
    const first = feed(other, 'ip', 'INVALID_RESULT', 10)!;
    bans.noteBan(first);
    // Submits while banned do not count; after the ban a second offence doubles it.
    expect(feed(bans, 'ip', 'INVALID_RESULT', 20)).toBeUndefined();
    clock.advance(60_001);
    const second = feed(bans, 'ip', 'INVALID_RESULT', 10);
    expect(second).toMatchObject({ offences: 2 });
    expect(seconds(second)).toBe(120);
  });

  it("an operator's ban pauses the count without being an offence; an unban forgets the IP's history", () => {
    const { clock, bans } = setup();
    bans.noteBan(manualBan('ip', 30, 'operator', clock.now()));
    expect(feed(bans, 'ip', 'INVALID_RESULT', 20)).toBeUndefined();
    clock.advance(30_001);
    expect(feed(bans, 'ip', 'INVALID_RESULT', 10)).toMatchObject({ offences: 1 });
    bans.forget('ip');
    // Not banned any more, and the next offence is a first one again.
    expect(feed(bans, 'ip', 'INVALID_RESULT', 10)).toMatchObject({ offences: 1 });
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

  it('judges IPv6 peers by their /64: other addresses there share the window and the ban', () => {
    const { bans } = setup();
    for (let i = 0; i < 9; i++)
      expect(bans.record(`2001:db8:1:2::${i + 1}`, 'INVALID_RESULT')).toBeUndefined();
    const ban = bans.record('2001:db8:1:2:ffff::1', 'INVALID_RESULT');
    expect(ban).toMatchObject({ ip: '2001:db8:1:2::/64', manual: false, offences: 1 });
    expect(bans.keyOf('2001:db8:1:2::abcd')).toBe('2001:db8:1:2::/64');
    expect(bans.record('2001:db8:1:2::abcd', 'INVALID_RESULT')).toBeUndefined();
    expect(feed(bans, '2001:db8:1:3::1', 'INVALID_RESULT', 10)).toMatchObject({ ip: '2001:db8:1:3::/64' });
  });

  it('keeps IPv6 addresses apart with ipv6PrefixLength 128, and exempts an exact address or a network', () => {
    const apart = setup({ ipv6PrefixLength: 128 }).bans;
    expect(feed(apart, '2001:db8::1', 'INVALID_RESULT', 10)).toMatchObject({ ip: '2001:db8::1' });
    expect(apart.keyOf('2001:db8::2')).toBe('2001:db8::2');

    const exempt = setup({ exemptIps: ['2001:db8:5:5::/64', '2001:db8:6:6::1'] }).bans;
    expect(feed(exempt, '2001:db8:5:5::9', 'INVALID_RESULT', 20)).toBeUndefined();
    expect(feed(exempt, '2001:db8:6:6::1', 'INVALID_RESULT', 20)).toBeUndefined();
    expect(feed(exempt, '2001:db8:6:6::2', 'INVALID_RESULT', 20)).toMatchObject({ ip: '2001:db8:6:6::/64' });
  });
});
