import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { jsonRpc, startTestDevnet, walletTransaction } from './devnet-test-helpers.js';

/**
 * A record walletd rebuilds from the chain after losing it (reset, older backup) is not the one it
 * built when it sent: WalletGreen::transactionUpdated inserts a blockchain transaction
 * (insertBlockchainTransaction: no deposit fields) and updateTransactionTransfers lists only the
 * wallet's own addresses (what each put in, negative; what each got back, positive) plus one
 * transfer with an empty address for every output it cannot name.
 */

/** A foreign address (the one fixture 73 paid). */
const FOREIGN =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';
const PAYMENT_ID = 'ab'.repeat(32);
const TO_FOREIGN = 10_000_000;
const TO_OWN = 5_000_000;

interface Transfer {
  readonly type: number;
  readonly address: string;
  readonly amount: number;
  readonly message: string;
}
interface Record {
  readonly amount: number;
  readonly fee: number;
  readonly extra: string;
  readonly paymentId: string;
  readonly depositCount: number;
  readonly firstDepositId: number;
  readonly state: number;
  readonly blockIndex: number;
  readonly transfers: Transfer[];
}

async function call<T>(devnet: Devnet, method: string, params: unknown = {}): Promise<T> {
  const reply = await jsonRpc(devnet.walletUrl, method, params);
  if (reply['error'] !== undefined) throw new Error(`${method}: ${JSON.stringify(reply['error'])}`);
  return reply['result'] as T;
}

/** Pays FOREIGN and the wallet's second address, change to its first, with a payment id. */
async function pay(devnet: Devnet): Promise<string> {
  const sent = await call<{ transactionHash: string }>(devnet, 'sendTransaction', {
    transfers: [
      { address: FOREIGN, amount: TO_FOREIGN },
      { address: devnet.wallet.addresses[1]!, amount: TO_OWN },
    ],
    changeAddress: devnet.walletAddress,
    paymentId: PAYMENT_ID,
    fee: 80000,
    anonymity: 2,
  });
  return sent.transactionHash;
}

/**
 * What walletd rebuilds from the record it built: per own address its inputs (negative) and what
 * came back to it (positive), all plain transfers, and the foreign outputs in one with no address.
 */
function rebuiltFrom(built: Record, own: readonly string[]): Transfer[] {
  const transfers: Transfer[] = [];
  const sum = (keep: (t: Transfer) => boolean) =>
    built.transfers.filter(keep).reduce((s, t) => s + t.amount, 0);
  for (const address of own) {
    const input = sum((t) => t.address === address && t.amount < 0);
    const output = sum((t) => t.address === address && t.amount > 0);
    if (input !== 0) transfers.push({ type: 0, address, amount: input, message: '' });
    if (output !== 0) transfers.push({ type: 0, address, amount: output, message: '' });
  }
  transfers.push({ type: 0, address: '', amount: TO_FOREIGN, message: '' });
  return transfers;
}

const byAddressAndAmount = (a: Transfer, b: Transfer) =>
  a.address.localeCompare(b.address) || a.amount - b.amount;

function expectRebuilt(record: Record, built: Record, own: readonly string[]): void {
  expect([...record.transfers].sort(byAddressAndAmount)).toEqual(
    rebuiltFrom(built, own).sort(byAddressAndAmount),
  );
  expect(record.transfers.some((t) => t.address === FOREIGN)).toBe(false);
  expect(record).toMatchObject({
    amount: built.amount,
    fee: built.fee,
    extra: built.extra,
    paymentId: PAYMENT_ID,
    depositCount: 0,
    firstDepositId: -1,
    state: 0,
  });
}

describe('devnet walletd: the record of a forgotten transaction comes back as walletd rebuilds it', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
  });
  afterEach(() => {
    devnet.control.releaseWalletScan();
  });
  afterAll(async () => {
    await devnet?.stop();
  });

  test('found again in its block: getTransaction and getTransactions show only own addresses and one transfer with no address', async () => {
    const hash = await pay(devnet);
    const built = await walletTransaction<Record>(devnet, hash);
    expect(built.transfers).toContainEqual({ type: 0, address: FOREIGN, amount: TO_FOREIGN, message: '' });
    const [block] = devnet.control.mineBlocks(1);
    devnet.control.forgetWalletTransaction(hash);
    devnet.control.finishWalletRescan();

    const record = await walletTransaction<Record>(devnet, hash);
    expectRebuilt(record, built, devnet.wallet.addresses);
    expect(record.blockIndex).toBe(block!.height);
    const listed = await call<{ items: { transactions: (Record & { transactionHash: string })[] }[] }>(
      devnet,
      'getTransactions',
      { firstBlockIndex: block!.height, blockCount: 1 },
    );
    const inBlock = listed.items.flatMap((item) => item.transactions).find((t) => t.transactionHash === hash);
    expect(inBlock?.transfers).toEqual(record.transfers);
    // The foreign destination is no longer a filter match; an own address still is.
    const byForeign = await call<{ items: { transactions: unknown[] }[] }>(devnet, 'getTransactions', {
      firstBlockIndex: block!.height,
      blockCount: 1,
      addresses: [FOREIGN],
    });
    expect(byForeign.items.flatMap((item) => item.transactions)).toEqual([]);
  });

  test('found again by the pool sync: the unconfirmed list filters it by the rebuilt transfers', async () => {
    const hash = await pay(devnet);
    const built = await walletTransaction<Record>(devnet, hash);
    devnet.control.holdWalletScan();
    devnet.control.forgetWalletTransaction(hash);
    devnet.control.releaseWalletScan();

    const record = await walletTransaction<Record>(devnet, hash);
    expectRebuilt(record, built, devnet.wallet.addresses);
    const unconfirmed = async (addresses?: string[]) =>
      (await call<{ transactionHashes: string[] }>(devnet, 'getUnconfirmedTransactionHashes', { addresses }))
        .transactionHashes;
    expect(await unconfirmed()).toContain(hash);
    expect(await unconfirmed([devnet.walletAddress])).toContain(hash);
    expect(await unconfirmed([FOREIGN])).not.toContain(hash);
  });
});
