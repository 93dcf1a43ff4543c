// SPDX-License-Identifier: MIT OR Apache-2.0
#include "util/rng.hpp"

#include <cerrno>
#include <cstring>
#include <sys/random.h>

#include "util/error.hpp"

namespace cuzk {

void os_random_bytes(void* buf, size_t n) {
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("getrandom failed: ") + std::strerror(errno));
    }
    p += got;
    n -= size_t(got);
  }
}

static uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

SeededRng::SeededRng(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

uint64_t SeededRng::next() {
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

RandomSource::RandomSource(std::optional<uint64_t> seed) {
  if (seed) rng_.emplace(*seed);
}

uint64_t RandomSource::next() {
  if (rng_) return rng_->next();
  uint64_t v;
  os_random_bytes(&v, sizeof v);
  return v;
}

}  // namespace cuzk
