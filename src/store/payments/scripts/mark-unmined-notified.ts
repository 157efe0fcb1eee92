import type { ScriptCall } from '../../scripts/define-script.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['batchKey', 'unconfirmedKey'],
  args: ['now', 'batchId'],
});

/**
 * mark_unmined_notified: the leader told the operator that a watched sent batch is not mined hours
 * after its send (payout-unmined), so no pass, restart or later leader tells it again. Changes no
 * money. Only a sent batch still watched; the first mark is kept (`unminedNotifiedAtMs` on the
 * batch record). Replies {1, 1} when it marked it now, {1, 0} when it was marked already.
 */
export const MARK_UNMINED_NOTIFIED_LUA = payoutScriptLua(
  LAYOUT,
  `
if redis.call('HGET', batchKey, 'state') ~= 'sent' or not redis.call('ZSCORE', unconfirmedKey, batchId) then
  return {0, 'BATCH_STATE', 'not a watched sent batch'}
end
return {1, redis.call('HSETNX', batchKey, 'unminedNotifiedAtMs', now)}
`,
);

export function buildMarkUnminedNotifiedCall(ctx: PayoutCallContext, batchId: string): ScriptCall {
  const base = payoutCallBase(ctx);
  return LAYOUT.call({
    keys: { ...base.keys, batchKey: ctx.keys.batch(batchId), unconfirmedKey: ctx.keys.batchesUnconfirmed },
    args: { ...base.args, batchId },
  });
}
