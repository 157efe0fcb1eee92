// Groestl-256 (final-round tweak): 512-bit state as an 8x8 byte matrix, byte k of a block in
// row k % 8, column k / 8 (so the matrix is just the byte array, column after column).
// Compression f(h, m) = P(h ^ m) ^ Q(m) ^ h; output = last 32 bytes of P(h) ^ h.
#include <array>
#include <cstring>

#include "common.h"
#include "final_hashes.h"
#include "gf256.h"

namespace fuego {
namespace {

constexpr int kRounds = 10;
// MixBytes circulant: row i of the matrix is this vector rotated right by i.
constexpr uint8_t kMixRow[8] = {2, 2, 3, 4, 5, 3, 5, 7};
constexpr uint8_t kShiftP[8] = {0, 1, 2, 3, 4, 5, 6, 7};
constexpr uint8_t kShiftQ[8] = {1, 3, 5, 7, 0, 2, 4, 6};

constexpr std::array<std::array<uint8_t, 256>, 8> make_mul_tables() {
  std::array<std::array<uint8_t, 256>, 8> t{};
  for (unsigned c = 0; c < 8; ++c)
    for (unsigned x = 0; x < 256; ++x) t[c][x] = gf_mul(static_cast<uint8_t>(x), static_cast<uint8_t>(c));
  return t;
}
constexpr auto kMul = make_mul_tables();

template <bool IsQ>
void permute(uint8_t s[64]) {
  uint8_t t[64];
  const uint8_t* shift = IsQ ? kShiftQ : kShiftP;
  for (int r = 0; r < kRounds; ++r) {
    // AddRoundConstant
    if (IsQ) {
      for (int k = 0; k < 64; ++k) s[k] ^= 0xff;
      for (int col = 0; col < 8; ++col) s[col * 8 + 7] ^= static_cast<uint8_t>((col << 4) ^ r);
    } else {
      for (int col = 0; col < 8; ++col) s[col * 8] ^= static_cast<uint8_t>((col << 4) ^ r);
    }
    // SubBytes and ShiftBytes (row i moves left by shift[i])
    for (int col = 0; col < 8; ++col)
      for (int row = 0; row < 8; ++row) t[col * 8 + row] = kAesSbox[s[((col + shift[row]) & 7) * 8 + row]];
    // MixBytes, column by column
    for (int col = 0; col < 8; ++col) {
      const uint8_t* a = t + col * 8;
      for (int row = 0; row < 8; ++row) {
        uint8_t acc = 0;
        for (int k = 0; k < 8; ++k) acc ^= kMul[kMixRow[(k - row + 8) & 7]][a[k]];
        s[col * 8 + row] = acc;
      }
    }
  }
}

void compress(uint8_t h[64], const uint8_t m[64]) {
  uint8_t p[64], q[64];
  for (int k = 0; k < 64; ++k) p[k] = h[k] ^ m[k];
  std::memcpy(q, m, 64);
  permute<false>(p);
  permute<true>(q);
  for (int k = 0; k < 64; ++k) h[k] ^= p[k] ^ q[k];
}

}  // namespace

// Padding: 0x80, zeros, then the total number of 64-byte blocks (padding included) as a 64-bit
// big-endian integer in the last 8 bytes.
void groestl256(const uint8_t* input, size_t len, uint8_t out[32]) {
  uint8_t h[64] = {};
  h[62] = 0x01;  // IV: output length 256 as a 64-bit big-endian number
  const size_t total = len;
  while (len >= 64) {
    compress(h, input);
    input += 64;
    len -= 64;
  }
  uint8_t block[64] = {};
  if (len > 0) std::memcpy(block, input, len);
  block[len] = 0x80;
  const uint64_t blocks = total / 64 + (len >= 56 ? 2 : 1);
  if (len >= 56) {
    compress(h, block);
    std::memset(block, 0, sizeof block);
  }
  store_be32(block + 56, static_cast<uint32_t>(blocks >> 32));
  store_be32(block + 60, static_cast<uint32_t>(blocks));
  compress(h, block);
  uint8_t p[64];
  std::memcpy(p, h, 64);
  permute<false>(p);
  for (int k = 32; k < 64; ++k) out[k - 32] = p[k] ^ h[k];
}

}  // namespace fuego
