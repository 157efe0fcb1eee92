import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createClusterKeys } from '../../src/cluster/cluster-keys.js';
import { NodeIdClaim, type NodeIdClaimOptions } from '../../src/cluster/node-id-claim.js';
import { createLogger } from '../../src/log/logger.js';
import { keyPrefixes } from '../helpers/key-prefixes.js';
import { useTestRedisClient } from '../helpers/redis-server.js';

let redis: Redis;
const held: NodeIdClaim[] = [];
const logged: Array<{ level: number; msg: string }> = [];
const logger = createLogger(
  { level: 'info' },
  { write: (line: string) => void logged.push(JSON.parse(line) as { level: number; msg: string }) },
);

useTestRedisClient((client) => {
  redis = client;
});

afterEach(async () => {
  await Promise.all(held.splice(0).map((claim) => claim.release()));
  logged.length = 0;
});

function options(keyPrefix: string, overrides: Partial<NodeIdClaimOptions> = {}): NodeIdClaimOptions {
  return { keyPrefix, nodeId: 7, ttlMs: 600, renewIntervalMs: 150, holderName: 'host-a:100', ...overrides };
}

async function acquire(opts: NodeIdClaimOptions): Promise<NodeIdClaim> {
  const claim = await NodeIdClaim.acquire(opts, { redis, logger });
  held.push(claim);
  return claim;
}

const freshPrefix = keyPrefixes('nid');

describe('node id claim', () => {
  it('refuses a second live process with the same node id, naming the holder; another id is free', async () => {
    const prefix = freshPrefix();
    await acquire(options(prefix));
    const startedMs = Date.now();
    await expect(
      NodeIdClaim.acquire(options(prefix, { holderName: 'host-b:200' }), { redis, logger }),
    ).rejects.toMatchObject({
      code: 'NODE_ID_IN_USE',
      message: expect.stringContaining('pool.nodeId 7 is in use by host-a:100'),
    });
    // It waited a whole lease: a live holder kept renewing through it.
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(700);
    await acquire(options(prefix, { nodeId: 8, holderName: 'host-b:200' }));
  });

  it('is free at once after a release', async () => {
    const prefix = freshPrefix();
    const first = await acquire(options(prefix, { waitMs: 0 }));
    await first.release();
    await acquire(options(prefix, { holderName: 'host-b:200', waitMs: 0 }));
    const value = await redis.get(createClusterKeys(prefix).nodeIdClaim(7));
    expect(value?.startsWith('host-b:200 ')).toBe(true);
  });

  it('waits for the claim of a process that died to run out, then takes it', async () => {
    const prefix = freshPrefix();
    // What a SIGKILLed holder leaves: a claim nobody renews.
    await redis.set(createClusterKeys(prefix).nodeIdClaim(7), 'host-a:100 dead', 'PX', 400);
    const startedMs = Date.now();
    await acquire(options(prefix, { holderName: 'host-a:101' }));
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(300);
  });

  it('keeps its claim alive, takes it again after it ran out, and says so if another process took it', async () => {
    const prefix = freshPrefix();
    const key = createClusterKeys(prefix).nodeIdClaim(7);
    await acquire(options(prefix));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await redis.pttl(key)).toBeGreaterThan(300);

    await redis.del(key);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await redis.get(key))?.startsWith('host-a:100 ')).toBe(true);
    expect(logged.some((line) => line.msg.includes('taken again'))).toBe(true);

    await redis.set(key, 'host-c:300 other', 'PX', 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await redis.get(key)).toBe('host-c:300 other');
    expect(
      logged.filter((line) => line.level === 50 && line.msg.includes('extra nonces may repeat')),
    ).toHaveLength(1);
  });
});
