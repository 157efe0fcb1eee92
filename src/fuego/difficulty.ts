import { FuegoPoolError } from '../errors.js';

export type DifficultyErrorCode = 'INVALID_DIFFICULTY' | 'INVALID_TARGET' | 'INVALID_HASH';

/** A difficulty, target or hash that the math below cannot use. */
export class DifficultyError extends FuegoPoolError<DifficultyErrorCode> {}

const MAX_UINT32 = (1n << 32n) - 1n;
const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_UINT256 = (1n << 256n) - 1n;
const TWO_POW_256 = 1n << 256n;
const MAX_SAFE_BIGINT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Below this difficulty the stratum target goes out in 4 bytes (quantisation < 0.4%, and browser
 * and old miners only know that form); from here on in 8 bytes.
 */
export const FOUR_BYTE_TARGET_LIMIT = 1n << 24n;

/**
 * The `target` of a stratum job for `difficulty`: `target4Hex` while D < 2^24, else `target8Hex`.
 * The miner's effective difficulty is therefore always ≥ D (never looser than what the pool credits).
 */
export function targetHexForDifficulty(difficulty: bigint | number): string {
  const d = toTargetDifficulty(difficulty);
  return d < FOUR_BYTE_TARGET_LIMIT ? target4Hex(d) : target8Hex(d);
}

/**
 * 4-byte target: little-endian hex of t32 = ⌊(2^32−1)/D⌋, which equals the top 32 bits of
 * ⌊(2^256−1)/D⌋ (cryptonote-nodejs-pool's form). For D ≥ 2^32 t32 would be 0, which makes XMRig die
 * with SIGFPE, so it is clamped to 1 ("01000000", effective difficulty 2^32−1): such a D needs the
 * 8-byte form, which `targetHexForDifficulty` picks.
 */
export function target4Hex(difficulty: bigint | number): string {
  const d = toTargetDifficulty(difficulty);
  const t32 = MAX_UINT32 / d;
  return littleEndianHex(t32 === 0n ? 1n : t32, 4);
}

/** 8-byte target: little-endian hex of t64 = ⌊(2^64−1)/D⌋ (never 0, as D ≤ 2^64−1). */
export function target8Hex(difficulty: bigint | number): string {
  return littleEndianHex(MAX_UINT64 / toTargetDifficulty(difficulty), 8);
}

/**
 * The difficulty a miner (XMRig) works at for a stratum target: ⌊(2^32−1)/t32⌋ for 8 hex characters,
 * ⌊(2^64−1)/t64⌋ for 16. Other lengths and a zero target are INVALID_TARGET (XMRig rejects or
 * crashes on them).
 */
export function difficultyFromTargetHex(targetHex: string): bigint {
  const target = parseTargetHex(targetHex);
  return (target.bytes === 4 ? MAX_UINT32 : MAX_UINT64) / target.value;
}

/**
 * The largest difficulty ≤ `limit` that a stratum target expresses exactly: the target
 * `targetHexForDifficulty` sends for it has exactly that effective difficulty. A job capped at the
 * network difficulty takes this one: the target for `limit` itself may be stricter (by up to 0.4%
 * in the 4-byte form, e.g. 100,001 for 100,000), and the miner would drop the blocks in between.
 * The loosest target t with ⌊M/t⌋ ≤ limit is ⌊M/(limit+1)⌋ + 1 (M = 2^32−1 or 2^64−1, the form
 * `limit` itself would be sent in).
 */
export function exactTargetDifficultyAtMost(limit: bigint | number): bigint {
  const d = toTargetDifficulty(limit);
  const max = d < FOUR_BYTE_TARGET_LIMIT ? MAX_UINT32 : MAX_UINT64;
  return max / (max / (d + 1n) + 1n);
}

/**
 * XMRig's internal 64-bit target T64 for a stratum target: a 4-byte t32 expands to
 * ⌊(2^64−1)/⌊(2^32−1)/t32⌋⌋, an 8-byte t64 is used as is. XMRig submits when `hashTop64(hash) < T64`.
 */
export function minerTarget64FromTargetHex(targetHex: string): bigint {
  const target = parseTargetHex(targetHex);
  return target.bytes === 4 ? MAX_UINT64 / (MAX_UINT32 / target.value) : target.value;
}

/**
 * The 32-byte PoW hash as the 256-bit number the daemon compares: little-endian, byte 31 most
 * significant.
 */
export function hashToBigInt(hash: Uint8Array): bigint {
  assertHash(hash);
  const view = new DataView(hash.buffer, hash.byteOffset, 32);
  return (
    (view.getBigUint64(24, true) << 192n) |
    (view.getBigUint64(16, true) << 128n) |
    (view.getBigUint64(8, true) << 64n) |
    view.getBigUint64(0, true)
  );
}

/** Bytes 24..31 of the hash as a little-endian uint64: the only part XMRig compares with T64. */
export function hashTop64(hash: Uint8Array): bigint {
  assertHash(hash);
  return Buffer.from(hash.buffer, hash.byteOffset + 24, 8).readBigUInt64LE(0);
}

/** Whether XMRig would submit this hash for a stratum target (`hashTop64 < T64`). */
export function passesMinerTarget(hash: Uint8Array, targetHex: string): boolean {
  return hashTop64(hash) < minerTarget64FromTargetHex(targetHex);
}

/**
 * The highest difficulty the hash satisfies: ⌊(2^256−1)/H⌋, H = hashToBigInt(hash). A zero hash
 * (never seen in practice) meets every difficulty and gets 2^256−1.
 */
