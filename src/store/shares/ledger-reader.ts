import type { Redis } from 'ioredis';
import { type BlockRefusalReason, isBlockRefusalReason } from '../../model/block-refusal-reason.js';
import type {
  BlockWindowSummary,
  CandidatePage,
  RoundSummary,
  ShareWindowEnd,
  StoredBlockCandidate,
  StoredBlockStatus,
} from '../../model/blocks/stored-block.js';
import type { BlockCandidate, MinerShareTotals } from '../../model/share-ledger.js';
import { runStoreCommand, StoreError, toStoreError } from '../store-error.js';
import { parseShareEntry, type StoredShare } from './share-entry.js';
import { createShareKeys, type ShareKeys } from './share-keys.js';

/** XREVRANGE page size of readSharesBackFrom: ~100 KB of reply per page. */
const DEFAULT_SHARE_PAGE_SIZE = 1000;
const MAX_SHARE_PAGE_SIZE = 10_000;
/** readSharesBackFrom stops here even if the window is not filled (~200 MB of shares in memory). */
const DEFAULT_MAX_WINDOW_SHARES = 1_000_000;
/** listBlockCandidates refuses bigger pages. */
const MAX_BLOCK_PAGE = 500;
/**
 * Refusal reasons after which the block may be on the chain: no diagnosis (`unknown`, or none),
 * or a stale tip (fuegod keeps a valid stale block as an alternative block; a reorg can put it on
 * the main chain).
 */
const MAY_BE_ON_CHAIN: ReadonlySet<string> = new Set<BlockRefusalReason>(['unknown', 'stale-tip']);
/** The largest sequence number of a stream id (uint64). */
const MAX_STREAM_SEQ = 18_446_744_073_709_551_615n;

/** The PPLNS read-back, with each share's stream entry id. */
export interface ShareWindow {
  /** Pool shares (solo shares skipped), newest first, starting with the block's own share. */
  readonly shares: readonly StoredShare[];
  /** Sum of `shares` difficulties; may pass the requested amount by the last share's part. */
  readonly windowDifficulty: bigint;
  readonly endReason: ShareWindowEnd;
}

export interface ReadSharesOptions {
  readonly pageSize?: number;
  readonly maxShares?: number;
}

export interface RedisLedgerReaderOptions {
  readonly keyPrefix: string;
}

export interface RedisLedgerReaderModules {
  readonly redis: Redis;
}

const BLOCK_STATUSES: readonly string[] = ['pending', 'rejected', 'confirmed', 'orphaned'];
const SUBMIT_RESULTS: readonly string[] = ['accepted', 'rejected', 'error'];
const WINDOW_ENDS: readonly string[] = ['filled', 'stream-start', 'trimmed', 'max-shares'];

function corrupt(what: string, data: Record<string, unknown>): StoreError {
  return new StoreError('CORRUPT_RECORD', `corrupt ${what}`, data);
}

/** A Redis integer stored as a string -> bigint, refusing anything else (never "|| 0"). */
function parseBigInt(value: string | undefined, what: string, data: Record<string, unknown>): bigint {
  if (value === undefined || !/^-?\d{1,78}$/.test(value)) throw corrupt(what, { ...data, value });
  return BigInt(value);
}

function parseSafeInteger(value: string | undefined, what: string, data: Record<string, unknown>): number {
  const parsed = Number(parseBigInt(value, what, data));
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw corrupt(what, { ...data, value });
  return parsed;
}

/** The stream id just before `id` (XREVRANGE's exclusive "(" form needs Redis 6.2; this does not). */
export function previousStreamId(id: string): string | null {
  const match = /^(\d+)-(\d+)$/.exec(id);
  if (match === null) throw new StoreError('INVALID_RECORD', 'not a stream entry id', { id });
  const ms = BigInt(match[1]!);
  const seq = BigInt(match[2]!);
  if (seq > 0n) return `${ms}-${seq - 1n}`;
  if (ms > 0n) return `${ms - 1n}-${MAX_STREAM_SEQ}`;
  return null;
}

