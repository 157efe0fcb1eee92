import { describe, expect, it } from 'vitest';
import type { TaggedTransaction } from '../../../src/leader/payouts/batch-finder.js';
import { checkBatchTransfers } from '../../../src/leader/payouts/batch-transfers.js';
import { accountsPaidBy, unknownPaymentsIn } from '../../../src/leader/payouts/unknown-payments.js';
import type { PayoutBatch } from '../../../src/model/payouts/payout-batch.js';
import { minerAddress } from './payout-test-kit.js';

const A = minerAddress('transfers-a');
const B = minerAddress('transfers-b');
const WALLET = minerAddress('transfers-wallet');

/** Only what the check reads of a batch: its transfers. */
const batch = {
  transfers: [
    { address: A, destination: A, amountAtomic: 300n, feeShareAtomic: 0n, debitAtomic: 300n },
    { address: B, destination: B, amountAtomic: 200n, feeShareAtomic: 0n, debitAtomic: 200n },
  ],
} as unknown as PayoutBatch;

/** walletd's record as it built it at send, and as it rebuilds it from the chain after a reset. */
const built = [
  { type: 0, address: A, amount: 300, message: '' },
  { type: 0, address: B, amount: 200, message: '' },
  { type: 2, address: WALLET, amount: 90, message: '' },
  { type: 0, address: WALLET, amount: -600, message: '' },
];
const rebuilt = (paidOutside: number) => [
  { type: 0, address: WALLET, amount: -600, message: '' },
  { type: 0, address: WALLET, amount: 90, message: '' },
  { type: 0, address: '', amount: paidOutside, message: '' },
];

describe('what a wallet record says about a batch', () => {
  it('built at send: every transfer listed, or those missing named', () => {
    expect(checkBatchTransfers(batch, built)).toEqual({ kind: 'listed' });
    expect(checkBatchTransfers(batch, built.slice(1))).toEqual({ kind: 'missing', addresses: [A] });
  });

  it('rebuilt from the chain: only the total paid outside the wallet is compared', () => {
    expect(checkBatchTransfers(batch, rebuilt(500))).toEqual({
      kind: 'rebuilt',
      unnamedAtomic: 500n,
      expectedAtomic: 500n,
    });
    expect(checkBatchTransfers(batch, rebuilt(499))).toMatchObject({ unnamedAtomic: 499n });
  });

  it('an unknown payment from a rebuilt record records nothing for address "", and its unnamed amount', () => {
    const tagged: TaggedTransaction = {
      batchId: 'b'.repeat(32),
      poolId: null,
      txHash: 'c'.repeat(64),
      feeAtomic: 10n,
      blockIndex: 7,
      paymentId: 'd'.repeat(64),
      transfers: rebuilt(500),
      outcome: 'sent',
    };
    const [payment] = unknownPaymentsIn([tagged], new Set(), new Set([WALLET]), 1);
    expect(payment).toMatchObject({ transfers: [], unnamedAtomic: 500n });
    // Nothing to decode: no account is named (payout resolve --paid refuses it first).
    expect(accountsPaidBy(payment!)).toEqual([]);
    const [named] = unknownPaymentsIn([{ ...tagged, transfers: built }], new Set(), new Set([WALLET]), 1);
    expect(named).toMatchObject({ unnamedAtomic: 0n, transfers: [{ address: A }, { address: B }] });
  });
});
