// A chain of cn_fast_hash steps over one work buffer, for building mining jobs in one call.
#ifndef FUEGO_NATIVE_HASH_CHAIN_H
#define FUEGO_NATIVE_HASH_CHAIN_H

#include <cstddef>
#include <cstdint>

namespace fuego {

// Words per step in `steps` (after the leading step count).
constexpr size_t kHashChainStepWords = 5;

// Runs the steps over `work` in place. `steps` is: count, then per step
//   src, len, branch, depth, dst
// Each step hashes work[src, src+len) (cn_fast_hash), folds the result up a merkle branch of
// `depth` 32-byte siblings stored at work[branch + 32*i] (i = depth-1 first, the running hash
// always on the left: leaf 0), and writes the 32-byte root to work[dst, dst+32). A later step
// may hash bytes an earlier step wrote. Returns false, touching nothing, when `steps` is not
// that shape or a range leaves `work`.
bool hash_chain(uint8_t* work, size_t work_len, const uint32_t* steps, size_t steps_len);

}  // namespace fuego

#endif
