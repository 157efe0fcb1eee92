import { agentIsProxy, agentKeepsNonceTopByte } from './miner-agent.js';
import type { ConnectionInfo, MinerSessionSink } from './stratum-backend.js';
import type { ActiveTemplate } from './template-source.js';
import type { Vardiff } from './vardiff.js';

/** A template as the job manager tracks it: when a newer block superseded it, its jobs turn stale. */
export interface TrackedTemplateRef {
  readonly active: ActiveTemplate;
  /** When a new block made this template stale; undefined while it is on the current tip. */
  readonly supersededAtMs: number | undefined;
  /** The pool's own block on this template's tip was accepted: no share on it can be a block. */
  readonly solved: boolean;
}

/**
 * One job handed to a session. Its extra nonce makes its blob unique in the whole pool, or with
 * `nonceTopByte` the blob and that byte together.
 */
export interface IssuedJob {
  readonly jobId: string;
  readonly template: TrackedTemplateRef;
  readonly extraNonce: Uint8Array;
  /** PoW input with a zero nonce; shares copy it and write their nonce at `nonceOffset`. */
  readonly hashingBlob: Uint8Array;
  readonly nonceOffset: number;
  /**
   * On a blob shared with other sessions (JobManager.issueShared): the nonce's top byte this
   * session was given (blob byte 42), which its shares must carry. Undefined on a blob of its own.
   */
  readonly nonceTopByte: number | undefined;
  /** Difficulty the job was issued at: its shares are checked and credited at this value. */
  readonly difficulty: number;
  readonly issuedAtMs: number;
  /**
   * Lowercase nonces already submitted for this job (duplicate detection); created by the first
   * submit, as most jobs of a broadcast are replaced before any share comes back on them.
   */
  submittedNonces: Set<string> | undefined;
}

export interface MinerSessionInit {
  readonly id: string;
  readonly connection: ConnectionInfo;
  /** The key its IP is judged by (the address; for IPv6, its network): bans, fair verification. */
  readonly peer: string;
  readonly sink: MinerSessionSink;
  readonly address: string;
  readonly worker: string;
  readonly solo: boolean;
  readonly agent: string;
  /** Per-connection vardiff; undefined for a fixed difficulty (`+DIFF` or a fixed port). */
  readonly vardiff: Vardiff | undefined;
  readonly fixedDifficulty: number;
  readonly jobsPerSession: number;
}

/** Job ids no longer kept but still recognised, so a late share on them is "Block expired", not a reconnect. */
const RETIRED_JOB_IDS_KEPT = 16;

/**
 * Everything the pool core knows about one logged-in connection: who is paid, its difficulty,
 * and the last few jobs with the nonces already submitted for each. No socket here: the session
 * reaches the miner through its sink.
 */
export class MinerSession {
  readonly id: string;
  readonly connection: ConnectionInfo;
  /** The key its IP is judged by (the address; for IPv6, its network): bans, fair verification. */
  readonly peer: string;
  readonly sink: MinerSessionSink;
  readonly address: string;
  readonly worker: string;
  readonly solo: boolean;
  readonly agent: string;
  /** xmrig-proxy, xmr-node-proxy or a NiceHash rig: many miners behind one blob, any 32-bit nonce, periodic fresh jobs. */
  readonly isProxy: boolean;
  /**
   * XMRig 6+, not a proxy: may be given a blob shared with other sessions (shared-jobs.ts).
   * Cleared for good once it sends a share that did not keep its byte.
   */
  keepsNonceTopByte: boolean;
  readonly vardiff: Vardiff | undefined;
  readonly #fixedDifficulty: number;
  readonly #jobsPerSession: number;
  /**
   * Kept jobs, oldest first, and the ids of the last dropped ones. Plain arrays rather than a Map:
   * a few entries each, a linear scan finds a job as fast, and a push adds and drops one per
   * miner, which on a Map costs hashing a fresh key and, now and then, a rehash.
   */
  readonly #jobs: IssuedJob[] = [];
  readonly #retiredJobIds: string[] = [];
  /**
   * The last job's template id, kept on the session itself: a broadcast asks it of every session
   * in turn, and reaching it through the job and its template costs a cache miss or three each.
   */
  #lastTemplateId: number | undefined;

  constructor(init: MinerSessionInit) {
    this.id = init.id;
    this.connection = init.connection;
    this.peer = init.peer;
    this.sink = init.sink;
    this.address = init.address;
    this.worker = init.worker;
    this.solo = init.solo;
    this.agent = init.agent;
    this.isProxy = agentIsProxy(init.agent);
    this.keepsNonceTopByte = !this.isProxy && agentKeepsNonceTopByte(init.agent);
    this.vardiff = init.vardiff;
    this.#fixedDifficulty = init.fixedDifficulty;
    this.#jobsPerSession = Math.max(1, init.jobsPerSession);
  }

  get ip(): string {
    return this.connection.remoteAddress;
  }

  /** Difficulty for the next job. */
  get difficulty(): number {
    return this.vardiff?.difficulty ?? this.#fixedDifficulty;
  }

  get lastJob(): IssuedJob | undefined {
    return this.#jobs[this.#jobs.length - 1];
  }

  /** The id of the template the last job was built on (`lastJob.template.active.id`). */
  get lastTemplateId(): number | undefined {
    return this.#lastTemplateId;
  }

  /** Keeps the job; the oldest beyond `jobsPerSession` is retired. */
  addJob(job: IssuedJob): void {
    const jobs = this.#jobs;
    jobs.push(job);
    this.#lastTemplateId = job.template.active.id;
    if (jobs.length <= this.#jobsPerSession) return;
    const retired = this.#retiredJobIds;
    retired.push(jobs.shift()!.jobId);
    if (retired.length > RETIRED_JOB_IDS_KEPT) retired.shift();
  }

  /**
   * When this session was first issued a job on another tip than `job`'s (a later one: jobs are
   * kept in issue order), or undefined if it has not been yet. Such a job is kept whenever `job`
   * is, being newer.
   */
  movedOnFromTipOf(job: IssuedJob): number | undefined {
    const { height, prevHash } = job.template.active;
    let after = false;
    for (const kept of this.#jobs) {
      if (kept === job) after = true;
      else if (
        after &&
        (kept.template.active.height !== height || kept.template.active.prevHash !== prevHash)
      )
        return kept.issuedAtMs;
    }
    return undefined;
  }

  /** The job, 'retired' for one this session had but dropped, undefined for one it never had. */
  findJob(jobId: string): IssuedJob | 'retired' | undefined {
    for (const job of this.#jobs) if (job.jobId === jobId) return job;
    return this.#retiredJobIds.includes(jobId) ? 'retired' : undefined;
  }
}
