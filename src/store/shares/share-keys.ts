import { keyTag } from '../key-tag.js';

/**
 * Redis key layout of the share family of one pool (share stream, rounds, block records, miner and
 * worker totals). Every key starts with `{<prefix>}` (key-tag.ts), a Redis Cluster hash tag, so
 * all keys of a pool live in one slot and a Lua script may touch any of them (on Cluster too).
 * `<p>` below stands for that tagged prefix, e.g. `{fuego}`. Format: key - type - content -
 * writer - retention.
 *
 * - `<p>:shares` - STREAM - one entry per accepted share, fields a (address), w (worker),
 *   d (difficulty), h (template height), t (timestamp ms), s ("1" solo, "0"), x ("1" stale in
 *   grace, "0") - record_shares, record_block_candidate - trimmed to about `streamMaxLength`
 *   entries (MAXLEN ~), but never while `<p>:blocks:window-pending` is not empty: a found block's
 *   PPLNS window is read back from its entry id once, soon after the find.
 * - `<p>:round:current` - HASH - address -> summed difficulty of the open round: pool shares only,
 *   stale-in-grace included (they are credited), solo never - both scripts - renamed to a closed
 *   round when a pool block is recorded.
 * - `<p>:round:current:meta` - HASH - startedAtMs, totalDifficulty, shareCount of the open round
 *   - both scripts - reset when the round closes.
 * - `<p>:round:<height>:<hash>` - HASH - address -> difficulty of a closed round (PROP's weights)
 *   - record_block_candidate, or record_block_refusal for a refused block found on the chain
 *   (RENAME) - deleted by credit_block / orphan_block.
 * - `<p>:blocks:candidates` - ZSET - score height, member block hash: blocks the unlocker must
 *   decide - record_block_candidate, record_block_refusal (a promoted block) - credit_block /
 *   orphan_block move members out.
 * - `<p>:blocks:window-pending` - ZSET - score height, member block hash: pool candidates (not
 *   solo, not rejected unless promoted) whose PPLNS window is not fixed yet; while it is not empty
 *   the stream is not trimmed - record_block_candidate and record_block_refusal add,
 *   fix_block_window (or the block's decision) removes.
 * - `<p>:block:<hash>:window` - HASH - address -> counted difficulty of the block's PPLNS window
 *   (PPLNS's weights, fixed soon after the find) - fix_block_window - deleted by credit_block
 *   (the credits hash is the record); kept by orphan_block, so that a block a deeper reorg puts
 *   back is credited by it (reinstate_orphaned_block; orphans are few).
 * - `<p>:blocks:announce-pending` - ZSET - score the find's timestampMs (a promoted refusal: its
 *   promotion's time), member block hash: blocks whose `block-found` nobody has published yet -
 *   record_block_candidate (not for a rejected block) and record_block_refusal's promotion (also
 *   the leader's promote_refused_block) add, in the same write as the record - the process that
 *   published it removes it (block-announcements.ts; the leader's removal is fenced), and the
 *   leader publishes what is left a while after its score (its finder died or lost Redis). Records
 *   written before it existed are never in it. Small: empty but for moments after each find.
 * - `<p>:blocks:rejected` - ZSET - score height, member block hash: submitblock said no, so no
 *   round was closed - record_block_candidate - kept (audit, small), except a block found on the
 *   chain after all, which record_block_refusal (or the leader's promote_refused_block, for a
 *   refusal no diagnosis explained) moves to the candidates.
 * - `<p>:block:<hash>` - HASH - height, hash, prevHash, networkDifficulty, finderAddress,
 *   finderWorker, shareEntryId (stream id of the solving share), shareDifficulty, solo ("1"/"0"),
 *   submitResult, submitError (only if any), timestampMs, status (pending | rejected, later
 *   confirmed | orphaned), blob (the block as submitted, hex; absent in records written before it
 *   was kept), and for a block that closed the pool round roundStartedAtMs, roundTotalDifficulty,
 *   roundShareCount - record_block_candidate; refusalReason (stale-tip | already-on-chain |
 *   pow-disagreement | unknown) of a rejected block - record_block_refusal, which also promotes
 *   an already-on-chain one (status pending and the round fields; submitResult kept), as does
 *   promote_refused_block; chainCheckedMs, observedHash and unlockNote of a refused block the
 *   unlocker found off the chain - note_refusal_off_chain; once its
 *   window is fixed windowDifficulty, windowCountedDifficulty, windowShareCount, windowEndReason,
 *   windowFixedAtMs - fix_block_window; status, confirmations, unlockNote and the decision's
 *   fields by the unlocker - kept.
 * - `<p>:miner:<address>` - HASH - lastShareMs, sharesValid, difficultyTotal (solo and pool) -
 *   both scripts - kept (expiry of idle miners: later issue).
 * - `<p>:worker:<address>:<worker>` - HASH - lastShareMs, sharesValid, difficultyTotal - both
 *   scripts - kept (expiry of idle workers: later issue).
 * - `<p>:hashrate:...` - reserved for hashrate buckets (later issue).
 *
 * Why these choices:
 * - A pool block's PPLNS weights are fixed soon after the find (the leader's window fixer), not
 *   read back at unlock ~8 h later: at a high share rate the block's own entry would be trimmed
 *   by then. window-pending keeps the stream untrimmed only for the moments until the fix, and
 *   the scripts check it with ZCARD, a key they name in KEYS (valid on Redis Cluster).
 * - Stream entries always carry all seven fields (s and x as "0"/"1"): Redis stores the field names
 *   once per listpack node when an entry repeats the node's master fields, so uniform entries are
 *   the smallest.
 * - A rejected candidate gets its own ZSET and closes no round: the block is not on the chain, so
 *   the work of its round must stay in the open round instead of being paid by an orphan. When the
 *   chain shows it after all (a -7 for a duplicate submit), it is promoted then, closing the round
 *   as it has run on meanwhile. A
 *   submitblock `error` (timeout, connection) is ambiguous, so it is treated as a candidate and the
 *   unlocker decides.
 * - An address never contains ':' (base58), so `worker:<address>:<worker>` is unambiguous even
 *   when the worker name contains ':'.
 * - Difficulty sums are Redis integers (signed 64-bit); they are read back as strings -> bigint.
 */

