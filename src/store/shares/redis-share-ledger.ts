import type { Redis } from 'ioredis';
import type { Logger } from '../../log/logger.js';
import type { BlockRefusalReason } from '../../model/block-refusal-reason.js';
import type { StoredBlockCandidate, StoredBlockStatus } from '../../model/blocks/stored-block.js';
import type {
  AcceptedShare,
  BlockCandidate,
  RefusalRecordOutcome,
  ShareLedger,
} from '../../model/share-ledger.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { StoreError, toStoreError } from '../store-error.js';
import { RedisBlockAnnouncements } from './block-announcements.js';
import { boundedCandidate, validateCandidate, validateRefusal } from './block-candidate-checks.js';
import { retryBlockWrite } from './block-write-retry.js';
import { type ReadSharesOptions, RedisLedgerReader, type ShareWindow } from './ledger-reader.js';
import {
  buildRecordBlockCandidateCall,
  RECORD_BLOCK_CANDIDATE_LUA,
} from './scripts/record-block-candidate.js';
import { buildRecordBlockRefusalCall, RECORD_BLOCK_REFUSAL_LUA } from './scripts/record-block-refusal.js';
import { buildRecordSharesCall, RECORD_SHARES_LUA } from './scripts/record-shares.js';
import { validateShare } from './share-entry.js';
import { createShareKeys, type ShareKeys } from './share-keys.js';
import { type RedisShareLedgerOptions, shareLedgerSettings } from './share-ledger-options.js';

/** Failure logs during an outage: at most one per this interval, with a count of the rest. */
const FAILURE_LOG_INTERVAL_MS = 5_000;

export interface RedisShareLedgerModules {
  readonly redis: Redis;
  readonly logger: Logger;
  /**
   * Called with every batch once it is durable (hashrate buckets, live stats), and with a block
   * candidate's solving share once the write that created the candidate is, so every share counts
   * there exactly once. It must not throw, and nothing waits for what it starts.
   */
  readonly onBatchRecorded?: (shares: readonly AcceptedShare[]) => void;
  /** Now in ms (a promoted block's next round starts then); Date.now by default. */
  readonly clock?: () => number;
}

export interface CandidateWriteResult {
  /** False when the same block hash was already recorded: nothing was changed. */
  readonly created: boolean;
  readonly shareEntryId: string;
  readonly status: StoredBlockStatus;
}

export interface ShareLedgerMetrics {
  /** Shares waiting for the next batch. */
  readonly queuedShares: number;
  /** Shares sent to Redis and not answered yet. */
  readonly inFlightShares: number;
  readonly batchesWritten: number;
  readonly batchesFailed: number;
}

interface PendingShare {
  readonly share: AcceptedShare;
  readonly resolve: () => void;
  readonly reject: (error: StoreError) => void;
}

/**
 * The Redis ShareLedger. recordShare() resolves only once the batch holding the share has been
 * applied by Redis (the script returned), so a miner hears "OK" only for a durable share.
 * A batch is sent when it holds maxBatchSize shares or maxBatchDelayMs after its first share;
 * batches are pipelined on the one connection, so Redis applies them (and candidates) in call
 * order. Failures reject every share of the batch (STORE_UNAVAILABLE / STORE_WRITE_FAILED); no
 * share is resolved unless its batch's script returned.
 *
 * Durability is "applied by Redis": with appendonly + appendfsync everysec, a Redis crash can
 * still lose about a second; that is the Redis operator's setting, not this class's.
 *
 * The client must not re-send unanswered commands after a reconnect (createRedisClient's
 * settings): a re-sent batch that had already been applied would be credited twice. A batch that
 * was in flight when the connection dropped is rejected although Redis may have applied it: the
 * miner then hears an error for a share the pool credits, never the reverse.
 */
export class RedisShareLedger implements ShareLedger {
  readonly reader: RedisLedgerReader;
  readonly #keys: ShareKeys;
  readonly #logger: Logger;
  readonly #onBatchRecorded: ((shares: readonly AcceptedShare[]) => void) | undefined;
  readonly #maxBatchSize: number;
  readonly #maxBatchDelayMs: number;
  readonly #streamMaxLength: number;
  readonly #maxPendingShares: number;
  readonly #candidateRetryMs: number;
  readonly #recordShares: ScriptRunner;
  readonly #redis: Redis;
  readonly #replicaAcks: RedisShareLedgerOptions['replicaAcks'];
  readonly #clock: () => number;

