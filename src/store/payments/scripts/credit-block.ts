import type { CreditBlockRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { amountArg, PaymentStoreError } from '../payment-store-error.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: [
    'blockKey',
    'candidatesKey',
    'confirmedKey',
    'totalsKey',
    'payableKey',
    'creditsKey',
    'closedRoundKey',
    'windowKey',
    'windowPendingKey',
  ],
  args: [
    'hash',
    'height',
    'reward',
    'poolFeeKept',
    'poolFee',
    'finderBonus',
    'scheme',
    'now',
    'historyMax',
    'depth',
  ],
  itemKeys: ['balanceKey', 'historyKey'],
  itemArgs: ['address', 'amount', 'reason'],
});

/**
 * credit_block: credits every miner of a confirmed block and flips it pending -> confirmed, in one
 * call. Idempotent by block hash: a block whose status is not 'pending' is left alone (reply
 * {2, status}), so a crash between the split and the reply, or a second unlocker, never credits
 * twice. The block's closed round and its window (the weights) are deleted: `<p>:block:<hash>:credits`
 * is the record now. `poolFeeKept` is the part of the pool fee that stays in the wallet. One item
 * per credit: the miner's balance and history keys, address, amount and reason.
 * Returns {1, 'confirmed'}, or {0, 'CORRUPT_BALANCE', key} before any write when a key it adds to
 * holds something else than an amount (the block stays pending, never half-credited).
 */
export const CREDIT_BLOCK_LUA = moneyScriptLua(
  LAYOUT,
  `
local status = redis.call('HGET', blockKey, 'status')
if status ~= 'pending' then return {2, status or ''} end
local bad = unwritable(totalsKey, 'hash', 'credited', 'balance', 'rewards', 'poolFees', 'blocksConfirmed')
  or unwritable(creditsKey, 'hash') or unwritable(payableKey, 'zset')
for i = 1, itemCount do
  local itemKeys = item_keys(i)
  bad = bad or unwritable_account(itemKeys)
end
if bad then return {0, 'CORRUPT_BALANCE', bad} end
for i = 1, itemCount do
  local credit, itemKeys = item_args(i), item_keys(i)
  local address, amount = credit.address, credit.amount
  local balanceKey = itemKeys.balanceKey
  add_credit(balanceKey, totalsKey, amount)
  redis.call('HINCRBY', creditsKey, address, amount)
  local balance = index_payable(payableKey, totalsKey, balanceKey, address)
  history(itemKeys.historyKey, historyMax, credit.reason, amount, hash, balance, now)
end
redis.call('HINCRBY', totalsKey, 'rewards', reward)
redis.call('HINCRBY', totalsKey, 'poolFees', poolFeeKept)
redis.call('HINCRBY', totalsKey, 'blocksConfirmed', 1)
redis.call('HSET', blockKey, 'status', 'confirmed', 'reward', reward, 'poolFee', poolFee,
  'finderBonus', finderBonus, 'scheme', scheme, 'confirmations', depth, 'unlockedAtMs', now,
  'creditCount', tostring(itemCount))
redis.call('ZREM', candidatesKey, hash)
redis.call('ZADD', confirmedKey, height, hash)
redis.call('DEL', closedRoundKey, windowKey)
redis.call('ZREM', windowPendingKey, hash)
return {1, 'confirmed'}
`,
);

/**
 * Builds credit_block's call; throws INVALID_AMOUNT unless the credits and the kept fee add up to
 * the reward and every credit is > 0.
 */
export function buildCreditBlockCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: CreditBlockRequest,
  settings: { readonly nowMs: () => number; readonly historyMaxLength: number },
): ScriptCall {
  const credited = request.credits.reduce((sum, c) => sum + c.amountAtomic, 0n);
  // The split must account for the whole reward: miners + fee address + kept fee.
  if (credited + request.poolFeeKeptAtomic !== request.rewardAtomic) {
    throw new PaymentStoreError('INVALID_AMOUNT', 'credits and kept fee do not add up to the reward', {
      hash: request.hash,
      credited: credited.toString(),
      reward: request.rewardAtomic.toString(),
    });
  }
  const { payments, shares } = keys;
  const args = {
    fencingToken: request.fencingToken ?? '',
    hash: request.hash,
    height: String(request.height),
    reward: amountArg(request.rewardAtomic, 'reward'),
    poolFeeKept: amountArg(request.poolFeeKeptAtomic, 'poolFeeKept'),
    poolFee: amountArg(request.poolFeeAtomic, 'poolFee'),
    finderBonus: amountArg(request.finderBonusAtomic, 'finderBonus'),
    scheme: request.scheme,
    now: String(settings.nowMs()),
    historyMax: String(settings.historyMaxLength),
    depth: String(request.depth),
  };
  const items = request.credits.map((credit) => {
    if (credit.amountAtomic <= 0n) {
      throw new PaymentStoreError('INVALID_AMOUNT', 'a block credit must be > 0', {
        address: credit.address,
      });
    }
    return {
      keys: { balanceKey: payments.balance(credit.address), historyKey: payments.history(credit.address) },
      args: {
        address: credit.address,
        amount: amountArg(credit.amountAtomic, 'credit'),
        reason: credit.reason,
      },
    };
  });
  return LAYOUT.call({
    keys: {
      leaderKey: payments.leaderToken,
      blockKey: shares.block(request.hash),
      candidatesKey: shares.blockCandidates,
      confirmedKey: payments.blocksConfirmed,
      totalsKey: payments.totals,
      payableKey: payments.payable,
      creditsKey: payments.blockCredits(request.hash),
      closedRoundKey: shares.closedRound(request.height, request.hash),
      windowKey: shares.blockWindow(request.hash),
      windowPendingKey: shares.blocksWindowPending,
    },
    args,
    items,
  });
}
