// SPDX-License-Identifier: MIT OR Apache-2.0
// Fixed-base scalar multiplication on the CPU: out[i] = [k_i] P for one point P (the insecure
// setup's bulk work; the CUDA backend's is cuda/fixed_base.hpp).
#pragma once
#include <algorithm>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "ec/curve.hpp"
#include "ff/field.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cpu {

// Table T[w][d - 1] = [d 2^(c w)] P (affine, d = 1 .. 2^(c - 1)); a scalar is then one affine
// addition per window of its signed digits (Booth recoding: a negative digit adds the entry
// negated), a block of scalars' additions sharing one inversion. The width c follows
// the count: building the table costs about 2^c additions for each of the W windows, the
// products W mixed additions a scalar. (10-bit unsigned windows, as before: 26 additions a
// scalar; 2^22 scalars take 16-bit signed ones: 16.)
template <class Curve>
class FixedBaseTable {
 public:
  using F = typename Curve::F;
  using Aff = ec::Affine<F>;
  using Jac = ec::Jacobian<F>;
  static constexpr unsigned kMinC = 6, kMaxC = 16;

  // Windows of c bits: c W > 255, so the signed digits of a scalar below 2^255 add up to it.
  static unsigned windows(unsigned c) { return 255 / c + 1; }
  static unsigned window_bits(size_t n) {
    unsigned best = kMinC;
    double best_cost = 0;
    for (unsigned c = kMinC; c <= kMaxC; ++c) {
      const double cost = double(windows(c)) * (double(size_t(1) << c) + double(n));
      if (c == kMinC || cost < best_cost) best = c, best_cost = cost;
    }
    return best;
  }
  static size_t table_bytes(size_t n) {
    const unsigned c = window_bits(n);
    return (size_t(windows(c)) << (c - 1)) * sizeof(Aff);
  }

  FixedBaseTable(const Aff& p, size_t n, ThreadPool& pool)
      : c_(window_bits(n)), w_(windows(c_)), per_(size_t(1) << (c_ - 1)), t_(w_ * per_) {
    std::vector<Jac> j(t_.size());
    pool.parallel_for(w_, [&](size_t wb, size_t we) {
      for (size_t w = wb; w < we; ++w) {
        Jac base = Jac::from_affine(p);
        for (unsigned k = 0; k < c_ * w; ++k) base = base.dbl();
        Jac acc = base;
        for (size_t d = 1; d <= per_; ++d) {
          j[w * per_ + d - 1] = acc;
          acc = acc + base;
        }
      }
    });
    normalize(j.data(), t_.data(), j.size(), pool);
  }

  unsigned window_bits() const { return c_; }

  // out[i] = [k_i] P. A block of scalars is one batch: window by window, each scalar's affine
  // sum gains the window's entry (its first non-zero digit's entry is copied), all the block's
  // additions sharing one inversion (Montgomery's trick: about 6 products an addition, where a
  // mixed Jacobian addition and the final normalisation cost about 15). x equal is exact: the
  // same point doubles, its negation leaves the infinity.
  void mul(const cpu::Scalar* k, size_t n, Aff* out, ThreadPool& pool) const {
    constexpr size_t kBlock = 1024;
    pool.parallel_for((n + kBlock - 1) / kBlock, [&](size_t bb, size_t be) {
      std::vector<uint8_t> full(kBlock);
      std::vector<uint32_t> at(kBlock);  // the scalars with an addition in this window
      std::vector<Aff> add(kBlock);      // and the entry each adds
      std::vector<F> den(kBlock), scratch(kBlock);
      for (size_t b = bb; b < be; ++b) {
        const size_t lo = b * kBlock, m = std::min(n, lo + kBlock) - lo;
        Aff* acc = out + lo;
        std::fill(full.begin(), full.begin() + m, uint8_t(0));
        for (unsigned w = 0; w < w_; ++w) {
          size_t np = 0;
          for (size_t i = 0; i < m; ++i) {
            const int32_t d = cpu::signed_digit(k[lo + i], w, c_);
            if (d == 0) continue;
            const Aff& e = t_[w * per_ + size_t(d > 0 ? d : -d) - 1];
            if (!full[i]) {
              acc[i] = d > 0 ? e : e.neg();
              full[i] = 1;
              continue;
            }
            at[np] = uint32_t(i);
            add[np++] = d > 0 ? e : e.neg();
          }
          for (size_t j = 0; j < np; ++j) den[j] = cpu::affine_denominator(acc[at[j]], add[j]);
          ff::batch_inverse(den.data(), np, scratch.data());
          for (size_t j = 0; j < np; ++j)
            if (!cpu::affine_add_inverted(acc[at[j]], add[j], den[j])) full[at[j]] = 0;
        }
        for (size_t i = 0; i < m; ++i)
          if (!full[i]) acc[i] = Aff::infinity();
      }
    });
  }

  static void normalize_serial(const Jac* in, Aff* out, size_t n) {
    std::vector<F> z(n), scratch(n);
    for (size_t i = 0; i < n; ++i) z[i] = in[i].Z;
    ff::batch_inverse(z.data(), n, scratch.data());
    for (size_t i = 0; i < n; ++i) {
      if (in[i].is_inf()) {
        out[i] = Aff::infinity();
        continue;
      }
      F zi2 = z[i].sqr();
      out[i] = Aff{in[i].X * zi2, in[i].Y * zi2 * z[i]};
    }
  }
  static void normalize(const Jac* in, Aff* out, size_t n, ThreadPool& pool) {
    pool.parallel_for(
        n, [&](size_t lo, size_t hi) { normalize_serial(in + lo, out + lo, hi - lo); }, 4096);
  }

 private:
  unsigned c_, w_;
  size_t per_;
  std::vector<Aff> t_;
};

template <class C>
struct CfgOf;
template <class C>
struct CfgOf<ec::Curve<C>> {
  using type = C;
};
template <class Curve>
ec::Affine<typename Curve::F> generator() {
  return CfgOf<Curve>::type::generator();
}

}  // namespace cuzk::cpu
