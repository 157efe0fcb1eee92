import type { ScriptCall } from '../../scripts/define-script.js';
import type { PaymentKeys } from '../payment-keys.js';
import { amountArg } from '../payment-store-error.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: ['balanceKey', 'totalsKey', 'payableKey', 'historyKey'],
  args: ['address', 'delta', 'note', 'now', 'historyMax'],
});

/**
 * adjust_balance: a manual credit (+) or debit (-) of `delta` with the operator's note. A debit
 * larger than the balance is refused (in-payout money is not the operator's to take).
 * Returns {1, balance after}.
 */
export const ADJUST_BALANCE_LUA = moneyScriptLua(
  LAYOUT,
  `
if string.sub(delta, 1, 1) == '-' and not ge(field(balanceKey, 'balance'), string.sub(delta, 2)) then
  return {0, 'INSUFFICIENT_BALANCE', address}
end
local account = {balanceKey = balanceKey, totalsKey = totalsKey, payableKey = payableKey,
  historyKey = historyKey, historyMax = historyMax, address = address}
return {1, adjust_account(account, delta, 'adjustment', note, now)}
`,
);

export interface AdjustBalanceRequest {
  readonly address: string;
  readonly deltaAtomic: bigint;
  /** Kept to its first 200 characters. */
  readonly note: string;
  readonly fencingToken?: string;
}

export function buildAdjustBalanceCall(
  keys: PaymentKeys,
  request: AdjustBalanceRequest,
  settings: { readonly nowMs: () => number; readonly historyMaxLength: number },
): ScriptCall {
  const { address } = request;
  return LAYOUT.call({
    keys: {
      leaderKey: keys.leaderToken,
      balanceKey: keys.balance(address),
      totalsKey: keys.totals,
      payableKey: keys.payable,
      historyKey: keys.history(address),
    },
    args: {
      fencingToken: request.fencingToken ?? '',
      address,
      delta: amountArg(request.deltaAtomic, 'deltaAtomic', true),
      note: request.note.slice(0, 200),
      now: String(settings.nowMs()),
      historyMax: String(settings.historyMaxLength),
    },
  });
}
