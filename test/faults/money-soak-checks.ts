import { expect } from 'vitest';
import { bytesToHex } from '../../src/fuego/hex.js';
import { findBatchIds } from '../../src/pool/payouts/batch-tag.js';
import { PayoutWatchStore } from '../../src/store/payments/payout-watch-store.js';
import { expectLedgerConsistent } from '../leader/payouts/money-invariants.js';
import { devnetReceived } from '../leader/payouts/payout-test-kit.js';
import { FEE } from '../leader/unlocker/unlocker-kit.js';
import { payoutPass } from './money-soak-fault-steps.js';
import { operatorResolveMissing, operatorSettleFlagged } from './money-soak-operator-steps.js';
import { clearFaults, taggedMempoolTransactions } from './money-soak-steps.js';
import {
  operatorResolveUnknown,
  receivedExcept,
  unaccountedLostTransactions,
} from './money-soak-unknown-steps.js';
import {
  networkMinerAddress,
  SOAK_CONFIRM_DEPTH,
  SOAK_MIN_PAYOUT,
  SOAK_REORG_WATCH_BLOCKS,
  type SoakPool,
} from './money-soak-world.js';

/**
 * After every step: the ledger is consistent (money-invariants.ts); no miner has received on the
 * chain more than it was credited (the operator's debits and clawbacks added back), lost batches
 * included, which a miner paid twice for one credit breaks; no miner has received on the
 * chain (main chain + mempool) more than the ledger has paid it or holds in payout for it, which
 * is what a double payment would break (a batch Redis lost is left out until its unknown payment
 * is recorded as paid: the ledger cannot count it before; once it is, it is in `paid`, so a miner
 * paid again for the same credit shows here); and no batch's tag is on two transactions.
 */
export async function expectStepInvariants(pool: SoakPool): Promise<void> {
  await expectLedgerConsistent(pool.shared.redis, pool.keyPrefix, pool.miners);
  const lost = await unaccountedLostTransactions(pool);
  for (const miner of pool.miners) {
    const { paid, inPayout, credited } = await pool.balances.getBalance(miner);
    // Paid at most once for each credit, lost batches included (a balance below zero may be right:
    // the operator debited money a lost batch had paid, before resolving it).
    const gross = credited + (pool.debitedAtomic.get(miner) ?? 0n);
    const all = receivedExcept(pool, miner, new Set());
    expect(
      all,
      `chain receipts of ${miner} <= credited ${gross} (operator debits added)`,
    ).toBeLessThanOrEqual(gross);
    const received = receivedExcept(pool, miner, lost);
    expect(
      received,
      `chain receipts of ${miner} (${lost.size} lost batches' left out) <= paid ${paid} + in payout ${inPayout}`,
    ).toBeLessThanOrEqual(paid + inPayout);
  }
  const seen = new Map<string, number>();
  const chain = pool.devnet.chain;
  for (const tx of [...chain.mainChain().flatMap((block) => block.transactions), ...chain.mempool()]) {
    for (const batchId of findBatchIds(bytesToHex(tx.tx.extra)))
      seen.set(batchId, (seen.get(batchId) ?? 0) + 1);
  }
  for (const [batchId, count] of seen) expect(count, `transactions of batch ${batchId}`).toBe(1);
}

/** What the drain compares between rounds: nothing moved when this is the same. */
async function snapshot(pool: SoakPool): Promise<string> {
  const parts: string[] = [];
  for (const miner of pool.miners) {
    const b = await pool.balances.getBalance(miner);
    parts.push(`${b.credited}/${b.balance}/${b.inPayout}/${b.paid}`);
  }
  parts.push(`open=${(await pool.store.listOpenBatches()).length}`);
  parts.push(`pending=${(await pool.store.listUnconfirmedSent()).length}`);
  parts.push(`mempool=${taggedMempoolTransactions(pool).length}`);
  parts.push(`missing=${(await pool.store.walletMissingSince()).size}`);
  parts.push(`unknown=${(await unresolvedUnknown(pool)).length}`);
  return parts.join(' ');
}

/**
 * A sent payout fuegod has nowhere (dropped before any of walletd's pool syncs saw it) stays
 * unconfirmed in walletd for good; `fuego-pool report` lists it NOT MINED and the operator restarts
 * walletd, which then cancels it (the pool credits its miners back once it has stayed dropped past
 * unresolvedRollbackAfterSec).
 */
async function operatorRestartStuckWallet(pool: SoakPool): Promise<string> {
  const chain = pool.devnet.chain;
  const stuck = (await pool.store.listUnconfirmedSent()).filter(
    (batch) => batch.txHash !== null && chain.findTransaction(batch.txHash) === undefined,
  );
  if (stuck.length === 0) return 'restart-wallet (nothing stuck)';
  pool.devnet.control.restartWallet();
  return `restart-wallet (stuck: ${stuck.map((batch) => batch.txHash!.slice(0, 12)).join(', ')})`;
}

/**
 * The wallet healthy again, then rounds of: blocks past confirmation, the reorg watch and the
 * change's spendable age; a day later on the runner's clock; an unlock run and a payout pass (a
 * payout crash or a lost batch still armed is met there: the drain's passes pay); the operator's
 * resolutions (of stuck sends, batches the wallet lost, unknown payments, flagged blocks); the step
 * invariants. Until a round changes nothing (at least three rounds). Returns the step list's lines.
 */
