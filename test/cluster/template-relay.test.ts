import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LeaderElection } from '../../src/cluster/leader-election.js';
import { RedisTemplatePublisher } from '../../src/cluster/redis-template-publisher.js';
import { RedisTemplateSource } from '../../src/cluster/redis-template-source.js';
import { templateMessageOf } from '../../src/cluster/template-message.js';
import { parseBlockTemplate } from '../../src/fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { createLogger } from '../../src/log/logger.js';
import type { ActiveTemplate, TemplateChange } from '../../src/pool/template-source.js';
import type { BlockTemplateResponse } from '../../src/rpc/daemon-schemas.js';
import { type PrivateRedis, startPrivateRedis } from '../../src/tools/redis-server.js';
import { readJsonFixture } from '../helpers/fixtures.js';
import { useTestRedisClient } from '../helpers/redis-server.js';

const logger = createLogger({ level: 'silent' });
const RESERVE_SIZE = 8;

function realTemplate(height: number): BlockTemplateResponse {
  const file = readJsonFixture<{ response_raw: string }>(
    `fuegod-rpc/templates/gbt-h${String(height).padStart(4, '0')}-v9.json`,
  );
  return (JSON.parse(file.response_raw) as { result: BlockTemplateResponse }).result;
}

/** What the leader's DaemonTemplateSource makes of a daemon answer (blob optionally altered). */
function leaderTemplate(id: number, response: BlockTemplateResponse, blob?: Uint8Array): ActiveTemplate {
  const template = parseBlockTemplate({
    blob: blob ?? hexToBytes(response.blocktemplate_blob),
    reservedOffset: response.reserved_offset,
    reserveSize: RESERVE_SIZE,
    height: response.height,
    difficulty: BigInt(response.difficulty),
    parentStyle: 'pool',
  });
  return {
    id,
    template,
    height: response.height,
    networkDifficulty: BigInt(response.difficulty),
    prevHash: bytesToHex(template.prevId),
    receivedAtMs: Date.now(),
  };
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function record(source: RedisTemplateSource): Array<{ active: ActiveTemplate; change: TemplateChange }> {
  const seen: Array<{ active: ActiveTemplate; change: TemplateChange }> = [];
  source.onTemplate((active, change) => seen.push({ active, change }));
  return seen;
}

describe('template relay over Redis', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('a stratum node rebuilds the leader’s template: same hashing and submit blobs for the same extra nonce', async () => {
    const publisher = new RedisTemplatePublisher(
      { keyPrefix: 'relay1' },
      { redis, fencingToken: () => '', logger },
    );
    const source = new RedisTemplateSource({ keyPrefix: 'relay1' }, { redis, logger });
    const seen = record(source);
    const firstPromise = source.start();
    const leader = leaderTemplate(7, realTemplate(10));
    expect(await publisher.publish(leader, 'new-block')).toBe('published');
    const first = await firstPromise;
    try {
      expect(first.id).toBe(1);
      expect(first.height).toBe(leader.height);
      expect(first.prevHash).toBe(leader.prevHash);
      expect(first.networkDifficulty).toBe(leader.networkDifficulty);
      expect(first.template.blob).toEqual(leader.template.blob);
      for (const extraNonce of [Uint8Array.of(0, 1, 0, 0, 0, 5), Uint8Array.of(0, 2, 9, 8, 7, 6, 5)]) {
        expect(first.template.buildJob(extraNonce).hashingBlob).toEqual(
          leader.template.buildJob(extraNonce).hashingBlob,
        );
        expect(first.template.buildSubmitBlob(extraNonce, 0x01020304)).toEqual(
          leader.template.buildSubmitBlob(extraNonce, 0x01020304),
        );
      }

      // Same tip, other content: a refresh. Next height: a new block. Ids are this node's own.
      const response = realTemplate(10);
      const altered = hexToBytes(response.blocktemplate_blob);
      altered[response.reserved_offset] = 0xee; // other bytes, same previous block
      await publisher.publish(leaderTemplate(8, response, altered), 'refresh');
      await until(() => seen.length === 2);
      await publisher.publish(leaderTemplate(9, realTemplate(11)), 'new-block');
      await until(() => seen.length === 3);
      expect(seen.map((s) => [s.active.id, s.change, s.active.height])).toEqual([
        [1, 'new-block', 10],
        [2, 'refresh', 10],
        [3, 'new-block', 11],
      ]);
      // A repeat of the served template (e.g. a new leader's first) changes nothing.
      await publisher.publish(leaderTemplate(1, realTemplate(11)), 'new-block');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toHaveLength(3);
    } finally {
      publisher.close();
      await source.stop();
    }
  });

  it("a repeat of the served template (the leader confirming it) renews the node's template age", async () => {
    let now = 5_000_000;
    const publisher = new RedisTemplatePublisher(
      { keyPrefix: 'relay5' },
      { redis, fencingToken: () => '', logger },
    );
    const source = new RedisTemplateSource({ keyPrefix: 'relay5' }, { redis, logger, clock: () => now });
    const seen = record(source);
    try {
      const template = leaderTemplate(1, realTemplate(20));
      await publisher.publish(template, 'new-block');
      await source.start();
      now += 150_000;
      expect(source.status().templateAgeMs).toBe(150_000);
      await publisher.publish(template, 'refresh');
      await until(() => source.status().templateAgeMs === 0);
      // Still the same jobs: nothing new for the miners.
      expect(seen).toHaveLength(1);
    } finally {
      publisher.close();
      await source.stop();
    }
  });

  it('a node that starts late gets the latest template at once', async () => {
    const publisher = new RedisTemplatePublisher(
      { keyPrefix: 'relay2' },
      { redis, fencingToken: () => '', logger },
    );
    await publisher.publish(leaderTemplate(1, realTemplate(12)), 'new-block');
    await publisher.publish(leaderTemplate(2, realTemplate(13)), 'new-block');
    const late = new RedisTemplateSource({ keyPrefix: 'relay2' }, { redis, logger });
    try {
      const first = await late.start();
      expect(first.height).toBe(13);
    } finally {
      await late.stop();
    }
  });

  it('only the leader publishes: a stale token is fenced and the latest template stays', async () => {
    const election = new LeaderElection(
      { keyPrefix: 'relay3', lockTtlMs: 5_000, renewIntervalMs: 1_000, nodeName: 'l' },
      { redis, logger },
    );
    await election.step();
    const token = election.token()!;
    const current = new RedisTemplatePublisher(
      { keyPrefix: 'relay3' },
      { redis, fencingToken: () => election.token(), logger },
    );
    const stale = new RedisTemplatePublisher(
      { keyPrefix: 'relay3' },
      { redis, fencingToken: () => '1.dead', logger },
    );
    const standby = new RedisTemplatePublisher(
      { keyPrefix: 'relay3' },
      { redis, fencingToken: () => null, logger },
    );
    expect(await current.publish(leaderTemplate(1, realTemplate(14)), 'new-block')).toBe('published');
    expect(await stale.publish(leaderTemplate(1, realTemplate(15)), 'new-block')).toBe('fenced');
    expect(await standby.publish(leaderTemplate(1, realTemplate(15)), 'new-block')).toBe('not-leader');
    const latest = JSON.parse((await redis.get('{relay3}:template:latest'))!) as {
      height: number;
      token: string;
    };
    expect(latest).toMatchObject({ height: 14, token });
    await election.stop();
  });

  it('a template the node missed is taken from the key even when Redis lost the leader epoch (failover, older snapshot)', async () => {
    const prefix = 'relay4';
    const electionOf = (nodeName: string) =>
      new LeaderElection(
        { keyPrefix: prefix, lockTtlMs: 5_000, renewIntervalMs: 1_000, nodeName },
        { redis, logger },
      );
    // Many elections won before: the lease of epoch 57.
    await redis.set(`{${prefix}}:leader:epoch`, '56');
    const before = electionOf('before');
    await before.step();
    const publisher = new RedisTemplatePublisher(
      { keyPrefix: prefix },
      { redis, fencingToken: () => before.token(), logger },
    );
    expect(await publisher.publish(leaderTemplate(40, realTemplate(18)), 'new-block')).toBe('published');
    const source = new RedisTemplateSource(
      { keyPrefix: prefix, resyncIntervalMs: 60_000 },
      { redis, logger },
    );
    try {
      expect((await source.start()).height).toBe(18);
      // Redis comes back without its last writes (a replica promoted behind its master, a restart
      // from an older snapshot): the epoch counter is back at 2 and the lease is gone.
      await redis.set(`{${prefix}}:leader:epoch`, '2');
      await redis.del(`{${prefix}}:leader:token`, `{${prefix}}:leader:holder`);
      const after = electionOf('after');
      await after.step();
      expect(after.token()).toMatch(/^3\./);
      // Its first template on the next tip: published while this node's subscriber was still
      // reconnecting (pub/sub does not keep it), so only the key has it.
      const next = leaderTemplate(1, realTemplate(19));
      await redis.set(
        `{${prefix}}:template:latest`,
        JSON.stringify(templateMessageOf(next, 'new-block', after.token()!)),
      );
      await source.resync();
      expect(source.current()?.height).toBe(19);
      await before.stop();
      await after.stop();
    } finally {
      publisher.close();
      await source.stop();
    }
  });
});

