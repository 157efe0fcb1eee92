import { describe, expect, it } from 'vitest';
import { checkConfigAddresses } from '../../src/app/config-addresses.js';
import { confirmDepthWarning } from '../../src/app/leader-role.js';
import {
  feePoliciesFrom,
  maxThresholdAtomicOf,
  walletUpkeepOptionsFrom,
} from '../../src/app/money-options.js';
import { unlockNeedsDaemonPeers } from '../../src/app/network.js';
import { parseConfig } from '../../src/config/load-config.js';
import { percentToBasisPoints, unlockerConfigFields } from '../../src/config/payments-schema.js';
import { SYNCING_TOLERANCE_BLOCKS } from '../../src/leader/unlocker/daemon-chain-trust.js';
import { integratedMinerAddress, minerAddress } from '../leader/payouts/payout-test-kit.js';

const MINERS = [minerAddress('options-0')];
const parsePaymentsConfig = (payments: unknown) => parseConfig({ payments }).payments;

describe('payments config', () => {
  it('unlockNeedsDaemonPeers: on by default on mainnet and testnet, off on the devnet; as set when set', () => {
    expect(unlockNeedsDaemonPeers('mainnet', undefined)).toBe(true);
    expect(unlockNeedsDaemonPeers('testnet', undefined)).toBe(true);
    expect(unlockNeedsDaemonPeers('devnet', undefined)).toBe(false);
    expect(unlockNeedsDaemonPeers('mainnet', false)).toBe(false);
    expect(unlockNeedsDaemonPeers('devnet', true)).toBe(true);
    expect(parsePaymentsConfig({}).unlockNeedsDaemonPeers).toBeUndefined();
    // The description states the unlocker's syncing tolerance (config cannot import the leader).
    expect(unlockerConfigFields.unlockNeedsDaemonPeers.description).toContain(
      `at most ${SYNCING_TOLERANCE_BLOCKS} above its own`,
    );
  });

  it('converts percentages to basis points exactly', () => {
    expect(percentToBasisPoints(1.25)).toBe(125);
    expect(percentToBasisPoints('0.5')).toBe(50);
    expect(percentToBasisPoints(100)).toBe(10_000);
    expect(percentToBasisPoints(0.125)).toBeNull();
    expect(percentToBasisPoints(-1)).toBeNull();
    expect(percentToBasisPoints(100.01)).toBeNull();
    const config = parsePaymentsConfig({ poolFeePercent: 1.5, feeAddress: MINERS[0] });
    expect(feePoliciesFrom(config)).toEqual({
      pool: { poolFeeBasisPoints: 150, finderBonusBasisPoints: 0, feeAddress: MINERS[0] },
      solo: { poolFeeBasisPoints: 150, finderBonusBasisPoints: 0, feeAddress: MINERS[0] },
    });
    expect(config.payouts).toMatchObject({
      minPayoutCoins: '1',
      maxThresholdCoins: '1000',
      maxTransfersPerTransaction: 15,
      feePaidBy: 'pool',
    });
  });

  it.each([
    [{ poolFeePercent: 101 }, 'payments.poolFeePercent:'],
    [{ finderBonusPercent: 1.234 }, 'payments.finderBonusPercent:'],
    [{ scheme: 'pps' }, 'payments.scheme:'],
    [{ payouts: { minPayoutCoins: '-1' } }, 'payments.payouts.minPayoutCoins:'],
    [{ payouts: { maxTransfersPerTransaction: 0 } }, 'payments.payouts.maxTransfersPerTransaction:'],
    [{ confirmDepth: -5 }, 'payments.confirmDepth:'],
    [{ unlockNeedsDaemonPeers: 'yes' }, 'payments.unlockNeedsDaemonPeers:'],
    [{ payouts: { feePaidBy: 'miners', minPayoutCoins: '0.001' } }, 'payments.payouts.minPayoutCoins:'],
    [{ payouts: { minPayoutCoins: '10', maxThresholdCoins: '9.9' } }, 'payments.payouts.maxThresholdCoins:'],
    [{ payouts: { maxThresholdCoins: '1e3' } }, 'payments.payouts.maxThresholdCoins:'],
    [
      { payouts: { unresolvedRollbackAfterSec: 3_600 } },
      'payments.payouts.unresolvedRollbackAfterSec: must be at least 86400',
    ],
    [
      { payouts: { refusalBackoffSec: 600, refusalBackoffMaxSec: 60 } },
      'payments.payouts.refusalBackoffMaxSec:',
    ],
    [
      { payouts: { walletUpkeep: { thresholdCoins: '0.002' } } },
      'payments.payouts.walletUpkeep.thresholdCoins:',
    ],
    [
      { payouts: { walletUpkeep: { thresholdCoins: 'lots' } } },
      'payments.payouts.walletUpkeep.thresholdCoins:',
    ],
    [{ payouts: { walletUpkeep: { readyShare: 0 } } }, 'payments.payouts.walletUpkeep.readyShare:'],
    [{ payouts: { walletUpkeep: { readyShare: 1.5 } } }, 'payments.payouts.walletUpkeep.readyShare:'],
    [
      { payouts: { walletUpkeep: { maxFusionsPerRun: 0 } } },
      'payments.payouts.walletUpkeep.maxFusionsPerRun:',
    ],
    [{ payouts: { walletUpkeep: { every: 1 } } }, 'payments.payouts.walletUpkeep.every: unknown key'],
    [{ typo: 1 }, 'payments.typo: unknown key'],
  ])('rejects %j naming the key', (input, key) => {
    expect(() => parsePaymentsConfig(input)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining(key) }),
    );
  });

  it("takes a cap of miners' thresholds equal to the minimum (miners then cannot raise theirs)", () => {
    const payouts = parsePaymentsConfig({ payouts: { minPayoutCoins: '5', maxThresholdCoins: '5' } }).payouts;
    expect(maxThresholdAtomicOf(payouts)).toBe(50_000_000n);
    expect(maxThresholdAtomicOf(parsePaymentsConfig({}).payouts)).toBe(10_000_000_000n);
  });

  it('takes a short rollback delay only with the explicit override, and an integrated fee address', () => {
    expect(
      parsePaymentsConfig({ payouts: { unresolvedRollbackAfterSec: 60, allowEarlyUnresolvedRollback: true } })
        .payouts.unresolvedRollbackAfterSec,
    ).toBe(60);
    const integrated = integratedMinerAddress('options-fee', 'ab'.repeat(32));
    expect(() => checkConfigAddresses(parseConfig({ payments: { feeAddress: integrated } }))).not.toThrow();
    expect(() =>
      checkConfigAddresses(parseConfig({ payments: { payouts: { changeAddress: integrated } } })),
    ).toThrow(/payments\.payouts\.changeAddress: must be a standard Fuego address/);
    expect(() =>
      checkConfigAddresses(
        parseConfig({ payments: { feeAddress: 'fire-not-an-address', payouts: { changeAddress: 'nope' } } }),
      ),
    ).toThrow(
      /payments\.feeAddress: is not a valid Fuego address[\s\S]*payments\.payouts\.changeAddress: is not a valid Fuego address/,
    );
    expect(parsePaymentsConfig({}).payouts).toMatchObject({
      requireDurableRedis: true,
      unresolvedRollbackAfterSec: 26 * 3_600,
    });
  });

  it("warns about a confirmDepth below the coin's coinbase maturity, not at or above it", () => {
    expect(confirmDepthWarning(10)).toMatch(
      /payments\.confirmDepth 10 is below Fuego's coinbase maturity \(60 blocks\)/,
    );
    expect(confirmDepthWarning(60)).toBeNull();
    expect(confirmDepthWarning(120)).toBeNull();
  });

  it('maps the wallet upkeep: on by default, fusions under 100 XFG at half the outputs ready, to the change address', () => {
    expect(walletUpkeepOptionsFrom(parsePaymentsConfig({}).payouts)).toEqual({
      enabled: true,
      thresholdAtomic: 1_000_000_000n,
      readyShare: 0.5,
      maxFusionsPerRun: 10,
      walletChangeAddress: undefined,
      lockTtlMs: 300_000,
    });
    const payouts = parsePaymentsConfig({
      payouts: {
        changeAddress: MINERS[0],
        walletUpkeep: { enabled: false, thresholdCoins: '0.5', readyShare: 0.8, maxFusionsPerRun: 3 },
      },
    }).payouts;
    expect(walletUpkeepOptionsFrom(payouts)).toMatchObject({
      enabled: false,
      thresholdAtomic: 5_000_000n,
      readyShare: 0.8,
      maxFusionsPerRun: 3,
      walletChangeAddress: MINERS[0],
    });
  });
});
