import { AES_SBOX } from './aes-round.js';

/**
 * Grøstl-256, final-round (tweaked, 2011) specification.
 *
 * State: 64 bytes seen as an 8×8 byte matrix filled column by column (byte k is row k mod 8,
 * column k div 8). Compression f(h, m) = P(h ⊕ m) ⊕ Q(m) ⊕ h; output Ω(h) = the last 32 bytes of
 * P(h) ⊕ h. P and Q are 10 rounds of AddRoundConstant, SubBytes (AES S-box), ShiftBytes, MixBytes.
 *
 * Only used for the CryptoNight final hash (a quarter of hashes, 200-byte inputs); T-tables for
 * SubBytes + MixBytes keep it at a few percent of a cn/upx2 hash.
 */

const BLOCK_BYTES = 64;
const ROUNDS = 10;

/** ShiftBytes: row r moves left by SHIFT[r] columns. */
const SHIFT_P = [0, 1, 2, 3, 4, 5, 6, 7] as const;
const SHIFT_Q = [1, 3, 5, 7, 0, 2, 4, 6] as const;

/** First row of the circulant MixBytes matrix B = circ(02, 02, 03, 04, 05, 03, 05, 07). */
const MIX_ROW = [2, 2, 3, 4, 5, 3, 5, 7] as const;

function gfMul(a: number, b: number): number {
  let product = 0;
  for (let x = a, y = b; y !== 0; y >>>= 1) {
    if (y & 1) product ^= x;
    x = ((x << 1) ^ (x & 0x80 ? 0x1b : 0)) & 0xff;
  }
  return product;
}

/**
 * SubBytes and MixBytes together as T-tables: column k of B times S(x) is the 8-byte column
 * (B[0][k]·S(x), …, B[7][k]·S(x)), packed little-endian into two words, rows 0..3 in
 * MIX_LOW[256·k + x] and rows 4..7 in MIX_HIGH[256·k + x]; B[row][k] = MIX_ROW[(k − row) mod 8].
 * An output column is then the XOR of 8 such columns (16 word lookups instead of 64 byte products).
 */
const [MIX_LOW, MIX_HIGH] = (() => {
  const low = new Int32Array(8 * 256);
  const high = new Int32Array(8 * 256);
  for (let k = 0; k < 8; k++) {
    for (let x = 0; x < 256; x++) {
      const s = AES_SBOX[x]!;
      for (let row = 0; row < 8; row++) {
        const product = gfMul(MIX_ROW[(k - row + 8) % 8]!, s) << (8 * (row & 3));
        if (row < 4) low[256 * k + x]! |= product;
        else high[256 * k + x]! |= product;
      }
    }
  }
  return [low, high];
})();

/**
 * For ShiftBytes: SOURCE[8·col + row] = the state index that moves to row `row`, column `col`,
 * i.e. row `row` of column col + shift[row] (mod 8).
 */
function shiftSources(shift: readonly number[]): Uint8Array {
  return Uint8Array.from({ length: BLOCK_BYTES }, (_, i) => (((i >>> 3) + shift[i & 7]!) % 8) * 8 + (i & 7));
}
const SOURCE_P = shiftSources(SHIFT_P);
const SOURCE_Q = shiftSources(SHIFT_Q);

/** Applies P (`isQ` false) or Q (`isQ` true) to the 64-byte state in place. */
function permute(state: Uint8Array, isQ: boolean): void {
  const source = isQ ? SOURCE_Q : SOURCE_P;
  const tmp = new Uint8Array(BLOCK_BYTES);
  for (let round = 0; round < ROUNDS; round++) {
    // AddRoundConstant: P flips row 0 with (col << 4) ⊕ round; Q flips every byte with 0xff and
    // row 7 additionally with (col << 4) ⊕ round.
    for (let col = 0; col < 8; col++) {
      const c = (col << 4) ^ round;
      if (isQ) {
        for (let row = 0; row < 7; row++) state[col * 8 + row]! ^= 0xff;
        state[col * 8 + 7]! ^= 0xff ^ c;
      } else {
        state[col * 8]! ^= c;
      }
    }
    // ShiftBytes into tmp, then SubBytes and MixBytes column by column back into the state.
    for (let i = 0; i < BLOCK_BYTES; i++) tmp[i] = state[source[i]!]!;
    for (let col = 0; col < BLOCK_BYTES; col += 8) {
      let low = 0;
      let high = 0;
      for (let k = 0; k < 8; k++) {
        const x = (k << 8) | tmp[col + k]!;
        low ^= MIX_LOW[x]!;
        high ^= MIX_HIGH[x]!;
      }
      for (let row = 0; row < 4; row++) {
        state[col + row] = low >>> (8 * row);
        state[col + 4 + row] = high >>> (8 * row);
      }
    }
  }
}

/**
 * Grøstl-256 of `message`. Padding: 0x80, zeros, then the total number of 64-byte blocks as a
 * 64-bit big-endian integer in the last 8 bytes, so that at least 9 bytes are added.
 */
export function groestl256(message: Uint8Array): Uint8Array {
  const blocks = Math.floor((message.length + 9 + BLOCK_BYTES - 1) / BLOCK_BYTES);
  const padded = new Uint8Array(blocks * BLOCK_BYTES);
  padded.set(message);
  padded[message.length] = 0x80;
  new DataView(padded.buffer).setBigUint64(padded.length - 8, BigInt(blocks), false);

  // IV: the output size in bits (256) as a big-endian integer filling the 64 bytes.
  const h = new Uint8Array(BLOCK_BYTES);
  h[BLOCK_BYTES - 2] = 0x01;

  const p = new Uint8Array(BLOCK_BYTES);
  const q = new Uint8Array(BLOCK_BYTES);
  for (let offset = 0; offset < padded.length; offset += BLOCK_BYTES) {
    for (let i = 0; i < BLOCK_BYTES; i++) {
      const m = padded[offset + i]!;
      p[i] = h[i]! ^ m;
      q[i] = m;
    }
    permute(p, false);
    permute(q, true);
    for (let i = 0; i < BLOCK_BYTES; i++) h[i]! ^= p[i]! ^ q[i]!;
  }
  // Output transformation: trunc_256(P(h) ⊕ h).
  p.set(h);
  permute(p, false);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = p[32 + i]! ^ h[32 + i]!;
  return out;
}
