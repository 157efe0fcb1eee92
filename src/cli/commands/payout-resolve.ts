import { readFileSync } from 'node:fs';
import { loadPoolConfig } from '../../app/config-addresses.js';
import { daemonClientOf } from '../../app/daemon-connection.js';
import { connectRedis, type PoolRedis } from '../../app/redis-connection.js';
import { resolveUnknownPayment, unresolvedPaymentHashes } from '../../app/unknown-payment-resolution.js';
import {
  isWalletMissingTransaction,
  settleWalletMissingBatch,
  walletMissingResolvedEvent,
} from '../../app/wallet-missing-resolution.js';
import { publishRelayedEvent } from '../../cluster/redis-event-relay.js';
import type { PoolConfig } from '../../config/schema.js';
import { formatAtomic } from '../../fuego/money.js';
import { createLogger } from '../../log/logger.js';
import { unknownPaymentAmount } from '../../model/payouts/payout-watch.js';
import { PaymentStoreError } from '../../store/payments/payment-store-error.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { parseOperatorArgs } from '../operator-args.js';

const TX_HASH_PATTERN = /^[0-9a-f]{64}$/;

const RESOLVE_MODES = { '--paid': 'paid', '--dismiss': 'dismiss', '--refund': 'refund' } as const;

/**
 * `fuego-pool payout resolve (TXHASH | --all) (--paid [--recipients FILE [--new-account]] | --dismiss | --refund) --config FILE [--note TEXT]`
 * settles what `fuego-pool report` lists for the operator:
 * - a tagged wallet transaction Redis had no batch for (its recipients are held until then).
 *   --paid: the wallet did pay them, so their balances are debited what it paid (the usual case
 *   after Redis lost writes); --dismiss: no balance changes. --all settles every unresolved one the
 *   same way (e.g. after starting over with an empty Redis and the old wallet).
 *   When walletd rebuilt the transaction's record from the chain (it names no recipients, and no
 *   miner is paid meanwhile), --paid takes --recipients FILE: whom it paid, one `ADDRESS AMOUNT`
 *   a line with AMOUNT in atomic units (from the pool's `payout batch sending` log line of the
 *   batch), blank lines and `#` comments allowed; every line is checked and the amounts must add
 *   up to what it paid before those accounts are debited, in one write. An address the pool has
 *   no account for is refused unless --new-account (its balance then goes below zero).
 * - a sent batch whose transaction the wallet has no record of (reset, or restored from an older
 *   backup), on fuegod's word: --paid when fuegod has it 10 blocks deep (no balance changes, but
 *   a fee assumed at the send is settled with the fee fuegod shows it paid, as the watch would),
 *   --refund when fuegod has it in neither its chain nor its pool and it was sent longer than
 *   payments.payouts.unresolvedRollbackAfterSec ago (its miners are credited back).
 */
export const payoutResolveCommand: CliCommand = {
  path: ['payout', 'resolve'],
  usage:
    'fuego-pool payout resolve (TXHASH | --all) (--paid [--recipients FILE [--new-account]] | --dismiss | --refund) --config FILE [--note TEXT]',
  summary:
    'settle an unknown tagged wallet transaction (--paid debits its recipients, named by --recipients FILE when its wallet record names none; --dismiss does not) or a sent batch the wallet has no record of (--paid or --refund)',
  async run(args: string[], io: CliIo): Promise<number> {
    const parsed = parseOperatorArgs(args, {
      modes: RESOLVE_MODES,
      switches: ['--all', '--new-account'],
      values: ['--recipients'],
    });
    const { configPath, mode, note, target: txHash } = parsed;
    const all = parsed.switches.has('--all');
    if (all === (txHash !== undefined)) throw new UsageError('give one TXHASH or --all');
    if (txHash !== undefined && !TX_HASH_PATTERN.test(txHash)) {
      throw new UsageError('TXHASH must be a transaction hash (64 hex characters)');
    }
    if (mode === undefined) {
      throw new UsageError(
        'give --paid or --dismiss (or --refund for a sent batch the wallet has no record of)',
      );
    }
    const recipientsFile = parsed.values.get('--recipients');
    if (recipientsFile !== undefined && (mode !== 'paid' || txHash === undefined)) {
      throw new UsageError('--recipients goes with one TXHASH and --paid');
    }
    const newAccount = parsed.switches.has('--new-account');
    if (newAccount && recipientsFile === undefined)
      throw new UsageError('--new-account goes with --recipients');
    if (configPath === undefined) throw new UsageError('missing --config FILE');
    const recipients = recipientsFile === undefined ? undefined : readRecipientsFile(recipientsFile);
    const pool = loadPoolConfig(configPath);
    const logger = createLogger({ level: pool.log.level });
    const redis = await connectRedis(pool.redis, process.env, logger);
    try {
      const walletMissing =
        txHash !== undefined && (await isWalletMissingTransaction(pool.redis.keyPrefix, redis, txHash));
      if (txHash !== undefined && (walletMissing || mode === 'refund')) {
        if (mode === 'dismiss') {
          throw new UsageError('a sent batch the wallet has no record of takes --paid or --refund');
        }
        if (recipients !== undefined) {
          throw new UsageError(
            '--recipients names whom an unknown payment paid, not a sent batch the wallet has no record of',
          );
        }
        writeLine(io.stdout, await settleWalletMissing(pool, redis, { txHash, mode, note }));
        return 0;
      }
      if (mode === 'refund') throw new UsageError('--refund settles one TXHASH at a time');
      const hashes =
        txHash !== undefined ? [txHash] : await unresolvedPaymentHashes(pool.redis.keyPrefix, redis);
      if (hashes.length === 0) writeLine(io.stdout, 'no unresolved unknown payment');
      const request = { mode, note, newAccount, ...(recipients === undefined ? {} : { recipients }) };
      return await resolveEach(pool.redis.keyPrefix, redis, hashes, request, { all, io });
    } finally {
      redis.disconnect();
    }
  },
};

