import type { FixBlockWindowRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import { StoreError } from '../../store-error.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: ['windowPendingKey', 'blockKey', 'windowKey'],
  args: ['hash', 'windowDifficulty', 'countedDifficulty', 'shareCount', 'endReason', 'now'],
  itemArgs: ['address', 'weight'],
});

/**
 * fix_block_window: stores a pool block's PPLNS weights (one item per miner: address, weight) and
 * the window's summary, and takes the block out of window-pending (the share stream may be
 * trimmed again), in one call. Acts only while the block is in window-pending and pending, so a
 * second fixer (or a retry) changes nothing. Returns {1} when fixed, {2, why} when there was
 * nothing to fix.
 */
export const FIX_BLOCK_WINDOW_LUA = moneyScriptLua(
  LAYOUT,
  `
if not redis.call('ZSCORE', windowPendingKey, hash) then return {2, 'not-waiting'} end
local status = redis.call('HGET', blockKey, 'status')
if status ~= 'pending' then return {2, status or 'no-record'} end
redis.call('DEL', windowKey)
for i = 1, itemCount do
  local miner = item_args(i)
  redis.call('HSET', windowKey, miner.address, miner.weight)
end
redis.call('HSET', blockKey, 'windowDifficulty', windowDifficulty, 'windowCountedDifficulty',
  countedDifficulty, 'windowShareCount', shareCount, 'windowEndReason', endReason,
  'windowFixedAtMs', now)
redis.call('ZREM', windowPendingKey, hash)
return {1}
`,
);

/** Builds fix_block_window's call; throws INVALID_RECORD for difficulties or counts out of range. */
export function buildFixBlockWindowCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: FixBlockWindowRequest,
  nowMs: () => number,
): ScriptCall {
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
  const args = {
    fencingToken: request.fencingToken ?? '',
    hash: request.hash,
    windowDifficulty: difficultyArg(request.windowDifficulty, 'windowDifficulty', 1n),
    countedDifficulty: difficultyArg(request.countedDifficulty, 'countedDifficulty', 0n),
    shareCount: String(request.shareCount),
    endReason: request.endReason,
    now: String(nowMs()),
  };
  const items = [...request.weights].map(([address, weight]) => ({
    args: { address, weight: difficultyArg(weight, 'weight', 1n) },
  }));
  return LAYOUT.call({
    keys: {
      leaderKey: keys.payments.leaderToken,
      windowPendingKey: keys.shares.blocksWindowPending,
      blockKey: keys.shares.block(request.hash),
      windowKey: keys.shares.blockWindow(request.hash),
    },
    args,
    items,
  });
}
