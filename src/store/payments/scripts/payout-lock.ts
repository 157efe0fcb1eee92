import type { ScriptCall } from '../../scripts/define-script.js';
import { scriptLayout } from '../../scripts/script-layout.js';

const RENEW_LAYOUT = scriptLayout({ keys: ['lockKey'], args: ['lockToken', 'ttlMs'] });
const RELEASE_LAYOUT = scriptLayout({ keys: ['lockKey'], args: ['lockToken'] });

/** renew_payout_lock: extends the payout lock's expiry while this token holds it; 1 if renewed. */
export const RENEW_LOCK_LUA = `${RENEW_LAYOUT.lua}
if redis.call('GET', lockKey) == lockToken then return redis.call('PEXPIRE', lockKey, ttlMs) end
return 0
`;

/** release_payout_lock: deletes the payout lock if this token holds it; 1 if released. */
export const RELEASE_LOCK_LUA = `${RELEASE_LAYOUT.lua}
if redis.call('GET', lockKey) == lockToken then return redis.call('DEL', lockKey) end
return 0
`;

export function buildRenewLockCall(lockKey: string, lockToken: string, ttlMs: number): ScriptCall {
  return RENEW_LAYOUT.call({ keys: { lockKey }, args: { lockToken, ttlMs: String(ttlMs) } });
}

export function buildReleaseLockCall(lockKey: string, lockToken: string): ScriptCall {
  return RELEASE_LAYOUT.call({ keys: { lockKey }, args: { lockToken } });
}
