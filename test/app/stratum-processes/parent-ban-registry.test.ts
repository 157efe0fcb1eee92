import { describe, expect, it } from 'vitest';
import type { ChildMessage } from '../../../src/app/stratum-processes/child-messages.js';
import { ParentBanRegistry } from '../../../src/app/stratum-processes/parent-ban-registry.js';
import { type BanChange, manualBan } from '../../../src/pool/ban-registry.js';

function setup() {
  const sent: ChildMessage[] = [];
  const registry = new ParentBanRegistry(
    { ipv6PrefixLength: 64, exemptIps: ['10.0.0.9'] },
    {
      send: (message) => sent.push(message),
      onListenerError: (error) => {
        throw error;
      },
    },
  );
  const changes: BanChange[] = [];
  registry.onChange((change) => changes.push(change));
  return { registry, sent, changes };
}

describe("a stratum child's ban registry (its parent's, over IPC)", () => {
  it('puts its own ban in force at once and sends it to the parent, keyed', async () => {
    const { registry, sent, changes } = setup();
    const banning = registry.ban(manualBan('2001:db8:1:2::7', 60, 'manual', Date.now()));
    expect(registry.isBanned('2001:db8:1:2::/64')).toBe(true);
    expect(changes).toEqual([
      { kind: 'banned', entry: expect.objectContaining({ ip: '2001:db8:1:2::/64' }) },
    ]);
    const entry = await banning;
    expect(sent).toEqual([{ kind: 'banned', entry }]);
    expect(await registry.unban('2001:db8:1:2::8')).toBe(true);
    expect(sent.at(-1)).toEqual({ kind: 'unban', ip: '2001:db8:1:2::/64' });
    expect(registry.isBanned('2001:db8:1:2::/64')).toBe(false);
  });

  it("holds the parent's bans as they arrive, and lifts them; sends nothing back", async () => {
    const { registry, sent, changes } = setup();
    const now = Date.now();
    const heard = {
      ip: '10.0.0.1',
      bannedAtMs: now,
      untilMs: now + 60_000,
      offences: 2,
      manual: false,
      reason: 'x',
    };
    registry.adopt(heard);
    registry.adopt({ ...heard, ip: '10.0.0.9' });
    expect((await registry.list()).map((b) => b.ip)).toEqual(['10.0.0.1']);
    // Its own ban, heard back from the parent: nothing new.
    registry.adopt(heard);
    registry.lift('10.0.0.1');
    expect(registry.isBanned('10.0.0.1')).toBe(false);
    expect(changes.map((c) => c.kind)).toEqual(['banned', 'unbanned']);
    expect(sent).toEqual([]);
  });
});
