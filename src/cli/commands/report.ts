import { loadPoolConfig } from '../../app/config-addresses.js';
import { daemonClientOf } from '../../app/daemon-connection.js';
import { type MoneyReport, readMoneyReport } from '../../app/money-report.js';
import { connectRedis, replicaAcksOf } from '../../app/redis-connection.js';
import { walletClientOf } from '../../app/wallet-connection.js';
import { formatAtomic } from '../../fuego/money.js';
import { createLogger } from '../../log/logger.js';
import { UNCREDITED_BACK_ON_CHAIN } from '../../model/blocks/uncredited-back-on-chain.js';
import { sentAtMs, UNMINED_AFTER_MS } from '../../model/payouts/payout-batch.js';
import { type UnknownPayment, unknownPaymentAmount } from '../../model/payouts/payout-watch.js';
import { fuegodSightings, unminedAdvice } from '../../pool/payouts/unmined-payouts.js';
import { type CliCommand, type CliIo, writeLine } from '../command.js';
import { parsePayoutArgs } from './payout.js';

/**
 * `fuego-pool report --config FILE`: solvency (what the pool owes miners vs what its wallet holds),
 * the ledger's invariants, whether Redis can make payouts durable, credited blocks a deep reorg
 * took away (to settle, and settled), orphaned blocks a deeper reorg put back that the ledger does
 * not credit (their reward in the wallet, owed to nobody: informational), and everything payouts hold back: unknown tagged transactions, sent batches the
 * wallet has no record of, held miners, a send backoff, open and recently failed batches.
 * Exit 0 when solvent, consistent and nothing needs the operator; 1 otherwise (for monitoring).
 */
export const reportCommand: CliCommand = {
  path: ['report'],
  usage: 'fuego-pool report --config FILE',
  summary: 'solvency, held payouts, unknown payments, pending and failed payout batches',
  async run(args: string[], io: CliIo): Promise<number> {
    const { configPath } = parsePayoutArgs(args, new Set(['--config']));
    const pool = loadPoolConfig(configPath);
    const logger = createLogger({ level: pool.log.level });
    const redis = await connectRedis(pool.redis, process.env, logger);
    const wallet = walletClientOf(pool.wallet, process.env, { retries: 1 });
    try {
      const report = await readMoneyReport(pool.redis.keyPrefix, {
        redis,
        wallet,
        durability: {
          replicas: replicaAcksOf(pool.redis)?.replicas ?? 0,
          timeoutMs: pool.redis.replicaAckTimeoutMs,
        },
      });
      const nowMs = Date.now();
      // fuegod says where a payout not mined for hours is (its RPC; the report goes on without it).
      const daemon = daemonClientOf(pool.daemon, { retries: 0 });
      const sightings = await fuegodSightings(report.unconfirmedSent, daemon, nowMs).finally(() =>
        daemon.close(),
      );
      const { lines, healthy } = formatMoneyReport({ ...report, fuegodSightings: sightings }, nowMs);
      for (const line of lines) writeLine(io.stdout, line);
      return healthy ? 0 : 1;
    } finally {
      wallet.close();
      redis.disconnect();
    }
  },
};

/** Writes one report section; says whether the section is healthy (needs nothing of the operator). */
type ReportSection = (report: MoneyReport, out: (line: string) => void, nowMs: number) => boolean;

/** The report as text, and whether anything in it needs the operator. */
export function formatMoneyReport(report: MoneyReport, nowMs: number): { lines: string[]; healthy: boolean } {
  const lines: string[] = [];
  const out = (line: string): void => {
    lines.push(line);
  };
  const sections: ReportSection[] = [
    solvencySection,
    ledgerSection,
    durabilitySection,
    orphanedAfterCreditSection,
    orphanedBackOnChainSection,
    unknownPaymentsSection,
    walletMissingSection,
    heldPayoutsSection,
    batchesSection,
    unconfirmedSentSection,
  ];
  let healthy = true;
  for (const section of sections) {
    if (!section(report, out, nowMs)) healthy = false;
  }
  return { lines, healthy };
}

