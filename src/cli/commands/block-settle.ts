import { loadPoolConfig } from '../../app/config-addresses.js';
import { daemonClientOf } from '../../app/daemon-connection.js';
import {
  type OrphanSettleMode,
  type OrphanSettlement,
  orphanSettledEvent,
  settleOrphanedBlock,
} from '../../app/orphan-block-settlement.js';
import { connectRedis } from '../../app/redis-connection.js';
import { publishRelayedEvent } from '../../cluster/redis-event-relay.js';
import { formatAtomic } from '../../fuego/money.js';
import { createLogger } from '../../log/logger.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { parseOperatorArgs } from '../operator-args.js';

const BLOCK_HASH_PATTERN = /^[0-9a-f]{64}$/;

const MODES: Readonly<Record<string, OrphanSettleMode>> = {
  '--absorb': 'absorb',
  '--clawback': 'clawback',
  '--credit-back': 'credit-back',
};

const DEFAULT_NOTES: Readonly<Record<OrphanSettleMode, string>> = {
  absorb: 'absorbed by the operator',
  clawback: 'clawed back by the operator',
  'credit-back': 'credited back by the operator: a later reorg restored the block',
};

/**
 * `fuego-pool block settle HASH (--absorb | --clawback | --credit-back) --config FILE [--note TEXT] [--dry-run]`
 * settles a credited block the unlocker's reorg watch flagged orphaned after credit (what
 * `fuego-pool report` lists under it):
 * - --absorb: the miners keep their credits, the loss is the pool's; the block is marked settled.
 * - --clawback: each account the block credited is debited that credit, never below a zero
 *   balance; the rest (paid out, in a payout or spent) is uncollected, the pool's loss.
 * - --credit-back: a clawed-back block a later reorg put back on the main chain: each account
 *   gets back exactly what the clawback took; refused unless the daemon (config `daemon`) holds
 *   the block at its height at that moment.
 * A settlement made is published as `block-orphan-settled` through the relay (the leader's
 * notifier sends it). --dry-run prints what would be done per account and changes nothing. A hash that is no block,
 * a block not flagged or settled already is refused with its code and exit status 1.
 */
export const blockSettleCommand: CliCommand = {
  path: ['block', 'settle'],
  usage:
    'fuego-pool block settle HASH (--absorb | --clawback | --credit-back) --config FILE [--note TEXT] [--dry-run]',
  summary:
    'settle a credited block a deep reorg orphaned: --absorb (the pool bears it) or --clawback (debit its credits, never below zero); --credit-back after a later reorg restored a clawed-back one',
  async run(args: string[], io: CliIo): Promise<number> {
    const parsed = parseOperatorArgs(args, { modes: MODES, switches: ['--dry-run'] });
    const { configPath, mode, note, target: hash } = parsed;
    const dryRun = parsed.switches.has('--dry-run');
    if (hash === undefined) throw new UsageError('give the HASH of the block to settle');
    if (!BLOCK_HASH_PATTERN.test(hash)) throw new UsageError('HASH must be a block hash (64 hex characters)');
    if (mode === undefined) throw new UsageError('give --absorb, --clawback or --credit-back');
    if (configPath === undefined) throw new UsageError('missing --config FILE');
    const pool = loadPoolConfig(configPath);
    const logger = createLogger({ level: pool.log.level });
    const redis = await connectRedis(pool.redis, process.env, logger);
    // Only a credit back reads the chain: absorbing or clawing back works with fuegod away.
    const daemon = mode === 'credit-back' ? daemonClientOf(pool.daemon) : undefined;
    try {
      const settled = { hash, mode, note: note || DEFAULT_NOTES[mode], dryRun };
      const settlement = await settleOrphanedBlock(
        pool.redis.keyPrefix,
        daemon === undefined ? { redis } : { redis, daemon },
        settled,
      );
      if (settlement.applied) {
        // Told by the leader's notifier (block-orphan-settled); best effort: it is settled.
        await publishRelayedEvent(
          redis,
          pool.redis.keyPrefix,
          'block-orphan-settled',
          orphanSettledEvent(settlement, settled.note, Date.now()),
        ).catch(() => undefined);
      }
      for (const line of settlementLines(settlement)) writeLine(io.stdout, line);
      return 0;
    } finally {
      daemon?.close();
      redis.disconnect();
    }
  },
};

/** The settlement as the operator reads it: one line per account, then the sums. */
export function settlementLines(settlement: OrphanSettlement): string[] {
  const { hash, mode, applied } = settlement;
  const verb = {
    absorb: applied ? 'absorbed' : 'would absorb',
    clawback: applied ? 'clawed back' : 'would claw back',
    'credit-back': applied ? 'credited back' : 'would credit back',
  }[mode];
  const lines = [`${verb}: block ${hash}${applied ? '' : ' (dry run: nothing changed)'}`];
  for (const line of settlement.lines) {
    const change =
      mode === 'absorb'
        ? 'no change'
        : `${mode === 'clawback' ? 'debit' : 'credit'} ${formatAtomic(line.changeAtomic < 0n ? -line.changeAtomic : line.changeAtomic)} XFG`;
    lines.push(
      `    ${line.address}  credited ${formatAtomic(line.creditedAtomic)} XFG  balance ${formatAtomic(line.balanceAtomic)} XFG  ${change}  uncollected ${formatAtomic(line.uncollectedAtomic)} XFG`,
    );
  }
  const total = settlement.changeAtomic < 0n ? -settlement.changeAtomic : settlement.changeAtomic;
  lines.push(
    mode === 'credit-back'
      ? `${settlement.lines.length} accounts, ${formatAtomic(total)} XFG credited back in all`
      : `${settlement.lines.length} accounts, ${formatAtomic(total)} XFG clawed back, ${formatAtomic(settlement.uncollectedAtomic)} XFG uncollected (the pool's loss)`,
  );
  return lines;
}
