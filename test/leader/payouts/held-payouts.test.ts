import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { trackHeldPayouts } from '../../../src/leader/payouts/held-payouts.js';
import { createLogger } from '../../../src/log/logger.js';

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
