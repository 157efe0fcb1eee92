import type { PaymentSchemeName } from './payment-scheme-name.js';
import { SchemeError } from './scheme-error.js';

/** What the unlocker does with the shares behind a block the chain orphaned. */
export interface OrphanedRoundRule {
  readonly scheme: PaymentSchemeName;
  /** Always false: an orphaned block's reward never existed, so it credits nobody (not even fees). */
  readonly creditOrphanedBlock: false;
  /**
   * - 'stay-in-window': do nothing; the shares are still in the PPLNS list and count for the next block.
   * - 'merge-into-current-round': add the orphaned round's contributions to the round in progress.
   * - 'none': there is nothing to carry over.
   */
  readonly roundShares: 'stay-in-window' | 'merge-into-current-round' | 'none';
  readonly reason: string;
}

const RULES: { readonly [S in PaymentSchemeName]: OrphanedRoundRule } = {
  pplns: {
    scheme: 'pplns',
    creditOrphanedBlock: false,
    roundShares: 'stay-in-window',
    reason:
      'PPLNS pays from a sliding window, not a round: the shares stay in the list and are paid by the next block that reaches them',
  },
  prop: {
    scheme: 'prop',
    creditOrphanedBlock: false,
    roundShares: 'merge-into-current-round',
    reason:
      'An orphan is network luck, not the miners’ fault: merging keeps their work payable by the next block, as PPLNS does, ' +
      'and as cryptonote-nodejs-pool did; dropping it would make PROP miners alone carry orphan risk',
  },
  solo: {
    scheme: 'solo',
    creditOrphanedBlock: false,
    roundShares: 'none',
    reason:
      'A solo miner is paid only for blocks of their own that the chain keeps, exactly as when mining alone',
  },
};

/** The decision for the unlocker: orphans never credit, and what happens to their shares per scheme. */
export function orphanedRoundRule(scheme: PaymentSchemeName): OrphanedRoundRule {
  const rule = Object.hasOwn(RULES, scheme) ? RULES[scheme] : undefined;
  if (rule === undefined) {
    throw new SchemeError('UNKNOWN_SCHEME', 'unknown payment scheme', { scheme: String(scheme) });
  }
  return rule;
}
