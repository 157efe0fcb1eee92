import type { PayoutBatch } from '../../model/payouts/payout-batch.js';
import type { TaggedTransaction } from './batch-finder.js';

/** What an open batch becomes, decided from the wallet's records alone. */
export type Settlement =
  | { readonly kind: 'sent'; readonly tx: TaggedTransaction }
  | { readonly kind: 'rollback'; readonly fromState: 'prepared' | 'sending'; readonly reason: string }
  | { readonly kind: 'wait'; readonly note: string };

export interface SettlementContext {
  readonly nowMs: number;
  /** The wallet is within maxWalletLagBlocks of its daemon. */
  readonly synced: boolean;
  /** First wallet block index the scan read completely. */
  readonly scannedFromBlockIndex: number;
  /** Blocks before a batch's recorded wallet height that a scan must also have read. */
  readonly scanMarginBlocks: number;
  readonly unresolvedRollbackAfterMs: number;
}

/**
 * Settles one open batch:
 * - its tagged transaction relayed: sent (whatever the runner's earlier error said);
 * - its tagged transaction FAILED, CANCELLED or DELETED in the wallet: it never left, roll back;
 * - found but neither (built, not relayed): wait;
 * - not found, state prepared: the wallet was never called (mark_sending precedes the call), roll back;
 * - not found after a refusal known to come before broadcast: roll back;
 * - not found after an ambiguous send: wait, never resend, until it is certainly dead: the wallet
 *   synced, the range since the intent read, and unresolvedRollbackAfterMs (past the daemon
 *   mempool's lifetime) gone by.
 */
export function settleOpenBatch(
  batch: PayoutBatch,
  found: TaggedTransaction | undefined,
  context: SettlementContext,
): Settlement {
  const openState = batch.state === 'prepared' ? 'prepared' : 'sending';
  if (found !== undefined) {
    if (found.outcome === 'sent') return { kind: 'sent', tx: found };
    if (found.outcome === 'not-sent') {
      return {
        kind: 'rollback',
        fromState: openState,
        reason: `the wallet dropped its transaction ${found.txHash} (never relayed)`,
      };
    }
    return { kind: 'wait', note: `transaction ${found.txHash} is built but not relayed; waiting` };
  }
  if (batch.state === 'prepared') {
    return {
      kind: 'rollback',
      fromState: 'prepared',
      reason: 'never handed to the wallet (interrupted before the call)',
    };
  }
  if (batch.lastErrorKind === 'not-sent') {
    return { kind: 'rollback', fromState: 'sending', reason: `wallet refused: ${batch.lastError ?? ''}` };
  }
  const waitedMs = context.nowMs - (batch.sendingAtMs ?? batch.createdAtMs);
  const rangeRead =
    context.scannedFromBlockIndex <= Math.max(0, batch.walletBlockCount - context.scanMarginBlocks);
  if (context.synced && rangeRead && waitedMs >= context.unresolvedRollbackAfterMs) {
    return {
      kind: 'rollback',
      fromState: 'sending',
      reason: `not in the wallet ${Math.round(waitedMs / 1000)} s after an ambiguous send`,
    };
  }
  return { kind: 'wait', note: `outcome unknown (${batch.lastError ?? 'interrupted'}); waiting` };
}
