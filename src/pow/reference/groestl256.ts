import { AES_SBOX } from './aes-round.js';

/**
 * Grøstl-256, final-round (tweaked, 2011) specification.
 *
 * State: 64 bytes seen as an 8×8 byte matrix filled column by column (byte k is row k mod 8,
 * column k div 8). Compression f(h, m) = P(h ⊕ m) ⊕ Q(m) ⊕ h; output Ω(h) = the last 32 bytes of
 * P(h) ⊕ h. P and Q are 10 rounds of AddRoundConstant, SubBytes (AES S-box), ShiftBytes, MixBytes.
 *
 * Only used for the CryptoNight final hash (a quarter of hashes, 200-byte inputs), so it favours
 * clarity over speed.
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

/** MUL[m][x] = m · x in GF(2^8) for the multipliers 0..7 used by MixBytes. */
const MUL: Uint8Array[] = Array.from({ length: 8 }, (_, m) =>
  Uint8Array.from({ length: 256 }, (_, x) => gfMul(m, x)),
);

/** Applies P (`isQ` false) or Q (`isQ` true) to the 64-byte state in place. */
function permute(state: Uint8Array, isQ: boolean): void {
  const shift = isQ ? SHIFT_Q : SHIFT_P;
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
    // SubBytes and ShiftBytes together: new[row][col] = S(old[row][col + shift[row]]).
    for (let col = 0; col < 8; col++) {
      for (let row = 0; row < 8; row++) {
        tmp[col * 8 + row] = AES_SBOX[state[((col + shift[row]!) % 8) * 8 + row]!]!;
      }
    }
    // MixBytes: each column times B, B[row][k] = MIX_ROW[(k − row) mod 8].
    for (let col = 0; col < 8; col++) {
      for (let row = 0; row < 8; row++) {
        let v = 0;
        for (let k = 0; k < 8; k++) v ^= MUL[MIX_ROW[(k - row + 8) % 8]!]![tmp[col * 8 + k]!]!;
        state[col * 8 + row] = v;
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
