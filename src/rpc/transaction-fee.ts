import { transactionAmountsSchema } from './daemon-schemas.js';

/** f_transaction_json's input type of a key input (one spending ordinary outputs). */
const KEY_INPUT = '02';

/**
 * The fee a transaction paid, in atomic units, from the body f_transaction_json returns (`tx`):
 * its inputs' amounts less its outputs'. Not `txDetails.fee`: fuegod reports the minimum fee there
 * whenever inputs less outputs is below it (capture 75 says 80000 for a transaction that paid 1).
 * Null when the body cannot tell: absent or of another shape, an input other than a key input (a
 * deposit spend also pays out interest the body does not show; a coinbase pays no fee), an amount
 * beyond 2^53 (JSON numbers lose such precision), or outputs above inputs.
 */
export function transactionFeeAtomic(tx: unknown): bigint | null {
  const parsed = transactionAmountsSchema.safeParse(tx);
  if (!parsed.success || parsed.data.vin.length === 0) return null;
  let inputs = 0n;
  for (const input of parsed.data.vin) {
    const amount = input.value.amount;
    if (input.type !== KEY_INPUT || amount === undefined || !Number.isSafeInteger(amount)) return null;
    inputs += BigInt(amount);
  }
  let outputs = 0n;
  for (const output of parsed.data.vout) {
    if (!Number.isSafeInteger(output.amount)) return null;
    outputs += BigInt(output.amount);
  }
  return inputs >= outputs ? inputs - outputs : null;
}
