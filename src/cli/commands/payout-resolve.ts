import { loadPoolConfig } from '../../app/config-addresses.js';
import { connectRedis } from '../../app/redis-connection.js';
import { resolveUnknownPayment, unresolvedPaymentHashes } from '../../app/unknown-payment-resolution.js';
import { formatAtomic } from '../../fuego/money.js';
import { createLogger } from '../../log/logger.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';

const TX_HASH_PATTERN = /^[0-9a-f]{64}$/;

/**
 * `fuego-pool payout resolve (TXHASH | --all) (--paid | --dismiss) --config FILE [--note TEXT]`:
 * settles a tagged wallet transaction Redis had no batch for (`fuego-pool report` lists them).
 * Until then its recipients are held. --paid: the wallet did pay them, so their balances are
 * debited what it paid (the usual case after Redis lost writes); --dismiss: no balance changes.
 * --all settles every unresolved one the same way (e.g. after starting over with an empty Redis
 * and the old wallet, whose earlier payouts are all unknown to it).
 */
export const payoutResolveCommand: CliCommand = {
  path: ['payout', 'resolve'],
  usage: 'fuego-pool payout resolve (TXHASH | --all) (--paid | --dismiss) --config FILE [--note TEXT]',
  summary: 'settle an unknown tagged wallet transaction: --paid debits its recipients, --dismiss does not',
  async run(args: string[], io: CliIo): Promise<number> {
    let configPath: string | undefined;
    let mode: 'paid' | 'dismiss' | undefined;
    let note = '';
    let txHash: string | undefined;
    let all = false;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === '--config') {
        configPath = args[++i];
        if (configPath === undefined) throw new UsageError('--config needs a FILE');
      } else if (arg === '--note') {
        const text = args[++i];
        if (text === undefined) throw new UsageError('--note needs a TEXT');
        note = text;
      } else if (arg === '--all') {
        all = true;
      } else if (arg === '--paid' || arg === '--dismiss') {
        if (mode !== undefined) throw new UsageError('give one of --paid and --dismiss');
        mode = arg === '--paid' ? 'paid' : 'dismiss';
      } else if (arg.startsWith('--')) {
        throw new UsageError(`unknown option ${arg}`);
      } else if (txHash === undefined) {
        txHash = arg.toLowerCase();
      } else {
        throw new UsageError(`unexpected argument ${arg}`);
      }
    }
    if (all === (txHash !== undefined)) throw new UsageError('give one TXHASH or --all');
    if (txHash !== undefined && !TX_HASH_PATTERN.test(txHash)) {
      throw new UsageError('TXHASH must be a transaction hash (64 hex characters)');
    }
    if (mode === undefined) throw new UsageError('give --paid or --dismiss');
    if (configPath === undefined) throw new UsageError('missing --config FILE');
    const pool = loadPoolConfig(configPath);
    const logger = createLogger({ level: pool.log.level });
    const redis = await connectRedis(pool.redis, process.env, logger);
    try {
      const hashes =
        txHash !== undefined ? [txHash] : await unresolvedPaymentHashes(pool.redis.keyPrefix, redis);
      if (hashes.length === 0) writeLine(io.stdout, 'no unresolved unknown payment');
      for (const hash of hashes) {
        const payment = await resolveUnknownPayment(pool.redis.keyPrefix, redis, {
          txHash: hash,
          mode,
          note: note || (mode === 'paid' ? 'recorded as paid by the operator' : 'dismissed by the operator'),
        });
        const amount = payment.transfers.reduce((sum, t) => sum + t.amountAtomic, 0n);
        writeLine(
          io.stdout,
          mode === 'paid'
            ? `recorded as paid: ${payment.transfers.length} recipients debited ${formatAtomic(amount)} XFG in all (tx ${hash})`
            : `dismissed: tx ${hash} (${formatAtomic(amount)} XFG) changes no balance; its recipients are no longer held`,
        );
      }
      return 0;
    } finally {
      redis.disconnect();
    }
  },
};
