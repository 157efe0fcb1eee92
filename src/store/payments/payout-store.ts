import type { Redis } from 'ioredis';
import type {
  BatchState,
  BatchTransfer,
  PayoutBatch,
  PayoutWriter,
  PrepareBatchRequest,
} from '../../pool/payouts/payout-batch.js';
import type { PayoutJournal } from '../../pool/payouts/payout-journal.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { toStoreError } from '../store-error.js';
import { DEFAULT_HISTORY_MAX_LENGTH } from './balances-store.js';
import { MONEY_LUA_PRELUDE } from './money-lua-prelude.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';
import { amountArg, PaymentStoreError, parseStoredAmount, refusalOf } from './payment-store-error.js';

/** Payment records kept per miner in `<p>:payments:<address>`. */
const DEFAULT_PAYMENTS_MAX_LENGTH = 1_000;
const MAX_LIST_PAGE = 1_000;

const LOCK_CHECK = `
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {0, 'LOCK_LOST', ''} end
`;

/**
 * prepare_batch: the payout intent. Debits every transfer from balance into in-payout, writes the
 * batch (state prepared) and its history entries, all or nothing. Refuses a miner whose balance is
 * short or who is already in an open batch (in-payout > 0): one open batch per miner keeps every
 * recovery decision about one batch only.
 * KEYS: 1 leader, 2 lock, 3 batch, 4 open, 5 all batches, 6 totals, 7 payable, N balance, N history.
 * ARGV: 1 token, 2 lock token, 3 batch id, 4 now, 5 history max, 6 N, 7 transfers JSON,
 *       8 total debit, 9 total amount, 10 network fee, 11 fee paid by, 12 payment id,
 *       13 wallet block count, then N x (address, debit).
 */
const PREPARE_BATCH_LUA = `${MONEY_LUA_PRELUDE}${LOCK_CHECK}
if redis.call('EXISTS', KEYS[3]) == 1 then return {0, 'BATCH_EXISTS', ARGV[3]} end
local n = tonumber(ARGV[6])
for i = 1, n do
  local balanceKey = KEYS[7 + i]
  if not ge(field(balanceKey, 'balance'), ARGV[13 + i * 2]) then
    return {0, 'INSUFFICIENT_BALANCE', ARGV[12 + i * 2]}
  end
  if field(balanceKey, 'inPayout') ~= '0' then return {0, 'INSUFFICIENT_BALANCE', ARGV[12 + i * 2]} end
end
for i = 1, n do
  local address, debit = ARGV[12 + i * 2], ARGV[13 + i * 2]
  local balanceKey = KEYS[7 + i]
  redis.call('HINCRBY', balanceKey, 'balance', negate(debit))
  redis.call('HINCRBY', balanceKey, 'inPayout', debit)
  redis.call('HINCRBY', KEYS[6], 'balance', negate(debit))
  redis.call('HINCRBY', KEYS[6], 'inPayout', debit)
  local balance = index_payable(KEYS[7], balanceKey, address)
  history(KEYS[7 + n + i], ARGV[5], 'payout-debit', negate(debit), ARGV[3], balance, ARGV[4])
end
redis.call('HSET', KEYS[3], 'id', ARGV[3], 'state', 'prepared', 'createdAtMs', ARGV[4],
  'updatedAtMs', ARGV[4], 'transfers', ARGV[7], 'totalDebit', ARGV[8], 'totalAmount', ARGV[9],
  'networkFee', ARGV[10], 'feePaidBy', ARGV[11], 'paymentId', ARGV[12], 'walletBlockCount', ARGV[13])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[3])
return {1}
`;

/**
 * mark_sending: prepared -> sending, written just before the wallet call. A batch found prepared
 * by a later run was therefore never handed to the wallet and can be rolled back at once.
 * KEYS: 1 leader, 2 lock, 3 batch. ARGV: 1 token, 2 lock token, 3 now.
 */
