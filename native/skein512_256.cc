// Skein-512-256 (Skein 1.3): Threefish-512 in UBI chaining mode.
// Tweak words: t0 = bytes processed so far (position), t1 = type << 56 | first << 62 | final << 63.
#include <cstring>

#include "common.h"
#include "final_hashes.h"

namespace fuego {
namespace {

constexpr uint64_t kKeyParity = 0x1BD11BDAA9FC1A22ull;
constexpr unsigned kRot[8][4] = {{46, 36, 19, 37}, {33, 27, 14, 42}, {17, 49, 36, 39}, {44, 9, 54, 56},
                                 {39, 30, 34, 24}, {13, 50, 10, 17}, {25, 29, 39, 43}, {8, 35, 56, 22}};
constexpr int kPerm[8] = {2, 1, 4, 7, 6, 5, 0, 3};
constexpr uint64_t kTypeCfg = 4, kTypeMsg = 48, kTypeOut = 63;
constexpr uint64_t kFirst = uint64_t{1} << 62, kFinal = uint64_t{1} << 63;

void threefish512(const uint64_t key[8], const uint64_t tweak[2], const uint64_t in[8], uint64_t out[8]) {
  uint64_t k[9];
  k[8] = kKeyParity;
  for (int i = 0; i < 8; ++i) {
    k[i] = key[i];
    k[8] ^= key[i];
  }
  const uint64_t t[3] = {tweak[0], tweak[1], tweak[0] ^ tweak[1]};
  auto add_subkey = [&](uint64_t v[8], unsigned s) {
    for (int i = 0; i < 8; ++i) v[i] += k[(s + i) % 9];
    v[5] += t[s % 3];
    v[6] += t[(s + 1) % 3];
    v[7] += s;
  };
  uint64_t v[8];
  std::memcpy(v, in, sizeof v);
  for (unsigned d = 0; d < 72; ++d) {
    if (d % 4 == 0) add_subkey(v, d / 4);
    uint64_t f[8];
    for (int j = 0; j < 4; ++j) {
      const uint64_t y0 = v[2 * j] + v[2 * j + 1];
      f[2 * j] = y0;
      f[2 * j + 1] = rotl64(v[2 * j + 1], kRot[d % 8][j]) ^ y0;
    }
    for (int i = 0; i < 8; ++i) v[i] = f[kPerm[i]];
  }
  add_subkey(v, 18);
  std::memcpy(out, v, sizeof v);
}

// One UBI call over `len` bytes (len may be 0: one zero block), chaining value `g` in place.
void ubi(uint64_t g[8], const uint8_t* msg, size_t len, uint64_t type) {
  uint64_t position = 0;
  bool first = true;
  do {
    const size_t take = len > 64 ? 64 : len;
    uint8_t block[64] = {};
    if (take > 0) std::memcpy(block, msg, take);
    position += take;
    const bool final = len <= 64;
    const uint64_t tweak[2] = {position, (type << 56) | (first ? kFirst : 0) | (final ? kFinal : 0)};
    uint64_t m[8], c[8];
    for (int i = 0; i < 8; ++i) m[i] = load_le64(block + 8 * i);
    threefish512(g, tweak, m, c);
    for (int i = 0; i < 8; ++i) g[i] = c[i] ^ m[i];
    msg += take;
    len -= take;
    first = false;
    if (final) break;
  } while (true);
}

}  // namespace

void skein512_256(const uint8_t* input, size_t len, uint8_t out[32]) {
  uint64_t g[8] = {};
  // Config: schema "SHA3", version 1, output length 256 bits, no tree parameters.
  uint8_t config[32] = {'S', 'H', 'A', '3', 1, 0, 0, 0};
  store_le64(config + 8, 256);
  ubi(g, config, sizeof config, kTypeCfg);
  ubi(g, input, len, kTypeMsg);
  uint8_t counter[8] = {};
  ubi(g, counter, sizeof counter, kTypeOut);
  for (int i = 0; i < 4; ++i) store_le64(out + 8 * i, g[i]);
}

}  // namespace fuego
