import type { Redis } from 'ioredis';
import type { PayoutBatch, PayoutWriter, PrepareBatchRequest } from '../../model/payouts/payout-batch.js';
import type { PayoutJournal } from '../../model/payouts/payout-journal.js';
import { defineScript, type ScriptCall, type ScriptRunner } from '../scripts/define-script.js';
import { toStoreError } from '../store-error.js';
import { DEFAULT_HISTORY_MAX_LENGTH } from './balances-store.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';
import { PaymentStoreError, refusalOf } from './payment-store-error.js';
import { parseBatch } from './payout-batch-record.js';
import { buildConfirmSentCall, CONFIRM_SENT_LUA } from './scripts/confirm-sent.js';
import { buildMarkSendingCall, MARK_SENDING_LUA } from './scripts/mark-sending.js';
import { buildMarkSentCall, MARK_SENT_LUA, type SentOutcome } from './scripts/mark-sent.js';
import { buildMarkUnminedNotifiedCall, MARK_UNMINED_NOTIFIED_LUA } from './scripts/mark-unmined-notified.js';
import { buildMarkWalletMissingCall, MARK_WALLET_MISSING_LUA } from './scripts/mark-wallet-missing.js';
import type { PayoutCallContext } from './scripts/money-script.js';
import { buildNoteErrorCall, NOTE_ERROR_LUA } from './scripts/note-batch-error.js';
import {
  buildReleaseLockCall,
  buildRenewLockCall,
  RELEASE_LOCK_LUA,
  RENEW_LOCK_LUA,
} from './scripts/payout-lock.js';
import { buildPrepareBatchCall, PREPARE_BATCH_LUA } from './scripts/prepare-batch.js';
import { buildRevertSentCall, REVERT_SENT_LUA } from './scripts/revert-sent.js';
import { buildRollbackBatchCall, ROLLBACK_BATCH_LUA } from './scripts/rollback-batch.js';
import { buildSettleFeeCall, SETTLE_FEE_LUA } from './scripts/settle-fee.js';
import { type SentBatchesPage, SentBatchesReader } from './sent-batches-reader.js';

/** Payment records kept per miner in `<p>:payments:<address>`. */
const DEFAULT_PAYMENTS_MAX_LENGTH = 1_000;
const MAX_LIST_PAGE = 1_000;

export interface PayoutStoreOptions {
  readonly keyPrefix: string;
  readonly historyMaxLength?: number;
  readonly paymentsMaxLength?: number;
}

