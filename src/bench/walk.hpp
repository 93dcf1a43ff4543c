// SPDX-License-Identifier: MIT OR Apache-2.0
// Benchmark bases that are distinct, random-looking, fast to make at 2^26 and cheap to check:
// P_i = P0 + i*Q for random P0, Q. Then sum_i k_i P_i = (sum k_i) P0 + (sum i k_i) Q, so any MSM
// result over them is checked exactly with O(n) scalar-field work and two scalar products,
// whatever the size.
#pragma once
#include <vector>

#include "backend/cpu/msm.hpp"
#include "ec/curve.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::bench {

template <class Curve, class Fr>
struct WalkBases {
  using F = typename Curve::F;
  ec::Affine<F> p0, q;
  std::vector<ec::Affine<F>> points;
};

template <class Curve, class Fr>
WalkBases<Curve, Fr> make_walk(const ec::Affine<typename Curve::F>& generator, size_t n, RandomSource& rs,
                               ThreadPool& pool) {
  using F = typename Curve::F;
  using Jac = ec::Jacobian<F>;
  WalkBases<Curve, Fr> w;
  Jac g = Jac::from_affine(generator);
  Jac p0 = Curve::mul(g, random_field<Fr>(rs)), q = Curve::mul(g, random_field<Fr>(rs));
  w.p0 = p0.to_affine();
  w.q = q.to_affine();
  w.points.resize(n);
  const size_t chunk = 4096, chunks = (n + chunk - 1) / chunk;
  pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
    std::vector<Jac> jac(chunk);
    std::vector<F> z(chunk), scratch(chunk);
    for (size_t c = cb; c < ce; ++c) {
      size_t b = c * chunk, e = std::min(n, b + chunk);
      Jac p = p0 + Curve::mul(q, Fr::from_u64(b));
      for (size_t i = b; i < e; ++i) {
        jac[i - b] = p;
        p = p.add_affine(w.q);
      }
      // One inversion per chunk (Montgomery's trick) to make the points affine.
      for (size_t i = b; i < e; ++i) z[i - b] = jac[i - b].Z;
      ff::batch_inverse(z.data(), e - b, scratch.data());
      for (size_t i = b; i < e; ++i) {
        F zi = z[i - b], zi2 = zi.sqr();
        w.points[i] = {jac[i - b].X * zi2, jac[i - b].Y * zi2 * zi};
      }
    }
  });
  return w;
}

// The exact value of sum_i k_i P_i for walk bases (k in standard form).
template <class Curve, class Fr>
ec::Jacobian<typename Curve::F> walk_msm_expected(const WalkBases<Curve, Fr>& w, const cpu::Scalar* k, size_t n,
                                                  ThreadPool& pool) {
  using Jac = ec::Jacobian<typename Curve::F>;
  const size_t parts = pool.size() * 4;
  std::vector<Fr> s0(parts, Fr::zero()), s1(parts, Fr::zero());
  pool.parallel_for(parts, [&](size_t pb, size_t pe) {
    for (size_t p = pb; p < pe; ++p) {
      size_t b = n * p / parts, e = n * (p + 1) / parts;
      Fr a = Fr::zero(), c = Fr::zero(), idx = Fr::from_u64(b), one = Fr::one();
      for (size_t i = b; i < e; ++i) {
        Fr ki = Fr::from_std(k[i]);
        a += ki;
        c += ki * idx;
        idx += one;
      }
      s0[p] = a;
      s1[p] = c;
    }
  });
  Fr a = Fr::zero(), c = Fr::zero();
  for (size_t p = 0; p < parts; ++p) {
    a += s0[p];
    c += s1[p];
  }
  return Curve::mul(Jac::from_affine(w.p0), a) + Curve::mul(Jac::from_affine(w.q), c);
}

}  // namespace cuzk::bench