describe('template relay across a Redis restart', () => {
  let dir: string;
  let server: PrivateRedis;

  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the stratum node keeps serving its template while Redis is down and resubscribes by itself', async () => {
    dir = await mkdtemp(join(tmpdir(), 'fuego-relay-redis-'));
    server = await startPrivateRedis({ dir });
    const port = server.port;
    const leaderRedis = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    const nodeRedis = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    leaderRedis.on('error', () => undefined);
    nodeRedis.on('error', () => undefined);
    const publisher = new RedisTemplatePublisher(
      { keyPrefix: 'restart' },
      { redis: leaderRedis, fencingToken: () => '', logger },
    );
    // A long resync interval: what arrives after the restart must come through the subscription.
    const source = new RedisTemplateSource(
      { keyPrefix: 'restart', resyncIntervalMs: 60_000 },
      { redis: nodeRedis, logger },
    );
    const seen = record(source);
    try {
      await publisher.publish(leaderTemplate(1, realTemplate(16)), 'new-block');
      await source.start();
      expect(source.current()?.height).toBe(16);

      await server.stop();
      await until(() => !source.status().subscribed);
      expect(source.current()?.height).toBe(16);

      server = await startPrivateRedis({ dir, port });
      await until(() => source.status().subscribed, 10_000);
      await until(() => leaderRedis.status === 'ready', 10_000);
      // Give ioredis a moment to re-send SUBSCRIBE after its ready event.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await publisher.publish(leaderTemplate(2, realTemplate(17)), 'new-block')).toBe('published');
      await until(() => source.current()?.height === 17);
      expect(seen.map((s) => s.active.height)).toEqual([16, 17]);
    } finally {
      publisher.close();
      await source.stop();
      leaderRedis.disconnect();
      nodeRedis.disconnect();
    }
  });
});
