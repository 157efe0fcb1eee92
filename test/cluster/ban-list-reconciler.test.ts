import { describe, expect, it } from 'vitest';
import { BanListReconciler } from '../../src/cluster/ban-list-reconciler.js';
import { type Ban, type BanChange, manualBan } from '../../src/pool/ban-registry.js';
import { LocalBans } from '../../src/pool/local-bans.js';
import { TestClock } from '../pool/pool-fakes.js';

function setup() {
  const clock = new TestClock();
  const local = new LocalBans(
    { ipv6PrefixLength: 64, exemptIps: ['10.9.9.9'] },
    {
      clock: clock.now,
      onListenerError: (error) => {
        throw error;
      },
    },
  );
  const reconciler = new BanListReconciler(local, clock.now);
  const changes: BanChange[] = [];
  local.onChange((change) => changes.push(change));
  const unbanned = () => changes.flatMap((c) => (c.kind === 'unbanned' ? [c.ip] : []));
  const held = () =>
    local
      .list()
      .map((entry) => entry.ip)
      .sort();
  return { clock, local, reconciler, unbanned, held };
}

/** The ban policy's ban of `ip` for `seconds` from `now`. */
function automatic(ip: string, now: number, seconds = 60): Ban {
  return { ...manualBan(ip, seconds, 'invalid ratio 1.00 over 10 submits', now), manual: false, offences: 1 };
}

/** A read of the list that answers when the test says. */
function deferredRead(): { read: () => Promise<readonly Ban[]>; answer: (bans: readonly Ban[]) => void } {
  let answer: (bans: readonly Ban[]) => void = () => undefined;
  const pending = new Promise<readonly Ban[]>((resolve) => {
    answer = resolve;
  });
  return { read: () => pending, answer };
}

const listed = (bans: readonly Ban[]) => async () => bans;

describe('reconciling a process view of the bans with the Redis ban list', () => {
  it('takes what a read holds and lifts what the list held and no longer does (an unban not heard)', async () => {
    const { clock, reconciler, unbanned, held } = setup();
    const v4 = automatic('203.0.113.1', clock.now());
    const net64 = manualBan('2001:db8:1:2::/64', 600, 'operator', clock.now());
    const net48 = manualBan('2001:db8:3::/48', 600, 'operator', clock.now());
    reconciler.adopt(v4); // heard on the channel
    expect(await reconciler.catchUp(listed([v4, net64, net48]))).toEqual([v4, net64, net48]);
    expect(held()).toEqual(['2001:db8:1:2::/64', '2001:db8:3::/48', '203.0.113.1']);

    await reconciler.catchUp(listed([net64]));
    expect(held()).toEqual(['2001:db8:1:2::/64']);
    expect(unbanned().sort()).toEqual(['2001:db8:3::/48', '203.0.113.1']);
    await reconciler.catchUp(listed([net64]));
    expect(unbanned()).toHaveLength(2);
  });

  it('keeps a ban made here that the list does not hold: not stored yet, or refused', async () => {
    const { clock, reconciler, held } = setup();
    reconciler.put(automatic('203.0.113.2', clock.now())); // its store never settles (Redis away)
    const inFlight = reconciler.put(automatic('203.0.113.3', clock.now()));
    await reconciler.catchUp(listed([]));
    expect(held()).toEqual(['203.0.113.2', '203.0.113.3']);
    // Stored once the read has begun: that read may have come first.
    const read = deferredRead();
    const catching = reconciler.catchUp(read.read);
    inFlight.stored();
    read.answer([]);
    await catching;
    expect(held()).toEqual(['203.0.113.2', '203.0.113.3']);
    // A read begun after it was stored that lacks it: lifted elsewhere.
    await reconciler.catchUp(listed([]));
    expect(held()).toEqual(['203.0.113.2']);
  });

  it('a ban made here again while its earlier ban is stored stays until the new one is', async () => {
    const { clock, reconciler, held } = setup();
    const first = reconciler.put(automatic('203.0.113.4', clock.now()));
    const again = reconciler.put(manualBan('203.0.113.4', 600, 'operator', clock.now()));
    first.stored();
    await reconciler.catchUp(listed([]));
    expect(held()).toEqual(['203.0.113.4']);
    again.stored();
    await reconciler.catchUp(listed([]));
    expect(held()).toEqual([]);
  });

  it('does not lift a ban heard while the read was under way, nor take back one unbanned meanwhile', async () => {
    const { clock, reconciler, held, unbanned } = setup();
    const old = automatic('203.0.113.5', clock.now());
    await reconciler.catchUp(listed([old]));
    const read = deferredRead();
    const catching = reconciler.catchUp(read.read);
    reconciler.adopt(automatic('203.0.113.6', clock.now())); // stored after the read
    expect(reconciler.lift('203.0.113.5')).toBe(true); // unbanned after the read
    read.answer([old]);
    await catching;
    expect(held()).toEqual(['203.0.113.6']);
    expect(unbanned()).toEqual(['203.0.113.5']);
  });

  it('a ban whose end in the list has passed ran out there, not lifted: the longer one held here runs on', async () => {
    const { clock, reconciler, held, unbanned } = setup();
    reconciler.adopt(automatic('203.0.113.7', clock.now(), 600));
    // Banned again for less elsewhere: heard bans only extend here, the list holds the shorter one.
    expect(reconciler.adopt(automatic('203.0.113.7', clock.now(), 60))).toBe(false);
    clock.advance(61_000);
    await reconciler.catchUp(listed([]));
    expect(held()).toEqual(['203.0.113.7']);
    clock.advance(600_000);
    await reconciler.catchUp(listed([]));
    expect(held()).toEqual([]);
    expect(unbanned()).toEqual([]);
  });

  it('a read that fails changes nothing; an exempt IP is not taken from a read', async () => {
    const { clock, reconciler, held } = setup();
    const ban = automatic('203.0.113.8', clock.now());
    await reconciler.catchUp(listed([ban, automatic('10.9.9.9', clock.now())]));
    await expect(reconciler.catchUp(() => Promise.reject(new Error('Redis away')))).rejects.toThrow(
      'Redis away',
    );
    expect(held()).toEqual(['203.0.113.8']);
  });
});
