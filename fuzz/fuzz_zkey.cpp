// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: parse_zkey on arbitrary bytes. Only cuzk::Error may escape the parser; a
// crash, a sanitizer report, another exception or a broken invariant of the result is a finding.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "io/zkey.hpp"
#include "util/error.hpp"

using namespace cuzk::io;

static void require(bool ok) {
  if (!ok) __builtin_trap();
}

// Reads every byte of a span, so that ASan checks it lies inside the buffer.
static uint8_t touch(std::span<const uint8_t> s) {
  uint8_t x = 0;
  for (uint8_t b : s) x ^= b;
  return x;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto z = parse_zkey(FileBytes::from_buffer("fuzz.zkey", std::vector<uint8_t>(data, data + size)));
    const size_t g1 = z.g1_bytes(), g2 = z.g2_bytes();
    require(z.n_public < z.n_vars);
    require(z.domain_size != 0 && (z.domain_size & (z.domain_size - 1)) == 0);
    require(z.alpha1.size() == g1 && z.beta1.size() == g1 && z.delta1.size() == g1);
    require(z.beta2.size() == g2 && z.gamma2.size() == g2 && z.delta2.size() == g2);
    require(z.ic.size() == (size_t(z.n_public) + 1) * g1);
    require(z.a.size() == size_t(z.n_vars) * g1 && z.b1.size() == size_t(z.n_vars) * g1);
    require(z.b2.size() == size_t(z.n_vars) * g2);
    require(z.c.size() == (size_t(z.n_vars) - z.n_public - 1) * g1);
    require(z.h.size() == size_t(z.domain_size) * g1);
    require(z.coefs.size() == size_t(z.n_coefs) * z.coef_bytes());
    volatile uint8_t sink = touch(z.alpha1) ^ touch(z.beta1) ^ touch(z.beta2) ^ touch(z.gamma2) ^ touch(z.delta1) ^
                            touch(z.delta2) ^ touch(z.ic) ^ touch(z.a) ^ touch(z.b1) ^ touch(z.b2) ^ touch(z.c) ^
                            touch(z.h) ^ touch(z.coefs);
    (void)sink;
  } catch (const cuzk::Error&) {
  }
  return 0;
}