function solvencySection(report: MoneyReport, out: (line: string) => void): boolean {
  const { totals } = report;
  out('== solvency ==');
  const balances = totals.balance + report.belowZeroAtomic;
  out(
    `owed to miners     ${formatAtomic(report.owedAtomic)} XFG (balances ${formatAtomic(balances)}, in payout ${formatAtomic(totals.inPayout)})`,
  );
  if (report.belowZeroAtomic > 0n) {
    out(
      `below zero         ${formatAtomic(report.belowZeroAtomic)} XFG owed by miners paid twice (not counted against the above)`,
    );
  }
  if ('error' in report.wallet) {
    out(`wallet holds       unknown: ${report.wallet.error}`);
    return false;
  }
  const { availableAtomic, lockedAtomic } = report.wallet;
  const held = availableAtomic + lockedAtomic;
  out(
    `wallet holds       ${formatAtomic(held)} XFG (available ${formatAtomic(availableAtomic)}, locked ${formatAtomic(lockedAtomic)})`,
  );
  const margin = held - report.owedAtomic;
  out(`margin             ${formatAtomic(margin)} XFG ${margin >= 0n ? '(solvent)' : '(INSOLVENT)'}`);
  return margin >= 0n;
}

function ledgerSection(report: MoneyReport, out: (line: string) => void): boolean {
  const { totals } = report;
  const { credited, rewards } = report.ledgerConsistent;
  out('== ledger ==');
  out(
    `credited ${formatAtomic(totals.credited)} = balances + in payout + paid ${formatAtomic(totals.paid)} + fees ${formatAtomic(totals.networkFees)}: ${credited ? 'ok' : 'MISMATCH'}`,
  );
  out(
    `rewards ${formatAtomic(totals.rewards)} + adjustments ${formatAtomic(totals.adjustments)} = credited + pool fees ${formatAtomic(totals.poolFees)}: ${credited && rewards ? 'ok' : 'MISMATCH'}`,
  );
  out(
    `blocks confirmed ${totals.blocksConfirmed}, orphaned ${totals.blocksOrphaned}; network fees paid by the pool ${formatAtomic(totals.poolNetworkFees)}`,
  );
  return positiveBalanceLine(report, out) && credited && rewards;
}

/** The balances above zero summed in full against the sum /metrics reads; false on a mismatch. */
function positiveBalanceLine(report: MoneyReport, out: (line: string) => void): boolean {
  const { summedAtomic, keptAtomic } = report.positiveBalance;
  const summed = `balances above zero ${formatAtomic(summedAtomic)}`;
  if (keptAtomic === null) {
    out(`${summed}: summed in full, stored for /metrics (none was kept yet)`);
    return true;
  }
  if (keptAtomic === summedAtomic) {
    out(`${summed} = the sum /metrics reads: ok`);
    return true;
  }
  out(
    `${summed}, /metrics read ${formatAtomic(keptAtomic)}: MISMATCH, now corrected (a process that changes balances does not keep the sum: one of an older version?)`,
  );
  return false;
}

function durabilitySection(report: MoneyReport, out: (line: string) => void): boolean {
  const durability = report.durability;
  out('== redis durability ==');
  if (durability.kind === 'none' || durability.kind === 'unreadable') {
    out(
      `NOT DURABLE: ${durability.detail} (payouts wait unless payments.payouts.requireDurableRedis is false)`,
    );
    return false;
  }
  out(
    durability.kind === 'replicas'
      ? `each payout batch waits for ${durability.replicas} replica(s) (WAIT)`
      : durability.kind === 'aof-waitaof'
        ? 'each payout batch waits for the AOF fsync (WAITAOF)'
        : 'the AOF is fsynced before every reply (appendfsync always)',
  );
  return true;
}

/**
 * Credited blocks a reorg deeper than confirmDepth replaced: the credits stand until the operator
 * settles each (`fuego-pool block settle`), so an unsettled one needs the operator, and so does a
 * clawed-back one a later reorg restored (its miners are owed the clawback again). Settled ones
 * are listed below, for the record.
 */
