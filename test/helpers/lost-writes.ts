import type { Redis } from 'ioredis';

/** Every key of one pool, dumped (the state "before the batch" that a lost write takes Redis back to). */
export async function snapshotPool(redis: Redis, keyPrefix: string): Promise<Map<string, Buffer>> {
  const keys = await redis.keys(`{${keyPrefix}}*`);
  const dumps = new Map<string, Buffer>();
  for (const key of keys) {
    const dump = await redis.dumpBuffer(key);
    if (dump !== null) dumps.set(key, dump);
  }
  return dumps;
}

/** Redis loses every write since the snapshot (a failover to a late replica, a restart without fsync). */
export async function restorePool(
  redis: Redis,
  keyPrefix: string,
  snapshot: Map<string, Buffer>,
): Promise<void> {
  const keys = await redis.keys(`{${keyPrefix}}*`);
  if (keys.length > 0) await redis.del(...keys);
  for (const [key, dump] of snapshot) await redis.restore(key, 0, dump);
}
