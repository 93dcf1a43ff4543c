// SPDX-License-Identifier: MIT OR Apache-2.0
// Randomness: the OS CSPRNG for proofs, and a seeded generator for tests and benchmarks.
#pragma once
#include <cstdint>
#include <optional>

namespace cuzk {

// Fills buf from the operating system's CSPRNG (getrandom); throws cuzk::Error if unavailable.
void os_random_bytes(void* buf, size_t n);

// xoshiro256** (Blackman, Vigna): fast and reproducible from a 64-bit seed. Not for secrets.
class SeededRng {
 public:
  explicit SeededRng(uint64_t seed);
  uint64_t next();

 private:
  uint64_t s_[4];
};

// A source of 64-bit words: seeded when a seed is given, otherwise the OS CSPRNG.
class RandomSource {
 public:
  explicit RandomSource(std::optional<uint64_t> seed = std::nullopt);
  uint64_t next();
  bool seeded() const { return rng_.has_value(); }

 private:
  std::optional<SeededRng> rng_;
};

// A uniformly random field element (rejection sampling on the top limb's bit length).
template <class F>
F random_field(RandomSource& rs) {
  constexpr auto k = F::K;
  int top_bits = 64;
  while (top_bits > 0 && !((k.p.v[F::N - 1] >> (top_bits - 1)) & 1)) --top_bits;
  uint64_t mask = top_bits == 64 ? ~0ull : ((1ull << top_bits) - 1);
  for (;;) {
    F x;
    for (int i = 0; i < F::N; ++i) x.l[i] = rs.next();
    x.l[F::N - 1] &= mask;
    if (x.is_reduced()) return x;  // uniform in [0, p), taken as a Montgomery representative
  }
}

}  // namespace cuzk
