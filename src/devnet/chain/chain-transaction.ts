import { CodecError } from '../../fuego/errors.js';
import { bytesToHex } from '../../fuego/hex.js';
import { parseTransaction, type Transaction, transactionHash } from '../../fuego/transaction.js';
import { depositInterestAtomic } from './deposit-interest.js';

/** A transaction waiting in the mempool or confirmed in a block. */
export interface ChainTransaction {
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly tx: Transaction;
  readonly feeAtomic: bigint;
  readonly amountOutAtomic: bigint;
  /** Total of multisignature (deposit) outputs. */
  readonly depositsAtomic: bigint;
}

/** What admission asks of the chain: whether a hash is known, and every key image spent so far. */
export interface AdmissionChain {
  isKnown(hashHex: string): boolean;
  spentKeyImages(): Set<string>;
}

/**
 * The devnet mempool's checks of a serialized transaction (parse, not known, no coinbase input,
 * some input, no double spend, outputs within inputs), and its fee and amounts when it passes.
 */
export function admitTransaction(
  bytes: Uint8Array,
  chain: AdmissionChain,
): { ok: true; tx: ChainTransaction } | { ok: false; reason: string } {
  let tx: Transaction;
  try {
    tx = parseTransaction(bytes);
  } catch (error) {
    if (error instanceof CodecError) return { ok: false, reason: `parse: ${error.message}` };
    throw error;
  }
  const hash = bytesToHex(transactionHash(bytes));
  if (chain.isKnown(hash)) return { ok: false, reason: 'already known' };
  let inputs = 0n;
  for (const input of tx.inputs) {
    if (input.kind === 'base') return { ok: false, reason: 'coinbase input outside a block' };
    // A deposit spend may also pay out the deposit's interest.
    inputs +=
      input.amount + (input.kind === 'multisignature' ? depositInterestAtomic(input.amount, input.term) : 0n);
  }
  if (tx.inputs.length === 0) return { ok: false, reason: 'no inputs' };
  const spent = chain.spentKeyImages();
  for (const input of tx.inputs) {
    if (input.kind === 'key' && spent.has(bytesToHex(input.keyImage)))
      return { ok: false, reason: 'double spend' };
  }
  let outputs = 0n;
  let deposits = 0n;
  for (const output of tx.outputs) {
    outputs += output.amount;
    if (output.kind === 'multisignature') deposits += output.amount;
  }
  if (outputs > inputs) return { ok: false, reason: 'outputs exceed inputs' };
  return {
    ok: true,
    tx: { hash, bytes, tx, feeAtomic: inputs - outputs, amountOutAtomic: outputs, depositsAtomic: deposits },
  };
}

export function addKeyImages(spent: Set<string>, tx: ChainTransaction): void {
  for (const input of tx.tx.inputs) if (input.kind === 'key') spent.add(bytesToHex(input.keyImage));
}
