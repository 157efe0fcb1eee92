import type { ScriptCall } from '../../scripts/define-script.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['batchKey', 'unconfirmedKey'],
  args: ['now', 'batchId', 'blockIndex'],
});

/** confirm_sent: the batch's transaction is deep in the chain; it leaves the unconfirmed set. */
export const CONFIRM_SENT_LUA = payoutScriptLua(
  LAYOUT,
  `
if redis.call('HGET', batchKey, 'state') == 'sent' then
  redis.call('HSET', batchKey, 'confirmedAtMs', now, 'blockIndex', blockIndex, 'updatedAtMs', now)
end
redis.call('ZREM', unconfirmedKey, batchId)
return {1}
`,
);

export function buildConfirmSentCall(
  ctx: PayoutCallContext,
  batchId: string,
  blockIndex: number,
): ScriptCall {
  const { keys } = ctx;
  const base = payoutCallBase(ctx);
  return LAYOUT.call({
    keys: { ...base.keys, batchKey: keys.batch(batchId), unconfirmedKey: keys.batchesUnconfirmed },
    args: { ...base.args, batchId, blockIndex: String(blockIndex) },
  });
}
