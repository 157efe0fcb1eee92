import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildPayoutExtra,
  findBatchIds,
  findBatchTags,
  poolIdOf,
} from '../../../src/pool/payouts/batch-tag.js';
import { planPayouts } from '../../../src/pool/payouts/payout-planner.js';
import { integratedMinerAddress, minerAddress } from '../../leader/payouts/payout-test-kit.js';

const MINERS = Array.from({ length: 12 }, (_, i) => minerAddress(`plan-${i}`));
/** A plan with a small fee and a wallet that covers everything. */
const PLAN_OPTIONS = {
  minPayoutAtomic: 100n,
  maxTransfersPerTransaction: 10,
  networkFeeAtomic: 10n,
  feePaidBy: 'pool' as const,
  availableAtomic: 10n ** 12n,
  maxBatches: 5,
};

describe('batch tag in the transaction extra', () => {
  const id = '0123456789abcdef0123456789abcdef';
  const pool = poolIdOf('fuego');

  it('round-trips the batch id and the pool id, after the payment id nonce, behind walletd tx public key', () => {
    const pid = 'cd'.repeat(32);
    const extra = buildPayoutExtra(id, pid, pool);
    expect(extra.startsWith(`022100${pid}`)).toBe(true);
    const asRecorded = `01${'11'.repeat(32)}${extra}`;
    expect(findBatchTags(asRecorded)).toEqual([{ batchId: id, poolId: pool }]);
    expect(findBatchIds(asRecorded)).toEqual([id]);
    expect(findBatchIds(`01${'11'.repeat(32)}`)).toEqual([]);
    // An extra that does not parse still gives up its tag.
    expect(findBatchIds(`04ff${buildPayoutExtra(id, '', pool)}`)).toEqual([id]);
  });

  it('tells pools apart by their key prefix and still reads the tags written before pool ids (v1)', () => {
    expect(poolIdOf('fuego')).toMatch(/^[0-9a-f]{8}$/);
    expect(poolIdOf('fuego')).not.toBe(poolIdOf('fuego-b'));
    const v1 = `021346500${1}${id}`;
    expect(findBatchTags(`01${'11'.repeat(32)}${v1}`)).toEqual([{ batchId: id, poolId: null }]);
  });
});

describe('planPayouts', () => {
  it('property: whole balances are debited, fee shares add up to the fee, limits hold', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { minLength: 1, maxLength: MINERS.length }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom('pool' as const, 'miners' as const),
        fc.bigInt({ min: 0n, max: 10n ** 8n }),
        (balances, maxTransfers, feePaidBy, min) => {
          const miners = balances.map((balanceAtomic, i) => ({ address: MINERS[i]!, balanceAtomic }));
          const plan = planPayouts(miners, {
            minPayoutAtomic: min,
            maxTransfersPerTransaction: maxTransfers,
            networkFeeAtomic: 80_000n,
            feePaidBy,
            availableAtomic: 10n ** 15n,
            maxBatches: 1000,
          });
          const paid = new Set<string>();
          for (const batch of plan.batches) {
            expect(batch.transfers.length).toBeLessThanOrEqual(maxTransfers);
            const shares = batch.transfers.reduce((s, t) => s + t.feeShareAtomic, 0n);
            expect(shares).toBe(feePaidBy === 'miners' ? 80_000n : 0n);
            for (const t of batch.transfers) {
              expect(t.amountAtomic > 0n).toBe(true);
              expect(t.debitAtomic).toBe(t.amountAtomic + t.feeShareAtomic);
              expect(t.debitAtomic).toBe(miners.find((m) => m.address === t.address)!.balanceAtomic);
              expect(paid.has(t.address)).toBe(false);
              paid.add(t.address);
            }
          }
          for (const m of miners) {
            const skipped = plan.skipped.some((s) => s.address === m.address);
            if (m.balanceAtomic >= min && m.balanceAtomic > 0n)
              expect(paid.has(m.address) || skipped).toBe(true);
            else expect(paid.has(m.address)).toBe(false);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('sends an integrated address alone and stops at the wallet balance', () => {
    const integrated = integratedMinerAddress('plan-i', 'ef'.repeat(32));
    const plan = planPayouts(
      [
        { address: MINERS[0]!, balanceAtomic: 500n },
        { address: integrated, balanceAtomic: 400n },
        { address: MINERS[1]!, balanceAtomic: 300n },
        { address: 'not-an-address', balanceAtomic: 300n },
      ],
      {
        minPayoutAtomic: 100n,
        maxTransfersPerTransaction: 10,
        networkFeeAtomic: 10n,
        feePaidBy: 'pool',
        availableAtomic: 1_200n,
        maxBatches: 5,
      },
    );
    expect(plan.batches.map((b) => [b.transfers.map((t) => t.address), b.paymentId])).toEqual([
      [[MINERS[0], MINERS[1]], ''],
    ]);
    expect(plan.skipped.map((s) => s.reason)).toEqual([
      'invalid address (BAD_CHARACTER)',
      'wallet balance too low for this batch',
    ]);
  });

  it("waits for a miner's own threshold above the pool minimum; one below it counts as the minimum", () => {
    const options = PLAN_OPTIONS;
    const paidOf = (miners: Parameters<typeof planPayouts>[0]) =>
      planPayouts(miners, options).batches.flatMap((b) =>
        b.transfers.map((t) => [t.address, t.amountAtomic]),
      );
    expect(
      paidOf([
        { address: MINERS[0]!, balanceAtomic: 499n, thresholdAtomic: 500n }, // above the minimum, below its own
        { address: MINERS[1]!, balanceAtomic: 500n, thresholdAtomic: 500n }, // at its own
        { address: MINERS[2]!, balanceAtomic: 501n, thresholdAtomic: 500n }, // above its own
        { address: MINERS[3]!, balanceAtomic: 150n }, // no threshold: the pool minimum
        { address: MINERS[4]!, balanceAtomic: 99n, thresholdAtomic: 50n }, // own below the minimum
        { address: MINERS[5]!, balanceAtomic: 100n, thresholdAtomic: 50n },
      ]),
    ).toEqual([
      [MINERS[2], 501n],
      [MINERS[1], 500n],
      [MINERS[3], 150n],
      [MINERS[5], 100n],
    ]);
  });
});

describe('planPayouts: integrated addresses keep their place by balance', () => {
  const integrated = integratedMinerAddress('plan-big', 'ab'.repeat(32));

  it('pays the largest balance first when the batch limit leaves room for one batch', () => {
    // A pool with more standard miners due than fit one run's batches: the integrated address
    // (an exchange deposit, the largest balance) must not wait behind every one of them.
    const plan = planPayouts(
      [
        { address: integrated, balanceAtomic: 1_000_000n },
        { address: MINERS[0]!, balanceAtomic: 200n },
        { address: MINERS[1]!, balanceAtomic: 150n },
      ],
      { ...PLAN_OPTIONS, maxBatches: 1 },
    );
    expect(plan.batches.map((b) => b.transfers.map((t) => t.address))).toEqual([[integrated]]);
  });
});
