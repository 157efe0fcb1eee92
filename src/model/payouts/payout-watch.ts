/**
 * What the payout runner remembers beyond its batches, so that money it cannot account for is
 * never paid again and never silent (src/store/payments/payout-watch-store.ts on Redis).
 */

/**
 * A wallet transaction that carries the pool's batch tag but whose batch the journal does not
 * know: Redis lost the batch after the wallet paid (a failover, a restart without durable writes,
 * a restored backup). Its recipients are not paid again until the operator resolves it.
 */
export interface UnknownPayment {
  readonly txHash: string;
  readonly batchId: string;
  /** null while unconfirmed. */
  readonly blockIndex: number | null;
  /** "" or the payment id the transaction carried (the recipient's integrated address). */
  readonly paymentId: string;
  readonly feeAtomic: bigint;
  /** What left the wallet for addresses outside it (those the wallet's record names). */
  readonly transfers: ReadonlyArray<{ readonly address: string; readonly amountAtomic: bigint }>;
  /**
   * What left the wallet for outputs its record does not name: walletd rebuilt the record from
   * the chain after losing it (reset, older backup) and lists every foreign output as one transfer
   * with an empty address. Its recipients cannot be known, so no miner is paid while it is
   * unresolved. 0n for a record walletd built when it sent.
   */
  readonly unnamedAtomic: bigint;
  /**
   * Whom the operator named for `unnamedAtomic` when recording it as paid (`payout resolve TX
   * --paid --recipients FILE`): the accounts debited. Absent otherwise.
   */
  readonly namedRecipients?: readonly NamedRecipient[];
  readonly firstSeenMs: number;
  readonly status: 'unresolved' | 'recorded-as-paid' | 'dismissed';
  readonly resolvedAtMs: number | null;
  readonly resolvedNote: string | null;
}

/** A miner account and what an unknown payment paid it, as the operator named it. */
export interface NamedRecipient {
  readonly address: string;
  readonly amountAtomic: bigint;
}

/** Everything an unknown payment paid outside the wallet: its named transfers and the unnamed rest. */
export function unknownPaymentAmount(payment: UnknownPayment): bigint {
  return payment.transfers.reduce((sum, t) => sum + t.amountAtomic, payment.unnamedAtomic);
}

/** The first unresolved unknown payment whose recipients cannot be known (see `unnamedAtomic`). */
export function unresolvedUnnamedPayment(payments: readonly UnknownPayment[]): UnknownPayment | undefined {
  return payments.find((p) => p.status === 'unresolved' && p.unnamedAtomic > 0n);
}

/** A miner whose balance is due but was not paid in the last pass, and why. */
export interface HeldPayout {
  readonly address: string;
  readonly amountAtomic: bigint;
  readonly reason: string;
  /** When this miner was first held for this reason. */
  readonly sinceMs: number;
}

/**
 * After the wallet refused to build a transaction it will refuse again for a while ("MixIn count
 * is too big", "transaction too big"): no new batch until `untilMs`.
 */
export interface SendBackoff {
  readonly untilMs: number;
  readonly attempt: number;
  readonly reason: string;
  readonly sinceMs: number;
}

export interface PayoutWatch {
  /** Stores the payments not recorded yet (by tx hash); returns those that were new. */
  recordUnknownPayments(payments: readonly UnknownPayment[]): Promise<UnknownPayment[]>;
  /** Every unresolved unknown payment, newest first, then the newest resolved ones (bounded). */
  listUnknownPayments(): Promise<UnknownPayment[]>;
  /** Wallet block count below which every tagged transaction has been looked at. */
  getScanCursor(): Promise<number | null>;
  setScanCursor(blockCount: number): Promise<void>;
  /** Replaces the held list; returns the previous one. */
  replaceHeld(held: readonly HeldPayout[]): Promise<HeldPayout[]>;
  listHeld(): Promise<HeldPayout[]>;
  getBackoff(): Promise<SendBackoff | null>;
  setBackoff(backoff: SendBackoff): Promise<void>;
  clearBackoff(): Promise<void>;
}
