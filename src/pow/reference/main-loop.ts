import { AES_TABLES } from './aes-round.js';
import { mul64x64, variant2DivideSqrt } from './variant2-math.js';

/**
 * Steps 3 and 4 of CryptoNight (spec §7.2): the registers from the Keccak state, then the
 * memory-hard main loop over the scratchpad.
 *
 * Word indices: the scratchpad is an Int32Array and j is a byte address / 4, so a 16-byte block is
 * pad[j], pad[j|1], pad[j|2], pad[j|3] with lane x0 = (pad[j], pad[j|1]) and lane x1 =
 * (pad[j|2], pad[j|3]); the chunks j⊕0x10, j⊕0x20, j⊕0x30 are j^4, j^8, j^12.
 *
 * Written for speed, measured on Node 20 (TurboFan):
 * - Every value stays a signed 32-bit integer, so it stays int32 in machine registers (no doubles,
 *   no boxing). The AES round is inlined by hand: mul64x64 and variant2DivideSqrt use up V8's
 *   inlining budget (920 bytes of bytecode per optimized function), so nothing else is inlined.
 * - Variant 2's chunk shuffle is a function of its own, {@link shuffle}, called twice per
 *   iteration (its bytecode is over V8's 460-byte limit for inlining). It reads a, b and bp from
 *   REGISTERS, so no argument is boxed. Against the shuffle inlined by hand twice (one 185-line
 *   function) the main loop measured ~13% slower and the whole hash ~5%: the price of functions
 *   of at most 80 lines. A call alone costs ~2%. As slow or slower: the registers in locals and
 *   copied to a scratch each iteration, or in the `regs` argument; step 4.6 in the callee; one
 *   call for both shuffles; the shuffle under 460 bytes (a helper per 64-bit lane, which V8 could
 *   then inline in place of the division); a loop over the two lanes.
 * - 64-bit lane additions: for (xLo, xHi) + (yLo, yHi), lo = (xLo + yLo) | 0 and
 *   hi = (xHi + yHi + Number(lo >>> 0 < xLo >>> 0)) | 0. `Number(comparison)` compiles to a compare
 *   and a set-on-carry; `comparison ? 1 : 0` compiles to a branch, which these random carries
 *   mispredict half the time.
 * - Variant 2 has a loop of its own: tests of the variant inside the loop split its body into
 *   blocks and cost ~4%.
 * - The loop runs in chunks of CHUNK_ITERATIONS iterations; see there.
 */

/** The AES T-tables as non-exported module constants, which TurboFan folds (see aes-round.ts). */
const [T0, T1, T2, T3] = AES_TABLES;

/**
 * The main loop's registers between chunks, as 32-bit words: a = [0..3], b = [4..7], bp = [8..11],
 * D = [12, 13] (low, high) and R = [14] (only the low word of R is ever used).
 */
const REGISTER_WORDS = 15;

/**
 * Main-loop iterations per call of a chunk function. With one call per hash V8 runs the loop in
 * on-stack-replacement (OSR) code, which in some runs stays ~35% slower for good (it keeps the loop
 * variables as tagged values); many short calls get the function regularly optimized before OSR
 * starts. Measured: no slow runs in 20 at 256 (1 in 8 at 1024); the calls cost < 0.5%.
 */
const CHUNK_ITERATIONS = 256;

export interface MainLoopOptions {
  /** 0: original CryptoNight, 1: CNv1 tweak, 2: CNv2 integer math and shuffle. */
  readonly variant: 0 | 1 | 2;
  /** Variant 2 only: the reversed ("light", cn/upx2) chunk shuffle. */
  readonly light: boolean;
  /** Main-loop iterations (a multiple of CHUNK_ITERATIONS). */
  readonly iterations: number;
  /** Byte-address mask: 16-byte aligned, within the scratchpad. */
  readonly mask: number;
  /** Variant 1: the tweak XORed into lane x1 of the block written in 4.8, as (lo, hi) words. */
  readonly tweak: Int32Array;
}

/**
 * Step 3: a = S[0..15] ⊕ S[32..47], b = S[16..31] ⊕ S[48..63], bp = S[64..79] ⊕ S[80..95],
 * D = LE64(S[96..103]), R = LE64(S[104..111]).
 */
function initialRegisters(state: Uint8Array): Int32Array {
  const word = (i: number): number =>
    state[4 * i]! | (state[4 * i + 1]! << 8) | (state[4 * i + 2]! << 16) | (state[4 * i + 3]! << 24);
  const regs = new Int32Array(REGISTER_WORDS);
  for (let i = 0; i < 4; i++) {
    regs[i] = word(i) ^ word(8 + i);
    regs[4 + i] = word(4 + i) ^ word(12 + i);
    regs[8 + i] = word(16 + i) ^ word(20 + i);
  }
  regs[12] = word(24);
  regs[13] = word(25);
  regs[14] = word(26);
  return regs;
}

