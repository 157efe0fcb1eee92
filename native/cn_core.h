// CryptoNight core (explode, main loop, implode), written once as a template over the block
// operations so the AES-NI build (cn_aesni.cc) and the portable build (cn_portable.cc) run the
// same algorithm. Included by exactly those two files; everything here has internal linkage so
// the two instantiations (compiled with different target options) never get merged.
//
// Layout (fuego-format.md §7.2), S = 200-byte Keccak state of the input:
//   S[0..31]    AES key for the scratchpad fill      S[32..63]   AES key for the implode
//   S[64..191]  the 8 text blocks                     S[192..199] variant-1 tweak (with input[35..42])
//   a = S[0..15]^S[32..47], b = S[16..31]^S[48..63], bp = S[64..79]^S[80..95]
//   D = LE64(S[96..103]), R = LE64(S[104..111])      (variant-2 division / square-root registers)
#ifndef FUEGO_NATIVE_CN_CORE_H
#define FUEGO_NATIVE_CN_CORE_H

#include <cmath>
#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "aes.h"
#include "common.h"
#include "final_hashes.h"
#include "keccak.h"

namespace fuego {
namespace {

// 64x64 -> 128-bit product; returns the low half, `hi` receives the high half.
inline uint64_t cn_mul128(uint64_t x, uint64_t y, uint64_t* hi) {
#if defined(__SIZEOF_INT128__)
  const unsigned __int128 p = static_cast<unsigned __int128>(x) * y;
  *hi = static_cast<uint64_t>(p >> 64);
  return static_cast<uint64_t>(p);
#else
  const uint64_t x0 = x & 0xffffffffu, x1 = x >> 32, y0 = y & 0xffffffffu, y1 = y >> 32;
  const uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
  const uint64_t middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
  return (middle << 32) | (p00 & 0xffffffffu);
#endif
}

// floor(2 * sqrt(2^64 + n) - 2^33), exactly. floor(2*sqrt(X)) == isqrt(4X), so the answer is
// t - 2^33 for the largest t with t^2 <= 2^66 + 4n.
inline bool cn_square_exceeds(uint64_t t, uint64_t n) {
  // t^2 > 2^66 + 4n ?  (t < 2^35, so t^2 < 2^70)
#if defined(__SIZEOF_INT128__)
  const unsigned __int128 square = static_cast<unsigned __int128>(t) * t;
  const unsigned __int128 bound = (static_cast<unsigned __int128>(4 + (n >> 62)) << 64) | (n << 2);
  return square > bound;
#else
  uint64_t sq_hi;
  const uint64_t sq_lo = cn_mul128(t, t, &sq_hi);
  const uint64_t x_hi = 4 + (n >> 62);
  const uint64_t x_lo = n << 2;
  return sq_hi > x_hi || (sq_hi == x_hi && sq_lo > x_lo);
#endif
}

// 4(2^64 + n) = 2^66 + 4n lies in [2^66, 2^67), so its double has exponent 66 and, truncated,
// mantissa bits n >> 12: the double is built with a shift and an OR instead of two conversions.
// Its square root is within 2^-18 of the real 2*sqrt(2^64 + n) (the dropped 12 bits and the
// rounding of the root move it by less than that), so truncation is off by at most one either
// way; one exact 128-bit test in each direction settles it. The two tests are independent and
// run in parallel, which keeps this on the loop's critical path short.
inline uint64_t cn_sqrt_v2(uint64_t n) {
  const uint64_t bits = (uint64_t{1023 + 66} << 52) | (n >> 12);
  // The root lies in [2^33, 2^34): its double has exponent 33, so floor(root) is 2^33 plus the top
  // 33 mantissa bits, read straight from the bit pattern (shorter on the critical path than a
  // float-to-integer conversion): bits >> 19 = (1056 << 33) | (mantissa >> 19).
#if defined(__SSE2__)
  // sqrtsd directly: std::sqrt would keep an errno branch for negative inputs.
  const __m128d x = _mm_castsi128_pd(_mm_cvtsi64_si128(static_cast<long long>(bits)));
  const uint64_t root_bits =
      static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_castpd_si128(_mm_sqrt_sd(x, x))));
#else
  double x;
  std::memcpy(&x, &bits, sizeof x);
  const double root = std::sqrt(x);
  uint64_t root_bits;
  std::memcpy(&root_bits, &root, sizeof root_bits);
#endif
  const uint64_t t = (root_bits >> 19) - (uint64_t{1023 + 33 - 1} << 33);
  const uint64_t too_big = cn_square_exceeds(t, n) ? 1 : 0;
  const uint64_t too_small = cn_square_exceeds(t + 1, n) ? 0 : 1;
  return t - too_big + too_small - (uint64_t{1} << 33);
}