const MARK_SENDING_LUA = `${MONEY_LUA_PRELUDE}${LOCK_CHECK}
local state = redis.call('HGET', KEYS[3], 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state ~= 'prepared' then return {0, 'BATCH_STATE', state} end
redis.call('HSET', KEYS[3], 'state', 'sending', 'sendingAtMs', ARGV[3], 'updatedAtMs', ARGV[3])
return {1}
`;

/**
 * note_batch_error: remembers the last wallet error of an open batch (state unchanged).
 * KEYS: 1 leader, 2 lock, 3 batch. ARGV: 1 token, 2 lock token, 3 now, 4 error, 5 kind.
 */
const NOTE_ERROR_LUA = `${MONEY_LUA_PRELUDE}${LOCK_CHECK}
local state = redis.call('HGET', KEYS[3], 'state')
if state ~= 'prepared' and state ~= 'sending' then return {0, 'BATCH_STATE', state or ''} end
redis.call('HSET', KEYS[3], 'lastError', ARGV[4], 'lastErrorKind', ARGV[5], 'lastErrorAtMs', ARGV[3],
  'updatedAtMs', ARGV[3])
redis.call('HINCRBY', KEYS[3], 'errorCount', 1)
return {1}
`;

/** Checks that KEYS[first + i] is the key built from the i-th transfer (Cluster: keys declared). */
const ITEMS_LUA = `
local function items_for(batchKey, first, suffix)
  local items = cjson.decode(redis.call('HGET', batchKey, 'transfers'))
  for i, item in ipairs(items) do
    if KEYS[first + i] ~= ARGV[TAG_ARG] .. suffix .. item.a then return nil end
  end
  return items
end
`;

/**
 * mark_sent: the wallet's transaction is known. in-payout -> paid (+ the miners' fee shares),
 * payment records, tx hash index. Idempotent: a sent batch answers {2, its tx hash}. A batch that
 * was rolled back (failed) and then turns out to have gone out is re-debited from the balance
 * (which may go negative: the miner was paid, later credits settle it) - the money stays right.
 * The batch joins the unconfirmed set until its transaction is deep in the chain (or the wallet
 * drops it: revert_sent).
 * KEYS: 1 leader, 2 lock, 3 batch, 4 open, 5 failed, 6 totals, 7 txs, 8 payable, 9 unconfirmed,
 *       N balance, N history, N payments.
 * ARGV: 1 token, 2 lock token, 3 now, 4 tx hash, 5 actual fee, 6 pool part of the fee (signed),
 *       7 history max, 8 payments max, 9 tag, 10 resolution, 11 batch id.
 */
