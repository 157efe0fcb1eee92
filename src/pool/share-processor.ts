import { parseBlock } from '../fuego/block.js';
import { blockId } from '../fuego/block-hash.js';
import { blockTargetHex, checkHash, hashDifficulty } from '../fuego/difficulty.js';
import { bytesToHex } from '../fuego/hex.js';
import type { Logger } from '../log/logger.js';
import type { BlockRefusalReason } from '../model/block-refusal-reason.js';
import type { AcceptedShare, BlockCandidate, ShareLedger } from '../model/share-ledger.js';
import { isUpx2AlgoName } from './algo-names.js';
import { type ChainTipReader, diagnoseBlockRefusal, likelyCauseOf } from './block-refusal.js';
import type { JobFreshness, JobManager } from './job-manager.js';
import type { IssuedJob, MinerSession, TrackedTemplateRef } from './miner-session.js';
import type { ShareVerifier } from './share-verifier.js';
import type { SubmitRequest } from './stratum-backend.js';
import { StratumError } from './stratum-errors.js';
import type { ActiveTemplate } from './template-source.js';

/**
 * The daemon as the share pipeline needs it: submitblock, which throws an RpcError when refused,
 * and the chain reads that explain a refusal.
 */
export interface BlockSubmitter extends ChainTipReader {
  submitBlock(blockHex: string): Promise<void>;
}

export interface ShareProcessorModules {
  readonly jobs: JobManager;
  readonly verifier: ShareVerifier;
  readonly ledger: ShareLedger;
  readonly daemon: BlockSubmitter;
  readonly logger: Logger;
  /** The wall clock, for share timestamps. */
  readonly clock: () => number;
  /** A clock that never steps, for the stale grace (see PoolBackendModules.elapsedClock). */
  readonly elapsedClock: () => number;
  /** Told the reason of every refused block once it is known (after the miner was answered). */
  readonly onBlockRefused?: (reason: BlockRefusalReason) => void;
}

/**
 * How long the chain reads that explain a refused block may take. They run after the miner was
 * answered, so this bounds only how late the log line comes.
 */
const REFUSAL_DIAGNOSIS_TIMEOUT_MS = 10_000;

/**
 * How long a block waits for the daemon's answer to the block before it on the same tip. A daemon
 * answers submitblock in milliseconds; one that hangs (up to daemon.timeoutMs) must not hold every
 * later block of the tip behind it, so after this the block is submitted anyway.
 */
const BLOCK_TURN_MAX_WAIT_MS = 1_000;

/** What became of an accepted share. */
export interface ShareOutcome {
  readonly share: AcceptedShare;
  /** Present when the share met the network difficulty on a current job. */
  readonly block?: { readonly hash: string; readonly submitResult: BlockCandidate['submitResult'] };
}

/** A block as submitted, with the daemon's answer. */
interface SubmittedBlock {
  readonly blobHex: string;
  /** Block id (hex). */
  readonly hash: string;
  readonly submitResult: BlockCandidate['submitResult'];
  readonly submitError: string | undefined;
}

const NONCE_PATTERN = /^[0-9a-f]{8}$/i;
const RESULT_PATTERN = /^[0-9a-f]{64}$/i;

/**
 * The share pipeline, in this order (each refusal is a StratumError; the session was checked by
 * the caller):
 *   1. job known (INVALID_JOB_ID; a dropped old job: BLOCK_EXPIRED) and not expired (BLOCK_EXPIRED)
 *   2. nonce is 8 hex (MALFORMED_NONCE), normalised to lowercase; on a shared blob its top byte
 *      is the session's own (NICEHASH_NONCE)
 *   3. result is 64 hex (MALFORMED_RESULT)
 *   4. algo, when sent, names cn/upx2 (WRONG_ALGO)
 *   5. (job, nonce) not seen before (DUPLICATE_SHARE); recorded before hashing, so two identical
 *      submits in flight cannot both pass
 *   6. cn/upx2 in the verifier workers (SERVER_BUSY when saturated) equals `result` (INVALID_RESULT)
 *   7. hash difficulty ≥ job difficulty (LOW_DIFFICULTY)
 *   8. meets the network difficulty on a current job: submitblock at once (after any other block
 *      on the same tip is answered: once one is accepted the rest are stale), then record the
 *      block candidate (with its blob) whatever the daemon said, and explain a refusal once the
 *      miner is answered; otherwise record the share (stale ones flagged)
 * It resolves only once the ledger says the share is durable (INTERNAL when it cannot).
 */
