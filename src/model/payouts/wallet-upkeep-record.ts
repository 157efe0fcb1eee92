/**
 * What the wallet upkeep remembers across passes and processes (src/store/payments/wallet-upkeep-store.ts
 * on Redis): why the wallet needs consolidating, and the fusion transactions it sent whose joined
 * outputs are not spendable yet, so payouts wait for them even after a restart or a new leader.
 */

/** Why fusion transactions were sent. */
export type UpkeepTrigger = 'refusal' | 'share' | 'operator';

/** The wallet refused a payout for a reason that repeats until its outputs change. */
export interface UpkeepRequest {
  readonly reason: string;
  readonly atMs: number;
}

export interface SentFusion {
  readonly txHash: string;
  readonly sentAtMs: number;
  readonly trigger: UpkeepTrigger;
}

export interface WalletUpkeepRecord {
  getRequest(): Promise<UpkeepRequest | null>;
  /** Replaces any earlier request (the latest reason is the one worth logging). */
  setRequest(request: UpkeepRequest): Promise<void>;
  clearRequest(): Promise<void>;
  /** Fusions sent and not yet seen spendable, oldest first. */
  listFusions(): Promise<SentFusion[]>;
  addFusion(fusion: SentFusion): Promise<void>;
  removeFusions(txHashes: readonly string[]): Promise<void>;
}