const MARK_SENT_LUA = `${MONEY_LUA_PRELUDE}${LOCK_CHECK}${ITEMS_LUA.replace('TAG_ARG', '9')}
local state = redis.call('HGET', KEYS[3], 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state == 'sent' then return {2, redis.call('HGET', KEYS[3], 'txHash') or ''} end
local items = items_for(KEYS[3], 9, ':balance:')
if not items then return {0, 'BATCH_STATE', 'keys do not match the batch'} end
local n = #items
local late = state == 'failed'
for i, item in ipairs(items) do
  local balanceKey = KEYS[9 + i]
  if late then
    redis.call('HINCRBY', balanceKey, 'balance', negate(item.deb))
    redis.call('HINCRBY', KEYS[6], 'balance', negate(item.deb))
  else
    redis.call('HINCRBY', balanceKey, 'inPayout', negate(item.deb))
    redis.call('HINCRBY', KEYS[6], 'inPayout', negate(item.deb))
  end
  redis.call('HINCRBY', balanceKey, 'paid', item.amt)
  redis.call('HINCRBY', balanceKey, 'networkFees', item.fee)
  redis.call('HINCRBY', KEYS[6], 'paid', item.amt)
  redis.call('HINCRBY', KEYS[6], 'networkFees', item.fee)
  local balance = index_payable(KEYS[8], balanceKey, item.a)
  local reason = 'payout-sent'
  local amount = item.amt
  if late then reason = 'payout-late-found'; amount = negate(item.deb) end
  history(KEYS[9 + n + i], ARGV[7], reason, amount, ARGV[11] .. ':' .. ARGV[4], balance, ARGV[3])
  redis.call('LPUSH', KEYS[9 + 2 * n + i], cjson.encode({batchId = ARGV[11], txHash = ARGV[4],
    amountAtomic = item.amt, networkFeeAtomic = item.fee, timestampMs = ARGV[3]}))
  redis.call('LTRIM', KEYS[9 + 2 * n + i], 0, tonumber(ARGV[8]) - 1)
end
redis.call('HINCRBY', KEYS[6], 'poolNetworkFees', ARGV[6])
redis.call('HSET', KEYS[3], 'state', 'sent', 'txHash', ARGV[4], 'actualFee', ARGV[5],
  'resolution', ARGV[10], 'resolvedAtMs', ARGV[3], 'updatedAtMs', ARGV[3])
redis.call('ZREM', KEYS[4], ARGV[11])
redis.call('ZREM', KEYS[5], ARGV[11])
redis.call('HSET', KEYS[7], ARGV[4], ARGV[11])
redis.call('ZADD', KEYS[9], ARGV[3], ARGV[11])
return {1, ARGV[4]}
`;

/**
 * rollback_batch: the batch certainly did not go out; every debit returns to its balance.
 * KEYS: 1 leader, 2 lock, 3 batch, 4 open, 5 failed, 6 totals, 7 payable, N balance, N history.
 * ARGV: 1 token, 2 lock token, 3 now, 4 reason, 5 history max, 6 tag, 7 batch id,
 *       8 required state (prepared | sending).
 */
const ROLLBACK_BATCH_LUA = `${MONEY_LUA_PRELUDE}${LOCK_CHECK}${ITEMS_LUA.replace('TAG_ARG', '6')}
local state = redis.call('HGET', KEYS[3], 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state ~= ARGV[8] then return {0, 'BATCH_STATE', state} end
local items = items_for(KEYS[3], 7, ':balance:')
if not items then return {0, 'BATCH_STATE', 'keys do not match the batch'} end
local n = #items
for i, item in ipairs(items) do
  local balanceKey = KEYS[7 + i]
  redis.call('HINCRBY', balanceKey, 'inPayout', negate(item.deb))
  redis.call('HINCRBY', balanceKey, 'balance', item.deb)
  redis.call('HINCRBY', KEYS[6], 'inPayout', negate(item.deb))
  redis.call('HINCRBY', KEYS[6], 'balance', item.deb)
  local balance = index_payable(KEYS[7], balanceKey, item.a)
  history(KEYS[7 + n + i], ARGV[5], 'payout-rollback', item.deb, ARGV[7], balance, ARGV[3])
end
redis.call('HSET', KEYS[3], 'state', 'failed', 'failReason', ARGV[4], 'resolvedAtMs', ARGV[3],
  'updatedAtMs', ARGV[3])
redis.call('ZREM', KEYS[4], ARGV[7])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[7])
return {1}
`;

/**
 * revert_sent: a sent batch whose transaction the wallet dropped (CANCELLED, FAILED or DELETED,
 * for longer than the runner waits): nothing reached the miners. paid -> balance, the fee shares
 * back, the pool's part of the fee back, a history entry and a payment record saying so; the batch
 * becomes failed. Should the transaction be mined after all, mark_sent's late path debits again.
 * KEYS: 1 leader, 2 lock, 3 batch, 4 unconfirmed, 5 failed, 6 totals, 7 txs, 8 payable,
 *       N balance, N history, N payments.
 * ARGV: 1 token, 2 lock token, 3 now, 4 reason, 5 history max, 6 payments max, 7 tag, 8 batch id,
 *       9 pool part of the fee (signed, given back).
 */
