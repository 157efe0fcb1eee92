import { createPaymentKeys } from '../store/payments/payment-keys.js';
import { createShareKeys } from '../store/shares/share-keys.js';

/**
 * Redis keys and pub/sub channels shared by the nodes of one pool (`<p>` is the pool's hash tag,
 * e.g. `{fuego}`). Format: key - type - content - writer - retention.
 *
 * - `<p>:leader:token` - STRING - the elected leader's fencing token `<epoch>.<random>`, PX =
 *   the lease - LeaderElection (SET with the INCR in one script) - expires unless renewed. It is
 *   both the lock and what every money script compares its caller's token with (store/payments/payment-keys.ts).
 * - `<p>:leader:epoch` - STRING - INCR counter, one step per election won - LeaderElection - kept.
 *   The random part of the token keeps tokens distinct even if the counter is lost with the data.
 * - `<p>:leader:holder` - STRING - name of the node holding the lease (logs, status), same PX.
 * - `<p>:template:latest` - STRING - the last template message (JSON, see template-message.ts) -
 *   the leader's fenced publish - kept, so that a starting stratum node has a job at once.
 * - `<p>:node:<id>` - STRING - `<holder name> <random>` of the stratum process using node id
 *   `<id>`, PX = the lease - NodeIdClaim (SET NX, compare-and-extend) - expires unless renewed.
 * - `<p>:bans` - HASH - IP -> ban (JSON, see redis-ban-list.ts) - every pool process on a ban or
 *   unban (RedisBanRegistry) - a field is removed once its ban has run out (every pool process
 *   prunes at start and every 10 minutes, deleting only fields unchanged since it read them).
 *
 * Channels (pub/sub is not key-slotted; the hash tag only keeps pools apart):
 * - `<p>:templates` - template messages, leader -> stratum nodes.
 * - `<p>:events` - pool events (events.ts), any node -> every other node.
 * - `<p>:bans` - bans and unbans, any pool process -> every other one (the channel shares the
 *   hash's name; channels and keys do not collide).
 */
export interface ClusterKeys {
  readonly tag: string;
  readonly leaderToken: string;
  readonly leaderEpoch: string;
  readonly leaderHolder: string;
  readonly templateLatest: string;
  readonly templateChannel: string;
  readonly eventChannel: string;
  readonly bans: string;
  readonly banChannel: string;
  nodeIdClaim(nodeId: number): string;
}

export function createClusterKeys(keyPrefix: string): ClusterKeys {
  const { tag } = createShareKeys(keyPrefix);
  return Object.freeze({
    tag,
    // The same key the money scripts fence on: one name, one owner of its format.
    leaderToken: createPaymentKeys(keyPrefix).leaderToken,
    leaderEpoch: `${tag}:leader:epoch`,
    leaderHolder: `${tag}:leader:holder`,
    templateLatest: `${tag}:template:latest`,
    templateChannel: `${tag}:templates`,
    eventChannel: `${tag}:events`,
    bans: `${tag}:bans`,
    banChannel: `${tag}:bans`,
    nodeIdClaim: (nodeId: number) => `${tag}:node:${nodeId}`,
  });
}
