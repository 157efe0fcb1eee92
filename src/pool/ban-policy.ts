import type { Ban } from './ban-registry.js';
import { peerKey } from './peer-key.js';
import type { StratumErrorCode } from './stratum-errors.js';

export interface BanPolicyOptions {
  /** Off: nothing is ever banned automatically (manual bans still work). */
  readonly enabled: boolean;
  /** Length of the sliding window over which the invalid ratio is computed. */
  readonly windowMs: number;
  /** Submits an IP must have made inside the window before it can be banned. */
  readonly minShares: number;
  /** Weighted bad submits / all submits in the window at or above which the IP is banned. */
  readonly maxInvalidRatio: number;
  /** First automatic ban. */
  readonly firstBanSeconds: number;
  /** Each further ban doubles, up to this. */
  readonly maxBanSeconds: number;
  /** An IP without a ban for this long starts again at firstBanSeconds. */
  readonly offenceMemoryMs: number;
  /**
   * How much one refused submit counts, by code. Codes not listed weigh 0 (e.g. SERVER_BUSY,
   * INTERNAL: the pool's fault, not the miner's).
   */
  readonly weights: Readonly<Partial<Record<StratumErrorCode, number>>>;
  /** Never banned automatically (e.g. the operator's own proxy). */
  readonly exemptIps: readonly string[];
  /** IPv6 peers are judged and banned by their network of this many bits (see peerKey). */
  readonly ipv6PrefixLength: number;
}

/**
 * Bad hashes weigh most; duplicates and late shares happen to honest miners (reconnects, block
 * changes) and weigh little.
 */
export const BAN_WEIGHTS: Readonly<Partial<Record<StratumErrorCode, number>>> = Object.freeze({
  INVALID_RESULT: 1,
  LOW_DIFFICULTY: 1,
  MALFORMED_NONCE: 1,
  MALFORMED_RESULT: 1,
  NICEHASH_NONCE: 1,
  WRONG_ALGO: 0.5,
  INVALID_JOB_ID: 0.25,
  DUPLICATE_SHARE: 0.25,
  BLOCK_EXPIRED: 0.1,
});

const MAX_MEMOISED_IPV6_KEYS = 10_000;

/** The window is kept as this many buckets: memory per IP stays constant however fast it submits. */
const BUCKETS_PER_WINDOW = 10;

interface Bucket {
  readonly startMs: number;
  shares: number;
  badWeight: number;
}

interface IpRecord {
  buckets: Bucket[];
  offences: number;
  lastBanAtMs: number;
  /** The end of the ban in force (see noteBan): submits are not counted before. */
  bannedUntilMs: number;
}

/**
 * Graduated per-IP bans, scored. Every submit outcome of an IP goes into a sliding window; once
 * the IP has made `minShares` submits in it and the weighted share of bad ones reaches
 * `maxInvalidRatio`, it is to be banned for firstBanSeconds, doubling with each repeat offence up
 * to maxBanSeconds. The caller hands that decision to the ban registry, and tells this policy of
 * the bans in force and lifted (noteBan, forget). Clock-injected.
 */
export class BanPolicy {
  readonly #options: BanPolicyOptions;
  readonly #clock: () => number;
  readonly #records = new Map<string, IpRecord>();
  /** IPv6 address -> its network key: every submit asks, and masking an address is not free. */
  readonly #ipv6Keys = new Map<string, string>();
  readonly #exempt: ReadonlySet<string>;
  readonly #bucketMs: number;

  constructor(options: BanPolicyOptions, clock: () => number) {
    this.#options = options;
    this.#clock = clock;
    this.#exempt = new Set(options.exemptIps);
    this.#bucketMs = Math.max(1, Math.floor(options.windowMs / BUCKETS_PER_WINDOW));
  }

