import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { resolveUnknownPayment } from '../../../src/app/unknown-payment-resolution.js';
import { payoutResolveCommand } from '../../../src/cli/commands/payout-resolve.js';
import type { Logger } from '../../../src/log/logger.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { PayoutWatchStore } from '../../../src/store/payments/payout-watch-store.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { snapshotPool } from '../../helpers/lost-writes.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from './money-invariants.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { payoutRunnerFor } from './payout-runner-for.js';
import {
  devnetReceived,
  expectPaidExactlyOnce,
  fundMiners,
  minerAddress,
  unlessWalletHeld,
} from './payout-test-kit.js';
import { paidThenLost, printedReport, walletRebuilds } from './rebuilt-record-kit.js';

const COIN = 10_000_000n;

interface LoggedTransfer {
  readonly address: string;
  readonly amountAtomic: string;
}

/**
 * Redis lost a payout batch and walletd rebuilt its record from the chain, naming no recipients:
 * no miner is paid until the operator says whom it paid. `payout resolve TX --paid --recipients
 * FILE` takes that list (from the pool's own log of the batch), checks all of it, and debits those
 * miners in one write; anything wrong in it is refused with nothing written.
 */
describe('an unknown payment whose wallet record names no recipients, resolved with the recipients the operator names', () => {
  const env = usePayoutDevnet();

  const runner = (keyPrefix: string, logger: Logger = silentLogger) =>
    payoutRunnerFor(env.redis, keyPrefix, { wallet: env.wallet, logger }, { minPayoutAtomic: COIN });

  /** Two miners paid by a batch Redis and then walletd lost; the log of that send. */
  async function lostNamelessBatch(label: string) {
    const keyPrefix = uniquePrefix(label);
    const miners = [minerAddress(`${label}-1`), minerAddress(`${label}-2`)] as const;
    const credits = [
      [miners[0], 2n * COIN],
      [miners[1], 3n * COIN],
    ] as const;
    await fundMiners(env.redis, keyPrefix, credits);
    const logs = captureLogs('info');
    const { txHash, batchId } = await paidThenLost(env, keyPrefix, (reached) =>
      payoutRunnerFor(
        env.redis,
        keyPrefix,
        { wallet: env.wallet, logger: logs.logger, faults: { reached } },
        { minPayoutAtomic: COIN },
      ),
    );
    walletRebuilds(env, txHash);
    return { keyPrefix, miners, credits, txHash, batchId, logs };
  }

  /** What the sender logged at info level before calling the wallet: every transfer of the batch. */
  function loggedTransfers(records: ReadonlyArray<Record<string, unknown>>, batchId: string) {
    const line = records.find((r) => r['msg'] === 'payout batch sending' && r['batchId'] === batchId);
    return line!['transfers'] as LoggedTransfer[];
  }

  /** The operator's list, taken from that log line. */
  function recipientsFromLog(records: ReadonlyArray<Record<string, unknown>>, batchId: string): string {
    const transfers = loggedTransfers(records, batchId);
    return `# batch ${batchId}, from the pool's log\n\n${transfers.map((t) => `${t.address}  ${t.amountAtomic}`).join('\n')}\n`;
  }

  function writeFile(name: string, text: string): string {
    const path = join(tempDir('fuego-recipients-'), name);
    writeFileSync(path, text);
    return path;
  }

  it('ends the hold: those miners are debited exactly once, a second resolve is refused, and the next pass pays the others only', async () => {
    const { keyPrefix, miners, credits, txHash, batchId, logs } = await lostNamelessBatch('named');
    const other = minerAddress('named-other');
    await fundMiners(env.redis, keyPrefix, [[other, 4n * COIN]]);
    const held = await unlessWalletHeld(() => runner(keyPrefix).runOnce());
    expect(held.batches).toEqual([]);
    expect(held.skippedMiners.map((m) => m.address).sort()).toEqual([...miners, other].sort());
    const received = miners.map((m) => devnetReceived(env.devnet, m));

    const config = writeFile(
      'config.json',
      JSON.stringify({ log: { level: 'silent' }, redis: { url: env.server.url, keyPrefix } }),
    );
    const list = writeFile('recipients.txt', recipientsFromLog(logs.records, batchId));
    const stdout = new PassThrough();
    const io = { stdout, stderr: new PassThrough(), stdin: Readable.from([]), env: {} };
    const args = [txHash, '--paid', '--recipients', list, '--note', 'from the log', '--config', config];
    expect(await payoutResolveCommand.run(args, io)).toBe(0);
    expect(String(stdout.read())).toMatch(/recorded as paid: 2 recipients \(named by the operator\)/);

    const balances = new RedisBalances({ keyPrefix }, { redis: env.redis });
    for (const [i, [miner, credited]] of credits.entries()) {
      const balance = await balances.getBalance(miner);
      expect(balance.paid).toBe(received[i]);
      expect(balance.balance + balance.paid + balance.networkFees).toBe(credited);
      expect((await balances.getPayments(miner)).map((p) => [p.txHash, p.amountAtomic])).toEqual([
        [txHash, received[i]],
      ]);
    }
    const [unknown] = await new PayoutWatchStore({ keyPrefix }, { redis: env.redis }).listUnknownPayments();
    expect(unknown).toMatchObject({
      txHash,
      status: 'recorded-as-paid',
      resolvedNote: 'from the log',
    });
    const named = [...unknown!.namedRecipients!].sort((a, b) => a.address.localeCompare(b.address));
    const paid = miners.map((address, i) => ({ address, amountAtomic: received[i]! }));
    expect(named).toEqual(paid.sort((a, b) => a.address.localeCompare(b.address)));

    // Once only: a second resolve is refused and writes nothing.
    const before = await snapshotPool(env.redis, keyPrefix);
    await expect(payoutResolveCommand.run(args, io)).rejects.toMatchObject({ code: 'BATCH_STATE' });
    expect(await snapshotPool(env.redis, keyPrefix)).toEqual(before);

    const report = await printedReport(env, keyPrefix);
    expect(report.lines.join('\n')).toMatch(
      new RegExp(`${txHash} .*2 recipients \\(named by the operator\\).*recorded-as-paid \\(from the log\\)`),
    );

    const next = await unlessWalletHeld(() => runner(keyPrefix).runOnce());
    expect(next.skipped).toBeNull();
    expect(next.batches.map((b) => [b.state, b.recipients])).toEqual([['sent', 1]]);
    expect(miners.map((m) => devnetReceived(env.devnet, m))).toEqual(received);
    env.devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, [...credits, [other, 4n * COIN]]);
    await expectLedgerConsistent(env.redis, keyPrefix, [...miners, other]);
  });

  it('refuses a wrong sum, a bad address, a duplicate, a bad amount, an address with no account and plain --paid, each with nothing written', async () => {
    const { keyPrefix, miners, txHash, batchId, logs } = await lostNamelessBatch('named-bad');
    await unlessWalletHeld(() => runner(keyPrefix).runOnce());
    const good = recipientsFromLog(logs.records, batchId);
    const [x, y] = loggedTransfers(logs.records, batchId) as [LoggedTransfer, LoggedTransfer];
    const first = `${x.address} ${x.amountAtomic}`;
    const second = `${y.address} ${y.amountAtomic}`;
    // One character changed: the checksum no longer matches.
    const badAddress = `${x.address.slice(0, 40)}${x.address[40] === 'x' ? 'y' : 'x'}${x.address.slice(41)}`;
    const stranger = minerAddress('named-bad-stranger');
    const cases: ReadonlyArray<readonly [string, string | undefined, string]> = [
      ['a wrong sum', `${first}\n${y.address} ${BigInt(y.amountAtomic) - 1n}\n`, 'RECIPIENTS_SUM_MISMATCH'],
      ['a bad address', `${badAddress} ${x.amountAtomic}\n${second}\n`, 'RECIPIENTS_INVALID'],
      ['a duplicate', `${first}\n${second}\n${first}\n`, 'RECIPIENTS_INVALID'],
      ['a bad amount', `${x.address} 0.5\n${second}\n`, 'RECIPIENTS_INVALID'],
      // A valid address the pool has never credited: a wrong line, most likely.
      ['an address with no account', `${stranger} ${x.amountAtomic}\n${second}\n`, 'RECIPIENTS_INVALID'],
      ['no list', undefined, 'RECIPIENTS_UNKNOWN'],
    ];
    expect([x.address, y.address].sort()).toEqual([...miners].sort());
    const before = await snapshotPool(env.redis, keyPrefix);
    for (const [what, recipients, code] of cases) {
      const request = { txHash, mode: 'paid' as const, note: what, ...(recipients ? { recipients } : {}) };
      await expect(resolveUnknownPayment(keyPrefix, env.redis, request), what).rejects.toMatchObject({
        code,
      });
      expect(await snapshotPool(env.redis, keyPrefix), what).toEqual(before);
    }
    // Still held, and the good list still resolves it.
    expect((await unlessWalletHeld(() => runner(keyPrefix).runOnce())).batches).toEqual([]);
    await resolveUnknownPayment(keyPrefix, env.redis, { txHash, mode: 'paid', note: 'ok', recipients: good });
    expect((await unlessWalletHeld(() => runner(keyPrefix).runOnce())).skipped).toBeNull();
  });

  it('refuses --recipients for an unknown payment whose wallet record names every recipient', async () => {
    const keyPrefix = uniquePrefix('named-not-needed');
    const miner = minerAddress('named-not-needed');
    const watch = new PayoutWatchStore({ keyPrefix }, { redis: env.redis });
    const txHash = 'e1'.repeat(32);
    await watch.recordUnknownPayments([
      {
        txHash,
        batchId: 'a2'.repeat(16),
        blockIndex: 5,
        paymentId: '',
        feeAtomic: 1_000n,
        transfers: [{ address: miner, amountAtomic: 5_000n }],
        unnamedAtomic: 0n,
        firstSeenMs: 1,
        status: 'unresolved',
        resolvedAtMs: null,
        resolvedNote: null,
      },
    ]);
    const before = await snapshotPool(env.redis, keyPrefix);
    await expect(
      resolveUnknownPayment(keyPrefix, env.redis, {
        txHash,
        mode: 'paid',
        note: 'x',
        recipients: `${miner} 5000\n`,
      }),
    ).rejects.toMatchObject({ code: 'RECIPIENTS_NOT_NEEDED' });
    expect(await snapshotPool(env.redis, keyPrefix)).toEqual(before);
  });
  it('debits an address the pool has no account for only when the operator says --new-account', async () => {
    const { keyPrefix, txHash, batchId, logs } = await lostNamelessBatch('named-new');
    await unlessWalletHeld(() => runner(keyPrefix).runOnce());
    const [x, y] = loggedTransfers(logs.records, batchId) as [LoggedTransfer, LoggedTransfer];
    const stranger = minerAddress('named-new-stranger');
    const list = `${stranger} ${x.amountAtomic}\n${y.address} ${y.amountAtomic}\n`;
    const before = await snapshotPool(env.redis, keyPrefix);
    const refused = resolveUnknownPayment(keyPrefix, env.redis, {
      txHash,
      mode: 'paid',
      note: 'n',
      recipients: list,
    });
    await expect(refused).rejects.toMatchObject({ code: 'RECIPIENTS_INVALID' });
    await expect(refused).rejects.toThrow(new RegExp(`no account for ${stranger}[\\s\\S]*--new-account`));
    expect(await snapshotPool(env.redis, keyPrefix)).toEqual(before);

    const anyway = {
      txHash,
      mode: 'paid' as const,
      note: 'from an older backup',
      recipients: list,
      newAccount: true,
    };
    await resolveUnknownPayment(keyPrefix, env.redis, anyway);
    const balances = new RedisBalances({ keyPrefix }, { redis: env.redis });
    expect((await balances.getBalance(stranger)).paid).toBe(BigInt(x.amountAtomic));
    expect((await balances.getBalance(stranger)).balance).toBe(-BigInt(x.amountAtomic));
  });
});
