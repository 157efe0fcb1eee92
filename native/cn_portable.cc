// Portable CryptoNight path: 16-byte blocks as two little-endian 64-bit lanes, table AES round.
#include <cstdint>

#include "aes.h"
#include "cn_core.h"
#include "cn_slow_hash.h"
#include "common.h"

namespace fuego {
namespace {

struct PortableOps {
  struct Block {
    uint64_t lo;  // bytes 0..7
    uint64_t hi;  // bytes 8..15
  };
  static Block load(const uint8_t* p) { return Block{load_le64(p), load_le64(p + 8)}; }
  static void store(uint8_t* p, Block v) {
    store_le64(p, v.lo);
    store_le64(p + 8, v.hi);
  }
  static Block xor_(Block x, Block y) { return Block{x.lo ^ y.lo, x.hi ^ y.hi}; }
  static Block add64(Block x, Block y) { return Block{x.lo + y.lo, x.hi + y.hi}; }
  static uint64_t lo(Block v) { return v.lo; }
  static uint64_t hi(Block v) { return v.hi; }
  static Block make(uint64_t first, uint64_t second) { return Block{first, second}; }
  static Block aes_round(Block v, Block key) {
    uint32_t col[4] = {static_cast<uint32_t>(v.lo), static_cast<uint32_t>(v.lo >> 32), static_cast<uint32_t>(v.hi),
                       static_cast<uint32_t>(v.hi >> 32)};
    const uint32_t k[4] = {static_cast<uint32_t>(key.lo), static_cast<uint32_t>(key.lo >> 32),
                           static_cast<uint32_t>(key.hi), static_cast<uint32_t>(key.hi >> 32)};
    aes_round_portable(col, k);
    return Block{uint64_t{col[0]} | (uint64_t{col[1]} << 32), uint64_t{col[2]} | (uint64_t{col[3]} << 32)};
  }
};

}  // namespace

bool cn_slow_hash_portable(const uint8_t* input, size_t len, uint8_t* pad, uint8_t out[32], int variant,
                           bool light) {
  return cn_dispatch<PortableOps>(input, len, pad, out, variant, light);
}

void cn_upx2_pair_portable(const uint8_t* const input[2], const size_t len[2], uint8_t* const pads[2],
                           uint8_t* const out[2]) {
  cn_upx2_pair_dispatch<PortableOps>(input, len, pads, out);
}

}  // namespace fuego
