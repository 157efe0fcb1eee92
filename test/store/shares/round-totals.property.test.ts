import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { AcceptedShare } from '../../../src/model/share-ledger.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { ADDRESSES, makeShare, silentLogger, uniquePrefix } from '../store-fixtures.js';

const shareArbitrary: fc.Arbitrary<AcceptedShare> = fc
  .record({
    address: fc.constantFrom(...ADDRESSES),
    worker: fc.constantFrom('a', 'b', ''),
    // Up to 2^53 - 1 each, so per-address sums routinely pass 2^53.
    difficulty: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    solo: fc.boolean(),
    stale: fc.boolean(),
  })
  .map((fields) => makeShare(fields));

describe('round totals (property)', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('equal the bigint sum of recorded pool shares per address, whatever the batching', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(shareArbitrary, { minLength: 0, maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        async (shares, maxBatchSize) => {
          const ledger = new RedisShareLedger(
            { ...DEFAULT_STORE_OPTIONS, keyPrefix: uniquePrefix('prop'), maxBatchSize, maxBatchDelayMs: 0 },
            { redis, logger: silentLogger },
          );
          await Promise.all(shares.map((share) => ledger.recordShare(share)));
          const expected = new Map<string, bigint>();
          let total = 0n;
          for (const share of shares) {
            if (share.solo) continue;
            expected.set(share.address, (expected.get(share.address) ?? 0n) + BigInt(share.difficulty));
            total += BigInt(share.difficulty);
          }
          expect(await ledger.getRoundContributions()).toEqual(expected);
          const summary = await ledger.reader.getCurrentRoundSummary();
          expect(summary?.totalDifficulty ?? 0n).toBe(total);
          await ledger.close();
        },
      ),
      { numRuns: 25 },
    );
  });
});
