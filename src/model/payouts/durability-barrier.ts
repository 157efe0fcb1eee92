/**
 * How the payout runner knows that a write will survive a Redis crash or failover before it hands
 * money to the wallet (src/store/redis-durability.ts asks Redis).
 *
 * - `replicas`: WAIT reached the configured number of replicas (Sentinel, Cluster).
 * - `aof-waitaof`: WAITAOF confirmed the write is fsynced to the local AOF (Redis >= 7.2).
 * - `aof-always`: the AOF is fsynced before every reply (`appendfsync always`).
 * - `none`: no such guarantee: a restart or failover may lose the last writes. `persistence` says
 *   what the server keeps at all (`none` means a restart loses everything).
 */
export type DurabilityGuarantee =
  | { readonly kind: 'replicas'; readonly replicas: number }
  | { readonly kind: 'aof-waitaof' }
  | { readonly kind: 'aof-always' }
  | {
      readonly kind: 'none';
      readonly persistence: 'aof' | 'rdb' | 'none' | 'unknown';
      readonly detail: string;
    };

export interface DurabilityBarrier {
  /** What the server guarantees for a write once ensureDurable returned. */
  describe(): Promise<DurabilityGuarantee>;
  /**
   * Resolves once every write this connection made so far is durable by the guarantee above;
   * throws (code NOT_DURABLE) when it cannot be made so in time, or when there is no guarantee.
   */
  ensureDurable(): Promise<void>;
}
