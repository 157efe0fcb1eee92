import { exactTargetDifficultyAtMost, targetHexForDifficulty } from '../fuego/difficulty.js';
import { bytesToHex, byteToHex } from '../fuego/hex.js';
import { UPX2_ALGO } from './algo-names.js';
import { type ExtraNonceAllocator, MIN_EXTRA_NONCE_BYTES } from './extra-nonce.js';
import type { IssuedJob, MinerSession, SharedJobTerms, TrackedTemplateRef } from './miner-session.js';
import { SharedBlobStratumJob } from './shared-blob-job.js';
import type { SharedBlobHex, StratumJob } from './stratum-backend.js';
import type { ActiveTemplate, TemplateChange, TemplateSource } from './template-source.js';

export interface JobManagerOptions {
  /** After a new block, shares on jobs of the previous tip are still credited (never submitted) for this long. */
  readonly staleGraceMs: number;
}

export interface JobManagerModules {
  readonly templates: TemplateSource;
  readonly extraNonces: ExtraNonceAllocator;
  /** A clock that never steps (see PoolBackendModules.elapsedClock): when a tip was superseded, when a job was issued. */
  readonly clock: () => number;
}

/** Where XMRig writes its nonce for every CryptoNight job (shared/spec/stratum.md §6.1). */
const XMRIG_NONCE_OFFSET = 39;
/** cn/upx2 is the PoW from block major version 9 on; older versions hash differently. */
const MIN_UPX2_MAJOR_VERSION = 9;
/**
 * A session not yet sent a job on the new tip is in its stale grace at most this long after the
 * tip changed: far beyond any broadcast (seconds at 100,000 miners), so only a session whose
 * pushes fail stops being credited on the old tip.
 */
const MAX_LATE_PUSH_MS = 30_000;
/** Distinct job difficulties whose targets are kept (vardiff gives a pool's miners a few hundred at most). */
const TARGET_CACHE_SIZE = 1024;
/** The nonce's top byte (little-endian): XMRig keeps a non-zero one from the blob (§6.4). */
const NONCE_TOP_BYTE_OFFSET = XMRIG_NONCE_OFFSET + 3;
/** Sessions per shared blob: top bytes 1..255 (a zero one would not switch XMRig to keeping it). */
const MAX_TOP_BYTE = 255;
/** Sessions given a shared blob's job within this long share one terms object (its issue time). */
const SHARED_TERMS_REUSE_MS = 1;

/**
 * Why miners cannot be given jobs on this template, or undefined when they can: the PoW must be
 * cn/upx2 with the nonce at 39, and the reserved area must hold our extra nonce.
 */
export function unusableTemplateReason(active: ActiveTemplate): string | undefined {
  const { template } = active;
  if (template.majorVersion < MIN_UPX2_MAJOR_VERSION)
    return `block major version ${template.majorVersion} is not cn/upx2`;
  if (template.nonceOffset !== XMRIG_NONCE_OFFSET)
    return `nonce offset ${template.nonceOffset} is not ${XMRIG_NONCE_OFFSET}`;
  if (template.extraNonceCapacity < MIN_EXTRA_NONCE_BYTES) {
    return `reserved area of ${template.extraNonceCapacity} bytes is below ${MIN_EXTRA_NONCE_BYTES} (request reserve_size >= ${MIN_EXTRA_NONCE_BYTES + 1})`;
  }
  return undefined;
}

/** How a share's job relates to the chain tip at a given moment. */
export type JobFreshness =
  /** On the current tip: the share may be a block. */
  | 'current'
  /**
   * Tip moved less than staleGraceMs ago, or the pool's own block on this tip was accepted and the
   * next tip's template has not come yet: credit the share, never submit it as a block.
   */
  | 'stale'
  /** Tip moved longer ago: "Block expired". */
  | 'expired';

class TrackedTemplate implements TrackedTemplateRef {
  supersededAtMs: number | undefined = undefined;
  solved = false;
  /**
   * No job on this template asks more than this: the largest difficulty at or below the network's
   * that a target expresses exactly. Undefined when the network difficulty is not a safe integer
   * (far above any miner's).
   */
  readonly difficultyCap: number | undefined;

