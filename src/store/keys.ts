import { StoreError } from './store-error.js';

/**
 * Redis key layout of one pool. Every key starts with `{<prefix>}`, a Redis Cluster hash tag, so
 * all keys of a pool live in one slot and a Lua script may touch any of them (on Cluster too).
 * `<p>` below stands for that tagged prefix, e.g. `{fuego}`. Format: key - type - content -
 * writer - retention.
 *
 * - `<p>:shares` - STREAM - one entry per accepted share, fields a (address), w (worker),
 *   d (difficulty), h (template height), t (timestamp ms), s ("1" solo, "0"), x ("1" stale in
 *   grace, "0") - record_shares, record_block_candidate - trimmed to about `streamMaxLength`
 *   entries (MAXLEN ~); PPLNS reads back from a block's entry id.
 * - `<p>:round:current` - HASH - address -> summed difficulty of the open round: pool shares only,
 *   stale-in-grace included (they are credited), solo never - both scripts - renamed to a closed
 *   round when a pool block is recorded.
 * - `<p>:round:current:meta` - HASH - startedAtMs, totalDifficulty, shareCount of the open round
 *   - both scripts - reset when the round closes.
 * - `<p>:round:<height>:<hash>` - HASH - address -> difficulty of a closed round (PROP, audit) -
 *   record_block_candidate (RENAME) - until payments delete it (later issue).
 * - `<p>:blocks:candidates` - ZSET - score height, member block hash: blocks the unlocker must
 *   decide - record_block_candidate - the unlocker moves members out (later issue).
 * - `<p>:blocks:rejected` - ZSET - score height, member block hash: submitblock said no, so no
 *   round was closed - record_block_candidate - kept (audit, small).
 * - `<p>:block:<hash>` - HASH - height, hash, prevHash, networkDifficulty, finderAddress,
 *   finderWorker, shareEntryId (stream id of the solving share), shareDifficulty, solo ("1"/"0"),
 *   submitResult, submitError (only if any), timestampMs, status (pending | rejected, later
 *   confirmed | orphaned), blob (the block as submitted, hex; absent in records written before it
 *   was kept), and for a block that closed the pool round roundStartedAtMs, roundTotalDifficulty,
 *   roundShareCount - record_block_candidate; refusalReason (stale-tip | already-on-chain |
 *   pow-disagreement | unknown) of a rejected block - record_block_refusal; status by the unlocker
 *   - kept.
 * - `<p>:miner:<address>` - HASH - lastShareMs, sharesValid, difficultyTotal (solo and pool) -
 *   both scripts - kept (expiry of idle miners: later issue).
 * - `<p>:worker:<address>:<worker>` - HASH - lastShareMs, sharesValid, difficultyTotal - both
 *   scripts - kept (expiry of idle workers: later issue).
 * - `<p>:hashrate:...` - reserved for hashrate buckets (later issue).
 *
 * Why these choices:
 * - Stream entries always carry all seven fields (s and x as "0"/"1"): Redis stores the field names
 *   once per listpack node when an entry repeats the node's master fields, so uniform entries are
 *   the smallest.
 * - A rejected candidate gets its own ZSET and closes no round: the block is not on the chain, so
 *   the work of its round must stay in the open round instead of being paid by an orphan. A
 *   submitblock `error` (timeout, connection) is ambiguous, so it is treated as a candidate and the
 *   unlocker decides.
 * - An address never contains ':' (base58), so `worker:<address>:<worker>` is unambiguous even
 *   when the worker name contains ':'.
 * - Difficulty sums are Redis integers (signed 64-bit); they are read back as strings -> bigint.
 */

/** Same rule as the config schema's `redis.keyPrefix`: no braces, so the hash tag stays intact. */
const KEY_PREFIX_PATTERN = /^[a-z0-9_-]{1,32}$/;

export interface StoreKeys {
  /** `{prefix}`: the hash tag every key starts with. */
  readonly tag: string;
  readonly shares: string;
  readonly roundCurrent: string;
  readonly roundCurrentMeta: string;
  closedRound(height: number, blockHash: string): string;
  readonly blockCandidates: string;
  readonly blocksRejected: string;
  block(blockHash: string): string;
  miner(address: string): string;
  worker(address: string, worker: string): string;
}

/** Builds every key of one pool from its configured prefix (e.g. "fuego" -> `{fuego}:shares`). */
export function createStoreKeys(prefix: string): StoreKeys {
  if (!KEY_PREFIX_PATTERN.test(prefix)) {
    throw new StoreError('INVALID_KEY_PREFIX', 'key prefix must match /^[a-z0-9_-]{1,32}$/', { prefix });
  }
  const tag = `{${prefix}}`;
  return Object.freeze({
    tag,
    shares: `${tag}:shares`,
    roundCurrent: `${tag}:round:current`,
    roundCurrentMeta: `${tag}:round:current:meta`,
    closedRound: (height: number, blockHash: string) => `${tag}:round:${height}:${blockHash}`,
    blockCandidates: `${tag}:blocks:candidates`,
    blocksRejected: `${tag}:blocks:rejected`,
    block: (blockHash: string) => `${tag}:block:${blockHash}`,
    miner: (address: string) => `${tag}:miner:${address}`,
    worker: (address: string, worker: string) => `${tag}:worker:${address}:${worker}`,
  });
}
