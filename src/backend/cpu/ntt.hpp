// SPDX-License-Identifier: MIT OR Apache-2.0
// Number-theoretic transforms over Fr on the CPU (the reference backend).
//
// Roots of unity follow snarkjs/rapidsnark exactly: with r - 1 = 2^s * t and the quadratic
// non-residue 5, w_{2^k} = 5^(t * 2^(s-k)); bellperson's keys take them from the field's
// multiplicative generator instead (7 on BLS12-381), the `base` argument below. Transforms take and return natural order
// (bit reversal is internal), which is the order the .zkey H points expect.
#pragma once
#include <cstdint>
#include <vector>

#include "ff/field.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cpu {

// Primitive 2^k-th root of unity of Fr (k <= two-adicity): base^(t * 2^(s-k)), base the quadratic
// non-residue (snarkjs) unless given (bellperson: Fr::Params::generator).
template <class Fr>
Fr root_of_unity(int k, uint64_t base = Fr::Params::nqr) {
  constexpr int s = Fr::Params::two_adicity;
  if (k < 0 || k > s) throw InvalidArgument("no 2^" + std::to_string(k) + "-th root of unity in this field");
  // t = (r - 1) >> s
  ff::Limbs<Fr::N> t = Fr::K.p;
  t.v[0] -= 1;
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < Fr::N; ++j) t.v[j] = (t.v[j] >> 1) | (j + 1 < Fr::N ? t.v[j + 1] << 63 : 0);
  Fr w = Fr::from_u64(base).pow(t);  // primitive 2^s-th root
  for (int i = k; i < s; ++i) w = w.sqr();
  return w;
}

template <class Fr>
struct Domain {
  int log_n = 0;
  size_t n = 1;
  Fr omega, omega_inv, n_inv;
  std::vector<Fr> tw;      // omega^j, j < n/2
  std::vector<Fr> tw_inv;  // omega^-j, j < n/2

  static Domain make(int log_n, uint64_t base = Fr::Params::nqr) {
    Domain d;
    d.log_n = log_n;
    d.n = size_t(1) << log_n;
    d.omega = root_of_unity<Fr>(log_n, base);
    d.omega_inv = d.omega.inv();
    d.n_inv = Fr::from_u64(d.n).inv();
    size_t h = d.n / 2;
    d.tw.resize(h > 0 ? h : 1);
    d.tw_inv.resize(h > 0 ? h : 1);
    Fr a = Fr::one(), b = Fr::one();
    for (size_t j = 0; j < h; ++j) {
      d.tw[j] = a;
      d.tw_inv[j] = b;
      a = a * d.omega;
      b = b * d.omega_inv;
    }
    return d;
  }
};

inline size_t bit_reverse(size_t x, int bits) {
  size_t r = 0;
  for (int i = 0; i < bits; ++i) {
    r = (r << 1) | (x & 1);
    x >>= 1;
  }
  return r;
}

// In-place transform of a[0..n): forward evaluates the polynomial with coefficients a at
// omega^i; inverse interpolates (and scales by 1/n).
template <class Fr>
void ntt(Fr* a, const Domain<Fr>& d, bool inverse, ThreadPool& pool) {
  const size_t n = d.n;
  if (n == 1) return;
  const int L = d.log_n;
  for (size_t i = 0; i < n; ++i) {
    size_t j = bit_reverse(i, L);
    if (i < j) std::swap(a[i], a[j]);
  }
  const std::vector<Fr>& tw = inverse ? d.tw_inv : d.tw;
  // Iterative Cooley-Tukey (decimation in time) over the bit-reversed input.
  for (int s = 1; s <= L; ++s) {
    const size_t m = size_t(1) << s, half = m / 2, stride = n / m;
    const size_t butterflies = n / 2;
    pool.parallel_for(
        butterflies,
        [&](size_t b, size_t e) {
          for (size_t t = b; t < e; ++t) {
            size_t group = t / half, j = t % half;
            size_t i0 = group * m + j, i1 = i0 + half;
            Fr x = a[i0], y = a[i1] * tw[j * stride];
            a[i0] = x + y;
            a[i1] = x - y;
          }
        },
        4096);
  }
  if (inverse) {
    pool.parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) a[i] = a[i] * d.n_inv;
        },
        4096);
  }
}

// a[j] *= g^j: moves a coefficient vector so that a forward transform evaluates on g * <omega>.
template <class Fr>
void scale_by_powers(Fr* a, size_t n, const Fr& g, ThreadPool& pool) {
  pool.parallel_for(
      n,
      [&](size_t b, size_t e) {
        Fr p = g.pow_u64(b);
        for (size_t i = b; i < e; ++i) {
          a[i] = a[i] * p;
          p = p * g;
        }
      },
      4096);
}

}  // namespace cuzk::cpu
