import type { ScriptCall } from '../../scripts/define-script.js';
import { scriptLayout } from '../../scripts/script-layout.js';
import type { PaymentKeys } from '../payment-keys.js';

const LAYOUT = scriptLayout({
  keys: ['totalsKey'],
  args: ['version', 'summed'],
});

/**
 * store_positive_balance: `summed` is the sum of the payable index's scores a reader added up page
 * by page while the totals' payableVersion was `version` ('' when never set). Unless the index
 * changed since (the version moved: reply {0}, nothing written), that is the sum at this instant,
 * and it becomes the totals' positiveBalance, which the money scripts keep from then on
 * (money-lua-prelude.ts, keep_payable_sum). Replies {1, the positiveBalance kept before ('' when
 * none)}. Not a money script: it writes a figure derived from the index, no balance, so it takes
 * no fencing token and any process may run it.
 */
export const STORE_POSITIVE_BALANCE_LUA = `${LAYOUT.lua}
if (redis.call('HGET', totalsKey, 'payableVersion') or '') ~= version then return {0} end
local kept = redis.call('HGET', totalsKey, 'positiveBalance') or ''
if kept ~= summed then redis.call('HSET', totalsKey, 'positiveBalance', summed) end
return {1, kept}
`;

/** `version` as the reader saw it before summing (null: never set), `summedAtomic` below 2^53. */
export function buildStorePositiveBalanceCall(
  keys: PaymentKeys,
  version: string | null,
  summedAtomic: bigint,
): ScriptCall {
  return LAYOUT.call({
    keys: { totalsKey: keys.totals },
    args: { version: version ?? '', summed: summedAtomic.toString() },
  });
}
