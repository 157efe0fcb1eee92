import type { Redis } from 'ioredis';
import type { StoredBlockCandidate } from '../../pool/blocks/stored-block.js';
import type {
  BlockWindowLedger,
  CreditBlockRequest,
  CreditOutcome,
  FixBlockWindowRequest,
  ObserveBlockRequest,
  OrphanBlockRequest,
  UnlockLedger,
} from '../../pool/blocks/unlock-ledger.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { RedisLedgerReader, type ShareWindow } from '../shares/ledger-reader.js';
import { createStoreKeys, type StoreKeys } from '../shares/share-keys.js';
import { StoreError, toStoreError } from '../store-error.js';
import { DEFAULT_HISTORY_MAX_LENGTH } from './balances-store.js';
import { MONEY_LUA_PRELUDE } from './money-lua-prelude.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';
import { amountArg, PaymentStoreError, refusalOf } from './payment-store-error.js';

/**
 * credit_block: credits every miner of a confirmed block and flips it pending -> confirmed, in one
 * call. Idempotent by block hash: a block whose status is not 'pending' is left alone (reply
 * {2, status}), so a crash between the split and the reply, or a second unlocker, never credits twice.
 *
 * KEYS: 1 leader token, 2 `<p>:block:<hash>`, 3 `<p>:blocks:candidates`, 4 `<p>:blocks:confirmed`,
 *       5 totals, 6 payable, 7 `<p>:block:<hash>:credits`, 8 the block's closed round and
 *       9 `<p>:block:<hash>:window` (the weights: deleted, the credits hash is the record now),
 *       10 `<p>:blocks:window-pending`, then N balance keys, then N history keys.
 * ARGV: 1 fencing token, 2 hash, 3 height, 4 reward, 5 pool fee kept in the wallet, 6 pool fee,
 *       7 finder bonus, 8 scheme, 9 now ms, 10 history max length, 11 N, 12 depth,
 *       then N x (address, amount, reason).
 * Returns {1, 'confirmed'}.
 */
const CREDIT_BLOCK_LUA = `${MONEY_LUA_PRELUDE}
local status = redis.call('HGET', KEYS[2], 'status')
if status ~= 'pending' then return {2, status or ''} end
local n = tonumber(ARGV[11])
for i = 1, n do
  local address, amount, reason = ARGV[10 + i * 3], ARGV[11 + i * 3], ARGV[12 + i * 3]
  local balanceKey, historyKey = KEYS[10 + i], KEYS[10 + n + i]
  redis.call('HINCRBY', balanceKey, 'credited', amount)
  redis.call('HINCRBY', balanceKey, 'balance', amount)
  redis.call('HINCRBY', KEYS[5], 'credited', amount)
  redis.call('HINCRBY', KEYS[5], 'balance', amount)
  redis.call('HINCRBY', KEYS[7], address, amount)
  local balance = index_payable(KEYS[6], balanceKey, address)
  history(historyKey, ARGV[10], reason, amount, ARGV[2], balance, ARGV[9])
end
redis.call('HINCRBY', KEYS[5], 'rewards', ARGV[4])
redis.call('HINCRBY', KEYS[5], 'poolFees', ARGV[5])
redis.call('HINCRBY', KEYS[5], 'blocksConfirmed', 1)
redis.call('HSET', KEYS[2], 'status', 'confirmed', 'reward', ARGV[4], 'poolFee', ARGV[6],
  'finderBonus', ARGV[7], 'scheme', ARGV[8], 'confirmations', ARGV[12], 'unlockedAtMs', ARGV[9],
  'creditCount', tostring(n))
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
redis.call('DEL', KEYS[8], KEYS[9])
redis.call('ZREM', KEYS[10], ARGV[2])
return {1, 'confirmed'}
`;

