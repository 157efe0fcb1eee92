import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { jsonRpc, startTestDevnet } from '../devnet-test-helpers.js';

/**
 * estimateFusion / sendFusionTransaction on the devnet, by walletd 1.9.3's rules (WalletGreen):
 * 12+ unlocked outputs of one power of ten below the threshold are joined into the digits of their
 * sum, with no fee and no decoys, in a real transaction that is mined like any other.
 */

/** A foreign address: blocks mined to it add nothing to the wallet. */
const FOREIGN =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';
const XFG = 10_000_000;

type Estimate = { fusionReadyCount: number; totalOutputCount: number };
type Transfer = { address: string; amount: number; type: number };

const call = async (devnet: Devnet, method: string, params: unknown) =>
  jsonRpc(devnet.walletUrl, method, params, 1);
const estimate = async (devnet: Devnet, threshold: number) =>
  (await call(devnet, 'estimateFusion', { threshold }))['result'] as Estimate;
const totalBalance = async (devnet: Devnet) => {
  const b = (await call(devnet, 'getBalance', {}))['result'] as {
    availableBalance: number;
    lockedAmount: number;
  };
  return b.availableBalance + b.lockedAmount;
};
const fuse = async (devnet: Devnet, params: Record<string, unknown>) =>
  call(devnet, 'sendFusionTransaction', { anonymity: 2, ...params });
const errorCode = (reply: Record<string, unknown>) =>
  (reply['error'] as { data?: { application_code: number }; code: number } | undefined)?.data
    ?.application_code ?? (reply['error'] as { code: number } | undefined)?.code;

/**
 * The oracle for estimateFusion: the wallet's coinbase outputs that are unlocked (their unlock
 * height reached and 10 deep), and among them the one-digit amounts in [20000, threshold) of every
 * power of ten that has at least 12.
 */
function expectedEstimate(devnet: Devnet, threshold: bigint): Estimate {
  const mine = new Set(devnet.wallet.addresses);
  const blockCount = devnet.chain.height;
  const unlocked: bigint[] = [];
  for (const block of devnet.chain.mainChain()) {
    const coinbase = block.block.baseTransaction;
    if (coinbase.unlockTime > BigInt(blockCount) || blockCount - block.height < 10) continue;
    for (const output of coinbase.outputs) {
      if (output.kind !== 'key') continue;
      const owner = devnet.chain.outputOwners.ownerOf(Buffer.from(output.key).toString('hex'));
      if (owner !== undefined && mine.has(owner)) unlocked.push(output.amount);
    }
  }
  const perPower = new Map<number, number>();
  for (const amount of unlocked) {
    const digits = amount.toString();
    if (amount < 20_000n || amount >= threshold || !/^[1-9]0*$/.test(digits)) continue;
    perPower.set(digits.length, (perPower.get(digits.length) ?? 0) + 1);
  }
  const ready = [...perPower.values()].filter((n) => n >= 12).reduce((s, n) => s + n, 0);
  return { fusionReadyCount: ready, totalOutputCount: unlocked.length };
}

