import { resolveUnknownPayment } from '../../src/app/unknown-payment-resolution.js';
import { bytesToHex } from '../../src/fuego/hex.js';
import type { UnknownPayment } from '../../src/model/payouts/payout-watch.js';
import type { PayoutRunSummary } from '../../src/pool/payouts/payout-reports.js';
import { PaymentStoreError } from '../../src/store/payments/payment-store-error.js';
import { PayoutWatchStore } from '../../src/store/payments/payout-watch-store.js';
import { restorePool, snapshotPool } from '../helpers/lost-writes.js';
import { devnetTransactionsWithBatch } from '../leader/payouts/payout-test-kit.js';
import { CrashingRedis, SoakCrash } from './money-soak-crash.js';
import { SOAK_MAX_REORG_DEPTH, type SoakPool, type SoakRandom, type StepKind } from './money-soak-world.js';

/**
 * Redis losing a batch the wallet did send, and walletd losing its record of it too: the unknown
 * payment the pool then holds its miners for, and the operator's resolution of it (README, "Money:
 * what is guaranteed").
 */

/** How deep a transaction is before the operator calls it paid: no soak reorg can take it then. */
const PAID_DEPTH = SOAK_MAX_REORG_DEPTH + 2;

/**
 * Armed for the next payout pass that sends a batch: Redis loses every write of that pass once the
 * wallet has sent its first batch (a failover to a late replica), and the leader dies there. Half
 * the time walletd then loses its record of that transaction too (a reset), so that it rebuilds it
 * from the chain naming no recipients.
 */
async function armLostBatch(pool: SoakPool, random: SoakRandom): Promise<string> {
  if (pool.armedLoss !== null) return 'lost-batch (armed already)';
  pool.armedLoss = { forget: random.next() < 0.5 };
  return `lost-batch armed for the next send${pool.armedLoss.forget ? ', the wallet to forget it too' : ''}`;
}

/**
 * The pass `lost-batch` armed (payoutPass runs it): it ends as any pass when it sends nothing (still
 * armed then); else the batch goes into `pool.lostBatches`, for the checks, and the wallet forgets
 * its transaction if armed so.
 */
export async function lostBatchPass(
  pool: SoakPool,
  describe: (summary: PayoutRunSummary) => string,
): Promise<string> {
  const redis = pool.shared.redis;
  const before = await snapshotPool(redis, pool.keyPrefix);
  const logged = pool.logs.records.length;
  let lost = '';
  // The dead leader writes nothing after its crash (a pass's cleanup included).
  const crashing = new CrashingRedis(redis);
  const faults = {
    async reached(step: string, batchId: string) {
      if (step !== 'wallet-called') return;
      lost = batchId;
      crashing.crash();
      await restorePool(redis, pool.keyPrefix, before);
      throw new SoakCrash(`after the wallet call of ${batchId.slice(0, 12)}`);
    },
  };
  try {
    return describe(await pool.runner({ redis: crashing.connection, faults }).runOnce());
  } catch (error) {
    if (lost === '') throw error;
  }
  const forget = pool.armedLoss?.forget === true;
  pool.armedLoss = null;
  // The payout lock the dead leader held expires before the next pass.
  await redis.del(pool.store.keys.payoutLock);
  // Every batch the pass sent is lost (one found sent in the wallet by its recovery included).
  const lines: string[] = [];
  for (const batchId of sentSince(pool, logged)) {
    const [txHash] = devnetTransactionsWithBatch(pool.devnet, batchId);
    if (txHash === undefined) continue;
    pool.lostBatches.set(batchId, txHash);
    if (forget) {
      pool.devnet.control.forgetWalletTransaction(txHash);
      pool.forgotten.add(txHash);
    }
    lines.push(`${batchId.slice(0, 12)} tx ${txHash.slice(0, 12)}`);
  }
  const what = lines.length > 0 ? lines.join(', ') : `${lost.slice(0, 12)}, the wallet sent nothing`;
  return `redis lost batch ${what}${forget && lines.length > 0 ? ', the wallet forgot it' : ''}`;
}

/** The batches the leader's log says it began sending since record `from`. */
function sentSince(pool: SoakPool, from: number): string[] {
  return pool.logs.records
    .slice(from)
    .filter((r) => r['msg'] === 'payout batch sending')
    .map((r) => String(r['batchId']));
}

export const UNKNOWN_STEP_KINDS: readonly StepKind[] = [
  { name: 'lost-batch', weight: 0.5, run: armLostBatch },
  { name: 'resolve-unknown', weight: 1, run: (pool) => operatorResolveUnknown(pool, false) },
];

/** Where the devnet has `txHash`: blocks deep on the main chain, in the mempool, or nowhere. */
function whereIs(pool: SoakPool, txHash: string): { depth: number } | 'mempool' | 'nowhere' {
  const chain = pool.devnet.chain;
  const found = chain.findTransaction(txHash);
  if (found === undefined) return 'nowhere';
  return found.block ? { depth: chain.height - found.block.height } : 'mempool';
}

