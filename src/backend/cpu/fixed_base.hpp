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

// Table T[w][d] = [d 2^(c w)] P (affine, d = 1 .. 2^c - 1); a scalar is then one mixed addition
// per window; the results are normalised in blocks with one inversion each.
template <class Curve>
class FixedBaseTable {
 public:
  using F = typename Curve::F;
  using Aff = ec::Affine<F>;
  using Jac = ec::Jacobian<F>;
  static constexpr unsigned kC = 10, kWindows = (256 + kC - 1) / kC, kPer = (1u << kC) - 1;

  static size_t table_bytes() { return size_t(kWindows) * kPer * sizeof(Aff); }

  FixedBaseTable(const Aff& p, ThreadPool& pool) : t_(size_t(kWindows) * kPer) {
    std::vector<Jac> j(t_.size());
    pool.parallel_for(kWindows, [&](size_t wb, size_t we) {
      for (size_t w = wb; w < we; ++w) {
        Jac base = Jac::from_affine(p);
        for (unsigned k = 0; k < kC * w; ++k) base = base.dbl();
        Jac acc = base;
        for (unsigned d = 1; d <= kPer; ++d) {
          j[w * kPer + d - 1] = acc;
          acc = acc + base;
        }
      }
    });
    normalize(j.data(), t_.data(), j.size(), pool);
  }

  void mul(const cpu::Scalar* k, size_t n, Aff* out, ThreadPool& pool) const {
    constexpr size_t kBlock = 1024;
    pool.parallel_for((n + kBlock - 1) / kBlock, [&](size_t bb, size_t be) {
      std::vector<Jac> acc(kBlock);
      for (size_t b = bb; b < be; ++b) {
        const size_t lo = b * kBlock, hi = std::min(n, lo + kBlock);
        for (size_t i = lo; i < hi; ++i) {
          Jac r = Jac::infinity();
          for (unsigned w = 0; w < kWindows; ++w) {
            uint32_t d = cpu::scalar_bits(k[i], w * kC, kC);
            if (d) r = r.add_affine(t_[size_t(w) * kPer + d - 1]);
          }
          acc[i - lo] = r;
        }
        normalize_serial(acc.data(), out + lo, hi - lo);
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
