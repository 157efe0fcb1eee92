import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import type { PowHasher } from '../../src/pow/types.js';
import type { WireJob } from './stratum-client.js';

/** Offset of the 4-byte nonce in a hashing blob. */
const NONCE_OFFSET = 39;

/** The params of a `submit`, without the session id. */
export interface ShareParams {
  readonly job_id: string;
  readonly nonce: string;
  readonly result: string;
}

/**
 * A valid share at difficulty 1 (any hash is one) on `job` with `nonce`, hashed with the native
 * cn/upx2: the pool recomputes the hash and compares it, so only the result must be right.
 */
export function difficultyOneShare(hasher: PowHasher, job: WireJob, nonce: number): ShareParams {
  const blob = hexToBytes(job.blob);
  const nonceBytes = Buffer.alloc(4);
  // As XMRig: a non-zero nonce field in the blob means its top byte is reserved (stratum.md §6.4).
  const reserved = Buffer.from(blob.subarray(NONCE_OFFSET, NONCE_OFFSET + 4)).readUInt32LE(0) !== 0;
  const topByte = blob[NONCE_OFFSET + 3]!;
  nonceBytes.writeUInt32LE(reserved ? ((topByte << 24) | (nonce & 0xffffff)) >>> 0 : nonce >>> 0, 0);
  blob.set(nonceBytes, NONCE_OFFSET);
  return { job_id: job.job_id, nonce: nonceBytes.toString('hex'), result: bytesToHex(hasher.hash(blob)) };
}