describe('fusion on a one-address wallet of 61 unlocked coinbases', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet();
    // The wallet mined blocks 1-61 at start; 60 more (elsewhere) unlock all of them.
    devnet.control.mineBlocks(60, FOREIGN);
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('estimateFusion counts the ready outputs of powers of ten with 12 or more, and all unlocked ones', async () => {
    for (const threshold of [20_001, 100_000, 1_000_000, 100 * XFG, 100_000 * XFG]) {
      expect(await estimate(devnet, threshold), `threshold ${threshold}`).toEqual(
        expectedEstimate(devnet, BigInt(threshold)),
      );
    }
    const { fusionReadyCount, totalOutputCount } = await estimate(devnet, 100 * XFG);
    expect(fusionReadyCount).toBeGreaterThanOrEqual(4 * 50);
    expect(totalOutputCount).toBeGreaterThan(fusionReadyCount);
  });

  test('refusals: threshold at the dust limit, nothing to optimize, bad or foreign addresses, missing fields', async () => {
    expect(errorCode(await fuse(devnet, { threshold: 20_000 }))).toBe(10);
    expect((await fuse(devnet, { threshold: 20_001 }))['error']).toEqual({
      code: -32000,
      data: { application_code: 7 },
      message: 'There are no inputs to optimize',
    });
    expect(errorCode(await fuse(devnet, { threshold: 100 * XFG, addresses: ['fireX'] }))).toBe(11);
    expect(errorCode(await fuse(devnet, { threshold: 100 * XFG, addresses: [FOREIGN] }))).toBe(11);
    expect(errorCode(await fuse(devnet, { threshold: 100 * XFG, destinationAddress: FOREIGN }))).toBe(40);
    expect(errorCode(await call(devnet, 'sendFusionTransaction', { threshold: 100 * XFG }))).toBe(-32600);
    expect(errorCode(await call(devnet, 'estimateFusion', {}))).toBe(-32600);
    expect(devnet.chain.mempool()).toHaveLength(0);
  });

  test('a fusion joins the smallest ready power of ten into few outputs, pays no fee and keeps the balance', async () => {
    const before = await estimate(devnet, 100 * XFG);
    const balance = await totalBalance(devnet);
    const reply = await fuse(devnet, { threshold: 100 * XFG });
    const { transactionHash } = reply['result'] as { transactionHash: string };

    const [pooled] = devnet.chain.mempool();
    expect(pooled?.hash).toBe(transactionHash);
    expect(pooled?.feeAtomic).toBe(0n);
    const inputs = pooled!.tx.inputs;
    const outputs = pooled!.tx.outputs;
    expect(inputs.length).toBeGreaterThanOrEqual(12);
    // One power of ten (the smallest with 12 ready: the 10^4 outputs), no decoys in its rings.
    expect(new Set(inputs.map((i) => (i.kind === 'key' ? i.amount.toString().length : 0)))).toEqual(
      new Set([5]),
    );
    expect(inputs.every((i) => i.kind === 'key' && i.outputIndexes.length === 1)).toBe(true);
    expect(outputs.length).toBeLessThanOrEqual(8);
    expect(outputs.length * 4).toBeLessThanOrEqual(inputs.length);
    expect(await totalBalance(devnet)).toBe(balance);

    const record = (
      (await call(devnet, 'getTransaction', { transactionHash }))['result'] as {
        transaction: { amount: number; fee: number; state: number; isBase: boolean; transfers: Transfer[] };
      }
    ).transaction;
    const sum = inputs.reduce((s, i) => s + (i.kind === 'key' ? Number(i.amount) : 0), 0);
    expect(record).toMatchObject({ amount: 0, fee: 0, state: 0, isBase: false });
    expect(record.transfers).toEqual([
      { address: devnet.walletAddress, amount: -sum, message: '', type: 0 },
      { address: devnet.walletAddress, amount: sum, message: '', type: 0 },
    ]);

    devnet.control.mineBlocks(10, FOREIGN);
    expect(devnet.chain.mempool()).toHaveLength(0);
    expect(await totalBalance(devnet)).toBe(balance);
    const after = await estimate(devnet, 100 * XFG);
    expect(after.totalOutputCount).toBe(before.totalOutputCount - inputs.length + outputs.length);
    expect(after.fusionReadyCount).toBeLessThan(before.fusionReadyCount);
    const mined = (
      (await call(devnet, 'getTransaction', { transactionHash }))['result'] as {
        transaction: { blockIndex: number };
      }
    ).transaction;
    expect(mined.blockIndex).toBe(devnet.chain.height - 10);
  });
});