export function parseBlockRecord(hash: string, fields: Record<string, string>): StoredBlockCandidate {
  const data = { hash };
  const text = (name: string): string => {
    const value = fields[name];
    if (value === undefined) throw corrupt(`block field ${name}`, data);
    return value;
  };
  const status = text('status');
  const submitResult = text('submitResult');
  const solo = text('solo');
  if (!BLOCK_STATUSES.includes(status)) throw corrupt('block status', { ...data, status });
  if (!SUBMIT_RESULTS.includes(submitResult)) throw corrupt('block submitResult', { ...data, submitResult });
  if (solo !== '0' && solo !== '1') throw corrupt('block solo flag', { ...data, solo });
  const refusalReason = fields['refusalReason'] ?? null;
  if (refusalReason !== null && !isBlockRefusalReason(refusalReason))
    throw corrupt('block refusalReason', { ...data, refusalReason });
  const hasRound = fields['roundTotalDifficulty'] !== undefined;
  return {
    height: parseSafeInteger(fields['height'], 'block height', data),
    hash: text('hash'),
    prevHash: text('prevHash'),
    networkDifficulty: parseBigInt(fields['networkDifficulty'], 'block networkDifficulty', data),
    finderAddress: text('finderAddress'),
    finderWorker: text('finderWorker'),
    shareEntryId: text('shareEntryId'),
    shareDifficulty: parseSafeInteger(fields['shareDifficulty'], 'block shareDifficulty', data),
    solo: solo === '1',
    submitResult: submitResult as BlockCandidate['submitResult'],
    submitError: fields['submitError'] ?? null,
    blobHex: fields['blob'] ?? null,
    refusalReason,
    timestampMs: parseSafeInteger(fields['timestampMs'], 'block timestampMs', data),
    status: status as StoredBlockStatus,
    round: hasRound
      ? {
          startedAtMs: parseSafeInteger(fields['roundStartedAtMs'], 'block roundStartedAtMs', data),
          totalDifficulty: parseBigInt(fields['roundTotalDifficulty'], 'block roundTotalDifficulty', data),
          shareCount: parseSafeInteger(fields['roundShareCount'], 'block roundShareCount', data),
        }
      : null,
    window: fields['windowFixedAtMs'] === undefined ? null : parseWindowSummary(fields, data),
    unlockNote: fields['unlockNote'] ?? null,
    offMainChain: fields['onMainChain'] === '0',
    // A settled one a later reorg put back is on the main chain again.
    orphanedAfterCredit:
      fields['orphanedAfterCreditAtMs'] !== undefined && fields['restoredAfterSettlementAtMs'] === undefined,
  };
}

/** The fields fix_block_window writes on the block record. */
function parseWindowSummary(fields: Record<string, string>, data: { hash: string }): BlockWindowSummary {
  const endReason = fields['windowEndReason'];
  if (endReason === undefined || !WINDOW_ENDS.includes(endReason)) {
    throw corrupt('block windowEndReason', { ...data, endReason });
  }
  return {
    windowDifficulty: parseBigInt(fields['windowDifficulty'], 'block windowDifficulty', data),
    countedDifficulty: parseBigInt(fields['windowCountedDifficulty'], 'block windowCountedDifficulty', data),
    shareCount: parseSafeInteger(fields['windowShareCount'], 'block windowShareCount', data),
    endReason: endReason as ShareWindowEnd,
    fixedAtMs: parseSafeInteger(fields['windowFixedAtMs'], 'block windowFixedAtMs', data),
  };
}

/**
 * Reads what the ledger scripts wrote, for the API and the payment code. Every read is bounded
 * (pages, limits); every difficulty sum comes back as bigint because ioredis would turn an
 * integer reply into a lossy JS number (values are read as strings: HGETALL, HMGET).
 */