template <bool Light>
struct CnGeometry {
  static constexpr size_t kMemory = Light ? (size_t{1} << 17) : (size_t{1} << 21);
  static constexpr uint32_t kIterations = Light ? (1u << 14) : (1u << 19);
  static constexpr uint64_t kMask = kMemory - 16;
};

// Variant-2 chunk shuffle around 16-byte offset j (a, b, bp are the iteration's initial values).
// cn/upx2 (light) uses the reversed order; plain CNv2 the standard one.
template <class Ops, bool Light>
inline void cn_shuffle(uint8_t* pad, uint64_t j, typename Ops::Block a, typename Ops::Block b,
                       typename Ops::Block bp) {
  uint8_t* p1 = pad + (j ^ 0x10);
  uint8_t* p2 = pad + (j ^ 0x20);
  uint8_t* p3 = pad + (j ^ 0x30);
  const auto c1 = Ops::load(p1);
  const auto c2 = Ops::load(p2);
  const auto c3 = Ops::load(p3);
  if (Light) {
    Ops::store(p1, Ops::add64(c1, bp));
    Ops::store(p2, Ops::add64(c3, b));
  } else {
    Ops::store(p1, Ops::add64(c3, bp));
    Ops::store(p2, Ops::add64(c1, b));
  }
  Ops::store(p3, Ops::add64(c2, a));
}

// One hash in flight: the main loop's registers, its scratchpad and the Keccak state the fill
// started from (the implode and the final hash need it again).
template <class Ops>
struct CnLane {
  using Block = typename Ops::Block;
  uint8_t state[200];
  uint8_t* pad;
  Block a, b, bp;
  uint64_t division, root, tweak1;
};

// Keccak state, scratchpad fill and the main loop's initial registers. `input_len` >= 43 is
// required for Variant 1 (the caller checks). `pad` holds kMemory bytes, 16-byte aligned.
template <class Ops, int Variant, bool Light>
inline void cn_begin(const uint8_t* input, size_t input_len, uint8_t* pad, CnLane<Ops>& lane) {
  using Block = typename Ops::Block;
  using G = CnGeometry<Light>;
  uint8_t* state = lane.state;
  keccak_state(input, input_len, state);
  lane.pad = pad;
  lane.tweak1 = Variant == 1 ? load_le64(state + 192) ^ load_le64(input + 35) : 0;

  uint8_t key_bytes[kCnRoundKeys * 16];
  Block keys[kCnRoundKeys];
  Block text[8];

  // Scratchpad fill: 10 full rounds per text block, no whitening, then append the 128 bytes.
  aes256_expand_10(state, key_bytes);
  for (int r = 0; r < kCnRoundKeys; ++r) keys[r] = Ops::load(key_bytes + 16 * r);
  for (int i = 0; i < 8; ++i) text[i] = Ops::load(state + 64 + 16 * i);
  // Rounds outermost: the 8 blocks are independent, so each round issues 8 AES operations that
  // can overlap instead of one chain of 10 dependent ones per block.
  for (size_t offset = 0; offset < G::kMemory; offset += 128) {
    for (int r = 0; r < kCnRoundKeys; ++r) {
      for (int i = 0; i < 8; ++i) text[i] = Ops::aes_round(text[i], keys[r]);
    }
    for (int i = 0; i < 8; ++i) Ops::store(pad + offset + 16 * i, text[i]);
  }

  lane.a = Ops::xor_(Ops::load(state), Ops::load(state + 32));
  lane.b = Ops::xor_(Ops::load(state + 16), Ops::load(state + 48));
  lane.bp = Ops::xor_(Ops::load(state + 64), Ops::load(state + 80));
  lane.division = load_le64(state + 96);
  lane.root = load_le64(state + 104);
}

