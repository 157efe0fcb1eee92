import { adjustMinerBalance } from '../../src/app/balance-adjustment.js';
import { type OrphanSettleMode, settleOrphanedBlock } from '../../src/app/orphan-block-settlement.js';
import { settleWalletMissingBatch } from '../../src/app/wallet-missing-resolution.js';
import { RpcError } from '../../src/rpc/rpc-error.js';
import { PaymentStoreError } from '../../src/store/payments/payment-store-error.js';
import { SOAK_MIN_PAYOUT, type SoakPool, type SoakRandom } from './money-soak-world.js';

/**
 * A refusal the operator's command may give (it then changed nothing): its code, or the daemon's
 * while a step holds fuegod unreachable; anything else throws.
 */
async function refusalOf(pool: SoakPool, run: () => Promise<unknown>): Promise<string | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (error instanceof PaymentStoreError) return error.code;
    if (pool.daemonDownSteps > 0 && error instanceof RpcError && error.code === 'RPC_UNREACHABLE') {
      return error.code;
    }
    throw error;
  }
}

/**
 * `fuego-pool balance adjust`: a goodwill credit or a debit of at most the payable balance (a
 * debit above it is refused, as is one of an unknown account); the applied sum is kept for the
 * final check of the totals' adjustments.
 */
export async function operatorAdjust(pool: SoakPool, random: SoakRandom): Promise<string> {
  const miner = random.int(0, pool.miners.length - 1);
  const address = pool.miners[miner]!;
  const { balance } = await pool.balances.getBalance(address);
  const credit = random.next() < 0.5 || balance === 0n;
  const deltaAtomic = credit
    ? BigInt(random.int(1, 1_000)) * (SOAK_MIN_PAYOUT / 1_000n)
    : -((balance * BigInt(random.int(1, 100))) / 100n) || -1n;
  const refused = await refusalOf(pool, () =>
    adjustMinerBalance(
      pool.keyPrefix,
      { redis: pool.shared.redis, clock: () => pool.nowMs },
      { address, deltaAtomic, note: 'soak', dryRun: false, newAccount: false },
    ),
  );
  if (refused === null) {
    pool.adjustedAtomic += deltaAtomic;
    pool.operatorChanged(address, deltaAtomic);
  }
  return `adjust m${miner} ${deltaAtomic} -> ${refused ?? 'applied'}`;
}

/** `block settle` of `hash` in `mode`: null when applied, else the refusal's code. */
function settle(pool: SoakPool, hash: string, mode: OrphanSettleMode): Promise<string | null> {
  return refusalOf(pool, async () => {
    const settlement = await settleOrphanedBlock(
      pool.keyPrefix,
      { redis: pool.shared.redis, clock: () => pool.nowMs, daemon: pool.shared.daemon },
      { hash, mode, note: 'soak', dryRun: false },
    );
    // A clawback debits and a credit back credits through the totals' adjustments.
    pool.adjustedAtomic += settlement.changeAtomic;
    for (const line of settlement.lines) pool.operatorChanged(line.address, line.changeAtomic);
  });
}

/**
 * `fuego-pool block settle`: one of the pool's blocks, absorbed, clawed back or credited back.
 * Most are refused (not flagged, settled already, not restored): refusals change nothing, and the
 * invariants after the step check that too.
 */
export async function operatorSettle(pool: SoakPool, random: SoakRandom): Promise<string> {
  if (pool.poolBlocks.length === 0) return 'settle (no pool block)';
  // The flagged blocks first: a settlement of one is what this step is for.
  const flagged: string[] = [];
  for (const hash of pool.poolBlocks) {
    if ((await pool.ledger.getBlockCandidate(hash))?.orphanedAfterCredit) flagged.push(hash);
  }
  const hash = random.pick(flagged.length > 0 && random.next() < 0.8 ? flagged : pool.poolBlocks);
  const mode = random.pick<OrphanSettleMode>(['absorb', 'clawback', 'credit-back']);
  const refused = await settle(pool, hash, mode);
  const height = pool.devnet.chain.blockById(hash)?.height;
  return `settle ${mode} height=${height} -> ${refused ?? 'applied'}`;
}

/**
 * `fuego-pool payout resolve` of the sent batches the wallet has no record of: `paid` when the
 * devnet's chain has the transaction, `refund` when it does not (refused while it is in the
 * mempool, or younger than the refund delay, or not deep enough to be paid: those stay).
 */
export async function operatorResolveMissing(pool: SoakPool): Promise<string> {
  const missing = [...(await pool.store.walletMissingSince()).keys()];
  if (missing.length === 0) return 'resolve-missing (none)';
  const outcomes: string[] = [];
  for (const batchId of missing) {
    const batch = await pool.store.getBatch(batchId);
    const txHash = batch?.txHash;
    if (!txHash) continue;
    const mode = pool.devnet.chain.findTransaction(txHash)?.block ? 'paid' : 'refund';
    const refused = await refusalOf(pool, () =>
      settleWalletMissingBatch(
        pool.keyPrefix,
        { redis: pool.shared.redis, daemon: pool.shared.daemon, clock: () => pool.nowMs },
        { refundAfterMs: 3_600_000 },
        { txHash, mode, note: 'soak' },
      ),
    );
    outcomes.push(`${mode} ${refused ?? 'applied'}`);
  }
  return `resolve-missing ${outcomes.join(', ')}`;
}

/**
 * What the operator does in the drain: every block flagged orphaned after credit and not settled
 * yet is absorbed or clawed back (by its place in the list, so the seed decides).
 */
export async function operatorSettleFlagged(pool: SoakPool): Promise<string> {
  const outcomes: string[] = [];
  for (const [index, hash] of pool.poolBlocks.entries()) {
    if (!(await pool.ledger.getBlockCandidate(hash))?.orphanedAfterCredit) continue;
    const mode: OrphanSettleMode = index % 2 === 0 ? 'absorb' : 'clawback';
    const refused = await settle(pool, hash, mode);
    if (refused !== 'BLOCK_SETTLED') outcomes.push(`${mode} ${refused ?? 'applied'}`);
  }
  return `settle-flagged ${outcomes.join(', ') || '-'}`;
}