/**
 * orphan_block: marks a pending block orphaned (nothing credited) and applies the scheme's rule to
 * the round it closed. Idempotent by block hash like credit_block.
 *
 * KEYS: 1 leader token, 2 block, 3 candidates, 4 `<p>:blocks:orphaned`, 5 totals, 6 closed round,
 *       7 `<p>:round:current`, 8 `<p>:round:current:meta`, 9 the block's window (deleted: PPLNS
 *       shares stay in the stream for the next block), 10 `<p>:blocks:window-pending`.
 * ARGV: 1 fencing token, 2 hash, 3 height, 4 "1" to merge the closed round into the current one
 *       (PROP), 5 reason, 6 hash seen at that height ("" for none), 7 now ms.
 * Returns {1, 'orphaned', merged address count}.
 */
const ORPHAN_BLOCK_LUA = `${MONEY_LUA_PRELUDE}
local status = redis.call('HGET', KEYS[2], 'status')
if status ~= 'pending' then return {2, status or '', 0} end
local merged = 0
if ARGV[4] == '1' then
  local flat = redis.call('HGETALL', KEYS[6])
  for i = 1, #flat, 2 do
    redis.call('HINCRBY', KEYS[7], flat[i], flat[i + 1])
    redis.call('HINCRBY', KEYS[8], 'totalDifficulty', flat[i + 1])
    merged = merged + 1
  end
  local shareCount = redis.call('HGET', KEYS[2], 'roundShareCount')
  if merged > 0 and shareCount then redis.call('HINCRBY', KEYS[8], 'shareCount', shareCount) end
end
redis.call('DEL', KEYS[6], KEYS[9])
redis.call('ZREM', KEYS[10], ARGV[2])
redis.call('HSET', KEYS[2], 'status', 'orphaned', 'orphanReason', ARGV[5], 'orphanedAtMs', ARGV[7],
  'observedHash', ARGV[6], 'roundMerged', tostring(merged))
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
redis.call('HINCRBY', KEYS[5], 'blocksOrphaned', 1)
return {1, 'orphaned', merged}
`;

/**
 * observe_block: records how deep a still-pending block is (for the API), only while pending.
 * KEYS: 1 leader token, 2 block. ARGV: 1 fencing token, 2 confirmations, 3 now ms, 4 note.
 */
const OBSERVE_BLOCK_LUA = `${MONEY_LUA_PRELUDE}
if redis.call('HGET', KEYS[2], 'status') ~= 'pending' then return {2} end
redis.call('HSET', KEYS[2], 'confirmations', ARGV[2], 'lastCheckedMs', ARGV[3], 'unlockNote', ARGV[4])
return {1}
`;

/**
 * fix_block_window: stores a pool block's PPLNS weights and the window's summary, and takes the
 * block out of window-pending (the share stream may be trimmed again), in one call. Acts only while
 * the block is in window-pending and pending, so a second fixer (or a retry) changes nothing.
 *
 * KEYS: 1 leader token, 2 `<p>:blocks:window-pending`, 3 `<p>:block:<hash>`,
 *       4 `<p>:block:<hash>:window`.
 * ARGV: 1 fencing token, 2 hash, 3 window difficulty, 4 counted difficulty, 5 share count,
 *       6 end reason, 7 now ms, 8 N, then N x (address, weight).
 * Returns {1} when fixed, {2, why} when there was nothing to fix.
 */
const FIX_BLOCK_WINDOW_LUA = `${MONEY_LUA_PRELUDE}
if not redis.call('ZSCORE', KEYS[2], ARGV[2]) then return {2, 'not-waiting'} end
local status = redis.call('HGET', KEYS[3], 'status')
if status ~= 'pending' then return {2, status or 'no-record'} end
redis.call('DEL', KEYS[4])
for i = 1, tonumber(ARGV[8]) do
  redis.call('HSET', KEYS[4], ARGV[7 + i * 2], ARGV[8 + i * 2])
end
redis.call('HSET', KEYS[3], 'windowDifficulty', ARGV[3], 'windowCountedDifficulty', ARGV[4],
  'windowShareCount', ARGV[5], 'windowEndReason', ARGV[6], 'windowFixedAtMs', ARGV[7])
redis.call('ZREM', KEYS[2], ARGV[2])
return {1}
`;

export interface UnlockerStoreOptions {
  readonly keyPrefix: string;
  readonly historyMaxLength?: number;
}

