import { keyTag } from '../key-tag.js';

/**
 * Redis key layout of the money side of one pool (balances, unlocker lists, payout batches). Every
 * key starts with the pool's `{<prefix>}` hash tag (key-tag.ts), like the share keys, so the
 * scripts may touch these keys and the share ledger's (`<p>:block:<hash>`, rounds) in one call, on
 * Redis Cluster too. `<p>` is the tagged prefix. Format: key - type - content - writer - retention.
 *
 * - `<p>:balance:<address>` - HASH - credited, balance, inPayout, paid, networkFees (atomic units,
 *   decimal integers). Invariant: credited = balance + inPayout + paid + networkFees - every
 *   balances/unlocker/payout script - kept.
 * - `<p>:balances:totals` - HASH - the same five fields summed over all miners, plus rewards
 *   (confirmed block rewards), poolFees (fees kept in the wallet: no fee address), adjustments
 *   (manual and orphan clawbacks / credit backs, signed), poolNetworkFees (network fees the pool paid, signed: batches sent before fee
 *   refunds kept miners' surplus), blocksConfirmed, blocksOrphaned; positiveBalance (the sum of
 *   the payable index's scores: the balances above zero, what /metrics reports as owed; written
 *   first by a reader that summed the index, store_positive_balance, absent before) and
 *   payableVersion (moves at every change of an index score, so such a reader can tell the index
 *   stood still while it summed it).
 *   Invariants: rewards + adjustments = credited + poolFees; positiveBalance, when present, = the
 *   sum of the payable index's scores (the scripts drop it rather than keep it inexact past 2^53)
 *   - same scripts - kept.
 * - `<p>:balances:payable` - ZSET - score balance, member address, only balances > 0: the payout
 *   runner's index (no KEYS scans) - same scripts - kept.
 * - `<p>:history:<address>` - STREAM - one entry per balance change: r reason (block-credit,
 *   pool-fee, payout-debit, payout-sent, payout-rollback, payout-late-found, payout-adopted
 *   (an unknown tagged transaction the operator recorded as paid), payout-reverted (a sent
 *   transaction the wallet dropped unmined), payout-fee-refund (mark_sent gives back the part of a
 *   miner's fee share above its part of the fee the wallet paid, or settle_fee when that fee was
 *   read later; negative when revert_sent takes it back), adjustment, orphan-clawback (negative:
 *   what settle_orphaned_block took back of a block a deep reorg orphaned after its credit, ref the
 *   block hash), orphan-credit-back (what credit_back_clawback gave back of it once a later reorg
 *   restored the block)), a signed
 *   amount, ref (block hash / batch id / note), b balance after, t timestamp ms - same scripts -
 *   MAXLEN ~ historyMaxLength.
 * - `<p>:payments:<address>` - LIST - JSON of each payment sent to the miner, newest first:
 *   batchId, txHash, amountAtomic, networkFeeAtomic (the miner's share of the fee the wallet paid:
 *   its fee share less the refund), timestampMs - mark_sent (settle_fee sets networkFeeAtomic
 *   in place when the fee was read later) - LTRIM to paymentsMaxLength.
 * - `<p>:block:<hash>:credits` - HASH - address -> atomic units credited for that block -
 *   credit_block - kept (audit; replaces the weights it was split by, the closed round and the
 *   PPLNS window, which credit/orphan delete).
 * - `<p>:blocks:confirmed` / `<p>:blocks:orphaned` - ZSET - score height, member hash - the
 *   unlocker moves candidates here from `<p>:blocks:candidates` - kept.
 * - `<p>:blocks:orphaned-after-credit` - ZSET - score height, member hash: confirmed (credited)
 *   blocks the unlocker's reorg watch later found replaced at their height; they stay in
 *   `<p>:blocks:confirmed` and their credits stand until the operator settles them; a later reorg
 *   that restores one unsettled takes it off - flag_orphaned_after_credit adds,
 *   settle_orphaned_block and note_restored_block remove; note_reorphaned_block adds a credited-back
 *   block replaced again.
 * - `<p>:blocks:orphaned-after-credit:settled` - ZSET - score height, member hash: flagged blocks the
 *   operator settled (`fuego-pool block settle`: absorbed or clawed back) - settle_orphaned_block adds;
 *   note_reorphaned_block moves a credited-back one replaced again back to the flagged set.
 * - `<p>:blocks:restored-after-clawback` - ZSET - score height, member hash: blocks clawed back
 *   whose hash a later reorg put back on the main chain: their miners are owed the clawback again
 *   (`fuego-pool block settle HASH --credit-back`) - note_restored_block adds, credit_back_clawback
 *   and note_reorphaned_block (replaced again: nothing is owed any more) remove.
 * - `<p>:blocks:orphaned-back-on-chain` - ZSET - score height, member hash: blocks decided orphaned
 *   whose hash a reorg deeper than confirmDepth put back on the main chain and that could not be
 *   credited as at the find (a PROP round merged into the next one; no kept PPLNS window): their
 *   reward is in the wallet, owed to nobody by the ledger (`fuego-pool report`) -
 *   reinstate_orphaned_block adds when it notes one, removes when it makes one pending again - kept.
 * - `<p>:block:<hash>:clawback` - HASH - address -> atomic units settle_orphaned_block debited from
 *   that miner for the block (0 when its balance had nothing left) - kept (audit, and credit back),
 *   emptied by note_reorphaned_block when a block credited back is replaced again (flagged again:
 *   its next settlement writes its own).
 * - `<p>:block:<hash>:clawback:credited-back` - HASH - address -> atomic units the earlier
 *   settlements of the block clawed back and credited back (note_reorphaned_block adds each
 *   account's emptied clawback record) - kept (audit).
 * - `<p>:unlocker:reorg-audit:last-run` - STRING - ms timestamp at which the leader's last reorg
 *   audit (credited blocks below the watch window) started, so the interval holds across a restart
 *   or a failover - claim_reorg_audit (fenced) - kept.
 * - `<p>:payout:batch:<id>` - HASH - one payout batch (see payout-store.ts) - payout scripts - kept.
 * - `<p>:payout:batches` - ZSET - score createdAtMs, member batch id: every batch - kept.
 * - `<p>:payout:batches:open` - ZSET - batches in state prepared or sending - payout scripts.
 * - `<p>:payout:batches:failed` - ZSET - score failedAtMs: batches rolled back - kept.
 * - `<p>:payout:batches:unconfirmed` - ZSET - score sentAtMs: sent batches whose transaction is not
 *   deep in the chain yet - mark_sent adds, confirm_sent / revert_sent remove.
 * - `<p>:payout:batches:wallet-missing` - ZSET - score sinceMs: sent batches whose transaction the
 *   wallet answered 29 "Object not found" for at their last read (reset, or restored from an older
 *   backup) - mark_wallet_missing adds and removes, confirm_sent / revert_sent remove.
 * - `<p>:payout:txs` - HASH - transaction hash -> batch id of every sent batch - kept.
 * - `<p>:payout:last-run` - STRING - ms timestamp of the last finished payout run - the runner.
 * - `<p>:payout:unknown` - HASH - tx hash -> JSON of a wallet transaction with the pool's batch tag
 *   whose batch Redis does not know (see payout-watch-store.ts) - the runner adds, the operator's
 *   resolve script settles - kept.
 * - `<p>:payout:scan-cursor` - STRING - wallet block count below which every tagged transaction
 *   was checked - the runner.
 * - `<p>:payout:held` - STRING - JSON list of miners due but not paid in the last pass, and why -
 *   the runner, replaced each pass.
 * - `<p>:payout:backoff` - STRING - JSON of the pause after the wallet refused to build a
 *   transaction - the runner.
 * - `<p>:payout:upkeep-request` - STRING - JSON {reason, atMs}: the wallet refused a payout for a
 *   reason that repeats, so its outputs need consolidating - the runner's onRepeatingRefusal sets
 *   it, the wallet upkeep clears it once it has tried (wallet-upkeep-store.ts).
 * - `<p>:payout:fusions` - HASH - tx hash -> JSON {sentAtMs, trigger} of each fusion transaction
 *   the wallet upkeep sent whose joined outputs are not spendable yet: payouts wait while one is
 *   listed - the upkeep adds after each send and removes once spendable or dropped.
 * - `<p>:payout:thresholds` - HASH - miners' own payout thresholds and the timestamp of their last
 *   signed setting - miner-thresholds.ts (its own module; no money script touches it) - kept.
 * - `<p>:payout:lock` - STRING - random token of the process running payouts, PX expiry - SET NX;
 *   every payout script refuses to write unless it still holds it.
 * - `<p>:leader:token` - STRING - fencing token of the elected leader (written by the leader
 *   election, a later issue); a script given a non-empty token refuses unless it equals this.
 *
 * An address never contains ':' (base58), so `balance:<address>` is unambiguous.
 */
