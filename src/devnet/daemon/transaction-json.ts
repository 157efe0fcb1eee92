import { bytesToHex } from '../../fuego/hex.js';
import { MINIMUM_FEE_ATOMIC } from '../../fuego/money.js';
import type { TransactionInput, TransactionOutput } from '../../fuego/transaction.js';
import type { ChainTransaction } from '../chain/chain-transaction.js';

/**
 * f_transaction_json's `tx` and `txDetails` of a transaction, as fuegod 1.9.3 writes them
 * (capture 75): the inputs and outputs with their amounts (input type "02" key, "03" deposit
 * spend, "ff" coinbase), and a `txDetails.fee` that is never below the minimum fee: fuegod
 * reports the minimum whenever inputs less outputs is below it (80000 for a transaction that
 * paid 1), 0 for no input amount. The fee paid is inputs less outputs, not that figure.
 */
export function transactionJson(found: ChainTransaction): { tx: unknown; txDetails: unknown } {
  const { tx } = found;
  const amountIn = tx.inputs.reduce((sum, input) => sum + (input.kind === 'base' ? 0n : input.amount), 0n);
  const amountOut = tx.outputs.reduce((sum, output) => sum + output.amount, 0n);
  const reportedFee =
    amountIn === 0n
      ? 0n
      : amountIn < amountOut + MINIMUM_FEE_ATOMIC
        ? MINIMUM_FEE_ATOMIC
        : amountIn - amountOut;
  return {
    tx: {
      extra: bytesToHex(tx.extra),
      unlock_time: tx.unlockTime,
      version: tx.version,
      vin: tx.inputs.map(inputJson),
      vout: tx.outputs.map(outputJson),
    },
    txDetails: {
      amount_out: found.amountOutAtomic,
      fee: reportedFee,
      hash: found.hash,
      size: found.bytes.length,
    },
  };
}

function inputJson(input: TransactionInput): unknown {
  switch (input.kind) {
    case 'base':
      return { type: 'ff', value: { height: input.blockIndex } };
    case 'key':
      return {
        type: '02',
        value: {
          amount: input.amount,
          k_image: bytesToHex(input.keyImage),
          key_offsets: input.outputIndexes,
        },
      };
    case 'multisignature':
      return {
        type: '03',
        value: {
          amount: input.amount,
          outputIndex: input.outputIndex,
          signatures: input.signatureCount,
          term: input.term,
        },
      };
  }
}

function outputJson(output: TransactionOutput): unknown {
  const target =
    output.kind === 'key'
      ? { data: { key: bytesToHex(output.key) }, type: '02' }
      : {
          data: {
            keys: output.keys.map(bytesToHex),
            required_signatures: output.requiredSignatureCount,
            term: output.term,
          },
          type: '03',
        };
  return { amount: output.amount, target };
}
