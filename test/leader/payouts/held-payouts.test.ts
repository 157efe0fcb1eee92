import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { payoutRunnerOptionsFrom } from '../../../src/app/money-options.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { trackHeldPayouts } from '../../../src/leader/payouts/held-payouts.js';
import { PayoutRunner, type PayoutRunnerModules } from '../../../src/leader/payouts/payout-runner.js';
import { createLogger } from '../../../src/log/logger.js';
import type { HeldPayout } from '../../../src/model/payouts/payout-watch.js';

function logCapture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ level: 'info' }, stream), lines };
}

const entry = (address: string, reason: string, amountAtomic = 5n) => ({ address, reason, amountAtomic });

describe('held payouts', () => {
  it('keeps a miner held for the same reason since the first pass and says so once', () => {
    const { logger, lines } = logCapture();
    const first = trackHeldPayouts([], [entry('A', 'wallet low')], 1_000, logger);
    const second = trackHeldPayouts(first, [entry('A', 'wallet low', 7n)], 2_000, logger);
    expect(second).toEqual([{ address: 'A', reason: 'wallet low', amountAtomic: 7n, sinceMs: 1_000 }]);
    expect(lines.map((l) => [l['level'], l['msg'], l['address']])).toEqual([[40, 'payout held', 'A']]);
  });

  it('says it again when the reason changes, and at info when the miner is released', () => {
    const { logger, lines } = logCapture();
    const first = trackHeldPayouts([], [entry('A', 'wallet low')], 1_000, logger);
    const second = trackHeldPayouts(first, [entry('A', 'backoff')], 2_000, logger);
    expect(second[0]).toMatchObject({ reason: 'backoff', sinceMs: 2_000 });
    trackHeldPayouts(second, [], 3_000, logger);
    expect(lines.map((l) => [l['level'], l['msg'], l['reason']])).toEqual([
      [40, 'payout held', 'wallet low'],
      [40, 'payout held', 'backoff'],
      [30, 'payout no longer held', 'backoff'],
    ]);
  });

  it('sums up a whole pass held for one reason in one line', () => {
    const { logger, lines } = logCapture();
    const many = Array.from({ length: 25 }, (_, i) => entry(`M${i}`, 'redis not durable', 2n));
    expect(trackHeldPayouts([], many, 1, logger)).toHaveLength(25);
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, miners: 25, amount: '50', reason: 'redis not durable' }),
    ]);
  });
});

describe('held payouts of a pass that pays nothing', () => {
  it('holds only miners who are due: not one still below its own threshold (as holdPass does)', async () => {
    const { logger } = logCapture();
    const balance = (amount: bigint) => ({ balance: amount, inPayout: 0n });
    let held: readonly HeldPayout[] = [];
    const modules = {
      journal: {
        acquireLock: async () => true,
        releaseLock: async () => true,
        listOpenBatches: async () => [],
      },
      balances: {
        listPayable: async () => [
          { address: 'WAITS', balance: balance(200n) },
          { address: 'DUE', balance: balance(150n) },
        ],
      },
      watch: {
        getScanCursor: async () => null,
        listHeld: async () => held,
        replaceHeld: async (next: readonly HeldPayout[]) => {
          held = next;
          return [...next];
        },
      },
      durability: {},
      // walletd down: the pass holds everyone due
      wallet: {
        getAddresses: async () => Promise.reject(new Error('connection refused')),
        getStatus: async () => Promise.reject(new Error('connection refused')),
      },
      logger,
      thresholdOf: async (address: string) => (address === 'WAITS' ? 500n : undefined),
    } as unknown as PayoutRunnerModules;
    const options = payoutRunnerOptionsFrom(parseConfig({}).payments, 'held-thresholds');
    const runner = new PayoutRunner({ ...options, minPayoutAtomic: 100n }, modules);

    const summary = await runner.runOnce();
    expect(summary.skipped).toBe('wallet-unhealthy');
    expect(summary.skippedMiners.map((h) => h.address)).toEqual(['DUE']);
    expect(held.map((h) => h.address)).toEqual(['DUE']);
  });
});
