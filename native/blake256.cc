// BLAKE-256 (final round, 14 rounds): HAIFA-style compression of 512-bit big-endian blocks with
// a 64-bit bit counter; IV as SHA-256, constants are the first digits of pi.
#include <cstring>

#include "common.h"
#include "final_hashes.h"

namespace fuego {
namespace {

constexpr uint32_t kIv[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                             0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};

constexpr uint32_t kPi[16] = {0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0,
                              0x082EFA98, 0xEC4E6C89, 0x452821E6, 0x38D01377, 0xBE5466CF, 0x34E90C6C,
                              0xC0AC29B7, 0xC97C50DD, 0x3F84D5B5, 0xB5470917};

constexpr uint8_t kSigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

// counter = message bits up to and including this block (0 for a block of padding only).
void compress(uint32_t h[8], const uint8_t block[64], uint64_t counter) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = load_be32(block + 4 * i);
  uint32_t v[16];
  for (int i = 0; i < 8; ++i) v[i] = h[i];
  for (int i = 0; i < 4; ++i) v[8 + i] = kPi[i];  // salt is zero
  v[12] = static_cast<uint32_t>(counter) ^ kPi[4];
  v[13] = static_cast<uint32_t>(counter) ^ kPi[5];
  v[14] = static_cast<uint32_t>(counter >> 32) ^ kPi[6];
  v[15] = static_cast<uint32_t>(counter >> 32) ^ kPi[7];

  auto g = [&](const uint8_t* s, int i, int a, int b, int c, int d) {
    const uint8_t x = s[2 * i], y = s[2 * i + 1];
    v[a] += v[b] + (m[x] ^ kPi[y]);
    v[d] = rotr32(v[d] ^ v[a], 16);
    v[c] += v[d];
    v[b] = rotr32(v[b] ^ v[c], 12);
    v[a] += v[b] + (m[y] ^ kPi[x]);
    v[d] = rotr32(v[d] ^ v[a], 8);
    v[c] += v[d];
    v[b] = rotr32(v[b] ^ v[c], 7);
  };
  for (int round = 0; round < 14; ++round) {
    const uint8_t* s = kSigma[round % 10];
    g(s, 0, 0, 4, 8, 12);
    g(s, 1, 1, 5, 9, 13);
    g(s, 2, 2, 6, 10, 14);
    g(s, 3, 3, 7, 11, 15);
    g(s, 4, 0, 5, 10, 15);
    g(s, 5, 1, 6, 11, 12);
    g(s, 6, 2, 7, 8, 13);
    g(s, 7, 3, 4, 9, 14);
  }
  for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

}  // namespace

// Padding: a 1 bit, zeros, a 1 bit at the end of byte 55 of the last block, then the 64-bit
// big-endian bit length in bytes 56..63.
void blake256(const uint8_t* input, size_t len, uint8_t out[32]) {
  uint32_t h[8];
  std::memcpy(h, kIv, sizeof h);
  const uint64_t total_bits = static_cast<uint64_t>(len) * 8;
  uint64_t counted = 0;
  while (len >= 64) {
    counted += 512;
    compress(h, input, counted);
    input += 64;
    len -= 64;
  }
  uint8_t block[64] = {};
  if (len > 0) std::memcpy(block, input, len);
  block[len] = 0x80;
  uint64_t counter = len > 0 ? total_bits : 0;
  if (len >= 56) {
    compress(h, block, counter);
    std::memset(block, 0, sizeof block);
    counter = 0;
  }
  block[55] |= 0x01;
  store_be32(block + 56, static_cast<uint32_t>(total_bits >> 32));
  store_be32(block + 60, static_cast<uint32_t>(total_bits));
  compress(h, block, counter);
  for (int i = 0; i < 8; ++i) store_be32(out + 4 * i, h[i]);
}

}  // namespace fuego
