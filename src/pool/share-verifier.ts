/**
 * The seam between share validation and the proof-of-work workers (ShareVerifierPool in
 * src/pow/verifier-pool.ts implements it). Hashing never runs on the event loop.
 */
export interface ShareVerifier {
  /** cn/upx2 of the hashing blob (nonce already written at its offset): 32 bytes. */
  verify(hashingBlob: Uint8Array): Promise<Uint8Array>;
  /** False while the verifier's queue is full: the stratum layer slows submit handling. */
  canAcceptWork(): boolean;
}