// One main-loop iteration on local copies of the registers (so they stay in registers).
template <class Ops, int Variant, bool Light>
FUEGO_ALWAYS_INLINE void cn_step(uint8_t* pad, typename Ops::Block& a, typename Ops::Block& b,
                                                   typename Ops::Block& bp, uint64_t& division, uint64_t& root,
                                                   uint64_t tweak1) {
  using Block = typename Ops::Block;
  using G = CnGeometry<Light>;
  const uint64_t j1 = Ops::lo(a) & G::kMask;
  uint8_t* p = pad + j1;
  const Block c = Ops::aes_round(Ops::load(p), a);
  if (Variant >= 2) cn_shuffle<Ops, Light>(pad, j1, a, b, bp);
  Ops::store(p, Ops::xor_(c, b));
  if (Variant == 1) {
    // Byte 11 of the stored block gets bits 4..5 flipped by a table picked from its own bits.
    const uint8_t t = p[11];
    const unsigned index = ((t >> 3) & 6) | (t & 1);
    p[11] = static_cast<uint8_t>(t ^ ((0x75310u >> (index << 1)) & 0x30));
  }

  const uint64_t c0 = Ops::lo(c);
  const uint64_t c1 = Ops::hi(c);
  const uint64_t j2 = c0 & G::kMask;
  p = pad + j2;
  const Block xb = Ops::load(p);
  uint64_t x0 = Ops::lo(xb);
  const uint64_t x1 = Ops::hi(xb);

  if (Variant >= 2) {
    x0 ^= division ^ (root << 32);
    const uint32_t divisor = static_cast<uint32_t>(c0 + (root << 1)) | 0x80000001u;
    division = static_cast<uint32_t>(c1 / divisor) + ((c1 % divisor) << 32);
    root = cn_sqrt_v2(c0 + division);
  }

  uint64_t hi;
  uint64_t lo = cn_mul128(c0, x0, &hi);

  if (Variant >= 2) {
    uint8_t* q1 = pad + (j2 ^ 0x10);
    Ops::store(q1, Ops::xor_(Ops::load(q1), Ops::make(hi, lo)));
    const Block q2 = Ops::load(pad + (j2 ^ 0x20));
    hi ^= Ops::lo(q2);
    lo ^= Ops::hi(q2);
    cn_shuffle<Ops, Light>(pad, j2, a, b, bp);
  }

  a = Ops::add64(a, Ops::make(hi, lo));
  Ops::store(p, a);
  if (Variant == 1) store_le64(p + 8, load_le64(p + 8) ^ tweak1);
  a = Ops::xor_(a, Ops::make(x0, x1));
  bp = b;
  b = c;
}

// The main loop of one lane.
template <class Ops, int Variant, bool Light>
inline void cn_main_loop(CnLane<Ops>& lane) {
  auto a = lane.a, b = lane.b, bp = lane.bp;
  uint64_t division = lane.division, root = lane.root;
  uint8_t* pad = lane.pad;
  for (uint32_t i = 0; i < CnGeometry<Light>::kIterations; ++i) {
    cn_step<Ops, Variant, Light>(pad, a, b, bp, division, root, lane.tweak1);
  }
}

