// Keccak-f[1600] written from the Keccak reference (round constants and rotation offsets are
// derived at compile time from their definitions instead of being typed in).
#include "keccak.h"

#include <array>

#include "common.h"

namespace fuego {
namespace {

constexpr int kRounds = 24;
constexpr size_t kRate = 136;

// rc(t): output bit of the LFSR x^8 + x^6 + x^5 + x^4 + 1 after t steps.
constexpr bool lfsr_bit(int t) {
  unsigned r = 1;
  for (int i = 0; i < t; ++i) {
    r <<= 1;
    if (r & 0x100) r ^= 0x171;
  }
  return (r & 1) != 0;
}

constexpr std::array<uint64_t, kRounds> make_round_constants() {
  std::array<uint64_t, kRounds> rc{};
  for (int round = 0; round < kRounds; ++round) {
    uint64_t value = 0;
    for (int j = 0; j <= 6; ++j) {
      if (lfsr_bit(j + 7 * round)) value |= uint64_t{1} << ((1u << j) - 1);
    }
    rc[round] = value;
  }
  return rc;
}

// rho offsets: walk (x, y) -> (y, 2x + 3y) from (1, 0); step t rotates by (t+1)(t+2)/2.
constexpr std::array<unsigned, 25> make_rotations() {
  std::array<unsigned, 25> r{};
  int x = 1, y = 0;
  for (int t = 0; t < 24; ++t) {
    r[x + 5 * y] = static_cast<unsigned>(((t + 1) * (t + 2) / 2) % 64);
    const int nx = y;
    const int ny = (2 * x + 3 * y) % 5;
    x = nx;
    y = ny;
  }
  return r;
}

constexpr auto kRoundConstants = make_round_constants();
constexpr auto kRotations = make_rotations();

}  // namespace

void keccak_f1600(uint64_t a[25]) {
  uint64_t b[25];
  uint64_t c[5];
  for (int round = 0; round < kRounds; ++round) {
    // theta
    for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    for (int x = 0; x < 5; ++x) {
      const uint64_t d = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
      for (int y = 0; y < 25; y += 5) a[x + y] ^= d;
    }
    // rho and pi: B[y, 2x+3y] = rot(A[x, y])
    for (int x = 0; x < 5; ++x) {
      for (int y = 0; y < 5; ++y) {
        b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl64(a[x + 5 * y], kRotations[x + 5 * y]);
      }
    }
    // chi
    for (int y = 0; y < 25; y += 5) {
      for (int x = 0; x < 5; ++x) a[x + y] = b[x + y] ^ (~b[(x + 1) % 5 + y] & b[(x + 2) % 5 + y]);
    }
    // iota
    a[0] ^= kRoundConstants[round];
  }
}

void keccak_absorb_blocks(uint64_t lanes[25], const uint8_t* input, size_t blocks) {
  for (; blocks > 0; --blocks) {
    for (size_t i = 0; i < kRate / 8; ++i) lanes[i] ^= load_le64(input + 8 * i);
    keccak_f1600(lanes);
    input += kRate;
  }
}

void keccak_absorb_last(uint64_t lanes[25], const uint8_t* input, size_t len) {
  keccak_absorb_blocks(lanes, input, len / kRate);
  input += len / kRate * kRate;
  len %= kRate;
  uint8_t last[kRate] = {};
  if (len > 0) std::memcpy(last, input, len);
  last[len] = 0x01;
  last[kRate - 1] |= 0x80;
  for (size_t i = 0; i < kRate / 8; ++i) lanes[i] ^= load_le64(last + 8 * i);
  keccak_f1600(lanes);
}

void keccak_state(const uint8_t* input, size_t len, uint8_t state_out[200]) {
  uint64_t lanes[25] = {};
  keccak_absorb_last(lanes, input, len);
  for (int i = 0; i < 25; ++i) store_le64(state_out + 8 * i, lanes[i]);
}

void keccak_permute_bytes(uint8_t state[200]) {
  uint64_t lanes[25];
  for (int i = 0; i < 25; ++i) lanes[i] = load_le64(state + 8 * i);
  keccak_f1600(lanes);
  for (int i = 0; i < 25; ++i) store_le64(state + 8 * i, lanes[i]);
}

}  // namespace fuego
