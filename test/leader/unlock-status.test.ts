import { describe, expect, it } from 'vitest';
import { NO_UNLOCK_RUN_YET, nextUnlockStatus } from '../../src/leader/unlock-status.js';

const decision = (outcome: string) => ({ hash: 'aa', height: 1, outcome, detail: '' }) as never;

describe('nextUnlockStatus', () => {
  it('counts the blocks a run decided (credited, orphaned, flagged), not the ones left pending', () => {
    const status = nextUnlockStatus(NO_UNLOCK_RUN_YET, 1_000, {
      summary: {
        skipped: null,
        decisions: [
          'confirmed',
          'orphaned',
          'orphaned-after-credit',
          'pending',
          'not-on-main-chain',
          'error',
        ].map(decision),
      },
    });
    expect(status).toEqual({ lastRunMs: 1_000, held: null, heldSinceMs: null, decided: 3, lastError: null });
  });

  it('keeps when a hold began while the reason stays the same, and starts over when it changes', () => {
    const first = nextUnlockStatus(NO_UNLOCK_RUN_YET, 1_000, {
      summary: { skipped: 'daemon-isolated', decisions: [] },
    });
    const second = nextUnlockStatus(first, 61_000, {
      summary: { skipped: 'daemon-isolated', decisions: [] },
    });
    expect(second).toMatchObject({ held: 'daemon-isolated', heldSinceMs: 1_000, lastRunMs: 61_000 });
    const other = nextUnlockStatus(second, 121_000, {
      summary: { skipped: 'witness-disagrees', decisions: [] },
    });
    expect(other).toMatchObject({ held: 'witness-disagrees', heldSinceMs: 121_000 });
    const free = nextUnlockStatus(other, 181_000, { summary: { skipped: null, decisions: [] } });
    expect(free).toMatchObject({ held: null, heldSinceMs: null });
  });

  it("a lost term's fencing skip is not a hold; a failed run keeps the hold and says why it failed", () => {
    expect(
      nextUnlockStatus(NO_UNLOCK_RUN_YET, 1_000, { summary: { skipped: 'not-leader', decisions: [] } }).held,
    ).toBeNull();
    const held = nextUnlockStatus(NO_UNLOCK_RUN_YET, 1_000, {
      summary: { skipped: 'daemon-syncing', decisions: [] },
    });
    const failed = nextUnlockStatus(held, 2_000, { error: new Error('connect ECONNREFUSED') });
    expect(failed).toEqual({
      lastRunMs: 2_000,
      held: 'daemon-syncing',
      heldSinceMs: 1_000,
      decided: 0,
      lastError: 'connect ECONNREFUSED',
    });
    const recovered = nextUnlockStatus(failed, 3_000, { summary: { skipped: null, decisions: [] } });
    expect(recovered.lastError).toBeNull();
  });
});
