import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blockTargetHex,
  checkHash,
  DifficultyError,
  difficultyFromTargetHex,
  exactTargetDifficultyAtMost,
  hashDifficulty,
  hashToBigInt,
  hashTop64,
  minerTarget64FromTargetHex,
  passesMinerTarget,
  target4Hex,
  target8Hex,
  targetHexForDifficulty,
} from '../../src/fuego/difficulty.js';
import { hexToBytes } from '../../src/fuego/hex.js';
import { readJsonFixture } from '../helpers/fixtures.js';

interface FormatVectors {
  difficulty_targets: { vectors: { difficulty: number; target4_hex: string; target8_hex: string }[] };
  check_hash_examples: { hash: string; difficulty: number; check_hash: boolean }[];
  block_v9_pool_flow: {
    pow_hash: string;
    pow_hash_max_difficulty: number;
    xmrig_style_share_check: { hash_last8_le_uint64: number; passes_target8_for_difficulty: number };
  };
}

const format = readJsonFixture<FormatVectors>('vectors/format.json');
const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_UINT256 = (1n << 256n) - 1n;

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof DifficultyError) return error.code;
    throw error;
  }
  return undefined;
}

function readLe(hex: string): bigint {
  return hexToBytes(hex).reduceRight((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

describe('stratum targets', () => {
  it.each(format.difficulty_targets.vectors)('difficulty $difficulty matches format.json', (vector) => {
    expect(target4Hex(vector.difficulty)).toBe(vector.target4_hex);
    expect(target8Hex(BigInt(vector.difficulty))).toBe(vector.target8_hex);
    const expected = BigInt(vector.difficulty) < 1n << 24n ? vector.target4_hex : vector.target8_hex;
    expect(targetHexForDifficulty(vector.difficulty)).toBe(expected);
  });

  it('matches what XMRig was observed to receive and show (stratum.md §5.3)', () => {
    expect(target4Hex(10_000_000)).toBe('ad010000');
    expect(target8Hex(10_000_000)).toBe('caab297fad010000');
    expect(target4Hex(123_456)).toBe('e5870000');
    expect(target8Hex(123_456)).toBe('cc1c2f75e5870000');
    expect(target8Hex(5_000_000_000n)).toBe('cefee6db00000000');
    expect(targetHexForDifficulty(5_000_000_000)).toBe('cefee6db00000000');
    expect(targetHexForDifficulty(123_456)).toBe('e5870000');
    expect(targetHexForDifficulty(50_000_000)).toHaveLength(16);

    expect(difficultyFromTargetHex('37894100')).toBe(1000n);
    expect(difficultyFromTargetHex('efa7c64b37894100')).toBe(1000n);
    expect(difficultyFromTargetHex('ad010000')).toBe(10_011_578n); // "10011K"
    expect(difficultyFromTargetHex('caab297fad010000')).toBe(10_000_000n);
    expect(difficultyFromTargetHex('e5870000')).toBe(123_457n);
    expect(difficultyFromTargetHex('cc1c2f75e5870000')).toBe(123_456n);
    expect(difficultyFromTargetHex('cefee6db00000000')).toBe(5_000_000_001n); // "5000M", rounded up by the floor
    expect(difficultyFromTargetHex(target4Hex(100_000))).toBe(100_001n);
    expect(difficultyFromTargetHex(target4Hex(50_000_000)) / 1000n).toBe(50_529n); // "50529K"
  });

  it('switches from 4 to 8 bytes at 2^24', () => {
    expect(targetHexForDifficulty(2 ** 24 - 1)).toHaveLength(8);
    expect(targetHexForDifficulty(2 ** 24)).toHaveLength(16);
  });

  it('never sends a zero target, and rejects difficulties it cannot express', () => {
    expect(target4Hex(2n ** 32n)).toBe('01000000');
    expect(target4Hex(MAX_UINT64)).toBe('01000000');
    expect(target8Hex(MAX_UINT64)).toBe('0100000000000000');
    expect(targetHexForDifficulty(MAX_UINT64)).toBe('0100000000000000');
    for (const bad of [0, -1, 0n, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2n ** 64n]) {
      expect(errorCode(() => targetHexForDifficulty(bad))).toBe('INVALID_DIFFICULTY');
    }
  });

  it('rejects targets XMRig cannot use', () => {
    for (const bad of ['00000000', '0000000000000000', '0a0b0c', '010203040506', 'zz000000', '']) {
      expect(errorCode(() => difficultyFromTargetHex(bad))).toBe('INVALID_TARGET');
    }
  });

  it('the 4-byte target is the top 32 bits of (2^256-1)/D', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 32n) - 1n }), (difficulty) => {
        expect(readLe(target4Hex(difficulty))).toBe((MAX_UINT256 / difficulty) >> 224n);
      }),
    );
  });

  it('higher difficulty never gives a larger target, and the miner is never looser than the pool', () => {
    const difficulty = fc.bigInt({ min: 1n, max: MAX_UINT64 });
    fc.assert(
      fc.property(difficulty, difficulty, (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(readLe(target8Hex(high))).toBeLessThanOrEqual(readLe(target8Hex(low)));
        if (high < 1n << 32n) expect(readLe(target4Hex(high))).toBeLessThanOrEqual(readLe(target4Hex(low)));
        const lowSent = targetHexForDifficulty(low);
        const highSent = targetHexForDifficulty(high);
        expect(difficultyFromTargetHex(highSent)).toBeGreaterThanOrEqual(difficultyFromTargetHex(lowSent));
        expect(difficultyFromTargetHex(lowSent)).toBeGreaterThanOrEqual(low);
        expect(difficultyFromTargetHex(highSent)).toBeGreaterThanOrEqual(high);
      }),
    );
  });

  it('small difficulties are exact through both encodings, and 4-byte rounding stays below 0.4%', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 24n) - 1n }), (difficulty) => {
        const effective = difficultyFromTargetHex(target4Hex(difficulty));
        expect(effective).toBeGreaterThanOrEqual(difficulty);
        expect((effective - difficulty) * 1000n).toBeLessThanOrEqual(4n * difficulty);
        expect(difficultyFromTargetHex(target8Hex(difficulty))).toBe(difficulty);
      }),
    );
  });
});

