import type { BlockCandidate, ShareLedger } from '../model/share-ledger.js';
import type { PoolEventBus } from '../pool/events.js';

/**
 * The ledger, seen by the pool core, announcing each durable, not rejected candidate as
 * `block-found`, and a refused one once its diagnosis promotes it (found on the chain after all;
 * marked `foundAfterRefusal`). Only the call that promoted it announces it: a block the leader's
 * unlocker promoted first comes back 'unchanged' here, and the leader announces that one. The
 * leader (here or, through the event relay, elsewhere) polls the daemon at once on it, so miners
 * leave the solved height without waiting for the next poll, and fixes the block's PPLNS window.
 */
export function announcingBlocks(ledger: ShareLedger, events: PoolEventBus): ShareLedger {
  const announce = (candidate: BlockCandidate, foundAfterRefusal: boolean): void =>
    events.publish('block-found', {
      height: candidate.height,
      hash: candidate.hash,
      finderAddress: candidate.share.address,
      solo: candidate.share.solo,
      timestampMs: candidate.timestampMs,
      ...(foundAfterRefusal ? { foundAfterRefusal } : {}),
    });
  return {
    recordShare: (share) => ledger.recordShare(share),
    async recordBlockRefusal(candidate, reason) {
      const outcome = await ledger.recordBlockRefusal(candidate, reason);
      if (outcome === 'promoted') announce(candidate, true);
      return outcome;
    },
    async recordBlockCandidate(candidate) {
      await ledger.recordBlockCandidate(candidate);
      if (candidate.submitResult !== 'rejected') announce(candidate, false);
    },
  };
}
