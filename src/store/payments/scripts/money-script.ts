import type { PayoutWriter } from '../../../model/payouts/payout-batch.js';
import { type ScriptLayout, type ScriptLayoutSpec, scriptLayout } from '../../scripts/script-layout.js';
import { MONEY_LUA_PRELUDE } from '../money-lua-prelude.js';
import type { PaymentKeys } from '../payment-keys.js';
import { amountArg } from '../payment-store-error.js';

type Names = readonly string[];

/** What every money script takes first: the leader key and the caller's fencing token. */
type MoneyKeys<K extends Names> = readonly ['leaderKey', ...K];
type MoneyArgs<A extends Names> = readonly ['fencingToken', ...A];
/** What every payout script takes first: the money script's, then the payout lock and its token. */
type PayoutKeys<K extends Names> = readonly ['leaderKey', 'lockKey', ...K];
type PayoutArgs<A extends Names> = readonly ['fencingToken', 'lockToken', ...A];

/**
 * The layout of a money script: `leaderKey` and `fencingToken` (which MONEY_LUA_PRELUDE's fencing
 * check reads), then the script's own names.
 */
export function moneyScriptLayout<
  const K extends Names,
  const A extends Names,
  const IK extends Names = readonly [],
  const IA extends Names = readonly [],
>(spec: ScriptLayoutSpec<K, A, IK, IA>): ScriptLayout<MoneyKeys<K>, MoneyArgs<A>, IK, IA> {
  return scriptLayout({
    ...spec,
    keys: ['leaderKey', ...spec.keys] as MoneyKeys<K>,
    args: ['fencingToken', ...spec.args] as MoneyArgs<A>,
  });
}

/** The layout of a payout script: a money script's that also names the payout lock and its token. */
export function payoutScriptLayout<
  const K extends Names,
  const A extends Names,
  const IK extends Names = readonly [],
  const IA extends Names = readonly [],
>(spec: ScriptLayoutSpec<K, A, IK, IA>): ScriptLayout<PayoutKeys<K>, PayoutArgs<A>, IK, IA> {
  return moneyScriptLayout({
    ...spec,
    keys: ['lockKey', ...spec.keys] as readonly ['lockKey', ...K],
    args: ['lockToken', ...spec.args] as readonly ['lockToken', ...A],
  });
}

/** A money script: the layout's locals, the prelude (helpers and the fencing check), then `body`. */
export function moneyScriptLua(layout: { readonly lua: string }, body: string): string {
  return `${layout.lua}${MONEY_LUA_PRELUDE}${body}`;
}

/** Every payout script refuses unless the caller still holds the payout lock. */
const LOCK_CHECK = `
if redis.call('GET', lockKey) ~= lockToken then return {0, 'LOCK_LOST', ''} end
`;

/** A payout script: a money script that checks the payout lock before `body`. */
export function payoutScriptLua(layout: { readonly lua: string }, body: string): string {
  return moneyScriptLua(layout, `${LOCK_CHECK}${body}`);
}

/** What every payout call is made with: the store's keys and settings, the writer, the clock. */
export interface PayoutCallContext {
  readonly keys: PaymentKeys;
  readonly writer: PayoutWriter;
  /** Read once per call, when its values are laid out (after the request's own checks). */
  readonly clock: () => number;
  readonly historyMaxLength: number;
  readonly paymentsMaxLength: number;
}

/** The names every payout call starts with, from its context. */
export function payoutCallBase(ctx: PayoutCallContext): {
  readonly keys: { readonly leaderKey: string; readonly lockKey: string };
  readonly args: { readonly fencingToken: string; readonly lockToken: string; readonly now: string };
} {
  return {
    keys: { leaderKey: ctx.keys.leaderToken, lockKey: ctx.keys.payoutLock },
    args: {
      fencingToken: ctx.writer.fencingToken,
      lockToken: ctx.writer.lockToken,
      now: String(ctx.clock()),
    },
  };
}

/**
 * One item per account of `amounts`, for a script whose items are `balanceKey`, `historyKey` /
 * `address`, `amount`: the account's keys, its address and its amount (`what` names the amount in
 * an INVALID_AMOUNT refusal).
 */
export function accountItems(
  keys: PaymentKeys,
  amounts: Iterable<readonly [string, bigint]>,
  what: string,
): Array<{
  readonly keys: { readonly balanceKey: string; readonly historyKey: string };
  readonly args: { readonly address: string; readonly amount: string };
}> {
  return [...amounts].map(([address, amount]) => ({
    keys: { balanceKey: keys.balance(address), historyKey: keys.history(address) },
    args: { address, amount: amountArg(amount, what) },
  }));
}
