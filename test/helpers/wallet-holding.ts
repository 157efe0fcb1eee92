/** A wallet whose getBalance answers `availableAtomic` available and nothing locked (for the money report). */
export function walletHolding(availableAtomic: bigint) {
  return {
    getBalance: async () => ({
      availableBalance: Number(availableAtomic),
      lockedAmount: 0,
      lockedDepositBalance: 0,
      unlockedDepositBalance: 0,
    }),
  };
}
