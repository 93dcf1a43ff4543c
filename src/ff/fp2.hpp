// SPDX-License-Identifier: MIT OR Apache-2.0
// Quadratic extension Fp2 = Fp[u] / (u^2 + 1). Both BN254 and BLS12-381 build their G2 twist
// over this extension (u^2 = -1, since p = 3 mod 4 for both).
#pragma once
#include "ff/field.hpp"

namespace cuzk::ff {

template <class F>
struct Fp2 {
  using Base = F;
  F c0, c1;

  CUZK_HD static Fp2 zero() { return {F::zero(), F::zero()}; }
  CUZK_HD static Fp2 one() { return {F::one(), F::zero()}; }
  CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_HD bool is_reduced() const { return c0.is_reduced() && c1.is_reduced(); }
  CUZK_HD friend bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  CUZK_HD friend bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }
  CUZK_HD friend Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  CUZK_HD friend Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  CUZK_HD Fp2 operator-() const { return {-c0, -c1}; }
  CUZK_HD Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  // Karatsuba: (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u
  CUZK_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) {
    F t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    F m = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {t0 - t1, m - t0 - t1};
  }
  // (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u
  CUZK_HD Fp2 sqr() const {
    F m = c0 * c1;
    return {(c0 + c1) * (c0 - c1), m.dbl()};
  }
  CUZK_HD Fp2 mul_base(const F& s) const { return {c0 * s, c1 * s}; }
  CUZK_HD Fp2 conj() const { return {c0, -c1}; }
  CUZK_HD Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  CUZK_HD Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  CUZK_HD Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  // 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2)
  CUZK_HD Fp2 inv() const {
    F n = (c0.sqr() + c1.sqr()).inv();
    return {c0 * n, -(c1 * n)};
  }
  // Norm-based square root for p = 3 mod 4 (Adj, Rodriguez-Henriquez 2012, Algorithm 9).
  CUZK_HD bool sqrt(Fp2& out) const {
    if (is_zero()) {
      out = zero();
      return true;
    }
    // a1 = a^((p-3)/4); alpha = a1^2 a; x0 = a1 a
    ff::Limbs<F::N> e = F::K.p_plus_1_div_4;  // (p+1)/4 = (p-3)/4 + 1
    ff::Limbs<F::N> one{};
    one.v[0] = 1;
    limbs_sub(e, one);
    Fp2 a1 = pow(e);
    Fp2 alpha = a1.sqr() * *this;
    Fp2 x0 = a1 * *this;
    Fp2 minus_one = {-F::one(), F::zero()};
    Fp2 x;
    if (alpha == minus_one) {
      x = Fp2{-x0.c1, x0.c0};  // x0 * u
    } else {
      ff::Limbs<F::N> h = F::K.p_minus_1_div_2;
      Fp2 b = (one_plus(alpha)).pow(h);
      x = b * x0;
    }
    if (x.sqr() != *this) return false;
    out = x;
    return true;
  }
  template <int M>
  CUZK_HD Fp2 pow(const ff::Limbs<M>& e) const {
    Fp2 r = one();
    for (int i = M - 1; i >= 0; --i)
      for (int b = 63; b >= 0; --b) {
        r = r.sqr();
        if ((e.v[i] >> b) & 1) r = r * *this;
      }
    return r;
  }

 private:
  CUZK_HD static Fp2 one_plus(const Fp2& a) { return one() + a; }
};

// a * b - c * d over Fp2, for the curve formulas (ff::mul_sub over Fp shares one reduction on
// the GPU). Here both products are full: double-width Fp2 products (three products, two
// reductions) held more registers than G2's kernels have, and were slower (bench/MSM-NOTES.md).
template <class F>
CUZK_HD Fp2<F> mul_sub(const Fp2<F>& a, const Fp2<F>& b, const Fp2<F>& c, const Fp2<F>& d) {
  return a * b - c * d;
}

}  // namespace cuzk::ff
