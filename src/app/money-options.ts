import type { PaymentsConfig, PayoutConfig, UnlockerConfig } from '../config/payments-schema.js';
import { percentToBasisPoints } from '../config/payments-schema.js';
import { parseCoins } from '../fuego/money.js';
import type { PayoutRunnerOptions } from '../leader/payouts/payout-runner.js';
import type { WalletUpkeepOptions } from '../leader/payouts/wallet-upkeep.js';
import type { BlockUnlockerOptions } from '../leader/unlocker/block-unlocker.js';
import { poolIdOf } from '../pool/payouts/batch-tag.js';
import type { FeePolicy } from '../pool/schemes/types.js';

/**
 * The money services' options from the validated config: the one place where `payments` is turned
 * into what the unlocker and the payout runner take. Every default is the config schema's.
 */

/** The schemes' fee policies (pool blocks and solo blocks). */
export function feePoliciesFrom(config: UnlockerConfig): { pool: FeePolicy; solo: FeePolicy } {
  const bp = (value: number | string): number => {
    const converted = percentToBasisPoints(value);
    if (converted === null) throw new RangeError('unvalidated percentage');
    return converted;
  };
  const feeAddress = config.feeAddress === undefined ? {} : { feeAddress: config.feeAddress };
  const pool: FeePolicy = {
    poolFeeBasisPoints: bp(config.poolFeePercent),
    finderBonusBasisPoints: bp(config.finderBonusPercent),
    ...feeAddress,
  };
  const solo: FeePolicy = {
    poolFeeBasisPoints: bp(config.soloFeePercent ?? config.poolFeePercent),
    finderBonusBasisPoints: 0,
    ...feeAddress,
  };
  return { pool, solo };
}

export function minPayoutAtomicOf(config: PayoutConfig): bigint {
  return parseCoins(config.minPayoutCoins);
}

/** The cap of miners' own payout thresholds (`maxThresholdCoins`), atomic. */
export function maxThresholdAtomicOf(config: PayoutConfig): bigint {
  return parseCoins(config.maxThresholdCoins);
}

export function unlockerOptionsFrom(payments: PaymentsConfig): BlockUnlockerOptions {
  return {
    scheme: payments.scheme,
    fee: feePoliciesFrom(payments),
    confirmDepth: payments.confirmDepth,
    reorgWatchBlocks: payments.reorgWatchBlocks,
    reorgAuditBlocks: payments.reorgAuditBlocks,
    reorgAuditIntervalMs: payments.reorgAuditIntervalSec * 1000,
    pplnsWindowFactor: payments.pplnsWindowFactor,
    emptyRound: payments.emptyRound,
  };
}

export function payoutRunnerOptionsFrom(payments: PaymentsConfig, keyPrefix: string): PayoutRunnerOptions {
  const payouts = payments.payouts;
  return {
    poolId: poolIdOf(keyPrefix),
    minPayoutAtomic: minPayoutAtomicOf(payouts),
    maxTransfersPerTransaction: payouts.maxTransfersPerTransaction,
    networkFeeAtomic: BigInt(payouts.networkFeeAtomic),
    feePaidBy: payouts.feePaidBy,
    walletChangeAddress: payouts.changeAddress,
    anonymity: payouts.anonymity,
    maxWalletLagBlocks: payouts.maxWalletLagBlocks,
    maxBatchesPerRun: payouts.maxBatchesPerRun,
    unresolvedRollbackAfterMs: payouts.unresolvedRollbackAfterSec * 1000,
    recoveryScanBlocks: payouts.recoveryScanBlocks,
    lockTtlMs: payouts.lockTtlSec * 1000,
    requireDurableWrites: payouts.requireDurableRedis,
    refusalBackoff: {
      firstDelayMs: payouts.refusalBackoffSec * 1000,
      maxDelayMs: payouts.refusalBackoffMaxSec * 1000,
    },
  };
}

export function walletUpkeepOptionsFrom(payouts: PayoutConfig): WalletUpkeepOptions {
  const upkeep = payouts.walletUpkeep;
  return {
    enabled: upkeep.enabled,
    thresholdAtomic: parseCoins(upkeep.thresholdCoins),
    readyShare: upkeep.readyShare,
    maxFusionsPerRun: upkeep.maxFusionsPerRun,
    // The joined outputs go where the payouts' change goes.
    walletChangeAddress: payouts.changeAddress,
    lockTtlMs: payouts.lockTtlSec * 1000,
  };
}
