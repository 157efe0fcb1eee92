import type { BlockCandidate, ShareLedger } from '../model/share-ledger.js';
import { likelyCauseOf } from '../pool/block-refusal.js';
import type { PoolEventBus } from '../pool/events.js';

/**
 * The ledger, seen by the pool core, announcing each durable, not rejected candidate as
 * `block-found`, and a refused one once its diagnosis is recorded: as `block-found` (marked
 * `foundAfterRefusal`) when the diagnosis promotes it (found on the chain after all), as
 * `block-refused` with the reason when it only records why. Only the call that promoted it
 * announces it: a block the leader's unlocker promoted first comes back 'unchanged' here, and the
 * leader announces that one (and no refusal is announced for a block already found). The leader
 * (here or, through the event relay, elsewhere) polls the daemon at once on `block-found`, so
 * miners leave the solved height without waiting for the next poll, and fixes the block's PPLNS
 * window.
 *
 * `block-refused` comes after the reason is written, never before: the unlocker asks the chain
 * only about refusals left `unknown` (or never diagnosed), so a block announced refused for
 * another reason is not announced found later, and one announced `unknown` may be (both true).
 * A refusal whose record could not be written (the ledger failed) is announced by nothing; its
 * error lines tell it.
 *
 * `block-found` is at least once: the write that records (or promotes) the block marks it
 * unannounced, and the mark is cleared here after the publish (the relay's PUBLISH goes first on
 * the same Redis connection, so Redis has it before the clear). A process that dies between the
 * two leaves the mark, and the leader tells the block (unannounced-blocks.ts); one that dies after
 * the publish and before the clear makes it told twice, with the same facts.
 */
export function announcingBlocks(ledger: ShareLedger, events: PoolEventBus): ShareLedger {
  const blockFacts = (candidate: BlockCandidate) => ({
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
      if (outcome === 'promoted') {
        events.publish('block-found', { ...blockFacts(candidate), foundAfterRefusal: true });
        await ledger.markBlockAnnounced?.(candidate.hash);
      } else if (outcome === 'recorded' && reason !== 'already-on-chain')
        events.publish('block-refused', {
          ...blockFacts(candidate),
          reason,
          likelyCause: likelyCauseOf(reason),
        });
      return outcome;
    },
    async recordBlockCandidate(candidate) {
      await ledger.recordBlockCandidate(candidate);
      if (candidate.submitResult === 'rejected') return;
      events.publish('block-found', blockFacts(candidate));
      await ledger.markBlockAnnounced?.(candidate.hash);
    },
  };
}
