// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: parse_wtns on arbitrary bytes (see fuzz_zkey.cpp).
#include <cstdint>
#include <vector>

#include "io/wtns.hpp"
#include "util/error.hpp"

using namespace cuzk::io;

static void require(bool ok) {
  if (!ok) __builtin_trap();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto w = parse_wtns(FileBytes::from_buffer("fuzz.wtns", std::vector<uint8_t>(data, data + size)));
    require(w.n8 == 32 && w.n_witness > 0);
    require(w.values.size() == size_t(w.n_witness) * w.n8);
    auto r = cuzk::scalar_prime_le(w.curve);
    for (size_t i = 0; i < w.n_witness; ++i) require(cuzk::le_less(w.value(i), r));
  } catch (const cuzk::Error&) {
  }
  return 0;
}
