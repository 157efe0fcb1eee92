import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { BlockCredit } from '../../../src/model/blocks/unlock-ledger.js';
import type { BatchTransfer } from '../../../src/model/payouts/payout-batch.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { blockHash, makeCandidate, silentLogger } from '../store-fixtures.js';

/** A block to credit: its height, its credits (address, amount), the fee address among them, its hash. */
export interface TestBlock {
  readonly height: number;
  readonly credits: ReadonlyArray<readonly [string, bigint]>;
  /** Its credit's reason is pool-fee (block-credit for the others). */
  readonly feeAddress?: string;
  readonly hash?: string;
}

/** A confirmed block whose credits are `block.credits`, the whole reward (no fee kept); its hash. */
export async function creditedBlock(redis: Redis, keyPrefix: string, block: TestBlock): Promise<string> {
  const { height, credits, feeAddress } = block;
  const hash = block.hash ?? blockHash(0xc0_0000 + height);
  const ledger = new RedisShareLedger(
    { ...DEFAULT_STORE_OPTIONS, keyPrefix },
    { redis, logger: silentLogger },
  );
  await ledger.writeBlockCandidate(makeCandidate({ hash, height }));
  const total = credits.reduce((sum, [, amount]) => sum + amount, 0n);
  const outcome = await new UnlockerStore({ keyPrefix }, { redis }).creditBlock({
    hash,
    height,
    rewardAtomic: total,
    poolFeeAtomic: 0n,
    poolFeeKeptAtomic: 0n,
    finderBonusAtomic: 0n,
    scheme: 'prop',
    depth: 60,
    credits: credits.map(
      ([address, amountAtomic]): BlockCredit => ({
        address,
        amountAtomic,
        reason: address === feeAddress ? 'pool-fee' : 'block-credit',
      }),
    ),
  });
  expect(outcome.applied).toBe(true);
  return hash;
}

/** A credited block the reorg watch flagged: another block holds its height now. */
export async function flaggedBlock(redis: Redis, keyPrefix: string, block: TestBlock): Promise<string> {
  const { height } = block;
  const hash = await creditedBlock(redis, keyPrefix, block);
  const { applied } = await new UnlockerStore({ keyPrefix }, { redis }).flagOrphanedAfterCredit({
    hash,
    height,
    observedHash: blockHash(0xbad_0000 + height),
    reason: 'test reorg',
  });
  expect(applied).toBe(true);
  return hash;
}

/** `address` is paid `amountAtomic` of its balance (a sent batch, as a payout pass leaves it). */
export async function paidOut(
  redis: Redis,
  keyPrefix: string,
  address: string,
  amountAtomic: bigint,
): Promise<void> {
  const payouts = new PayoutStore({ keyPrefix }, { redis });
  const writer = { fencingToken: '', lockToken: `seed-${address.slice(-6)}` };
  expect(await payouts.acquireLock(writer.lockToken, 60_000)).toBe(true);
  const id = `${amountAtomic.toString(16)}${address.length}`.padStart(32, 'e');
  await payouts.prepareBatch(writer, {
    id,
    transfers: [
      { address, destination: address, amountAtomic, feeShareAtomic: 0n, debitAtomic: amountAtomic },
    ],
    paymentId: '',
    networkFeeAtomic: 0n,
    feePaidBy: 'pool',
    walletBlockCount: 100,
  });
  await payouts.markSending(writer, id);
  const batch = (await payouts.getBatch(id))!;
  await payouts.markSent(writer, batch, {
    txHash: id.padStart(64, 'd'),
    actualFeeAtomic: 0n,
    resolution: 'test',
  });
  await payouts.releaseLock(writer.lockToken);
}

/** A batch transfer of `amount` to `address` (its own destination) that charges it `fee` too. */
export function batchTransfer(address: string, amount: bigint, fee = 0n): BatchTransfer {
  return {
    address,
    destination: address,
    amountAtomic: amount,
    feeShareAtomic: fee,
    debitAtomic: amount + fee,
  };
}