/** Steps 3 and 4: runs the main loop over `pad` from the Keccak `state`. */
export function mainLoop(pad: Int32Array, state: Uint8Array, options: MainLoopOptions): void {
  const { variant, light, iterations, mask, tweak } = options;
  const regs = initialRegisters(state);
  const out = new Int32Array(4); // the product of step 4.5 in variants 0 and 1
  for (let done = 0; done < iterations; done += CHUNK_ITERATIONS) {
    if (variant === 2) variant2Chunk(pad, regs, mask, light, CHUNK_ITERATIONS);
    else variant0or1Chunk(pad, regs, out, mask, variant === 1, tweak, CHUNK_ITERATIONS);
  }
}

/**
 * Variant 2's registers a = [0..3], b = [4..7], bp = [8..11] and D = [12, 13] while a chunk runs,
 * where {@link shuffle} reads them, and the product of step 4.5 = [14..17]. A module constant over
 * an explicit ArrayBuffer: its data is off the V8 heap, so it cannot move, and TurboFan addresses it
 * directly.
 */
const REGISTERS = new Int32Array(new ArrayBuffer(72));

/**
 * SHUFFLE(j) of variant 2 (spec §7.2 steps 4.2 and 4.7), with a, b, bp from REGISTERS. With the old
 * chunks C1 = P[j⊕0x10], C2 = P[j⊕0x20], C3 = P[j⊕0x30]:
 *   light (cn/upx2, "reversed"): P[j⊕0x10] = C1 + bp, P[j⊕0x20] = C3 + b, P[j⊕0x30] = C2 + a;
 *   standard CNv2:                P[j⊕0x10] = C3 + bp, P[j⊕0x20] = C1 + b, P[j⊕0x30] = C2 + a.
 * `toFirst` is the XOR offset (in words) of the chunk that goes to j⊕0x10: 4 light, 12 standard;
 * the other of the two goes to j⊕0x20. So one code path serves both orders. Chunk j itself is not
 * touched. (A number, not the `light` flag: a boolean argument costs a truthiness test per call.)
 */
function shuffle(pad: Int32Array, j: number, toFirst: number): void {
  const first = j ^ toFirst;
  const second = first ^ 8;
  const third = j ^ 8;
  const u0 = pad[first]!;
  const u1 = pad[first | 1]!;
  const u2 = pad[first | 2]!;
  const u3 = pad[first | 3]!;
  const v0 = pad[second]!;
  const v1 = pad[second | 1]!;
  const v2 = pad[second | 2]!;
  const v3 = pad[second | 3]!;
  const w0 = pad[third]!;
  const w1 = pad[third | 1]!;
  const w2 = pad[third | 2]!;
  const w3 = pad[third | 3]!;
  let k = j ^ 4;
  let lo = (u0 + REGISTERS[8]!) | 0;
  pad[k] = lo;
  pad[k | 1] = (u1 + REGISTERS[9]! + Number(lo >>> 0 < u0 >>> 0)) | 0;
  lo = (u2 + REGISTERS[10]!) | 0;
  pad[k | 2] = lo;
  pad[k | 3] = (u3 + REGISTERS[11]! + Number(lo >>> 0 < u2 >>> 0)) | 0;
  k = j ^ 8;
  lo = (v0 + REGISTERS[4]!) | 0;
  pad[k] = lo;
  pad[k | 1] = (v1 + REGISTERS[5]! + Number(lo >>> 0 < v0 >>> 0)) | 0;
  lo = (v2 + REGISTERS[6]!) | 0;
  pad[k | 2] = lo;
  pad[k | 3] = (v3 + REGISTERS[7]! + Number(lo >>> 0 < v2 >>> 0)) | 0;
  k = j ^ 12;
  lo = (w0 + REGISTERS[0]!) | 0;
  pad[k] = lo;
  pad[k | 1] = (w1 + REGISTERS[1]! + Number(lo >>> 0 < w0 >>> 0)) | 0;
  lo = (w2 + REGISTERS[2]!) | 0;
  pad[k | 2] = lo;
  pad[k | 3] = (w3 + REGISTERS[3]! + Number(lo >>> 0 < w2 >>> 0)) | 0;
}

/**
 * `count` iterations of the variant-2 main loop (spec §7.2 steps 4.1–4.9), from and back to the
 * registers `regs`: a, b, bp and D in REGISTERS meanwhile, R (on the division's chain) in a local.
 */
