import { byteToHex } from '../fuego/hex.js';
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

/** What a job's shares are checked and credited by, whether the blob is the session's own or shared. */
export interface JobTerms {
  readonly template: TrackedTemplateRef;
  readonly extraNonce: Uint8Array;
  /** PoW input with a zero nonce; shares copy it and write their nonce at `nonceOffset`. */
  readonly hashingBlob: Uint8Array;
  readonly nonceOffset: number;
  /** Difficulty the job was issued at: its shares are checked and credited at this value. */
  readonly difficulty: number;
  readonly issuedAtMs: number;
}

/**
 * The terms of a shared blob's jobs at one difficulty (JobManager.issueShared): one object for
 * every session given such a job within the same millisecond, each keeping only it and its own
 * top byte. So a push leaves nothing per miner that outlives it: kept for four pushes, a job
 * object per miner reached V8's old generation and was garbage there, for a mark-compact to find.
 */
export interface SharedJobTerms extends JobTerms {
  /** The blob's extra nonce in hex: a session's job id is this and its top byte's two hex digits. */
  readonly jobIdPrefix: string;
}

/**
 * One job handed to a session. Its extra nonce makes its blob unique in the whole pool, or with
 * `nonceTopByte` the blob and that byte together.
 */
export interface IssuedJob extends JobTerms {
  readonly jobId: string;
  /**
   * On a blob shared with other sessions (JobManager.issueShared): the nonce's top byte this
   * session was given (blob byte 42), which its shares must carry. Undefined on a blob of its own.
   */
  readonly nonceTopByte: number | undefined;
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
/** Beside a job on a blob of the session's own, or a whole retired job id: no top byte. */
const NO_TOP_BYTE = -1;

/** A kept job: made an IssuedJob when a share or a caller asks for it, or still its blob's shared terms. */
type KeptJob = IssuedJob | SharedJobTerms;

function isIssuedJob(job: KeptJob): job is IssuedJob {
  return 'jobId' in job;
}

/** Whether `jobId` is the id of the job on a shared blob with this id prefix and top byte. */
function isSharedJobId(jobId: string, prefix: string, topByte: number): boolean {
  return jobId.length === prefix.length + 2 && jobId.startsWith(prefix) && jobId.endsWith(byteToHex(topByte));
}

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
   * Kept jobs, oldest first, in pairs: the job and its top byte (NO_TOP_BYTE on a blob of its
   * own). A job on a shared blob stays its blob's terms until asked for (#issuedJobAt), so a push
   * adds a reference and a small integer per miner, no object. Then the ids of the last dropped
   * ones, in pairs too: a whole id and NO_TOP_BYTE, or a shared blob's id prefix and the top
   * byte. Plain arrays rather than a Map: a few entries each, a linear scan finds a job as fast,
   * and a push adds and drops one per miner, which on a Map costs hashing a fresh key.
   */
  readonly #jobs: (KeptJob | number)[] = [];
  readonly #retiredJobIds: (string | number)[] = [];
  /**
   * Once #retiredJobIds is full, where the next retired id goes: over the oldest, in a ring. Their
   * order does not matter (findJob only asks whether an id is there), and shifting the full array
   * moved its 32 entries twice per miner on every push.
   */
  #retiredNext = 0;
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

  /** The last job; on a shared blob, made an IssuedJob now (callers asking every session want lastJobTerms). */
  get lastJob(): IssuedJob | undefined {
    const at = this.#jobs.length - 2;
    return at < 0 ? undefined : this.#issuedJobAt(at);
  }

  /** The last job's difficulty, template and issue time, without making an IssuedJob of it. */
  get lastJobTerms(): JobTerms | undefined {
    return this.#jobs[this.#jobs.length - 2] as KeptJob | undefined;
  }

  /** Whether the last job is on a blob shared with other sessions (false without a job). */
  get lastJobOnSharedBlob(): boolean {
    const jobs = this.#jobs;
    return jobs.length > 0 && jobs[jobs.length - 1] !== NO_TOP_BYTE;
  }

