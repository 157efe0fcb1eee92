import type { UncreditedReason } from './unlock-ledger.js';

/**
 * What an orphaned block back on the main chain and not credited means, in the operator's words:
 * why the ledger does not credit it, and what to do about its reward (in the pool's wallet, owed
 * to nobody by the ledger). The notification and `fuego-pool report` say the same.
 */
export const UNCREDITED_BACK_ON_CHAIN: {
  readonly [R in UncreditedReason]: { readonly why: string; readonly advice: string };
} = {
  'round-merged': {
    why: 'PROP round merged into the next',
    advice:
      "its round's shares were paid by the next block when it was orphaned: its reward is pool surplus in the wallet, nothing is owed",
  },
  'no-window': {
    why: 'no kept PPLNS window',
    advice:
      'an older version orphaned it and kept no PPLNS window: its miners are owed its reward, less the pool fee; split it by their shares before the block and credit each by hand (fuego-pool balance adjust ADDRESS --credit XFG --note TEXT)',
  },
};