test('with several addresses a fusion needs destinationAddress (39), which must be the wallet’s', async () => {
  const devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
  try {
    devnet.control.mineBlocks(60, FOREIGN);
    expect(errorCode(await fuse(devnet, { threshold: 100 * XFG }))).toBe(39);
    expect(errorCode(await fuse(devnet, { threshold: 100 * XFG, addresses: devnet.wallet.addresses }))).toBe(
      39,
    );
    const [a, b] = devnet.wallet.addresses;
    const reply = await fuse(devnet, { threshold: 100 * XFG, addresses: [a], destinationAddress: b });
    expect(reply['result']).toBeDefined();
    // The sum goes to B: B's locked balance holds it until it is 10 deep.
    const balanceB = (await call(devnet, 'getBalance', { address: b }))['result'] as { lockedAmount: number };
    expect(balanceB.lockedAmount).toBeGreaterThan(0);
  } finally {
    await devnet.stop();
  }
});

test('while the chain has no decoys for its change, sends are refused but a fusion needs none', async () => {
  const devnet = await startTestDevnet({ wallet: { requireDecoys: true } });
  try {
    // 14 outputs of 90000 to the wallet itself: a delayed transaction asking for no decoys is
    // built without any (walletd's mixIn 0), then sent.
    const created = await call(devnet, 'createDelayedTransaction', {
      transfers: Array.from({ length: 14 }, () => ({ address: devnet.walletAddress, amount: 90_000 })),
      fee: 80000,
      anonymity: 0,
    });
    const delayedHash = (created['result'] as { transactionHash: string }).transactionHash;
    expect(
      (await call(devnet, 'sendDelayedTransaction', { transactionHash: delayedHash }))['result'],
    ).toEqual({});
    devnet.control.mineBlocks(10, FOREIGN);

    // Its change (digits no coinbase has) is the newest output of some sizes: no decoys for those.
    const send = await call(devnet, 'sendTransaction', {
      transfers: [{ address: FOREIGN, amount: XFG }],
      fee: 80000,
      anonymity: 2,
    });
    expect(errorCode(send)).toBe(6);
    const { fusionReadyCount } = await estimate(devnet, 100_000);
    expect(fusionReadyCount).toBeGreaterThanOrEqual(14);
    const fusion = await fuse(devnet, { threshold: 100_000 });
    expect(fusion['result']).toBeDefined();
    expect(devnet.chain.mempool()[0]!.tx.inputs).toHaveLength(fusionReadyCount);
  } finally {
    await devnet.stop();
  }
});

test('a payout too big for one transaction (13) goes through after fusions and their confirmation', async () => {
  // No premine: a pool wallet holding only its own coinbase outputs, four above the dust limit per block.
  const devnet = await startTestDevnet({
    wallet: { prefundCoins: 0 },
    daemon: { coinbaseMaturityBlocks: 10 },
  });
  try {
    devnet.control.mineBlocks(900);
    devnet.control.mineBlocks(10, FOREIGN);
    const available = ((await call(devnet, 'getBalance', {}))['result'] as { availableBalance: number })
      .availableBalance;
    const payout = {
      transfers: [{ address: FOREIGN, amount: available - 100 * XFG }],
      fee: 80000,
      anonymity: 2,
    };
    const tooBig = await call(devnet, 'sendTransaction', payout);
    expect((tooBig['error'] as Record<string, unknown>)['data']).toEqual({ application_code: 13 });
    expect(devnet.chain.mempool()).toHaveLength(0);

    // Fusion upkeep: fuse until nothing is left to optimize (each fusion takes one power of ten).
    let fusions = 0;
    for (;;) {
      const reply = await fuse(devnet, { threshold: 1_000 * XFG });
      if (reply['error']) {
        expect(errorCode(reply)).toBe(7);
        break;
      }
      fusions += 1;
    }
    expect(fusions).toBeGreaterThanOrEqual(4);
    // The fused outputs are new: spendable once 10 deep.
    expect(errorCode(await call(devnet, 'sendTransaction', payout))).toBe(14);
    devnet.control.mineBlocks(10, FOREIGN);
    const paid = await call(devnet, 'sendTransaction', payout);
    expect(paid['result']).toBeDefined();
    expect(devnet.chain.mempool()[0]!.tx.inputs.length).toBeLessThan(100);
  } finally {
    await devnet.stop();
  }
}, 120_000);
