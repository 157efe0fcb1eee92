import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPayoutExtra, findBatchIds } from '../../../src/pool/payouts/batch-tag.js';
import { parsePaymentsConfig } from '../../../src/pool/payouts/payout-config.js';
import { planPayouts } from '../../../src/pool/payouts/payout-planner.js';
import { classifySendError } from '../../../src/pool/payouts/send-outcome.js';
import { feePoliciesFrom, percentToBasisPoints } from '../../../src/pool/unlocker/unlocker-config.js';
import { RpcError } from '../../../src/rpc/rpc-error.js';
import { integratedMinerAddress, minerAddress } from './payout-test-kit.js';

const MINERS = Array.from({ length: 12 }, (_, i) => minerAddress(`plan-${i}`));

describe('batch tag in the transaction extra', () => {
  it('round-trips the batch id, after the payment id nonce, behind walletd tx public key', () => {
    const id = '0123456789abcdef0123456789abcdef';
    const pid = 'cd'.repeat(32);
    const extra = buildPayoutExtra(id, pid);
    expect(extra.startsWith(`022100${pid}`)).toBe(true);
    const asRecorded = `01${'11'.repeat(32)}${extra}`;
    expect(findBatchIds(asRecorded)).toEqual([id]);
    expect(findBatchIds(`01${'11'.repeat(32)}`)).toEqual([]);
    // An extra that does not parse still gives up its tag.
    expect(findBatchIds(`04ff${buildPayoutExtra(id)}`)).toEqual([id]);
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
});

describe('send error classification', () => {
  const walletError = (applicationCode: number, rpcMessage: string) =>
    new RpcError('RPC_ERROR', rpcMessage, { rpcCode: -32000, rpcMessage, applicationCode });
  it('rolls back only refusals that come before broadcasting', () => {
    expect(classifySendError(walletError(14, 'Insufficient funds')).kind).toBe('not-sent');
    expect(classifySendError(walletError(5, 'Internal error occurred')).kind).toBe('unknown');
    expect(classifySendError(new RpcError('RPC_TIMEOUT', 't')).kind).toBe('unknown');
    expect(classifySendError(new RpcError('RPC_UNREACHABLE', 'x', { errno: 'ECONNRESET' })).kind).toBe(
      'unknown',
    );
    expect(classifySendError(new RpcError('RPC_UNREACHABLE', 'x', { errno: 'ECONNREFUSED' })).kind).toBe(
      'not-sent',
    );
    expect(classifySendError(new Error('?')).kind).toBe('unknown');
  });
});

describe('payments config', () => {
  it('converts percentages to basis points exactly', () => {
    expect(percentToBasisPoints(1.25)).toBe(125);
    expect(percentToBasisPoints('0.5')).toBe(50);
    expect(percentToBasisPoints(100)).toBe(10_000);
    expect(percentToBasisPoints(0.125)).toBeNull();
    expect(percentToBasisPoints(-1)).toBeNull();
    expect(percentToBasisPoints(100.01)).toBeNull();
    const config = parsePaymentsConfig({ poolFeePercent: 1.5, feeAddress: MINERS[0] });
    expect(feePoliciesFrom(config)).toEqual({
      pool: { poolFeeBasisPoints: 150, finderBonusBasisPoints: 0, feeAddress: MINERS[0] },
      solo: { poolFeeBasisPoints: 150, finderBonusBasisPoints: 0, feeAddress: MINERS[0] },
    });
    expect(config.payouts).toMatchObject({
      minPayoutCoins: '1',
      maxTransfersPerTransaction: 15,
      feePaidBy: 'pool',
    });
  });

  it.each([
    [{ poolFeePercent: 101 }, 'payments.poolFeePercent:'],
    [{ finderBonusPercent: 1.234 }, 'payments.finderBonusPercent:'],
    [{ scheme: 'pps' }, 'payments.scheme:'],
    [{ payouts: { minPayoutCoins: '-1' } }, 'payments.payouts.minPayoutCoins:'],
    [{ payouts: { maxTransfersPerTransaction: 0 } }, 'payments.payouts.maxTransfersPerTransaction:'],
    [{ confirmDepth: -5 }, 'payments.confirmDepth:'],
    [{ payouts: { feePaidBy: 'miners', minPayoutCoins: '0.001' } }, 'payments.payouts.minPayoutCoins:'],
    [{ typo: 1 }, 'payments.typo: unknown key'],
  ])('rejects %j naming the key', (input, key) => {
    expect(() => parsePaymentsConfig(input)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining(key) }),
    );
  });
});
