/** A miner the payout runner may pay: its payable balance and what is already in a batch. */
export interface PayableBalance {
  readonly address: string;
  readonly balance: { readonly balance: bigint; readonly inPayout: bigint };
}

/** The balances the payout runner reads (src/store/payments/balances-store.ts on Redis). */
export interface PayableBalances {
  /** Miners whose balance is at least `minAtomic`, largest first, at most `limit`. */
  listPayable(minAtomic: bigint, limit: number): Promise<PayableBalance[]>;
}