export async function drain(pool: SoakPool): Promise<string[]> {
  await clearFaults(pool);
  const lines: string[] = [];
  let before = '';
  for (let round = 0; round < 12; round++) {
    pool.devnet.control.mineBlocks(SOAK_CONFIRM_DEPTH + SOAK_REORG_WATCH_BLOCKS + 11, networkMinerAddress());
    pool.nowMs += 24 * 3_600_000;
    const unlock = await pool.unlocker.runOnce();
    const pass = await payoutPass(
      pool,
      (s) => `payout skipped=${s.skipped ?? '-'} batches=${s.batches.length} recovered=${s.recovered.length}`,
    );
    // A wallet that lost its record of a batch Redis lost in that pass rescans; the operator waits.
    if (pool.forgotten.size > 0) await clearFaults(pool);
    // The operator resolves what the wallet lost (the runner leaves that to them).
    const restart = await operatorRestartStuckWallet(pool);
    lines.push(restart);
    lines.push(await operatorResolveMissing(pool));
    lines.push(await operatorResolveUnknown(pool, true));
    lines.push(await operatorSettleFlagged(pool));
    lines.push(`drain ${round}: unlock ${unlock.decisions.map((d) => d.outcome).join(',') || '-'}; ${pass}`);
    await expectStepInvariants(pool);
    const after = await snapshot(pool);
    // A stuck payout the restart let go is credited back only a round or two later, and a batch a
    // crash left sending is rolled back only once it is certainly dead: not settled yet.
    const open = (await pool.store.listOpenBatches()).length;
    if (round >= 2 && after === before && !restart.includes('stuck:') && open === 0) return lines;
    before = after;
  }
  throw new Error(`the drain did not settle in 12 rounds: ${before}`);
}

/** The transaction hashes of the pool's unknown payments not resolved yet. */
async function unresolvedUnknown(pool: SoakPool): Promise<string[]> {
  const watch = new PayoutWatchStore({ keyPrefix: pool.keyPrefix }, { redis: pool.shared.redis });
  return (await watch.listUnknownPayments()).filter((p) => p.status === 'unresolved').map((p) => p.txHash);
}

/**
 * Liveness after the drain (faults off, every unknown payment resolved by the operator): no unknown
 * payment is unresolved, no miner is held, and every miner due a payout (its balance at least the
 * payout minimum) has been paid.
 */
async function expectPaidOut(pool: SoakPool): Promise<void> {
  expect(await unresolvedUnknown(pool), 'unknown payments unresolved').toEqual([]);
  const watch = new PayoutWatchStore({ keyPrefix: pool.keyPrefix }, { redis: pool.shared.redis });
  expect(await watch.listHeld(), 'miners held').toEqual([]);
  for (const miner of pool.miners) {
    const { balance } = await pool.balances.getBalance(miner);
    expect(balance, `balance of ${miner} left unpaid`).toBeLessThan(SOAK_MIN_PAYOUT);
  }
}

/**
 * After the drain: every pool block on the main chain is credited and every credited block is on
 * it or flagged orphaned-after-credit; one not on it was never credited unflagged. The ledger's
 * rewards are the credited blocks' rewards (the daemon's, coinbase with fees), and its pool fees
 * their fee at FEE.pool (FEE.solo for a solo block). No batch is open or in payout, nothing of ours
 * waits in the mempool, and every miner received on the main chain exactly its ledger `paid`. A
 * block decided orphaned that a deeper reorg put back counts as any block on the main chain: it
 * must be credited (a PROP pool block excepted: its round was merged into the next one).
 */
export async function expectSettled(pool: SoakPool): Promise<void> {
  const chain = pool.devnet.chain;
  let credited = 0n;
  let fees = 0n;
  for (const hash of pool.poolBlocks) {
    const record = await pool.ledger.getBlockCandidate(hash);
    const block = chain.blockById(hash)!;
    const onMain = chain.blockAt(block.height)?.id === hash;
    const what = `pool block ${hash.slice(0, 12)} at ${block.height} (on main chain: ${onMain})`;
    expect(record, what).not.toBeNull();
    // PROP merged an orphaned block's round into the next one, whose block pays those shares: one
    // a deeper reorg put back stays orphaned (its reward stays in the wallet).
    if (onMain && pool.scheme === 'prop' && !record!.solo && record!.status === 'orphaned') continue;
    if (onMain) expect(record!.status, what).toBe('confirmed');
    if (record!.status === 'confirmed') {
      expect(onMain || record!.orphanedAfterCredit, `${what} credited`).toBe(true);
      credited += block.rewardAtomic;
      const fee = record!.solo ? FEE.solo : FEE.pool;
      fees += (block.rewardAtomic * BigInt(fee.poolFeeBasisPoints)) / 10_000n;
    } else {
      expect(record!.status, what).toBe('orphaned');
    }
  }
  const totals = await pool.balances.getTotals();
  expect(totals.rewards, 'rewards of the credited blocks').toBe(credited);
  expect(totals.poolFees, 'pool fees of the credited blocks').toBe(fees);
  expect(totals.adjustments, 'the operator adjustments applied').toBe(pool.adjustedAtomic);
  expect(await pool.store.listOpenBatches()).toEqual([]);
  expect(taggedMempoolTransactions(pool)).toEqual([]);
  expect([...(await pool.store.walletMissingSince()).keys()], 'batches the wallet lost, unresolved').toEqual(
    [],
  );
  for (const miner of pool.miners) {
    const balance = await pool.balances.getBalance(miner);
    expect(balance.inPayout, `in payout of ${miner}`).toBe(0n);
    expect(devnetReceived(pool.devnet, miner), `on-chain receipts of ${miner}`).toBe(balance.paid);
  }
  await expectPaidOut(pool);
}
