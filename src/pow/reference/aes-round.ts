/**
 * The AES pieces CryptoNight uses: the AES-256 key schedule cut to 10 round keys, and single full
 * AES rounds (SubBytes, ShiftRows, MixColumns, AddRoundKey) with no whitening and no special last
 * round — the operation of the x86 `aesenc` instruction.
 *
 * Layout: a 16-byte block is four 32-bit words, word c = column c, packed little-endian
 * (row r of column c is bits 8r..8r+7 of word c). The same packing is used for round keys and for
 * the CryptoNight scratchpad, so blocks are read straight out of an Int32Array.
 *
 * Speed comes from the usual T-tables: T0[x] holds the MixColumns column of S(x) entering from
 * row 0, and T1..T3 are T0 rotated for rows 1..3. All tables are derived from the S-box at load.
 *
 * V8 notes, measured on Node 20 (with the unrolled rounds below, the fill is ~3× faster):
 * - Hot functions read the tables from module-level, non-exported `const`s. TurboFan folds those
 *   to constants: each lookup addresses its table directly, with no type check and no base pointer
 *   to load or keep in a register. Read through an export, an array or a parameter, the same loop
 *   is ~1.9× slower.
 * - Four separate tables beat one 1024-entry table with offsets (~1.45× in the fill).
 */

/** Multiplication by x (0x02) in GF(2^8) modulo the AES polynomial x^8 + x^4 + x^3 + x + 1. */
function xtime(b: number): number {
  return ((b << 1) ^ (b & 0x80 ? 0x1b : 0)) & 0xff;
}

/** The AES S-box: multiplicative inverse in GF(2^8) (0 ↦ 0) followed by the affine map. */
function buildSbox(): Uint8Array {
  // exp/log tables over the generator 0x03.
  const exp = new Uint8Array(256);
  const log = new Uint8Array(256);
  let g = 1;
  for (let i = 0; i < 255; i++) {
    exp[i] = g;
    log[g] = i;
    g ^= xtime(g); // g · 3 = g · 2 ⊕ g
  }
  const sbox = new Uint8Array(256);
  for (let x = 0; x < 256; x++) {
    const inv = x === 0 ? 0 : exp[(255 - log[x]!) % 255]!;
    let s = inv;
    for (let shift = 1; shift <= 4; shift++) s ^= ((inv << shift) | (inv >>> (8 - shift))) & 0xff;
    sbox[x] = s ^ 0x63;
  }
  return sbox;
}

/** The AES S-box (FIPS-197 Figure 7), computed at module load. */
export const AES_SBOX: Uint8Array = buildSbox();

function rotl32(w: number, n: number): number {
  return (w << n) | (w >>> (32 - n));
}

function buildTables(): [Int32Array, Int32Array, Int32Array, Int32Array] {
  const t0 = new Int32Array(256);
  const t1 = new Int32Array(256);
  const t2 = new Int32Array(256);
  const t3 = new Int32Array(256);
  for (let x = 0; x < 256; x++) {
    const s = AES_SBOX[x]!;
    const s2 = xtime(s);
    const s3 = s2 ^ s;
    // Row 0 input contributes (2s, s, s, 3s) to output rows 0..3.
    const w = s2 | (s << 8) | (s << 16) | (s3 << 24);
    t0[x] = w;
    t1[x] = rotl32(w, 8);
    t2[x] = rotl32(w, 16);
    t3[x] = rotl32(w, 24);
  }
  return [t0, t1, t2, t3];
}

/**
 * The four AES T-tables [T0, T1, T2, T3]: one round's output column c is
 * T0[row 0 of column c] ⊕ T1[row 1 of column c+1] ⊕ T2[row 2 of column c+2] ⊕ T3[row 3 of column c+3]
 * ⊕ round key word c. Exported for CryptoNight's main loop, which inlines its single round.
 */
export const AES_TABLES: readonly [Int32Array, Int32Array, Int32Array, Int32Array] = buildTables();
// Not exported, so that TurboFan can treat them as constants (see the V8 notes above).
const [T0, T1, T2, T3] = AES_TABLES;

/** Number of 32-bit words in the 10 round keys CryptoNight keeps. */
export const ROUND_KEY_WORDS = 40;

function subWord(w: number): number {
  return (
    AES_SBOX[w & 0xff]! |
    (AES_SBOX[(w >>> 8) & 0xff]! << 8) |
    (AES_SBOX[(w >>> 16) & 0xff]! << 16) |
    (AES_SBOX[w >>> 24]! << 24)
  );
}

/**
 * AES-256 key expansion of the 32 bytes at `key[offset..offset+31]`, keeping only the first 10
 * round keys (40 words, little-endian packed as described above).
 */
