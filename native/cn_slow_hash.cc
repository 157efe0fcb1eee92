#include "cn_slow_hash.h"

#include <cstdlib>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace fuego {
namespace {

// One scratchpad per thread (worker_threads call the addon concurrently), grown on demand:
// 128 KiB for the light variants, 2 MiB otherwise. Freed when the thread exits.
class Scratchpad {
 public:
  Scratchpad() = default;
  Scratchpad(const Scratchpad&) = delete;
  Scratchpad& operator=(const Scratchpad&) = delete;
  ~Scratchpad() { std::free(data_); }

  uint8_t* get(size_t size) {
    if (size_ < size) {
      std::free(data_);
      data_ = static_cast<uint8_t*>(std::aligned_alloc(64, size));
      size_ = data_ != nullptr ? size : 0;
    }
    return data_;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

thread_local Scratchpad tl_scratchpad;
// The second lane of cn_upx2_pair.
thread_local Scratchpad tl_second_scratchpad;

bool detect_aesni() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ecx & (1u << 25)) != 0;
#else
  return false;
#endif
}

}  // namespace

bool cpu_has_aesni() {
  // Function-local static: initialised once, thread-safe, read-only afterwards.
  static const bool has = cn_aesni_compiled() && detect_aesni();
  return has;
}

CnStatus cn_slow_hash(const uint8_t* input, size_t len, uint8_t out[32], int variant, bool light,
                      bool use_aesni) {
  if (variant < 0 || variant > 2) return CnStatus::kBadVariant;
  if (variant == 1 && len < 43) return CnStatus::kInputTooShort;
  uint8_t* pad = tl_scratchpad.get(light ? (size_t{1} << 17) : (size_t{1} << 21));
  if (pad == nullptr) return CnStatus::kOutOfMemory;
  const bool ok = use_aesni && cpu_has_aesni() ? cn_slow_hash_aesni(input, len, pad, out, variant, light)
                                               : cn_slow_hash_portable(input, len, pad, out, variant, light);
  return ok ? CnStatus::kOk : CnStatus::kBadVariant;
}

CnStatus cn_upx2_pair(const uint8_t* const input[2], const size_t len[2], uint8_t* const out[2], bool use_aesni) {
  constexpr size_t kLightPad = size_t{1} << 17;
  uint8_t* const pads[2] = {tl_scratchpad.get(kLightPad), tl_second_scratchpad.get(kLightPad)};
  if (pads[0] == nullptr || pads[1] == nullptr) return CnStatus::kOutOfMemory;
  if (!(use_aesni && cpu_has_aesni() && cn_upx2_pair_aesni(input, len, pads, out))) {
    cn_upx2_pair_portable(input, len, pads, out);
  }
  return CnStatus::kOk;
}

}  // namespace fuego
