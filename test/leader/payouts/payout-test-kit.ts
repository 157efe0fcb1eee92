import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { keyPairFromSeed } from '../../../src/devnet/wallet/ed25519-keys.js';
import { encodeAddress, encodeIntegratedAddress } from '../../../src/fuego/address.js';
import { bytesToHex } from '../../../src/fuego/hex.js';
import { findBatchIds } from '../../../src/pool/payouts/batch-tag.js';
import { WalletClient } from '../../../src/rpc/wallet-client.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { creditedBlock } from '../../store/payments/orphan-settlement-kit.js';
import { blockHash } from '../../store/store-fixtures.js';

/** A valid standard Fuego address derived from a label (distinct labels, distinct miners). */
export function minerAddress(label: string): string {
  const spend = keyPairFromSeed(new TextEncoder().encode(`miner/${label}/spend`));
  const view = keyPairFromSeed(new TextEncoder().encode(`miner/${label}/view`));
  return encodeAddress({ spendPublicKey: spend.publicKey, viewPublicKey: view.publicKey });
}

export function integratedMinerAddress(label: string, paymentId: string): string {
  const spend = keyPairFromSeed(new TextEncoder().encode(`miner/${label}/spend`));
  const view = keyPairFromSeed(new TextEncoder().encode(`miner/${label}/view`));
  return encodeIntegratedAddress({
    spendPublicKey: spend.publicKey,
    viewPublicKey: view.publicKey,
    paymentId,
  });
}

export function walletClientFor(devnet: Devnet, timeoutMs = 1_500): WalletClient {
  const url = new URL(devnet.walletUrl);
  return new WalletClient({ host: url.hostname, port: Number(url.port), timeoutMs, retries: 0 });
}

/**
 * Runs a payout pass again while the wallet's health check held it (`wallet-unhealthy`): on a
 * loaded machine the devnet wallet sometimes misses the client's timeout, and a held pass reaches
 * none of the runner's steps, which is not what the tests using this are about.
 */
export async function unlessWalletHeld<T extends { readonly skipped: string | null }>(
  run: () => Promise<T>,
): Promise<T> {
  let summary = await run();
  for (let tries = 0; summary.skipped === 'wallet-unhealthy' && tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    summary = await run();
  }
  return summary;
}

let fundedBlock = 0x5000;
/** Credits miners through the unlocker's own script (a confirmed fake block), as production does. */
export async function fundMiners(
  redis: Redis,
  keyPrefix: string,
  credits: ReadonlyArray<readonly [string, bigint]>,
): Promise<void> {
  fundedBlock += 1;
  await creditedBlock(redis, keyPrefix, { height: fundedBlock, hash: blockHash(fundedBlock), credits });
}

/** Every transaction on the devnet (main chain + mempool) whose extra carries `batchId`. */
export function devnetTransactionsWithBatch(devnet: Devnet, batchId: string): string[] {
  const hashes: string[] = [];
  const all = [...devnet.chain.mainChain().flatMap((block) => block.transactions), ...devnet.chain.mempool()];
  for (const tx of all) if (findBatchIds(bytesToHex(tx.tx.extra)).includes(batchId)) hashes.push(tx.hash);
  return hashes;
}

/** Atomic units the devnet chain (main chain + mempool) has paid to `address` in key outputs. */
export function devnetReceived(devnet: Devnet, address: string): bigint {
  let total = 0n;
  const all = [...devnet.chain.mainChain().flatMap((block) => block.transactions), ...devnet.chain.mempool()];
  for (const tx of all) {
    for (const output of tx.tx.outputs) {
      if (output.kind !== 'key') continue;
      if (devnet.chain.outputOwners.ownerOf(bytesToHex(output.key)) === address) total += output.amount;
    }
  }
  return total;
}

/** Each miner was paid on chain exactly what the ledger says it paid, and nothing is left behind. */
export async function expectPaidExactlyOnce(
  devnet: Devnet,
  redis: Redis,
  keyPrefix: string,
  expected: ReadonlyArray<readonly [string, bigint]>,
): Promise<void> {
  const balances = new RedisBalances({ keyPrefix }, { redis });
  for (const [address, credited] of expected) {
    const balance = await balances.getBalance(address);
    expect(balance.inPayout, `in payout of ${address}`).toBe(0n);
    expect(balance.balance + balance.paid + balance.networkFees, `money of ${address}`).toBe(credited);
    expect(devnetReceived(devnet, address), `on-chain receipts of ${address}`).toBe(balance.paid);
  }
}

const COIN = 10_000_000n;

/** Three miners credited 3, 2 and 1 coin + 1: above a 1-coin minimum, balances that split a fee unevenly. */
export async function fundThreeMiners(redis: Redis, keyPrefix: string, label: string) {
  const miners = [1, 2, 3].map((n) => minerAddress(`${label}-${n}`));
  const credits = [
    [miners[0]!, 3n * COIN],
    [miners[1]!, 2n * COIN],
    [miners[2]!, COIN + 1n],
  ] as const;
  await fundMiners(redis, keyPrefix, credits);
  return { keyPrefix, miners, credits };
}

/**
 * fundThreeMiners' miners after one batch charged them 100000 (33334 / 33333 / 33333) and the
 * wallet paid 80000: the 20000 surplus came back in proportion to the charges (6666.8 / 6666.6 /
 * 6666.6), the two odd units to the largest charge, then to the lower address of the tied two.
 * Checks each miner's balance, its latest history entry (the refund) and its latest payment record
 * (the charge less the refund).
 */
export async function expectSurplusOf100000Refunded(
  balances: RedisBalances,
  funded: Awaited<ReturnType<typeof fundThreeMiners>>,
): Promise<void> {
  const { miners, credits } = funded;
  const [tieFirst, tieSecond] = [miners[1]!, miners[2]!].sort();
  const refunds = new Map([
    [miners[0]!, 6_667n],
    [tieFirst!, 6_667n],
    [tieSecond!, 6_666n],
  ]);
  const charges = new Map([
    [miners[0]!, 33_334n],
    [miners[1]!, 33_333n],
    [miners[2]!, 33_333n],
  ]);
  for (const [address, credited] of credits) {
    const refund = refunds.get(address)!;
    const charged = charges.get(address)!;
    expect(await balances.getBalance(address), address).toMatchObject({
      balance: refund,
      inPayout: 0n,
      paid: credited - charged,
      networkFees: charged - refund,
    });
    const [latest] = await balances.getHistory(address);
    expect(latest).toMatchObject({
      reason: 'payout-fee-refund',
      amountAtomic: refund,
      balanceAfterAtomic: refund,
    });
    expect((await balances.getPayments(address))[0]).toMatchObject({
      amountAtomic: credited - charged,
      networkFeeAtomic: charged - refund,
    });
  }
}
