import type { Redis } from 'ioredis';
import type { PayoutWriter } from '../model/payouts/payout-batch.js';
import type { PoolEventMap } from '../pool/events.js';
import type { DaemonClient } from '../rpc/daemon-client.js';
import {
  OrphanSettlementStore,
  type OrphanSettlementView,
} from '../store/payments/orphan-settlement-store.js';
import { PaymentStoreError } from '../store/payments/payment-store-error.js';
import { PayoutStore } from '../store/payments/payout-store.js';
import { underPayoutLock } from './operator-payout-lock.js';

/**
 * absorb: the pool keeps the miners' credits (its loss); clawback: each account is debited what
 * the block credited it, never below a zero balance; credit-back: a clawed-back block a later
 * reorg restored gets its clawback given back.
 */
export type OrphanSettleMode = 'absorb' | 'clawback' | 'credit-back';

/** One account of the settlement. */
export interface OrphanSettlementLine {
  readonly address: string;
  /** What the block credited it. */
  readonly creditedAtomic: bigint;
  /** Its balance before the settlement (as read). */
  readonly balanceAtomic: bigint;
  /** Signed change of its balance: negative for a clawback, positive for a credit back, 0 to absorb. */
  readonly changeAtomic: bigint;
  /** What the pool does not get back of its credit (absorbed, or paid out / spent already). */
  readonly uncollectedAtomic: bigint;
}

export interface OrphanSettlement {
  readonly hash: string;
  readonly height: number;
  readonly mode: OrphanSettleMode;
  /** False for a dry run: what would be done. */
  readonly applied: boolean;
  readonly lines: readonly OrphanSettlementLine[];
  /** Sum of the lines' changes. */
  readonly changeAtomic: bigint;
  readonly uncollectedAtomic: bigint;
}

/** What a clawback takes from an account credited `credit`: all of it, or its balance above zero. */
export function clawbackOf(credit: bigint, balance: bigint): bigint {
  if (balance >= credit) return credit;
  return balance > 0n ? balance : 0n;
}

/** Where a credit back reads the main chain: the block at a height. */
export type SettlementChain = Pick<DaemonClient, 'getBlockHeaderByHeight'>;

/**
 * The operator settles a credited block the reorg watch flagged orphaned after credit, or credits
 * back a clawed-back one a later reorg restored. Without `dryRun`, under the payout lock (no
 * payout pass runs meanwhile) and in one script each; the lines then say what was done (read back
 * from the block's clawback record). Refuses (PaymentStoreError) an unknown hash (BLOCK_NOT_FOUND),
 * a block not flagged (BLOCK_NOT_FLAGGED), one settled already (BLOCK_SETTLED), a credit back of a
 * block not restored after a clawback or credited back already (BLOCK_NOT_RESTORED), or a held
 * lock (LOCK_LOST); nothing changes then. A credit back also asks `daemon` (required for it) for
 * the main chain's block at the height, last thing before its script: another block there (a
 * reorg the watch has not seen yet) is refused BLOCK_NOT_RESTORED too. Should a reorg still come
 * between that answer and the script, the watch flags the block again afterwards (its credits
 * stand once, for the operator to settle again): nothing is paid twice.
 */
export async function settleOrphanedBlock(
  keyPrefix: string,
  modules: { readonly redis: Redis; readonly clock?: () => number; readonly daemon?: SettlementChain },
  request: {
    readonly hash: string;
    readonly mode: OrphanSettleMode;
    readonly note: string;
    readonly dryRun: boolean;
  },
): Promise<OrphanSettlement> {
  const store = new OrphanSettlementStore({ keyPrefix }, modules);
  const { hash, mode } = request;
  const preview = await store.read(hash);
  const planned = planOf(preview, mode);
  if (mode === 'credit-back') await expectOnMainChain(modules.daemon, preview);
  if (request.dryRun) return { ...planned, applied: false };
  const journal = new PayoutStore({ keyPrefix }, modules);
  return underPayoutLock(journal, (writer) => apply(store, writer, request, modules.daemon));
}

async function apply(
  store: OrphanSettlementStore,
  writer: PayoutWriter,
  request: { readonly hash: string; readonly mode: OrphanSettleMode; readonly note: string },
  daemon: SettlementChain | undefined,
): Promise<OrphanSettlement> {
  const { hash, mode, note } = request;
  // Read again under the lock: the balances a clawback takes from cannot move into a payout now.
  const before = await store.read(hash);
  planOf(before, mode);
  if (mode === 'credit-back') {
    await expectOnMainChain(daemon, before);
    await store.creditBack(writer, { hash, clawback: before.clawback, note });
  } else {
    await store.settle(writer, { hash, mode, credits: before.credits, note });
  }
  const after = await store.read(hash);
  const lines = [...before.credits].map(([address, creditedAtomic]) => {
    const clawed = after.clawback.get(address) ?? 0n;
    const changeAtomic = mode === 'clawback' ? -clawed : mode === 'credit-back' ? clawed : 0n;
    return {
      address,
      creditedAtomic,
      balanceAtomic: before.balances.get(address) ?? 0n,
      changeAtomic,
      uncollectedAtomic: creditedAtomic - clawed,
    };
  });
  return summed(before, mode, true, lines);
}