export class ShareProcessor {
  readonly #modules: ShareProcessorModules;
  /** Per tip (height and previous block): settles when the last block submitted on it is answered. */
  readonly #blockTurns = new Map<string, Promise<void>>();

  constructor(modules: ShareProcessorModules) {
    this.#modules = modules;
  }

  async process(session: MinerSession, request: SubmitRequest): Promise<ShareOutcome> {
    const { jobs, elapsedClock } = this.#modules;
    const found = session.findJob(String(request.jobId));
    if (found === undefined)
      throw new StratumError('INVALID_JOB_ID', { jobId: String(request.jobId).slice(0, 64) });
    if (found === 'retired')
      throw new StratumError('BLOCK_EXPIRED', { jobId: request.jobId, reason: 'RETIRED' });
    const job = found;
    const freshnessAtReceipt = jobs.freshness(job, elapsedClock(), session);
    if (freshnessAtReceipt === 'expired') throw new StratumError('BLOCK_EXPIRED', { jobId: job.jobId });

    if (typeof request.nonce !== 'string' || !NONCE_PATTERN.test(request.nonce)) {
      throw new StratumError('MALFORMED_NONCE');
    }
    const nonce = request.nonce.toLowerCase();
    // The top byte (last in hex: the nonce is little-endian) is another session's on a shared blob.
    if (job.nonceTopByte !== undefined && Number.parseInt(nonce.slice(6), 16) !== job.nonceTopByte) {
      throw new StratumError('NICEHASH_NONCE', { jobId: job.jobId, nonce });
    }
    if (typeof request.result !== 'string' || !RESULT_PATTERN.test(request.result)) {
      throw new StratumError('MALFORMED_RESULT');
    }
    const result = request.result.toLowerCase();
    if (request.algo !== undefined && !isUpx2AlgoName(request.algo)) throw new StratumError('WRONG_ALGO');

    const submitted = job.submittedNonces ?? new Set<string>();
    job.submittedNonces = submitted;
    if (submitted.has(nonce)) throw new StratumError('DUPLICATE_SHARE', { jobId: job.jobId, nonce });
    submitted.add(nonce);

    // From Node's small-buffer pool: a fresh 76-byte Uint8Array would get its own backing store.
    const input = Buffer.allocUnsafe(job.hashingBlob.length);
    input.set(job.hashingBlob);
    input.write(nonce, job.nonceOffset, 4, 'hex');
    const hash = await this.#hash(session, input, job, nonce);

    if (bytesToHex(hash) !== result) throw new StratumError('INVALID_RESULT', { jobId: job.jobId, nonce });
    // checkHash(h, D) ⟺ ⌊(2^256−1)/h⌋ ≥ D, decided without bigint for all but boundary hashes.
    if (!checkHash(hash, job.difficulty)) {
      throw new StratumError('LOW_DIFFICULTY', { jobId: job.jobId, difficulty: job.difficulty });
    }

    // Re-read the tip: a block may have arrived while the hash was computed. Such a share is still
    // credited (it was valid when it came) but is no longer worth submitting.
    let freshness: JobFreshness =
      freshnessAtReceipt === 'current' ? jobs.freshness(job, elapsedClock(), session) : 'stale';
    let endTurn: (() => void) | undefined;
    if (freshness === 'current' && checkHash(hash, job.template.active.networkDifficulty)) {
      endTurn = await this.#blockTurn(job.template.active);
      // The block before this one on the same tip may have been accepted meanwhile.
      freshness = jobs.freshness(job, elapsedClock(), session);
      if (freshness !== 'current') {
        endTurn();
        endTurn = undefined;
      }
    }
    const share: AcceptedShare = {
      address: session.address,
      worker: session.worker,
      difficulty: job.difficulty,
      height: job.template.active.height,
      timestampMs: this.#modules.clock(),
      solo: session.solo,
      stale: freshness !== 'current',
    };

    if (endTurn !== undefined) {
      const nonceValue = input.readUInt32LE(job.nonceOffset);
      const block = await this.#submitBlock(session, job, nonceValue, hash, share, endTurn);
      return { share, block };
    }
    try {
      await this.#modules.ledger.recordShare(share);
    } catch (error) {
      this.#modules.logger.error({ err: error, session: session.id }, 'share not recorded: ledger failed');
      throw new StratumError('INTERNAL', { reason: 'LEDGER' });
    }
    return { share };
  }

