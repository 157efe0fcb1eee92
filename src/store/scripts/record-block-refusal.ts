import type { BlockRefusalReason } from '../../pool/block-refusal.js';
import type { StoreKeys } from '../keys.js';
import type { ScriptCall } from './record-shares.js';

/**
 * record_block_refusal: why submitblock refused a recorded candidate, as `refusalReason` of its
 * block record. Only a record whose submitResult is 'rejected' takes it: the same hash recorded
 * earlier as accepted (a duplicate submit keeps the first record) is left alone, and a missing
 * record is not created.
 *
 * KEYS: 1 `<p>:block:<hash>`.  ARGV: 1 the reason.
 * Returns 1 when written, 0 when left alone.
 */
export const RECORD_BLOCK_REFUSAL_LUA = `
if redis.call('HGET', KEYS[1], 'submitResult') ~= 'rejected' then
  return 0
end
redis.call('HSET', KEYS[1], 'refusalReason', ARGV[1])
return 1
`;

export function buildRecordBlockRefusalCall(
  keys: StoreKeys,
  blockHash: string,
  reason: BlockRefusalReason,
): ScriptCall {
  return { keys: [keys.block(blockHash)], args: [reason] };
}
