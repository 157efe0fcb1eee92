// Small helpers shared by the hash sources: little/big-endian loads and stores, rotations.
// Loads and stores go through memcpy so unaligned input and strict aliasing are never an issue;
// the compiler turns them into single moves.
#ifndef FUEGO_NATIVE_COMMON_H
#define FUEGO_NATIVE_COMMON_H

#include <cstddef>
#include <cstdint>
#include <cstring>

// For the CryptoNight step function, which must be inlined into loops that keep its registers in
// machine registers (two copies side by side in the paired loop).
#if defined(__GNUC__) || defined(__clang__)
#define FUEGO_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define FUEGO_ALWAYS_INLINE inline
#endif

namespace fuego {

inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline void store_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

inline uint32_t load_be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

inline void store_be32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

inline uint32_t rotr32(uint32_t x, unsigned n) { return (x >> n) | (x << ((32 - n) & 31)); }
inline uint64_t rotl64(uint64_t x, unsigned n) { return (x << n) | (x >> ((64 - n) & 63)); }

}  // namespace fuego

#endif