export class RedisLedgerReader {
  readonly #redis: Redis;
  readonly #keys: ShareKeys;

  constructor(opts: RedisLedgerReaderOptions, modules: RedisLedgerReaderModules) {
    this.#keys = createShareKeys(opts.keyPrefix);
    this.#redis = modules.redis;
  }

  /** address -> difficulty of the open round, or of a closed one. Empty map when none. */
  getRoundContributions(round?: { height: number; hash: string }): Promise<Map<string, bigint>> {
    const key =
      round === undefined ? this.#keys.roundCurrent : this.#keys.closedRound(round.height, round.hash);
    return this.#readWeights(key, 'getRoundContributions');
  }

  /** address -> counted difficulty of a block's fixed PPLNS window. Empty map when none. */
  getBlockWindow(hash: string): Promise<Map<string, bigint>> {
    return this.#readWeights(this.#keys.blockWindow(hash), 'getBlockWindow');
  }

  /** True while a pool block waits for its PPLNS window to be fixed. */
  async isWindowPending(hash: string): Promise<boolean> {
    const score = await runStoreCommand('isWindowPending', () =>
      this.#redis.zscore(this.#keys.blocksWindowPending, hash),
    );
    return score !== null;
  }

  /** Blocks waiting for their PPLNS window, lowest height first, at most `limit`. */
  listWindowPending(limit: number): Promise<string[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new StoreError('INVALID_OPTION', 'limit must be a positive integer', { limit });
    }
    return runStoreCommand('listWindowPending', () =>
      this.#redis.zrange(this.#keys.blocksWindowPending, 0, limit - 1),
    );
  }

  /** A HASH of address -> difficulty (a round or a window), every value a stored integer. */
  async #readWeights(key: string, operation: string): Promise<Map<string, bigint>> {
    const raw = await runStoreCommand(operation, () => this.#redis.hgetall(key));
    const weights = new Map<string, bigint>();
    for (const [address, value] of Object.entries(raw)) {
      weights.set(address, parseBigInt(value, 'difficulty weight', { key, address }));
    }
    return weights;
  }

  /** startedAtMs/totalDifficulty/shareCount of the open round; null before the first pool share. */
  async getCurrentRoundSummary(): Promise<RoundSummary | null> {
    const key = this.#keys.roundCurrentMeta;
    const [startedAtMs, totalDifficulty, shareCount] = await runStoreCommand('getCurrentRoundSummary', () =>
      this.#redis.hmget(key, 'startedAtMs', 'totalDifficulty', 'shareCount'),
    );
    if (startedAtMs === null || startedAtMs === undefined) return null;
    return {
      startedAtMs: parseSafeInteger(startedAtMs, 'round startedAtMs', { key }),
      totalDifficulty: parseBigInt(totalDifficulty ?? '0', 'round totalDifficulty', { key }),
      shareCount: parseSafeInteger(shareCount ?? '0', 'round shareCount', { key }),
    };
  }

  /** A miner's submitted difficulty, in the open round, and of the named workers: one round trip. */
  async getMinerShareTotals(address: string, workerNames: readonly string[]): Promise<MinerShareTotals> {
    const keys = this.#keys;
    const [difficultyTotal, roundDifficulty, ...workers] = await this.#difficultyTotals(address, [
      [keys.miner(address), 'difficultyTotal'],
      [keys.roundCurrent, address],
      ...workerNames.map((name): [string, string] => [keys.worker(address, name), 'difficultyTotal']),
    ]);
    return {
      difficultyTotal: difficultyTotal ?? 0n,
      roundDifficulty: roundDifficulty ?? 0n,
      workers: new Map(workerNames.map((name, index) => [name, workers[index] ?? 0n])),
    };
  }

  /**
   * The named workers' submitted difficulty only (0 when none), one round trip: for a caller that
   * has the miner's own totals from getMinerShareTotals already.
   */
  async getWorkerShareTotals(address: string, workerNames: readonly string[]): Promise<Map<string, bigint>> {
    if (workerNames.length === 0) return new Map();
    const keys = this.#keys;
    const totals = await this.#difficultyTotals(
      address,
      workerNames.map((name): [string, string] => [keys.worker(address, name), 'difficultyTotal']),
    );
    return new Map(workerNames.map((name, index) => [name, totals[index] ?? 0n]));
  }

  /** HGET of each [key, field] in one pipeline, as difficulties (a missing field is 0). */
  async #difficultyTotals(
    address: string,
    fields: readonly (readonly [string, string])[],
  ): Promise<bigint[]> {
    const pipeline = this.#redis.pipeline();
    for (const [key, field] of fields) pipeline.hget(key, field);
    const replies = await runStoreCommand('getMinerShareTotals', () => pipeline.exec());
    return (replies ?? []).map(([error, value]) => {
      if (error) throw toStoreError(error, 'getMinerShareTotals', { address });
      return parseBigInt((value as string | null) ?? '0', 'difficulty total', { address });
    });
  }

  async getBlockCandidate(hash: string): Promise<StoredBlockCandidate | null> {
    const raw = await runStoreCommand('getBlockCandidate', () => this.#redis.hgetall(this.#keys.block(hash)));
    return Object.keys(raw).length === 0 ? null : parseBlockRecord(hash, raw);
  }

  /** Candidates (pending and later states), highest height first, or lowest first with `lowestFirst`. */
  async listBlockCandidates(page: CandidatePage): Promise<StoredBlockCandidate[]> {
    const { offset, limit } = page;
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(limit) || limit < 1) {
      throw new StoreError('INVALID_RECORD', 'offset must be >= 0 and limit >= 1', { offset, limit });
    }
    if (limit > MAX_BLOCK_PAGE) {
      throw new StoreError('INVALID_RECORD', `limit must be at most ${MAX_BLOCK_PAGE}`, { limit });
    }
    const records = await this.#readListedBlocks(
      'listBlockCandidates',
      this.#keys.blockCandidates,
      offset,
      limit,
      page.lowestFirst === true,
    );
    return records.map(({ hash, fields }) => parseBlockRecord(hash, fields));
  }

  /** The lowest height among the candidates the unlocker has not decided yet; null when none waits. */
  async oldestUndecidedHeight(): Promise<number | null> {
    const key = this.#keys.blockCandidates;
    const [, score] = await runStoreCommand('oldestUndecidedHeight', () =>
      this.#redis.zrange(key, 0, 0, 'WITHSCORES'),
    );
    return score === undefined ? null : parseSafeInteger(score, 'candidate height', { key });
  }

  /**
   * Of the newest `limit` refused blocks (`<p>:blocks:rejected`, highest first), those still
   * refused that may be on the chain (reason `unknown`, none, or `stale-tip`: see UnlockLedger)
   * and that the unlocker has not found off the chain (no `chainCheckedMs`).
   */
  async listRefusalsToRecheck(limit: number): Promise<StoredBlockCandidate[]> {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_BLOCK_PAGE) {
      throw new StoreError('INVALID_OPTION', `limit must be an integer in 1..${MAX_BLOCK_PAGE}`, { limit });
    }
    const records = await this.#readListedBlocks(
      'listRefusalsToRecheck',
      this.#keys.blocksRejected,
      0,
      limit,
    );
    return records
      .filter(
        ({ fields }) =>
          fields['status'] === 'rejected' &&
          MAY_BE_ON_CHAIN.has(fields['refusalReason'] ?? 'unknown') &&
          fields['chainCheckedMs'] === undefined,
      )
      .map(({ hash, fields }) => parseBlockRecord(hash, fields));
  }

  /** The block records of a ZSET's members from `offset`, highest first (or lowest); each record must exist. */
  async #readListedBlocks(
    operation: string,
    listKey: string,
    offset: number,
    limit: number,
    lowestFirst = false,
  ): Promise<{ hash: string; fields: Record<string, string> }[]> {
    const last = offset + limit - 1;
    const hashes = await runStoreCommand(operation, () =>
      lowestFirst ? this.#redis.zrange(listKey, offset, last) : this.#redis.zrevrange(listKey, offset, last),
    );
    if (hashes.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const hash of hashes) pipeline.hgetall(this.#keys.block(hash));
    const replies = await runStoreCommand(operation, () => pipeline.exec());
    return hashes.map((hash, index) => {
      const [error, fields] = replies?.[index] ?? [new Error('no reply'), null];
      if (error) throw toStoreError(error, operation, { hash });
      const record = fields as Record<string, string>;
      if (Object.keys(record).length === 0) throw corrupt('block list: block record missing', { hash });
      return { hash, fields: record };
    });
  }

  /**
   * PPLNS read-back: pool shares from `entryId` (included, normally the block's solving share)
   * towards older ones until their difficulty sum reaches `untilDifficulty`, in XREVRANGE pages.
   * Solo shares are skipped: they are not part of the pool's window. Throws SHARE_ENTRY_MISSING
   * when `entryId` itself is gone (trimmed), instead of paying over an empty window.
   */
  async readSharesBackFrom(
    entryId: string,
    untilDifficulty: bigint,
    options: ReadSharesOptions = {},
  ): Promise<ShareWindow> {
    const pageSize = options.pageSize ?? DEFAULT_SHARE_PAGE_SIZE;
    const maxShares = options.maxShares ?? DEFAULT_MAX_WINDOW_SHARES;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_SHARE_PAGE_SIZE) {
      throw new StoreError('INVALID_OPTION', `pageSize must be 1..${MAX_SHARE_PAGE_SIZE}`, { pageSize });
    }
    if (!Number.isSafeInteger(maxShares) || maxShares < 1) {
      throw new StoreError('INVALID_OPTION', 'maxShares must be a positive integer', { maxShares });
    }
    const shares: StoredShare[] = [];
    let windowDifficulty = 0n;
    let end: string | null = entryId;
    let firstPage = true;
    previousStreamId(entryId); // validates the id's form before any I/O
    while (end !== null) {
      const from: string = end;
      const page = await runStoreCommand('readSharesBackFrom', () =>
        this.#redis.xrevrange(this.#keys.shares, from, '-', 'COUNT', pageSize),
      );
      if (firstPage && page[0]?.[0] !== entryId) {
        throw new StoreError('SHARE_ENTRY_MISSING', 'the share entry is no longer in the stream', {
          entryId,
        });
      }
      firstPage = false;
      for (const [id, fields] of page) {
        const share = parseShareEntry(id, fields);
        if (share.solo) continue;
        shares.push(share);
        windowDifficulty += BigInt(share.difficulty);
        if (windowDifficulty >= untilDifficulty) return { shares, windowDifficulty, endReason: 'filled' };
        if (shares.length >= maxShares) return { shares, windowDifficulty, endReason: 'max-shares' };
      }
      const last = page[page.length - 1];
      end = page.length < pageSize || last === undefined ? null : previousStreamId(last[0]);
    }
    const endReason = (await this.#streamWasTrimmed()) ? 'trimmed' : 'stream-start';
    return { shares, windowDifficulty, endReason };
  }

  /**
   * Redis 7 counts every entry ever added; more added than present means entries were trimmed
   * (the ledger never XDELs). Older Redis lacks the counter: reported as not trimmed.
   */
  async #streamWasTrimmed(): Promise<boolean> {
    const info = (await runStoreCommand('readSharesBackFrom', () =>
      this.#redis.call('XINFO', 'STREAM', this.#keys.shares),
    )) as unknown[];
    const field = (name: string): unknown => {
      const index = info.indexOf(name);
      return index >= 0 ? info[index + 1] : undefined;
    };
    const added = field('entries-added');
    const length = field('length');
    return typeof added === 'number' && typeof length === 'number' && added > length;
  }
}