const REVERT_SENT_LUA = `${MONEY_LUA_PRELUDE}${LOCK_CHECK}${ITEMS_LUA.replace('TAG_ARG', '7')}
local state = redis.call('HGET', KEYS[3], 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state ~= 'sent' then return {0, 'BATCH_STATE', state} end
local items = items_for(KEYS[3], 8, ':balance:')
if not items then return {0, 'BATCH_STATE', 'keys do not match the batch'} end
local n = #items
local txHash = redis.call('HGET', KEYS[3], 'txHash') or ''
for i, item in ipairs(items) do
  local balanceKey = KEYS[8 + i]
  redis.call('HINCRBY', balanceKey, 'paid', negate(item.amt))
  redis.call('HINCRBY', balanceKey, 'networkFees', negate(item.fee))
  redis.call('HINCRBY', balanceKey, 'balance', item.deb)
  redis.call('HINCRBY', KEYS[6], 'paid', negate(item.amt))
  redis.call('HINCRBY', KEYS[6], 'networkFees', negate(item.fee))
  redis.call('HINCRBY', KEYS[6], 'balance', item.deb)
  local balance = index_payable(KEYS[8], balanceKey, item.a)
  history(KEYS[8 + n + i], ARGV[5], 'payout-reverted', item.deb, ARGV[8] .. ':' .. txHash, balance, ARGV[3])
  redis.call('LPUSH', KEYS[8 + 2 * n + i], cjson.encode({batchId = ARGV[8], txHash = txHash,
    amountAtomic = negate(item.amt), networkFeeAtomic = negate(item.fee), timestampMs = ARGV[3],
    reverted = true}))
  redis.call('LTRIM', KEYS[8 + 2 * n + i], 0, tonumber(ARGV[6]) - 1)
end
redis.call('HINCRBY', KEYS[6], 'poolNetworkFees', negate(ARGV[9]))
redis.call('HSET', KEYS[3], 'state', 'failed', 'failReason', ARGV[4], 'revertedTxHash', txHash,
  'resolvedAtMs', ARGV[3], 'updatedAtMs', ARGV[3])
redis.call('HDEL', KEYS[3], 'txHash')
redis.call('HDEL', KEYS[7], txHash)
redis.call('ZREM', KEYS[4], ARGV[8])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[8])
return {1}
`;

/**
 * confirm_sent: the batch's transaction is deep in the chain; it leaves the unconfirmed set.
 * KEYS: 1 leader, 2 lock, 3 batch, 4 unconfirmed. ARGV: 1 token, 2 lock token, 3 now, 4 batch id,
 *       5 block index.
 */
const CONFIRM_SENT_LUA = `${MONEY_LUA_PRELUDE}${LOCK_CHECK}
if redis.call('HGET', KEYS[3], 'state') == 'sent' then
  redis.call('HSET', KEYS[3], 'confirmedAtMs', ARGV[3], 'blockIndex', ARGV[5], 'updatedAtMs', ARGV[3])
end
redis.call('ZREM', KEYS[4], ARGV[4])
return {1}
`;

const RENEW_LOCK_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
const RELEASE_LOCK_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export interface PayoutStoreOptions {
  readonly keyPrefix: string;
  readonly historyMaxLength?: number;
  readonly paymentsMaxLength?: number;
}

/** Payout batches in Redis: the exactly-once state machine, the payout lock, and reads. */
export class PayoutStore implements PayoutJournal {
  readonly keys: PaymentKeys;
  readonly #redis: Redis;
  readonly #clock: () => number;
  readonly #historyMaxLength: number;
  readonly #paymentsMaxLength: number;
  readonly #prepare: ScriptRunner;
  readonly #markSending: ScriptRunner;
  readonly #noteError: ScriptRunner;
  readonly #markSent: ScriptRunner;
  readonly #rollback: ScriptRunner;
  readonly #revertSent: ScriptRunner;
  readonly #confirmSent: ScriptRunner;
  readonly #renew: ScriptRunner;
  readonly #release: ScriptRunner;

