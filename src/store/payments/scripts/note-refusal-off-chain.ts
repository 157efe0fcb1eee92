import type { NoteRefusalOffChainRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({ keys: ['blockKey'], args: ['observedHash', 'note', 'now'] });

/**
 * note_refusal_off_chain: a refused block whose refusal no diagnosis explained is not on the chain
 * (another block holds its height, confirmDepth deep): `chainCheckedMs`, `observedHash` and
 * `unlockNote` on its record, so the unlocker stops asking. It stays 'rejected', like any refused
 * block. Only a record still refused and not promoted takes it. Returns {1}, or {2, status}.
 */
export const NOTE_REFUSAL_OFF_CHAIN_LUA = moneyScriptLua(
  LAYOUT,
  `
local record = redis.call('HMGET', blockKey, 'submitResult', 'status')
if record[1] ~= 'rejected' or record[2] ~= 'rejected' then return {2, record[2] or ''} end
redis.call('HSET', blockKey, 'chainCheckedMs', now, 'observedHash', observedHash, 'unlockNote', note)
return {1}
`,
);

export function buildNoteRefusalOffChainCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: NoteRefusalOffChainRequest,
  nowMs: number,
): ScriptCall {
  const { hash, observedHash, note, fencingToken = '' } = request;
  const blockKey = keys.shares.block(hash);
  return LAYOUT.call({
    keys: { leaderKey: keys.payments.leaderToken, blockKey },
    args: { fencingToken, observedHash, note, now: String(nowMs) },
  });
}
