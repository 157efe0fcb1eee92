// AES pieces CryptoNight needs: the AES-256 key schedule cut to 10 round keys, and one full
// encryption round (SubBytes, ShiftRows, MixColumns, AddRoundKey) in portable C++.
// The AES-NI round lives in cn_aesni.cc, the only file compiled for the `aes` target.
#ifndef FUEGO_NATIVE_AES_H
#define FUEGO_NATIVE_AES_H

#include <array>
#include <cstdint>

#include "gf256.h"

namespace fuego {

constexpr int kCnRoundKeys = 10;

// Expands a 32-byte AES-256 key and keeps the first 10 round keys (160 bytes, in the byte
// order of the standard: round key r = bytes 16r .. 16r+15).
void aes256_expand_10(const uint8_t key[32], uint8_t round_keys[kCnRoundKeys * 16]);

// T-table: column contribution of one byte after SubBytes+MixColumns, as a little-endian word
// (bytes 2s, s, s, 3s). The other three tables are byte rotations of it.
constexpr std::array<uint32_t, 256> make_aes_t0() {
  std::array<uint32_t, 256> t{};
  for (unsigned x = 0; x < 256; ++x) {
    const uint8_t s = kAesSbox[x];
    t[x] = uint32_t{gf_mul(s, 2)} | (uint32_t{s} << 8) | (uint32_t{s} << 16) | (uint32_t{gf_mul(s, 3)} << 24);
  }
  return t;
}

inline constexpr std::array<uint32_t, 256> kAesT0 = make_aes_t0();

inline uint32_t rotl32(uint32_t x, unsigned n) { return (x << n) | (x >> ((32 - n) & 31)); }

// One AES round on a 16-byte block held as four little-endian column words; `key` likewise.
// Equivalent to _mm_aesenc_si128(block, key).
inline void aes_round_portable(uint32_t col[4], const uint32_t key[4]) {
  uint32_t out[4];
  for (int c = 0; c < 4; ++c) {
    out[c] = kAesT0[col[c] & 0xff] ^ rotl32(kAesT0[(col[(c + 1) & 3] >> 8) & 0xff], 8) ^
             rotl32(kAesT0[(col[(c + 2) & 3] >> 16) & 0xff], 16) ^
             rotl32(kAesT0[(col[(c + 3) & 3] >> 24) & 0xff], 24) ^ key[c];
  }
  col[0] = out[0];
  col[1] = out[1];
  col[2] = out[2];
  col[3] = out[3];
}

}  // namespace fuego

#endif
