// CryptoNight slow hash entry points (cn/0, cn/1, cn/2, and their "light" forms; light + variant 2
// is Fuego's cn/upx2). Thread-safe: each thread uses its own scratchpad.
#ifndef FUEGO_NATIVE_CN_SLOW_HASH_H
#define FUEGO_NATIVE_CN_SLOW_HASH_H

#include <cstddef>
#include <cstdint>

namespace fuego {

enum class CnStatus { kOk, kOutOfMemory, kInputTooShort, kBadVariant };

// True when the CPU has AES-NI (CPUID.1:ECX bit 25) and this build contains the AES-NI path.
bool cpu_has_aesni();

// Hashes `len` bytes into `out`. `use_aesni` selects the AES-NI path when the CPU has it; the
// portable path runs otherwise (never an illegal instruction). Variant 1 needs len >= 43.
CnStatus cn_slow_hash(const uint8_t* input, size_t len, uint8_t out[32], int variant, bool light,
                      bool use_aesni);

// cn/upx2 of two inputs at once, their main loops interleaved: about 1.5x the throughput of two
// single hashes on one thread. out[0] and out[1] receive 32 bytes each.
CnStatus cn_upx2_pair(const uint8_t* const input[2], const size_t len[2], uint8_t* const out[2], bool use_aesni);

// The two paths, defined in cn_portable.cc and cn_aesni.cc (the latter returns false when the
// build has no AES-NI code, e.g. on ARM). `pad` must hold the variant's scratchpad, 64-aligned.
bool cn_slow_hash_portable(const uint8_t* input, size_t len, uint8_t* pad, uint8_t out[32], int variant,
                           bool light);
bool cn_slow_hash_aesni(const uint8_t* input, size_t len, uint8_t* pad, uint8_t out[32], int variant,
                        bool light);
bool cn_aesni_compiled();
void cn_upx2_pair_portable(const uint8_t* const input[2], const size_t len[2], uint8_t* const pads[2],
                           uint8_t* const out[2]);
bool cn_upx2_pair_aesni(const uint8_t* const input[2], const size_t len[2], uint8_t* const pads[2],
                        uint8_t* const out[2]);

}  // namespace fuego

#endif
