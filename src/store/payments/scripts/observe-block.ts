import type { ObserveBlockRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: ['blockKey'],
  args: ['confirmations', 'onMainChain', 'now', 'note'],
});

/**
 * observe_block: records how deep a still-pending block is and whether the main chain holds it
 * (`onMainChain` "1" or "0"), for the API, only while pending.
 */
export const OBSERVE_BLOCK_LUA = moneyScriptLua(
  LAYOUT,
  `
if redis.call('HGET', blockKey, 'status') ~= 'pending' then return {2} end
redis.call('HSET', blockKey, 'confirmations', confirmations, 'onMainChain', onMainChain,
  'lastCheckedMs', now, 'unlockNote', note)
return {1}
`,
);

export function buildObserveBlockCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: ObserveBlockRequest,
  nowMs: number,
): ScriptCall {
  return LAYOUT.call({
    keys: { leaderKey: keys.payments.leaderToken, blockKey: keys.shares.block(request.hash) },
    args: {
      fencingToken: request.fencingToken ?? '',
      confirmations: String(request.confirmations),
      onMainChain: request.onMainChain ? '1' : '0',
      now: String(nowMs),
      note: request.note,
    },
  });
}