export interface PaymentKeys {
  readonly tag: string;
  balance(address: string): string;
  readonly totals: string;
  readonly payable: string;
  history(address: string): string;
  payments(address: string): string;
  blockCredits(blockHash: string): string;
  readonly blocksConfirmed: string;
  readonly blocksOrphaned: string;
  readonly blocksOrphanedAfterCredit: string;
  readonly blocksOrphanSettled: string;
  readonly blocksRestoredAfterClawback: string;
  readonly blocksOrphanedBackOnChain: string;
  blockClawback(blockHash: string): string;
  blockClawbackCreditedBack(blockHash: string): string;
  readonly reorgAuditLastRun: string;
  batch(batchId: string): string;
  readonly batches: string;
  readonly batchesOpen: string;
  readonly batchesFailed: string;
  readonly batchesUnconfirmed: string;
  readonly batchesWalletMissing: string;
  readonly payoutTransactions: string;
  readonly payoutLastRun: string;
  readonly payoutUnknown: string;
  readonly payoutScanCursor: string;
  readonly payoutHeld: string;
  readonly payoutBackoff: string;
  readonly payoutUpkeepRequest: string;
  readonly payoutFusions: string;
  readonly payoutThresholds: string;
  readonly payoutLock: string;
  readonly leaderToken: string;
}