/** The text of the --recipients FILE (checked line by line once the payment is read). */
function readRecipientsFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`cannot read --recipients ${path} (${code})`);
  }
}

/**
 * Resolves each payment in turn, a line printed for each; the exit code. With --all, a payment
 * whose wallet record names no recipients (only its own --recipients list settles it) is named
 * and passed over, and the exit code is 1; one TXHASH fails as it is.
 */
async function resolveEach(
  keyPrefix: string,
  redis: PoolRedis,
  hashes: readonly string[],
  request: Omit<Parameters<typeof resolveOne>[2], 'txHash'>,
  options: { readonly all: boolean; readonly io: CliIo },
): Promise<number> {
  let needRecipients = 0;
  for (const txHash of hashes) {
    try {
      writeLine(options.io.stdout, await resolveOne(keyPrefix, redis, { ...request, txHash }));
    } catch (error) {
      if (!options.all || !(error instanceof PaymentStoreError) || error.code !== 'RECIPIENTS_UNKNOWN')
        throw error;
      needRecipients++;
      writeLine(options.io.stdout, `not resolved: tx ${txHash}: ${error.message}`);
    }
  }
  return needRecipients === 0 ? 0 : 1;
}

/** Resolves one unknown payment as the operator decided; the line to print. */
async function resolveOne(
  keyPrefix: string,
  redis: PoolRedis,
  request: {
    readonly txHash: string;
    readonly mode: 'paid' | 'dismiss';
    readonly note: string;
    readonly recipients?: string;
    readonly newAccount: boolean;
  },
): Promise<string> {
  const { txHash, mode } = request;
  const named = request.recipients !== undefined;
  const defaultNote =
    mode === 'dismiss'
      ? 'dismissed by the operator'
      : named
        ? 'recorded as paid to the recipients the operator named'
        : 'recorded as paid by the operator';
  const payment = await resolveUnknownPayment(keyPrefix, redis, {
    ...request,
    note: request.note || defaultNote,
  });
  const amount = formatAtomic(unknownPaymentAmount(payment));
  if (mode === 'dismiss') {
    return `dismissed: tx ${txHash} (${amount} XFG) changes no balance; its recipients are no longer held`;
  }
  const count = payment.transfers.length + (payment.namedRecipients?.length ?? 0);
  return `recorded as paid: ${count} recipients${named ? ' (named by the operator)' : ''} debited ${amount} XFG in all (tx ${txHash})${named ? '; payouts are no longer held by it' : ''}`;
}

/** Settles one sent batch the wallet has no record of, on fuegod's word; the line to print. */
async function settleWalletMissing(
  pool: PoolConfig,
  redis: PoolRedis,
  request: { readonly txHash: string; readonly mode: 'paid' | 'refund'; readonly note: string },
): Promise<string> {
  const daemon = daemonClientOf(pool.daemon);
  const settled = {
    ...request,
    note:
      request.note || (request.mode === 'paid' ? 'the operator found it on chain' : 'fuegod has it nowhere'),
  };
  try {
    const settlement = await settleWalletMissingBatch(
      pool.redis.keyPrefix,
      { redis, daemon },
      { refundAfterMs: pool.payments.payouts.unresolvedRollbackAfterSec * 1000 },
      settled,
    );
    const { batch, blockHeight, settledFeeAtomic } = settlement;
    // Told by the leader's notifier (payout-unknown-to-wallet-resolved); best effort: it is settled.
    await publishRelayedEvent(
      redis,
      pool.redis.keyPrefix,
      'payout-unknown-to-wallet-resolved',
      walletMissingResolvedEvent(settlement, settled, Date.now()),
    ).catch(() => undefined);
    const amount = `${batch.transfers.length} miners, ${formatAtomic(batch.totalAmountAtomic)} XFG`;
    if (request.mode === 'refund') {
      return `refunded: batch ${batch.id} (${amount}, tx ${request.txHash}); its miners are credited back (debited again should it be mined after all)`;
    }
    const paid = `recorded as paid in block ${blockHeight}: batch ${batch.id} (${amount}, tx ${request.txHash})`;
    if (settledFeeAtomic === undefined) return `${paid}; no balance changes`;
    return settledFeeAtomic === null
      ? `${paid}; its fee stays assumed at ${formatAtomic(batch.actualFeeAtomic ?? batch.networkFeeAtomic)} XFG (fuegod's record does not tell what it paid); no balance changes`
      : `${paid}; its assumed fee settled at the ${formatAtomic(settledFeeAtomic)} XFG it paid (any surplus refunded to its miners)`;
  } finally {
    daemon.close();
  }
}