export function expandAesKey10(key: Uint8Array, offset = 0): Int32Array {
  const w = new Int32Array(ROUND_KEY_WORDS);
  for (let i = 0; i < 8; i++) {
    const o = offset + 4 * i;
    w[i] = key[o]! | (key[o + 1]! << 8) | (key[o + 2]! << 16) | (key[o + 3]! << 24);
  }
  let rcon = 1;
  for (let i = 8; i < ROUND_KEY_WORDS; i++) {
    let temp = w[i - 1]!;
    if (i % 8 === 0) {
      // RotWord moves byte 1 to byte 0, i.e. a right rotation of the little-endian word.
      temp = subWord((temp >>> 8) | (temp << 24)) ^ rcon;
      rcon = xtime(rcon);
    } else if (i % 8 === 4) {
      temp = subWord(temp);
    }
    w[i] = w[i - 8]! ^ temp;
  }
  return w;
}

/**
 * One full AES round on the block at `block[i..i+3]`, in place, with round key words k0..k3 (the
 * x86 `aesenc`). CryptoNight's main loop inlines this same computation with its register `a` as key.
 */
export function aesRound(block: Int32Array, i: number, k0: number, k1: number, k2: number, k3: number): void {
  const x0 = block[i]!;
  const x1 = block[i + 1]!;
  const x2 = block[i + 2]!;
  const x3 = block[i + 3]!;
  block[i] = T0[x0 & 0xff]! ^ T1[(x1 >>> 8) & 0xff]! ^ T2[(x2 >>> 16) & 0xff]! ^ T3[x3 >>> 24]! ^ k0;
  block[i + 1] = T0[x1 & 0xff]! ^ T1[(x2 >>> 8) & 0xff]! ^ T2[(x3 >>> 16) & 0xff]! ^ T3[x0 >>> 24]! ^ k1;
  block[i + 2] = T0[x2 & 0xff]! ^ T1[(x3 >>> 8) & 0xff]! ^ T2[(x0 >>> 16) & 0xff]! ^ T3[x1 >>> 24]! ^ k2;
  block[i + 3] = T0[x3 & 0xff]! ^ T1[(x0 >>> 8) & 0xff]! ^ T2[(x1 >>> 16) & 0xff]! ^ T3[x2 >>> 24]! ^ k3;
}

/**
 * The shared loop of {@link aesFillColumn} and {@link aesFoldColumn}: `count` times (fold: XOR in the
 * block at pad[o]), 10 AES rounds, (fill: store the block at pad[o]), o = offset + n·stride.
 *
 * The 10 rounds are unrolled, each reading its 4 round-key words straight from `keys` at fixed
 * indices (TurboFan checks `keys` once, outside the loop); rounds alternate between the x and the
 * y words (odd rounds x → y, even rounds y → x), so no copies are needed. A loop over the rounds
 * (two per trip, keys read from a module-level array) measured 2.3× slower; copying the keys into 40
 * local constants first, as before, no faster.
 */