/**
 * The unlocker's ledger on Redis: its writes (fix a found block's window, credit a confirmed block,
 * orphan one, note a pending one's depth) and the reads its decisions need (through the ledger
 * reader).
 */
export class UnlockerStore implements UnlockLedger, BlockWindowLedger {
  readonly keys: PaymentKeys;
  readonly storeKeys: StoreKeys;
  readonly #reader: RedisLedgerReader;
  readonly #clock: () => number;
  readonly #historyMaxLength: number;
  readonly #credit: ScriptRunner;
  readonly #orphan: ScriptRunner;
  readonly #observe: ScriptRunner;
  readonly #fixWindow: ScriptRunner;

  constructor(opts: UnlockerStoreOptions, modules: { redis: Redis; clock?: () => number }) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.storeKeys = createStoreKeys(opts.keyPrefix);
    this.#reader = new RedisLedgerReader({ keyPrefix: opts.keyPrefix }, { redis: modules.redis });
    this.#clock = modules.clock ?? Date.now;
    this.#historyMaxLength = opts.historyMaxLength ?? DEFAULT_HISTORY_MAX_LENGTH;
    this.#credit = defineScript(modules.redis, 'fuegoPoolCreditBlock', CREDIT_BLOCK_LUA);
    this.#orphan = defineScript(modules.redis, 'fuegoPoolOrphanBlock', ORPHAN_BLOCK_LUA);
    this.#observe = defineScript(modules.redis, 'fuegoPoolObserveBlock', OBSERVE_BLOCK_LUA);
    this.#fixWindow = defineScript(modules.redis, 'fuegoPoolFixBlockWindow', FIX_BLOCK_WINDOW_LUA);
  }

  listBlockCandidates(page: { offset: number; limit: number }): Promise<StoredBlockCandidate[]> {
    return this.#reader.listBlockCandidates(page);
  }

  getRoundContributions(round: { height: number; hash: string }): Promise<Map<string, bigint>> {
    return this.#reader.getRoundContributions(round);
  }

  readSharesBackFrom(entryId: string, untilDifficulty: bigint): Promise<ShareWindow> {
    return this.#reader.readSharesBackFrom(entryId, untilDifficulty);
  }

  getBlockCandidate(hash: string): Promise<StoredBlockCandidate | null> {
    return this.#reader.getBlockCandidate(hash);
  }

  getBlockWindow(hash: string): Promise<Map<string, bigint>> {
    return this.#reader.getBlockWindow(hash);
  }

  isWindowPending(hash: string): Promise<boolean> {
    return this.#reader.isWindowPending(hash);
  }

  listWindowPending(limit: number): Promise<string[]> {
    return this.#reader.listWindowPending(limit);
  }

  /** Fixes a block's PPLNS weights once; `applied` false when it was not waiting (any more). */
  async fixBlockWindow(request: FixBlockWindowRequest): Promise<{ applied: boolean }> {
    // Difficulties, not money: only stored (HSET), so they may pass 64 bits.
    const difficultyArg = (value: bigint, what: string, min: bigint): string => {
      if (typeof value !== 'bigint' || value < min) {
        throw new StoreError('INVALID_RECORD', `${what} must be a bigint >= ${min}`, {
          hash: request.hash,
          what,
        });
      }
      return value.toString();
    };
    if (!Number.isSafeInteger(request.shareCount) || request.shareCount < 0) {
      throw new StoreError('INVALID_RECORD', 'shareCount must be an integer >= 0', { hash: request.hash });
    }
    const args = [
      request.fencingToken ?? '',
      request.hash,
      difficultyArg(request.windowDifficulty, 'windowDifficulty', 1n),
      difficultyArg(request.countedDifficulty, 'countedDifficulty', 0n),
      String(request.shareCount),
      request.endReason,
      String(this.#clock()),
      String(request.weights.size),
    ];
    for (const [address, weight] of request.weights) args.push(address, difficultyArg(weight, 'weight', 1n));
    const keys = [
      this.keys.leaderToken,
      this.storeKeys.blocksWindowPending,
      this.storeKeys.block(request.hash),
      this.storeKeys.blockWindow(request.hash),
    ];
    const reply = await run('fix_block_window', () => this.#fixWindow({ keys, args }));
    const refusal = refusalOf(reply, 'fix_block_window');
    if (refusal) throw refusal;
    return { applied: (reply as [number])[0] === 1 };
  }

  /** Credits and confirms atomically; `applied` false when the block was no longer pending. */
  async creditBlock(request: CreditBlockRequest): Promise<CreditOutcome> {
    const credited = request.credits.reduce((sum, c) => sum + c.amountAtomic, 0n);
    // The split must account for the whole reward: miners + fee address + kept fee.
    if (credited + request.poolFeeKeptAtomic !== request.rewardAtomic) {
      throw new PaymentStoreError('INVALID_AMOUNT', 'credits and kept fee do not add up to the reward', {
        hash: request.hash,
        credited: credited.toString(),
        reward: request.rewardAtomic.toString(),
      });
    }
    const args = [
      request.fencingToken ?? '',
      request.hash,
      String(request.height),
      amountArg(request.rewardAtomic, 'reward'),
      amountArg(request.poolFeeKeptAtomic, 'poolFeeKept'),
      amountArg(request.poolFeeAtomic, 'poolFee'),
      amountArg(request.finderBonusAtomic, 'finderBonus'),
      request.scheme,
      String(this.#clock()),
      String(this.#historyMaxLength),
      String(request.credits.length),
      String(request.depth),
    ];
    for (const credit of request.credits) {
      if (credit.amountAtomic <= 0n) {
        throw new PaymentStoreError('INVALID_AMOUNT', 'a block credit must be > 0', {
          address: credit.address,
        });
      }
      args.push(credit.address, amountArg(credit.amountAtomic, 'credit'), credit.reason);
    }
    const keys = [
      this.keys.leaderToken,
      this.storeKeys.block(request.hash),
      this.storeKeys.blockCandidates,
      this.keys.blocksConfirmed,
      this.keys.totals,
      this.keys.payable,
      this.keys.blockCredits(request.hash),
      this.storeKeys.closedRound(request.height, request.hash),
      this.storeKeys.blockWindow(request.hash),
      this.storeKeys.blocksWindowPending,
      ...request.credits.map((c) => this.keys.balance(c.address)),
      ...request.credits.map((c) => this.keys.history(c.address)),
    ];
    const reply = await run('credit_block', () => this.#credit({ keys, args }));
    const refusal = refusalOf(reply, 'credit_block');
    if (refusal) throw refusal;
    const [code, status] = reply as [number, string];
    return code === 1 ? { applied: true } : { applied: false, status: String(status) };
  }

  async orphanBlock(request: OrphanBlockRequest): Promise<CreditOutcome> {
    const keys = [
      this.keys.leaderToken,
      this.storeKeys.block(request.hash),
      this.storeKeys.blockCandidates,
      this.keys.blocksOrphaned,
      this.keys.totals,
      this.storeKeys.closedRound(request.height, request.hash),
      this.storeKeys.roundCurrent,
      this.storeKeys.roundCurrentMeta,
      this.storeKeys.blockWindow(request.hash),
      this.storeKeys.blocksWindowPending,
    ];
    const args = [
      request.fencingToken ?? '',
      request.hash,
      String(request.height),
      request.mergeRound ? '1' : '0',
      request.reason,
      request.observedHash,
      String(this.#clock()),
    ];
    const reply = await run('orphan_block', () => this.#orphan({ keys, args }));
    const refusal = refusalOf(reply, 'orphan_block');
    if (refusal) throw refusal;
    const [code, status] = reply as [number, string];
    return code === 1 ? { applied: true } : { applied: false, status: String(status) };
  }

  async observeBlock(request: ObserveBlockRequest): Promise<void> {
    const reply = await run('observe_block', () =>
      this.#observe({
        keys: [this.keys.leaderToken, this.storeKeys.block(request.hash)],
        args: [
          request.fencingToken ?? '',
          String(request.confirmations),
          String(this.#clock()),
          request.note,
        ],
      }),
    );
    const refusal = refusalOf(reply, 'observe_block');
    if (refusal) throw refusal;
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
