import { describe, expect, it, vi } from 'vitest';
import { LeaderLoop } from '../../src/leader/leader-loop.js';
import type { BlockUnlocker } from '../../src/leader/unlocker/block-unlocker.js';
import { createPoolEventBus } from '../../src/pool/events.js';
import type { PayoutRunSummary, UpkeepReport } from '../../src/pool/payouts/payout-reports.js';
import { silentLogger } from '../store/store-fixtures.js';

const SUMMARY: PayoutRunSummary = {
  skipped: null,
  detail: '',
  recovered: [],
  batches: [],
  stillOpen: [],
  skippedMiners: [],
  unknownPayments: [],
  walletMissing: [],
  unmined: [],
};

function report(state: UpkeepReport['state'], pending: string[] = []): UpkeepReport {
  return { state, detail: state, trigger: null, estimate: null, sent: [], confirmed: [], pending };
}

describe('leader loop with the wallet upkeep', () => {
  it('while fusions are pending it skips the payout pass, looks again every unlock interval, and pays once they are spendable', async () => {
    const upkeepReports = [report('pending', ['ab'.repeat(32)]), report('pending', ['ab'.repeat(32)])];
    const upkeep = {
      runOnce: vi.fn(async () => upkeepReports.shift() ?? report('idle')),
      hasRequest: () => false,
    };
    const payouts = { runOnce: vi.fn(async () => SUMMARY) };
    const holdPass = vi.fn(async () => []);
    const unlocker = {
      runOnce: async () => ({ decisions: [] }),
      windows: { fixPending: async () => undefined },
    } as unknown as BlockUnlocker;
    const loop = new LeaderLoop(
      { unlockIntervalMs: 20, payoutIntervalMs: 3_600_000 },
      {
        unlocker,
        payouts,
        upkeep,
        holdPass,
        events: createPoolEventBus(() => undefined),
        logger: silentLogger,
      },
    );
    loop.start();
    try {
      await vi.waitFor(() => expect(payouts.runOnce).toHaveBeenCalledOnce(), { timeout: 2_000 });
      expect(upkeep.runOnce).toHaveBeenCalledTimes(3);
      expect(holdPass).toHaveBeenCalledTimes(2);
      // Paid: no more looking every unlock interval, the next pass comes at the payout interval.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(payouts.runOnce).toHaveBeenCalledOnce();
      expect(upkeep.runOnce).toHaveBeenCalledTimes(3);
    } finally {
      await loop.stop();
    }
    expect(await loop.optimizeWallet()).toMatchObject({ state: 'idle' });
    expect(upkeep.runOnce).toHaveBeenLastCalledWith({ operator: true });
  });
});
