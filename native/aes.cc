#include "aes.h"

#include <cstring>

namespace fuego {

// FIPS-197 key expansion with Nk = 8: w[i] = w[i-8] ^ f(w[i-1]), where f is
// SubWord(RotWord(.)) ^ Rcon every 8 words and SubWord(.) at i % 8 == 4. Words are 4 bytes in
// key order; 40 words = 10 round keys.
void aes256_expand_10(const uint8_t key[32], uint8_t round_keys[kCnRoundKeys * 16]) {
  std::memcpy(round_keys, key, 32);
  uint8_t rcon = 1;
  for (int i = 8; i < kCnRoundKeys * 4; ++i) {
    uint8_t t[4];
    std::memcpy(t, round_keys + 4 * (i - 1), 4);
    if (i % 8 == 0) {
      const uint8_t first = t[0];
      t[0] = static_cast<uint8_t>(kAesSbox[t[1]] ^ rcon);
      t[1] = kAesSbox[t[2]];
      t[2] = kAesSbox[t[3]];
      t[3] = kAesSbox[first];
      rcon = gf_xtime(rcon);
    } else if (i % 8 == 4) {
      for (auto& byte : t) byte = kAesSbox[byte];
    }
    for (int k = 0; k < 4; ++k) round_keys[4 * i + k] = static_cast<uint8_t>(round_keys[4 * (i - 8) + k] ^ t[k]);
  }
}

}  // namespace fuego
