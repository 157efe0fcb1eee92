import type { PromoteRefusedBlockRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import {
  RECORD_BLOCK_REFUSAL_ARGS,
  RECORD_BLOCK_REFUSAL_BODY,
  RECORD_BLOCK_REFUSAL_KEYS,
  recordBlockRefusalValues,
} from '../../shares/scripts/record-block-refusal.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({ keys: RECORD_BLOCK_REFUSAL_KEYS, args: RECORD_BLOCK_REFUSAL_ARGS });

/**
 * promote_refused_block: the leader's record_block_refusal with reason `already-on-chain`, for a
 * refused block the unlocker found on the main chain after the stratum side's diagnosis could not
 * (the daemon did not answer, or the process stopped first). The same body, so the promotion
 * (round close, window-pending, solo) stays in one place, behind the money scripts' fencing check:
 * a stale leader gets {0, 'FENCED', ''} and nothing is written. Otherwise the body's reply:
 * 2 promoted, 0 left alone (no longer a refused record: promoted already, or gone).
 */
export const PROMOTE_REFUSED_BLOCK_LUA = moneyScriptLua(LAYOUT, RECORD_BLOCK_REFUSAL_BODY);

export function buildPromoteRefusedBlockCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: PromoteRefusedBlockRequest,
  nowMs: number,
): ScriptCall {
  const values = recordBlockRefusalValues(keys.shares, request, 'already-on-chain', nowMs);
  return LAYOUT.call({
    keys: { leaderKey: keys.payments.leaderToken, ...values.keys },
    args: { fencingToken: request.fencingToken ?? '', ...values.args },
  });
}