function orphanedAfterCreditSection(report: MoneyReport, out: (line: string) => void): boolean {
  out('== credited blocks orphaned by a deeper reorg, not settled (credits stand: nothing was debited) ==');
  if (report.orphanedAfterCredit.length === 0) out('(none)');
  for (const block of report.orphanedAfterCredit) {
    out(
      `height ${block.height}  ${block.hash}  reward ${formatAtomic(block.rewardAtomic)} XFG  credited ${formatAtomic(block.creditedAtomic)} XFG  since ${new Date(block.flaggedAtMs).toISOString()}  main chain has ${block.observedHash}`,
    );
  }
  if (report.orphanedAfterCredit.length > 0) {
    out(
      'settle each: fuego-pool block settle HASH --absorb (the pool bears the loss) or --clawback (debit its credits, never below zero); --dry-run shows each miner first',
    );
  }
  if (report.restoredAfterClawback.length > 0) {
    out(
      '== clawed-back blocks a later reorg put back on the main chain (their miners are owed the clawback) ==',
    );
    for (const block of report.restoredAfterClawback) {
      out(
        `height ${block.height}  ${block.hash}  clawed back ${formatAtomic(block.clawedBackAtomic)} XFG  restored ${new Date(block.restoredAtMs ?? 0).toISOString()}`,
      );
    }
    out(
      'credit back each: fuego-pool block settle HASH --credit-back (gives each miner exactly what the clawback took)',
    );
  }
  out(`== settled orphaned blocks (last ${report.settledOrphans.length}) ==`);
  if (report.settledOrphans.length === 0) out('(none)');
  for (const block of report.settledOrphans) {
    const restored =
      block.restoredAtMs === null
        ? ''
        : `  restored ${new Date(block.restoredAtMs).toISOString()}${block.creditedBackAtMs === null ? '' : ', credited back'}`;
    out(
      `height ${block.height}  ${block.hash}  ${block.settlement} ${new Date(block.settledAtMs).toISOString()}  credited ${formatAtomic(block.creditedAtomic)} XFG  clawed back ${formatAtomic(block.clawedBackAtomic)} XFG  uncollected ${formatAtomic(block.uncollectedAtomic)} XFG${restored}`,
    );
  }
  return report.orphanedAfterCredit.length === 0 && report.restoredAfterClawback.length === 0;
}

/**
 * Orphaned blocks a deeper reorg put back on the main chain that the ledger does not credit: their
 * reward is in the wallet (part of the margin above), owed to nobody by the ledger. For the
 * operator's books, with what to do by why; informational (never unhealthy): a PROP round's shares
 * were paid by the next block, and crediting a window not kept is the operator's call.
 */
function orphanedBackOnChainSection(report: MoneyReport, out: (line: string) => void): boolean {
  out(
    '== orphaned blocks back on the main chain, not credited (reward in the wallet, owed to nobody by the ledger) ==',
  );
  const blocks = report.orphanedBackOnChain;
  if (blocks.length === 0) {
    out('(none)');
    return true;
  }
  for (const block of blocks) {
    out(
      `height ${block.height}  ${block.hash}  reward ${formatAtomic(block.rewardAtomic)} XFG  ${UNCREDITED_BACK_ON_CHAIN[block.reason].why}  back since ${new Date(block.backOnChainAtMs).toISOString()}`,
    );
  }
  const total = blocks.reduce((sum, block) => sum + block.rewardAtomic, 0n);
  out(`${formatAtomic(total)} XFG in all, part of what the wallet holds above (and of the margin)`);
  for (const reason of ['round-merged', 'no-window'] as const) {
    if (blocks.some((block) => block.reason === reason)) {
      const { why, advice } = UNCREDITED_BACK_ON_CHAIN[reason];
      out(`what to do (${why}): ${advice}`);
    }
  }
  return true;
}

function unknownPaymentsSection(report: MoneyReport, out: (line: string) => void): boolean {
  out('== unknown payments (tagged wallet transactions Redis has no batch for) ==');
  if (report.unknownPayments.length === 0) out('(none)');
  for (const payment of report.unknownPayments) {
    const state =
      payment.status === 'unresolved'
        ? 'UNRESOLVED'
        : `${payment.status}${payment.resolvedNote ? ` (${payment.resolvedNote})` : ''}`;
    const recipients = recipientsText(payment);
    out(
      `${payment.txHash}  batch ${payment.batchId}  ${recipients}  ${formatAtomic(unknownPaymentAmount(payment))} XFG  ${state}`,
    );
    if (payment.status !== 'unresolved') continue;
    for (const transfer of payment.transfers)
      out(`    ${transfer.address}  ${formatAtomic(transfer.amountAtomic)} XFG`);
    if (payment.unnamedAtomic > 0n) {
      out(
        `    ${formatAtomic(payment.unnamedAtomic)} XFG to recipients the wallet's record does not name (walletd rebuilt it from the chain after a reset): NO miner is paid until it is resolved`,
      );
    }
  }
  if (!report.unknownPayments.some((p) => p.status === 'unresolved')) return true;
  out(
    'resolve each: fuego-pool payout resolve TXHASH --paid (the wallet paid it: debit the miners) or --dismiss (already accounted)',
  );
  if (report.unknownPayments.some((p) => p.status === 'unresolved' && p.unnamedAtomic > 0n)) {
    out(
      "recipients unknown: find whom it paid in the pool's log (the info line 'payout batch sending' of its batch id lists each address and atomic amount), write them one `ADDRESS AMOUNT` a line (atomic units) in a file, then fuego-pool payout resolve TXHASH --paid --recipients FILE (the amounts must add up to what it paid)",
    );
  }
  return false;
}

