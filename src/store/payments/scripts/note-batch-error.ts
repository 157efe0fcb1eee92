import type { ScriptCall } from '../../scripts/define-script.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({ keys: ['batchKey'], args: ['now', 'errorText', 'errorKind'] });

/** note_batch_error: remembers the last wallet error of an open batch (state unchanged). */
export const NOTE_ERROR_LUA = payoutScriptLua(
  LAYOUT,
  `
local state = redis.call('HGET', batchKey, 'state')
if state ~= 'prepared' and state ~= 'sending' then return {0, 'BATCH_STATE', state or ''} end
redis.call('HSET', batchKey, 'lastError', errorText, 'lastErrorKind', errorKind, 'lastErrorAtMs', now,
  'updatedAtMs', now)
redis.call('HINCRBY', batchKey, 'errorCount', 1)
return {1}
`,
);

/** The error is kept to its first 500 characters. */
export function buildNoteErrorCall(
  ctx: PayoutCallContext,
  batchId: string,
  error: { readonly text: string; readonly kind: string },
): ScriptCall {
  const { keys } = ctx;
  const base = payoutCallBase(ctx);
  return LAYOUT.call({
    keys: { ...base.keys, batchKey: keys.batch(batchId) },
    args: { ...base.args, errorText: error.text.slice(0, 500), errorKind: error.kind },
  });
}
