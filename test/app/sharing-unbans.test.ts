import { describe, expect, it } from 'vitest';
import { type StratumSurface, sharingUnbans } from '../../src/app/stratum-surface.js';
import { peerKey } from '../../src/pool/peer-key.js';

describe("the operator's unban, shared with the other stratum hosts", () => {
  it('lifts the ban here and announces the key the ban is stored under', () => {
    const unbanned: string[] = [];
    const published: string[] = [];
    const surface = {
      control: {
        backend: {
          listBans: () => [],
          ban: () => {
            throw new Error('not used');
          },
          unban: (ip: string) => {
            unbanned.push(ip);
            return true;
          },
          metrics: { bansIssued: 3 },
        },
        stratum: {},
      },
    } as unknown as StratumSurface;
    const shared = sharingUnbans(surface, { publishUnban: (ip) => published.push(ip) }, (ip) =>
      peerKey(ip, 64),
    );
    expect(shared.control.backend.unban('2001:db8:1:2::77')).toBe(true);
    expect(shared.control.backend.unban('203.0.113.9')).toBe(true);
    expect(unbanned).toEqual(['2001:db8:1:2::77', '203.0.113.9']);
    expect(published).toEqual(['2001:db8:1:2::/64', '203.0.113.9']);
    expect(shared.control.backend.metrics.bansIssued).toBe(3);
  });
});
