import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { settleOrphanedBlock } from '../../../src/app/orphan-block-settlement.js';
import { RedisEventRelay } from '../../../src/cluster/redis-event-relay.js';
import { createPoolEventBus, type PoolEventMap } from '../../../src/pool/events.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { CreditedBlocksReader } from '../../../src/store/payments/credited-blocks-reader.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { runCliForTest, writeRedisConfig } from '../../helpers/cli.js';
import { freePort, type TestRedis, useTestRedisClient } from '../../helpers/redis-server.js';
import { minerAddress } from '../../leader/payouts/payout-test-kit.js';
import { flaggedBlock, paidOut } from '../../store/payments/orphan-settlement-kit.js';
import { blockHash, silentLogger, uniquePrefix } from '../../store/store-fixtures.js';

const COIN = 10_000_000n;
const A = minerAddress('cli-settle-a');
const B = minerAddress('cli-settle-b');

/** `fuego-pool block settle` as the operator runs it, against a real Redis. */
describe('fuego-pool block settle', () => {
  let redis: Redis;
  let server: TestRedis;
  useTestRedisClient((client, started) => {
    redis = client;
    server = started;
  });

  const writeConfig = (keyPrefix: string, extra: Record<string, unknown> = {}): string =>
    writeRedisConfig(server.url, keyPrefix, extra);

  it('--clawback: a dry run prints each miner and changes nothing; the run debits, never below zero; a second run is refused', async () => {
    const keyPrefix = uniquePrefix('cli-settle');
    const hash = await flaggedBlock(redis, keyPrefix, {
      height: 90,
      credits: [
        [A, 4n * COIN],
        [B, 2n * COIN],
      ],
    });
    await paidOut(redis, keyPrefix, B, 15_000_000n);
    const config = writeConfig(keyPrefix);
    const balances = new RedisBalances({ keyPrefix }, { redis });

    const dry = await runCliForTest(['block', 'settle', hash, '--clawback', '--dry-run', '--config', config]);
    expect(dry.code).toBe(0);
    expect(dry.stdout.split('\n')).toEqual([
      `would claw back: block ${hash} (dry run: nothing changed)`,
      `    ${A}  credited 4.0000000 XFG  balance 4.0000000 XFG  debit 4.0000000 XFG  uncollected 0.0000000 XFG`,
      `    ${B}  credited 2.0000000 XFG  balance 0.5000000 XFG  debit 0.5000000 XFG  uncollected 1.5000000 XFG`,
      "2 accounts, 4.5000000 XFG clawed back, 1.5000000 XFG uncollected (the pool's loss)",
      '',
    ]);
    expect((await balances.getBalance(A)).balance).toBe(4n * COIN);

    const done = await runCliForTest([
      'block',
      'settle',
      hash.toUpperCase(),
      '--clawback',
      '--config',
      config,
    ]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`clawed back: block ${hash}\n`);
    expect(done.stdout).toContain(
      "2 accounts, 4.5000000 XFG clawed back, 1.5000000 XFG uncollected (the pool's loss)",
    );
    expect((await balances.getBalance(A)).balance).toBe(0n);
    expect((await balances.getBalance(B)).balance).toBe(0n);
    expect(await new CreditedBlocksReader({ keyPrefix }, { redis }).countOrphanedAfterCredit()).toBe(0);

    const again = await runCliForTest(['block', 'settle', hash, '--absorb', '--config', config]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('[BLOCK_SETTLED]');
    const report = await runCliForTest(['report', '--config', config]);
    expect(report.stdout).toContain(`height 90  ${hash}  clawed-back`);
  });

  it('a settlement made is published as block-orphan-settled through the relay (a dry run publishes nothing)', async () => {
    const keyPrefix = uniquePrefix('cli-settle-event');
    const hash = await flaggedBlock(redis, keyPrefix, {
      height: 92,
      credits: [
        [A, 4n * COIN],
        [B, 2n * COIN],
      ],
    });
    await paidOut(redis, keyPrefix, B, 15_000_000n);
    const config = writeConfig(keyPrefix);
    const heard: PoolEventMap['block-orphan-settled'][] = [];
    const relay = new RedisEventRelay(
      { keyPrefix, origin: 'pool-node' },
      { redis, local: createPoolEventBus(() => undefined), logger: silentLogger },
    );
    await relay.start();
    relay.bus.subscribe('block-orphan-settled', (p) => heard.push(p));
    try {
      const settle = (...extra: string[]) =>
        runCliForTest(['block', 'settle', hash, '--clawback', '--config', config, ...extra]);
      expect((await settle('--dry-run')).code).toBe(0);
      expect((await settle('--note', 'reorg at 92')).code).toBe(0);
      await expect.poll(() => heard.length).toBe(1);
      expect(heard).toEqual([
        {
          height: 92,
          hash,
          settlement: 'clawed-back',
          accounts: 2,
          changeAtomic: 45_000_000n,
          uncollectedAtomic: 15_000_000n,
          note: 'reorg at 92',
          timestampMs: expect.any(Number),
        },
      ]);
    } finally {
      relay.stop();
    }
  });

  it('--absorb settles without touching a balance; an unknown hash or a block not flagged is refused with exit status 1', async () => {
    const keyPrefix = uniquePrefix('cli-absorb');
    const hash = await flaggedBlock(redis, keyPrefix, { height: 91, credits: [[A, 3n * COIN]] });
    const config = writeConfig(keyPrefix);

    const unknown = await runCliForTest([
      'block',
      'settle',
      blockHash(0xdead),
      '--absorb',
      '--config',
      config,
    ]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('[BLOCK_NOT_FOUND]');
    const notRestored = await runCliForTest(['block', 'settle', hash, '--credit-back', '--config', config]);
    expect(notRestored.code).toBe(1);
    expect(notRestored.stderr).toContain('[BLOCK_NOT_RESTORED]');

    const done = await runCliForTest([
      'block',
      'settle',
      hash,
      '--absorb',
      '--note',
      'pool pays',
      '--config',
      config,
    ]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`absorbed: block ${hash}\n`);
    expect(done.stdout).toContain('no change');
    expect((await new RedisBalances({ keyPrefix }, { redis }).getBalance(A)).balance).toBe(3n * COIN);
  });

  it('--credit-back asks the daemon first: with fuegod away it fails and gives nothing back', async () => {
    const keyPrefix = uniquePrefix('cli-credit-back-away');
    const hash = await flaggedBlock(redis, keyPrefix, { height: 93, credits: [[A, 3n * COIN]] });
    await settleOrphanedBlock(keyPrefix, { redis }, { hash, mode: 'clawback', note: '', dryRun: false });
    await new UnlockerStore({ keyPrefix }, { redis }).noteRestoredBlock({ hash, height: 93 });
    const config = writeConfig(keyPrefix, {
      daemon: { host: '127.0.0.1', port: await freePort(), timeoutMs: 500, retries: 0 },
    });
    const run = await runCliForTest(['block', 'settle', hash, '--credit-back', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('[RPC_');
    expect((await new RedisBalances({ keyPrefix }, { redis }).getBalance(A)).balance).toBe(0n);
    expect(await redis.zrange(createPaymentKeys(keyPrefix).blocksRestoredAfterClawback, 0, -1)).toEqual([
      hash,
    ]);
  });

  it('refuses a bad command line before touching Redis', async () => {
    const hash = blockHash(1);
    for (const args of [
      [hash, '--config', 'x.json'],
      [hash, '--absorb', '--clawback', '--config', 'x.json'],
      ['nothex', '--absorb', '--config', 'x.json'],
      [hash, '--absorb'],
      ['--absorb', '--config', 'x.json'],
    ]) {
      const run = await runCliForTest(['block', 'settle', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
    }
  });
});
