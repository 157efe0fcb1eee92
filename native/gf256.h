// GF(2^8) arithmetic with the AES polynomial x^8 + x^4 + x^3 + x + 1 (0x11b), and the AES S-box
// derived from its definition (multiplicative inverse followed by the affine map). Shared by AES
// (CryptoNight scratchpad) and Groestl, which uses the same S-box and field.
#ifndef FUEGO_NATIVE_GF256_H
#define FUEGO_NATIVE_GF256_H

#include <array>
#include <cstdint>

namespace fuego {

constexpr uint8_t gf_xtime(uint8_t x) {
  return static_cast<uint8_t>((x << 1) ^ ((x & 0x80) ? 0x1b : 0x00));
}

constexpr uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t product = 0;
  while (b != 0) {
    if (b & 1) product ^= a;
    a = gf_xtime(a);
    b >>= 1;
  }
  return product;
}

// a^254 == a^-1 for a != 0 (the multiplicative group has order 255); 0 maps to 0.
constexpr uint8_t gf_inverse(uint8_t a) {
  uint8_t result = 1;
  uint8_t base = a;
  unsigned e = 254;
  while (e != 0) {
    if (e & 1) result = gf_mul(result, base);
    base = gf_mul(base, base);
    e >>= 1;
  }
  return a == 0 ? 0 : result;
}

constexpr uint8_t rotl8(uint8_t x, unsigned n) {
  return static_cast<uint8_t>((x << n) | (x >> (8 - n)));
}

constexpr std::array<uint8_t, 256> make_aes_sbox() {
  std::array<uint8_t, 256> box{};
  for (unsigned x = 0; x < 256; ++x) {
    const uint8_t inv = gf_inverse(static_cast<uint8_t>(x));
    box[x] = static_cast<uint8_t>(inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63);
  }
  return box;
}

inline constexpr std::array<uint8_t, 256> kAesSbox = make_aes_sbox();

}  // namespace fuego

#endif
