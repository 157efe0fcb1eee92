import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  type BatchTransfer,
  FEE_ASSUMED_RESOLUTION,
  FEE_READ_LATER_RESOLUTION,
  type PayoutBatch,
  type PayoutWriter,
} from '../../../src/model/payouts/payout-batch.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { expectLedgerConsistent } from '../../leader/payouts/money-invariants.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../store-fixtures.js';
import { batchTransfer } from './orphan-settlement-kit.js';

const [A, B, C] = ADDRESSES;

describe('money scripts on a real Redis', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  function setup(label: string) {
    const keyPrefix = uniquePrefix(label);
    let now = 1_700_000_000_000;
    const clock = () => now;
    return {
      keyPrefix,
      keys: createPaymentKeys(keyPrefix),
      storeKeys: createShareKeys(keyPrefix),
      ledger: new RedisShareLedger({ ...DEFAULT_STORE_OPTIONS, keyPrefix }, { redis, logger: silentLogger }),
      unlocker: new UnlockerStore({ keyPrefix }, { redis, clock }),
      payouts: new PayoutStore({ keyPrefix }, { redis, clock }),
      balances: new RedisBalances({ keyPrefix }, { redis, clock }),
      tick: (ms: number) => {
        now += ms;
      },
    };
  }

  async function confirmedCredits(
    s: ReturnType<typeof setup>,
    hashNumber: number,
    credits: Array<[string, bigint]>,
  ) {
    const hash = blockHash(hashNumber);
    await s.ledger.writeBlockCandidate(makeCandidate({ hash, height: hashNumber }));
    const reward = credits.reduce((sum, [, amount]) => sum + amount, 0n) + 1000n;
    return s.unlocker.creditBlock({
      hash,
      height: hashNumber,
      rewardAtomic: reward,
      poolFeeAtomic: 1000n,
      poolFeeKeptAtomic: 1000n,
      finderBonusAtomic: 0n,
      scheme: 'pplns',
      depth: 60,
      credits: credits.map(([address, amountAtomic]) => ({
        address,
        amountAtomic,
        reason: 'block-credit' as const,
      })),
    });
  }

  describe('credit_block', () => {
    it('credits every miner and confirms the block once, whatever the number of calls', async () => {
      const s = setup('credit');
      const first = await confirmedCredits(s, 1, [
        [A, 600n],
        [B, 400n],
      ]);
      expect(first).toEqual({ applied: true });
      const again = await s.unlocker.creditBlock({
        hash: blockHash(1),
        height: 1,
        rewardAtomic: 2000n,
        poolFeeAtomic: 1000n,
        poolFeeKeptAtomic: 1000n,
        finderBonusAtomic: 0n,
        scheme: 'pplns',
        depth: 61,
        credits: [{ address: A, amountAtomic: 1000n, reason: 'block-credit' }],
      });
      expect(again).toEqual({ applied: false, status: 'confirmed' });
      expect((await s.balances.getBalance(A)).balance).toBe(600n);
      expect((await s.balances.getBalance(B)).balance).toBe(400n);
      const totals = await s.balances.getTotals();
      expect(totals.rewards).toBe(2000n);
      expect(totals.poolFees).toBe(1000n);
      expect(totals.blocksConfirmed).toBe(1n);
      expect(await redis.zscore(s.storeKeys.blockCandidates, blockHash(1))).toBeNull();
      expect(await redis.zscore(s.keys.blocksConfirmed, blockHash(1))).toBe('1');
      expect(await redis.hgetall(s.keys.blockCredits(blockHash(1)))).toEqual({ [A]: '600', [B]: '400' });
      const history = await s.balances.getHistory(A);
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({
        reason: 'block-credit',
        amountAtomic: 600n,
        ref: blockHash(1),
        balanceAfterAtomic: 600n,
      });
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
    });

    it('refuses a split that does not add up to the reward, writing nothing', async () => {
      const s = setup('credit-bad');
      await s.ledger.writeBlockCandidate(makeCandidate({ hash: blockHash(2), height: 2 }));
      await expect(
        s.unlocker.creditBlock({
          hash: blockHash(2),
          height: 2,
          rewardAtomic: 5000n,
          poolFeeAtomic: 0n,
          poolFeeKeptAtomic: 0n,
          finderBonusAtomic: 0n,
          scheme: 'prop',
          depth: 60,
          credits: [{ address: A, amountAtomic: 4999n, reason: 'block-credit' }],
        }),
      ).rejects.toMatchObject({ code: 'INVALID_AMOUNT' });
      expect((await s.ledger.getBlockCandidate(blockHash(2)))?.status).toBe('pending');
    });

    it('refuses a stale leader token, and takes the current one', async () => {
      const s = setup('fenced');
      await s.ledger.writeBlockCandidate(makeCandidate({ hash: blockHash(3), height: 3 }));
      await redis.set(s.keys.leaderToken, 'token-2');
      const request = {
        hash: blockHash(3),
        height: 3,
        rewardAtomic: 100n,
        poolFeeAtomic: 0n,
        poolFeeKeptAtomic: 0n,
        finderBonusAtomic: 0n,
        scheme: 'solo',
        depth: 60,
        credits: [{ address: A, amountAtomic: 100n, reason: 'block-credit' as const }],
      };
      await expect(s.unlocker.creditBlock({ ...request, fencingToken: 'token-1' })).rejects.toMatchObject({
        code: 'FENCED',
      });
      expect((await s.balances.getBalance(A)).credited).toBe(0n);
      expect(await s.unlocker.creditBlock({ ...request, fencingToken: 'token-2' })).toEqual({
        applied: true,
      });
    });
  });

  describe('orphan_block', () => {
    it('marks the block orphaned, credits nothing, and merges a PROP round into the current one', async () => {
      const s = setup('orphan');
      await s.ledger.recordShare(makeShare({ address: A, difficulty: 300 }));
      await s.ledger.recordShare(makeShare({ address: B, difficulty: 200 }));
      const candidate = makeCandidate({
        hash: blockHash(7),
        height: 7,
        share: makeShare({ address: B, difficulty: 100 }),
      });
      await s.ledger.writeBlockCandidate(candidate);
      await s.ledger.recordShare(makeShare({ address: C, difficulty: 50 }));
      const outcome = await s.unlocker.orphanBlock({
        hash: blockHash(7),
        height: 7,
        mergeRound: true,
        reason: 'test',
        observedHash: blockHash(8),
      });
      expect(outcome).toEqual({ applied: true });
      expect(await s.ledger.getRoundContributions()).toEqual(
        new Map([
          [C, 50n],
          [A, 300n],
          [B, 300n],
        ]),
      );
      expect(await s.ledger.reader.getCurrentRoundSummary()).toMatchObject({
        totalDifficulty: 650n,
        shareCount: 4,
      });
      expect((await s.ledger.getBlockCandidate(blockHash(7)))?.status).toBe('orphaned');
      // Idempotent: a second call merges nothing more.
      expect(
        await s.unlocker.orphanBlock({
          hash: blockHash(7),
          height: 7,
          mergeRound: true,
          reason: 'x',
          observedHash: '',
        }),
      ).toEqual({ applied: false, status: 'orphaned' });
      expect((await s.ledger.getRoundContributions()).get(B)).toBe(300n);
      expect((await s.balances.getTotals()).blocksOrphaned).toBe(1n);
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
    });
  });

  describe('refused blocks the unlocker checks against the chain', () => {
    /** A refused pool block at `height`, with its diagnosis' reason if any. */
    async function refusedBlock(
      s: ReturnType<typeof setup>,
      height: number,
      reason: 'unknown' | 'stale-tip' | 'pow-disagreement' | 'already-on-chain' | null,
    ) {
      const refused = makeCandidate({ hash: blockHash(height), height, submitResult: 'rejected' });
      await s.ledger.writeBlockCandidate(refused);
      if (reason !== null) await s.ledger.recordBlockRefusal(refused, reason);
      return refused;
    }

    it('lists only the refusals that may be on the chain (no diagnosis, or a stale tip) and not yet found off the chain, highest first', async () => {
      const s = setup('unexplained');
      await refusedBlock(s, 10, 'unknown');
      await refusedBlock(s, 11, null);
      await refusedBlock(s, 12, 'stale-tip');
      await refusedBlock(s, 13, 'pow-disagreement');
      await refusedBlock(s, 14, 'already-on-chain');
      await refusedBlock(s, 15, 'unknown');
      await s.ledger.writeBlockCandidate(makeCandidate({ hash: blockHash(16), height: 16 }));
      await s.unlocker.noteRefusalOffChain({
        hash: blockHash(15),
        observedHash: blockHash(0xf15),
        note: 'off',
      });
      const listed = await s.unlocker.listRefusalsToRecheck(500);
      expect(listed.map((block) => block.height)).toEqual([12, 11, 10]);
      expect(await s.ledger.getBlockCandidate(blockHash(15))).toMatchObject({
        status: 'rejected',
        refusalReason: 'unknown',
        unlockNote: 'off',
      });
      await expect(s.unlocker.listRefusalsToRecheck(501)).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    });

    it('promote_refused_block promotes as record_block_refusal does, once, and only for the leader', async () => {
      const s = setup('promote-leader');
      await s.ledger.recordShare(makeShare({ address: B, difficulty: 800 }));
      const refused = await refusedBlock(s, 20, 'unknown');
      await redis.set(s.keys.leaderToken, 'token-2');
      await expect(
        s.unlocker.promoteRefusedBlock({ hash: refused.hash, height: 20, fencingToken: 'token-1' }),
      ).rejects.toMatchObject({ code: 'FENCED' });
      expect((await s.ledger.getBlockCandidate(refused.hash))?.status).toBe('rejected');

      const request = { hash: refused.hash, height: 20, fencingToken: 'token-2' };
      expect(await s.unlocker.promoteRefusedBlock(request)).toEqual({ promoted: true });
      expect(await s.ledger.getBlockCandidate(refused.hash)).toMatchObject({
        status: 'pending',
        submitResult: 'rejected',
        refusalReason: 'already-on-chain',
        round: { totalDifficulty: 7_800n, shareCount: 2 },
      });
      expect(await redis.zscore(s.storeKeys.blocksWindowPending, refused.hash)).toBe('20');
      expect(await redis.zscore(s.storeKeys.blocksRejected, refused.hash)).toBeNull();
      expect(await s.unlocker.promoteRefusedBlock(request)).toEqual({ promoted: false });
      // Promoted: never noted off the chain.
      await s.unlocker.noteRefusalOffChain({ hash: refused.hash, observedHash: blockHash(1), note: 'off' });
      expect((await s.ledger.getBlockCandidate(refused.hash))?.unlockNote).toBeNull();
    });
  });

  describe('adjust_balance', () => {
    it('credits and debits with a history entry, and never below zero', async () => {
      const s = setup('adjust');
      expect(await s.balances.adjust({ address: A, deltaAtomic: 500n, note: 'goodwill' })).toBe(500n);
      expect(await s.balances.adjust({ address: A, deltaAtomic: -200n, note: 'correction' })).toBe(300n);
      await expect(
        s.balances.adjust({ address: A, deltaAtomic: -301n, note: 'too much' }),
      ).rejects.toMatchObject({
        code: 'INSUFFICIENT_BALANCE',
      });
      const history = await s.balances.getHistory(A);
      expect(history.map((h) => [h.reason, h.amountAtomic, h.ref])).toEqual([
        ['adjustment', -200n, 'correction'],
        ['adjustment', 500n, 'goodwill'],
      ]);
      expect((await s.balances.getTotals()).adjustments).toBe(300n);
      await expectLedgerConsistent(redis, s.keyPrefix, [A]);
    });
    it('refuses a debit from a balance already below zero (a late-found payment debited it again)', async () => {
      const s = setup('adjust-negative');
      expect(await s.balances.adjust({ address: A, deltaAtomic: 500n, note: 'goodwill' })).toBe(500n);
      // As resolve_unknown_payment leaves it: the miner was paid twice over, later credits settle it.
      await redis.hset(s.keys.balance(A), 'balance', '-500', 'paid', '1000');
      await expect(
        s.balances.adjust({ address: A, deltaAtomic: -3n, note: 'correction' }),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      expect(await redis.hget(s.keys.balance(A), 'balance')).toBe('-500');
    });
  });

  describe('payout batch state machine', () => {
    async function funded(label: string) {
      const s = setup(label);
      await confirmedCredits(s, 11, [
        [A, 1_000_000n],
        [B, 2_000_000n],
        [C, 500_000n],
      ]);
      const writer: PayoutWriter = { fencingToken: '', lockToken: `lock-${label}` };
      expect(await s.payouts.acquireLock(writer.lockToken, 60_000)).toBe(true);
      return { s, writer };
    }

    /** A batch whose miners were charged a 100000 network fee between them. */
    function prepareChargingMiners(
      s: ReturnType<typeof setup>,
      writer: PayoutWriter,
      id: string,
      transfers: BatchTransfer[],
    ) {
      const request = { id, transfers, paymentId: '', walletBlockCount: 100 };
      return s.payouts.prepareBatch(writer, { ...request, networkFeeAtomic: 100_000n, feePaidBy: 'miners' });
    }

    /** A batch marked sending that charged A 50001 and B 49999 of a 100000 fee. */
    async function sendingChargedBatch(s: ReturnType<typeof setup>, writer: PayoutWriter, id: string) {
      await prepareChargingMiners(s, writer, id, [
        batchTransfer(A, 949_999n, 50_001n),
        batchTransfer(B, 1_950_001n, 49_999n),
      ]);
      await s.payouts.markSending(writer, id);
      return (await s.payouts.getBatch(id))!;
    }

    it('prepare -> sending -> sent moves balance to in-payout to paid, once', async () => {
      const { s, writer } = await funded('batch-sent');
      const id = 'a'.repeat(32);
      await s.payouts.prepareBatch(writer, {
        id,
        transfers: [batchTransfer(A, 960_000n, 40_000n), batchTransfer(B, 1_960_000n, 40_000n)],
        paymentId: '',
        networkFeeAtomic: 80_000n,
        feePaidBy: 'miners',
        walletBlockCount: 100,
      });
      expect(await s.balances.getBalance(A)).toMatchObject({ balance: 0n, inPayout: 1_000_000n });
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
      await s.payouts.markSending(writer, id);
      await expect(s.payouts.markSending(writer, id)).rejects.toMatchObject({ code: 'BATCH_STATE' });
      const batch = (await s.payouts.getBatch(id))!;
      expect(batch.state).toBe('sending');
      const txHash = 'f'.repeat(64);
      expect(
        await s.payouts.markSent(writer, batch, { txHash, actualFeeAtomic: 80_000n, resolution: 'test' }),
      ).toBe(true);
      expect(
        await s.payouts.markSent(writer, batch, { txHash, actualFeeAtomic: 80_000n, resolution: 'test' }),
      ).toBe(false);
      expect(await s.balances.getBalance(A)).toMatchObject({
        balance: 0n,
        inPayout: 0n,
        paid: 960_000n,
        networkFees: 40_000n,
      });
      expect(await s.balances.getPayments(B)).toEqual([
        {
          batchId: id,
          txHash,
          amountAtomic: 1_960_000n,
          networkFeeAtomic: 40_000n,
          timestampMs: 1_700_000_000_000,
          reverted: false,
        },
      ]);
      expect(await s.payouts.listOpenBatches()).toEqual([]);
      expect(await s.payouts.batchIdOfTransaction(txHash)).toBe(id);
      expect((await s.balances.getHistory(A)).map((h) => h.reason)).toEqual([
        'payout-sent',
        'payout-debit',
        'block-credit',
      ]);
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
    });

    it('gives a fee surplus back once at mark_sent, takes it back with revert_sent, and again if found late', async () => {
      const { s, writer } = await funded('batch-refund');
      const id = '9'.repeat(32);
      // Charged 100000 (50001 + 49999), the wallet paid 80000: 10001 and 9999 come back.
      const sending = await sendingChargedBatch(s, writer, id);
      const txHash = '7'.repeat(64);
      // Marked sent twice: refunded once.
      const markSentTwice = async (batch: PayoutBatch) => {
        const outcome = { txHash, actualFeeAtomic: 80_000n, resolution: 'test' };
        expect(await s.payouts.markSent(writer, batch, outcome)).toBe(true);
        expect(await s.payouts.markSent(writer, batch, outcome)).toBe(false);
        expect(await s.balances.getBalance(A)).toMatchObject({
          balance: 10_001n,
          inPayout: 0n,
          paid: 949_999n,
          networkFees: 40_000n,
        });
        expect(await s.balances.getBalance(B)).toMatchObject({ balance: 9_999n, networkFees: 40_000n });
        expect((await s.balances.getTotals()).poolNetworkFees).toBe(0n);
        await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
      };
      await markSentTwice(sending);
      expect(
        (await s.balances.getHistory(A)).map((h) => [h.reason, h.amountAtomic, h.balanceAfterAtomic]),
      ).toEqual([
        ['payout-fee-refund', 10_001n, 10_001n],
        ['payout-sent', 949_999n, 0n],
        ['payout-debit', -1_000_000n, 0n],
        ['block-credit', 1_000_000n, 1_000_000n],
      ]);
      expect((await s.balances.getPayments(A))[0]).toMatchObject({
        amountAtomic: 949_999n,
        networkFeeAtomic: 40_000n,
      });
      const sent = (await s.payouts.getBatch(id))!;
      expect(sent.feeRefundsAtomic).toEqual([10_001n, 9_999n]);
      expect(await redis.zscore(s.keys.payable, A)).toBe('10001');

      // The wallet dropped it: everything goes back as it was before the batch, refund included.
      await s.payouts.revertSent(writer, sent, 'dropped');
      expect(await s.balances.getBalance(A)).toMatchObject({
        balance: 1_000_000n,
        paid: 0n,
        networkFees: 0n,
      });
      expect((await s.balances.getHistory(A)).slice(0, 2).map((h) => [h.reason, h.amountAtomic])).toEqual([
        ['payout-reverted', 1_000_000n],
        ['payout-fee-refund', -10_001n],
      ]);
      expect((await s.balances.getPayments(A))[0]).toMatchObject({
        amountAtomic: -949_999n,
        networkFeeAtomic: -40_000n,
      });
      const reverted = (await s.payouts.getBatch(id))!;
      expect(reverted.feeRefundsAtomic).toBeNull();
      expect((await s.balances.getTotals()).poolNetworkFees).toBe(0n);
      expect((await s.balances.getTotals()).networkFees).toBe(0n);
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);

      // Mined after all: debited again, refunded again, once.
      await markSentTwice(reverted);
    });

    it('settles an assumed fee once, only for its lock holder and while sent; a revert takes it back', async () => {
      const { s, writer } = await funded('batch-settle-fee');
      const id = '5'.repeat(32);
      const sending = await sendingChargedBatch(s, writer, id);
      const txHash = '4'.repeat(64);
      // The wallet could not tell the fee: the charge is assumed, nothing refunded.
      await s.payouts.markSent(writer, sending, {
        txHash,
        actualFeeAtomic: 100_000n,
        resolution: FEE_ASSUMED_RESOLUTION,
      });
      const assumed = (await s.payouts.getBatch(id))!;
      expect(await s.balances.getBalance(A)).toMatchObject({ balance: 0n, networkFees: 50_001n });
      const untouched = await s.balances.getTotals();

      const stranger: PayoutWriter = { fencingToken: '', lockToken: 'not-the-lock' };
      await expect(s.payouts.settleAssumedFee(stranger, assumed, 80_000n)).rejects.toMatchObject({
        code: 'LOCK_LOST',
      });
      const staleLeader: PayoutWriter = { ...writer, fencingToken: 'a-lost-leadership' };
      await expect(s.payouts.settleAssumedFee(staleLeader, assumed, 80_000n)).rejects.toMatchObject({
        code: 'FENCED',
      });
      expect(await s.balances.getTotals()).toEqual(untouched);

      // Settled twice (a second leader's pass with the same read): refunded once, as mark_sent would.
      expect(await s.payouts.settleAssumedFee(writer, assumed, 80_000n)).toBe(true);
      expect(await s.payouts.settleAssumedFee(writer, assumed, 80_000n)).toBe(false);
      expect(await s.balances.getBalance(A)).toMatchObject({
        balance: 10_001n,
        paid: 949_999n,
        networkFees: 40_000n,
      });
      expect(await s.balances.getBalance(B)).toMatchObject({ balance: 9_999n, networkFees: 40_000n });
      expect(
        (await s.balances.getHistory(A)).slice(0, 2).map((h) => [h.reason, h.amountAtomic, h.ref]),
      ).toEqual([
        ['payout-fee-refund', 10_001n, `${id}:${txHash}`],
        ['payout-sent', 949_999n, `${id}:${txHash}`],
      ]);
      expect(await s.balances.getPayments(A)).toEqual([
        expect.objectContaining({ batchId: id, amountAtomic: 949_999n, networkFeeAtomic: 40_000n }),
      ]);
      const settled = (await s.payouts.getBatch(id))!;
      expect(settled).toMatchObject({
        state: 'sent',
        actualFeeAtomic: 80_000n,
        feeRefundsAtomic: [10_001n, 9_999n],
        resolution: FEE_READ_LATER_RESOLUTION,
      });
      expect((await s.balances.getTotals()).poolNetworkFees).toBe(0n);
      expect(await redis.zscore(s.keys.payable, A)).toBe('10001');
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);

      // The wallet dropped it after all: the settled refunds go back too; a settle after the revert
      // (a pass that read the batch before it) refunds nothing.
      await s.payouts.revertSent(writer, settled, 'dropped');
      expect(await s.payouts.settleAssumedFee(writer, assumed, 80_000n)).toBe(false);
      expect(await s.balances.getBalance(A)).toMatchObject({
        balance: 1_000_000n,
        paid: 0n,
        networkFees: 0n,
      });
      const totals = await s.balances.getTotals();
      expect([totals.networkFees, totals.poolNetworkFees]).toEqual([0n, 0n]);
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
    });

    it('refuses a revert whose refunds are not the ones mark_sent recorded, writing nothing', async () => {
      const { s, writer } = await funded('batch-refund-stale');
      const id = '8'.repeat(32);
      await prepareChargingMiners(s, writer, id, [batchTransfer(A, 900_000n, 100_000n)]);
      const txHash = '6'.repeat(64);
      await s.payouts.markSent(writer, (await s.payouts.getBatch(id))!, {
        txHash,
        actualFeeAtomic: 80_000n,
        resolution: 'test',
      });
      const sent = (await s.payouts.getBatch(id))!;
      await expect(
        s.payouts.revertSent(writer, { ...sent, feeRefundsAtomic: null }, 'dropped'),
      ).rejects.toMatchObject({ code: 'BATCH_STATE' });
      expect((await s.payouts.getBatch(id))?.state).toBe('sent');
      expect(await s.balances.getBalance(A)).toMatchObject({ balance: 20_000n, networkFees: 80_000n });
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
    });

    it('refuses a short balance without touching the other transfers of the batch', async () => {
      const { s, writer } = await funded('batch-short');
      await expect(
        s.payouts.prepareBatch(writer, {
          id: 'b'.repeat(32),
          transfers: [batchTransfer(A, 1_000_000n), batchTransfer(C, 500_001n)],
          paymentId: '',
          networkFeeAtomic: 80_000n,
          feePaidBy: 'pool',
          walletBlockCount: 100,
        }),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      expect(await s.balances.getBalance(A)).toMatchObject({ balance: 1_000_000n, inPayout: 0n });
      expect(await s.payouts.getBatch('b'.repeat(32))).toBeNull();
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
    });

    it('keeps one open batch per miner and refuses writes without the lock', async () => {
      const { s, writer } = await funded('batch-lock');
      const request = {
        id: 'c'.repeat(32),
        transfers: [batchTransfer(A, 500_000n)],
        paymentId: '',
        networkFeeAtomic: 80_000n,
        feePaidBy: 'pool' as const,
        walletBlockCount: 100,
      };
      await s.payouts.prepareBatch(writer, request);
      await expect(s.payouts.prepareBatch(writer, { ...request, id: 'd'.repeat(32) })).rejects.toMatchObject({
        code: 'INSUFFICIENT_BALANCE',
      });
      await expect(s.payouts.prepareBatch(writer, request)).rejects.toMatchObject({ code: 'BATCH_EXISTS' });
      await expect(
        s.payouts.markSending({ fencingToken: '', lockToken: 'other' }, request.id),
      ).rejects.toMatchObject({
        code: 'LOCK_LOST',
      });
      await s.payouts.releaseLock(writer.lockToken);
      await expect(s.payouts.markSending(writer, request.id)).rejects.toMatchObject({ code: 'LOCK_LOST' });
      expect((await s.payouts.getBatch(request.id))?.state).toBe('prepared');
    });

    it('rolls back to the balances once, and a late-found transaction re-debits them', async () => {
      const { s, writer } = await funded('batch-rollback');
      const id = 'e'.repeat(32);
      await s.payouts.prepareBatch(writer, {
        id,
        transfers: [batchTransfer(A, 1_000_000n), batchTransfer(C, 500_000n)],
        paymentId: '',
        networkFeeAtomic: 80_000n,
        feePaidBy: 'pool',
        walletBlockCount: 100,
      });
      const prepared = (await s.payouts.getBatch(id))!;
      await expect(s.payouts.rollback(writer, prepared, 'x', 'sending')).rejects.toMatchObject({
        code: 'BATCH_STATE',
      });
      await s.payouts.rollback(writer, prepared, 'never sent', 'prepared');
      await expect(s.payouts.rollback(writer, prepared, 'again', 'prepared')).rejects.toMatchObject({
        code: 'BATCH_STATE',
      });
      expect(await s.balances.getBalance(A)).toMatchObject({ balance: 1_000_000n, inPayout: 0n });
      const failed = (await s.payouts.getBatch(id))!;
      expect(failed).toMatchObject({ state: 'failed', failReason: 'never sent' });
      expect((await s.payouts.listFailedBatches()).map((b) => b.id)).toEqual([id]);
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
      // Should a rolled-back batch ever turn up in the wallet, the money is taken back from the balance.
      await s.payouts.markSent(writer, failed, {
        txHash: '1'.repeat(64),
        actualFeeAtomic: 80_000n,
        resolution: 'late',
      });
      expect(await s.balances.getBalance(A)).toMatchObject({ balance: 0n, paid: 1_000_000n });
      expect(await s.payouts.listFailedBatches()).toEqual([]);
      await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
    });
  });
});
