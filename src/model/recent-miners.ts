/**
 * The port through which a starting stratum process learns the payout addresses the pool saw
 * lately (store/hashrate/recent-miners-reader.ts implements it on the active-miners index), to
 * remember them before the miners behind them reconnect (pool/address-warmup.ts).
 */

export interface RecentMinersQuery {
  /** Miners whose last share is at or after this time (epoch ms). */
  readonly sinceMs: number;
  /** At most this many addresses in all. */
  readonly maxCount: number;
  /** At most this many per page (one bounded Redis read each). */
  readonly pageSize: number;
}

export interface RecentMinerAddresses {
  /**
   * The addresses as stored, unchecked, most recent last share first, a page at a time. Nothing
   * is validated here: the caller decodes each one and skips what does not decode.
   */
  pages(query: RecentMinersQuery): AsyncIterable<readonly string[]>;
}
