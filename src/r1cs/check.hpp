// SPDX-License-Identifier: MIT OR Apache-2.0
// Direct evaluation of R1CS constraints against a witness (no PCE): the check behind
// `cuzk prove --r1cs`, and the reference that the key's compiled matrices are compared with.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "r1cs/rows.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::r1cs {

template <class Fr>
Fr row_dot(const io::SparseMatrix& m, size_t row, const io::Wtns& w) {
  Fr acc = Fr::zero();
  for (uint64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k) {
    ff::Limbs<Fr::N> coef, val;
    std::memcpy(coef.v, m.coef.data() + k * 32, 32);
    std::memcpy(val.v, w.values.data() + size_t(m.wire[k]) * 32, 32);
    acc += Fr::from_std(coef) * Fr::from_std(val);
  }
  return acc;
}

// Throws InvalidArgument naming the first unsatisfied constraint (lowest index).
template <class Fr>
void check_witness(const io::R1cs& cs, const io::Wtns& w, ThreadPool& pool) {
  if (w.n_witness != cs.n_wires)
    throw InvalidArgument(w.path() + ": witness has " + std::to_string(w.n_witness) + " values but " + cs.path +
                          " has " + std::to_string(cs.n_wires) + " wires");
  if (w.curve != cs.curve) throw InvalidArgument(w.path() + " and " + cs.path + " are for different curves");
  std::vector<ff::Limbs<4>> values(w.n_witness);
  std::memcpy(values.data(), w.values.data(), values.size() * 32);
  const size_t bad = r1cs::first_unsatisfied<Fr>(r1cs::rows_of<Fr>(cs), values.data(), pool);
  if (bad != SIZE_MAX)
    throw InvalidArgument(w.path() + ": witness does not satisfy constraint " + std::to_string(bad) + " of " + cs.path +
                          " (A.w * B.w != C.w)");
}

}  // namespace cuzk::r1cs
