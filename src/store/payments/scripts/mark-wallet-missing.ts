import type { ScriptCall } from '../../scripts/define-script.js';
import type { PaymentKeys } from '../payment-keys.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['batchKey', 'unconfirmedKey', 'walletMissingKey'],
  args: ['now', 'batchId', 'missing'],
});

/**
 * mark_wallet_missing: whether the wallet had a record of a watched sent batch's transaction at its
 * last read. Changes no money. `missing` "1" marks it (only a sent batch still watched; the first
 * time is kept), "0" clears the mark. Replies {1, 1} when the mark changed, {1, 0} when not, so the
 * runner tells each change once.
 */
export const MARK_WALLET_MISSING_LUA = payoutScriptLua(
  LAYOUT,
  `
if missing == '0' then return {1, redis.call('ZREM', walletMissingKey, batchId)} end
if redis.call('HGET', batchKey, 'state') ~= 'sent' or not redis.call('ZSCORE', unconfirmedKey, batchId) then
  return {0, 'BATCH_STATE', 'not a watched sent batch'}
end
return {1, redis.call('ZADD', walletMissingKey, 'NX', now, batchId)}
`,
);

/** The keys of a watched sent batch that this script and confirm_sent touch. */
export function watchedSentKeys(keys: PaymentKeys, batchId: string) {
  return {
    batchKey: keys.batch(batchId),
    unconfirmedKey: keys.batchesUnconfirmed,
    walletMissingKey: keys.batchesWalletMissing,
  };
}

export function buildMarkWalletMissingCall(
  ctx: PayoutCallContext,
  batchId: string,
  missing: boolean,
): ScriptCall {
  const base = payoutCallBase(ctx);
  return LAYOUT.call({
    keys: { ...base.keys, ...watchedSentKeys(ctx.keys, batchId) },
    args: { ...base.args, batchId, missing: missing ? '1' : '0' },
  });
}
