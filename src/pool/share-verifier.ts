/**
 * The seam between share validation and the proof-of-work workers (ShareVerifierPool in
 * src/pow/verifier-pool.ts implements it). Hashing never runs on the event loop.
 */
export interface ShareVerifier {
  /**
   * cn/upx2 of the hashing blob (nonce already written at its offset): 32 bytes. `peer` is whose
   * share it is (the ban policy's key of its IP): peers share the verifier fairly.
   */
  verify(hashingBlob: Uint8Array, peer: string): Promise<Uint8Array>;
  /** False while `peer` holds its share of the queue: the stratum layer stops reading its submits. */
  canAcceptWork(peer: string): boolean;
  /** Drops `peer`'s submits not yet hashed (it was banned); they fail with code CANCELLED. */
  cancel(peer: string): number;
}
