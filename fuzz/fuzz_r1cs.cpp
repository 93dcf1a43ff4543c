// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: parse_r1cs on arbitrary bytes (see fuzz_zkey.cpp). Also checks the CSR
// matrices it builds are well formed.
#include <cstdint>
#include <vector>

#include "io/r1cs.hpp"
#include "util/error.hpp"

using namespace cuzk::io;

static void require(bool ok) {
  if (!ok) __builtin_trap();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto r = parse_r1cs(FileBytes::from_buffer("fuzz.r1cs", std::vector<uint8_t>(data, data + size)));
    require(uint64_t(r.n_pub_out) + r.n_pub_in + r.n_prv_in + 1 <= r.n_wires);
    auto prime = cuzk::scalar_prime_le(r.curve);
    for (const SparseMatrix* m : {&r.A, &r.B, &r.C}) {
      require(m->row_ptr.size() == size_t(r.n_constraints) + 1);
      require(m->row_ptr.front() == 0 && m->row_ptr.back() == m->n_terms());
      for (size_t i = 0; i + 1 < m->row_ptr.size(); ++i) require(m->row_ptr[i] <= m->row_ptr[i + 1]);
      require(m->coef.size() == m->n_terms() * r.n8);
      for (size_t t = 0; t < m->n_terms(); ++t) {
        require(m->wire[t] < r.n_wires);
        require(cuzk::le_less(std::span<const uint8_t>(m->coef).subspan(t * r.n8, r.n8), prime));
      }
    }
  } catch (const cuzk::Error&) {
  }
  return 0;
}
