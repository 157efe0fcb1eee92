import { describe, expect, it } from 'vitest';
import { NOTIFICATION_EVENT_NAMES } from '../../../src/config/notifications-schema.js';
import type { Burst } from '../../../src/leader/notifications/chat-message.js';
import { discordBody } from '../../../src/leader/notifications/discord-format.js';
import { EVENT_FORMATS, formatOf } from '../../../src/leader/notifications/event-formats.js';
import { telegramText } from '../../../src/leader/notifications/telegram-format.js';
import { likelyCauseOf } from '../../../src/pool/block-refusal.js';

const HASH = 'ab'.repeat(32);
const EXPLORER = {
  block: 'https://explorer.example/block/{hash}',
  transaction: 'https://explorer.example/tx/{hash}',
  address: null,
};

function burst<P>(...payloads: P[]): Burst<P> {
  return { payloads, omitted: 0 };
}

function sent(n: number, amountAtomic = 10_000_000n) {
  return {
    batchId: `b-${n}`,
    transactionHash: `${n}`.padStart(64, 'c'),
    recipients: n,
    amountAtomic,
    feeAtomic: 80_000n,
    timestampMs: 1_000 + n,
  };
}

const undone = (height: number, outcome: 'absorbed' | 'clawed-back') => ({
  height,
  hash: HASH,
  rewardAtomic: 50_000_001n,
  outcome,
  timestampMs: 8,
});

const backUncredited = (height: number, reason: 'round-merged' | 'no-window') => ({
  height,
  hash: HASH,
  rewardAtomic: 50_000_001n,
  reason,
  timestampMs: 8,
});