function variant2Chunk(pad: Int32Array, regs: Int32Array, mask: number, light: boolean, count: number): void {
  const toFirst = light ? 4 : 12;
  const reg = REGISTERS;
  reg.set(regs.subarray(0, 14));
  let r = regs[14]!;
  for (let n = 0; n < count; n++) {
    // 4.1  j = a0 & mask; c = AESROUND(P[j], key a). SHUFFLE(j) of 4.2 runs here already: it touches
    //      neither P[j] nor c, and with fewer values live across the call the loop is ~2% faster.
    let j = (reg[0]! & mask) >>> 2;
    let x0 = pad[j]!;
    let x1 = pad[j | 1]!;
    let x2 = pad[j | 2]!;
    let x3 = pad[j | 3]!;
    shuffle(pad, j, toFirst);
    const c0 = T0[x0 & 0xff]! ^ T1[(x1 >>> 8) & 0xff]! ^ T2[(x2 >>> 16) & 0xff]! ^ T3[x3 >>> 24]! ^ reg[0]!;
    const c1 = T0[x1 & 0xff]! ^ T1[(x2 >>> 8) & 0xff]! ^ T2[(x3 >>> 16) & 0xff]! ^ T3[x0 >>> 24]! ^ reg[1]!;
    const c2 = T0[x2 & 0xff]! ^ T1[(x3 >>> 8) & 0xff]! ^ T2[(x0 >>> 16) & 0xff]! ^ T3[x1 >>> 24]! ^ reg[2]!;
    const c3 = T0[x3 & 0xff]! ^ T1[(x0 >>> 8) & 0xff]! ^ T2[(x1 >>> 16) & 0xff]! ^ T3[x2 >>> 24]! ^ reg[3]!;

    // 4.2  (SHUFFLE(j), above;) P[j] = c ⊕ b.
    pad[j] = c0 ^ reg[4]!;
    pad[j | 1] = c1 ^ reg[5]!;
    pad[j | 2] = c2 ^ reg[6]!;
    pad[j | 3] = c3 ^ reg[7]!;

    // 4.3  j = c0 & mask; x = P[j].
    j = (c0 & mask) >>> 2;
    x0 = pad[j]!;
    x1 = pad[j | 1]!;
    x2 = pad[j | 2]!;
    x3 = pad[j | 3]!;

    // 4.4  x0 ^= D ^ (R << 32); D = (c1 div d) + ((c1 mod d) << 32) with d = (c0 + 2R) | 0x80000001;
    //      R = ⌊2·√(2^64 + c0 + D) − 2^33⌋.
    x0 ^= reg[12]!;
    x1 ^= reg[13]! ^ r;
    r = variant2DivideSqrt(reg, 12, c0, c1, c2, c3, r);

    // 4.5  (hi, lo) = c0 × x0, a 128-bit product: lo = reg[14, 15], hi = reg[16, 17].
    mul64x64(reg, 14, c0, c1, x0, x1);

    // 4.6  P[j⊕0x10] ^= (hi ‖ lo); (hi, lo) ^= P[j⊕0x20].
    pad[j ^ 4]! ^= reg[16]!;
    pad[(j ^ 4) | 1]! ^= reg[17]!;
    pad[(j ^ 4) | 2]! ^= reg[14]!;
    pad[(j ^ 4) | 3]! ^= reg[15]!;
    const hi0 = reg[16]! ^ pad[j ^ 8]!;
    const hi1 = reg[17]! ^ pad[(j ^ 8) | 1]!;
    const lo0 = reg[14]! ^ pad[(j ^ 8) | 2]!;
    const lo1 = reg[15]! ^ pad[(j ^ 8) | 3]!;

    // 4.7  SHUFFLE(j) as in 4.2, still with a, b, bp from the start of the iteration.
    shuffle(pad, j, toFirst);

    // 4.8  a0 += hi, a1 += lo; P[j] = a; a ^= x.
    const sum0 = (reg[0]! + hi0) | 0;
    const sum2 = (reg[2]! + lo0) | 0;
    pad[j] = sum0;
    pad[j | 1] = (reg[1]! + hi1 + Number(sum0 >>> 0 < reg[0]! >>> 0)) | 0;
    pad[j | 2] = sum2;
    pad[j | 3] = (reg[3]! + lo1 + Number(sum2 >>> 0 < reg[2]! >>> 0)) | 0;
    reg[0] = sum0 ^ x0;
    reg[1] = pad[j | 1]! ^ x1;
    reg[2] = sum2 ^ x2;
    reg[3] = pad[j | 3]! ^ x3;

    // 4.9  bp = b; b = c.
    reg[8] = reg[4]!;
    reg[9] = reg[5]!;
    reg[10] = reg[6]!;
    reg[11] = reg[7]!;
    reg[4] = c0;
    reg[5] = c1;
    reg[6] = c2;
    reg[7] = c3;
  }
  regs.set(reg.subarray(0, 14));
  regs[14] = r;
}

