import { connectRedis } from '../../app/redis-connection.js';
import { loadConfigFile } from '../../config/load-config.js';
import { formatAtomic } from '../../fuego/money.js';
import { createLogger } from '../../log/logger.js';
import { WalletClient } from '../../rpc/wallet-client.js';
import { RedisBalances } from '../../store/balances-store.js';
import { PayoutStore } from '../../store/payout-store.js';
import { type CliCommand, type CliIo, writeLine } from '../command.js';
import { parsePayoutArgs } from './payout.js';

const FAILED_SHOWN = 20;

/**
 * `fuego-pool report --config FILE`: solvency (what the pool owes miners vs what its wallet holds),
 * the ledger's invariants, and the open and recently failed payout batches with their reasons.
 * Exit 0 when solvent and consistent, 1 otherwise (usable from monitoring).
 */
export const reportCommand: CliCommand = {
  path: ['report'],
  usage: 'fuego-pool report --config FILE',
  summary: 'solvency (balances owed vs wallet) and pending / failed payout batches',
  async run(args: string[], io: CliIo): Promise<number> {
    const { configPath } = parsePayoutArgs(args, new Set(['--config']));
    const pool = loadConfigFile(configPath);
    const logger = createLogger({ level: pool.log.level });
    const redis = await connectRedis(pool.redis, process.env, logger);
    const wallet = new WalletClient({ ...pool.wallet, retries: 1 });
    const out = (line: string): void => writeLine(io.stdout, line);
    try {
      const balances = new RedisBalances({ keyPrefix: pool.redis.keyPrefix }, { redis });
      const store = new PayoutStore({ keyPrefix: pool.redis.keyPrefix }, { redis });
      const totals = await balances.getTotals();
      const owed = totals.balance + totals.inPayout;
      let healthy = true;

      out('== solvency ==');
      out(
        `owed to miners     ${formatAtomic(owed)} XFG (balances ${formatAtomic(totals.balance)}, in payout ${formatAtomic(totals.inPayout)})`,
      );
      try {
        const walletBalance = await wallet.getBalance();
        const held = BigInt(walletBalance.availableBalance) + BigInt(walletBalance.lockedAmount);
        out(
          `wallet holds       ${formatAtomic(held)} XFG (available ${formatAtomic(BigInt(walletBalance.availableBalance))}, locked ${formatAtomic(BigInt(walletBalance.lockedAmount))})`,
        );
        const margin = held - owed;
        out(`margin             ${formatAtomic(margin)} XFG ${margin >= 0n ? '(solvent)' : '(INSOLVENT)'}`);
        if (margin < 0n) healthy = false;
      } catch (error) {
        out(`wallet holds       unknown: ${(error as Error).message}`);
        healthy = false;
      }

      out('== ledger ==');
      const accounted = totals.balance + totals.inPayout + totals.paid + totals.networkFees;
      const ledgerOk =
        totals.credited === accounted &&
        totals.rewards + totals.adjustments === totals.credited + totals.poolFees;
      if (!ledgerOk) healthy = false;
      out(
        `credited ${formatAtomic(totals.credited)} = balances + in payout + paid ${formatAtomic(totals.paid)} + fees ${formatAtomic(totals.networkFees)}: ${totals.credited === accounted ? 'ok' : 'MISMATCH'}`,
      );
      out(
        `rewards ${formatAtomic(totals.rewards)} + adjustments ${formatAtomic(totals.adjustments)} = credited + pool fees ${formatAtomic(totals.poolFees)}: ${ledgerOk ? 'ok' : 'MISMATCH'}`,
      );
      out(
        `blocks confirmed ${totals.blocksConfirmed}, orphaned ${totals.blocksOrphaned}; network fees paid by the pool ${formatAtomic(totals.poolNetworkFees)}`,
      );

      out('== open batches ==');
      const open = await store.listOpenBatches();
      if (open.length === 0) out('(none)');
      for (const batch of open) {
        out(
          `${batch.id}  ${batch.state}  ${batch.transfers.length} miners  ${formatAtomic(batch.totalAmountAtomic)} XFG  since ${new Date(batch.sendingAtMs ?? batch.createdAtMs).toISOString()}  ${batch.lastError ?? ''}`.trimEnd(),
        );
      }
      out(`== failed batches (last ${FAILED_SHOWN}) ==`);
      const failed = await store.listFailedBatches(FAILED_SHOWN);
      if (failed.length === 0) out('(none)');
      for (const batch of failed) {
        out(
          `${batch.id}  ${batch.transfers.length} miners  ${formatAtomic(batch.totalAmountAtomic)} XFG  ${batch.failReason ?? ''}`.trimEnd(),
        );
      }
      return healthy ? 0 : 1;
    } finally {
      wallet.close();
      redis.disconnect();
    }
  },
};