export interface ShareKeys {
  /** `{prefix}`: the hash tag every key starts with. */
  readonly tag: string;
  readonly shares: string;
  readonly roundCurrent: string;
  readonly roundCurrentMeta: string;
  closedRound(height: number, blockHash: string): string;
  readonly blockCandidates: string;
  readonly blocksRejected: string;
  readonly blocksWindowPending: string;
  readonly blocksAnnouncePending: string;
  block(blockHash: string): string;
  blockWindow(blockHash: string): string;
  miner(address: string): string;
  worker(address: string, worker: string): string;
}

/** Builds the share keys of one pool from its configured prefix (e.g. "fuego" -> `{fuego}:shares`). */
export function createShareKeys(prefix: string): ShareKeys {
  const tag = keyTag(prefix);
  return Object.freeze({
    tag,
    shares: `${tag}:shares`,
    roundCurrent: `${tag}:round:current`,
    roundCurrentMeta: `${tag}:round:current:meta`,
    closedRound: (height: number, blockHash: string) => `${tag}:round:${height}:${blockHash}`,
    blockCandidates: `${tag}:blocks:candidates`,
    blocksRejected: `${tag}:blocks:rejected`,
    blocksWindowPending: `${tag}:blocks:window-pending`,
    blocksAnnouncePending: `${tag}:blocks:announce-pending`,
    block: (blockHash: string) => `${tag}:block:${blockHash}`,
    blockWindow: (blockHash: string) => `${tag}:block:${blockHash}:window`,
    miner: (address: string) => `${tag}:miner:${address}`,
    worker: (address: string, worker: string) => `${tag}:worker:${address}:${worker}`,
  });
}
