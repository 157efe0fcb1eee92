/**
 * JH-256, final-round (version 3, 42-round E8) specification, in its plain (non-bit-sliced) form.
 *
 * Bits are numbered big-endian: bit h_i of a byte string is bit (7 − i mod 8) of byte ⌊i/8⌋.
 * A 4-bit element A = A0‖A1‖A2‖A3 is stored as the number with A0 as its most significant bit.
 *
 * Compression F8(H, M): XOR the 512-bit block M into the first half of the 1024-bit state H,
 * apply the permutation E8, XOR M into the second half.
 * E8: group the 1024 state bits into 256 elements, run 42 rounds R8, ungroup.
 * R8(Q, C): element i goes through S-box S0 or S1 as bit i of the 256-bit round constant C says;
 * each pair (2i, 2i+1) goes through the MDS map L; the 256 elements are permuted by P8.
 * Round constants: C_0 = the first 256 bits of the fraction of √2; C_{r+1} = R6(C_r, 0).
 *
 * Used only for the CryptoNight final hash, so it aims at clarity; a few tables built at load keep
 * it fast enough (each round is 128 pair lookups and one index permutation).
 */

const BLOCK_BYTES = 64;
const STATE_BYTES = 128;
const ROUNDS = 42;

const SBOX0 = [9, 0, 4, 11, 13, 12, 3, 15, 1, 10, 2, 6, 7, 5, 8, 14] as const;
const SBOX1 = [3, 12, 6, 13, 5, 7, 1, 9, 15, 2, 0, 4, 11, 10, 14, 8] as const;

/** √2 − 1, first 256 bits of the fraction, as 64 hex digits: C_0 of the round-constant sequence. */
const C0_HEX = '6a09e667f3bcc908b2fb1366ea957d3e3adec17512775099da2f590b0667322a';

/** Multiplication by 2 in GF(2^4) modulo x^4 + x + 1. */
function times2(v: number): number {
  return ((v << 1) & 0xf) ^ (v & 0x8 ? 0x3 : 0);
}

/** The linear map L: (A, B) ↦ (C, D) with D = B ⊕ 2A and C = A ⊕ 2D; returns C << 4 | D. */
function linear(a: number, b: number): number {
  const d = b ^ times2(a);
  const c = a ^ times2(d);
  return (c << 4) | d;
}

/**
 * For P_d = φ_d ∘ P'_d ∘ π_d over 2^d elements, returns SRC with out[k] = in[SRC[k]].
 * π_d swaps the last two of every group of four; P'_d moves even elements to the first half and odd
 * ones to the second; φ_d swaps neighbours in the second half.
 */
function permutationSources(d: number): Uint16Array {
  const n = 1 << d;
  let idx = Uint16Array.from({ length: n }, (_, i) => i);
  const pi = new Uint16Array(n);
  for (let i = 0; i < n; i += 4) {
    pi[i] = idx[i]!;
    pi[i + 1] = idx[i + 1]!;
    pi[i + 2] = idx[i + 3]!;
    pi[i + 3] = idx[i + 2]!;
  }
  idx = pi;
  const pPrime = new Uint16Array(n);
  for (let i = 0; i < n / 2; i++) {
    pPrime[i] = idx[2 * i]!;
    pPrime[i + n / 2] = idx[2 * i + 1]!;
  }
  idx = pPrime;
  const phi = new Uint16Array(n);
  for (let i = 0; i < n / 2; i++) phi[i] = idx[i]!;
  for (let i = n / 2; i < n; i += 2) {
    phi[i] = idx[i + 1]!;
    phi[i + 1] = idx[i]!;
  }
  return phi;
}

/**
 * PAIR[c0 << 9 | c1 << 8 | a << 4 | b] = L(S_c0(a), S_c1(b)) as C << 4 | D: the S-box and linear
 * layers of one round for an element pair (a, b) whose round-constant bits are c0, c1.
 */
const PAIR = (() => {
  const table = new Uint8Array(1024);
  for (let index = 0; index < 1024; index++) {
    const sa = (index & 0x200 ? SBOX1 : SBOX0)[(index >>> 4) & 0xf]!;
    const sb = (index & 0x100 ? SBOX1 : SBOX0)[index & 0xf]!;
    table[index] = linear(sa, sb);
  }
  return table;
})();

/** DEST[i] = where P_d sends element i (the inverse of the source map). */
function permutationDestinations(d: number): Uint16Array {
  const sources = permutationSources(d);
  const dest = new Uint16Array(sources.length);
  for (let k = 0; k < sources.length; k++) dest[sources[k]!] = k;
  return dest;
}

/**
 * One round R_d from `input` into `output` (2^d nibbles each): S-boxes and L on each pair via
 * {@link PAIR}, then the permutation P_d via `dest`. `pairConstants[i]` holds the two round-constant
 * bits of pair i, as c0 << 1 | c1.
 */