describe('event formats', () => {
  it('has a format for every notification event, and nothing else', () => {
    expect(Object.keys(EVENT_FORMATS).sort()).toEqual([...NOTIFICATION_EVENT_NAMES].sort());
  });

  it('block-found: height, round and the hash linked to the explorer; a burst lists heights', () => {
    const found = (height: number, solo = false) => ({
      height,
      hash: HASH,
      finderAddress: 'fireX',
      solo,
      timestampMs: height,
    });
    const one = formatOf('block-found').chat(burst(found(7, true)), { explorer: EXPLORER });
    expect(one).toMatchObject({
      title: 'Block found',
      headline: 'Block 7 found (solo round)',
      timestampMs: 7,
    });
    expect(one.fields.at(-1)).toEqual({
      name: 'Hash',
      value: 'abababab…abababab',
      code: true,
      inline: false,
      url: `https://explorer.example/block/${HASH}`,
    });
    const many = formatOf('block-found').chat(
      { payloads: Array.from({ length: 12 }, (_, i) => found(100 + i)), omitted: 3 },
      {},
    );
    expect(many.title).toBe('15 blocks found');
    expect(many.headline).toBe(
      '15 blocks found: heights 100, 101, 102, 103, 104, 105, 106, 107, 108, 109 and 5 more',
    );
    expect(many.fields).toHaveLength(11);
    expect(many.fields.at(-1)).toEqual({ name: 'More', value: '5 blocks not listed' });
    expect(many.fields[0]).not.toHaveProperty('url'); // no explorer configured
    expect(JSON.stringify(many)).not.toContain('fireX');
  });

  it('block-confirmed and block-orphaned: rewards in XFG with 7 decimals, summed exactly', () => {
    const confirmed = formatOf('block-confirmed');
    expect(confirmed.chat(burst({ height: 5, hash: HASH, rewardAtomic: 50_000_001n }), {}).headline).toBe(
      'Block 5 confirmed: reward 5.0000001 XFG',
    );
    const two = confirmed.chat(
      burst(
        { height: 5, hash: HASH, rewardAtomic: 18_446_744_073_709_551_615n },
        { height: 6, hash: HASH, rewardAtomic: 1n },
      ),
      {},
    );
    expect(two.headline).toBe('2 blocks confirmed: heights 5 and 6');
    expect(two.fields[0]).toEqual({ name: 'Rewards', value: '1844674407370.9551616 XFG' });
    const orphaned = formatOf('block-orphaned').chat(burst({ height: 9, hash: HASH }), {});
    expect(orphaned).toMatchObject({
      title: 'Block orphaned',
      headline: 'Block 9 orphaned: another block took its height',
      tone: 'bad',
    });
  });

  it('block-orphaned-after-credit: the reward credited, that nothing was debited, the hash not linked', () => {
    const format = formatOf('block-orphaned-after-credit');
    const p = { height: 9, hash: HASH, rewardAtomic: 50_000_001n };
    expect(format.data(p, { includeAddresses: false })).toEqual({
      height: 9,
      hash: HASH,
      rewardAtomic: '50000001',
      reward: '5.0000001',
    });
    const one = format.chat(burst(p), { explorer: EXPLORER });
    expect(one).toMatchObject({
      title: 'Credited block orphaned',
      headline: 'Block 9 orphaned after its reward 5.0000001 XFG was credited',
      tone: 'bad',
    });
    expect(one.fields.map((f) => f.name)).toEqual(['Height', 'Reward', 'Credits', 'Hash']);
    expect(one.fields.at(-1)).not.toHaveProperty('url');
    const two = format.chat(burst(p, { ...p, height: 10 }), { explorer: EXPLORER });
    expect(two.headline).toBe('2 credited blocks orphaned: heights 9 and 10');
  });

  it('block-orphan-settled: how it was settled and what moved, the note; the hash linked only for a credit back', () => {
    const format = formatOf('block-orphan-settled');
    const settled = (
      height: number,
      settlement: 'absorbed' | 'clawed-back' | 'credited-back',
      changeAtomic: bigint,
      uncollectedAtomic: bigint,
      note = '',
    ) => ({
      height,
      hash: HASH,
      settlement,
      accounts: 2,
      changeAtomic,
      uncollectedAtomic,
      note,
      timestampMs: 7,
    });
    expect(
      format.data(settled(9, 'clawed-back', 45_000_000n, 15_000_001n, 'reorg'), { includeAddresses: false }),
    ).toEqual({
      height: 9,
      hash: HASH,
      settlement: 'clawed-back',
      accounts: 2,
      changeAtomic: '45000000',
      change: '4.5000000',
      uncollectedAtomic: '15000001',
      uncollected: '1.5000001',
      note: 'reorg',
      timestampMs: 7,
    });
    const clawed = format.chat(burst(settled(9, 'clawed-back', 45_000_000n, 15_000_001n, 'reorg')), {
      explorer: EXPLORER,
    });
    expect(clawed).toMatchObject({
      title: 'Orphaned block settled',
      headline: 'Block 9 4.5000000 XFG clawed back, 1.5000001 XFG uncollected: 2 accounts',
      tone: 'neutral',
    });
    expect(clawed.fields.map((f) => f.name)).toEqual(['Height', 'Settled', 'Accounts', 'Hash', 'Note']);
    expect(clawed.fields.at(-2)).not.toHaveProperty('url');
    const absorbed = format.chat(burst(settled(9, 'absorbed', 0n, 60_000_001n)), { explorer: EXPLORER });
    expect(absorbed.headline).toBe("Block 9 absorbed (6.0000001 XFG the pool's loss): 2 accounts");
    expect(absorbed.fields.map((f) => f.name)).not.toContain('Note');
    const back = format.chat(burst(settled(9, 'credited-back', 45_000_000n, 0n)), { explorer: EXPLORER });
    expect(back).toMatchObject({
      title: 'Orphaned block credited back',
      headline: 'Block 9 4.5000000 XFG credited back: 2 accounts',
    });
    expect(back.fields.at(-1)).toMatchObject({ name: 'Hash', url: `https://explorer.example/block/${HASH}` });
    const two = format.chat(burst(settled(9, 'absorbed', 0n, 1n), settled(12, 'credited-back', 2n, 0n)), {
      explorer: EXPLORER,
    });
    expect(two.headline).toBe('2 orphaned blocks settled: heights 9 and 12');
    expect(two.fields.map((f) => f.name)).toEqual([
      "Height 9: absorbed (0.0000001 XFG the pool's loss)",
      'Height 12: 0.0000002 XFG credited back',
    ]);
  });

  it('block-orphan-restored: what the block was and what is left to do; bad only when a credit back is owed', () => {
    const format = formatOf('block-orphan-restored');
    const restored = (height: number, outcome: 'unflagged' | 'absorbed' | 'clawed-back') => ({
      height,
      hash: HASH,
      rewardAtomic: 50_000_001n,
      outcome,
      timestampMs: 8,
    });
    expect(format.data(restored(9, 'clawed-back'), { includeAddresses: false })).toEqual({
      height: 9,
      hash: HASH,
      rewardAtomic: '50000001',
      reward: '5.0000001',
      outcome: 'clawed-back',
      timestampMs: 8,
    });
    const owed = format.chat(burst(restored(9, 'clawed-back')), { explorer: EXPLORER });
    expect(owed).toMatchObject({
      title: 'Orphaned block restored',
      headline: 'Block 9 is back on the main chain (a later reorg): clawed-back',
      tone: 'bad',
    });
    expect(owed.fields.map((f) => f.name)).toEqual(['Height', 'Reward', 'Settlement', 'Hash']);
    expect(owed.fields[2]!.value).toContain('--credit-back');
    expect(owed.fields[3]).toMatchObject({ url: `https://explorer.example/block/${HASH}` });
    expect(format.chat(burst(restored(9, 'absorbed')), { explorer: EXPLORER }).tone).toBe('good');
    const two = format.chat(burst(restored(9, 'unflagged'), restored(10, 'clawed-back')), {
      explorer: EXPLORER,
    });
    expect(two).toMatchObject({
      headline: '2 orphaned blocks back on the main chain: heights 9 and 10; 1 clawed back, to credit back',
      tone: 'bad',
    });
    expect(two.fields.map((f) => f.name)).toEqual(['Height 9: unflagged', 'Height 10: clawed-back']);
  });

  it('block-orphan-restore-undone webhook data: the block, its reward and the settlement that stands again', () => {
    expect(
      formatOf('block-orphan-restore-undone').data(undone(9, 'clawed-back'), { includeAddresses: false }),
    ).toEqual({
      height: 9,
      hash: HASH,
      rewardAtomic: '50000001',
      reward: '5.0000001',
      outcome: 'clawed-back',
      timestampMs: 8,
    });
  });

  it('block-orphan-restore-undone chat: a clawed-back one says no credit back is owed any more; the hash is not linked (off the chain)', () => {
    const message = formatOf('block-orphan-restore-undone').chat(burst(undone(9, 'clawed-back')), {
      explorer: EXPLORER,
    });
    expect(message).toMatchObject({
      title: 'Orphaned block restore undone',
      headline: 'Block 9 is off the main chain again (yet another reorg): clawed-back',
      tone: 'neutral',
      timestampMs: 8,
    });
    expect(message.fields.map((f) => f.name)).toEqual(['Height', 'Reward', 'Settlement', 'Hash']);
    expect(message.fields[1]!.value).toBe('5.0000001 XFG');
    expect(message.fields[2]!.value).toContain('no credit back is owed any more');
    expect(message.fields[3]).not.toHaveProperty('url');
    const absorbed = formatOf('block-orphan-restore-undone').chat(burst(undone(9, 'absorbed')), {
      explorer: EXPLORER,
    });
    expect(absorbed.tone).toBe('bad');
    expect(absorbed.fields[2]!.value).toContain('the loss stands again');
  });

  it('block-orphan-restore-undone chat burst: the heights, and how many credit backs are withdrawn', () => {
    const two = formatOf('block-orphan-restore-undone').chat(
      burst(undone(9, 'clawed-back'), undone(12, 'clawed-back')),
      {
        explorer: EXPLORER,
      },
    );
    expect(two).toMatchObject({
      title: '2 orphaned block restores undone',
      headline:
        '2 restored orphaned blocks off the main chain again: heights 9 and 12; 2 clawed back, no credit back owed any more',
      tone: 'neutral',
    });
    expect(two.fields.map((f) => f.name)).toEqual(['Height 9: clawed-back', 'Height 12: clawed-back']);
    expect(two.fields.every((f) => f.url === undefined)).toBe(true);
    const mixed = formatOf('block-orphan-restore-undone').chat(
      burst(undone(9, 'absorbed'), undone(12, 'clawed-back')),
      {},
    );
    expect(mixed.tone).toBe('bad');
  });

  it('block-orphan-back-uncredited webhook data: the block, its reward, why it is not credited and what to do', () => {
    const format = formatOf('block-orphan-back-uncredited');
    expect(format.data(backUncredited(9, 'round-merged'), { includeAddresses: false })).toEqual({
      height: 9,
      hash: HASH,
      rewardAtomic: '50000001',
      reward: '5.0000001',
      reason: 'round-merged',
      advice: expect.stringContaining('pool surplus'),
      timestampMs: 8,
    });
    expect(format.data(backUncredited(9, 'no-window'), { includeAddresses: false })).toMatchObject({
      reason: 'no-window',
      advice: expect.stringContaining('fuego-pool balance adjust'),
    });
  });

  it('block-orphan-back-uncredited chat: the reward in the wallet, the reason and the advice; the hash linked (on the chain)', () => {
    const format = formatOf('block-orphan-back-uncredited');
    const prop = format.chat(burst(backUncredited(9, 'round-merged')), { explorer: EXPLORER });
    expect(prop).toMatchObject({
      title: 'Orphaned block back on chain, not credited',
      headline:
        'Block 9 is back on the main chain (a deeper reorg): 5.0000001 XFG in the wallet, credited to nobody',
      // Pool surplus: nothing is owed.
      tone: 'neutral',
      timestampMs: 8,
    });
    expect(prop.fields.map((f) => f.name)).toEqual(['Height', 'Reward', 'Why', 'What to do', 'Hash']);
    expect(prop.fields[2]!.value).toContain('PROP round merged into the next');
    expect(prop.fields[3]!.value).toContain('pool surplus');
    expect(prop.fields[4]!.url).toBe(`https://explorer.example/block/${HASH}`);
    const noWindow = format.chat(burst(backUncredited(9, 'no-window')), {});
    // Its miners are owed its reward.
    expect(noWindow.tone).toBe('bad');
    expect(noWindow.fields[2]!.value).toContain('no kept PPLNS window');
    expect(noWindow.fields[3]!.value).toContain('fuego-pool balance adjust');
    // Discord and Telegram carry the reason and the advice.
    const discord = discordBody(noWindow, 0);
    expect(discord).toContain('no kept PPLNS window');
    expect(discord).toContain('fuego-pool balance adjust');
    expect(telegramText(prop)).toContain('pool surplus');
  });

  it('block-orphan-back-uncredited chat burst: the heights, the reward summed, each reason', () => {
    const two = formatOf('block-orphan-back-uncredited').chat(
      burst(backUncredited(9, 'round-merged'), backUncredited(12, 'no-window')),
      { explorer: EXPLORER },
    );
    expect(two).toMatchObject({
      title: '2 orphaned blocks back on chain, not credited',
      headline:
        '2 orphaned blocks back on the main chain, not credited: heights 9 and 12; 10.0000002 XFG in the wallet (see fuego-pool report)',
      tone: 'bad',
    });
    expect(two.fields.map((f) => f.name)).toEqual([
      'Height 9: PROP round merged into the next',
      'Height 12: no kept PPLNS window',
    ]);
  });

  it('payment-sent: a burst sums amounts and recipients and links each transaction', () => {
    const format = formatOf('payment-sent');
    const one = format.chat(burst(sent(1)), { explorer: EXPLORER });
    expect(one.headline).toBe('Paid 1.0000000 XFG to 1 miner');
    expect(one.fields.map((f) => [f.name, f.value])).toEqual([
      ['Amount', '1.0000000 XFG'],
      ['Network fee', '0.0080000 XFG'],
      ['Recipients', '1'],
      ['Transaction', 'cccccccc…ccccccc1'],
      ['Batch', 'b-1'],
    ]);
    const three = format.chat(burst(sent(1), sent(2, 5n), sent(3)), { explorer: EXPLORER });
    expect(three.headline).toBe('3 payments sent: 2.0000005 XFG to 6 miners');
    expect(three.fields[1]).toMatchObject({ name: 'Network fees', value: '0.0240000 XFG' });
    expect(three.fields[3]).toMatchObject({
      name: '0.0000005 XFG to 2 miners',
      url: `https://explorer.example/tx/${'2'.padStart(64, 'c')}`,
    });
    expect(three.timestampMs).toBe(1_003);
  });

  it('payment-failed: the reason is kept short; a burst lists each batch with its reason', () => {
    const failed = (reason: string) => ({
      batchId: 'b',
      recipients: 2,
      amountAtomic: 3n,
      reason,
      timestampMs: 1,
    });
    const one = formatOf('payment-failed').chat(burst(failed('x'.repeat(2_000))), {});
    expect(one.fields.at(-1)!.value).toHaveLength(500);
    const two = formatOf('payment-failed').chat(burst(failed('no money'), failed('locked')), {});
    expect(two.headline).toBe('2 payments failed: 0.0000006 XFG to 4 miners; balances restored');
    expect(two.fields.map((f) => f.value)).toEqual(['no money', 'locked']);
  });

  it('payout-unknown-to-wallet: amount, miners, when sent, the transaction linked and how to settle it', () => {
    const format = formatOf('payout-unknown-to-wallet');
    const missing = (n: number) => ({
      batchId: `b-${n}`,
      transactionHash: `${n}`.padStart(64, 'c'),
      recipients: n,
      amountAtomic: 10_000_001n,
      sentAtMs: Date.UTC(2026, 10, 27, 12),
      timestampMs: Date.UTC(2026, 10, 27, 13) + n,
    });
    expect(format.data(missing(3), { includeAddresses: false })).toEqual({
      batchId: 'b-3',
      transactionHash: `${'c'.repeat(63)}3`,
      recipients: 3,
      amountAtomic: '10000001',
      amount: '1.0000001',
      sentAtMs: Date.UTC(2026, 10, 27, 12),
      timestampMs: Date.UTC(2026, 10, 27, 13) + 3,
    });
    const one = format.chat(burst(missing(3)), { explorer: EXPLORER });
    expect(one).toMatchObject({
      title: 'Payment unknown to the wallet',
      headline: 'The wallet has no record of a payment of 1.0000001 XFG to 3 miners',
      tone: 'bad',
      timestampMs: Date.UTC(2026, 10, 27, 13) + 3,
    });
    expect(one.fields.map((f) => f.name)).toEqual([
      'Amount',
      'Recipients',
      'Sent',
      'Transaction',
      'Batch',
      'Settle',
    ]);
    expect(one.fields.find((f) => f.name === 'Sent')!.value).toBe('2026-11-27T12:00:00.000Z');
    expect(one.fields.find((f) => f.name === 'Transaction')!.url).toBe(
      `https://explorer.example/tx/${'c'.repeat(63)}3`,
    );
    expect(one.fields.at(-1)!.value).toContain('fuego-pool payout resolve TXHASH --paid');
    expect(one.fields.at(-1)!.value).toContain('--refund');
    const two = format.chat(burst(missing(1), missing(2)), { explorer: EXPLORER });
    expect(two.headline).toBe('The wallet has no record of 2 payments: 2.0000002 XFG to 3 miners');
    expect(two.fields.map((f) => f.name)).toEqual([
      'Settle',
      '1.0000001 XFG to 1 miner',
      '1.0000001 XFG to 2 miners',
    ]);
  });

  it('payout-unknown-to-wallet-resolved: how it was settled, the note; a burst counts paid and refunded', () => {
    const format = formatOf('payout-unknown-to-wallet-resolved');
    const resolved = (n: number, resolution: 'paid' | 'refunded', note = '') => ({
      batchId: `b-${n}`,
      transactionHash: `${n}`.padStart(64, 'c'),
      recipients: n,
      amountAtomic: 10_000_001n,
      resolution,
      blockHeight: resolution === 'paid' ? 700 : null,
      note,
      timestampMs: 5,
    });
    expect(format.data(resolved(2, 'paid', 'seen'), { includeAddresses: false })).toEqual({
      batchId: 'b-2',
      transactionHash: `${'c'.repeat(63)}2`,
      recipients: 2,
      amountAtomic: '10000001',
      amount: '1.0000001',
      resolution: 'paid',
      blockHeight: 700,
      note: 'seen',
      timestampMs: 5,
    });
    const paid = format.chat(burst(resolved(2, 'paid', 'seen')), { explorer: EXPLORER });
    expect(paid).toMatchObject({
      title: 'Payment unknown to the wallet settled',
      headline: 'Settled as paid in block 700: 1.0000001 XFG to 2 miners',
      tone: 'good',
    });
    expect(paid.fields.map((f) => f.name)).toEqual([
      'Amount',
      'Recipients',
      'Settled',
      'Transaction',
      'Batch',
      'Note',
    ]);
    const refunded = format.chat(burst(resolved(1, 'refunded')), { explorer: EXPLORER });
    expect(refunded.headline).toBe('Refunded: 1.0000001 XFG credited back to 1 miner');
    expect(refunded.fields.map((f) => f.name)).not.toContain('Note');
    const two = format.chat(burst(resolved(1, 'refunded'), resolved(2, 'paid')), { explorer: EXPLORER });
    expect(two.headline).toBe('2 payments unknown to the wallet settled: 1 paid, 1 refunded');
    expect(two.fields.map((f) => f.name)).toEqual([
      '1.0000001 XFG to 1 miner: refunded',
      '1.0000001 XFG to 2 miners: paid in block 700',
    ]);
  });

  it('payout-unmined: amount, miners, how long, what fuegod says and what to do; a burst lists each', () => {
    const format = formatOf('payout-unmined');
    const nowhere = 'fuegod has it nowhere (not in a block, not in its pool): restart walletd';
    const unmined = (n: number, sighting: 'nowhere' | 'in-pool' | 'in-block') => ({
      batchId: `b-${n}`,
      transactionHash: `${n}`.padStart(64, 'c'),
      recipients: n,
      amountAtomic: 10_000_001n,
      sentAtMs: Date.UTC(2026, 10, 27, 6),
      ageMs: 7 * 3_600_000 + 59 * 60_000,
      sighting,
      blockHeight: sighting === 'in-block' ? 321 : null,
      advice: sighting === 'nowhere' ? nowhere : 'wait',
      timestampMs: Date.UTC(2026, 10, 27, 14) + n,
    });
    expect(format.data(unmined(3, 'nowhere'), { includeAddresses: false })).toEqual({
      batchId: 'b-3',
      transactionHash: `${'c'.repeat(63)}3`,
      recipients: 3,
      amountAtomic: '10000001',
      amount: '1.0000001',
      sentAtMs: Date.UTC(2026, 10, 27, 6),
      ageMs: 7 * 3_600_000 + 59 * 60_000,
      sighting: 'nowhere',
      blockHeight: null,
      advice: nowhere,
      timestampMs: Date.UTC(2026, 10, 27, 14) + 3,
    });
    const one = format.chat(burst(unmined(3, 'nowhere')), { explorer: EXPLORER });
    expect(one).toMatchObject({
      title: 'Payment not mined',
      headline:
        'A payment of 1.0000001 XFG to 3 miners is not mined 7 h after its send: fuegod has it nowhere',
      tone: 'bad',
      timestampMs: Date.UTC(2026, 10, 27, 14) + 3,
    });
    expect(one.fields.map((f) => f.name)).toEqual([
      'Amount',
      'Recipients',
      'Sent',
      'Transaction',
      'Batch',
      'What to do',
    ]);
    expect(one.fields.find((f) => f.name === 'Sent')!.value).toBe('2026-11-27T06:00:00.000Z');
    expect(one.fields.find((f) => f.name === 'Transaction')!.url).toBe(
      `https://explorer.example/tx/${'c'.repeat(63)}3`,
    );
    expect(one.fields.at(-1)!.value).toBe(nowhere);
    expect(format.chat(burst(unmined(1, 'in-block')), {}).headline).toBe(
      'A payment of 1.0000001 XFG to 1 miner is not mined 7 h after its send: fuegod has it in block 321, walletd has not seen it',
    );
    const two = format.chat(burst(unmined(1, 'in-pool'), unmined(2, 'nowhere')), { explorer: EXPLORER });
    expect(two).toMatchObject({
      title: '2 payments not mined',
      headline: '2 payments not mined 6 h after their send: 2.0000002 XFG to 3 miners',
      tone: 'bad',
    });
    expect(two.fields.map((f) => f.name)).toEqual([
      'What to do',
      "1.0000001 XFG to 1 miner: still in fuegod's pool",
      '1.0000001 XFG to 2 miners: fuegod has it nowhere',
    ]);
  });

  it('a burst beyond what a window keeps sums its latest events and says so (the oldest went)', () => {
    // The collector keeps the last MAX_BURST_EVENTS of a window and counts the oldest as omitted.
    const kept = { payloads: [sent(8), sent(9)], omitted: 7 };
    const payments = formatOf('payment-sent').chat(kept, {});
    expect(payments.headline).toBe('9 payments sent: 2.0000000 XFG to 17 miners (last 2 batches)');
    expect(payments.fields[0]!.name).toBe('Total (last 2 batches)');
    const confirmed = formatOf('block-confirmed').chat(
      {
        payloads: [
          { height: 8, hash: HASH, rewardAtomic: 3n },
          { height: 9, hash: HASH, rewardAtomic: 4n },
        ],
        omitted: 7,
      },
      {},
    );
    expect(confirmed.fields[0]).toEqual({ name: 'Rewards of the last 2', value: '0.0000007 XFG' });
  });

  it('webhook data is a whitelist of fields (the finder address only when asked)', () => {
    const payload = {
      height: 1,
      hash: HASH,
      finderAddress: 'fireX',
      solo: true,
      timestampMs: 2,
      ip: '1.2.3.4',
    };
    expect(formatOf('block-found').data(payload, { includeAddresses: false })).toEqual({
      height: 1,
      hash: HASH,
      solo: true,
      timestampMs: 2,
    });
    expect(formatOf('block-found').data(payload, { includeAddresses: true })).toHaveProperty(
      'finderAddress',
      'fireX',
    );
  });

  it('block-found after a refusal: foundAfterRefusal in the webhook data, a Submit field in the chat message', () => {
    const plain = { height: 9, hash: HASH, finderAddress: 'fireX', solo: false, timestampMs: 3 };
    const payload = { ...plain, foundAfterRefusal: true as const };
    expect(formatOf('block-found').data(payload, { includeAddresses: false })).toEqual({
      ...formatOf('block-found').data(plain, { includeAddresses: false }),
      foundAfterRefusal: true,
    });
    expect(formatOf('block-found').data(plain, { includeAddresses: false })).not.toHaveProperty(
      'foundAfterRefusal',
    );
    const one = formatOf('block-found').chat(burst(payload), {});
    expect(one.headline).toBe('Block 9 found (pool round)');
    expect(one.fields.map((f) => f.name)).toEqual(['Height', 'Round', 'Submit', 'Hash']);
    expect(one.fields[2]!.value).toMatch(/refused by the daemon/);
    expect(
      formatOf('block-found')
        .chat(burst(plain), {})
        .fields.map((f) => f.name),
    ).toEqual(['Height', 'Round', 'Hash']);
  });

  it('block-refused: the reason in the headline, the likely cause and the hash as fields; whitelisted webhook data', () => {
    const refused = (height: number, reason: 'stale-tip' | 'pow-disagreement' | 'unknown', solo = false) => ({
      height,
      hash: HASH,
      finderAddress: 'fireX',
      solo,
      timestampMs: height,
      reason,
      likelyCause: likelyCauseOf(reason),
      ip: '1.2.3.4',
    });
    const format = formatOf('block-refused');
    expect(format.data(refused(123, 'pow-disagreement'), { includeAddresses: false })).toEqual({
      height: 123,
      hash: HASH,
      solo: false,
      timestampMs: 123,
      reason: 'pow-disagreement',
      likelyCause: likelyCauseOf('pow-disagreement'),
    });
    expect(format.data(refused(123, 'unknown'), { includeAddresses: true })).toMatchObject({
      finderAddress: 'fireX',
      reason: 'unknown',
    });

    const one = format.chat(burst(refused(123, 'pow-disagreement', true)), { explorer: EXPLORER });
    expect(one).toMatchObject({
      title: 'Block refused by the daemon',
      headline: 'Block 123 refused by the daemon (pow-disagreement)',
      tone: 'bad',
      timestampMs: 123,
    });
    expect(one.fields.map((f) => [f.name, f.value])).toEqual([
      ['Height', '123'],
      ['Round', 'solo'],
      ['Reason', 'pow-disagreement'],
      ['Likely cause', likelyCauseOf('pow-disagreement')],
      ['Hash', 'abababab…abababab'],
    ]);
    // Not linked to the explorer: the chain does not hold a refused block (one it holds after all
    // is announced again as block-found, linked).
    expect(one.fields.some((f) => f.url !== undefined)).toBe(false);
    expect(one.fields.some((f) => f.value.includes('fireX') || f.value.includes('1.2.3.4'))).toBe(false);

    // A burst: the reason in the headline when all share it; each reason's likely cause once.
    const same = format.chat(burst(refused(5, 'pow-disagreement'), refused(6, 'pow-disagreement')), {
      explorer: EXPLORER,
    });
    expect(same.fields.some((f) => f.url !== undefined)).toBe(false);
    expect(same.headline).toBe('2 blocks refused by the daemon (pow-disagreement): heights 5 and 6');
    expect(same.fields.map((f) => f.name)).toEqual([
      'Likely cause (pow-disagreement)',
      'Height 5 (pool, pow-disagreement)',
      'Height 6 (pool, pow-disagreement)',
    ]);
    const mixed = format.chat(
      { payloads: [refused(7, 'stale-tip'), refused(8, 'unknown'), refused(9, 'stale-tip')], omitted: 0 },
      {},
    );
    expect(mixed.title).toBe('3 blocks refused by the daemon');
    expect(mixed.headline).toBe('3 blocks refused by the daemon: heights 7, 8 and 9');
    expect(mixed.fields.map((f) => f.name)).toEqual([
      'Likely cause (stale-tip)',
      'Likely cause (unknown)',
      'Height 7 (pool, stale-tip)',
      'Height 8 (pool, unknown)',
      'Height 9 (pool, stale-tip)',
    ]);
    expect(mixed.fields[1]?.value).toBe(likelyCauseOf('unknown'));
  });
});