/** Refuses (BLOCK_NOT_RESTORED) a credit back while the main chain holds another block at the height. */
async function expectOnMainChain(
  daemon: SettlementChain | undefined,
  view: OrphanSettlementView,
): Promise<void> {
  if (daemon === undefined) throw new TypeError('a credit back needs the daemon to check the main chain');
  const { hash, height } = view;
  const mainChainHash = (await daemon.getBlockHeaderByHeight(height)).hash;
  if (mainChainHash !== hash) {
    throw new PaymentStoreError(
      'BLOCK_NOT_RESTORED',
      `block ${hash} is not on the main chain now (it has ${mainChainHash} at height ${height}): a later reorg replaced it again`,
      { hash, height, mainChainHash },
    );
  }
}

/** The `block-orphan-settled` event of an applied settlement (`note` as given to it). */
export function orphanSettledEvent(
  settlement: OrphanSettlement,
  note: string,
  nowMs: number,
): PoolEventMap['block-orphan-settled'] {
  const { hash, height, mode, lines, changeAtomic, uncollectedAtomic } = settlement;
  return {
    height,
    hash,
    settlement: mode === 'absorb' ? 'absorbed' : mode === 'clawback' ? 'clawed-back' : 'credited-back',
    accounts: lines.length,
    changeAtomic: changeAtomic < 0n ? -changeAtomic : changeAtomic,
    uncollectedAtomic: mode === 'credit-back' ? 0n : uncollectedAtomic,
    note: note.slice(0, 200),
    timestampMs: nowMs,
  };
}

/** What `mode` would do to the block as `view` shows it; throws the refusal the script would answer. */
function planOf(view: OrphanSettlementView, mode: OrphanSettleMode): OrphanSettlement {
  const { hash } = view;
  if (view.state === 'unknown') {
    throw new PaymentStoreError('BLOCK_NOT_FOUND', `no block with hash ${hash}`, { hash });
  }
  if (mode === 'credit-back') {
    if (view.settlement !== 'clawed-back' || !view.restoredAfterSettlement || view.creditedBack) {
      throw new PaymentStoreError(
        'BLOCK_NOT_RESTORED',
        `block ${hash} is not a clawed-back block a later reorg restored (or it was credited back already)`,
        { hash, settlement: view.settlement, creditedBack: view.creditedBack },
      );
    }
  } else if (view.state === 'settled') {
    throw new PaymentStoreError('BLOCK_SETTLED', `block ${hash} was settled already (${view.settlement})`, {
      hash,
      settlement: view.settlement,
    });
  } else if (view.state !== 'flagged') {
    throw new PaymentStoreError(
      'BLOCK_NOT_FLAGGED',
      `block ${hash} is not flagged orphaned after credit: nothing to settle`,
      { hash },
    );
  }
  const lines = [...view.credits].map(([address, creditedAtomic]) => {
    const balanceAtomic = view.balances.get(address) ?? 0n;
    const taken =
      mode === 'absorb'
        ? 0n
        : mode === 'clawback'
          ? clawbackOf(creditedAtomic, balanceAtomic)
          : (view.clawback.get(address) ?? 0n);
    return {
      address,
      creditedAtomic,
      balanceAtomic,
      changeAtomic: mode === 'credit-back' ? taken : -taken,
      uncollectedAtomic: creditedAtomic - taken,
    };
  });
  return summed(view, mode, false, lines);
}

function summed(
  { hash, height }: Pick<OrphanSettlementView, 'hash' | 'height'>,
  mode: OrphanSettleMode,
  applied: boolean,
  lines: readonly OrphanSettlementLine[],
): OrphanSettlement {
  // Largest credit first, then by address: the same order on every read.
  const sorted = [...lines].sort(
    (a, b) =>
      (a.creditedAtomic === b.creditedAtomic ? 0 : a.creditedAtomic > b.creditedAtomic ? -1 : 1) ||
      (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
  );
  return {
    hash,
    height,
    mode,
    applied,
    lines: sorted,
    changeAtomic: lines.reduce((sum, line) => sum + line.changeAtomic, 0n),
    uncollectedAtomic: lines.reduce((sum, line) => sum + line.uncollectedAtomic, 0n),
  };
}
