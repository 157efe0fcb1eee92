// JH-256 (final round, 42 rounds of R8), following the specification's element description:
// the 1024-bit state is grouped into 256 4-bit elements; each round substitutes every element
// with S0 or S1 (chosen by one bit of the round constant), applies the MDS map L to adjacent
// pairs and permutes the elements with P8 = phi8 . P'8 . pi8. Round constants come from
// C0 = frac(sqrt 2) by repeated R6 with an all-zero selector (computed at compile time here).
// Bits are numbered MSB first inside each byte; a 4-bit element's first bit is its MSB.
#include <array>
#include <cstring>

#include "common.h"
#include "final_hashes.h"

namespace fuego {
namespace {

constexpr int kRounds = 42;
constexpr uint8_t kS[2][16] = {{9, 0, 4, 11, 13, 12, 3, 15, 1, 10, 2, 6, 7, 5, 8, 14},
                               {3, 12, 6, 13, 5, 7, 1, 9, 15, 2, 0, 4, 11, 10, 14, 8}};

// Multiplication by x in GF(2^4) modulo x^4 + x + 1.
constexpr uint8_t times2(uint8_t a) {
  return static_cast<uint8_t>(((a << 1) & 0xf) ^ ((a & 8) ? 0x3 : 0x0));
}

// L: (A, B) -> (C, D) with D = 2A ^ B and C = 2D ^ A, written back in place.
constexpr void mds(uint8_t& a, uint8_t& b) {
  b = static_cast<uint8_t>(b ^ times2(a));
  a = static_cast<uint8_t>(a ^ times2(b));
}

// P_d on n = 2^d elements: swap the last two of every 4 (pi), gather even then odd (P'),
// swap neighbours in the second half (phi).
template <size_t N>
constexpr void permute_elements(std::array<uint8_t, N>& v) {
  for (size_t i = 0; i < N; i += 4) {
    const uint8_t t = v[i + 2];
    v[i + 2] = v[i + 3];
    v[i + 3] = t;
  }
  std::array<uint8_t, N> w{};
  for (size_t i = 0; i < N / 2; ++i) {
    w[i] = v[2 * i];
    w[i + N / 2] = v[2 * i + 1];
  }
  for (size_t i = N / 2; i < N; i += 2) {
    const uint8_t t = w[i];
    w[i] = w[i + 1];
    w[i + 1] = t;
  }
  v = w;
}

// Round constants as 64 nibbles each; C_{r+1} = R6(C_r) with S0 everywhere.
constexpr std::array<std::array<uint8_t, 64>, kRounds> make_round_constants() {
  constexpr char kC0[] = "6a09e667f3bcc908b2fb1366ea957d3e3adec17512775099da2f590b0667322a";
  std::array<std::array<uint8_t, 64>, kRounds> out{};
  std::array<uint8_t, 64> c{};
  for (int i = 0; i < 64; ++i) {
    const char ch = kC0[i];
    c[i] = static_cast<uint8_t>(ch <= '9' ? ch - '0' : ch - 'a' + 10);
  }
  for (int r = 0; r < kRounds; ++r) {
    out[r] = c;
    for (auto& e : c) e = kS[0][e];
    for (int i = 0; i < 64; i += 2) mds(c[i], c[i + 1]);
    permute_elements<64>(c);
  }
  return out;
}

constexpr auto kRoundConstants = make_round_constants();

// Speed-ups that keep the element description: (1) S-box + L on a pair of elements is one
// lookup in a table indexed by the two constant bits and the pair; (2) P8 is one gather through
// a precomputed source index.
constexpr std::array<std::array<uint8_t, 256>, 4> make_pair_table() {
  std::array<std::array<uint8_t, 256>, 4> t{};
  for (unsigned sel = 0; sel < 4; ++sel) {
    for (unsigned pair = 0; pair < 256; ++pair) {
      uint8_t a = kS[sel >> 1][pair >> 4];
      uint8_t b = kS[sel & 1][pair & 15];
      mds(a, b);
      t[sel][pair] = static_cast<uint8_t>((a << 4) | b);
    }
  }
  return t;
}

constexpr std::array<uint8_t, 256> make_p8_source() {
  std::array<uint8_t, 256> src{};
  for (unsigned i = 0; i < 256; ++i) src[i] = static_cast<uint8_t>(i);
  permute_elements<256>(src);  // src[i] = index of the element that lands at i
  return src;
}

// Per round, the two constant bits selecting the S-boxes of elements 2i and 2i+1.
constexpr std::array<std::array<uint8_t, 128>, kRounds> make_selectors() {
  std::array<std::array<uint8_t, 128>, kRounds> out{};
  for (int r = 0; r < kRounds; ++r) {
    for (unsigned i = 0; i < 128; ++i) {
      const unsigned e0 = 2 * i, e1 = 2 * i + 1;
      const unsigned b0 = (kRoundConstants[r][e0 >> 2] >> (3 - (e0 & 3))) & 1;
      const unsigned b1 = (kRoundConstants[r][e1 >> 2] >> (3 - (e1 & 3))) & 1;
      out[r][i] = static_cast<uint8_t>((b0 << 1) | b1);
    }
  }
  return out;
}

constexpr auto kPairTable = make_pair_table();
constexpr auto kP8Source = make_p8_source();
constexpr auto kSelectors = make_selectors();

inline unsigned bit_at(const uint8_t* bytes, unsigned i) { return (bytes[i >> 3] >> (7 - (i & 7))) & 1u; }

// E8: grouping, 42 rounds, degrouping.
void e8(uint8_t h[128]) {
  uint8_t q[256];
  uint8_t v[256];
  // Element 2i gathers bits i, i+256, i+512, i+768; element 2i+1 the same from i+128.
  for (unsigned i = 0; i < 128; ++i) {
    for (unsigned half = 0; half < 2; ++half) {
      const unsigned base = i + 128 * half;
      q[2 * i + half] = static_cast<uint8_t>((bit_at(h, base) << 3) | (bit_at(h, base + 256) << 2) |
                                             (bit_at(h, base + 512) << 1) | bit_at(h, base + 768));
    }
  }
  for (int r = 0; r < kRounds; ++r) {
    const auto& sel = kSelectors[r];
    for (unsigned i = 0; i < 128; ++i) {
      const uint8_t out = kPairTable[sel[i]][(q[2 * i] << 4) | q[2 * i + 1]];
      v[2 * i] = out >> 4;
      v[2 * i + 1] = out & 15;
    }
    for (unsigned i = 0; i < 256; ++i) q[i] = v[kP8Source[i]];
  }
  std::memset(h, 0, 128);
  for (unsigned i = 0; i < 128; ++i) {
    for (unsigned half = 0; half < 2; ++half) {
      const unsigned base = i + 128 * half;
      const uint8_t e = q[2 * i + half];
      const unsigned bits[4] = {base, base + 256, base + 512, base + 768};
      for (unsigned k = 0; k < 4; ++k) {
        if ((e >> (3 - k)) & 1) h[bits[k] >> 3] |= static_cast<uint8_t>(0x80 >> (bits[k] & 7));
      }
    }
  }
}

// F8: message into the first half, E8, message into the second half.
void f8(uint8_t h[128], const uint8_t m[64]) {
  for (int i = 0; i < 64; ++i) h[i] ^= m[i];
  e8(h);
  for (int i = 0; i < 64; ++i) h[64 + i] ^= m[i];
}

// H(0) = F8(H(-1), 0) with H(-1) = digest size 256 as a 16-bit big-endian number; computed
// once (function-local static: thread-safe initialisation, read-only afterwards).
const std::array<uint8_t, 128>& initial_state() {
  static const std::array<uint8_t, 128> state = [] {
    std::array<uint8_t, 128> h{};
    h[0] = 0x01;
    const uint8_t zero_block[64] = {};
    f8(h.data(), zero_block);
    return h;
  }();
  return state;
}

}  // namespace

// Padding: 0x80 and zeros so that at least 512 bits of padding are added, ending with the
// 128-bit big-endian message bit length (one extra block when the message fills its blocks,
// otherwise the partial block plus one more).
void jh256(const uint8_t* input, size_t len, uint8_t out[32]) {
  uint8_t h[128];
  std::memcpy(h, initial_state().data(), sizeof h);
  const uint64_t total_bits = static_cast<uint64_t>(len) * 8;
  while (len >= 64) {
    f8(h, input);
    input += 64;
    len -= 64;
  }
  uint8_t block[64] = {};
  if (len > 0) {
    std::memcpy(block, input, len);
    block[len] = 0x80;
    f8(h, block);
    std::memset(block, 0, sizeof block);
  } else {
    block[0] = 0x80;
  }
  store_be32(block + 56, static_cast<uint32_t>(total_bits >> 32));
  store_be32(block + 60, static_cast<uint32_t>(total_bits));
  f8(h, block);
  std::memcpy(out, h + 96, 32);
}

}  // namespace fuego
