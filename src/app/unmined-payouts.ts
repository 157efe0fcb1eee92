import { type PayoutBatch, sentAtMs, UNMINED_AFTER_MS } from '../model/payouts/payout-batch.js';
import type { DaemonClient } from '../rpc/daemon-client.js';

/** Where fuegod has a sent payout's transaction that is not mined UNMINED_AFTER_MS after its send. */
export type FuegodSighting =
  | { readonly kind: 'in-block'; readonly height: number }
  | { readonly kind: 'in-pool' }
  | { readonly kind: 'nowhere' }
  | { readonly kind: 'unreachable'; readonly detail: string };

/**
 * Asks fuegod about each sent batch not mined UNMINED_AFTER_MS after its send (the report's
 * NOT MINED ones): in a block (walletd has not seen it yet), still in its pool (it may be mined
 * yet), or nowhere (walletd holds it unconfirmed for good: restart walletd). One pool read and one
 * lookup per such batch; an unreachable daemon is said, not thrown.
 */
export async function fuegodSightings(
  batches: readonly PayoutBatch[],
  daemon: Pick<DaemonClient, 'findTransactionBlock' | 'getPoolTransactionHashes'>,
  nowMs: number,
): Promise<Map<string, FuegodSighting>> {
  const unmined = batches.filter((b) => b.txHash !== null && nowMs - sentAtMs(b) >= UNMINED_AFTER_MS);
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