  readonly #recordBlockCandidate: ScriptRunner;
  readonly #recordBlockRefusal: ScriptRunner;
  readonly #announcements: RedisBlockAnnouncements;

  #queue: PendingShare[] = [];
  #cancelTimer: (() => void) | null = null;
  #inFlightShares = 0;
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;
  #closePromise: Promise<void> | null = null;
  #batchesWritten = 0;
  #batchesFailed = 0;
  #lastFailureLogMs = 0;
  #suppressedFailures = 0;

  constructor(opts: RedisShareLedgerOptions, modules: RedisShareLedgerModules) {
    this.#keys = createShareKeys(opts.keyPrefix);
    this.#redis = modules.redis;
    this.#replicaAcks = opts.replicaAcks;
    this.#logger = modules.logger;
    this.#onBatchRecorded = modules.onBatchRecorded;
    this.#clock = modules.clock ?? Date.now;

    const settings = shareLedgerSettings(opts);
    this.#maxBatchSize = settings.maxBatchSize;
    this.#maxBatchDelayMs = settings.maxBatchDelayMs;
    this.#streamMaxLength = settings.streamMaxLength;
    this.#maxPendingShares = settings.maxPendingShares;
    this.#candidateRetryMs = settings.candidateRetryMs;
    this.#recordShares = defineScript(modules.redis, 'fuegoPoolRecordShares', RECORD_SHARES_LUA);
    this.#recordBlockCandidate = defineScript(
      modules.redis,
      'fuegoPoolRecordBlockCandidate',
      RECORD_BLOCK_CANDIDATE_LUA,
    );
    this.#recordBlockRefusal = defineScript(
      modules.redis,
      'fuegoPoolRecordBlockRefusal',
      RECORD_BLOCK_REFUSAL_LUA,
    );
    this.reader = new RedisLedgerReader({ keyPrefix: opts.keyPrefix }, { redis: modules.redis });
    this.#announcements = new RedisBlockAnnouncements(
      { keyPrefix: opts.keyPrefix },
      { redis: modules.redis },
    );
  }

  /** Resolves once the batch holding the share has been applied by Redis. */
  recordShare(share: AcceptedShare): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreError('STORE_CLOSED', 'the share ledger is closed'));
    try {
      validateShare(share);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#queue.length + this.#inFlightShares >= this.#maxPendingShares) {
      return Promise.reject(
        new StoreError('STORE_BACKLOG_FULL', 'too many shares wait for Redis', {
          pending: this.#queue.length + this.#inFlightShares,
          maxPendingShares: this.#maxPendingShares,
        }),
      );
    }
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ share, resolve, reject });
      if (this.#queue.length >= this.#maxBatchSize) this.#flush();
      else this.#scheduleFlush();
    });
  }

  /**
   * Records the solving share and the candidate atomically and closes the pool round (not for a
   * solo or a rejected block). Shares queued before this call are sent first, so they land in
   * the round the block closes. Recording the same hash again changes nothing (`created` false).
   * Retried with backoff for candidateRetryMs while Redis is unavailable (safe: idempotent); a
   * late retry may let shares recorded in the meantime count in the round it closes, which is
   * better than losing the block record.
   */
  async recordBlockCandidate(candidate: BlockCandidate): Promise<void> {
    await this.writeBlockCandidate(candidate);
  }

  /** recordBlockCandidate, telling whether this call created the record and where its share is. */
  async writeBlockCandidate(candidate: BlockCandidate): Promise<CandidateWriteResult> {
    if (this.#closed) throw new StoreError('STORE_CLOSED', 'the share ledger is closed');
    validateCandidate(candidate);
    const bounded = boundedCandidate(candidate);
    this.#flush();
    const write = this.#writeCandidateWithRetry(bounded);
    this.#track(write);
    const result = await write;
    // The solving share is work like any other, refused block or not; a rewrite added nothing.
    if (result.created) this.#notifyBatchRecorded([bounded.share]);
    return result;
  }

  /**
   * Adds the refusal reason to a rejected candidate's record, and promotes a block found on the
   * chain after all (`already-on-chain`) to a pending candidate that closes the pool round, in one
   * script (see record_block_refusal). Retried like a candidate write while Redis is unavailable:
   * a lost promotion would lose the block.
   */
  async recordBlockRefusal(
    candidate: BlockCandidate,
    reason: BlockRefusalReason,
  ): Promise<RefusalRecordOutcome> {
    if (this.#closed) throw new StoreError('STORE_CLOSED', 'the share ledger is closed');
    validateRefusal(candidate, reason);
    const call = buildRecordBlockRefusalCall(this.#keys, candidate, reason, this.#clock());
    const write = this.#retryingBlockWrite('record_block_refusal', candidate, async () => {
      const reply = await this.#recordBlockRefusal(call);
      if (reply !== 0 && reply !== 1 && reply !== 2) {
        throw new StoreError('STORE_WRITE_FAILED', 'record_block_refusal gave an unexpected reply', {
          hash: candidate.hash,
        });
      }
      return reply;
    });
    this.#track(write);
    const reply = await write;
    if (reply === 2) {
      this.#logger.info(
        { height: candidate.height, hash: candidate.hash, solo: candidate.share.solo },
        'refused block on the chain promoted to a pending candidate',
      );
      return 'promoted';
    }
    return reply === 1 ? 'recorded' : 'unchanged';
  }

  /** Clears the block's announce-pending mark; a failure is logged (the leader then tells it again). */
  async markBlockAnnounced(hash: string): Promise<void> {
    try {
      await this.#announcements.markAnnounced(hash);
    } catch (error) {
      this.#logger.warn(
        { err: error, hash },
        'block-found published but not marked so: the leader tells it again',
      );
    }
  }

  getRoundContributions(round?: { height: number; hash: string }): Promise<Map<string, bigint>> {
    return this.reader.getRoundContributions(round);
  }

  getBlockCandidate(hash: string): Promise<StoredBlockCandidate | null> {
    return this.reader.getBlockCandidate(hash);
  }

  listBlockCandidates(page: { offset: number; limit: number }): Promise<StoredBlockCandidate[]> {
    return this.reader.listBlockCandidates(page);
  }

  readSharesBackFrom(
    entryId: string,
    untilDifficulty: bigint,
    options?: ReadSharesOptions,
  ): Promise<ShareWindow> {
    return this.reader.readSharesBackFrom(entryId, untilDifficulty, options);
  }

  metrics(): ShareLedgerMetrics {
    return {
      queuedShares: this.#queue.length,
      inFlightShares: this.#inFlightShares,
      batchesWritten: this.#batchesWritten,
      batchesFailed: this.#batchesFailed,
    };
  }

  /**
   * Stops accepting (STORE_CLOSED from now on), sends what is queued, and resolves once every
   * batch and candidate write has settled. Does not close the Redis client: its owner does.
   */
  close(): Promise<void> {
    if (this.#closePromise === null) {
      this.#closed = true;
      this.#flush();
      this.#closePromise = Promise.allSettled([...this.#inFlight]).then(() => undefined);
    }
    return this.#closePromise;
  }

  #scheduleFlush(): void {
    if (this.#cancelTimer !== null) return;
    if (this.#maxBatchDelayMs === 0) {
      const immediate = setImmediate(() => this.#flush());
      this.#cancelTimer = () => clearImmediate(immediate);
    } else {
      const timeout = setTimeout(() => this.#flush(), this.#maxBatchDelayMs);
      this.#cancelTimer = () => clearTimeout(timeout);
    }
  }

  /** Sends everything queued, in maxBatchSize batches, synchronously (keeps call order). */
  #flush(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = null;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatchSize);
      this.#sendBatch(batch);
    }
  }

  #sendBatch(batch: PendingShare[]): void {
    const call = buildRecordSharesCall(
      this.#keys,
      batch.map((pending) => pending.share),
      this.#streamMaxLength,
    );
    this.#inFlightShares += batch.length;
    let reply: Promise<unknown>;
    try {
      reply = this.#recordShares(call);
      if (this.#replicaAcks) reply = this.#afterReplicaAcks(reply, this.#replicaAcks);
    } catch (error) {
      reply = Promise.reject(error);
    }
    const settled = reply.then(
      (ids) => {
        this.#inFlightShares -= batch.length;
        if (!Array.isArray(ids) || ids.length !== batch.length) {
          // The script always answers one id per share; anything else is not an acknowledgement.
          this.#failBatch(
            batch,
            new StoreError('STORE_WRITE_FAILED', 'record_shares gave an unexpected reply'),
          );
          return;
        }
        this.#batchesWritten += 1;
        for (const pending of batch) pending.resolve();
        this.#notifyBatchRecorded(batch.map((pending) => pending.share));
      },
      (error: unknown) => {
        this.#inFlightShares -= batch.length;
        this.#failBatch(batch, toStoreError(error, 'record_shares', { shares: batch.length }));
      },
    );
    this.#track(settled);
  }

  /**
   * WAIT is sent right behind the script on the same connection (ioredis pipelines commands in
   * order), so it covers this batch; fewer acknowledgements than asked fail the batch.
   */
  async #afterReplicaAcks(
    reply: Promise<unknown>,
    acks: { readonly replicas: number; readonly timeoutMs: number },
  ): Promise<unknown> {
    const [ids, acknowledged] = await Promise.all([reply, this.#redis.wait(acks.replicas, acks.timeoutMs)]);
    if (acknowledged < acks.replicas) {
      throw new StoreError(
        'STORE_UNAVAILABLE',
        `only ${acknowledged} of ${acks.replicas} replicas acknowledged the share batch`,
        { acknowledged, replicas: acks.replicas },
      );
    }
    return ids;
  }

  #notifyBatchRecorded(shares: readonly AcceptedShare[]): void {
    if (!this.#onBatchRecorded) return;
    try {
      this.#onBatchRecorded(shares);
    } catch (error) {
      this.#logger.warn({ err: error }, 'onBatchRecorded hook failed');
    }
  }

  #failBatch(batch: PendingShare[], error: StoreError): void {
    this.#batchesFailed += 1;
    this.#logFailure(error, { shares: batch.length });
    for (const pending of batch) pending.reject(error);
  }

  #writeCandidateWithRetry(candidate: BlockCandidate): Promise<CandidateWriteResult> {
    const call = buildRecordBlockCandidateCall(this.#keys, candidate, this.#streamMaxLength);
    return this.#retryingBlockWrite('record_block_candidate', candidate, async () =>
      this.#parseCandidateReply(await this.#recordBlockCandidate(call), candidate),
    );
  }

  #retryingBlockWrite<T>(
    operation: string,
    candidate: BlockCandidate,
    attempt: () => Promise<T>,
  ): Promise<T> {
    return retryBlockWrite(operation, candidate, attempt, {
      retryMs: this.#candidateRetryMs,
      logger: this.#logger,
    });
  }

  #parseCandidateReply(reply: unknown, candidate: BlockCandidate): CandidateWriteResult {
    if (!Array.isArray(reply) || reply.length !== 3) {
      throw new StoreError('STORE_WRITE_FAILED', 'record_block_candidate gave an unexpected reply', {
        hash: candidate.hash,
      });
    }
    const [created, shareEntryId, status] = reply as [unknown, unknown, unknown];
    const result: CandidateWriteResult = {
      created: created === 1,
      shareEntryId: String(shareEntryId),
      status: String(status) as StoredBlockStatus,
    };
    if (result.created) {
      this.#logger.info(
        { height: candidate.height, hash: candidate.hash, status: result.status, solo: candidate.share.solo },
        'block candidate recorded',
      );
    } else {
      this.#logger.warn(
        { height: candidate.height, hash: candidate.hash, storedStatus: result.status },
        'block candidate already recorded; nothing changed',
      );
    }
    return result;
  }

  #track(promise: Promise<unknown>): void {
    const tracked = promise.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(tracked);
    void tracked.then(() => this.#inFlight.delete(tracked));
  }

  #logFailure(error: StoreError, data: Record<string, unknown>): void {
    if (error.code === 'STORE_WRITE_FAILED') {
      // Not an outage: a bug or corrupt data, worth every line.
      this.#logger.error({ ...data, err: error, code: error.code }, 'share batch not recorded');
      return;
    }
    const now = Date.now();
    if (now - this.#lastFailureLogMs < FAILURE_LOG_INTERVAL_MS) {
      this.#suppressedFailures += 1;
      return;
    }
    this.#logger.warn(
      { ...data, err: error, code: error.code, suppressedSinceLastLog: this.#suppressedFailures },
      'share batch not recorded',
    );
    this.#lastFailureLogMs = now;
    this.#suppressedFailures = 0;
  }
}
