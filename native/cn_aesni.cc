// AES-NI CryptoNight path. This is the only file that uses AES instructions; the target pragma
// below enables them for the functions defined here (including the cn_core.h template
// instantiations), so the rest of the addon builds for the baseline ISA and the dispatcher only
// calls in here after CPUID reported AES-NI.
#include "cn_slow_hash.h"

// Headers whose inline functions are shared with other files come first, outside the pragma.
#include "aes.h"
#include "common.h"
#include "final_hashes.h"
#include "keccak.h"

#if defined(__x86_64__) || defined(_M_X64)
#define FUEGO_AESNI 1
#endif

#if FUEGO_AESNI

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("aes,sse2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("aes,sse2")
#endif

#include <emmintrin.h>
#include <wmmintrin.h>

#include "cn_core.h"

namespace fuego {
namespace {

struct AesNiOps {
  using Block = __m128i;
  static Block load(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static void store(uint8_t* p, Block v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static Block xor_(Block x, Block y) { return _mm_xor_si128(x, y); }
  static Block add64(Block x, Block y) { return _mm_add_epi64(x, y); }
  static uint64_t lo(Block v) { return static_cast<uint64_t>(_mm_cvtsi128_si64(v)); }
  static uint64_t hi(Block v) { return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v))); }
  static Block make(uint64_t first, uint64_t second) {
    return _mm_set_epi64x(static_cast<long long>(second), static_cast<long long>(first));
  }
  static Block aes_round(Block v, Block key) { return _mm_aesenc_si128(v, key); }
};

}  // namespace

bool cn_slow_hash_aesni(const uint8_t* input, size_t len, uint8_t* pad, uint8_t out[32], int variant,
                        bool light) {
  return cn_dispatch<AesNiOps>(input, len, pad, out, variant, light);
}

bool cn_upx2_pair_aesni(const uint8_t* const input[2], const size_t len[2], uint8_t* const pads[2],
                        uint8_t* const out[2]) {
  cn_upx2_pair_dispatch<AesNiOps>(input, len, pads, out);
  return true;
}

bool cn_aesni_compiled() { return true; }

}  // namespace fuego

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

#else  // no x86-64: no AES-NI path in this build

namespace fuego {
bool cn_slow_hash_aesni(const uint8_t*, size_t, uint8_t*, uint8_t*, int, bool) { return false; }
bool cn_upx2_pair_aesni(const uint8_t* const*, const size_t*, uint8_t* const*, uint8_t* const*) { return false; }
bool cn_aesni_compiled() { return false; }
}  // namespace fuego

#endif
