import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { PendingCredits } from '../../../src/store/shares/pending-credits.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { runCliForTest, writeRedisConfig } from '../../helpers/cli.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { type TestRedis, useTestRedisClient } from '../../helpers/redis-server.js';
import { minerAddress } from '../../leader/payouts/payout-test-kit.js';
import { creditedBlock, paidOut } from '../../store/payments/orphan-settlement-kit.js';
import { blockHash, makeCandidate, silentLogger, uniquePrefix } from '../../store/store-fixtures.js';

const COIN = 10_000_000n;
const A = minerAddress('cli-balance-a');
const STRANGER = minerAddress('cli-balance-stranger');

/** `fuego-pool balance` and `balance adjust` as the operator runs them, against a real Redis. */
describe('fuego-pool balance', () => {
  let redis: Redis;
  let server: TestRedis;
  useTestRedisClient((client, started) => {
    redis = client;
    server = started;
  });

  const writeConfig = (keyPrefix: string): string => writeRedisConfig(server.url, keyPrefix);

  /** `fuego-pool balance adjust ADDRESS ...options --config FILE`. */
  const adjust = (config: string, address: string, ...options: string[]) =>
    runCliForTest(['balance', 'adjust', address, ...options, '--config', config]);

  /** A miner credited 4 XFG by a block, 1.5 of it paid out. */
  async function minerWithHistory(label: string) {
    const keyPrefix = uniquePrefix(label);
    const hash = await creditedBlock(redis, keyPrefix, { height: 70, credits: [[A, 4n * COIN]] });
    await paidOut(redis, keyPrefix, A, 15_000_000n);
    return {
      keyPrefix,
      hash,
      config: writeConfig(keyPrefix),
      balances: new RedisBalances({ keyPrefix }, { redis }),
    };
  }

  it("shows a miner's account: its amounts, its balance changes and its payments, newest first", async () => {
    const { hash, config, keyPrefix } = await minerWithHistory('cli-balance-show');
    // A found block waiting for confirmation, 0.75 XFG of it estimated for the miner.
    const waiting = blockHash(0xf00d);
    await new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    ).writeBlockCandidate(makeCandidate({ hash: waiting, height: 80 }));
    await new PendingCredits({ keyPrefix }, { redis }).write(waiting, new Map([[A, 7_500_000n]]), 60_000);
    const run = await runCliForTest(['balance', A, '--config', config]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.slice(0, 7)).toEqual([
      `account ${A}`,
      '  pending       0.7500000 XFG  (estimated: its blocks not confirmed yet)',
      '  payable       2.5000000 XFG',
      '  in payout     0.0000000 XFG',
      '  paid          1.5000000 XFG',
      '  network fees  0.0000000 XFG',
      '  credited      4.0000000 XFG',
    ]);
    expect(lines[7]).toBe('balance changes, newest first (3):');
    expect(lines[8]).toMatch(/^ {2}time +reason +change +balance after +ref$/);
    expect(lines[9]).toMatch(/ payout-sent /);
    expect(lines[10]).toMatch(/ payout-debit +-1\.5000000 +2\.5000000 /);
    expect(lines[11]).toMatch(new RegExp(` block-credit +\\+4\\.0000000 +4\\.0000000  ${hash}$`));
    expect(lines[12]).toBe('payments, newest first (1):');
    expect(lines[13]).toMatch(/^ {2}time +amount +network fee +transaction$/);
    expect(lines[14]).toMatch(/ \+1\.5000000 +0\.0000000 {2}d+/);

    const json = await runCliForTest(['balance', A, '--config', config, '--json', '--history', '1']);
    expect(json.code).toBe(0);
    const account = JSON.parse(json.stdout) as {
      balance: Record<string, string>;
      pendingAtomic: string;
      history: unknown[];
    };
    expect(account.pendingAtomic).toBe('7500000');
    expect(account.balance).toEqual({
      credited: '40000000',
      balance: '25000000',
      inPayout: '0',
      paid: '15000000',
      networkFees: '0',
    });
    expect(account.history).toHaveLength(1);
  });

  it('an address without an account, or not an address at all, is said so', async () => {
    const { config } = await minerWithHistory('cli-balance-unknown');
    const stranger = await runCliForTest(['balance', STRANGER, '--config', config]);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain(`the pool has no account for ${STRANGER} [ACCOUNT_NOT_FOUND]`);
    const typo = await runCliForTest(['balance', `${A.slice(0, -1)}x`, '--config', config]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('ADDRESS is not a valid Fuego address');
  });

  it('adjust --credit: a dry run changes nothing; the credit is in the history with its note and the ledger still adds up', async () => {
    const { config, balances } = await minerWithHistory('cli-balance-credit');
    const dry = await adjust(config, A, '--credit', '0.25', '--note', 'downtime 2026-11-20', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(
      `would credit 0.2500000 XFG to ${A}: balance 2.5000000 -> 2.7500000 XFG (dry run: nothing changed)\n`,
    );
    expect((await balances.getBalance(A)).balance).toBe(25_000_000n);

    const done = await adjust(config, A, '--credit=0.25', '--note', 'downtime 2026-11-20');
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(`credited 0.2500000 XFG to ${A}: balance 2.5000000 -> 2.7500000 XFG\n`);
    expect((await balances.getBalance(A)).balance).toBe(27_500_000n);
    const [entry] = await balances.getHistory(A, 1);
    expect(entry).toMatchObject({
      reason: 'adjustment',
      amountAtomic: 2_500_000n,
      ref: 'downtime 2026-11-20',
    });

    const report = await runCliForTest(['report', '--config', config]);
    expect(report.stdout).toContain('adjustments 0.2500000');
    expect(report.stdout).not.toContain('MISMATCH');
  });

  it('adjust --debit takes at most the payable balance (what was paid out stays paid)', async () => {
    const { config, balances } = await minerWithHistory('cli-balance-debit');
    const tooMuch = await adjust(config, A, '--debit', '2.5000001', '--note', 'x');
    expect(tooMuch.code).toBe(1);
    expect(tooMuch.stderr).toContain('[INSUFFICIENT_BALANCE]');
    expect((await balances.getBalance(A)).balance).toBe(25_000_000n);

    const all = await adjust(config, A, '--debit', '2.5', '--note', 'credited twice by mistake');
    expect(all.code).toBe(0);
    expect(all.stdout).toBe(`debited 2.5000000 XFG from ${A}: balance 2.5000000 -> 0.0000000 XFG\n`);
    expect((await balances.getBalance(A)).balance).toBe(0n);
  });

  it('adjust refuses while a payout pass holds the lock, and an unknown address unless --new-account', async () => {
    const { keyPrefix, config, balances } = await minerWithHistory('cli-balance-refusals');
    const payouts = new PayoutStore({ keyPrefix }, { redis });
    expect(await payouts.acquireLock('a-payout-pass', 60_000)).toBe(true);
    const locked = await adjust(config, A, '--credit', '1', '--note', 'x');
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain('[LOCK_LOST]');
    await payouts.releaseLock('a-payout-pass');

    const stranger = await adjust(config, STRANGER, '--credit', '1', '--note', 'x');
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('[ACCOUNT_NOT_FOUND]');
    expect((await balances.getBalance(STRANGER)).balance).toBe(0n);
    const created = await adjust(config, STRANGER, '--credit', '1', '--note', 'bounty', '--new-account');
    expect(created.code).toBe(0);
    expect((await balances.getBalance(STRANGER)).balance).toBe(COIN);
  });

  it('wrong command lines are usage errors (exit 2) that change nothing', async () => {
    const { config, balances } = await minerWithHistory('cli-balance-usage');
    const cases: Array<[string[], string]> = [
      [['--credit', '1', '--debit', '1', '--note', 'x'], 'give one of --credit XFG and --debit XFG'],
      [['--note', 'x'], 'give one of --credit XFG and --debit XFG'],
      [['--credit', '1.00000001', '--note', 'x'], '--credit:'],
      [['--credit', '-1', '--note', 'x'], '--credit:'],
      [['--credit', '0', '--note', 'x'], '--credit must be above 0'],
      [['--credit', '1'], 'give --note TEXT'],
      [['--credit', '1', '--note', '   '], 'give --note TEXT'],
    ];
    for (const [options, message] of cases) {
      const run = await adjust(config, A, ...options);
      expect(run.code, options.join(' ')).toBe(2);
      expect(run.stderr, options.join(' ')).toContain(message);
    }
    expect((await balances.getBalance(A)).balance).toBe(25_000_000n);
  });
});
