import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { ADDRESSES, uniquePrefix } from '../store-fixtures.js';
import { creditedBlock, paidOut } from './orphan-settlement-kit.js';

const [A, B, C] = ADDRESSES;
/** A fourth miner, below zero. */
const D = `${ADDRESSES[0].slice(0, -4)}dddd`;

describe('RedisBalances reads on a real Redis', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  describe('listPayable (what a payout pass pays)', () => {
    /** A 3000 (half of it paid out since: 1500 left), B 1000, C 2000; D owes the pool 40. */
    async function seeded(label: string) {
      const keyPrefix = uniquePrefix(label);
      await creditedBlock(redis, keyPrefix, {
        height: 10,
        credits: [
          [A, 3000n],
          [B, 1000n],
          [C, 2000n],
        ],
      });
      await paidOut(redis, keyPrefix, A, 1500n);
      const balances = new RedisBalances({ keyPrefix }, { redis });
      await balances.adjust({ address: D, deltaAtomic: 10n, note: 'seed' });
      await balances.adjust({ address: D, deltaAtomic: -10n, note: 'seed' });
      return { keyPrefix, balances };
    }
    it('gives the miners at or above the minimum, largest first, with their whole balance as stored', async () => {
      const { balances } = await seeded('payable-order');
      const page = await balances.listPayable(1500n, 10);
      expect(page.map((p) => p.address)).toEqual([C, A]);
      expect(page).toEqual([
        { address: C, balance: await balances.getBalance(C) },
        { address: A, balance: await balances.getBalance(A) },
      ]);
      expect(page[1]?.balance).toEqual({
        credited: 3000n,
        balance: 1500n,
        inPayout: 0n,
        paid: 1500n,
        networkFees: 0n,
      });
      expect((await balances.listPayable(1n, 10)).map((p) => p.address)).toEqual([C, A, B]);
      expect((await balances.listPayable(1n, 2)).map((p) => p.address)).toEqual([C, A]);
      expect(await balances.listPayable(2001n, 10)).toEqual([]);
    });

    it('selects by the index but keeps only the balances the hashes hold at or above the minimum', async () => {
      const { balances } = await seeded('payable-exact');
      // The index still says 2000 for C; its balance hash says 1499 (what decides).
      await redis.hset(balances.keys.balance(C), 'balance', '1499', 'credited', '1499');
      expect((await balances.listPayable(1500n, 10)).map((p) => p.address)).toEqual([A]);
    });

    it('refuses a corrupt balance (CORRUPT_BALANCE) rather than read it as zero', async () => {
      const { balances } = await seeded('payable-corrupt');
      await redis.hset(balances.keys.balance(B), 'paid', 'lots');
      await expect(balances.listPayable(1n, 10)).rejects.toMatchObject({ code: 'CORRUPT_BALANCE' });
    });

    it('gives nothing for a pool nobody is owed by', async () => {
      const balances = new RedisBalances({ keyPrefix: uniquePrefix('payable-empty') }, { redis });
      expect(await balances.listPayable(1n, 10)).toEqual([]);
    });
  });
});
