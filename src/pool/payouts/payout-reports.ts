import type { PayoutBatch } from '../../model/payouts/payout-batch.js';
import type { UnknownPayment } from '../../model/payouts/payout-watch.js';
import type { UpkeepTrigger } from '../../model/payouts/wallet-upkeep-record.js';
import type { FusionEstimate } from '../../rpc/wallet-schemas.js';
import type { FuegodAnswer } from './unmined-payouts.js';

/**
 * What the leader's money passes report: a payout pass (PayoutRunSummary) and a wallet upkeep run
 * (UpkeepReport). The control socket and the CLI show them; the leader layer produces them.
 */

/** One batch as a pass reports it. */
export interface BatchReport {
  readonly batchId: string;
  readonly state: PayoutBatch['state'] | 'planned';
  readonly recipients: number;
  readonly amountAtomic: bigint;
  readonly txHash: string | null;
  /** The network fee the batch was planned with. */
  readonly networkFeeAtomic: bigint;
  readonly note: string;
}

/**
 * `wallet-upkeep`: the pass did not run while fusion transactions are pending (payout-pass.ts).
 * `unknown-recipients`: an unresolved unknown payment names no recipients (walletd rebuilt its
 * record from the chain), so any miner may have been paid by it: nobody is paid until it is resolved.
 */
export type PayoutSkipReason =
  | 'locked'
  | 'not-leader'
  | 'wallet-unhealthy'
  | 'redis-not-durable'
  | 'backoff'
  | 'wallet-upkeep'
  | 'unknown-recipients';

/** Why a pass stopped paying new batches. */
export interface PassStop {
  readonly skipped: PayoutSkipReason;
  readonly detail: string;
}

export interface PayoutRunSummary {
  /** Why no new batch was paid, if so (recovery may still have run). */
  readonly skipped: PayoutSkipReason | null;
  readonly detail: string;
  readonly recovered: readonly BatchReport[];
  readonly batches: readonly BatchReport[];
  readonly stillOpen: readonly BatchReport[];
  /** Miners due but not paid in this pass, and why (also kept in the watch list and logged). */
  readonly skippedMiners: ReadonlyArray<{ readonly address: string; readonly reason: string }>;
  /** Tagged wallet transactions Redis had no batch for, first seen in this pass. */
  readonly unknownPayments: readonly UnknownPayment[];
  /** Sent batches this pass marked wallet-missing (the wallet has no record of their transaction). */
  readonly walletMissing: readonly WalletMissingReport[];
  /** Sent batches not mined hours after their send that this pass told (fuegod answered), once each. */
  readonly unmined: readonly UnminedReport[];
}

/** A sent batch as the pass that marked it wallet-missing reports it (once per batch). */
export interface WalletMissingReport {
  readonly batchId: string;
  readonly txHash: string;
  readonly recipients: number;
  readonly amountAtomic: bigint;
  /** When the batch was recorded sent. */
  readonly sentAtMs: number;
}

/** A sent batch not mined UNMINED_AFTER_MS after its send, as the pass that told it reports it. */
export interface UnminedReport {
  readonly batchId: string;
  readonly txHash: string;
  readonly recipients: number;
  readonly amountAtomic: bigint;
  readonly sentAtMs: number;
  /** How long after its send fuegod was asked. */
  readonly ageMs: number;
  readonly sighting: FuegodAnswer;
  /** What to do, as `fuego-pool report` says it (unminedAdvice). */
  readonly advice: string;
}

/**
 * What one run found or did:
 * - `pending`: fusion transactions whose joined outputs are not spendable yet (`pending`): payouts
 *   wait, or the wallet would refuse them for lack of funds, or build them from the old outputs;
 * - `idle`: nothing to wait for (and nothing sent, or nothing needed);
 * - `deferred`: consolidation is wanted but not possible now (a payout batch is open, the payout
 *   lock is held, the wallet is not synced or failed): tried again next run.
 */
export interface UpkeepReport {
  readonly state: 'idle' | 'pending' | 'deferred';
  readonly detail: string;
  /** Why fusions were wanted in this run; null when they were not. */
  readonly trigger: UpkeepTrigger | null;
  /** The wallet's last estimateFusion under the threshold in this run, if read. */
  readonly estimate: FusionEstimate | null;
  /** Fusion transactions sent in this run. */
  readonly sent: readonly string[];
  /** Earlier fusions found spendable in this run. */
  readonly confirmed: readonly string[];
  /** Fusions not spendable yet, those sent in this run included. */
  readonly pending: readonly string[];
}
