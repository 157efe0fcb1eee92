// See hash_chain.h. Written for the job push: per miner, the coinbase hash, its merkle root, the
// aux hash and the parent coinbase hash of a merge-mined job, in one crossing into native code.
#include "hash_chain.h"

#include <cstring>

#include "common.h"
#include "keccak.h"

namespace fuego {
namespace {

bool inside(uint64_t start, uint64_t len, uint64_t work_len) {
  return start <= work_len && len <= work_len - start;
}

bool valid_steps(size_t work_len, const uint32_t* steps, size_t steps_len) {
  if (steps_len < 1) return false;
  const uint64_t count = steps[0];
  if (steps_len != 1 + count * kHashChainStepWords) return false;
  for (uint64_t s = 0; s < count; ++s) {
    const uint32_t* step = steps + 1 + s * kHashChainStepWords;
    if (!inside(step[0], step[1], work_len)) return false;
    if (!inside(step[2], uint64_t{32} * step[3], work_len)) return false;
    if (!inside(step[4], 32, work_len)) return false;
    if (step[6] == 0) continue;
    if (uint64_t{136} * step[6] > step[1]) return false;
    if (!inside(step[5], kHashChainCacheBytes, work_len)) return false;
  }
  return true;
}

// The hash of a step with a prefix cache: the kept state (made on the first call), then the rest.
void source_state(uint8_t* work, const uint32_t* step, uint8_t state_out[200]) {
  const size_t prefix = size_t{136} * step[6];
  uint8_t* cache = work + step[5];
  uint64_t lanes[25] = {};
  if (cache[200] == 0) {
    keccak_absorb_blocks(lanes, work + step[0], step[6]);
    std::memcpy(cache, lanes, sizeof lanes);
    cache[200] = 1;
  } else {
    std::memcpy(lanes, cache, sizeof lanes);
  }
  keccak_absorb_last(lanes, work + step[0] + prefix, step[1] - prefix);
  for (int i = 0; i < 25; ++i) store_le64(state_out + 8 * i, lanes[i]);
}

}  // namespace

bool hash_chain(uint8_t* work, size_t work_len, const uint32_t* steps, size_t steps_len) {
  if (!valid_steps(work_len, steps, steps_len)) return false;
  const uint32_t count = steps[0];
  uint8_t state[200];
  uint8_t pair[64];
  for (uint32_t s = 0; s < count; ++s) {
    const uint32_t* step = steps + 1 + s * kHashChainStepWords;
    if (step[6] == 0) {
      keccak_state(work + step[0], step[1], state);
    } else {
      source_state(work, step, state);
    }
    for (uint32_t i = step[3]; i-- > 0;) {
      std::memcpy(pair, state, 32);
      std::memcpy(pair + 32, work + step[2] + 32 * i, 32);
      keccak_state(pair, sizeof pair, state);
    }
    std::memcpy(work + step[4], state, 32);
  }
  return true;
}

}  // namespace fuego
