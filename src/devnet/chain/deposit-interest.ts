/**
 * Deposit rules shared by the chain and the wallet. Terms and the minimum are Fuego's (§3.3); the
 * interest is a devnet simplification, not Fuego's formula: a flat 5% of the principal per full
 * 16440-block term, paid on withdrawal.
 */
export const DEPOSIT_TERM_BLOCKS = 16440;
export const DEPOSIT_MIN_AMOUNT_ATOMIC = 8_000_000_000n;
const INTEREST_PERCENT_PER_TERM = 5n;

export function depositInterestAtomic(amountAtomic: bigint, term: number): bigint {
  return (amountAtomic * INTEREST_PERCENT_PER_TERM * BigInt(term)) / (100n * BigInt(DEPOSIT_TERM_BLOCKS));
}
