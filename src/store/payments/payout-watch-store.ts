import type { Redis } from 'ioredis';
import type {
  HeldPayout,
  PayoutWatch,
  SendBackoff,
  UnknownPayment,
} from '../../pool/payouts/payout-watch.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { toStoreError } from '../store-error.js';
import { DEFAULT_HISTORY_MAX_LENGTH } from './balances-store.js';
import { MONEY_LUA_PRELUDE } from './money-lua-prelude.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';
import { amountArg, PaymentStoreError, parseStoredAmount, refusalOf } from './payment-store-error.js';

/** Unknown payments listed at most (they are rare: each one is a Redis data loss). */
const MAX_UNKNOWN_LISTED = 1_000;
const PAYMENTS_MAX_LENGTH = 1_000;

/**
 * resolve_unknown_payment: the operator's decision about an unknown tagged transaction.
 * "paid": each recipient account is debited what the transaction paid it (balance -> paid, which
 * may take the balance below zero: the miner was paid, later credits settle it), the fee goes to
 * the pool's network fees, a payment record and a history entry are written, and the transaction
 * joins the tx index. "dismiss": no balance changes (the operator accounted for it otherwise).
 * Only an unresolved entry is resolved; under the payout lock, so no runner pays meanwhile.
 *
 * KEYS: 1 leader, 2 lock, 3 unknown, 4 totals, 5 payable, 6 txs, then N balance, N history,
 *       N payments.
 * ARGV: 1 token, 2 lock token, 3 tx hash, 4 now, 5 mode (paid | dismiss), 6 note, 7 history max,
 *       8 payments max, 9 fee, 10 batch id, 11 N, then N x (account, amount).
 */
const RESOLVE_UNKNOWN_LUA = `${MONEY_LUA_PRELUDE}
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {0, 'LOCK_LOST', ''} end
local raw = redis.call('HGET', KEYS[3], ARGV[3])
if not raw then return {0, 'BATCH_NOT_FOUND', ARGV[3]} end
local entry = cjson.decode(raw)
if entry.status ~= 'unresolved' then return {0, 'BATCH_STATE', entry.status} end
local n = tonumber(ARGV[11])
if ARGV[5] == 'paid' then
  for i = 1, n do
    local account, amount = ARGV[10 + i * 2], ARGV[11 + i * 2]
    local balanceKey = KEYS[6 + i]
    redis.call('HINCRBY', balanceKey, 'balance', negate(amount))
    redis.call('HINCRBY', balanceKey, 'paid', amount)
    redis.call('HINCRBY', KEYS[4], 'balance', negate(amount))
    redis.call('HINCRBY', KEYS[4], 'paid', amount)
    local balance = index_payable(KEYS[5], balanceKey, account)
    history(KEYS[6 + n + i], ARGV[7], 'payout-adopted', negate(amount), ARGV[10] .. ':' .. ARGV[3], balance, ARGV[4])
    redis.call('LPUSH', KEYS[6 + 2 * n + i], cjson.encode({batchId = ARGV[10], txHash = ARGV[3],
      amountAtomic = amount, networkFeeAtomic = '0', timestampMs = ARGV[4]}))
    redis.call('LTRIM', KEYS[6 + 2 * n + i], 0, tonumber(ARGV[8]) - 1)
  end
  redis.call('HINCRBY', KEYS[4], 'poolNetworkFees', ARGV[9])
  redis.call('HSET', KEYS[6], ARGV[3], ARGV[10])
  entry.status = 'recorded-as-paid'
else
  entry.status = 'dismissed'
end
entry.resolvedAtMs = ARGV[4]
entry.resolvedNote = ARGV[6]
redis.call('HSET', KEYS[3], ARGV[3], cjson.encode(entry))
return {1, entry.status}
`;

/** Who resolves: the fencing token ("" outside leader election) and the payout lock token. */
export interface ResolveWriter {
  readonly fencingToken: string;
  readonly lockToken: string;
}

/**
 * The payout runner's watch list on Redis: unknown tagged transactions, the wallet scan cursor,
 * the miners held in the last pass and the send backoff (keys in payment-keys.ts).
 */
export class PayoutWatchStore implements PayoutWatch {
  readonly keys: PaymentKeys;
  readonly #redis: Redis;
  readonly #clock: () => number;
  readonly #resolve: ScriptRunner;