  constructor(opts: PayoutStoreOptions, modules: { redis: Redis; clock?: () => number }) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.#redis = modules.redis;
    this.#clock = modules.clock ?? Date.now;
    this.#historyMaxLength = opts.historyMaxLength ?? DEFAULT_HISTORY_MAX_LENGTH;
    this.#paymentsMaxLength = opts.paymentsMaxLength ?? DEFAULT_PAYMENTS_MAX_LENGTH;
    const redis = modules.redis;
    this.#prepare = defineScript(redis, 'fuegoPoolPrepareBatch', PREPARE_BATCH_LUA);
    this.#markSending = defineScript(redis, 'fuegoPoolMarkBatchSending', MARK_SENDING_LUA);
    this.#noteError = defineScript(redis, 'fuegoPoolNoteBatchError', NOTE_ERROR_LUA);
    this.#markSent = defineScript(redis, 'fuegoPoolMarkBatchSent', MARK_SENT_LUA);
    this.#rollback = defineScript(redis, 'fuegoPoolRollbackBatch', ROLLBACK_BATCH_LUA);
    this.#revertSent = defineScript(redis, 'fuegoPoolRevertSentBatch', REVERT_SENT_LUA);
    this.#confirmSent = defineScript(redis, 'fuegoPoolConfirmSentBatch', CONFIRM_SENT_LUA);
    this.#renew = defineScript(redis, 'fuegoPoolRenewPayoutLock', RENEW_LOCK_LUA);
    this.#release = defineScript(redis, 'fuegoPoolReleasePayoutLock', RELEASE_LOCK_LUA);
  }

  // ---- payout lock --------------------------------------------------------------------------

  /** True when this token now holds the payout lock (SET NX PX). */
  async acquireLock(lockToken: string, ttlMs: number): Promise<boolean> {
    const reply = await run('acquireLock', () =>
      this.#redis.set(this.keys.payoutLock, lockToken, 'PX', ttlMs, 'NX'),
    );
    return reply === 'OK';
  }

  async renewLock(lockToken: string, ttlMs: number): Promise<boolean> {
    const reply = await run('renewLock', () =>
      this.#renew({ keys: [this.keys.payoutLock], args: [lockToken, String(ttlMs)] }),
    );
    return reply === 1;
  }

  async releaseLock(lockToken: string): Promise<void> {
    await run('releaseLock', () => this.#release({ keys: [this.keys.payoutLock], args: [lockToken] }));
  }

  // ---- the batch state machine ----------------------------------------------------------------

  async prepareBatch(writer: PayoutWriter, request: PrepareBatchRequest): Promise<void> {
    const { transfers } = request;
    if (transfers.length === 0) throw new PaymentStoreError('INVALID_AMOUNT', 'a batch needs transfers');
    const addresses = new Set(transfers.map((t) => t.address));
    if (addresses.size !== transfers.length) {
      throw new PaymentStoreError('INVALID_AMOUNT', 'a miner appears twice in one batch', { id: request.id });
    }
    let totalDebit = 0n;
    let totalAmount = 0n;
    for (const t of transfers) {
      if (
        t.amountAtomic <= 0n ||
        t.feeShareAtomic < 0n ||
        t.debitAtomic !== t.amountAtomic + t.feeShareAtomic
      ) {
        throw new PaymentStoreError('INVALID_AMOUNT', 'transfer amounts do not add up', {
          address: t.address,
        });
      }
      totalDebit += t.debitAtomic;
      totalAmount += t.amountAtomic;
    }
    const args = [
      writer.fencingToken,
      writer.lockToken,
      request.id,
      String(this.#clock()),
      String(this.#historyMaxLength),
      String(transfers.length),
      encodeTransfers(transfers),
      amountArg(totalDebit, 'totalDebit'),
      amountArg(totalAmount, 'totalAmount'),
      amountArg(request.networkFeeAtomic, 'networkFee'),
      request.feePaidBy,
      request.paymentId,
      String(request.walletBlockCount),
    ];
    for (const t of transfers) args.push(t.address, amountArg(t.debitAtomic, 'debit'));
    const keys = [
      this.keys.leaderToken,
      this.keys.payoutLock,
      this.keys.batch(request.id),
      this.keys.batchesOpen,
      this.keys.batches,
      this.keys.totals,
      this.keys.payable,
      ...transfers.map((t) => this.keys.balance(t.address)),
      ...transfers.map((t) => this.keys.history(t.address)),
    ];
    await this.#write('prepare_batch', this.#prepare, keys, args);
  }

  async markSending(writer: PayoutWriter, batchId: string): Promise<void> {
    await this.#write(
      'mark_sending',
      this.#markSending,
      [this.keys.leaderToken, this.keys.payoutLock, this.keys.batch(batchId)],
      [writer.fencingToken, writer.lockToken, String(this.#clock())],
    );
  }

  async noteError(writer: PayoutWriter, batchId: string, error: string, kind: string): Promise<void> {
    await this.#write(
      'note_batch_error',
      this.#noteError,
      [this.keys.leaderToken, this.keys.payoutLock, this.keys.batch(batchId)],
      [writer.fencingToken, writer.lockToken, String(this.#clock()), error.slice(0, 500), kind],
    );
  }

  /** Returns false when the batch was already sent (nothing changed). */
  async markSent(
    writer: PayoutWriter,
    batch: PayoutBatch,
    outcome: { txHash: string; actualFeeAtomic: bigint; resolution: string },
  ): Promise<boolean> {
    const minersFeeShare = batch.transfers.reduce((sum, t) => sum + t.feeShareAtomic, 0n);
    const keys = [
      this.keys.leaderToken,
      this.keys.payoutLock,
      this.keys.batch(batch.id),
      this.keys.batchesOpen,
      this.keys.batchesFailed,
      this.keys.totals,
      this.keys.payoutTransactions,
      this.keys.payable,
      this.keys.batchesUnconfirmed,
      ...batch.transfers.map((t) => this.keys.balance(t.address)),
      ...batch.transfers.map((t) => this.keys.history(t.address)),
      ...batch.transfers.map((t) => this.keys.payments(t.address)),
    ];
    const args = [
      writer.fencingToken,
      writer.lockToken,
      String(this.#clock()),
      outcome.txHash,
      amountArg(outcome.actualFeeAtomic, 'actualFee'),
      amountArg(outcome.actualFeeAtomic - minersFeeShare, 'poolNetworkFee', true),
      String(this.#historyMaxLength),
      String(this.#paymentsMaxLength),
      this.keys.tag,
      outcome.resolution,
      batch.id,
    ];
    const reply = await this.#write('mark_sent', this.#markSent, keys, args);
    return reply[0] === 1;
  }

  async rollback(
    writer: PayoutWriter,
    batch: PayoutBatch,
    reason: string,
    requiredState: 'prepared' | 'sending',
  ): Promise<void> {
    const keys = [
      this.keys.leaderToken,
      this.keys.payoutLock,
      this.keys.batch(batch.id),
      this.keys.batchesOpen,
      this.keys.batchesFailed,
      this.keys.totals,
      this.keys.payable,
      ...batch.transfers.map((t) => this.keys.balance(t.address)),
      ...batch.transfers.map((t) => this.keys.history(t.address)),
    ];
    const args = [
      writer.fencingToken,
      writer.lockToken,
      String(this.#clock()),
      reason.slice(0, 500),
      String(this.#historyMaxLength),
      this.keys.tag,
      batch.id,
      requiredState,
    ];
    await this.#write('rollback_batch', this.#rollback, keys, args);
  }

  async revertSent(writer: PayoutWriter, batch: PayoutBatch, reason: string): Promise<void> {
    const minersFeeShare = batch.transfers.reduce((sum, t) => sum + t.feeShareAtomic, 0n);
    const actualFee = batch.actualFeeAtomic ?? batch.networkFeeAtomic;
    const keys = [
      this.keys.leaderToken,
      this.keys.payoutLock,
      this.keys.batch(batch.id),
      this.keys.batchesUnconfirmed,
      this.keys.batchesFailed,
      this.keys.totals,
      this.keys.payoutTransactions,
      this.keys.payable,
      ...batch.transfers.map((t) => this.keys.balance(t.address)),
      ...batch.transfers.map((t) => this.keys.history(t.address)),
      ...batch.transfers.map((t) => this.keys.payments(t.address)),
    ];
    const args = [
      writer.fencingToken,
      writer.lockToken,
      String(this.#clock()),
      reason.slice(0, 500),
      String(this.#historyMaxLength),
      String(this.#paymentsMaxLength),
      this.keys.tag,
      batch.id,
      amountArg(actualFee - minersFeeShare, 'poolNetworkFee', true),
    ];
    await this.#write('revert_sent', this.#revertSent, keys, args);
  }

  async confirmSent(writer: PayoutWriter, batchId: string, blockIndex: number): Promise<void> {
    await this.#write(
      'confirm_sent',
      this.#confirmSent,
      [this.keys.leaderToken, this.keys.payoutLock, this.keys.batch(batchId), this.keys.batchesUnconfirmed],
      [writer.fencingToken, writer.lockToken, String(this.#clock()), batchId, String(blockIndex)],
    );
  }

  /** Sent batches whose transaction is not deep in the chain yet, oldest first. */
  async listUnconfirmedSent(limit = MAX_LIST_PAGE): Promise<PayoutBatch[]> {
    return this.#listFrom(this.keys.batchesUnconfirmed, limit, false);
  }

  async setLastRun(atMs: number): Promise<void> {
    await run('setLastRun', () => this.#redis.set(this.keys.payoutLastRun, String(atMs)));
  }

  async getLastRun(): Promise<number | null> {
    const value = await run('getLastRun', () => this.#redis.get(this.keys.payoutLastRun));
    return value === null ? null : Number(value);
  }

  // ---- reads ----------------------------------------------------------------------------------

  async getBatch(batchId: string): Promise<PayoutBatch | null> {
    const raw = await run('getBatch', () => this.#redis.hgetall(this.keys.batch(batchId)));
    return Object.keys(raw).length === 0 ? null : parseBatch(raw);
  }

  async knownBatchIds(batchIds: readonly string[]): Promise<Set<string>> {
    if (batchIds.length === 0) return new Set();
    const pipeline = this.#redis.pipeline();
    for (const id of batchIds) pipeline.exists(this.keys.batch(id));
    const replies = (await run('knownBatchIds', () => pipeline.exec())) ?? [];
    const known = new Set<string>();
    replies.forEach(([error, exists], index) => {
      if (error) throw toStoreError(error, 'knownBatchIds');
      if (exists === 1) known.add(batchIds[index]!);
    });
    return known;
  }

  /** Batches in state prepared or sending, oldest first. */
  async listOpenBatches(limit = MAX_LIST_PAGE): Promise<PayoutBatch[]> {
    return this.#listFrom(this.keys.batchesOpen, limit, false);
  }

  /** Most recent batches first (any state). */
  async listRecentBatches(limit = 50): Promise<PayoutBatch[]> {
    return this.#listFrom(this.keys.batches, limit, true);
  }

  /** Most recently rolled back first. */
  async listFailedBatches(limit = 50): Promise<PayoutBatch[]> {
    return this.#listFrom(this.keys.batchesFailed, limit, true);
  }

  /** The batch id a transaction hash was recorded for, if any. */
  async batchIdOfTransaction(txHash: string): Promise<string | null> {
    return run('batchIdOfTransaction', () => this.#redis.hget(this.keys.payoutTransactions, txHash));
  }

  async #listFrom(key: string, limit: number, newestFirst: boolean): Promise<PayoutBatch[]> {
    const count = Math.max(1, Math.min(limit, MAX_LIST_PAGE));
    const ids = await run('listBatches', () =>
      newestFirst ? this.#redis.zrevrange(key, 0, count - 1) : this.#redis.zrange(key, 0, count - 1),
    );
    const batches: PayoutBatch[] = [];
    for (const id of ids) {
      const batch = await this.getBatch(id);
      if (batch) batches.push(batch);
    }
    return batches;
  }

  async #write(operation: string, script: ScriptRunner, keys: string[], args: string[]): Promise<unknown[]> {
    const reply = await run(operation, () => script({ keys, args }));
    const refusal = refusalOf(reply, operation);
    if (refusal) throw refusal;
    return reply as unknown[];
  }
}

/** JSON with every amount as a decimal string (Lua's cjson would turn numbers into doubles). */
function encodeTransfers(transfers: readonly BatchTransfer[]): string {
  return JSON.stringify(
    transfers.map((t) => ({
      a: t.address,
      dst: t.destination,
      amt: t.amountAtomic.toString(),
      fee: t.feeShareAtomic.toString(),
      deb: t.debitAtomic.toString(),
    })),
  );
}

function parseBatch(raw: Record<string, string>): PayoutBatch {
  const id = raw['id'] ?? '';
  const bad = (what: string): never => {
    throw new PaymentStoreError('CORRUPT_BALANCE', `corrupt payout batch ${what}`, { id, what });
  };
  const state = raw['state'];
  if (state !== 'prepared' && state !== 'sending' && state !== 'sent' && state !== 'failed') bad('state');
  let items: Array<Record<string, string>>;
  try {
    items = JSON.parse(raw['transfers'] ?? '') as Array<Record<string, string>>;
  } catch {
    return bad('transfers');
  }
  const num = (name: string): number | null => (raw[name] === undefined ? null : Number(raw[name]));
  const text = (name: string): string | null => raw[name] ?? null;
  return {
    id,
    state: state as BatchState,
    createdAtMs: num('createdAtMs') ?? 0,
    updatedAtMs: num('updatedAtMs') ?? 0,
    transfers: items.map((item) => ({
      address: String(item['a']),
      destination: String(item['dst']),
      amountAtomic: parseStoredAmount(item['amt'], 'transfer amount'),
      feeShareAtomic: parseStoredAmount(item['fee'], 'transfer fee share'),
      debitAtomic: parseStoredAmount(item['deb'], 'transfer debit'),
    })),
    paymentId: raw['paymentId'] ?? '',
    totalDebitAtomic: parseStoredAmount(raw['totalDebit'], 'totalDebit'),
    totalAmountAtomic: parseStoredAmount(raw['totalAmount'], 'totalAmount'),
    networkFeeAtomic: parseStoredAmount(raw['networkFee'], 'networkFee'),
    feePaidBy: raw['feePaidBy'] === 'miners' ? 'miners' : 'pool',
    walletBlockCount: num('walletBlockCount') ?? 0,
    sendingAtMs: num('sendingAtMs'),
    txHash: text('txHash'),
    actualFeeAtomic: raw['actualFee'] === undefined ? null : parseStoredAmount(raw['actualFee'], 'actualFee'),
    lastError: text('lastError'),
    lastErrorKind: text('lastErrorKind'),
    failReason: text('failReason'),
    resolution: text('resolution'),
    resolvedAtMs: num('resolvedAtMs'),
  };
}

async function run<T>(operation: string, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof PaymentStoreError) throw error;
    throw toStoreError(error, operation);
  }
}
