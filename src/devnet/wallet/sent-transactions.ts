import { parseTransaction, type Transaction } from '../../fuego/transaction.js';

/** One entry of a record's `transfers`, as walletd lists them. */
export interface TransferRecord {
  readonly type: number;
  readonly address: string;
  readonly amount: bigint;
  readonly message: string;
}

/**
 * Where a transaction the wallet built stands: 'delayed' (createDelayedTransaction, not sent),
 * 'relayed' (the daemon took it), 'relay-failed' (the daemon did not), 'discarded' (a delayed one
 * deleted).
 */
export type SentPhase = 'delayed' | 'relayed' | 'relay-failed' | 'discarded';

/** What the wallet remembers of a transaction it built (the chain holds the bytes once broadcast). */
export interface SentTransaction {
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly feeAtomic: bigint;
  readonly transfers: readonly TransferRecord[];
  readonly netAtomic: bigint;
  readonly depositId: number | undefined;
  phase: SentPhase;
}

/** The transactions this wallet built, whatever became of them, oldest first. */
export class SentTransactions {
  readonly #byHash = new Map<string, SentTransaction>();

  add(sent: SentTransaction): void {
    this.#byHash.set(sent.hash, sent);
  }

  /** `hash` in lower case. */
  get(hash: string): SentTransaction | undefined {
    return this.#byHash.get(hash);
  }

  all(): SentTransaction[] {
    return [...this.#byHash.values()];
  }

  hashes(): string[] {
    return [...this.#byHash.keys()];
  }

  inPhase(phase: SentPhase): SentTransaction[] {
    return this.all().filter((sent) => sent.phase === phase);
  }
}

/** The transaction a record holds the bytes of (undefined if they do not parse). */
export function parseSent(sent: SentTransaction): Transaction | undefined {
  try {
    return parseTransaction(sent.bytes);
  } catch {
    return undefined;
  }
}
