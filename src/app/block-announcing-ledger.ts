import type { BlockCandidate, ShareLedger } from '../model/share-ledger.js';
import type { PoolEventBus } from '../pool/events.js';

/**
 * The ledger, seen by the pool core, announcing each durable, not rejected candidate as
 * `block-found`, and a refused one once it is promoted (found on the chain after all); the leader
 * (here or, through the event relay, elsewhere) polls the daemon at once on it, so miners leave the
 * solved height without waiting for the next poll, and fixes the block's PPLNS window.
 */
export function announcingBlocks(ledger: ShareLedger, events: PoolEventBus): ShareLedger {
  const announce = (candidate: BlockCandidate): void =>
    events.publish('block-found', {
      height: candidate.height,
      hash: candidate.hash,
      finderAddress: candidate.share.address,
      solo: candidate.share.solo,
      timestampMs: candidate.timestampMs,
    });
  return {
    recordShare: (share) => ledger.recordShare(share),
    async recordBlockRefusal(candidate, reason) {
      const outcome = await ledger.recordBlockRefusal(candidate, reason);
      if (outcome === 'promoted') announce(candidate);
      return outcome;
    },
    async recordBlockCandidate(candidate) {
      await ledger.recordBlockCandidate(candidate);
      if (candidate.submitResult !== 'rejected') announce(candidate);
    },
  };
}
