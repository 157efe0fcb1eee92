import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { adjustMinerBalance } from '../../../src/app/balance-adjustment.js';
import { settleOrphanedBlock } from '../../../src/app/orphan-block-settlement.js';
import { rewardsExportSchema } from '../../../src/servers/api/miner-exports.js';
import { csvColumn, parseCsv } from '../../helpers/csv.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { creditedBlock, flaggedBlock } from '../../store/payments/orphan-settlement-kit.js';
import { uniquePrefix } from '../../store/store-fixtures.js';
import { buildTestApi, fuegoAddress } from './api-fixtures.js';

const COIN = 10_000_000n;
const MINER = fuegoAddress(21);

/**
 * A miner whose balance the operator changed (a manual adjustment, a block clawed back after a deep
 * reorg) sees why in the rewards export: every change of the balance that is not a payout.
 */
describe("the rewards export shows the operator's changes of a miner's balance", () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('credits, a clawback and a manual adjustment, each with its kind; the note stays private; the totals add up to the balance', async () => {
    const keyPrefix = uniquePrefix('reward-adjustments');
    const kept = await creditedBlock(redis, keyPrefix, { height: 50, credits: [[MINER, 3n * COIN]] });
    const orphaned = await flaggedBlock(redis, keyPrefix, { height: 60, credits: [[MINER, 2n * COIN]] });
    await settleOrphanedBlock(
      keyPrefix,
      { redis },
      { hash: orphaned, mode: 'clawback', note: 'reorg', dryRun: false },
    );
    await adjustMinerBalance(
      keyPrefix,
      { redis },
      {
        address: MINER,
        deltaAtomic: COIN / 2n,
        note: 'goodwill: ticket 4411',
        dryRun: false,
        newAccount: false,
      },
    );
    const { app } = await buildTestApi({ redis, keyPrefix });
    try {
      const exported = rewardsExportSchema.parse(
        JSON.parse((await app.inject({ url: `/api/miners/${MINER}/rewards.json` })).payload),
      );
      expect(
        exported.rows.map(({ kind, blockHash, amountAtomic }) => ({ kind, blockHash, amountAtomic })),
      ).toEqual([
        { kind: 'adjustment', blockHash: '', amountAtomic: String(COIN / 2n) },
        { kind: 'orphan-clawback', blockHash: orphaned, amountAtomic: String(-2n * COIN) },
        { kind: 'block-credit', blockHash: orphaned, amountAtomic: String(2n * COIN) },
        { kind: 'block-credit', blockHash: kept, amountAtomic: String(3n * COIN) },
      ]);
      // 3 + 2 - 2 + 0.5: what the miner's balance is.
      expect(exported.totals.amountAtomic).toBe(String(35n * (COIN / 10n)));
      const csv = await app.inject({ url: `/api/miners/${MINER}/rewards.csv` });
      expect(csv.payload).not.toContain('ticket 4411');
      expect(csvColumn(parseCsv(csv.payload), 'kind')).toEqual([
        'adjustment',
        'orphan-clawback',
        'block-credit',
        'block-credit',
      ]);
    } finally {
      await app.close();
    }
  });
});