export function hashDifficulty(hash: Uint8Array): bigint {
  const h = hashToBigInt(hash);
  return h === 0n ? MAX_UINT256 : MAX_UINT256 / h;
}

/**
 * The block target of a difficulty as 64 hex digits, most significant first: T = ⌊(2^256−1)/D⌋.
 * A hash meets D iff hashToBigInt(hash) ≤ T, the same verdict as checkHash; this form is for
 * people (logs, `fuego-pool block inspect`), the pool itself decides with checkHash.
 */
export function blockTargetHex(difficulty: bigint | number): string {
  return (MAX_UINT256 / toPositiveInteger(difficulty)).toString(16).padStart(64, '0');
}

/**
 * The daemon's `check_hash`: valid iff H × D < 2^256. Used both for shares (D = the share difficulty
 * the pool assigned) and for block candidates (D = network difficulty); equivalent to
 * `hashDifficulty(hash) >= D`. D may exceed 2^64 here; it must be a positive integer.
 */
export function checkHash(hash: Uint8Array, difficulty: bigint | number): boolean {
  // Share and network difficulties are far below 2^53: decide in floating point when certain.
  const small = asSmallDifficulty(difficulty);
  if (small !== undefined) {
    const quick = checkHashByTop64(hash, small);
    if (quick !== undefined) return quick;
  }
  return hashToBigInt(hash) * toPositiveInteger(difficulty) < TWO_POW_256;
}

/** The difficulty as a number when it is a positive safe integer; undefined otherwise. */
function asSmallDifficulty(difficulty: bigint | number): number | undefined {
  if (typeof difficulty === 'bigint') {
    return difficulty >= 1n && difficulty <= MAX_SAFE_BIGINT ? Number(difficulty) : undefined;
  }
  return Number.isSafeInteger(difficulty) && difficulty >= 1 ? difficulty : undefined;
}

/** 2^64 as a double, and the relative margin that covers the rounding of the products below. */
const TWO_POW_64 = 2 ** 64;
const QUICK_MARGIN = 2 ** -32;

/**
 * checkHash decided from the hash's top 64 bits T alone, in floating point, when that is certain:
 * T·2^192 ≤ H < (T+1)·2^192, so (T+1)·D ≤ 2^64 proves H·D < 2^256 and T·D ≥ 2^64 disproves it.
 * The margin (far above a double's 2^-52 relative error) leaves the narrow band between the two
 * to the exact bigint check. Every share is checked on the event loop, and this skips two bigint
 * conversions and a 256-bit multiplication for all but one hash in billions.
 */
function checkHashByTop64(hash: Uint8Array, difficulty: number): boolean | undefined {
  assertHash(hash);
  // Read byte by byte: this runs twice per share, and a DataView would be garbage each time.
  const high = (hash[28]! | (hash[29]! << 8) | (hash[30]! << 16) | (hash[31]! << 24)) >>> 0;
  const low = (hash[24]! | (hash[25]! << 8) | (hash[26]! << 16) | (hash[27]! << 24)) >>> 0;
  const top = high * 4294967296 + low;
  if ((top + 1) * difficulty <= TWO_POW_64 * (1 - QUICK_MARGIN)) return true;
  if (top * difficulty >= TWO_POW_64 * (1 + QUICK_MARGIN)) return false;
  return undefined;
}

function toPositiveInteger(difficulty: bigint | number): bigint {
  if (typeof difficulty === 'number' && !Number.isSafeInteger(difficulty)) {
    throw new DifficultyError('INVALID_DIFFICULTY', `difficulty ${difficulty} is not an integer`, {
      difficulty: String(difficulty),
    });
  }
  const d = BigInt(difficulty);
  if (d < 1n) {
    throw new DifficultyError('INVALID_DIFFICULTY', `difficulty ${d} is below 1`, {
      difficulty: d.toString(),
    });
  }
  return d;
}

/** Targets only exist for the daemon's uint64 difficulties: above 2^64−1 even t64 would be 0. */
function toTargetDifficulty(difficulty: bigint | number): bigint {
  const d = toPositiveInteger(difficulty);
  if (d > MAX_UINT64) {
    throw new DifficultyError('INVALID_DIFFICULTY', `difficulty ${d} is above 2^64-1`, {
      difficulty: d.toString(),
    });
  }
  return d;
}

function parseTargetHex(targetHex: string): { bytes: 4 | 8; value: bigint } {
  if (!/^(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{16})$/.test(targetHex)) {
    throw new DifficultyError('INVALID_TARGET', 'target must be 8 or 16 hex characters', {
      length: targetHex.length,
    });
  }
  const bytes = Buffer.from(targetHex, 'hex');
  const value = bytes.length === 4 ? BigInt(bytes.readUInt32LE(0)) : bytes.readBigUInt64LE(0);
  if (value === 0n) {
    throw new DifficultyError('INVALID_TARGET', 'target is zero', { target: targetHex });
  }
  return { bytes: bytes.length === 4 ? 4 : 8, value };
}

function littleEndianHex(value: bigint, byteCount: 4 | 8): string {
  const out = Buffer.alloc(byteCount);
  if (byteCount === 4) out.writeUInt32LE(Number(value), 0);
  else out.writeBigUInt64LE(value, 0);
  return out.toString('hex');
}

function assertHash(hash: Uint8Array): void {
  if (hash.length !== 32) {
    throw new DifficultyError('INVALID_HASH', `hash must be 32 bytes, got ${hash.length}`, {
      length: hash.length,
    });
  }
}
