import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import {
  capturedWalletTransaction,
  sendToSecondAddress,
  startTestDevnet,
  walletTransaction,
} from './devnet-test-helpers.js';

interface DepositFields {
  readonly depositCount: number;
  readonly firstDepositId: number;
}

const captured = (name: string): DepositFields => capturedWalletTransaction<DepositFields>(name);

/**
 * walletd 1.9.3 leaves the deposit fields of a transaction it built unset: every plain send it made
 * (45, 53, 55, and the same records in 60, 61) says depositCount 1 and a firstDepositId that is
 * leftover memory (140411406529504), the same on every read; received transactions say 0 and -1.
 * A pool that took depositCount for "this transaction made a deposit" would misread its own
 * payouts; a devnet answering 0 / -1 would hide that.
 */
describe('devnet walletd: the deposit fields of a transaction the wallet built', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('the captured sends: depositCount 1 and a firstDepositId that is not -1, kept once mined', () => {
    const pooled = captured('53-getTransaction-delayed-fee1');
    const mined = captured('55-getTransaction-fee1-after-mined');
    expect(captured('45-getTransaction-sent-with-fee1').depositCount).toBe(1);
    expect(pooled.depositCount).toBe(1);
    expect(pooled.firstDepositId).toBeGreaterThan(0);
    expect(mined).toEqual({ ...mined, depositCount: 1, firstDepositId: pooled.firstDepositId });
  });

  test('a sendTransaction record says the same (stable across reads and mining); a coinbase record 0 and -1', async () => {
    const hash = await sendToSecondAddress(devnet);
    const record = () => walletTransaction<DepositFields>(devnet, hash);

    const pooled = await record();
    expect(pooled.depositCount).toBe(1);
    expect(Number.isSafeInteger(pooled.firstDepositId) && pooled.firstDepositId > 0).toBe(true);
    devnet.control.mineBlocks(1);
    expect(await record()).toMatchObject({ depositCount: 1, firstDepositId: pooled.firstDepositId });

    const coinbase = devnet.chain.tip.coinbaseHash;
    const coinbaseRecord = await walletTransaction<DepositFields>(devnet, coinbase);
    expect(coinbaseRecord).toMatchObject({ depositCount: 0, firstDepositId: -1 });
  });
});
