// The four CryptoNight finalists, written from the SHA-3 final-round specifications:
// BLAKE-256 (14 rounds), Groestl-256, JH-256 (42 rounds), Skein-512-256 (Skein 1.3).
#ifndef FUEGO_NATIVE_FINAL_HASHES_H
#define FUEGO_NATIVE_FINAL_HASHES_H

#include <cstddef>
#include <cstdint>

namespace fuego {

void blake256(const uint8_t* input, size_t len, uint8_t out[32]);
void groestl256(const uint8_t* input, size_t len, uint8_t out[32]);
void jh256(const uint8_t* input, size_t len, uint8_t out[32]);
void skein512_256(const uint8_t* input, size_t len, uint8_t out[32]);

// CryptoNight's last step: index (state[0] & 3) picks 0 BLAKE-256, 1 Groestl-256, 2 JH-256,
// 3 Skein-512-256, run over the whole 200-byte state.
void final_hash(unsigned index, const uint8_t state[200], uint8_t out[32]);

}  // namespace fuego

#endif