/** Who an unknown payment paid, as far as anyone can tell. */
function recipientsText(payment: UnknownPayment): string {
  if (payment.unnamedAtomic === 0n) return `${payment.transfers.length} recipients`;
  if (payment.namedRecipients === undefined) return 'recipients unknown';
  const count = payment.transfers.length + payment.namedRecipients.length;
  return `${count} recipients (named by the operator)`;
}

/**
 * Sent batches whose transaction the wallet answered 29 "Object not found" for: the miners were
 * debited, and only the operator can tell (from the chain) whether the money left.
 */
function walletMissingSection(report: MoneyReport, out: (line: string) => void): boolean {
  out('== sent batches the wallet has no record of (reset, or restored from an older backup) ==');
  if (report.walletMissingCount === 0) {
    out('(none)');
    return true;
  }
  for (const { batch, sinceMs } of report.walletMissing) {
    out(
      `${batch.txHash ?? ''}  batch ${batch.id}  ${batch.transfers.length} miners  ${formatAtomic(batch.totalAmountAtomic)} XFG  wallet has no record since ${new Date(sinceMs).toISOString()}`,
    );
  }
  if (report.walletMissingCount > report.walletMissing.length) {
    out(`... and ${report.walletMissingCount - report.walletMissing.length} more`);
  }
  out(
    'nothing is refunded automatically; a wallet still rescanning finds them again and they confirm as usual. Otherwise settle each:',
  );
  out(
    '  fuego-pool payout resolve TXHASH --paid (fuegod has it in a block: recorded as paid) or --refund (fuegod has it in neither its chain nor its pool, and it can no longer be mined: its miners are credited back)',
  );
  return false;
}

/** Held miners are the normal state of a small balance's wait, so they never make the report unhealthy. */
function heldPayoutsSection(report: MoneyReport, out: (line: string) => void, nowMs: number): boolean {
  out('== held payouts (due but not paid in the last pass) ==');
  if (report.held.length === 0) out('(none)');
  for (const held of report.held) {
    out(
      `${held.address}  ${formatAtomic(held.amountAtomic)} XFG  since ${new Date(held.sinceMs).toISOString()}  ${held.reason}`,
    );
  }
  if (report.backoff !== null && report.backoff.untilMs > nowMs) {
    out(
      `payouts paused until ${new Date(report.backoff.untilMs).toISOString()} (refusal ${report.backoff.attempt}: ${report.backoff.reason})`,
    );
  }
  return true;
}

function batchesSection(report: MoneyReport, out: (line: string) => void): boolean {
  out('== open batches ==');
  if (report.openBatches.length === 0) out('(none)');
  for (const batch of report.openBatches) {
    out(
      `${batch.id}  ${batch.state}  ${batch.transfers.length} miners  ${formatAtomic(batch.totalAmountAtomic)} XFG  since ${new Date(batch.sendingAtMs ?? batch.createdAtMs).toISOString()}  ${batch.lastError ?? ''}`.trimEnd(),
    );
  }
  out(`== failed batches (last ${report.failedBatches.length}) ==`);
  if (report.failedBatches.length === 0) out('(none)');
  for (const batch of report.failedBatches) {
    out(
      `${batch.id}  ${batch.transfers.length} miners  ${formatAtomic(batch.totalAmountAtomic)} XFG  ${batch.failReason ?? ''}`.trimEnd(),
    );
  }
  return true;
}

/**
 * Sent batches not confirmed yet: a payout confirms 10 blocks deep within ~1.5 h, so one not mined
 * after UNMINED_AFTER_MS (the FuegoPoolPayoutUnconfirmed alert's 6 h) needs the operator: walletd
 * may never report a transaction dropped within seconds of its send (see README, "The wallet's
 * word counts").
 */
function unconfirmedSentSection(report: MoneyReport, out: (line: string) => void, nowMs: number): boolean {
  out('== sent batches not confirmed yet ==');
  if (report.unconfirmedSent.length === 0) out('(none)');
  let healthy = true;
  for (const batch of report.unconfirmedSent) {
    const sentMs = sentAtMs(batch);
    const line = `${batch.txHash ?? ''}  batch ${batch.id}  ${batch.transfers.length} miners  ${formatAtomic(batch.totalAmountAtomic)} XFG  sent ${new Date(sentMs).toISOString()}`;
    if (nowMs - sentMs < UNMINED_AFTER_MS) {
      out(line);
      continue;
    }
    healthy = false;
    const hours = Math.floor((nowMs - sentMs) / 3_600_000);
    out(`${line}  NOT MINED after ${hours} h: ${unminedAdvice(report.fuegodSightings?.get(batch.id))}`);
  }
  return healthy;
}
