// A chain of cn_fast_hash steps over one work buffer, for building mining jobs in one call.
#ifndef FUEGO_NATIVE_HASH_CHAIN_H
#define FUEGO_NATIVE_HASH_CHAIN_H

#include <cstddef>
#include <cstdint>

namespace fuego {

// Words per step in `steps` (after the leading step count).
constexpr size_t kHashChainStepWords = 7;
// Bytes of a step's prefix cache in `work`: the 200-byte sponge state, then a flag byte.
constexpr size_t kHashChainCacheBytes = 201;

// Runs the steps over `work` in place. `steps` is: count, then per step
//   src, len, branch, depth, dst, cache, cached_blocks
// Each step hashes work[src, src+len) (cn_fast_hash), folds the result up a merkle branch of
// `depth` 32-byte siblings stored at work[branch + 32*i] (i = depth-1 first, the running hash
// always on the left: leaf 0), and writes the 32-byte root to work[dst, dst+32). A later step
// may hash bytes an earlier step wrote.
// With cached_blocks > 0, the first cached_blocks * 136 bytes of the source must never change
// between calls (a template's coinbase before the extra nonce): the sponge state after them is
// kept at work[cache, cache + 201) (zero flag byte: not yet; the first call fills it) and each
// later call absorbs only the rest.
// Returns false, touching nothing, when `steps` is not that shape or a range leaves `work`.
bool hash_chain(uint8_t* work, size_t work_len, const uint32_t* steps, size_t steps_len);

}  // namespace fuego

#endif
