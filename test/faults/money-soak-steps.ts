import type { ChainBlock } from '../../src/devnet/chain/chain-state.js';
import { bytesToHex } from '../../src/fuego/hex.js';
import { findBatchIds } from '../../src/pool/payouts/batch-tag.js';
import type { PayoutRunSummary } from '../../src/pool/payouts/payout-reports.js';
import { endDaemonOutage, FAULT_STEP_KINDS, payoutPass } from './money-soak-fault-steps.js';
import { operatorAdjust, operatorResolveMissing, operatorSettle } from './money-soak-operator-steps.js';
import { UNKNOWN_STEP_KINDS } from './money-soak-unknown-steps.js';
import {
  networkMinerAddress,
  SOAK_MAX_REORG_DEPTH,
  type SoakPool,
  type SoakRandom,
  type StepKind,
} from './money-soak-world.js';

const NETWORK = networkMinerAddress();

/** A short form of a summary for the step list: what the pass did. */
function passLine(summary: PayoutRunSummary): string {
  const states = (list: PayoutRunSummary['batches']) => list.map((b) => b.state).join(',');
  const parts = [`skipped=${summary.skipped ?? '-'}`];
  if (summary.recovered.length > 0) parts.push(`recovered=[${states(summary.recovered)}]`);
  if (summary.batches.length > 0) parts.push(`batches=[${states(summary.batches)}]`);
  if (summary.stillOpen.length > 0) parts.push(`open=${summary.stillOpen.length}`);
  if (summary.unknownPayments.length > 0) parts.push(`unknown=${summary.unknownPayments.length}`);
  return parts.join(' ');
}

/** Hashes of the mempool's transactions tagged with a batch of any pool. */
export function taggedMempoolTransactions(pool: SoakPool): string[] {
  return pool.devnet.chain
    .mempool()
    .filter((tx) => findBatchIds(bytesToHex(tx.tx.extra)).length > 0)
    .map((tx) => tx.hash);
}

/** Hashes of the main chain's and the mempool's transactions tagged with a batch of any pool. */
export function taggedTransactions(pool: SoakPool): string[] {
  const chain = pool.devnet.chain;
  return [...chain.mainChain().flatMap((block) => block.transactions), ...chain.mempool()]
    .filter((tx) => findBatchIds(bytesToHex(tx.tx.extra)).length > 0)
    .map((tx) => tx.hash);
}

/**
 * The rest of the network replaces the main chain's last `depth` blocks with a branch one block
 * longer, forked from the block below them (never below where the seed began).
 */
export function reorg(pool: SoakPool, depth: number): string {
  const tip = pool.devnet.chain.height - 1;
  const forkHeight = Math.max(pool.startHeight - 1, tip - depth);
  const parent = pool.devnet.chain.blockAt(forkHeight)!;
  const replaced = tip - forkHeight;
  if (replaced === 0) return 'reorg (no block of this seed to replace)';
  const { orphaned } = pool.devnet.control.mineOnBlock(parent.id, replaced + 1, NETWORK);
  const ours = orphaned.filter((block) => pool.poolBlocks.includes(block.id)).length;
  return `reorg depth=${replaced} orphaned=${orphaned.length} poolBlocks=${ours}`;
}

/** The height of the main-chain block an alternative block's branch forks from. */
function forkHeightOf(pool: SoakPool, block: ChainBlock): number {
  const chain = pool.devnet.chain;
  let at: ChainBlock | undefined = block;
  while (at !== undefined && chain.blockAt(at.height)?.id !== at.id) {
    at = chain.blockById(bytesToHex(at.block.prevId));
  }
  return at?.height ?? -1;
}

/** A step done to one of the tagged transactions `among` lists, picked by the PRNG. */
function taggedTransactionStep(
  name: string,
  among: (pool: SoakPool) => string[],
  act: (pool: SoakPool, hash: string) => void,
): StepKind {
  return {
    name,
    weight: 1,
    async run(pool, random) {
      const hashes = among(pool);
      if (hashes.length === 0) return `${name} (no tagged transaction)`;
      const hash = random.pick(hashes);
      act(pool, hash);
      return `${name} ${hash.slice(0, 12)}`;
    },
  };
}