/** Variant-1 tweak of byte 11 of a freshly written block (bits 24..31 of its third word). */
function variant1TweakWord(w: number): number {
  const t = w >>> 24;
  const index = (((t >>> 3) & 6) | (t & 1)) << 1;
  return (w & 0x00ffffff) | ((t ^ ((0x75310 >>> index) & 0x30)) << 24);
}

/**
 * `count` iterations of the main loop of variants 0 and 1 (spec §7.2 steps 4.1–4.9 without the
 * variant-2 parts: no shuffle, no division or square root, so bp and D, R are unused), from and back
 * to the registers `regs`. Only historic blocks (majors 1–5) use it; it is not tuned.
 */
function variant0or1Chunk(
  pad: Int32Array,
  regs: Int32Array,
  out: Int32Array,
  mask: number,
  v1: boolean,
  tweak: Int32Array,
  count: number,
): void {
  const tw0 = tweak[0]!;
  const tw1 = tweak[1]!;
  let a0 = regs[0]!;
  let a1 = regs[1]!;
  let a2 = regs[2]!;
  let a3 = regs[3]!;
  let b0 = regs[4]!;
  let b1 = regs[5]!;
  let b2 = regs[6]!;
  let b3 = regs[7]!;

  for (let n = 0; n < count; n++) {
    // 4.1  j = a0 & mask; c = AESROUND(P[j], key a).
    let j = (a0 & mask) >>> 2;
    let x0 = pad[j]!;
    let x1 = pad[j | 1]!;
    let x2 = pad[j | 2]!;
    let x3 = pad[j | 3]!;
    const c0 = T0[x0 & 0xff]! ^ T1[(x1 >>> 8) & 0xff]! ^ T2[(x2 >>> 16) & 0xff]! ^ T3[x3 >>> 24]! ^ a0;
    const c1 = T0[x1 & 0xff]! ^ T1[(x2 >>> 8) & 0xff]! ^ T2[(x3 >>> 16) & 0xff]! ^ T3[x0 >>> 24]! ^ a1;
    const c2 = T0[x2 & 0xff]! ^ T1[(x3 >>> 8) & 0xff]! ^ T2[(x0 >>> 16) & 0xff]! ^ T3[x1 >>> 24]! ^ a2;
    const c3 = T0[x3 & 0xff]! ^ T1[(x0 >>> 8) & 0xff]! ^ T2[(x1 >>> 16) & 0xff]! ^ T3[x2 >>> 24]! ^ a3;

    // 4.2  P[j] = c ⊕ b (variant 1 also tweaks byte 11).
    pad[j] = c0 ^ b0;
    pad[j | 1] = c1 ^ b1;
    pad[j | 2] = v1 ? variant1TweakWord(c2 ^ b2) : c2 ^ b2;
    pad[j | 3] = c3 ^ b3;

    // 4.3  j = c0 & mask; x = P[j].
    j = (c0 & mask) >>> 2;
    x0 = pad[j]!;
    x1 = pad[j | 1]!;
    x2 = pad[j | 2]!;
    x3 = pad[j | 3]!;

    // 4.5  (hi, lo) = c0 × x0, a 128-bit product.
    mul64x64(out, 0, c0, c1, x0, x1);

    // 4.8  a0 += hi, a1 += lo; P[j] = a (variant 1: lane x1 ^= tweak); a ^= x.
    const hi0 = out[2]!;
    const lo0 = out[0]!;
    let sum = (a0 + hi0) | 0;
    a1 = (a1 + out[3]! + Number(sum >>> 0 < a0 >>> 0)) | 0;
    a0 = sum;
    sum = (a2 + lo0) | 0;
    a3 = (a3 + out[1]! + Number(sum >>> 0 < a2 >>> 0)) | 0;
    a2 = sum;
    pad[j] = a0;
    pad[j | 1] = a1;
    pad[j | 2] = a2 ^ tw0;
    pad[j | 3] = a3 ^ tw1;
    a0 ^= x0;
    a1 ^= x1;
    a2 ^= x2;
    a3 ^= x3;

    // 4.9  b = c.
    b0 = c0;
    b1 = c1;
    b2 = c2;
    b3 = c3;
  }

  regs.set([a0, a1, a2, a3, b0, b1, b2, b3], 0);
}
