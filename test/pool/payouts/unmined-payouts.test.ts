import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { readMoneyReport } from '../../../src/app/money-report.js';
import { formatMoneyReport } from '../../../src/cli/commands/report.js';
import { fuegodSightings } from '../../../src/pool/payouts/unmined-payouts.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { walletHolding } from '../../helpers/wallet-holding.js';
import { fundMiners, minerAddress } from '../../leader/payouts/payout-test-kit.js';
import { paidOut } from '../../store/payments/orphan-settlement-kit.js';
import { uniquePrefix } from '../../store/store-fixtures.js';

const COIN = 10_000_000n;
const HOUR_MS = 3_600_000;

/**
 * A payout not mined 6 hours after its send: `fuego-pool report` asks fuegod where its transaction
 * is, so the operator knows whether to wait (still in fuegod's pool), restart walletd (fuegod has
 * it nowhere) or look at walletd (mined, walletd has not seen it); without fuegod it says so.
 */
describe('the report asks fuegod about a payout not mined for hours', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  /** The money report of a pool that sent one payout (3 XFG to one miner), not confirmed yet. */
  async function reportWithOneSentPayout(label: string) {
    const keyPrefix = uniquePrefix(label);
    const miner = minerAddress(`${label}-miner`);
    await fundMiners(redis, keyPrefix, [[miner, 3n * COIN]]);
    await paidOut(redis, keyPrefix, miner, 3n * COIN);
    const report = await readMoneyReport(keyPrefix, {
      redis,
      wallet: walletHolding(10n * COIN),
      durability: { replicas: 0, timeoutMs: 100 },
    });
    // On a durable Redis (the test's has no AOF), so that healthy says what the rest says.
    return { ...report, durability: { kind: 'aof-always' as const } };
  }

  it('lists the sent payouts not confirmed yet, and needs the operator for one not mined for 6 hours', async () => {
    const report = await reportWithOneSentPayout('report-unconfirmed-sent');
    expect(report.unconfirmedSent).toHaveLength(1);
    const [batch] = report.unconfirmedSent;
    const sentMs = batch!.resolvedAtMs!;
    const line = `${batch!.txHash}  batch ${batch!.id}  1 miners  3.0000000 XFG  sent ${new Date(sentMs).toISOString()}`;
    // An hour after the send: listed, waiting for its confirmations as usual.
    const soon = formatMoneyReport(report, sentMs + 3_600_000);
    expect(soon.lines).toContain(line);
    expect(soon.healthy).toBe(true);
    // Seven hours: not being mined; the report says what to check and exits 1.
    const late = formatMoneyReport(report, sentMs + 7 * 3_600_000);
    expect(late.lines).toContain(
      `${line}  NOT MINED after 7 h: look it up in fuegod's pool; if fuegod no longer has it, restart walletd (it then cancels it and the miners are credited back)`,
    );
    expect(late.healthy).toBe(false);
  });

  it('says where fuegod has it, and asks nothing about payouts that are not late', async () => {
    const report = await reportWithOneSentPayout('unmined-sightings');
    const [batch] = report.unconfirmedSent;
    const nowMs = batch!.resolvedAtMs! + 7 * HOUR_MS;
    const asked: string[] = [];
    const daemonWith = (pool: string[], block: { height: number } | null) => ({
      getPoolTransactionHashes: async () => pool,
      findTransactionBlock: async (hash: string) => {
        asked.push(hash);
        return block === null ? null : { ...block, hash: 'ab'.repeat(32), feeAtomic: null };
      },
    });
    const adviceWith = async (daemon: ReturnType<typeof daemonWith>) => {
      const sightings = await fuegodSightings(report.unconfirmedSent, daemon, nowMs);
      const { lines, healthy } = formatMoneyReport({ ...report, fuegodSightings: sightings }, nowMs);
      expect(healthy).toBe(false);
      return lines.find((line) => line.includes('NOT MINED'))!.split('NOT MINED after 7 h: ')[1];
    };
    expect(await adviceWith(daemonWith([], null))).toBe(
      'fuegod has it nowhere (not in a block, not in its pool): restart walletd (it then cancels it and the miners are credited back)',
    );
    expect(await adviceWith(daemonWith([batch!.txHash!], null))).toBe(
      "fuegod still has it in its pool: it may be mined yet (check fuegod's peers if it stays)",
    );
    expect(await adviceWith(daemonWith([], { height: 321 }))).toBe(
      'fuegod has it in block 321: walletd has not seen it yet (restart walletd if that lasts)',
    );
    const down = {
      getPoolTransactionHashes: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:18180');
      },
      findTransactionBlock: async () => null,
    };
    expect(await adviceWith(down)).toMatch(
      /^fuegod not reachable \(connect ECONNREFUSED 127\.0\.0\.1:18180\): look it up/,
    );
    expect(asked).toEqual([batch!.txHash, batch!.txHash, batch!.txHash]);
    // An hour after the send nothing is late: fuegod is not asked.
    expect(
      (await fuegodSightings(report.unconfirmedSent, daemonWith([], null), nowMs - 6 * HOUR_MS)).size,
    ).toBe(0);
  });
});