export const STEP_KINDS: readonly StepKind[] = [
  {
    name: 'shares',
    weight: 3,
    async run(pool, random) {
      const count = random.int(1, 4);
      const recorded: string[] = [];
      for (let i = 0; i < count; i++) {
        const miner = random.int(0, pool.miners.length - 1);
        const difficulty = random.int(50, 1_500);
        const solo = random.int(1, 6) === 1;
        await pool.recordShare(pool.miners[miner]!, difficulty, solo);
        recorded.push(`${solo ? 'solo:' : ''}m${miner}:${difficulty}`);
      }
      return `shares ${recorded.join(' ')}`;
    },
  },
  {
    name: 'pool-block',
    weight: 2,
    async run(pool, random) {
      const finder = random.int(0, pool.miners.length - 1);
      const solo = random.int(1, 5) === 1;
      const block = await pool.findBlock(pool.miners[finder]!, random.int(50, 500), solo);
      return `${solo ? 'solo-block' : 'pool-block'} m${finder} height=${block.height}`;
    },
  },
  {
    name: 'network',
    weight: 3,
    async run(pool, random) {
      const count = random.int(1, 3);
      pool.devnet.control.mineBlocks(count, NETWORK);
      return `network +${count}`;
    },
  },
  {
    name: 'reorg',
    weight: 1,
    async run(pool, random) {
      return reorg(pool, random.int(1, SOAK_MAX_REORG_DEPTH));
    },
  },
  {
    name: 'revive',
    weight: 1,
    async run(pool, random) {
      const chain = pool.devnet.chain;
      const tip = chain.height - 1;
      const offChain = pool.poolBlocks
        .map((hash) => chain.blockById(hash)!)
        .filter((block) => chain.blockAt(block.height)?.id !== block.id)
        .filter((block) => tip - forkHeightOf(pool, block) <= SOAK_MAX_REORG_DEPTH);
      if (offChain.length === 0) return 'revive (no pool block off the chain within reach)';
      const block = random.pick(offChain);
      // One block more on its branch than on the main chain above the fork: the branch wins.
      const count = tip - block.height + 1;
      const { orphaned } = pool.devnet.control.mineOnBlock(block.id, count, NETWORK);
      const back = chain.blockAt(block.height)?.id === block.id;
      return `revive height=${block.height} +${count} orphaned=${orphaned.length} back=${back}`;
    },
  },
  {
    name: 'unlock',
    weight: 3,
    async run(pool) {
      const summary = await pool.unlocker.runOnce();
      return `unlock ${summary.decisions.map((d) => d.outcome).join(',') || '-'}`;
    },
  },
  {
    name: 'payout',
    weight: 5,
    async run(pool) {
      return `payout ${await payoutPass(pool, passLine)}`;
    },
  },
  {
    name: 'wallet-fault',
    weight: 1,
    async run(pool, random) {
      const control = pool.devnet.control;
      const fault = random.pick(['refuse', 'error', 'drop', 'timeout', 'relay'] as const);
      if (fault === 'refuse') control.refuseSends(1);
      else if (fault === 'relay') control.failRelay(1);
      else control.failAfterBroadcast(1, fault);
      return `wallet-fault ${fault} (armed for the next send)`;
    },
  },
  taggedTransactionStep('drop-tx', taggedMempoolTransactions, (pool, hash) => {
    pool.devnet.control.dropFromMempool(hash);
  }),
  {
    name: 'scan-lag',
    weight: 1,
    async run(pool, random) {
      const lag = random.int(0, 3);
      pool.devnet.control.setWalletSyncLag(lag);
      return `scan-lag ${lag}`;
    },
  },
  {
    name: 'adjust',
    weight: 1,
    run: operatorAdjust,
  },
  {
    name: 'settle',
    weight: 1,
    run: operatorSettle,
  },
  {
    name: 'resolve-missing',
    weight: 1,
    run: operatorResolveMissing,
  },
  // The wallet loses its record of a transaction (a reset or an old backup), on chain or pooled.
  // The devnet finds it again as walletd does (once its scan passes the block, or from its pool
  // sync at the tip); until a `rescan` step the runner also sees the wallet's getStatus behind its
  // daemon (SoakPool.runner), as a real walletd rescanning from scratch reports itself, so the
  // pool never takes a wallet still rebuilding its history for a synced one.
  taggedTransactionStep('forget-tx', taggedTransactions, (pool, hash) => {
    pool.devnet.control.forgetWalletTransaction(hash);
    pool.forgotten.add(hash);
  }),
  {
    name: 'rescan',
    weight: 1,
    async run(pool) {
      pool.devnet.control.finishWalletRescan();
      pool.forgotten.clear();
      return 'rescan (the wallet scan reaches its target at once)';
    },
  },
  {
    name: 'unreadable',
    weight: 1,
    async run(pool, random) {
      const count = random.int(1, 3);
      pool.devnet.control.failReadsOfNextSend(count);
      return `unreadable: the next send's first ${count} reads fail`;
    },
  },
  {
    name: 'hold-scan',
    weight: 1,
    async run(pool, random) {
      const control = pool.devnet.control;
      const action = random.pick(['hold', 'advance', 'release', 'release'] as const);
      if (action === 'advance' && !pool.scanHeld) return 'wallet scan advance (not held)';
      pool.scanHeld = action !== 'release';
      if (action === 'hold') control.holdWalletScan();
      else if (action === 'advance') control.advanceWalletScan(random.int(1, 3));
      else control.releaseWalletScan();
      return `wallet scan ${action}`;
    },
  },
  {
    name: 'daemon-behind',
    weight: 1,
    async run(pool, random) {
      const blocks = random.pick([0, 0, 0, 1, 3]);
      pool.devnet.control.setDaemonKnownBlocksAhead(blocks);
      return `daemon behind its peers by ${blocks}`;
    },
  },
  {
    name: 'clock',
    weight: 1,
    async run(pool, random) {
      const hours = random.int(1, 30);
      pool.nowMs += hours * 3_600_000;
      return `clock +${hours}h`;
    },
  },
  ...FAULT_STEP_KINDS,
  ...UNKNOWN_STEP_KINDS,
];

const TOTAL_WEIGHT = STEP_KINDS.reduce((sum, kind) => sum + kind.weight, 0);

/** The step kind the PRNG's next draw picks, by weight. */
export function pickStep(random: SoakRandom): StepKind {
  let draw = random.next() * TOTAL_WEIGHT;
  for (const kind of STEP_KINDS) {
    draw -= kind.weight;
    if (draw < 0) return kind;
  }
  return STEP_KINDS[STEP_KINDS.length - 1]!;
}

/**
 * Every fault the steps can arm or set, off again (the drain starts from a healthy wallet and
 * daemon), but a payout crash or a lost batch armed: the drain's passes pay, so it is met there if
 * not before.
 */
export async function clearFaults(pool: SoakPool): Promise<void> {
  await endDaemonOutage(pool);
  const control = pool.devnet.control;
  control.refuseSends(0);
  control.failRelay(0);
  control.failAfterBroadcast(0);
  control.setWalletSyncLag(0);
  control.failReadsOfNextSend(0);
  control.setDaemonKnownBlocksAhead(0);
  control.releaseWalletScan();
  pool.scanHeld = false;
  control.finishWalletRescan();
  pool.forgotten.clear();
}
