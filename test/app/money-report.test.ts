import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { readMoneyReport, readSolvencySnapshot } from '../../src/app/money-report.js';
import { resolveUnknownPayment } from '../../src/app/unknown-payment-resolution.js';
import { formatMoneyReport } from '../../src/cli/commands/report.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { PayoutWatchStore } from '../../src/store/payments/payout-watch-store.js';
import { RedisShareLedger } from '../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../helpers/config-defaults.js';
import { useTestRedisClient } from '../helpers/redis-server.js';
import { walletHolding } from '../helpers/wallet-holding.js';
import { fundMiners, minerAddress } from '../leader/payouts/payout-test-kit.js';
import { stubChain, unlockerOn } from '../leader/unlocker/unlocker-kit.js';
import { blockHash, makeCandidate, makeShare, silentLogger, uniquePrefix } from '../store/store-fixtures.js';

const COIN = 10_000_000n;

describe('the money report', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  /**
   * A miner below zero (paid twice: a late-found batch, or an unknown payment recorded as paid
   * after a restored backup) owes the pool; that debt is not money in the wallet, and it does not
   * make what the other miners are owed any smaller.
   */
  it('counts what is owed to miners without netting a balance below zero against it', async () => {
    const keyPrefix = uniquePrefix('report-negative');
    const [owed, overpaid] = [minerAddress('report-owed'), minerAddress('report-overpaid')];
    await fundMiners(redis, keyPrefix, [
      [owed, 10n * COIN],
      [overpaid, COIN],
    ]);
    // The wallet paid `overpaid` 3 coins that the restored Redis did not know: recorded as paid.
    const watch = new PayoutWatchStore({ keyPrefix }, { redis });
    const txHash = 'c'.repeat(64);
    await watch.recordUnknownPayments([
      {
        txHash,
        batchId: 'd'.repeat(32),
        blockIndex: 5,
        paymentId: '',
        feeAtomic: 80_000n,
        transfers: [{ address: overpaid, amountAtomic: 3n * COIN }],
        firstSeenMs: 1,
        status: 'unresolved',
        resolvedAtMs: null,
        resolvedNote: null,
      },
    ]);
    await resolveUnknownPayment(keyPrefix, redis, { txHash, mode: 'paid', note: 'paid twice' });
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(overpaid)).balance).toBe(-2n * COIN);

    // The wallet holds 9 coins: 1 short of the 10 the pool owes `owed`.
    const report = await readMoneyReport(keyPrefix, {
      redis,
      wallet: walletHolding(9n * COIN),
      durability: { replicas: 0, timeoutMs: 100 },
    });
    expect(report.owedAtomic).toBe(10n * COIN);
    const printed = formatMoneyReport(report, Date.now());
    const text = printed.lines.join('\n');
    expect(text).toContain('(INSOLVENT)');
    expect(text).toContain('below zero');
    expect(printed.healthy).toBe(false);
    // /metrics owes the same as the report.
    const snapshot = await readSolvencySnapshot(keyPrefix, { redis, wallet: walletHolding(9n * COIN) });
    expect(snapshot.balanceAtomic + snapshot.inPayoutAtomic).toBe(10n * COIN);
  });

  it('lists a credited block a deeper reorg replaced, with what it credited, and debits nobody', async () => {
    const keyPrefix = uniquePrefix('report-orphaned-after-credit');
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    const hash = blockHash(0x50);
    const finder = minerAddress('report-finder');
    await ledger.writeBlockCandidate(
      makeCandidate({ height: 50, hash, share: makeShare({ solo: true, address: finder }) }),
    );
    let replaced = false;
    const daemon = stubChain(100, () => (replaced ? blockHash(0xbad) : hash), 90_000_000);
    const unlocker = unlockerOn(redis, keyPrefix, { confirmDepth: 10 }, { daemon, logger: silentLogger });
    await unlocker.runOnce();
    replaced = true;
    await unlocker.runOnce();

    const report = await readMoneyReport(keyPrefix, {
      redis,
      wallet: walletHolding(10n * COIN),
      durability: { replicas: 0, timeoutMs: 100 },
    });
    // SOLO, 0.5% fee kept in the wallet: the finder was credited the rest.
    expect(report.orphanedAfterCredit).toEqual([
      {
        hash,
        height: 50,
        rewardAtomic: 90_000_000n,
        creditedAtomic: 89_550_000n,
        observedHash: blockHash(0xbad),
        flaggedAtMs: expect.any(Number),
      },
    ]);
    expect(report.owedAtomic).toBe(89_550_000n);
    const text = formatMoneyReport(report, Date.now()).lines.join('\n');
    expect(text).toContain(`height 50  ${hash}  reward 9.0000000 XFG  credited 8.9550000 XFG`);
  });
});
