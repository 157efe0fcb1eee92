import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { transactionFeeAtomic } from '../../src/rpc/transaction-fee.js';

const captured = JSON.parse(
  readFileSync(
    new URL('../fixtures/fuegod-rpc/75-f_transaction_json-fee1-tx-mined.response.body', import.meta.url),
    'utf8',
  ),
) as { result: { tx: { vin: Array<{ type: string; value: Record<string, unknown> }>; vout: unknown[] } } };

describe('the fee of a transaction read from its body', () => {
  it('is its inputs less its outputs (capture 75: 1, where txDetails.fee says 80000)', () => {
    expect(transactionFeeAtomic(captured.result.tx)).toBe(1n);
  });

  it('is unknown when the body cannot tell', () => {
    const { tx } = captured.result;
    const [first, ...rest] = tx.vin;
    const withInput = (input: unknown) => ({ ...tx, vin: [input, ...rest] });
    expect(transactionFeeAtomic(undefined)).toBeNull();
    expect(transactionFeeAtomic({ extra: '01' })).toBeNull();
    expect(transactionFeeAtomic({ ...tx, vin: [] })).toBeNull();
    // A deposit spend also pays out interest its body does not show.
    expect(
      transactionFeeAtomic(withInput({ type: '03', value: { ...first!.value, term: 21900 } })),
    ).toBeNull();
    expect(transactionFeeAtomic(withInput({ type: 'ff', value: { height: 64 } }))).toBeNull();
    expect(
      transactionFeeAtomic(withInput({ ...first, value: { ...first!.value, amount: 2 ** 60 } })),
    ).toBeNull();
    // Outputs above inputs.
    expect(transactionFeeAtomic(withInput({ ...first, value: { ...first!.value, amount: 1 } }))).toBeNull();
  });
});