  async #hash(session: MinerSession, input: Uint8Array, job: IssuedJob, nonce: string): Promise<Uint8Array> {
    try {
      return await this.#modules.verifier.verify(input, session.peer);
    } catch (error) {
      // Not the miner's fault: let the same share be submitted again.
      job.submittedNonces?.delete(nonce);
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'QUEUE_FULL') throw new StratumError('SERVER_BUSY');
      // Only a banned peer's waiting submits are cancelled.
      if (code === 'CANCELLED') throw new StratumError('BANNED');
      this.#modules.logger.error({ err: error }, 'share verification failed');
      throw new StratumError('INTERNAL', { reason: 'VERIFIER' });
    }
  }

  /**
   * Waits until no other block on the same tip (height and previous block) is at the daemon (at
   * most BLOCK_TURN_MAX_WAIT_MS), then takes the turn; the function returned ends it. Two blocks on
   * one tip can never both be taken, so the second waits for the first's answer: accepted, and the
   * second is stale (markSolved) rather than refused; refused, and the second is submitted. It
   * costs the second block one submitblock round trip, and only a pool at network difficulty finds
   * two on one tip.
   */
  async #blockTurn(active: ActiveTemplate): Promise<() => void> {
    const key = `${active.height}:${active.prevHash}`;
    const previous = this.#blockTurns.get(key);
    let end!: () => void;
    const turn = new Promise<void>((resolve) => {
      end = resolve;
    });
    const queued = previous === undefined ? turn : previous.then(() => turn);
    this.#blockTurns.set(key, queued);
    if (previous !== undefined) await settledOrAfter(previous, BLOCK_TURN_MAX_WAIT_MS);
    return () => {
      end();
      if (this.#blockTurns.get(key) === queued) this.#blockTurns.delete(key);
    };
  }

  /**
   * submitblock first (every millisecond counts against a competing block), then the candidate is
   * recorded with the daemon's answer and the blob, so that even a refused block is kept for the
   * operator. An accepted block makes its template's other jobs stale before the turn ends. A
   * refusal is explained after that (see #explainRefusal), without holding the miner.
   */
  async #submitBlock(
    session: MinerSession,
    job: IssuedJob,
    nonce: number,
    powHash: Uint8Array,
    share: AcceptedShare,
    endTurn: () => void,
  ): Promise<NonNullable<ShareOutcome['block']>> {
    const { active } = job.template;
    const { logger, clock } = this.#modules;
    const { blobHex, hash, submitResult, submitError } = await this.#submitInTurn(job, nonce, endTurn);
    const context = { height: active.height, hash, address: session.address, worker: session.worker };
    if (submitResult === 'accepted') logger.info(context, 'block found and accepted by the daemon');
    else if (submitResult === 'error')
      logger.error(
        { ...context, submitError, blobHex },
        'block submission failed: resubmit the blob by hand',
      );

    const candidate: BlockCandidate = {
      height: active.height,
      hash,
      prevHash: active.prevHash,
      networkDifficulty: active.networkDifficulty,
      share,
      submitResult,
      ...(submitError === undefined ? {} : { submitError }),
      blobHex,
      timestampMs: clock(),
    };
    let recorded = false;
    try {
      await this.#modules.ledger.recordBlockCandidate(candidate);
      recorded = true;
    } catch (error) {
      logger.error(
        { err: error, ...context, submitResult, blobHex },
        'block candidate NOT recorded: ledger failed',
      );
      throw new StratumError('INTERNAL', { reason: 'LEDGER' });
    } finally {
      // A copy: the hash is a view of the verifier's batch buffer, and the diagnosis outlives the share.
      if (submitResult === 'rejected')
        void this.#explainRefusal(candidate, job.template, powHash.slice(), recorded);
    }
    return { hash, submitResult };
  }

  /**
   * Builds the block and submits it; the turn ends with the daemon's answer, an accepted block
   * having made its tip's jobs stale first.
   */
  async #submitInTurn(job: IssuedJob, nonce: number, endTurn: () => void): Promise<SubmittedBlock> {
    try {
      const blob = job.template.active.template.buildSubmitBlob(job.extraNonce, nonce);
      const blobHex = bytesToHex(blob);
      const answer = this.#modules.daemon.submitBlock(blobHex).then(
        () => ({ submitResult: 'accepted' as const, submitError: undefined }),
        (error: unknown) => classifySubmitError(error),
      );
      // Computed while the daemon works.
      const hash = bytesToHex(blockId(parseBlock(blob)));
      const { submitResult, submitError } = await answer;
      if (submitResult === 'accepted') this.#modules.jobs.markSolved(job.template);
      return { blobHex, hash, submitResult, submitError };
    } finally {
      endTurn();
    }
  }

  /**
   * The one line of a refused block: what the pool checked (PoW hash, target, network difficulty),
   * what the chain says now (tip moved? block on the chain?), the reason and its likely cause; at
   * error level, but warn for a block on the chain after all (nothing is lost: it is recorded as
   * found, and its tip's jobs turn stale). Then the reason goes to the block record and the
   * counters. Never throws.
   */
  async #explainRefusal(
    candidate: BlockCandidate,
    template: TrackedTemplateRef,
    powHash: Uint8Array,
    recorded: boolean,
  ): Promise<void> {
    const { logger, daemon, ledger, jobs } = this.#modules;
    const diagnosis = await diagnoseBlockRefusal(daemon, candidate, REFUSAL_DIAGNOSIS_TIMEOUT_MS);
    const onChain = diagnosis.reason === 'already-on-chain';
    if (onChain) jobs.markSolved(template);
    logger[onChain ? 'warn' : 'error'](
      {
        blockId: candidate.hash,
        height: candidate.height,
        prevHash: candidate.prevHash,
        powHash: bytesToHex(powHash),
        powHashDifficulty: hashDifficulty(powHash).toString(),
        target: blockTargetHex(candidate.networkDifficulty),
        networkDifficulty: candidate.networkDifficulty.toString(),
        submitError: candidate.submitError,
        tipMoved: diagnosis.tipMoved,
        onChain: diagnosis.onChain,
        tipHeight: diagnosis.tipHeight,
        tipHash: diagnosis.tipHash,
        ...(diagnosis.error === undefined ? {} : { diagnosisError: diagnosis.error }),
        reason: diagnosis.reason,
        likelyCause: likelyCauseOf(diagnosis.reason),
        blobKept: recorded,
        address: candidate.share.address,
        worker: candidate.share.worker,
      },
      'block refused by the daemon although its proof of work meets the target',
    );
    this.#modules.onBlockRefused?.(diagnosis.reason);
    if (!recorded) return;
    try {
      await ledger.recordBlockRefusal(candidate, diagnosis.reason);
    } catch (error) {
      if (onChain) {
        // The block is real but stays recorded as rejected, without a reason: the leader's
        // unlocker finds it on the chain in its next run and promotes it then.
        logger.error(
          { err: error, blockId: candidate.hash, height: candidate.height },
          'block on the chain NOT recorded as found: ledger failed; the unlocker promotes it once it checks the chain',
        );
      } else {
        logger.warn({ err: error, blockId: candidate.hash }, 'refusal reason not recorded: ledger failed');
      }
    }
  }
}

/** Resolves when `promise` settles or `ms` have passed, whichever is first. */
async function settledOrAfter(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([promise.then(() => undefined), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The daemon refusing the block (a JSON-RPC error, -7 "Block not accepted" above all) is
 * 'rejected'; not getting an answer (timeout, connection, HTTP, garbage) is 'error', because the
 * block may still have been accepted.
 */
export function classifySubmitError(error: unknown): {
  submitResult: 'rejected' | 'error';
  submitError: string;
} {
  const e = error as {
    code?: unknown;
    data?: { rpcCode?: unknown; rpcMessage?: unknown };
    message?: unknown;
  } | null;
  const code = typeof e?.code === 'string' ? e.code : 'UNKNOWN';
  const rpcCode = e?.data?.rpcCode;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (code === 'RPC_ERROR' || code === 'RPC_STATUS') {
    const detail = typeof rpcCode === 'number' ? `rpc ${rpcCode}: ` : '';
    return { submitResult: 'rejected', submitError: `${detail}${message}`.slice(0, 500) };
  }
  return { submitResult: 'error', submitError: `${code}: ${message}`.slice(0, 500) };
}
