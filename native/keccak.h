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

// The sponge in two parts, for a hash whose first blocks are shared by many inputs: absorb
// `blocks` full 136-byte blocks into `lanes` (start from all zero), then absorb the remaining
// `len` bytes with the padding. keccak_state(input, len) is the two over a zero state.
void keccak_absorb_blocks(uint64_t lanes[25], const uint8_t* input, size_t blocks);
void keccak_absorb_last(uint64_t lanes[25], const uint8_t* input, size_t len);

// Permutes a 200-byte state in place (CryptoNight's finalize step).
void keccak_permute_bytes(uint8_t state[200]);

}  // namespace fuego

#endif
