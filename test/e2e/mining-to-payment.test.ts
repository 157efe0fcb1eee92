import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoStack, startDemoStack } from '../../src/app/demo-stack.js';
import { createLogger } from '../../src/log/logger.js';
import { ensureXmrig } from '../../src/tools/xmrig.js';
import { until } from '../helpers/until.js';
import { E2E_STACK_OPTIONS } from './e2e-stack-options.js';
import { XmrigRun } from './xmrig-runner.js';

/**
 * The whole money path with a real miner: XMRig finds blocks, the devnet buries one under the
 * unlock depth, the leader's unlocker credits the miner, the payout runner pays through the
 * devnet's walletd, and the API and the wallet agree on what was paid.
 */
let stack: DemoStack;
let xmrigPath: string;

interface MinerView {
  balance: {
    pendingAtomic: string | null;
    unlockedAtomic: string;
    inPayoutAtomic: string;
    paidAtomic: string;
  } | null;
  payments: Array<{ amountAtomic: string; transactionHash: string }>;
}

async function getJson<T>(path: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${stack.apiUrl}${path}`);
  return { status: response.status, body: (await response.json()) as T };
}

beforeAll(async () => {
  xmrigPath = await ensureXmrig();
  stack = await startDemoStack(
    {
      ...E2E_STACK_OPTIONS,
      poolOverrides: {
        payments: {
          confirmDepth: 10,
          unlockIntervalSec: 1,
          poolFeePercent: 1,
          // Fusions would hold the payout for 11 blocks that nobody mines once XMRig stops.
          payouts: { intervalSec: 10, minPayoutCoins: '0.01', walletUpkeep: { enabled: false } },
        },
      },
    },
    createLogger({ level: 'warn' }),
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('from a share to a payment', () => {
  it('a block found by XMRig unlocks and the miner is paid exactly what was credited', async () => {
    const miner = await XmrigRun.start({ xmrigPath, port: stack.stratumPort, login: stack.minerAddress });
    try {
      await until(
        async () => {
          const blocks = await getJson<{ blocks: Array<{ status: string }> }>('/api/blocks');
          return blocks.body.blocks.length > 0 ? true : undefined;
        },
        120_000,
        'a block found by the pool',
      );
    } finally {
      await miner.stop();
    }
    // Before confirmation the miner sees the block's expected credit as pending.
    await until(
      async () => {
        const view = await getJson<MinerView>(`/api/miners/${stack.minerAddress}`);
        const pending = view.body.balance?.pendingAtomic;
        return pending !== undefined && pending !== null && BigInt(pending) > 0n ? true : undefined;
      },
      60_000,
      'a pending balance for the unconfirmed block',
    ).catch(async (error: unknown) => {
      // Once seen under a loaded full run and not reproduced since: say what the pool recorded.
      const blocks = (await getJson('/api/blocks')).body;
      const view = (await getJson(`/api/miners/${stack.minerAddress}`)).body;
      throw new Error(`${String(error)}; blocks ${JSON.stringify(blocks)}; miner ${JSON.stringify(view)}`);
    });
    // Bury the pool's blocks under the unlock depth (the devnet mines without proof of work).
    stack.devnet.control.mineBlocks(11);

    const credited = await until(
      async () => {
        const view = await getJson<MinerView>(`/api/miners/${stack.minerAddress}`);
        const balance = view.body.balance;
        if (!balance) return undefined;
        const total =
          BigInt(balance.unlockedAtomic) + BigInt(balance.inPayoutAtomic) + BigInt(balance.paidAtomic);
        return total > 0n ? total : undefined;
      },
      60_000,
      'the unlocker to credit the miner',
    );

    const paid = await until(
      async () => {
        const view = await getJson<MinerView>(`/api/miners/${stack.minerAddress}`);
        const balance = view.body.balance;
        return balance && BigInt(balance.paidAtomic) > 0n ? view.body : undefined;
      },
      60_000,
      'a payout to the miner',
    );
    expect(paid.payments.length).toBeGreaterThan(0);
    const paidAtomic = BigInt(paid.balance?.paidAtomic ?? '0');
    const left = BigInt(paid.balance?.unlockedAtomic ?? '0') + BigInt(paid.balance?.inPayoutAtomic ?? '0');
    expect(paidAtomic + left).toBe(credited);

    // The wallet's own record agrees: the miner's address received what the ledger says was paid.
    const txHash = paid.payments[0]!.transactionHash;
    const record = stack.devnet.wallet.getTransaction({ transactionHash: txHash }) as {
      transaction: { transfers: Array<{ address: string; amount: number }> };
    };
    const toMiner = record.transaction.transfers
      .filter((t) => t.address === stack.minerAddress && t.amount > 0)
      .reduce((sum, t) => sum + BigInt(t.amount), 0n);
    expect(toMiner).toBe(BigInt(paid.payments[0]!.amountAtomic));
  }, 300_000);
});