describe('exactTargetDifficultyAtMost (a job capped at the network difficulty)', () => {
  it('is exact where the 4-byte form is (below 2^16), one below 100,000 where it is not', () => {
    expect(exactTargetDifficultyAtMost(1_000)).toBe(1_000n);
    expect(difficultyFromTargetHex(targetHexForDifficulty(100_000))).toBe(100_001n);
    expect(exactTargetDifficultyAtMost(100_000)).toBe(99_999n);
    expect(difficultyFromTargetHex(targetHexForDifficulty(99_999))).toBe(99_999n);
  });

  it('is the largest difficulty ≤ the limit whose target is neither stricter nor looser than itself', () => {
    const limit = fc.oneof(
      fc.constantFrom(1n, (1n << 16n) + 1n, (1n << 24n) - 1n, 1n << 24n, (1n << 24n) + 1n, MAX_UINT64 - 1n),
      fc.bigInt({ min: 1n, max: (1n << 26n) - 1n }),
      fc.bigInt({ min: 1n, max: MAX_UINT64 - 1n }),
    );
    fc.assert(
      fc.property(limit, (d) => {
        const exact = exactTargetDifficultyAtMost(d);
        expect(exact).toBeLessThanOrEqual(d);
        expect(difficultyFromTargetHex(targetHexForDifficulty(exact))).toBe(exact);
        // Nothing above it up to the limit: the next difficulty's target is already beyond the limit.
        expect(difficultyFromTargetHex(targetHexForDifficulty(exact + 1n))).toBeGreaterThan(d);
      }),
    );
  });
});

