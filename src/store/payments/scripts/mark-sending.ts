import type { ScriptCall } from '../../scripts/define-script.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({ keys: ['batchKey'], args: ['now'] });

/**
 * mark_sending: prepared -> sending, written just before the wallet call. A batch found prepared
 * by a later run was therefore never handed to the wallet and can be rolled back at once.
 */
export const MARK_SENDING_LUA = payoutScriptLua(
  LAYOUT,
  `
local state = redis.call('HGET', batchKey, 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state ~= 'prepared' then return {0, 'BATCH_STATE', state} end
redis.call('HSET', batchKey, 'state', 'sending', 'sendingAtMs', now, 'updatedAtMs', now)
return {1}
`,
);

export function buildMarkSendingCall(ctx: PayoutCallContext, batchId: string): ScriptCall {
  const { keys } = ctx;
  const base = payoutCallBase(ctx);
  return LAYOUT.call({ keys: { ...base.keys, batchKey: keys.batch(batchId) }, args: base.args });
}