// Implode (XOR each scratchpad chunk into the text blocks and encrypt with the second key), the
// Keccak permutation and the final hash.
template <class Ops, bool Light>
inline void cn_finish(CnLane<Ops>& lane, uint8_t out[32]) {
  using Block = typename Ops::Block;
  using G = CnGeometry<Light>;
  uint8_t* state = lane.state;
  const uint8_t* pad = lane.pad;
  uint8_t key_bytes[kCnRoundKeys * 16];
  Block keys[kCnRoundKeys];
  Block text[8];
  aes256_expand_10(state + 32, key_bytes);
  for (int r = 0; r < kCnRoundKeys; ++r) keys[r] = Ops::load(key_bytes + 16 * r);
  for (int i = 0; i < 8; ++i) text[i] = Ops::load(state + 64 + 16 * i);
  for (size_t offset = 0; offset < G::kMemory; offset += 128) {
    for (int i = 0; i < 8; ++i) text[i] = Ops::xor_(text[i], Ops::load(pad + offset + 16 * i));
    for (int r = 0; r < kCnRoundKeys; ++r) {
      for (int i = 0; i < 8; ++i) text[i] = Ops::aes_round(text[i], keys[r]);
    }
  }
  for (int i = 0; i < 8; ++i) Ops::store(state + 64 + 16 * i, text[i]);

  keccak_permute_bytes(state);
  final_hash(state[0] & 3, state, out);
}

template <class Ops, int Variant, bool Light>
void cn_hash(const uint8_t* input, size_t input_len, uint8_t* pad, uint8_t out[32]) {
  CnLane<Ops> lane;
  cn_begin<Ops, Variant, Light>(input, input_len, pad, lane);
  cn_main_loop<Ops, Variant, Light>(lane);
  cn_finish<Ops, Light>(lane, out);
}

// Two independent hashes with their main loops interleaved step by step. One main loop is a
// single chain of dependent loads, divisions and square roots that leaves most of the core idle;
// a second, independent chain fills those gaps, so a pair costs far less than two single hashes.
// `pads` are two separate scratchpads.
template <class Ops, int Variant, bool Light>
void cn_hash_pair(const uint8_t* const input[2], const size_t input_len[2], uint8_t* const pads[2],
                  uint8_t* const out[2]) {
  CnLane<Ops> first;
  CnLane<Ops> second;
  cn_begin<Ops, Variant, Light>(input[0], input_len[0], pads[0], first);
  cn_begin<Ops, Variant, Light>(input[1], input_len[1], pads[1], second);
  auto a0 = first.a, b0 = first.b, bp0 = first.bp;
  auto a1 = second.a, b1 = second.b, bp1 = second.bp;
  uint64_t division0 = first.division, root0 = first.root;
  uint64_t division1 = second.division, root1 = second.root;
  uint8_t* pad0 = first.pad;
  uint8_t* pad1 = second.pad;
  for (uint32_t i = 0; i < CnGeometry<Light>::kIterations; ++i) {
    cn_step<Ops, Variant, Light>(pad0, a0, b0, bp0, division0, root0, first.tweak1);
    cn_step<Ops, Variant, Light>(pad1, a1, b1, bp1, division1, root1, second.tweak1);
  }
  cn_finish<Ops, Light>(first, out[0]);
  cn_finish<Ops, Light>(second, out[1]);
}

// Runs the instantiation matching (variant, light); returns false for an unknown variant.
template <class Ops>
bool cn_dispatch(const uint8_t* input, size_t len, uint8_t* pad, uint8_t out[32], int variant, bool light) {
  switch (variant * 2 + (light ? 1 : 0)) {
    case 0: cn_hash<Ops, 0, false>(input, len, pad, out); return true;
    case 1: cn_hash<Ops, 0, true>(input, len, pad, out); return true;
    case 2: cn_hash<Ops, 1, false>(input, len, pad, out); return true;
    case 3: cn_hash<Ops, 1, true>(input, len, pad, out); return true;
    case 4: cn_hash<Ops, 2, false>(input, len, pad, out); return true;
    case 5: cn_hash<Ops, 2, true>(input, len, pad, out); return true;
    default: return false;
  }
}

// cn/upx2 (variant 2, light) of two inputs at once, see cn_hash_pair.
template <class Ops>
void cn_upx2_pair_dispatch(const uint8_t* const input[2], const size_t len[2], uint8_t* const pads[2],
                           uint8_t* const out[2]) {
  cn_hash_pair<Ops, 2, true>(input, len, pads, out);
}

}  // namespace
}  // namespace fuego

#endif