/**
 * The operator's list of whom `payment` paid, as README tells: the pool's info line `payout batch
 * sending` of its batch id, one `ADDRESS AMOUNT_ATOMIC` a line (the text `--recipients FILE` holds).
 */
export function recipientsFromLog(pool: SoakPool, batchId: string): string | null {
  const line = pool.logs.records.find((r) => r['msg'] === 'payout batch sending' && r['batchId'] === batchId);
  if (line === undefined) return null;
  const transfers = line['transfers'] as ReadonlyArray<{ address: string; amountAtomic: string }>;
  return `# batch ${batchId}, from the pool's log\n${transfers.map((t) => `${t.address} ${t.amountAtomic}`).join('\n')}\n`;
}

/**
 * How a careful operator resolves one unknown payment: `paid` once its transaction is deep on the
 * chain (with the recipients from the pool's log when the wallet's record names none), `dismiss`
 * when fuegod has it nowhere (dropped: nobody was paid) at the end of a seed; otherwise it waits.
 */
async function resolveOne(pool: SoakPool, payment: UnknownPayment, drained: boolean): Promise<string> {
  const where = whereIs(pool, payment.txHash);
  const what = `${payment.txHash.slice(0, 12)}${payment.unnamedAtomic > 0n ? ' unnamed' : ' named'}`;
  let mode: 'paid' | 'dismiss';
  if (typeof where === 'object' && where.depth >= PAID_DEPTH) mode = 'paid';
  else if (where === 'nowhere' && drained) mode = 'dismiss';
  else return `${what} waits (${typeof where === 'object' ? `${where.depth} deep` : where})`;
  let recipients: string | undefined;
  if (mode === 'paid' && payment.unnamedAtomic > 0n) {
    const list = recipientsFromLog(pool, payment.batchId);
    if (list === null) throw new Error(`no 'payout batch sending' log line of batch ${payment.batchId}`);
    recipients = list;
  }
  try {
    await resolveUnknownPayment(pool.keyPrefix, pool.shared.redis, {
      txHash: payment.txHash,
      mode,
      note: 'soak',
      ...(recipients === undefined ? {} : { recipients }),
    });
  } catch (error) {
    // A pass holds the payout lock only while it runs: never between two soak steps.
    if (error instanceof PaymentStoreError) return `${what} ${mode} -> ${error.code}`;
    throw error;
  }
  return `${what} ${mode}${recipients === undefined ? '' : ' --recipients'} -> applied`;
}

/**
 * `fuego-pool payout resolve TX --paid [--recipients FILE] | --dismiss` of every unresolved unknown
 * payment (resolveOne); `drained`: the end of a seed, when a dropped transaction is dismissed.
 */
export async function operatorResolveUnknown(pool: SoakPool, drained: boolean): Promise<string> {
  const watch = new PayoutWatchStore({ keyPrefix: pool.keyPrefix }, { redis: pool.shared.redis });
  const unresolved = (await watch.listUnknownPayments()).filter((p) => p.status === 'unresolved');
  if (unresolved.length === 0) return 'resolve-unknown (none)';
  const outcomes: string[] = [];
  for (const payment of unresolved) outcomes.push(await resolveOne(pool, payment, drained));
  return `resolve-unknown ${outcomes.join(', ')}`;
}

/**
 * The transactions of batches Redis lost whose unknown payment is not resolved yet (or not found
 * yet): what their miners received there cannot be in their `paid` before the operator's `--paid`.
 * Once resolved either way a transaction counts again, so a `--dismiss` of one that did pay shows.
 */
export async function unaccountedLostTransactions(pool: SoakPool): Promise<Set<string>> {
  if (pool.lostBatches.size === 0) return new Set();
  const watch = new PayoutWatchStore({ keyPrefix: pool.keyPrefix }, { redis: pool.shared.redis });
  const resolved = new Set(
    (await watch.listUnknownPayments()).filter((p) => p.status !== 'unresolved').map((p) => p.batchId),
  );
  const hashes = new Set<string>();
  for (const [batchId, txHash] of pool.lostBatches) if (!resolved.has(batchId)) hashes.add(txHash);
  return hashes;
}

/** Atomic units the devnet chain (main chain + mempool) paid `address`, but in `except`'s transactions. */
export function receivedExcept(pool: SoakPool, address: string, except: ReadonlySet<string>): bigint {
  const chain = pool.devnet.chain;
  let total = 0n;
  for (const tx of [...chain.mainChain().flatMap((block) => block.transactions), ...chain.mempool()]) {
    if (except.has(tx.hash)) continue;
    for (const output of tx.tx.outputs) {
      if (output.kind === 'key' && chain.outputOwners.ownerOf(bytesToHex(output.key)) === address) {
        total += output.amount;
      }
    }
  }
  return total;
}
