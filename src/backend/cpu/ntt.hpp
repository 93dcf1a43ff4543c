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

// A transform's constants. The twiddles are stage-major: tw[h + j] = w_{2h}^j for every half
// size h = 2^(s-1) of a stage and j < h (n entries, tw[0] unused), so each stage reads its own
// twiddles contiguously; tw_inv the same for the inverse roots.
template <class Fr>
struct Domain {
  int log_n = 0;
  size_t n = 1;
  Fr omega, omega_inv, n_inv;
  std::vector<Fr> tw;
  std::vector<Fr> tw_inv;

  // With a pool, the top stage's twiddles (n/2 powers each way) are computed in parallel.
  static Domain make(int log_n, uint64_t base = Fr::Params::nqr, ThreadPool* pool = nullptr) {
    Domain d;
    d.log_n = log_n;
    d.n = size_t(1) << log_n;
    d.omega = root_of_unity<Fr>(log_n, base);
    d.omega_inv = d.omega.inv();
    d.n_inv = Fr::from_u64(d.n).inv();
    const size_t h = d.n / 2;
    d.tw.assign(std::max<size_t>(d.n, 2), Fr::one());
    d.tw_inv.assign(std::max<size_t>(d.n, 2), Fr::one());
    if (h == 0) return d;
    auto top = [&](size_t b, size_t e) {
      Fr a = d.omega.pow_u64(b), ai = d.omega_inv.pow_u64(b);
      for (size_t j = b; j < e; ++j) {
        d.tw[h + j] = a;
        d.tw_inv[h + j] = ai;
        a = a * d.omega;
        ai = ai * d.omega_inv;
      }
    };
    if (pool)
      pool->parallel_for(h, top, 4096);
    else
      top(0, h);
    for (size_t q = h / 2; q >= 1; q /= 2)  // w_{2q}^j = w_{4q}^{2j}
      for (size_t j = 0; j < q; ++j) {
        d.tw[q + j] = d.tw[2 * q + 2 * j];
        d.tw_inv[q + j] = d.tw_inv[2 * q + 2 * j];
      }
    return d;
  }
};

inline size_t bit_reverse(size_t x, int bits) {
  uint64_t v = x;
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
  v = __builtin_bswap64(v);
  return bits == 0 ? 0 : size_t(v >> (64 - bits));
}

// x, y = x + w y, x - w y (w = 1: no product).
template <class Fr, bool kUnit = false>
inline void butterfly(Fr& x, Fr& y, const Fr& w) {
  const Fr t = kUnit ? y : y * w;
  y = x - t;
  x = x + t;
}

// In-place transform of a[0..n): forward evaluates the polynomial with coefficients a at
// omega^i; inverse interpolates (and scales by 1/n unless `scale` is false: the caller folds
// 1/n into a later product). Iterative Cooley-Tukey (decimation in time) over the bit-reversed
// input: the first stages run block by block (2^10 elements, 32 KiB: within the core's first
// cache, one pass for all of them), the later ones stage by stage over the whole array.
template <class Fr>
void ntt(Fr* a, const Domain<Fr>& d, bool inverse, ThreadPool& pool, bool scale = true) {
  const size_t n = d.n;
  if (n == 1) return;
  const int L = d.log_n;
  pool.parallel_for(
      n,
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
          const size_t j = bit_reverse(i, L);
          if (i < j) std::swap(a[i], a[j]);
        }
      },
      4096);
  const Fr* T = inverse ? d.tw_inv.data() : d.tw.data();
  const size_t B = size_t(1) << std::min(L, 10);
  pool.parallel_for(
      n / B,
      [&](size_t bb, size_t be) {
        for (size_t blk = bb; blk < be; ++blk) {
          Fr* x = a + blk * B;
          for (size_t g = 0; g < B; g += 2) butterfly<Fr, true>(x[g], x[g + 1], T[1]);
          for (size_t h = 2; h < B; h *= 2)
            for (size_t g = 0; g < B; g += 2 * h)
              for (size_t j = 0; j < h; ++j) butterfly(x[g + j], x[g + j + h], T[h + j]);
        }
      },
      1);
  for (size_t h = B; h < n; h *= 2) {
    pool.parallel_for(
        n / 2,
        [&](size_t b, size_t e) {
          size_t j = b % h;
          Fr* x = a + (b / h) * 2 * h;
          for (size_t t = b; t < e; ++t) {
            butterfly(x[j], x[j + h], T[h + j]);
            if (++j == h) {
              j = 0;
              x += 2 * h;
            }
          }
        },
        4096);
  }
  if (inverse && scale) {
    pool.parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) a[i] = a[i] * d.n_inv;
        },
        4096);
  }
}

// a[j] *= first * g^j: moves a coefficient vector so that a forward transform evaluates on
// g * <omega> (first: a factor folded in, e.g. an inverse transform's 1/n).
template <class Fr>
void scale_by_powers(Fr* a, size_t n, const Fr& g, ThreadPool& pool, const Fr& first = Fr::one()) {
  pool.parallel_for(
      n,
      [&](size_t b, size_t e) {
        Fr p = first * g.pow_u64(b);
        for (size_t i = b; i < e; ++i) {
          a[i] = a[i] * p;
          p = p * g;
        }
      },
      4096);
}

}  // namespace cuzk::cpu
