// SPDX-License-Identifier: MIT OR Apache-2.0
// A fingerprint of a circuit's rows: a digest per row, per block of 2^k rows, and of the whole
// circuit, so that two implementations of the same circuit can be compared row by row without
// either holding the rows. The hash H is SHA-256 (any class with update(span<const uint8_t>)
// and finish() -> std::array<uint8_t, 32>; filecoin::Sha256 is one).
//
// Encoding of row i (all integers little-endian):
//   for each of A, B, C in that order:
//     u32  number of terms (bellpepper's merged terms, zero coefficients included)
//     per term, in bellpepper's order (inputs by index, then aux variables by index):
//       u8   kind: 0 = input (input 0 is ONE), 1 = aux
//       u32  index within its kind
//       32 bytes  the coefficient, canonical (standard form, below the modulus), little-endian
//   row digest  = H(encoding of the row)
//   block j     = H(row digest of rows j·2^k .. min(n, (j+1)·2^k) - 1, concatenated)
//   whole       = H("cuzk-r1cs-fingerprint-v1" ‖ u64 inputs (ONE included) ‖ u64 aux ‖
//                   u64 constraints ‖ H(every row digest, concatenated))
// The whole digest does not depend on k. The printed form (print_fingerprint) is one header line
// "inputs N aux N constraints N block_log2 K blocks B", then "block J FROM TO DIGEST" per
// block (rows FROM .. TO - 1) and "whole DIGEST"; with rows kept, "row I DIGEST" lines before the blocks.
#pragma once
#include <array>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "circuit/cs.hpp"

namespace cuzk::circuit {

using Digest = std::array<uint8_t, 32>;

struct Fingerprint {
  uint64_t inputs = 0, aux = 0, constraints = 0;
  int block_log2 = 0;
  std::vector<Digest> blocks;
  std::vector<Digest> rows;  // only when asked for
  Digest whole{};
};

template <class F, class H>
class FingerprintCs {
 public:
  using Field = F;
  static constexpr bool kValues = false;
  static constexpr bool kRows = true;

  explicit FingerprintCs(int block_log2, bool keep_rows = false) : keep_rows_(keep_rows) {
    fp_.block_log2 = block_log2;
    fp_.inputs = 1;  // ONE
  }
  template <class Fn>
  Var alloc(Fn&&) {
    return Var::aux(uint32_t(fp_.aux++));
  }
  template <class Fn>
  Var alloc_input(Fn&&) {
    return Var::input(uint32_t(fp_.inputs++));
  }
  template <class A, class B, class C>
  void enforce(A&& a, B&& b, C&& c) {
    buf_.clear();
    put(make_lc<F>(std::forward<A>(a)));
    put(make_lc<F>(std::forward<B>(b)));
    put(make_lc<F>(std::forward<C>(c)));
    H rh;
    rh.update(std::span<const uint8_t>(buf_));
    const Digest d = rh.finish();
    all_.update(std::span<const uint8_t>(d));
    block_.update(std::span<const uint8_t>(d));
    if (keep_rows_) fp_.rows.push_back(d);
    if ((++fp_.constraints & ((uint64_t(1) << fp_.block_log2) - 1)) == 0) {
      fp_.blocks.push_back(block_.finish());
      block_ = H();
    }
  }
  uint64_t num_inputs() const { return fp_.inputs; }
  uint64_t num_aux() const { return fp_.aux; }
  uint64_t num_constraints() const { return fp_.constraints; }

  Fingerprint finish() {
    if (fp_.constraints & ((uint64_t(1) << fp_.block_log2) - 1)) fp_.blocks.push_back(block_.finish());
    const Digest rows = all_.finish();
    H w;
    const std::string tag = "cuzk-r1cs-fingerprint-v1";
    w.update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(tag.data()), tag.size()));
    uint8_t le[8];
    for (uint64_t v : {fp_.inputs, fp_.aux, fp_.constraints}) {
      for (int i = 0; i < 8; ++i) le[i] = uint8_t(v >> (8 * i));
      w.update(std::span<const uint8_t>(le, 8));
    }
    w.update(std::span<const uint8_t>(rows));
    fp_.whole = w.finish();
    return std::move(fp_);
  }

 private:
  void put_u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) buf_.push_back(uint8_t(v >> (8 * i)));
  }
  void put(const Lc<F>& lc) {
    put_u32(uint32_t(lc.size()));
    for (const auto& t : lc.terms()) {
      buf_.push_back(t.var.is_input() ? 0 : 1);
      put_u32(t.var.index());
      const auto s = t.coeff.to_std();
      for (int l = 0; l < F::N; ++l)
        for (int i = 0; i < 8; ++i) buf_.push_back(uint8_t(s.v[l] >> (8 * i)));
    }
  }
  bool keep_rows_;
  Fingerprint fp_;
  H all_, block_;
  std::vector<uint8_t> buf_;
};

inline std::string digest_hex(const Digest& d) {
  static const char* x = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) s += x[b >> 4], s += x[b & 15];
  return s;
}

// The printed form described above.
inline std::string format_fingerprint(const Fingerprint& f) {
  std::string s = "inputs " + std::to_string(f.inputs) + " aux " + std::to_string(f.aux) + " constraints " +
                  std::to_string(f.constraints) + " block_log2 " + std::to_string(f.block_log2) + " blocks " +
                  std::to_string(f.blocks.size()) + "\n";
  for (size_t i = 0; i < f.rows.size(); ++i) s += "row " + std::to_string(i) + " " + digest_hex(f.rows[i]) + "\n";
  const uint64_t bs = uint64_t(1) << f.block_log2;
  for (size_t j = 0; j < f.blocks.size(); ++j)
    s += "block " + std::to_string(j) + " " + std::to_string(j * bs) + " " +
         std::to_string(std::min<uint64_t>(f.constraints, (j + 1) * bs)) + " " + digest_hex(f.blocks[j]) + "\n";
  s += "whole " + digest_hex(f.whole) + "\n";
  return s;
}

}  // namespace cuzk::circuit