function round(input: Uint8Array, output: Uint8Array, pairConstants: Uint8Array, dest: Uint16Array): void {
  for (let i = 0; i < input.length; i += 2) {
    const cd = PAIR[(pairConstants[i >>> 1]! << 8) | (input[i]! << 4) | input[i + 1]!]!;
    output[dest[i]!] = cd >>> 4;
    output[dest[i + 1]!] = cd & 0xf;
  }
}

/** The 42 round constants of E8, as 128 two-bit pair values each, from C_0 via R6(·, 0). */
function buildRoundConstants(): Uint8Array[] {
  const dest6 = permutationDestinations(6);
  const zero = new Uint8Array(32);
  let c = Uint8Array.from({ length: 64 }, (_, i) => Number.parseInt(C0_HEX[i]!, 16));
  let next = new Uint8Array(64);
  const constants: Uint8Array[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Bit i of the 256-bit constant (most significant first) selects the S-box of element i.
    const pairs = new Uint8Array(128);
    for (let i = 0; i < 256; i++) pairs[i >>> 1]! |= ((c[i >>> 2]! >>> (3 - (i & 3))) & 1) << (1 - (i & 1));
    constants.push(pairs);
    round(c, next, zero, dest6);
    [c, next] = [next, c];
  }
  return constants;
}

const ROUND_CONSTANTS = buildRoundConstants();
const DEST8 = permutationDestinations(8);

function bit(bytes: Uint8Array, i: number): number {
  return (bytes[i >>> 3]! >>> (7 - (i & 7))) & 1;
}

/** E8 on the 128-byte state in place. */
function e8(state: Uint8Array): void {
  // Grouping: element 2i takes bits i, i+256, i+512, i+768; element 2i+1 the same shifted by 128.
  const q = new Uint8Array(256);
  for (let i = 0; i < 128; i++) {
    q[2 * i] =
      (bit(state, i) << 3) | (bit(state, i + 256) << 2) | (bit(state, i + 512) << 1) | bit(state, i + 768);
    const j = i + 128;
    q[2 * i + 1] =
      (bit(state, j) << 3) | (bit(state, j + 256) << 2) | (bit(state, j + 512) << 1) | bit(state, j + 768);
  }
  let from = q;
  let to = new Uint8Array(256);
  for (let r = 0; r < ROUNDS; r++) {
    round(from, to, ROUND_CONSTANTS[r]!, DEST8);
    [from, to] = [to, from];
  }
  // Degrouping: the inverse of the grouping above.
  state.fill(0);
  const put = (i: number, nibble: number): void => {
    for (let k = 0; k < 4; k++) {
      const pos = i + 256 * k;
      state[pos >>> 3]! |= ((nibble >>> (3 - k)) & 1) << (7 - (pos & 7));
    }
  };
  for (let i = 0; i < 128; i++) {
    put(i, from[2 * i]!);
    put(i + 128, from[2 * i + 1]!);
  }
}

/** F8: absorb one 64-byte block at `block[offset..]` into the state. */
function compress(state: Uint8Array, block: Uint8Array, offset: number): void {
  for (let i = 0; i < BLOCK_BYTES; i++) state[i]! ^= block[offset + i]!;
  e8(state);
  for (let i = 0; i < BLOCK_BYTES; i++) state[BLOCK_BYTES + i]! ^= block[offset + i]!;
}

/** H(0) for JH-256: E8 of the state whose first 16 bits hold the digest size 256 (0x0100). */
function initialState(): Uint8Array {
  const h = new Uint8Array(STATE_BYTES);
  h[0] = 0x01;
  compress(h, new Uint8Array(BLOCK_BYTES), 0);
  return h;
}

const H0 = initialState();

/**
 * JH-256 of `message`. Padding: 0x80, zeros, then the message length in bits as a 128-bit
 * big-endian integer, adding between 64 and 127 bytes so the total is a multiple of 64.
 * The digest is the last 32 bytes of the final state.
 */
export function jh256(message: Uint8Array): Uint8Array {
  const padLength = BLOCK_BYTES + ((BLOCK_BYTES - (message.length % BLOCK_BYTES)) % BLOCK_BYTES);
  const padded = new Uint8Array(message.length + padLength);
  padded.set(message);
  padded[message.length] = 0x80;
  // Only the low 64 bits of the 128-bit length can be non-zero for any real input.
  new DataView(padded.buffer).setBigUint64(padded.length - 8, BigInt(message.length) * 8n, false);

  const state = H0.slice();
  for (let offset = 0; offset < padded.length; offset += BLOCK_BYTES) compress(state, padded, offset);
  return state.slice(STATE_BYTES - 32);
}