/** Builds the money keys of one pool from its configured prefix (validated by keyTag). */
export function createPaymentKeys(prefix: string): PaymentKeys {
  const tag = keyTag(prefix);
  return Object.freeze({
    tag,
    balance: (address: string) => `${tag}:balance:${address}`,
    totals: `${tag}:balances:totals`,
    payable: `${tag}:balances:payable`,
    history: (address: string) => `${tag}:history:${address}`,
    payments: (address: string) => `${tag}:payments:${address}`,
    blockCredits: (blockHash: string) => `${tag}:block:${blockHash}:credits`,
    blocksConfirmed: `${tag}:blocks:confirmed`,
    blocksOrphaned: `${tag}:blocks:orphaned`,
    blocksOrphanedAfterCredit: `${tag}:blocks:orphaned-after-credit`,
    blocksOrphanSettled: `${tag}:blocks:orphaned-after-credit:settled`,
    blocksRestoredAfterClawback: `${tag}:blocks:restored-after-clawback`,
    blocksOrphanedBackOnChain: `${tag}:blocks:orphaned-back-on-chain`,
    blockClawback: (blockHash: string) => `${tag}:block:${blockHash}:clawback`,
    blockClawbackCreditedBack: (blockHash: string) => `${tag}:block:${blockHash}:clawback:credited-back`,
    reorgAuditLastRun: `${tag}:unlocker:reorg-audit:last-run`,
    batch: (batchId: string) => `${tag}:payout:batch:${batchId}`,
    batches: `${tag}:payout:batches`,
    batchesOpen: `${tag}:payout:batches:open`,
    batchesFailed: `${tag}:payout:batches:failed`,
    batchesUnconfirmed: `${tag}:payout:batches:unconfirmed`,
    batchesWalletMissing: `${tag}:payout:batches:wallet-missing`,
    payoutTransactions: `${tag}:payout:txs`,
    payoutLastRun: `${tag}:payout:last-run`,
    payoutUnknown: `${tag}:payout:unknown`,
    payoutScanCursor: `${tag}:payout:scan-cursor`,
    payoutHeld: `${tag}:payout:held`,
    payoutBackoff: `${tag}:payout:backoff`,
    payoutUpkeepRequest: `${tag}:payout:upkeep-request`,
    payoutFusions: `${tag}:payout:fusions`,
    payoutThresholds: `${tag}:payout:thresholds`,
    payoutLock: `${tag}:payout:lock`,
    leaderToken: `${tag}:leader:token`,
  });
}