  /** The id of the template the last job was built on (`lastJob.template.active.id`). */
  get lastTemplateId(): number | undefined {
    return this.#lastTemplateId;
  }

  /** Keeps a job on a blob of its own; the oldest beyond `jobsPerSession` is retired. */
  addJob(job: IssuedJob): void {
    this.#keep(job, job.nonceTopByte ?? NO_TOP_BYTE);
  }

  /** Keeps a job on a shared blob: its terms and this session's top byte (as addJob). */
  addSharedJob(terms: SharedJobTerms, topByte: number): void {
    this.#keep(terms, topByte);
  }

  #keep(job: KeptJob, topByte: number): void {
    const jobs = this.#jobs;
    jobs.push(job, topByte);
    this.#lastTemplateId = job.template.active.id;
    if (jobs.length <= 2 * this.#jobsPerSession) return;
    const oldest = jobs.shift() as KeptJob;
    const oldestTopByte = jobs.shift() as number;
    if (isIssuedJob(oldest)) this.#retire(oldest.jobId, NO_TOP_BYTE);
    else this.#retire(oldest.jobIdPrefix, oldestTopByte);
  }

  /** Remembers a dropped job's id (see #retiredJobIds), in place of the oldest once RETIRED_JOB_IDS_KEPT are. */
  #retire(id: string, topByte: number): void {
    const retired = this.#retiredJobIds;
    if (retired.length < 2 * RETIRED_JOB_IDS_KEPT) {
      retired.push(id, topByte);
      return;
    }
    const at = this.#retiredNext;
    retired[at] = id;
    retired[at + 1] = topByte;
    this.#retiredNext = (at + 2) % (2 * RETIRED_JOB_IDS_KEPT);
  }

  /**
   * When this session was first issued a job on another tip than `job`'s (a later one: jobs are
   * kept in issue order), or undefined if it has not been yet. Such a job is kept whenever `job`
   * is, being newer.
   */
  movedOnFromTipOf(job: IssuedJob): number | undefined {
    const { height, prevHash } = job.template.active;
    const jobs = this.#jobs;
    let after = false;
    for (let at = 0; at < jobs.length; at += 2) {
      const kept = jobs[at] as KeptJob;
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
    const jobs = this.#jobs;
    for (let at = 0; at < jobs.length; at += 2) {
      const kept = jobs[at] as KeptJob;
      const found = isIssuedJob(kept)
        ? kept.jobId === jobId
        : isSharedJobId(jobId, kept.jobIdPrefix, jobs[at + 1] as number);
      if (found) return this.#issuedJobAt(at);
    }
    const retired = this.#retiredJobIds;
    for (let at = 0; at < retired.length; at += 2) {
      const id = retired[at] as string;
      const topByte = retired[at + 1] as number;
      if (topByte === NO_TOP_BYTE ? id === jobId : isSharedJobId(jobId, id, topByte)) return 'retired';
    }
    return undefined;
  }

  /**
   * The kept job at `at` as an IssuedJob: one on a shared blob becomes one the first time it is
   * asked for, and stays that object (its submitted nonces are kept on it).
   */
  #issuedJobAt(at: number): IssuedJob {
    const kept = this.#jobs[at] as KeptJob;
    if (isIssuedJob(kept)) return kept;
    const topByte = this.#jobs[at + 1] as number;
    const job: IssuedJob = {
      jobId: kept.jobIdPrefix + byteToHex(topByte),
      template: kept.template,
      extraNonce: kept.extraNonce,
      hashingBlob: kept.hashingBlob,
      nonceOffset: kept.nonceOffset,
      nonceTopByte: topByte,
      difficulty: kept.difficulty,
      issuedAtMs: kept.issuedAtMs,
      submittedNonces: undefined,
    };
    this.#jobs[at] = job;
    return job;
  }
}
