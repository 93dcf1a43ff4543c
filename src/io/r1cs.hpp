// SPDX-License-Identifier: MIT OR Apache-2.0
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ff/curve_id.hpp"
#include "io/binfile.hpp"

namespace cuzk::io {

// One constraint matrix (A, B or C) in CSR form: row i's terms are
// [row_ptr[i], row_ptr[i+1]); coefficients are standard form, n8 bytes little-endian each.
struct SparseMatrix {
  std::vector<uint64_t> row_ptr;
  std::vector<uint32_t> wire;
  std::vector<uint8_t> coef;  // n_terms * n8
  size_t n_terms() const { return wire.size(); }
};

// A .r1cs file (version 1). Wire 0 is the constant ONE, then public outputs, public inputs,
// private inputs, internal wires. Constraint i: (A_i . w) * (B_i . w) = (C_i . w).
struct R1cs {
  std::string path;
  CurveId curve{};
  uint32_t n8 = 0;
  uint32_t n_wires = 0, n_pub_out = 0, n_pub_in = 0, n_prv_in = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;
  SparseMatrix A, B, C;

  uint32_t n_public() const { return n_pub_out + n_pub_in; }
};

// Throws FormatError naming the file and the problem: wrong magic/version, unknown prime,
// header inconsistent (more public/private wires than wires), truncated constraint, a wire id
// >= n_wires, a coefficient >= r, trailing bytes in the constraint section.
R1cs read_r1cs(const std::string& path);
R1cs parse_r1cs(std::shared_ptr<FileBytes> file);

}  // namespace cuzk::io
