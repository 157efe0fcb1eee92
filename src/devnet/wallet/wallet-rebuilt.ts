import { bytesToHex } from '../../fuego/hex.js';
import type { Transaction } from '../../fuego/transaction.js';
import type { SentTransaction, TransferRecord } from './sent-transactions.js';

/** What a record says left or reached the wallet: its transfers and their sum over own addresses. */
export interface RecordMovement {
  readonly transfers: readonly TransferRecord[];
  readonly amount: bigint;
}

/**
 * The transfers walletd rebuilds for a transaction of its own it lost the record of (reset, older
 * backup) and finds again in the chain or its daemon's pool (WalletGreen::transactionUpdated:
 * insertBlockchainTransaction, then updateTransactionTransfers): for each of its own addresses
 * what its outputs put in (negative) and what came back to it (positive), all plain (type 0), and
 * one transfer with an EMPTY address for everything paid to outputs it cannot name. Destinations
 * and the change flag are gone: only the wallet that built it knew them. Its inputs are the ones
 * the built record lists (the wallet's own outputs it spent); a deposit's multisignature output
 * counts as an output it cannot name (deposits are not modelled here).
 */
export function rebuiltMovement(
  transaction: Transaction,
  sent: SentTransaction,
  own: { readonly addresses: readonly string[]; ownerOf(outputKeyHex: string): string | undefined },
): RecordMovement {
  const inputs = new Map<string, bigint>();
  for (const t of sent.transfers) {
    if (t.amount < 0n) inputs.set(t.address, (inputs.get(t.address) ?? 0n) + t.amount);
  }
  const outputs = new Map<string, bigint>();
  let unnamed = 0n;
  for (const output of transaction.outputs) {
    const owner = output.kind === 'key' ? own.ownerOf(bytesToHex(output.key)) : undefined;
    if (owner !== undefined && own.addresses.includes(owner)) {
      outputs.set(owner, (outputs.get(owner) ?? 0n) + output.amount);
    } else {
      unnamed += output.amount;
    }
  }
  const transfers: TransferRecord[] = [];
  let amount = 0n;
  for (const address of own.addresses) {
    for (const value of [inputs.get(address), outputs.get(address)]) {
      if (value === undefined || value === 0n) continue;
      transfers.push({ type: 0, address, amount: value, message: '' });
      amount += value;
    }
  }
  if (unnamed > 0n) transfers.push({ type: 0, address: '', amount: unnamed, message: '' });
  return { transfers, amount };
}
