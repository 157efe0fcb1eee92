import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { type BanListSink, parseStoredBan, RedisBanList } from '../../src/cluster/redis-ban-list.js';
import { createLogger } from '../../src/log/logger.js';
import type { Ban, BanEntry } from '../../src/pool/ban-registry.js';
import { keyPrefixes } from '../helpers/key-prefixes.js';
import { useTestRedisClient } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

let redis: Redis;
const lists: RedisBanList[] = [];
const logged: string[] = [];
const logger = createLogger({ level: 'info' }, { write: (line: string) => void logged.push(line) });

useTestRedisClient((client) => {
  redis = client;
});

afterEach(() => {
  for (const list of lists.splice(0)) list.stop();
  logged.length = 0;
});

class RecordingSink implements BanListSink {
  readonly adopted: Ban[] = [];
  readonly lifted: string[] = [];
  adopt(ban: Ban): void {
    this.adopted.push(ban);
  }
  lift(ip: string): void {
    this.lifted.push(ip);
  }
  async catchUp(read: () => Promise<readonly Ban[]>): Promise<readonly Ban[]> {
    const running = await read();
    for (const ban of running) this.adopt(ban);
    return running;
  }
}

function ban(ip: string, untilMs: number, overrides: Partial<Ban> = {}): Ban {
  return {
    ip,
    bannedAtMs: untilMs - 60_000,
    untilMs,
    offences: 2,
    manual: false,
    reason: 'invalid ratio 0.60 over 40 submits',
    ...overrides,
  };
}

async function startList(
  prefix: string,
  origin: string,
): Promise<{ list: RedisBanList; sink: RecordingSink }> {
  const list = new RedisBanList({ keyPrefix: prefix, origin }, { redis, logger });
  const sink = new RecordingSink();
  await list.start(sink);
  lists.push(list);
  return { list, sink };
}

const freshPrefix = keyPrefixes('bans');

describe('one ban list for every stratum host', () => {
  it("a ban and an unban on one host reach the others, and not the host's own sink", async () => {
    const prefix = freshPrefix();
    const a = await startList(prefix, 'host-a');
    const b = await startList(prefix, 'host-b');
    const c = await startList(prefix, 'host-c');
    const entry = ban('203.0.113.9', Date.now() + 60_000);
    const sent: BanEntry = { ...entry, remainingSeconds: 60 };
    await a.list.storeBan(sent);
    await until(
      () => (b.sink.adopted.length === 1 && c.sink.adopted.length === 1 ? true : undefined),
      5_000,
      'the ban',
    );
    // As stored: without the (stale by then) remaining seconds of an entry.
    expect(b.sink.adopted[0]).toEqual(entry);
    expect(await b.list.storeUnban('203.0.113.9')).toBe(true);
    await until(
      () => (a.sink.lifted.length === 1 && c.sink.lifted.length === 1 ? true : undefined),
      5_000,
      'the unban',
    );
    expect(a.sink.adopted).toEqual([]);
    expect(b.sink.lifted).toEqual([]);
    expect(await redis.hlen(a.list.keys.bans)).toBe(0);
  });

  it('a ban announced while a host was resubscribing reaches it once its subscription is back', async () => {
    const prefix = freshPrefix();
    const a = await startList(prefix, 'host-a');
    const b = await startList(prefix, 'host-b');
    // Every subscriber connection drops (a network blip, a Redis proxy restart): the ban below is
    // published while they are away, and pub/sub does not keep it for them.
    await redis.client('KILL', 'TYPE', 'pubsub');
    const entry = ban('203.0.113.7', Date.now() + 60_000);
    await a.list.storeBan(entry);
    await until(() => (b.sink.adopted.length === 1 ? true : undefined), 5_000, 'the missed ban');
    expect(b.sink.adopted[0]).toEqual(entry);
  });

  it('a host that starts takes over the bans still running; those that ran out or are malformed are dropped', async () => {
    const prefix = freshPrefix();
    const a = await startList(prefix, 'host-a');
    const now = Date.now();
    await a.list.storeBan(ban('203.0.113.1', now + 60_000));
    await a.list.storeBan(ban('203.0.113.2', now + 300, { manual: true, offences: 0, reason: 'manual' }));
    await redis.hset(a.list.keys.bans, '203.0.113.3', 'not json', '203.0.113.4', JSON.stringify({ ip: 'x' }));
    await new Promise((resolve) => setTimeout(resolve, 400));
    // Ran out meanwhile: no longer a ban to lift.
    expect(await a.list.storeUnban('203.0.113.2')).toBe(false);
    await a.list.storeBan(ban('203.0.113.2', now + 300, { manual: true, offences: 0, reason: 'manual' }));

    const restarted = await startList(prefix, 'host-a-restarted');
    expect(restarted.sink.adopted.map((e) => e.ip)).toEqual(['203.0.113.1']);
    expect(await redis.hkeys(a.list.keys.bans)).toEqual(['203.0.113.1']);
  });

  it('removes bans that ran out while it runs, and keeps an IP banned anew', async () => {
    const prefix = freshPrefix();
    const list = new RedisBanList(
      { keyPrefix: prefix, origin: 'host-a', pruneIntervalMs: 100 },
      { redis, logger },
    );
    await list.start(new RecordingSink());
    lists.push(list);
    const now = Date.now();
    await list.storeBan(ban('203.0.113.5', now + 150));
    await list.storeBan(ban('203.0.113.6', now + 60_000));
    await until(
      async () => ((await redis.hkeys(list.keys.bans)).join() === '203.0.113.6' ? true : undefined),
      5_000,
      'the ban that ran out removed',
    );
    await list.storeBan(ban('203.0.113.5', Date.now() + 60_000));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await redis.hkeys(list.keys.bans)).sort()).toEqual(['203.0.113.5', '203.0.113.6']);
  });

  it('ignores malformed messages on the channel, with a warning', async () => {
    const prefix = freshPrefix();
    const a = await startList(prefix, 'host-a');
    for (const text of [
      'garbage',
      '{"origin":"x","op":"ban","entry":{"ip":1}}',
      '{"origin":"x","op":"drop"}',
    ]) {
      await redis.publish(a.list.keys.banChannel, text);
    }
    await until(
      () =>
        logged.filter((line) => line.includes('ignored a malformed ban message')).length === 3
          ? true
          : undefined,
      5_000,
      'three warnings',
    );
    expect(a.sink.adopted).toEqual([]);
    expect(a.sink.lifted).toEqual([]);
  });

  it('reads a stored ban only when every field is sound', () => {
    const good = { ip: '::1', bannedAtMs: 1, untilMs: 2, offences: 0, manual: true, reason: 'manual' };
    expect(parseStoredBan(good)).toEqual(good);
    expect(parseStoredBan({ ...good, untilMs: '2' })).toBeNull();
    expect(parseStoredBan({ ...good, offences: 1.5 })).toBeNull();
    expect(parseStoredBan({ ...good, ip: '' })).toBeNull();
    expect(parseStoredBan(null)).toBeNull();
  });
});
