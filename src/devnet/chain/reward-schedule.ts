/**
 * The devnet's block reward, modelled on Fuego's emission: the base reward is the coins not yet
 * generated, shifted right by the emission speed factor. Fuego's total supply is 8,000,008.8000008 XFG
 * (80000088000008 atomic units); the genesis pays (supply >> 18) = 305176116 like the real testnet's
 * genesis, and from height 1 on the devnet uses the v9-era factor 20 (the real chain at height 15 pays
 * 76290900 with it). Fees of the block's transactions are added on top; there is no size penalty.
 */
export const MONEY_SUPPLY_ATOMIC = 80_000_088_000_008n;
export const GENESIS_EMISSION_SPEED_FACTOR = 18n;
export const EMISSION_SPEED_FACTOR = 20n;

export function baseRewardAtomic(alreadyGeneratedAtomic: bigint, height: number, premineAtomic = 0n): bigint {
  // A devnet premine (block 1) lets payouts be tested without mining for 60 blocks first.
  if (height === 1 && premineAtomic > 0n) return premineAtomic;
  const remaining = MONEY_SUPPLY_ATOMIC - alreadyGeneratedAtomic;
  if (remaining <= 0n) return 0n;
  return remaining >> (height === 0 ? GENESIS_EMISSION_SPEED_FACTOR : EMISSION_SPEED_FACTOR);
}

/**
 * Splits an amount into its non-zero decimal digits times powers of ten, smallest first (e.g.
 * 76290900 -> 900, 90000, 200000, 6000000, 70000000), as the daemon decomposes coinbase outputs.
 */
export function decomposeAmount(amountAtomic: bigint): bigint[] {
  const parts: bigint[] = [];
  let rest = amountAtomic;
  let unit = 1n;
  while (rest > 0n) {
    const digit = rest % 10n;
    if (digit !== 0n) parts.push(digit * unit);
    rest /= 10n;
    unit *= 10n;
  }
  return parts;
}