  /** What this policy counts `ip` by: the address, or for IPv6 its network (see peerKey). */
  keyOf(ip: string): string {
    if (!ip.includes(':')) return ip;
    let key = this.#ipv6Keys.get(ip);
    if (key === undefined) {
      key = peerKey(ip, this.#options.ipv6PrefixLength);
      // Bounded: a flood of distinct addresses only empties the memo.
      if (this.#ipv6Keys.size >= MAX_MEMOISED_IPV6_KEYS) this.#ipv6Keys.clear();
      this.#ipv6Keys.set(ip, key);
    }
    return key;
  }

  /**
   * Records one submit outcome ('OK' for an accepted share, else the refusal code). Returns the
   * ban this outcome calls for (its IP's key, for so long), if any.
   */
  record(address: string, outcome: 'OK' | StratumErrorCode): Ban | undefined {
    if (!this.#options.enabled || this.#exempt.has(address)) return undefined;
    const ip = this.keyOf(address);
    if (this.#exempt.has(ip)) return undefined;
    const weight = outcome === 'OK' ? 0 : (this.#options.weights[outcome] ?? 0);
    const now = this.#clock();
    const record = this.#record(ip);
    if (record.bannedUntilMs > now) return undefined;
    const bucket = this.#currentBucket(record, now);
    bucket.shares += 1;
    bucket.badWeight += weight;
    if (weight === 0) return undefined;

    let shares = 0;
    let bad = 0;
    for (const b of record.buckets) {
      shares += b.shares;
      bad += b.badWeight;
    }
    if (shares < this.#options.minShares || bad / shares < this.#options.maxInvalidRatio) return undefined;

    if (now - record.lastBanAtMs > this.#options.offenceMemoryMs) record.offences = 0;
    record.offences += 1;
    record.lastBanAtMs = now;
    const seconds = Math.min(
      this.#options.maxBanSeconds,
      this.#options.firstBanSeconds * 2 ** Math.min(record.offences - 1, 30),
    );
    record.bannedUntilMs = now + seconds * 1000;
    // A fresh window after the ban: the old evidence has been acted on.
    record.buckets = [];
    return {
      ip,
      bannedAtMs: now,
      untilMs: record.bannedUntilMs,
      offences: record.offences,
      manual: false,
      reason: `invalid ratio ${(bad / shares).toFixed(2)} over ${shares} submits`,
    };
  }

  /**
   * A ban now in force (this policy's, the operator's, or decided elsewhere; see
   * BanRegistry.onChange): the IP's submits are not counted until it ends, and the offence count
   * of an automatic one carries over, so a repeat offence here is punished as the next one.
   */
  noteBan(ban: Ban): void {
    if (ban.untilMs <= this.#clock()) return;
    const record = this.#record(this.keyOf(ban.ip));
    record.bannedUntilMs = ban.untilMs;
    if (!ban.manual && ban.offences > record.offences) {
      record.offences = ban.offences;
      record.lastBanAtMs = ban.bannedAtMs;
    }
    record.buckets = [];
  }

  /** The IP was unbanned: its history is forgotten. */
  forget(address: string): void {
    this.#records.delete(this.keyOf(address));
  }

  /** Forgets IPs with nothing left to remember. Call it periodically. */
  prune(): void {
    const now = this.#clock();
    for (const [ip, record] of this.#records) {
      this.#dropOldBuckets(record, now);
      const remembersOffences =
        record.offences > 0 && now - record.lastBanAtMs <= this.#options.offenceMemoryMs;
      if (record.bannedUntilMs <= now && record.buckets.length === 0 && !remembersOffences)
        this.#records.delete(ip);
    }
  }

  /** IPs currently tracked (for metrics and tests). */
  get trackedIps(): number {
    return this.#records.size;
  }

  #record(ip: string): IpRecord {
    let record = this.#records.get(ip);
    if (record === undefined) {
      record = {
        buckets: [],
        offences: 0,
        lastBanAtMs: Number.NEGATIVE_INFINITY,
        bannedUntilMs: Number.NEGATIVE_INFINITY,
      };
      this.#records.set(ip, record);
    }
    return record;
  }

  #currentBucket(record: IpRecord, now: number): Bucket {
    this.#dropOldBuckets(record, now);
    const startMs = now - (now % this.#bucketMs);
    const last = record.buckets[record.buckets.length - 1];
    if (last !== undefined && last.startMs === startMs) return last;
    const bucket: Bucket = { startMs, shares: 0, badWeight: 0 };
    record.buckets.push(bucket);
    return bucket;
  }

  #dropOldBuckets(record: IpRecord, now: number): void {
    const oldestKeptStart = now - this.#options.windowMs;
    let drop = 0;
    while (drop < record.buckets.length && record.buckets[drop]!.startMs + this.#bucketMs <= oldestKeptStart)
      drop++;
    if (drop > 0) record.buckets.splice(0, drop);
  }
}
