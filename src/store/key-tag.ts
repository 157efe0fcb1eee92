import { StoreError } from './store-error.js';

/** Same rule as the config schema's `redis.keyPrefix`: no braces, so the hash tag stays intact. */
const KEY_PREFIX_PATTERN = /^[a-z0-9_-]{1,32}$/;

/**
 * `{<prefix>}`, the Redis Cluster hash tag every key of a pool starts with (shares, payments and
 * hashrate alike), so all keys of a pool live in one slot and a Lua script may touch any of them,
 * on Cluster too. Throws INVALID_KEY_PREFIX for a prefix the config schema would refuse.
 */
export function keyTag(prefix: string): string {
  if (!KEY_PREFIX_PATTERN.test(prefix)) {
    throw new StoreError('INVALID_KEY_PREFIX', 'key prefix must match /^[a-z0-9_-]{1,32}$/', { prefix });
  }
  return `{${prefix}}`;
}