  constructor(readonly active: ActiveTemplate) {
    const network = active.networkDifficulty;
    this.difficultyCap =
      network >= 1n && network <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(exactTargetDifficultyAtMost(network))
        : undefined;
  }

  /** The difficulty of a job for a miner at `minerDifficulty`. */
  jobDifficulty(minerDifficulty: number): number {
    return this.difficultyCap === undefined ? minerDifficulty : Math.min(minerDifficulty, this.difficultyCap);
  }
}

/**
 * Turns the active template and a session into stratum jobs, and decides whether a job is still
 * current. Every job gets a fresh extra nonce (XMRig restarts its nonce at 0 on each job, so two
 * jobs over one blob would produce the same shares); the job id is that extra nonce in hex, which
 * makes it unique per session, per process and across nodes.
 */
export class JobManager {
  readonly #options: JobManagerOptions;
  readonly #modules: JobManagerModules;
  #current: TrackedTemplate | undefined;
  /** Templates on the current tip (a refresh keeps the older ones valid). */
  #onTip: TrackedTemplate[] = [];
  /** The tip the pool's last accepted block was built on (see markSolved). */
  #solvedTip: { readonly height: number; readonly prevHash: string } | undefined;
  /**
   * Targets by difficulty: a broadcast asks for the same few thousands of times, in the sessions'
   * order (vardiff levels mixed). Emptied when it holds TARGET_CACHE_SIZE.
   */
  readonly #targets = new Map<number, string>();
  /** The blob that shared jobs are being handed out on (see issueShared). */
  #sharedBlob: SharedBlob | undefined;

  constructor(options: JobManagerOptions, modules: JobManagerModules) {
    this.#options = options;
    this.#modules = modules;
    const first = modules.templates.current();
    if (first !== undefined) this.track(first, 'new-block');
  }

