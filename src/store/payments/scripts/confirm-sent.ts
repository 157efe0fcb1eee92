import type { ScriptCall } from '../../scripts/define-script.js';
import { watchedSentKeys } from './mark-wallet-missing.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['batchKey', 'unconfirmedKey', 'walletMissingKey'],
  args: ['now', 'batchId', 'blockIndex', 'note'],
});

/**
 * confirm_sent: the batch's transaction is deep in the chain; it leaves the unconfirmed set (and
 * the wallet-missing one). `note` ("" from the watch) says who confirmed it otherwise: the operator.
 */
export const CONFIRM_SENT_LUA = payoutScriptLua(
  LAYOUT,
  `
if redis.call('HGET', batchKey, 'state') == 'sent' then
  redis.call('HSET', batchKey, 'confirmedAtMs', now, 'blockIndex', blockIndex, 'updatedAtMs', now)
  if note ~= '' then redis.call('HSET', batchKey, 'confirmNote', note) end
end
redis.call('ZREM', unconfirmedKey, batchId)
redis.call('ZREM', walletMissingKey, batchId)
return {1}
`,
);

/** The note is kept to its first 200 characters. */
export function buildConfirmSentCall(
  ctx: PayoutCallContext,
  batchId: string,
  blockIndex: number,
  note = '',
): ScriptCall {
  const base = payoutCallBase(ctx);
  return LAYOUT.call({
    keys: { ...base.keys, ...watchedSentKeys(ctx.keys, batchId) },
    args: { ...base.args, batchId, blockIndex: String(blockIndex), note: note.slice(0, 200) },
  });
}
