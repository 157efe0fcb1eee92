import type { ClaimReorgAuditRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: ['lastRunKey'],
  args: ['now', 'intervalMs'],
});

/**
 * claim_reorg_audit: the leader's reorg audit of credited blocks below the watch window is due
 * when `<p>:unlocker:reorg-audit:last-run` holds no time (none yet, or not a number), one at least
 * `intervalMs` ago, or one more than `intervalMs` ahead (a clock set back: the audit is not put off
 * for that long). Then the time becomes `now` and the caller audits. Fenced like the unlocker's
 * other writes, so a stale leader neither audits nor moves the time, and the time holds across
 * leaders (a restart, a failover). Returns {1} (claimed), {2} (not due).
 */
export const CLAIM_REORG_AUDIT_LUA = moneyScriptLua(
  LAYOUT,
  `
local last = tonumber(redis.call('GET', lastRunKey) or '')
local at, interval = tonumber(now), tonumber(intervalMs)
if last and at - last < interval and last - at <= interval then return {2} end
redis.call('SET', lastRunKey, now)
return {1}
`,
);

export function buildClaimReorgAuditCall(keys: PaymentKeys, request: ClaimReorgAuditRequest): ScriptCall {
  const { nowMs, intervalMs, fencingToken = '' } = request;
  return LAYOUT.call({
    keys: { leaderKey: keys.leaderToken, lastRunKey: keys.reorgAuditLastRun },
    args: { fencingToken, now: String(nowMs), intervalMs: String(intervalMs) },
  });
}
