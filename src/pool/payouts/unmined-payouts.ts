import { type PayoutBatch, sentAtMs, UNMINED_AFTER_MS } from '../../model/payouts/payout-batch.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';

/**
 * A sent payout not mined UNMINED_AFTER_MS after its send, as `fuego-pool report` shows it and the
 * leader tells it (payout-unmined): where fuegod has its transaction, and what the operator does
 * about it. walletd may never report a transaction fuegod dropped before any of its pool syncs saw
 * it: it holds it unconfirmed for good, until it is restarted (it then cancels it at load, and the
 * payout runner credits the miners back).
 */

/** Where fuegod has a sent payout's transaction that is not mined UNMINED_AFTER_MS after its send. */
export type FuegodSighting =
  | { readonly kind: 'in-block'; readonly height: number }
  | { readonly kind: 'in-pool' }
  | { readonly kind: 'nowhere' }
  | { readonly kind: 'unreachable'; readonly detail: string };

/** What fuegod said of a transaction when it answered. */
export type FuegodAnswer = Exclude<FuegodSighting, { readonly kind: 'unreachable' }>;

/** The daemon calls a sighting takes. */
export type SightingDaemon = Pick<DaemonClient, 'findTransactionBlock' | 'getPoolTransactionHashes'>;

/** A sent batch with a transaction, not mined UNMINED_AFTER_MS after its send at `nowMs`. */
export function isUnmined(batch: PayoutBatch, nowMs: number): boolean {
  return batch.txHash !== null && nowMs - sentAtMs(batch) >= UNMINED_AFTER_MS;
}

/**
 * Asks fuegod about each sent batch not mined UNMINED_AFTER_MS after its send (the report's
 * NOT MINED ones): in a block (walletd has not seen it yet), still in its pool (it may be mined
 * yet), or nowhere (walletd holds it unconfirmed for good: restart walletd). One pool read and one
 * lookup per such batch; an unreachable daemon is said, not thrown.
 */
export async function fuegodSightings(
  batches: readonly PayoutBatch[],
  daemon: SightingDaemon,
  nowMs: number,
): Promise<Map<string, FuegodSighting>> {
  const unmined = batches.filter((b) => isUnmined(b, nowMs));
  const sightings = new Map<string, FuegodSighting>();
  if (unmined.length === 0) return sightings;
  try {
    const pool = new Set(await daemon.getPoolTransactionHashes());
    for (const batch of unmined) {
      const block = await daemon.findTransactionBlock(batch.txHash!);
      const sighting: FuegodSighting =
        block !== null
          ? { kind: 'in-block', height: block.height }
          : pool.has(batch.txHash!)
            ? { kind: 'in-pool' }
            : { kind: 'nowhere' };
      sightings.set(batch.id, sighting);
    }
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    for (const batch of unmined) sightings.set(batch.id, { kind: 'unreachable', detail });
  }
  return sightings;
}

const RESTART_WALLETD = 'restart walletd (it then cancels it and the miners are credited back)';

/** What to do about a payout not mined for hours, by what fuegod said of it (undefined: not asked). */
export function unminedAdvice(sighting: FuegodSighting | undefined): string {
  switch (sighting?.kind) {
    case 'nowhere':
      return `fuegod has it nowhere (not in a block, not in its pool): ${RESTART_WALLETD}`;
    case 'in-pool':
      return "fuegod still has it in its pool: it may be mined yet (check fuegod's peers if it stays)";
    case 'in-block':
      return `fuegod has it in block ${sighting.height}: walletd has not seen it yet (restart walletd if that lasts)`;
    case 'unreachable':
      return `fuegod not reachable (${sighting.detail}): look it up in fuegod's pool; if fuegod no longer has it, ${RESTART_WALLETD}`;
    default:
      return `look it up in fuegod's pool; if fuegod no longer has it, ${RESTART_WALLETD}`;
  }
}