function tenRoundsColumn(
  block: Int32Array,
  keys: Int32Array,
  pad: Int32Array,
  offset: number,
  stride: number,
  count: number,
  fold: boolean,
): void {
  let x0 = block[0]!;
  let x1 = block[1]!;
  let x2 = block[2]!;
  let x3 = block[3]!;
  let y0: number, y1: number, y2: number, y3: number;
  for (let n = 0, o = offset; n < count; n++, o += stride) {
    if (fold) {
      x0 ^= pad[o]!;
      x1 ^= pad[o + 1]!;
      x2 ^= pad[o + 2]!;
      x3 ^= pad[o + 3]!;
    }
    y0 = T0[x0 & 0xff]! ^ T1[(x1 >>> 8) & 0xff]! ^ T2[(x2 >>> 16) & 0xff]! ^ T3[x3 >>> 24]! ^ keys[0]!;
    y1 = T0[x1 & 0xff]! ^ T1[(x2 >>> 8) & 0xff]! ^ T2[(x3 >>> 16) & 0xff]! ^ T3[x0 >>> 24]! ^ keys[1]!;
    y2 = T0[x2 & 0xff]! ^ T1[(x3 >>> 8) & 0xff]! ^ T2[(x0 >>> 16) & 0xff]! ^ T3[x1 >>> 24]! ^ keys[2]!;
    y3 = T0[x3 & 0xff]! ^ T1[(x0 >>> 8) & 0xff]! ^ T2[(x1 >>> 16) & 0xff]! ^ T3[x2 >>> 24]! ^ keys[3]!;
    x0 = T0[y0 & 0xff]! ^ T1[(y1 >>> 8) & 0xff]! ^ T2[(y2 >>> 16) & 0xff]! ^ T3[y3 >>> 24]! ^ keys[4]!;
    x1 = T0[y1 & 0xff]! ^ T1[(y2 >>> 8) & 0xff]! ^ T2[(y3 >>> 16) & 0xff]! ^ T3[y0 >>> 24]! ^ keys[5]!;
    x2 = T0[y2 & 0xff]! ^ T1[(y3 >>> 8) & 0xff]! ^ T2[(y0 >>> 16) & 0xff]! ^ T3[y1 >>> 24]! ^ keys[6]!;
    x3 = T0[y3 & 0xff]! ^ T1[(y0 >>> 8) & 0xff]! ^ T2[(y1 >>> 16) & 0xff]! ^ T3[y2 >>> 24]! ^ keys[7]!;
    y0 = T0[x0 & 0xff]! ^ T1[(x1 >>> 8) & 0xff]! ^ T2[(x2 >>> 16) & 0xff]! ^ T3[x3 >>> 24]! ^ keys[8]!;
    y1 = T0[x1 & 0xff]! ^ T1[(x2 >>> 8) & 0xff]! ^ T2[(x3 >>> 16) & 0xff]! ^ T3[x0 >>> 24]! ^ keys[9]!;
    y2 = T0[x2 & 0xff]! ^ T1[(x3 >>> 8) & 0xff]! ^ T2[(x0 >>> 16) & 0xff]! ^ T3[x1 >>> 24]! ^ keys[10]!;
    y3 = T0[x3 & 0xff]! ^ T1[(x0 >>> 8) & 0xff]! ^ T2[(x1 >>> 16) & 0xff]! ^ T3[x2 >>> 24]! ^ keys[11]!;
    x0 = T0[y0 & 0xff]! ^ T1[(y1 >>> 8) & 0xff]! ^ T2[(y2 >>> 16) & 0xff]! ^ T3[y3 >>> 24]! ^ keys[12]!;
    x1 = T0[y1 & 0xff]! ^ T1[(y2 >>> 8) & 0xff]! ^ T2[(y3 >>> 16) & 0xff]! ^ T3[y0 >>> 24]! ^ keys[13]!;
    x2 = T0[y2 & 0xff]! ^ T1[(y3 >>> 8) & 0xff]! ^ T2[(y0 >>> 16) & 0xff]! ^ T3[y1 >>> 24]! ^ keys[14]!;
    x3 = T0[y3 & 0xff]! ^ T1[(y0 >>> 8) & 0xff]! ^ T2[(y1 >>> 16) & 0xff]! ^ T3[y2 >>> 24]! ^ keys[15]!;
    y0 = T0[x0 & 0xff]! ^ T1[(x1 >>> 8) & 0xff]! ^ T2[(x2 >>> 16) & 0xff]! ^ T3[x3 >>> 24]! ^ keys[16]!;
    y1 = T0[x1 & 0xff]! ^ T1[(x2 >>> 8) & 0xff]! ^ T2[(x3 >>> 16) & 0xff]! ^ T3[x0 >>> 24]! ^ keys[17]!;
    y2 = T0[x2 & 0xff]! ^ T1[(x3 >>> 8) & 0xff]! ^ T2[(x0 >>> 16) & 0xff]! ^ T3[x1 >>> 24]! ^ keys[18]!;
    y3 = T0[x3 & 0xff]! ^ T1[(x0 >>> 8) & 0xff]! ^ T2[(x1 >>> 16) & 0xff]! ^ T3[x2 >>> 24]! ^ keys[19]!;
    x0 = T0[y0 & 0xff]! ^ T1[(y1 >>> 8) & 0xff]! ^ T2[(y2 >>> 16) & 0xff]! ^ T3[y3 >>> 24]! ^ keys[20]!;
    x1 = T0[y1 & 0xff]! ^ T1[(y2 >>> 8) & 0xff]! ^ T2[(y3 >>> 16) & 0xff]! ^ T3[y0 >>> 24]! ^ keys[21]!;
    x2 = T0[y2 & 0xff]! ^ T1[(y3 >>> 8) & 0xff]! ^ T2[(y0 >>> 16) & 0xff]! ^ T3[y1 >>> 24]! ^ keys[22]!;
    x3 = T0[y3 & 0xff]! ^ T1[(y0 >>> 8) & 0xff]! ^ T2[(y1 >>> 16) & 0xff]! ^ T3[y2 >>> 24]! ^ keys[23]!;
    y0 = T0[x0 & 0xff]! ^ T1[(x1 >>> 8) & 0xff]! ^ T2[(x2 >>> 16) & 0xff]! ^ T3[x3 >>> 24]! ^ keys[24]!;
    y1 = T0[x1 & 0xff]! ^ T1[(x2 >>> 8) & 0xff]! ^ T2[(x3 >>> 16) & 0xff]! ^ T3[x0 >>> 24]! ^ keys[25]!;
    y2 = T0[x2 & 0xff]! ^ T1[(x3 >>> 8) & 0xff]! ^ T2[(x0 >>> 16) & 0xff]! ^ T3[x1 >>> 24]! ^ keys[26]!;
    y3 = T0[x3 & 0xff]! ^ T1[(x0 >>> 8) & 0xff]! ^ T2[(x1 >>> 16) & 0xff]! ^ T3[x2 >>> 24]! ^ keys[27]!;
    x0 = T0[y0 & 0xff]! ^ T1[(y1 >>> 8) & 0xff]! ^ T2[(y2 >>> 16) & 0xff]! ^ T3[y3 >>> 24]! ^ keys[28]!;
    x1 = T0[y1 & 0xff]! ^ T1[(y2 >>> 8) & 0xff]! ^ T2[(y3 >>> 16) & 0xff]! ^ T3[y0 >>> 24]! ^ keys[29]!;
    x2 = T0[y2 & 0xff]! ^ T1[(y3 >>> 8) & 0xff]! ^ T2[(y0 >>> 16) & 0xff]! ^ T3[y1 >>> 24]! ^ keys[30]!;
    x3 = T0[y3 & 0xff]! ^ T1[(y0 >>> 8) & 0xff]! ^ T2[(y1 >>> 16) & 0xff]! ^ T3[y2 >>> 24]! ^ keys[31]!;
    y0 = T0[x0 & 0xff]! ^ T1[(x1 >>> 8) & 0xff]! ^ T2[(x2 >>> 16) & 0xff]! ^ T3[x3 >>> 24]! ^ keys[32]!;
    y1 = T0[x1 & 0xff]! ^ T1[(x2 >>> 8) & 0xff]! ^ T2[(x3 >>> 16) & 0xff]! ^ T3[x0 >>> 24]! ^ keys[33]!;
    y2 = T0[x2 & 0xff]! ^ T1[(x3 >>> 8) & 0xff]! ^ T2[(x0 >>> 16) & 0xff]! ^ T3[x1 >>> 24]! ^ keys[34]!;
    y3 = T0[x3 & 0xff]! ^ T1[(x0 >>> 8) & 0xff]! ^ T2[(x1 >>> 16) & 0xff]! ^ T3[x2 >>> 24]! ^ keys[35]!;
    x0 = T0[y0 & 0xff]! ^ T1[(y1 >>> 8) & 0xff]! ^ T2[(y2 >>> 16) & 0xff]! ^ T3[y3 >>> 24]! ^ keys[36]!;
    x1 = T0[y1 & 0xff]! ^ T1[(y2 >>> 8) & 0xff]! ^ T2[(y3 >>> 16) & 0xff]! ^ T3[y0 >>> 24]! ^ keys[37]!;
    x2 = T0[y2 & 0xff]! ^ T1[(y3 >>> 8) & 0xff]! ^ T2[(y0 >>> 16) & 0xff]! ^ T3[y1 >>> 24]! ^ keys[38]!;
    x3 = T0[y3 & 0xff]! ^ T1[(y0 >>> 8) & 0xff]! ^ T2[(y1 >>> 16) & 0xff]! ^ T3[y2 >>> 24]! ^ keys[39]!;
    if (!fold) {
      pad[o] = x0;
      pad[o + 1] = x1;
      pad[o + 2] = x2;
      pad[o + 3] = x3;
    }
  }
  block[0] = x0;
  block[1] = x1;
  block[2] = x2;
  block[3] = x3;
}

/**
 * CryptoNight's scratchpad fill for one of the 8 text blocks: starting from the block `block`
 * (4 words, updated in place), `count` times apply 10 AES rounds with `keys` and store the result
 * at pad[offset + n·stride] for n = 0, 1, …. A hot path: 8 × 1024 × 10 rounds per light hash.
 */
export function aesFillColumn(
  block: Int32Array,
  keys: Int32Array,
  pad: Int32Array,
  offset: number,
  stride: number,
  count: number,
): void {
  tenRoundsColumn(block, keys, pad, offset, stride, count, false);
}

/**
 * CryptoNight's scratchpad fold for one text block: `count` times XOR in the scratchpad block at
 * pad[offset + n·stride] and apply 10 AES rounds with `keys`. `block` (4 words) is updated in place.
 */
export function aesFoldColumn(
  block: Int32Array,
  keys: Int32Array,
  pad: Int32Array,
  offset: number,
  stride: number,
  count: number,
): void {
  tenRoundsColumn(block, keys, pad, offset, stride, count, true);
}
