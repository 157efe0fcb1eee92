// Keccak-f[1600] and the CryptoNote sponge (original Keccak padding, rate 136 bytes).
#ifndef FUEGO_NATIVE_KECCAK_H
#define FUEGO_NATIVE_KECCAK_H

#include <cstddef>
#include <cstdint>

namespace fuego {

// The 24-round permutation over 25 little-endian 64-bit lanes (lane index x + 5*y).
void keccak_f1600(uint64_t lanes[25]);

// Absorbs `len` bytes with rate 136 and pad 0x01 .. 0x80, then writes the whole 200-byte state
// (lanes little-endian) to `state_out`. cn_fast_hash is the first 32 bytes of it.
void keccak_state(const uint8_t* input, size_t len, uint8_t state_out[200]);

// Permutes a 200-byte state in place (CryptoNight's finalize step).
void keccak_permute_bytes(uint8_t state[200]);

}  // namespace fuego

#endif