/**
 * Payout batches in Redis: the exactly-once state machine, the payout lock, and reads. Each step
 * is one script of scripts/ (prepare_batch, mark_sending, note_batch_error, mark_sent, settle_fee,
 * rollback_batch, revert_sent, confirm_sent, mark_wallet_missing, mark_unmined_notified), all
 * refusing unless the caller holds the lock.
 */
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
  readonly #settleFee: ScriptRunner;
  readonly #rollback: ScriptRunner;
  readonly #revertSent: ScriptRunner;
  readonly #confirmSent: ScriptRunner;
  readonly #markWalletMissing: ScriptRunner;
  readonly #markUnminedNotified: ScriptRunner;
  readonly #renew: ScriptRunner;
  readonly #release: ScriptRunner;
  readonly #sent: SentBatchesReader;

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
    this.#settleFee = defineScript(redis, 'fuegoPoolSettleBatchFee', SETTLE_FEE_LUA);
    this.#rollback = defineScript(redis, 'fuegoPoolRollbackBatch', ROLLBACK_BATCH_LUA);
    this.#revertSent = defineScript(redis, 'fuegoPoolRevertSentBatch', REVERT_SENT_LUA);
    this.#confirmSent = defineScript(redis, 'fuegoPoolConfirmSentBatch', CONFIRM_SENT_LUA);
    this.#markWalletMissing = defineScript(redis, 'fuegoPoolMarkBatchWalletMissing', MARK_WALLET_MISSING_LUA);
    this.#markUnminedNotified = defineScript(
      redis,
      'fuegoPoolMarkBatchUnminedNotified',
      MARK_UNMINED_NOTIFIED_LUA,
    );
    this.#renew = defineScript(redis, 'fuegoPoolRenewPayoutLock', RENEW_LOCK_LUA);
    this.#release = defineScript(redis, 'fuegoPoolReleasePayoutLock', RELEASE_LOCK_LUA);
    this.#sent = new SentBatchesReader({ redis, keys: this.keys, scanLimit: MAX_LIST_PAGE });
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
      this.#renew(buildRenewLockCall(this.keys.payoutLock, lockToken, ttlMs)),
    );
    return reply === 1;
  }

  async releaseLock(lockToken: string): Promise<void> {
    await run('releaseLock', () => this.#release(buildReleaseLockCall(this.keys.payoutLock, lockToken)));
  }

  // ---- the batch state machine ----------------------------------------------------------------

  async prepareBatch(writer: PayoutWriter, request: PrepareBatchRequest): Promise<void> {
    const call = buildPrepareBatchCall(this.#context(writer), request);
    await this.#write('prepare_batch', this.#prepare, call);
  }

  async markSending(writer: PayoutWriter, batchId: string): Promise<void> {
    await this.#write(
      'mark_sending',
      this.#markSending,
      buildMarkSendingCall(this.#context(writer), batchId),
    );
  }

  async noteError(writer: PayoutWriter, batchId: string, error: string, kind: string): Promise<void> {
    const call = buildNoteErrorCall(this.#context(writer), batchId, { text: error, kind });
    await this.#write('note_batch_error', this.#noteError, call);
  }

  /** Returns false when the batch was already sent (nothing changed). */
  async markSent(writer: PayoutWriter, batch: PayoutBatch, outcome: SentOutcome): Promise<boolean> {
    const call = buildMarkSentCall(this.#context(writer), batch, outcome);
    const reply = await this.#write('mark_sent', this.#markSent, call);
    return reply[0] === 1;
  }

  /** Returns false when there was nothing to settle (settled already, reverted, not assumed). */
  async settleAssumedFee(
    writer: PayoutWriter,
    batch: PayoutBatch,
    actualFeeAtomic: bigint,
  ): Promise<boolean> {
    const call = buildSettleFeeCall(this.#context(writer), batch, actualFeeAtomic);
    const reply = await this.#write('settle_fee', this.#settleFee, call);
    return reply[0] === 1;
  }

  async rollback(
    writer: PayoutWriter,
    batch: PayoutBatch,
    reason: string,
    requiredState: 'prepared' | 'sending',
  ): Promise<void> {
    const call = buildRollbackBatchCall(this.#context(writer), batch, reason, requiredState);
    await this.#write('rollback_batch', this.#rollback, call);
  }

  async revertSent(writer: PayoutWriter, batch: PayoutBatch, reason: string): Promise<void> {
    await this.#write(
      'revert_sent',
      this.#revertSent,
      buildRevertSentCall(this.#context(writer), batch, reason),
    );
  }

  async confirmSent(writer: PayoutWriter, batchId: string, blockIndex: number, note = ''): Promise<void> {
    const call = buildConfirmSentCall(this.#context(writer), batchId, blockIndex, note);
    await this.#write('confirm_sent', this.#confirmSent, call);
  }

  async markWalletMissing(writer: PayoutWriter, batchId: string, missing: boolean): Promise<boolean> {
    const call = buildMarkWalletMissingCall(this.#context(writer), batchId, missing);
    const reply = await this.#write('mark_wallet_missing', this.#markWalletMissing, call);
    return reply[1] === 1;
  }

  async markUnminedNotified(writer: PayoutWriter, batchId: string): Promise<boolean> {
    const call = buildMarkUnminedNotifiedCall(this.#context(writer), batchId);
    const reply = await this.#write('mark_unmined_notified', this.#markUnminedNotified, call);
    return reply[1] === 1;
  }

  async walletMissingSince(): Promise<Map<string, number>> {
    const flat = await run('walletMissingSince', () =>
      this.#redis.zrange(this.keys.batchesWalletMissing, 0, -1, 'WITHSCORES'),
    );
    const since = new Map<string, number>();
    for (let i = 0; i + 1 < flat.length; i += 2) since.set(flat[i]!, Number(flat[i + 1]));
    return since;
  }

  async deferSentWatch(batchId: string, atMs: number): Promise<void> {
    // XX: a batch confirmed or reverted meanwhile is not watched again.
    await run('deferSentWatch', () => this.#redis.zadd(this.keys.batchesUnconfirmed, 'XX', atMs, batchId));
  }

  /** Sent batches whose transaction is not deep in the chain yet, oldest first (deferSentWatch moves one back). */
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

  /**
   * When the oldest sent batch whose transaction is not confirmed deep yet was sent (its sentAtMs),
   * null when none waits: one pipelined read of up to MAX_LIST_PAGE records, for /metrics.
   */
  async oldestUnconfirmedSentMs(): Promise<number | null> {
    const ids = await run('oldestUnconfirmedSentMs', () =>
      this.#redis.zrange(this.keys.batchesUnconfirmed, 0, MAX_LIST_PAGE - 1),
    );
    if (ids.length === 0) return null;
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hmget(this.keys.batch(id), 'resolvedAtMs', 'updatedAtMs');
    const replies = (await run('oldestUnconfirmedSentMs', () => pipeline.exec())) ?? [];
    let oldest: number | null = null;
    for (const [error, fields] of replies) {
      if (error) throw toStoreError(error, 'oldestUnconfirmedSentMs');
      const [resolvedAtMs, updatedAtMs] = fields as (string | null)[];
      // sentAtMs (payout-batch.ts): mark_sent's time, or updatedAtMs for a batch from before it.
      const sentMs = Number(resolvedAtMs ?? updatedAtMs);
      if (Number.isFinite(sentMs) && sentMs > 0 && (oldest === null || sentMs < oldest)) oldest = sentMs;
    }
    return oldest;
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

  /** Sent batches, newest first, paged over sent ones only (see sent-batches-reader.ts). */
  async listSentBatches(page: SentBatchesPage): Promise<PayoutBatch[]> {
    return this.#sent.page(page);
  }

  /**
   * The newest `limit` sent batches sent (sentAtMs) before `beforeMs`, found from
   * `beforeMs` down, so older ones than the newest MAX_LIST_PAGE are reachable too; at most
   * MAX_LIST_PAGE batches (of any state) are looked at per call.
   */
  async listSentBatchesBefore(beforeMs: number, limit: number): Promise<PayoutBatch[]> {
    return this.#sent.before(beforeMs, Math.min(limit, MAX_LIST_PAGE));
  }

  /** Most recently rolled back first. */
  async listFailedBatches(limit = 50): Promise<PayoutBatch[]> {
    return this.#listFrom(this.keys.batchesFailed, limit, true);
  }

  /**
   * How many batches are open, how many failed and how many sent ones the wallet has no record of
   * (all of them, not a page).
   */
  async countBatches(): Promise<{
    readonly open: number;
    readonly failed: number;
    readonly walletMissing: number;
  }> {
    const [open, failed, walletMissing] = await Promise.all([
      run('countBatches', () => this.#redis.zcard(this.keys.batchesOpen)),
      run('countBatches', () => this.#redis.zcard(this.keys.batchesFailed)),
      run('countBatches', () => this.#redis.zcard(this.keys.batchesWalletMissing)),
    ]);
    return { open, failed, walletMissing };
  }

  /** Batches sent and not reverted: each holds one entry of `payout:txs` (mark_sent adds it, revert_sent removes it). */
  async countSentBatches(): Promise<number> {
    return run('countSentBatches', () => this.#redis.hlen(this.keys.payoutTransactions));
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

  /** What every payout script call of this store is made with. */
  #context(writer: PayoutWriter): PayoutCallContext {
    return {
      keys: this.keys,
      writer,
      clock: this.#clock,
      historyMaxLength: this.#historyMaxLength,
      paymentsMaxLength: this.#paymentsMaxLength,
    };
  }

  async #write(operation: string, script: ScriptRunner, call: ScriptCall): Promise<unknown[]> {
    const reply = await run(operation, () => script(call));
    const refusal = refusalOf(reply, operation);
    if (refusal) throw refusal;
    return reply as unknown[];
  }
}

async function run<T>(operation: string, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof PaymentStoreError) throw error;
    throw toStoreError(error, operation);
  }
}