describe('hash difficulty and check_hash', () => {
  const powHash = hexToBytes(format.block_v9_pool_flow.pow_hash);

  it.each(format.check_hash_examples)('check_hash(hash, $difficulty) is $check_hash', (example) => {
    expect(checkHash(hexToBytes(example.hash), example.difficulty)).toBe(example.check_hash);
    expect(hashDifficulty(hexToBytes(example.hash)) >= BigInt(example.difficulty)).toBe(example.check_hash);
  });

  it('the v9 pool flow PoW hash has max difficulty 7113', () => {
    expect(hashDifficulty(powHash)).toBe(BigInt(format.block_v9_pool_flow.pow_hash_max_difficulty));
    expect(hashToBigInt(powHash)).toBe(readLe(format.block_v9_pool_flow.pow_hash));
  });

  it('matches the XMRig-style share check of the v9 pool flow', () => {
    const share = format.block_v9_pool_flow.xmrig_style_share_check;
    expect(hashTop64(powHash)).toBe(BigInt(share.hash_last8_le_uint64));
    expect(passesMinerTarget(powHash, target8Hex(share.passes_target8_for_difficulty))).toBe(true);
    expect(passesMinerTarget(powHash, target8Hex(share.passes_target8_for_difficulty + 1))).toBe(false);
    expect(minerTarget64FromTargetHex('37894100')).toBe(MAX_UINT64 / 1000n);
  });

  it('the zero hash meets every difficulty; wrong hash sizes are rejected', () => {
    const zero = new Uint8Array(32);
    expect(hashDifficulty(zero)).toBe(MAX_UINT256);
    expect(checkHash(zero, 2n ** 300n)).toBe(true);
    const top = new Uint8Array(32).fill(0xff);
    expect(hashDifficulty(top)).toBe(1n);
    expect(checkHash(top, 1)).toBe(true);
    expect(checkHash(top, 2)).toBe(false);
    expect(errorCode(() => hashToBigInt(new Uint8Array(31)))).toBe('INVALID_HASH');
    expect(errorCode(() => checkHash(top, 0))).toBe('INVALID_DIFFICULTY');
  });

  it('checkHash with a number difficulty (the share path) agrees with H × D < 2^256 exactly, also at the boundary', () => {
    const exact = (bytes: Uint8Array, d: number) => hashToBigInt(bytes) * BigInt(d) < 2n ** 256n;
    // Share-range hashes: the top bytes small, so boundary difficulties are safe integers.
    const shareHash = fc
      .tuple(fc.uint8Array({ minLength: 26, maxLength: 26 }), fc.integer({ min: 0, max: 0xffffffff }))
      .map(([low, top]) =>
        Uint8Array.from([...low, 0, 0, top & 0xff, (top >>> 8) & 0xff, (top >>> 16) & 0xff, top >>> 24]),
      );
    fc.assert(
      fc.property(shareHash, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (bytes, d) => {
        expect(checkHash(bytes, d)).toBe(exact(bytes, d));
        expect(checkHash(bytes, BigInt(d))).toBe(exact(bytes, d));
        const max = hashDifficulty(bytes);
        if (max < BigInt(Number.MAX_SAFE_INTEGER)) {
          expect(checkHash(bytes, Number(max))).toBe(true);
          expect(checkHash(bytes, Number(max) + 1)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
    // Exactly at (T+1)·D = 2^64 and T·D = 2^64, where only the exact check can decide.
    for (const [topHex, d] of [
      ['0000000100000000', 2 ** 32],
      ['00000000ffffffff', 2 ** 32 + 1],
      ['0000000000000100', 2 ** 40],
    ] as const) {
      for (const low of [0x00, 0xff]) {
        const bytes = new Uint8Array(32).fill(low);
        bytes.set(hexToBytes(topHex).reverse(), 24);
        expect(checkHash(bytes, d)).toBe(exact(bytes, d));
        expect(checkHash(bytes, d - 1)).toBe(exact(bytes, d - 1));
      }
    }
  });

  it('blockTargetHex: 64 digits of (2^256-1)/D, and a hash meets D iff it is at most that target', () => {
    expect(blockTargetHex(1)).toBe('f'.repeat(64));
    expect(blockTargetHex(format.block_v9_pool_flow.pow_hash_max_difficulty)).toHaveLength(64);
    expect(errorCode(() => blockTargetHex(0))).toBe('INVALID_DIFFICULTY');
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.bigInt({ min: 1n, max: 1n << 70n }),
        (bytes, d) => {
          const target = BigInt(`0x${blockTargetHex(d)}`);
          expect(hashToBigInt(bytes) <= target).toBe(checkHash(bytes, d));
        },
      ),
    );
    const max = BigInt(format.block_v9_pool_flow.pow_hash_max_difficulty);
    expect(hashToBigInt(powHash) <= BigInt(`0x${blockTargetHex(max)}`)).toBe(true);
    expect(hashToBigInt(powHash) <= BigInt(`0x${blockTargetHex(max + 1n)}`)).toBe(false);
  });

  it('checkHash(h, hashDifficulty(h)) holds and fails one above', () => {
    const hash = fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .filter((bytes) => bytes.some((b) => b !== 0));
    fc.assert(
      fc.property(hash, (bytes) => {
        const max = hashDifficulty(bytes);
        expect(checkHash(bytes, max)).toBe(true);
        expect(checkHash(bytes, max + 1n)).toBe(false);
      }),
    );
    // Hashes near the share range too, not just random ones (which all have difficulty ~1).
    const shareHash = fc
      .tuple(fc.uint8Array({ minLength: 28, maxLength: 28 }), fc.integer({ min: 1, max: 0xffffff }))
      .map(([low, top]) => Uint8Array.from([...low, top & 0xff, (top >> 8) & 0xff, top >> 16, 0]));
    fc.assert(
      fc.property(shareHash, (bytes) => {
        const max = hashDifficulty(bytes);
        expect(checkHash(bytes, max)).toBe(true);
        expect(checkHash(bytes, max + 1n)).toBe(false);
      }),
    );
  });
});
