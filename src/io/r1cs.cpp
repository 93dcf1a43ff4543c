// SPDX-License-Identifier: MIT OR Apache-2.0
#include "io/r1cs.hpp"

#include <array>
#include <cstring>

#include "util/error.hpp"

namespace cuzk::io {

namespace {

uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

const char* kMatrixName[3] = {"A", "B", "C"};

// ---- section 1: header
void read_header(const BinFile& bf, const std::string& path, R1cs& rc) {
  Reader h(path, "section 1 (header)", bf.section(1, "header"));
  auto field = read_scalar_field_header(h);
  rc.n8 = field.n8;
  rc.curve = field.curve;
  rc.n_wires = h.u32();
  rc.n_pub_out = h.u32();
  rc.n_pub_in = h.u32();
  rc.n_prv_in = h.u32();
  rc.n_labels = h.u64();
  rc.n_constraints = h.u32();
  h.expect_end();
  const uint64_t need = uint64_t(rc.n_pub_out) + rc.n_pub_in + rc.n_prv_in + 1;
  if (need > rc.n_wires) {
    h.fail("nPubOut " + std::to_string(rc.n_pub_out) + " + nPubIn " + std::to_string(rc.n_pub_in) + " + nPrvIn " +
           std::to_string(rc.n_prv_in) + " + 1 (the constant ONE) = " + std::to_string(need) + " exceeds nWires " +
           std::to_string(rc.n_wires));
  }
}

// ---- section 3 (wire -> label map): optional, but if present it has one u64 per wire
void check_label_map(const BinFile& bf, const std::string& path, const R1cs& rc) {
  if (!bf.has(3)) return;
  auto s = bf.sections.at(3);
  const uint64_t expected = uint64_t(rc.n_wires) * 8;
  if (s.size() != expected) {
    throw FormatError(path, "section 3 (wire-to-label map) is " + std::to_string(s.size()) + " bytes, expected " +
                                std::to_string(expected) + " = nWires " + std::to_string(rc.n_wires) + " x 8");
  }
}

const char* const kConstraints = "section 2 (constraints)";

// Pass 1 over section 2: the structure is checked and the terms of each matrix counted.
std::array<uint64_t, 3> count_terms(std::span<const uint8_t> s, const std::string& path, const R1cs& rc) {
  const std::string sname = kConstraints;
  const size_t term_bytes = 4 + size_t(rc.n8);
  if (uint64_t(rc.n_constraints) * 12 > s.size()) {
    throw FormatError(path, sname + " is " + std::to_string(s.size()) + " bytes, too small for nConstraints " +
                                std::to_string(rc.n_constraints) + " (each constraint needs at least 12 bytes)");
  }
  std::array<uint64_t, 3> count = {0, 0, 0};
  size_t off = 0;
  for (uint32_t c = 0; c < rc.n_constraints; ++c) {
    for (int m = 0; m < 3; ++m) {
      if (s.size() - off < 4) {
        throw FormatError(path, sname + ": constraint " + std::to_string(c) + " (matrix " + kMatrixName[m] +
                                    ") is truncated: needs 4 bytes for its term count at offset " +
                                    std::to_string(off) + ", only " + std::to_string(s.size() - off) + " left");
      }
      uint64_t n_terms = load_u32(s.data() + off);
      off += 4;
      const uint64_t len = n_terms * term_bytes;  // < 2^32 * 2^6: no overflow
      if (len > s.size() - off) {
        throw FormatError(path, sname + ": constraint " + std::to_string(c) + " (matrix " + kMatrixName[m] +
                                    ") is truncated: " + std::to_string(n_terms) + " terms need " +
                                    std::to_string(len) + " bytes at offset " + std::to_string(off) + ", only " +
                                    std::to_string(s.size() - off) + " left");
      }
      off += size_t(len);
      count[m] += n_terms;
    }
  }
  if (off != s.size()) {
    throw FormatError(path, sname + " has " + std::to_string(s.size() - off) + " trailing bytes after nConstraints " +
                                std::to_string(rc.n_constraints) + " constraints (which end at offset " +
                                std::to_string(off) + ")");
  }
  return count;
}

// Pass 2 over section 2 (its structure checked by pass 1): the CSR matrices, each allocated
// once from its counted terms, and the checks of the wires and values.
void fill_matrices(std::span<const uint8_t> s, const std::string& path, const std::array<uint64_t, 3>& count,
                   R1cs& rc) {
  const std::string sname = kConstraints;
  const size_t n8 = rc.n8;
  const size_t term_bytes = 4 + n8;
  SparseMatrix* mats[3] = {&rc.A, &rc.B, &rc.C};
  for (int m = 0; m < 3; ++m) {
    // Bounded by the section size checked above.
    mats[m]->row_ptr.reserve(size_t(rc.n_constraints) + 1);
    mats[m]->row_ptr.push_back(0);
    mats[m]->wire.reserve(size_t(count[m]));
    mats[m]->coef.resize(size_t(count[m]) * n8);
  }
  auto r = scalar_prime_le(rc.curve);
  const uint8_t* p = s.data();
  for (uint32_t c = 0; c < rc.n_constraints; ++c) {
    for (int m = 0; m < 3; ++m) {
      SparseMatrix& mat = *mats[m];
      uint32_t n_terms = load_u32(p);
      p += 4;
      for (uint32_t t = 0; t < n_terms; ++t, p += term_bytes) {
        uint32_t wire = load_u32(p);
        if (wire >= rc.n_wires) {
          throw FormatError(path, sname + ": constraint " + std::to_string(c) + ", matrix " + kMatrixName[m] +
                                      ", term " + std::to_string(t) + ": wire " + std::to_string(wire) + " >= nWires " +
                                      std::to_string(rc.n_wires));
        }
        std::span<const uint8_t> coef(p + 4, n8);
        if (!le_less(coef, r)) {
          throw FormatError(path, sname + ": constraint " + std::to_string(c) + ", matrix " + kMatrixName[m] +
                                      ", term " + std::to_string(t) + " (wire " + std::to_string(wire) +
                                      "): coefficient " + le_hex(coef) + " is not reduced modulo r");
        }
        std::memcpy(mat.coef.data() + mat.wire.size() * n8, p + 4, n8);
        mat.wire.push_back(wire);
      }
      mat.row_ptr.push_back(mat.wire.size());
    }
  }
}

}  // namespace

R1cs read_r1cs(const std::string& path) { return parse_r1cs(FileBytes::map(path)); }

R1cs parse_r1cs(std::shared_ptr<FileBytes> file) {
  BinFile bf = parse_binfile(file, "r1cs", 1, 1);
  const std::string& path = file->path();
  R1cs rc;
  rc.path = path;
  read_header(bf, path, rc);
  check_label_map(bf, path, rc);
  // Section 2, the constraints, in two passes so that nothing is allocated from an unchecked count.
  auto s = bf.section(2, "constraints");
  const std::array<uint64_t, 3> count = count_terms(s, path, rc);
  fill_matrices(s, path, count, rc);
  // Sections 4 and 5 (PLONK custom gates) and any others are ignored.
  return rc;
}

}  // namespace cuzk::io
