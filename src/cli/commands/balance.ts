import { adjustMinerBalance, type BalanceAdjustment } from '../../app/balance-adjustment.js';
import { loadPoolConfig } from '../../app/config-addresses.js';
import { type PoolRedis, withRedis } from '../../app/redis-connection.js';
import { AddressError, decodeAddress } from '../../fuego/address.js';
import { formatAtomic, MoneyError, parseCoins } from '../../fuego/money.js';
import { createLogger } from '../../log/logger.js';
import { RedisBalances } from '../../store/payments/balances-store.js';
import { PaymentStoreError } from '../../store/payments/payment-store-error.js';
import { PendingCredits } from '../../store/shares/pending-credits.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { integerFlag, parseFlags } from '../control-args.js';
import { formatTable } from '../text-format.js';

const DEFAULT_HISTORY = 20;
const MAX_HISTORY = 1_000;
const PAYMENTS_SHOWN = 10;

/** `fuego-pool balance ADDRESS --config FILE [--history N] [--json]`: one miner's account. */
export const balanceCommand: CliCommand = {
  path: ['balance'],
  usage: `fuego-pool balance ADDRESS --config FILE [--history N (1-${MAX_HISTORY}, default ${DEFAULT_HISTORY})] [--json]`,
  summary: "one miner's account: pending, payable, in payout, paid, its latest balance changes and payments",
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, { '--config': 'value', '--history': 'value', '--json': 'switch' });
    const address = oneAddress(flags.positionals);
    const historyLimit = integerFlag(flags, '--history', DEFAULT_HISTORY, 1, MAX_HISTORY);
    return withConfigRedis(flags.values.get('--config'), async (redis, keyPrefix) => {
      const balances = new RedisBalances({ keyPrefix }, { redis });
      if ((await redis.exists(balances.keys.balance(address))) !== 1) {
        throw new PaymentStoreError('ACCOUNT_NOT_FOUND', `the pool has no account for ${address}`, {
          address,
        });
      }
      const [balance, pendingAtomic, history, payments] = await Promise.all([
        balances.getBalance(address),
        new PendingCredits({ keyPrefix }, { redis }).pendingOf(address),
        balances.getHistory(address, historyLimit),
        balances.getPayments(address, PAYMENTS_SHOWN),
      ]);
      const account = { address, balance, pendingAtomic, history, payments };
      if (flags.switches.has('--json')) writeLine(io.stdout, JSON.stringify(account, amountsAsText, 2));
      else for (const line of accountLines(account)) writeLine(io.stdout, line);
      return 0;
    });
  },
};

/**
 * `fuego-pool balance adjust ADDRESS (--credit XFG | --debit XFG) --note TEXT --config FILE
 * [--dry-run] [--new-account]`: the operator's manual change of a payable balance.
 */
export const balanceAdjustCommand: CliCommand = {
  path: ['balance', 'adjust'],
  usage:
    'fuego-pool balance adjust ADDRESS (--credit XFG | --debit XFG) --note TEXT --config FILE [--dry-run] [--new-account]',
  summary:
    "credit or debit one miner's payable balance by hand, with a note kept in its history (under the payout lock; --dry-run)",
  help: [
    'The amount is in XFG with up to 7 decimals (e.g. 1.25). A debit may take at most the payable',
    'balance: what is in a payout or paid out stays. An address the pool has no account for is',
    'refused unless --new-account is given (a mistyped address would otherwise get the credit).',
    "The change is recorded as 'adjustment' in the miner's history and in the ledger totals.",
  ],
  async run(args: string[], io: CliIo): Promise<number> {
    const spec = {
      '--config': 'value',
      '--credit': 'value',
      '--debit': 'value',
      '--note': 'value',
      '--dry-run': 'switch',
      '--new-account': 'switch',
    } as const;
    const flags = parseFlags(args, spec);
    const address = oneAddress(flags.positionals);
    const deltaAtomic = deltaOf(flags.values.get('--credit'), flags.values.get('--debit'));
    const note = (flags.values.get('--note') ?? '').trim();
    if (note === '')
      throw new UsageError("give --note TEXT: the miner's history keeps why its balance changed");
    return withConfigRedis(flags.values.get('--config'), async (redis, keyPrefix) => {
      const adjustment = await adjustMinerBalance(
        keyPrefix,
        { redis },
        {
          address,
          deltaAtomic,
          note,
          dryRun: flags.switches.has('--dry-run'),
          newAccount: flags.switches.has('--new-account'),
        },
      );
      writeLine(io.stdout, adjustmentLine(adjustment));
      return 0;
    });
  },
};

/** The one ADDRESS argument, a valid Fuego address (standard or integrated). */
function oneAddress(positionals: readonly string[]): string {
  const [address, ...extra] = positionals;
  if (address === undefined) throw new UsageError('give the miner ADDRESS');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  try {
    decodeAddress(address);
  } catch (error) {
    if (!(error instanceof AddressError)) throw error;
    throw new UsageError(`ADDRESS is not a valid Fuego address: ${error.message}`);
  }
  return address;
}

