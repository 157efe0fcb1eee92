/**
 * Static facts about the pool the API shows (from the config, assembled by the composition root):
 * plain data, no behaviour.
 */
export interface PoolPortInfo {
  readonly port: number;
  readonly difficulty: number;
  readonly varDiff: boolean;
  readonly tls: boolean;
  readonly solo: boolean;
  readonly description: string;
}

export interface PoolInfo {
  /** `pool.name`: also part of the messages miners sign to set their payout threshold. */
  readonly name: string;
  readonly ports: readonly PoolPortInfo[];
  readonly payments: {
    readonly scheme: 'pplns' | 'prop' | 'solo';
    /** PPLNS window as a multiple of the network difficulty; null for other schemes. */
    readonly pplnsWindowFactor: number | null;
    readonly feePercent: number;
    readonly soloFeePercent: number;
    readonly minPaymentAtomic: bigint;
    /** The highest payout threshold a miner may set (payments.payouts.maxThresholdCoins). */
    readonly maxThresholdAtomic: bigint;
    readonly intervalSeconds: number;
    readonly unlockDepth: number;
    readonly networkFeePaidBy: 'pool' | 'miners';
    /** The network fee of one payout transaction (classic API `transferFee`). */
    readonly transferFeeAtomic: bigint;
  };
  readonly coin: {
    readonly symbol: string;
    readonly decimals: number;
    readonly blockTargetSeconds: number;
  };
  /** Software version shown by the classic API. */
  readonly version: string;
}