  constructor(
    opts: { readonly keyPrefix: string },
    modules: { readonly redis: Redis; readonly clock?: () => number },
  ) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.#redis = modules.redis;
    this.#clock = modules.clock ?? Date.now;
    this.#resolve = defineScript(modules.redis, 'fuegoPoolResolveUnknownPayment', RESOLVE_UNKNOWN_LUA);
  }

  async recordUnknownPayments(payments: readonly UnknownPayment[]): Promise<UnknownPayment[]> {
    if (payments.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const payment of payments)
      pipeline.hsetnx(this.keys.payoutUnknown, payment.txHash, encodeUnknown(payment));
    const replies = await this.#exec('recordUnknownPayments', pipeline);
    return payments.filter((_, index) => replies[index] === 1);
  }

  async listUnknownPayments(): Promise<UnknownPayment[]> {
    const raw = await this.#run('listUnknownPayments', () => this.#redis.hgetall(this.keys.payoutUnknown));
    return Object.values(raw)
      .map(decodeUnknown)
      .sort((a, b) => b.firstSeenMs - a.firstSeenMs)
      .slice(0, MAX_UNKNOWN_LISTED);
  }

  async getScanCursor(): Promise<number | null> {
    const value = await this.#run('getScanCursor', () => this.#redis.get(this.keys.payoutScanCursor));
    return value !== null && /^\d+$/.test(value) ? Number(value) : null;
  }

  async setScanCursor(blockCount: number): Promise<void> {
    await this.#run('setScanCursor', () => this.#redis.set(this.keys.payoutScanCursor, String(blockCount)));
  }

  async replaceHeld(held: readonly HeldPayout[]): Promise<HeldPayout[]> {
    const json = JSON.stringify(
      held.map((h) => ({ a: h.address, amt: h.amountAtomic.toString(), r: h.reason, s: h.sinceMs })),
    );
    const replies = await this.#exec(
      'replaceHeld',
      this.#redis.multi().get(this.keys.payoutHeld).set(this.keys.payoutHeld, json),
    );
    return decodeHeld(replies[0]);
  }

  async listHeld(): Promise<HeldPayout[]> {
    return decodeHeld(await this.#run('listHeld', () => this.#redis.get(this.keys.payoutHeld)));
  }

  async getBackoff(): Promise<SendBackoff | null> {
    const raw = await this.#run('getBackoff', () => this.#redis.get(this.keys.payoutBackoff));
    if (raw === null) return null;
    try {
      const parsed = JSON.parse(raw) as Record<string, unknown>;
      return {
        untilMs: Number(parsed['untilMs']),
        attempt: Number(parsed['attempt']),
        reason: String(parsed['reason']),
        sinceMs: Number(parsed['sinceMs']),
      };
    } catch {
      throw new PaymentStoreError('CORRUPT_BALANCE', 'corrupt payout backoff', { raw: raw.slice(0, 200) });
    }
  }

  async setBackoff(backoff: SendBackoff): Promise<void> {
    await this.#run('setBackoff', () => this.#redis.set(this.keys.payoutBackoff, JSON.stringify(backoff)));
  }

  async clearBackoff(): Promise<void> {
    await this.#run('clearBackoff', () => this.#redis.del(this.keys.payoutBackoff));
  }

  /**
   * Settles an unknown payment as the operator decided (see RESOLVE_UNKNOWN_LUA). `accounts` are
   * the miner accounts its transfers paid, in the order of `payment.transfers`.
   */
  async resolveUnknownPayment(
    writer: ResolveWriter,
    request: {
      readonly payment: UnknownPayment;
      readonly mode: 'paid' | 'dismiss';
      readonly note: string;
      readonly accounts: readonly string[];
    },
  ): Promise<void> {
    const { payment, mode, accounts } = request;
    const transfers = mode === 'paid' ? payment.transfers : [];
    if (mode === 'paid' && accounts.length !== transfers.length) {
      throw new PaymentStoreError('INVALID_AMOUNT', 'one account per transfer is needed', {
        txHash: payment.txHash,
      });
    }
    const keys = [
      this.keys.leaderToken,
      this.keys.payoutLock,
      this.keys.payoutUnknown,
      this.keys.totals,
      this.keys.payable,
      this.keys.payoutTransactions,
      ...transfers.map((_, i) => this.keys.balance(accounts[i]!)),
      ...transfers.map((_, i) => this.keys.history(accounts[i]!)),
      ...transfers.map((_, i) => this.keys.payments(accounts[i]!)),
    ];
    const args = [
      writer.fencingToken,
      writer.lockToken,
      payment.txHash,
      String(this.#clock()),
      mode,
      request.note.slice(0, 200),
      String(DEFAULT_HISTORY_MAX_LENGTH),
      String(PAYMENTS_MAX_LENGTH),
      amountArg(payment.feeAtomic, 'fee'),
      payment.batchId,
      String(transfers.length),
    ];
    transfers.forEach((t, i) => {
      args.push(accounts[i]!, amountArg(t.amountAtomic, 'transfer amount'));
    });
    const reply = await this.#run('resolve_unknown_payment', () => this.#resolve({ keys, args }));
    const refusal = refusalOf(reply, 'resolve_unknown_payment');
    if (refusal) throw refusal;
  }

  async #exec(operation: string, pipeline: { exec(): Promise<Array<[Error | null, unknown]> | null> }) {
    const replies = await this.#run(operation, () => pipeline.exec());
    return (replies ?? []).map(([error, value]) => {
      if (error) throw toStoreError(error, operation);
      return value;
    });
  }

  async #run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (error instanceof PaymentStoreError) throw error;
      throw toStoreError(error, operation);
    }
  }
}