  /**
   * Takes a new template into use. A 'new-block' change (or any change of height or previous block)
   * marks every template of the old tip superseded now. A template that is not newer than the
   * current one changes nothing (the current one is returned); an unusable one
   * (`unusableTemplateReason`) is ignored and gives undefined.
   */
  track(active: ActiveTemplate, change: TemplateChange): TrackedTemplateRef | undefined {
    const previous = this.#current;
    // Ids only grow: an equal or older one is a repeat or a late delivery.
    if (previous !== undefined && active.id <= previous.active.id) return previous;
    if (unusableTemplateReason(active) !== undefined) return undefined;
    const tracked = new TrackedTemplate(active);
    const tipMoved =
      change === 'new-block' ||
      previous === undefined ||
      previous.active.height !== active.height ||
      previous.active.prevHash !== active.prevHash;
    if (tipMoved) {
      const now = this.#modules.clock();
      for (const old of this.#onTip) old.supersededAtMs ??= now;
      this.#onTip = [];
    }
    // A template fetched before the pool's block landed, delivered after it.
    if (this.#solvedTip !== undefined && onTip(active, this.#solvedTip)) tracked.solved = true;
    this.#onTip.push(tracked);
    this.#current = tracked;
    return tracked;
  }

  /**
   * The daemon accepted the pool's block built on `template`: jobs on every template of that tip
   * (same height and previous block, refreshes and late deliveries included) can no longer be
   * blocks, so they turn stale now instead of when the template source sees the new tip (~100 ms
   * later, in which time a miner at network difficulty submits more blocks the daemon can only
   * refuse). Their shares are credited as stale, never submitted. The stale grace starts when the
   * next tip's template is tracked, the moment miners get new jobs, as after any block; until
   * then there is no better job to give them.
   */
  markSolved(template: TrackedTemplateRef): void {
    const tip = { height: template.active.height, prevHash: template.active.prevHash };
    this.#solvedTip = tip;
    for (const tracked of this.#onTip) if (onTip(tracked.active, tip)) tracked.solved = true;
  }

  /** The template new jobs are built on (also picks up one the source has but no listener delivered yet). */
  current(): TrackedTemplateRef | undefined {
    return this.#latest();
  }

  /**
   * The difficulty of the session's next job: its own (vardiff, `+DIFF` or the port's), but never
   * more than the network's. A share meeting the network difficulty is a block, and a job asking
   * more would make the miner throw it away.
   */
  difficultyFor(session: MinerSession): number {
    return this.#latest()?.jobDifficulty(session.difficulty) ?? session.difficulty;
  }

  /**
   * Builds the session's next job on the current template at `difficultyFor(session)`, keeps it in
   * the session and returns what goes to the miner. The session keeps only what share checks need,
   * not the wire form (its hex blob would double what every kept job costs). Throws
   * ExtraNonceError when the template's reserved area is too small, and returns undefined when
   * there is no template at all.
   */
  issue(session: MinerSession): StratumJob | undefined {
    const template = this.#latest();
    if (template === undefined) return undefined;
    const { active } = template;
    const extraNonce = this.#modules.extraNonces.next(active.template.extraNonceCapacity);
    const hashingBlob = active.template.buildHashingBlob(extraNonce);
    const jobId = bytesToHex(extraNonce);
    // Both the wire target and what the job's shares are checked and credited at.
    const difficulty = template.jobDifficulty(session.difficulty);
    const job: IssuedJob = {
      jobId,
      template,
      extraNonce,
      hashingBlob,
      nonceOffset: active.template.nonceOffset,
      nonceTopByte: undefined,
      difficulty,
      issuedAtMs: this.#modules.clock(),
      submittedNonces: undefined,
    };
    session.addJob(job);
    return {
      job_id: jobId,
      blob: bytesToHex(hashingBlob),
      target: this.#targetHex(difficulty),
      algo: UPX2_ALGO,
      height: active.height,
    };
  }

  /**
   * Like `issue`, but the blob is shared with up to 254 other sessions on this template: each
   * session gets its own non-zero top nonce byte (blob byte 42), which XMRig then keeps while it
   * varies the other three ("auto nicehash", shared/spec/stratum.md §6.4). So one blob is built
   * per 255 sessions instead of one per session, and two sessions still never hash the same
   * input. The session keeps the blob's terms (one object for the sessions given it in the same
   * millisecond) and the byte its shares must carry; the job id is the blob's extra nonce and that
   * byte, unique per session as before.
   * Only for miners known to keep the byte (the caller decides), each with at most 2^24 nonces.
   */
  issueShared(session: MinerSession): StratumJob | undefined {
    const template = this.#latest();
    if (template === undefined) return undefined;
    let shared = this.#sharedBlob;
    if (shared === undefined || shared.template !== template || shared.nextTopByte > MAX_TOP_BYTE) {
      shared = this.#newSharedBlob(template);
      this.#sharedBlob = shared;
    }
    const topByte = shared.nextTopByte++;
    const topHex = byteToHex(topByte);
    const { terms, target } = this.#sharedTerms(shared, template.jobDifficulty(session.difficulty));
    session.addSharedJob(terms, topByte);
    return new SharedBlobStratumJob(shared.hex, topHex, shared.jobIdPrefix, target, template.active.height);
  }

  /**
   * The shared blob's job terms at `difficulty` and their target, in one lookup: one terms object
   * for every session given a job on it within a millisecond, so a job's issue time is the first
   * of them (at most 1 ms early).
   */
  #sharedTerms(shared: SharedBlob, difficulty: number): SharedTermsAt {
    const nowMs = this.#modules.clock();
    let entry = shared.terms.get(difficulty);
    if (entry === undefined) {
      entry = { terms: this.#newSharedTerms(shared, difficulty, nowMs), target: this.#targetHex(difficulty) };
      shared.terms.set(difficulty, entry);
    } else if (nowMs < entry.terms.issuedAtMs || nowMs - entry.terms.issuedAtMs >= SHARED_TERMS_REUSE_MS) {
      entry.terms = this.#newSharedTerms(shared, difficulty, nowMs);
    }
    return entry;
  }

  #newSharedTerms(shared: SharedBlob, difficulty: number, issuedAtMs: number): SharedJobTerms {
    const { template } = shared;
    return {
      jobIdPrefix: shared.jobIdPrefix,
      template,
      extraNonce: shared.extraNonce,
      hashingBlob: shared.hashingBlob,
      nonceOffset: template.active.template.nonceOffset,
      difficulty,
      issuedAtMs,
    };
  }

  #newSharedBlob(template: TrackedTemplate): SharedBlob {
    const { active } = template;
    const extraNonce = this.#modules.extraNonces.next(active.template.extraNonceCapacity);
    const hashingBlob = active.template.buildHashingBlob(extraNonce);
    const hex = bytesToHex(hashingBlob);
    return {
      template,
      extraNonce,
      hashingBlob,
      jobIdPrefix: bytesToHex(extraNonce),
      hex: Object.freeze({
        head: hex.slice(0, NONCE_TOP_BYTE_OFFSET * 2),
        tail: hex.slice(NONCE_TOP_BYTE_OFFSET * 2 + 2),
      }),
      nextTopByte: 1,
      terms: new Map(),
    };
  }

  /** What current() returns, as the tracked template itself (it knows the difficulty cap). */
  #latest(): TrackedTemplate | undefined {
    const latest = this.#modules.templates.current();
    if (latest !== undefined && latest.id !== this.#current?.active.id) this.track(latest, 'refresh');
    return this.#current;
  }

  #targetHex(difficulty: number): string {
    let hex = this.#targets.get(difficulty);
    if (hex === undefined) {
      if (this.#targets.size >= TARGET_CACHE_SIZE) this.#targets.clear();
      hex = targetHexForDifficulty(difficulty);
      this.#targets.set(difficulty, hex);
    }
    return hex;
  }

  /**
   * Whether a share on `job` arriving at `nowMs` is current, stale (credited) or expired. Given the
   * session holding the job, its stale grace runs from when that session was sent a job on a later
   * tip: a broadcast reaches the last of many miners seconds after the tip changed, and until then
   * the old job is all a miner has. A session the broadcast has not reached yet is still in its
   * grace, up to MAX_LATE_PUSH_MS after the tip changed. Without a session, from the tip change.
   */
  freshness(job: IssuedJob, nowMs: number, session?: MinerSession): JobFreshness {
    const { supersededAtMs, solved } = job.template;
    if (supersededAtMs === undefined) return solved ? 'stale' : 'current';
    let graceStartMs = supersededAtMs;
    if (session !== undefined) {
      const movedOnAtMs = session.movedOnFromTipOf(job);
      if (movedOnAtMs === undefined) {
        return nowMs - supersededAtMs <= MAX_LATE_PUSH_MS + this.#options.staleGraceMs ? 'stale' : 'expired';
      }
      graceStartMs = Math.max(graceStartMs, movedOnAtMs);
    }
    return nowMs - graceStartMs <= this.#options.staleGraceMs ? 'stale' : 'expired';
  }
}

/** One blob handed to many sessions, each with its own top nonce byte (JobManager.issueShared). */
interface SharedBlob {
  readonly template: TrackedTemplate;
  readonly extraNonce: Uint8Array;
  /** With a zero nonce, as every session's job keeps it. */
  readonly hashingBlob: Uint8Array;
  readonly jobIdPrefix: string;
  /** The blob's hex before and after the top nonce byte: one object, in every session's StratumJob. */
  readonly hex: SharedBlobHex;
  nextTopByte: number;
  /** Its sessions' job terms by difficulty, each for the millisecond it was made in (#sharedTerms). */
  readonly terms: Map<number, SharedTermsAt>;
}

/** A shared blob's job terms at one difficulty (replaced every millisecond) and that difficulty's target. */
interface SharedTermsAt {
  terms: SharedJobTerms;
  readonly target: string;
}

function onTip(active: ActiveTemplate, tip: { readonly height: number; readonly prevHash: string }): boolean {
  return active.height === tip.height && active.prevHash === tip.prevHash;
}
