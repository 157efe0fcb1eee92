import { describe, expect, it } from 'vitest';
import { FirstTemplateWait, whyNoTemplate } from '../../src/app/first-template-wait.js';
import type { LeaderRole } from '../../src/app/leader-role.js';

/** A leader role as whyNoTemplate reads it: its current term's template source, if any. */
function leaderWith(lastError: string | undefined | null): LeaderRole {
  const templates = lastError === null ? null : { status: () => ({ lastError }) };
  return { templates: () => templates } as unknown as LeaderRole;
}

describe('FirstTemplateWait', () => {
  it('says from which daemon, for how long and why, until it ends', () => {
    let now = 1_000_000;
    let reason: string | null = null;
    const wait = new FirstTemplateWait({
      daemonUrl: 'http://127.0.0.1:18180',
      reason: () => reason,
      clock: () => now,
    });
    now += 42_500;
    expect(wait.detail()).toBe(
      'waiting for the first template from the daemon at http://127.0.0.1:18180 for 42 s (no answer yet)',
    );
    reason = 'daemon status is BUSY: still syncing (or starting)';
    expect(wait.view()).toEqual({ daemon: 'http://127.0.0.1:18180', waitedSeconds: 42, reason });
    expect(wait.detail()).toBe(
      'waiting for the first template from the daemon at http://127.0.0.1:18180 for 42 s: daemon status is BUSY: still syncing (or starting)',
    );
    wait.end();
    expect(wait.view()).toBeNull();
    expect(wait.detail()).toBeNull();
  });

  it("why: the leading term's last daemon error, or that another process leads, or that none does here", () => {
    expect(whyNoTemplate(leaderWith('connect ECONNREFUSED 127.0.0.1:18180'))).toBe(
      'connect ECONNREFUSED 127.0.0.1:18180',
    );
    expect(whyNoTemplate(leaderWith(undefined))).toBeNull();
    expect(whyNoTemplate(leaderWith(null))).toContain('standing by');
    expect(whyNoTemplate(null)).toContain('the leading pool process polls the daemon');
  });
});
