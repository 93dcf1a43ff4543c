// SPDX-License-Identifier: MIT OR Apache-2.0
// Constraint rows as the setup and the writers consume them: a source that fills row i's three
// linear combinations on demand, so a circuit need not be held in memory (a generated 2^27
// circuit would be ~26 GB as a matrix). Coefficients are Fr in Montgomery form.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "ff/field.hpp"
#include "io/r1cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::r1cs {

template <class Fr>
struct LinComb {
  std::vector<uint32_t> wire;
  std::vector<Fr> coef;
  void clear() { wire.clear(), coef.clear(); }
  void add(uint32_t w, const Fr& c) { wire.push_back(w), coef.push_back(c); }
  size_t size() const { return wire.size(); }
  // Sorted by wire, equal wires merged, zero coefficients dropped (the .r1cs form).
  void normalize() {
    const size_t n = wire.size();
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i) sorted = wire[i - 1] < wire[i];
    if (sorted) {
      bool zero = false;
      for (auto& c : coef) zero |= c.is_zero();
      if (!zero) return;
    }
    std::vector<std::pair<uint32_t, Fr>> t(n);
    for (size_t i = 0; i < n; ++i) t[i] = {wire[i], coef[i]};
    std::stable_sort(t.begin(), t.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    clear();
    for (size_t i = 0; i < n;) {
      Fr c = t[i].second;
      size_t j = i + 1;
      for (; j < n && t[j].first == t[i].first; ++j) c += t[j].second;
      if (!c.is_zero()) add(t[i].first, c);
      i = j;
    }
  }
};

template <class Fr>
struct Row {
  LinComb<Fr> a, b, c;
  void clear() { a.clear(), b.clear(), c.clear(); }
};

// n_wires = 1 (the constant ONE) + public + private inputs + internal wires, in .r1cs order.
// row(i, out) must be callable from several threads at once, each with its own Row.
template <class Fr>
struct RowSource {
  uint32_t n_wires = 0, n_pub_out = 0, n_pub_in = 0, n_prv_in = 0;
  size_t n_rows = 0;
  std::function<void(size_t, Row<Fr>&)> row;
  uint32_t n_public() const { return n_pub_out + n_pub_in; }
};

// Rows of a parsed .r1cs file (which must outlive the source).
template <class Fr>
RowSource<Fr> rows_of(const io::R1cs& r) {
  RowSource<Fr> s;
  s.n_wires = r.n_wires;
  s.n_pub_out = r.n_pub_out;
  s.n_pub_in = r.n_pub_in;
  s.n_prv_in = r.n_prv_in;
  s.n_rows = r.n_constraints;
  s.row = [&r](size_t i, Row<Fr>& out) {
    auto fill = [&](const io::SparseMatrix& m, LinComb<Fr>& lc) {
      lc.clear();
      for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
        typename Fr::Limbs v;
        std::memcpy(v.v, m.coef.data() + k * r.n8, 32);
        lc.add(m.wire[k], Fr::from_std(v));
      }
    };
    fill(r.A, out.a);
    fill(r.B, out.b);
    fill(r.C, out.c);
  };
  return s;
}

// The first row of `src` that the witness w (standard form) does not satisfy, or SIZE_MAX; all
// threads of the pool. With nnz, also the non-zeros of A, B and C (every row is visited).
template <class Fr>
size_t first_unsatisfied(const RowSource<Fr>& src, const ff::Limbs<4>* w, ThreadPool& pool, size_t* nnz = nullptr) {
  std::atomic<size_t> first{SIZE_MAX}, terms{0};
  const size_t chunks = std::max<size_t>(1, src.n_rows / 4096);
  pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
    Row<Fr> row;
    size_t local = 0;
    for (size_t ch = cb; ch < ce; ++ch) {
      for (size_t i = src.n_rows * ch / chunks, hi = src.n_rows * (ch + 1) / chunks; i < hi; ++i) {
        src.row(i, row);
        local += row.a.size() + row.b.size() + row.c.size();
        auto dot = [&](const LinComb<Fr>& lc) {
          Fr s = Fr::zero();
          for (size_t k = 0; k < lc.size(); ++k) s += lc.coef[k] * Fr::from_std(w[lc.wire[k]]);
          return s;
        };
        if (dot(row.a) * dot(row.b) != dot(row.c)) {
          size_t cur = first.load();
          while (i < cur && !first.compare_exchange_weak(cur, i)) {
          }
          if (!nnz) break;
        }
      }
    }
    terms += local;
  });
  if (nnz) *nnz = terms.load();
  return first.load();
}

}  // namespace cuzk::r1cs