/** JSON with every amount as a decimal string (Lua's cjson turns numbers into doubles). */
function encodeUnknown(payment: UnknownPayment): string {
  return JSON.stringify({
    txHash: payment.txHash,
    batchId: payment.batchId,
    blockIndex: payment.blockIndex === null ? '' : String(payment.blockIndex),
    paymentId: payment.paymentId,
    fee: payment.feeAtomic.toString(),
    transfers: payment.transfers.map((t) => ({ a: t.address, amt: t.amountAtomic.toString() })),
    firstSeenMs: String(payment.firstSeenMs),
    status: payment.status,
    resolvedAtMs: payment.resolvedAtMs === null ? '' : String(payment.resolvedAtMs),
    resolvedNote: payment.resolvedNote ?? '',
  });
}

function decodeUnknown(raw: string): UnknownPayment {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new PaymentStoreError('CORRUPT_BALANCE', 'corrupt unknown payment record', {
      raw: raw.slice(0, 200),
    });
  }
  const text = (name: string): string => String(parsed[name] ?? '');
  const status = text('status');
  if (status !== 'unresolved' && status !== 'recorded-as-paid' && status !== 'dismissed') {
    throw new PaymentStoreError('CORRUPT_BALANCE', 'corrupt unknown payment status', { status });
  }
  const transfers = Array.isArray(parsed['transfers'])
    ? (parsed['transfers'] as Array<Record<string, string>>)
    : [];
  return {
    txHash: text('txHash'),
    batchId: text('batchId'),
    blockIndex: text('blockIndex') === '' ? null : Number(text('blockIndex')),
    paymentId: text('paymentId'),
    feeAtomic: parseStoredAmount(text('fee'), 'unknown payment fee'),
    transfers: transfers.map((t) => ({
      address: String(t['a']),
      amountAtomic: parseStoredAmount(String(t['amt']), 'unknown payment amount'),
    })),
    firstSeenMs: Number(text('firstSeenMs')),
    status,
    resolvedAtMs: text('resolvedAtMs') === '' ? null : Number(text('resolvedAtMs')),
    resolvedNote: text('resolvedNote') === '' ? null : text('resolvedNote'),
  };
}

function decodeHeld(raw: unknown): HeldPayout[] {
  if (typeof raw !== 'string') return [];
  try {
    const list = JSON.parse(raw) as Array<Record<string, unknown>>;
    return list.map((h) => ({
      address: String(h['a']),
      amountAtomic: parseStoredAmount(String(h['amt']), 'held amount'),
      reason: String(h['r']),
      sinceMs: Number(h['s']),
    }));
  } catch (error) {
    if (error instanceof PaymentStoreError) throw error;
    throw new PaymentStoreError('CORRUPT_BALANCE', 'corrupt held payouts list', { raw: raw.slice(0, 200) });
  }
}
