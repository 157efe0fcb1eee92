import type { Redis } from 'ioredis';
import type { BlockAnnouncementLedger, UnannouncedBlock } from '../../model/blocks/block-announcements.js';
import { createPaymentKeys } from '../payments/payment-keys.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { REDIS_NOW_MS_LUA } from '../scripts/redis-clock-lua.js';
import { scriptLayout } from '../scripts/script-layout.js';
import { execStorePipeline, runStoreCommand, StoreError } from '../store-error.js';
import { createShareKeys, type ShareKeys } from './share-keys.js';

/**
 * mark_block_announced: removes a block from `<p>:blocks:announce-pending`, only while the caller
 * leads (`fencingToken` still in `<p>:leader:token`; "" = the caller takes no part in the election,
 * e.g. the stratum side that published the block). Returns 1, or 0 when fenced.
 */
const MARK_ANNOUNCED = scriptLayout({
  keys: ['leaderKey', 'announceKey'],
  args: ['fencingToken', 'hash'],
});
const MARK_ANNOUNCED_LUA = `${MARK_ANNOUNCED.lua}
if fencingToken ~= '' and redis.call('GET', leaderKey) ~= fencingToken then return 0 end
redis.call('ZREM', announceKey, hash)
return 1
`;

/**
 * list_unannounced: the marks in `<p>:blocks:announce-pending` at least `minAgeMs` old by Redis's
 * clock (the one record_block_candidate and record_block_refusal score them with), oldest first,
 * at most `limit`, with their scores (WITHSCORES' flat list).
 */
const LIST_UNANNOUNCED = scriptLayout({ keys: ['announceKey'], args: ['minAgeMs', 'limit'] });
const LIST_UNANNOUNCED_LUA = `${LIST_UNANNOUNCED.lua}${REDIS_NOW_MS_LUA}
local cutoff = string.format('%.0f', tonumber(redis_now_ms()) - tonumber(minAgeMs))
return redis.call('ZRANGEBYSCORE', announceKey, '-inf', cutoff, 'WITHSCORES', 'LIMIT', 0, limit)
`;

/** The record fields a `block-found` is told from (never the blob). */
const FIELDS = ['height', 'hash', 'finderAddress', 'solo', 'timestampMs', 'submitResult'] as const;

/**
 * The marks of blocks whose `block-found` nobody has published yet (`<p>:blocks:announce-pending`,
 * written with the block record by record_block_candidate and record_block_refusal's promotion):
 * cleared by whoever published, and read by the leader for the ones left behind.
 */
export class RedisBlockAnnouncements implements BlockAnnouncementLedger {
  readonly #redis: Redis;
  readonly #keys: ShareKeys;
  readonly #leaderKey: string;
  readonly #markAnnounced: ScriptRunner;
  readonly #listUnannounced: ScriptRunner;

  constructor(opts: { readonly keyPrefix: string }, modules: { readonly redis: Redis }) {
    this.#redis = modules.redis;
    this.#keys = createShareKeys(opts.keyPrefix);
    this.#leaderKey = createPaymentKeys(opts.keyPrefix).leaderToken;
    this.#markAnnounced = defineScript(modules.redis, 'fuegoPoolMarkBlockAnnounced', MARK_ANNOUNCED_LUA);
    this.#listUnannounced = defineScript(modules.redis, 'fuegoPoolListUnannounced', LIST_UNANNOUNCED_LUA);
  }

  async markAnnounced(hash: string, fencingToken = ''): Promise<boolean> {
    const reply = await runStoreCommand('markBlockAnnounced', () =>
      this.#markAnnounced(
        MARK_ANNOUNCED.call({
          keys: { leaderKey: this.#leaderKey, announceKey: this.#keys.blocksAnnouncePending },
          args: { fencingToken, hash },
        }),
      ),
    );
    return Number(reply) === 1;
  }

  async listUnannounced(minAgeMs: number, limit: number): Promise<UnannouncedBlock[]> {
    const key = this.#keys.blocksAnnouncePending;
    const flat = (await runStoreCommand('listUnannounced', () =>
      this.#listUnannounced(
        LIST_UNANNOUNCED.call({
          keys: { announceKey: key },
          args: { minAgeMs: String(minAgeMs), limit: String(limit) },
        }),
      ),
    )) as string[];
    if (flat.length === 0) return [];
    const marks: Array<{ hash: string; markedAtMs: number }> = [];
    const pipeline = this.#redis.pipeline();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const hash = flat[i]!;
      marks.push({ hash, markedAtMs: Number(flat[i + 1]) });
      pipeline.hmget(this.#keys.block(hash), ...FIELDS);
    }
    const records = (await execStorePipeline('listUnannounced', pipeline)) as Array<Array<string | null>>;
    const blocks: UnannouncedBlock[] = [];
    for (const [index, mark] of marks.entries()) {
      const fields = records[index] ?? [];
      if (fields.every((value) => value === null)) {
        // The record is gone (deleted by hand): nothing to tell.
        await runStoreCommand('listUnannounced', () => this.#redis.zrem(key, mark.hash));
        continue;
      }
      blocks.push(unannouncedBlock(mark, fields));
    }
    return blocks;
  }
}

function unannouncedBlock(
  mark: { readonly hash: string; readonly markedAtMs: number },
  fields: ReadonlyArray<string | null>,
): UnannouncedBlock {
  const [height, hash, finderAddress, solo, timestampMs, submitResult] = fields;
  const heightNumber = Number(height);
  const timestamp = Number(timestampMs);
  if (
    hash !== mark.hash ||
    !finderAddress ||
    (solo !== '0' && solo !== '1') ||
    !Number.isSafeInteger(heightNumber) ||
    !Number.isSafeInteger(timestamp) ||
    !submitResult
  ) {
    throw new StoreError('CORRUPT_RECORD', 'corrupt block record of an unannounced block', {
      hash: mark.hash,
    });
  }
  return {
    height: heightNumber,
    hash,
    finderAddress,
    solo: solo === '1',
    timestampMs: timestamp,
    // Only a promotion marks a refused record: submitblock said no, the chain holds it.
    foundAfterRefusal: submitResult === 'rejected',
    markedAtMs: mark.markedAtMs,
  };
}
