import { describe, expect, it } from 'vitest';
import { namedRecipientsFor, RecipientsListError } from '../../../src/leader/payouts/unnamed-recipients.js';
import type { UnknownPayment } from '../../../src/model/payouts/payout-watch.js';
import { integratedMinerAddress, minerAddress } from './payout-test-kit.js';

const A = minerAddress('named-a');
const B = minerAddress('named-b');
const PAYMENT_ID = 'ab'.repeat(32);

function payment(overrides: Partial<UnknownPayment> = {}): UnknownPayment {
  return {
    txHash: 'f0'.repeat(32),
    batchId: 'b1'.repeat(16),
    blockIndex: 10,
    paymentId: '',
    feeAtomic: 100n,
    transfers: [],
    unnamedAtomic: 5_000n,
    firstSeenMs: 1,
    status: 'unresolved',
    resolvedAtMs: null,
    resolvedNote: null,
    ...overrides,
  };
}

/** The error namedRecipientsFor throws for `text`. */
function refusal(text: string, of: UnknownPayment = payment()): RecipientsListError {
  try {
    namedRecipientsFor(of, text);
  } catch (error) {
    if (error instanceof RecipientsListError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('the list of recipients an operator names for an unknown payment', () => {
  it('reads one ADDRESS AMOUNT a line in atomic units, skipping blank lines and # comments', () => {
    const text = `# batch b1b1..., from the log\n\n${A} 2000\n\t${B}\t3000   # the second miner\n`;
    expect(namedRecipientsFor(payment(), text)).toEqual([
      { address: A, amountAtomic: 2_000n },
      { address: B, amountAtomic: 3_000n },
    ]);
  });

  it('refuses a sum that differs from what the payment paid unnamed, saying both figures', () => {
    const error = refusal(`${A} 2000\n${B} 2999\n`);
    expect(error.code).toBe('RECIPIENTS_SUM_MISMATCH');
    expect(error.data).toMatchObject({ sumAtomic: '4999', unnamedAtomic: '5000' });
    expect(error.message).toContain('4999');
    expect(error.message).toContain('5000');
  });

  it.each([
    ['1.5', 'XFG with a decimal point'],
    ['0', 'zero'],
    ['-5000', 'negative'],
    ['05000', 'a leading zero'],
    ['5e3', 'an exponent'],
    ['50000000000000000000', 'beyond 64 bits'],
  ])('refuses the amount %s (%s), naming its line', (amount) => {
    const error = refusal(`# comment\n${A} ${amount}\n`);
    expect(error.code).toBe('RECIPIENTS_INVALID');
    expect(error.data['problems']).toEqual([expect.stringMatching(/^line 2: AMOUNT/)]);
  });

  it('refuses an address that does not decode, and a line without two fields, naming each line', () => {
    const bad = `${A.slice(0, -1)}${A.endsWith('1') ? '2' : '1'}`;
    const error = refusal(`${bad} 5000\n\n${A}\n${B} 5000 extra\n`);
    expect(error.code).toBe('RECIPIENTS_INVALID');
    const problems = error.data['problems'] as string[];
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^line 1: .*not a Fuego address/);
    expect(problems[1]).toMatch(/^line 3: expected ADDRESS AMOUNT/);
    expect(problems[2]).toMatch(/^line 4: expected ADDRESS AMOUNT/);
  });

  it('refuses the same account twice, naming both lines', () => {
    const error = refusal(`${A} 2000\n${B} 1000\n${A} 2000\n`);
    expect(error.code).toBe('RECIPIENTS_INVALID');
    expect(error.data['problems']).toEqual([expect.stringMatching(/^line 3: .*already named on line 1/)]);
  });

  it('refuses an account the wallet record already names', () => {
    const error = refusal(`${A} 5000\n`, payment({ transfers: [{ address: A, amountAtomic: 7n }] }));
    expect(error.code).toBe('RECIPIENTS_INVALID');
    expect(error.data['problems']).toEqual([expect.stringMatching(/wallet's record/)]);
  });

  it('refuses an empty list', () => {
    expect(refusal('# nobody\n\n').code).toBe('RECIPIENTS_INVALID');
  });

  it('refuses a list for a payment whose wallet record names every recipient', () => {
    expect(refusal(`${A} 5000\n`, payment({ unnamedAtomic: 0n })).code).toBe('RECIPIENTS_NOT_NEEDED');
  });

  it('resolves an integrated account as the payout code does: the integrated address, or the standard one with the payment id', () => {
    const integrated = integratedMinerAddress('named-a', PAYMENT_ID);
    const withId = payment({ paymentId: PAYMENT_ID });
    expect(namedRecipientsFor(withId, `${integrated} 5000`)).toEqual([
      { address: integrated, amountAtomic: 5_000n },
    ]);
    expect(namedRecipientsFor(withId, `${A} 5000`)).toEqual([{ address: integrated, amountAtomic: 5_000n }]);
    // Both forms name the same account.
    expect(refusal(`${A} 2500\n${integrated} 2500`, withId).data['problems']).toEqual([
      expect.stringMatching(/^line 2: .*already named on line 1/),
    ]);
    // Another payment id, or one where the transaction carried none: not an account it paid.
    const other = integratedMinerAddress('named-a', 'cd'.repeat(32));
    expect(refusal(`${other} 5000`, withId).data['problems']).toEqual([expect.stringMatching(/payment id/)]);
    expect(refusal(`${integrated} 5000`).data['problems']).toEqual([expect.stringMatching(/payment id/)]);
  });
});