/** The signed change from --credit or --debit (exactly one, above zero). */
function deltaOf(credit: string | undefined, debit: string | undefined): bigint {
  if ((credit === undefined) === (debit === undefined))
    throw new UsageError('give one of --credit XFG and --debit XFG');
  const [flag, text] = credit === undefined ? ['--debit', debit!] : ['--credit', credit];
  let amount: bigint;
  try {
    amount = parseCoins(text);
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
    throw new UsageError(`${flag}: ${error.message} (XFG with up to 7 decimals, e.g. 1.25)`);
  }
  if (amount === 0n) throw new UsageError(`${flag} must be above 0`);
  return flag === '--credit' ? amount : -amount;
}

/** Runs `work` on the Redis of the config at --config (missing: a usage error). */
function withConfigRedis<T>(
  configPath: string | undefined,
  work: (redis: PoolRedis, keyPrefix: string) => Promise<T>,
): Promise<T> {
  if (configPath === undefined) throw new UsageError('missing --config FILE');
  const pool = loadPoolConfig(configPath);
  const logger = createLogger({ level: pool.log.level });
  return withRedis(pool.redis, process.env, logger, (redis) => work(redis, pool.redis.keyPrefix));
}

/** What the adjustment did (or would do), in one line. */
export function adjustmentLine(adjustment: BalanceAdjustment): string {
  const { address, deltaAtomic, applied } = adjustment;
  const credit = deltaAtomic > 0n;
  const amount = formatAtomic(credit ? deltaAtomic : -deltaAtomic);
  const verb = applied ? (credit ? 'credited' : 'debited') : credit ? 'would credit' : 'would debit';
  const balances = `balance ${formatAtomic(adjustment.balanceBeforeAtomic)} -> ${formatAtomic(adjustment.balanceAfterAtomic)} XFG`;
  return `${verb} ${amount} XFG ${credit ? 'to' : 'from'} ${address}: ${balances}${applied ? '' : ' (dry run: nothing changed)'}`;
}

type Account = {
  readonly address: string;
  readonly balance: Awaited<ReturnType<RedisBalances['getBalance']>>;
  /** Its estimated part of found blocks not confirmed yet (as the miner page shows it). */
  readonly pendingAtomic: bigint;
  readonly history: Awaited<ReturnType<RedisBalances['getHistory']>>;
  readonly payments: Awaited<ReturnType<RedisBalances['getPayments']>>;
};

/** The account as the operator reads it: the amounts, then the history and payments as tables. */
export function accountLines(account: Account): string[] {
  const { balance } = account;
  const lines = [
    `account ${account.address}`,
    ...formatTable(
      [
        [
          'pending',
          `${formatAtomic(account.pendingAtomic)} XFG`,
          '(estimated: its blocks not confirmed yet)',
        ],
        ['payable', `${formatAtomic(balance.balance)} XFG`],
        ['in payout', `${formatAtomic(balance.inPayout)} XFG`],
        ['paid', `${formatAtomic(balance.paid)} XFG`],
        ['network fees', `${formatAtomic(balance.networkFees)} XFG`],
        ['credited', `${formatAtomic(balance.credited)} XFG`],
      ],
      { rightAlign: [1] },
    ).map((line) => `  ${line}`),
    `balance changes, newest first (${account.history.length}):`,
  ];
  const signed = (amount: bigint) =>
    `${amount >= 0n ? '+' : '-'}${formatAtomic(amount < 0n ? -amount : amount)}`;
  lines.push(
    ...formatTable(
      withHeader(
        ['time', 'reason', 'change', 'balance after', 'ref'],
        account.history.map((entry) => [
          new Date(entry.timestampMs).toISOString(),
          entry.reason,
          signed(entry.amountAtomic),
          formatAtomic(entry.balanceAfterAtomic),
          entry.ref,
        ]),
      ),
      { rightAlign: [2, 3] },
    ).map((line) => `  ${line}`),
    `payments, newest first (${account.payments.length}):`,
    ...formatTable(
      withHeader(
        ['time', 'amount', 'network fee', 'transaction', ''],
        account.payments.map((payment) => [
          new Date(payment.timestampMs).toISOString(),
          signed(payment.amountAtomic),
          formatAtomic(payment.networkFeeAtomic),
          payment.txHash,
          payment.reverted ? 'reverted' : '',
        ]),
      ),
      { rightAlign: [1, 2] },
    ).map((line) => `  ${line}`),
  );
  return lines;
}

/** A table's rows under its column names; no rows, no header. */
function withHeader(header: readonly string[], rows: readonly string[][]): string[][] {
  return rows.length === 0 ? [] : [[...header], ...rows];
}

/** JSON.stringify replacer: bigint amounts as decimal strings (exact). */
function amountsAsText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
