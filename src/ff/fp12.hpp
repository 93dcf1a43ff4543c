// SPDX-License-Identifier: MIT OR Apache-2.0
// The degree-12 tower used by the pairings of BN254 and BLS12-381 (host code):
//
//   Fp2  = Fp[u]  / (u^2 + 1)                       (ff/fp2.hpp)
//   Fp6  = Fp2[v] / (v^3 - xi)    xi = 9 + u (BN254), 1 + u (BLS12-381)
//   Fp12 = Fp6[w] / (w^2 - v)     so w^6 = xi
//
// This is the tower of snarkjs/ffjavascript (wasmcurves), arkworks, gnark and zkcrypto, so GT
// elements can be compared with theirs coefficient for coefficient: an Fp12 is (c0, c1) with
// c0, c1 in Fp6, an Fp6 is (c0, c1, c2) with coefficients in Fp2. As a polynomial in w,
//   a = c0.c0 + c1.c0 w + c0.c1 w^2 + c1.c1 w^3 + c0.c2 w^4 + c1.c2 w^5.
//
// Frobenius: for a in Fp2, a^p = conj(a) (p = 3 mod 4). For a = sum a_i w^i,
//   a^(p^k) = sum conj^k(a_i) * gamma[k][i] * w^i,   gamma[k][i] = xi^(i (p^k - 1) / 6),
// because w^(p^k) = w * (w^6)^((p^k - 1)/6). The constants are computed once at start-up (first
// use, thread-safe static) from the modulus alone: gamma[1][1] = xi^((p-1)/6) by exponentiation
// in Fp2 ((p - 1)/6 is derived from the modulus limbs at compile time; p = 1 mod 6 for both
// curves), gamma[1][i] = gamma[1][1]^i, and gamma[k][i] = gamma[k-1][i] * conj^(k-1)(gamma[1][i])
// (xi^(i(p^k-1)/6) = xi^(i(p^(k-1)-1)/6) * (xi^(i(p-1)/6))^(p^(k-1))).
//
// Formulas: Fp6 multiplication and squaring are Karatsuba and Chung-Hasan SQR2 (Devegili, O hEigeartaigh,
// Scott, Dahab, "Multiplication and Squaring on Pairing-Friendly Fields", 2006); Fp12 squaring is
// the "complex" method; cyclotomic squaring is Granger-Scott ("Faster Squaring in the Cyclotomic
// Subgroup of Sixth Degree Extensions", PKC 2010) in arkworks' arrangement. Every one of them is
// checked against the generic product in tests/test_pairing.cpp.
#pragma once
#include <cstdint>

#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "ff/fp2.hpp"

namespace cuzk::ff {

// ------------------------------------------------------------------ tower configurations

struct Bn254TowerCfg {
  using F = Bn254Fq;
  using F2 = Bn254Fq2;
  static constexpr uint64_t xi_c0 = 9;  // xi = 9 + u
  // (9 + u)(a0 + a1 u) = (9 a0 - a1) + (a0 + 9 a1) u
  static F2 mul_by_xi(const F2& a) {
    F t0 = a.c0.dbl().dbl().dbl() + a.c0;
    F t1 = a.c1.dbl().dbl().dbl() + a.c1;
    return {t0 - a.c1, a.c0 + t1};
  }
};

struct Bls12381TowerCfg {
  using F = Bls12381Fq;
  using F2 = Bls12381Fq2;
  static constexpr uint64_t xi_c0 = 1;  // xi = 1 + u
  // (1 + u)(a0 + a1 u) = (a0 - a1) + (a0 + a1) u
  static F2 mul_by_xi(const F2& a) { return {a.c0 - a.c1, a.c0 + a.c1}; }
};

namespace detail {

// a / d for a small divisor d, at compile time; the remainder is returned through rem.
template <int N>
constexpr Limbs<N> limbs_div_small(const Limbs<N>& a, uint64_t d, uint64_t& rem) {
  Limbs<N> q{};
  unsigned __int128 r = 0;
  for (int i = N - 1; i >= 0; --i) {
    unsigned __int128 cur = (r << 64) | a.v[i];
    q.v[i] = uint64_t(cur / d);
    r = cur % d;
  }
  rem = uint64_t(r);
  return q;
}

template <class F>
constexpr Limbs<F::N> p_minus_1_div_6() {
  Limbs<F::N> pm1 = F::K.p;
  Limbs<F::N> one{};
  one.v[0] = 1;
  limbs_sub(pm1, one);
  uint64_t rem = 0;
  Limbs<F::N> q = limbs_div_small(pm1, 6, rem);
  return rem == 0 ? q : Limbs<F::N>{};  // checked by a static_assert below
}

}  // namespace detail

// gamma[k][i] = xi^(i (p^k - 1) / 6) for k = 0..3, i = 0..5 (k = 0: all ones).
template <class Cfg>
struct FrobeniusConsts {
  using F2 = typename Cfg::F2;
  using F = typename Cfg::F;
  F2 gamma[4][6];

  static const FrobeniusConsts& get() {
    static const FrobeniusConsts c = compute();
    return c;
  }

 private:
  static FrobeniusConsts compute() {
    constexpr Limbs<F::N> e = detail::p_minus_1_div_6<F>();
    static_assert(e.v[0] != 0 || e.v[1] != 0, "p - 1 must be divisible by 6");
    FrobeniusConsts c;
    F2 xi{F::from_u64(Cfg::xi_c0), F::one()};
    F2 g = xi.pow(e);
    F2 acc = F2::one();
    for (int i = 0; i < 6; ++i) {
      c.gamma[0][i] = F2::one();
      c.gamma[1][i] = acc;
      acc = acc * g;
    }
    for (int k = 2; k <= 3; ++k) {
      for (int i = 0; i < 6; ++i) {
        F2 t = c.gamma[1][i];
        for (int j = 0; j < k - 1; ++j) t = t.conj();
        c.gamma[k][i] = c.gamma[k - 1][i] * t;
      }
    }
    return c;
  }
};

// ------------------------------------------------------------------ Fp6

template <class Cfg>
struct Fp6 {
  using F2 = typename Cfg::F2;
  using F = typename Cfg::F;
  F2 c0, c1, c2;

  static Fp6 zero() { return {F2::zero(), F2::zero(), F2::zero()}; }
  static Fp6 one() { return {F2::one(), F2::zero(), F2::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  friend bool operator==(const Fp6& a, const Fp6& b) { return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2; }
  friend bool operator!=(const Fp6& a, const Fp6& b) { return !(a == b); }
  friend Fp6 operator+(const Fp6& a, const Fp6& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend Fp6 operator-(const Fp6& a, const Fp6& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  Fp6 operator-() const { return {-c0, -c1, -c2}; }
  Fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  Fp6& operator-=(const Fp6& b) { return *this = *this - b; }
  Fp6& operator*=(const Fp6& b) { return *this = *this * b; }

  static F2 nr(const F2& a) { return Cfg::mul_by_xi(a); }

  // (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2
  Fp6 mul_by_v() const { return {nr(c2), c0, c1}; }
  Fp6 mul_fp2(const F2& s) const { return {c0 * s, c1 * s, c2 * s}; }

  // Karatsuba: 6 Fp2 products.
  friend Fp6 operator*(const Fp6& a, const Fp6& b) {
    F2 aa = a.c0 * b.c0, bb = a.c1 * b.c1, cc = a.c2 * b.c2;
    F2 r0 = nr((a.c1 + a.c2) * (b.c1 + b.c2) - bb - cc) + aa;
    F2 r1 = (a.c0 + a.c1) * (b.c0 + b.c1) - aa - bb + nr(cc);
    F2 r2 = (a.c0 + a.c2) * (b.c0 + b.c2) - aa + bb - cc;
    return {r0, r1, r2};
  }
  // Chung-Hasan SQR2.
  Fp6 sqr() const {
    F2 s0 = c0.sqr();
    F2 s1 = (c0 * c1).dbl();
    F2 s2 = (c0 - c1 + c2).sqr();
    F2 s3 = (c1 * c2).dbl();
    F2 s4 = c2.sqr();
    return {s0 + nr(s3), s1 + nr(s4), s1 + s2 + s3 - s0 - s4};
  }
  // Product with b0 + b1 v (sparse): 5 Fp2 products.
  Fp6 mul_by_01(const F2& b0, const F2& b1) const {
    F2 aa = c0 * b0, bb = c1 * b1;
    F2 r0 = nr((c1 + c2) * b1 - bb) + aa;
    F2 r1 = (c0 + c1) * (b0 + b1) - aa - bb;
    F2 r2 = (c0 + c2) * b0 - aa + bb;
    return {r0, r1, r2};
  }
  // Product with b1 v (sparse): 3 Fp2 products.
  Fp6 mul_by_1(const F2& b1) const { return {nr(c2 * b1), c0 * b1, c1 * b1}; }

  Fp6 inv() const {
    F2 t0 = c0.sqr() - nr(c1 * c2);
    F2 t1 = nr(c2.sqr()) - c0 * c1;
    F2 t2 = c1.sqr() - c0 * c2;
    F2 d = c0 * t0 + nr(c2 * t1 + c1 * t2);
    F2 di = d.inv();
    return {t0 * di, t1 * di, t2 * di};
  }
  // x -> x^(p^k), k = 0..3.
  Fp6 frobenius(int k) const {
    const auto& g = FrobeniusConsts<Cfg>::get().gamma[k];
    F2 a0 = c0, a1 = c1, a2 = c2;
    if (k & 1) {
      a0 = a0.conj();
      a1 = a1.conj();
      a2 = a2.conj();
    }
    return {a0, a1 * g[2], a2 * g[4]};
  }
};

// ------------------------------------------------------------------ Fp12

template <class Cfg>
struct Fp12 {
  using F6 = Fp6<Cfg>;
  using F2 = typename Cfg::F2;
  using F = typename Cfg::F;
  F6 c0, c1;

  static Fp12 zero() { return {F6::zero(), F6::zero()}; }
  static Fp12 one() { return {F6::one(), F6::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return *this == one(); }
  friend bool operator==(const Fp12& a, const Fp12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend bool operator!=(const Fp12& a, const Fp12& b) { return !(a == b); }
  friend Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp12 operator-() const { return {-c0, -c1}; }
  Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  // Karatsuba over Fp6: 3 Fp6 products.
  friend Fp12 operator*(const Fp12& a, const Fp12& b) {
    F6 aa = a.c0 * b.c0, bb = a.c1 * b.c1;
    F6 r1 = (a.c0 + a.c1) * (b.c0 + b.c1) - aa - bb;
    return {aa + bb.mul_by_v(), r1};
  }
  // (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - (1 + v) a0 a1 + 2 a0 a1 w: 2 Fp6 products.
  Fp12 sqr() const {
    F6 ab = c0 * c1;
    F6 r0 = (c0 + c1) * (c0 + c1.mul_by_v()) - ab - ab.mul_by_v();
    return {r0, ab.dbl()};
  }
  // x^(p^6): the conjugate over Fp6 (w^(p^6) = -w). On the cyclotomic subgroup, the inverse.
  Fp12 conj() const { return {c0, -c1}; }
  Fp12 inv() const {
    F6 t = (c0.sqr() - c1.sqr().mul_by_v()).inv();
    return {c0 * t, -(c1 * t)};
  }
  // x^(p^k) for any k >= 0 (k mod 12; steps of at most 3).
  Fp12 frobenius(int k) const {
    k %= 12;
    Fp12 r = *this;
    while (k > 0) {
      int s = k > 3 ? 3 : k;
      r = r.frobenius_step(s);
      k -= s;
    }
    return r;
  }

  // Sparse products with the lines of the Miller loop (an element with three non-zero Fp2
  // coefficients; the positions are those of the twist type).
  // D-type twist (BN254): b = b0 + b3 w + b4 w^3, i.e. (c0 = (b0, 0, 0), c1 = (b3, b4, 0)).
  Fp12 mul_by_034(const F2& b0, const F2& b3, const F2& b4) const {
    F6 a = c0.mul_fp2(b0);
    F6 b = c1.mul_by_01(b3, b4);
    F6 e = (c0 + c1).mul_by_01(b0 + b3, b4);
    return {a + b.mul_by_v(), e - a - b};
  }
  // M-type twist (BLS12-381): b = b0 + b1 w^2 + b4 w^3, i.e. (c0 = (b0, b1, 0), c1 = (0, b4, 0)).
  Fp12 mul_by_014(const F2& b0, const F2& b1, const F2& b4) const {
    F6 a = c0.mul_by_01(b0, b1);
    F6 b = c1.mul_by_1(b4);
    F6 e = (c0 + c1).mul_by_01(b0, b1 + b4);
    return {a + b.mul_by_v(), e - a - b};
  }

  // Squaring in the cyclotomic subgroup (the elements with x^(p^4 - p^2 + 1) = 1, e.g. every
  // output of the final exponentiation's easy part), seen as Fp4^3 with Fp4 = Fp2[s]/(s^2 - xi).
  // Wrong for other elements.
  Fp12 cyclotomic_sqr() const {
    auto nr = [](const F2& a) { return Cfg::mul_by_xi(a); };
    const F2 &r0 = c0.c0, &r4 = c0.c1, &r3 = c0.c2, &r2 = c1.c0, &r1 = c1.c1, &r5 = c1.c2;
    // (z0 + z1 s)^2 etc. in Fp4 = Fp2[s]/(s^2 - xi)
    F2 tmp = r0 * r1;
    F2 t0 = (r0 + r1) * (nr(r1) + r0) - tmp - nr(tmp);
    F2 t1 = tmp.dbl();
    tmp = r2 * r3;
    F2 t2 = (r2 + r3) * (nr(r3) + r2) - tmp - nr(tmp);
    F2 t3 = tmp.dbl();
    tmp = r4 * r5;
    F2 t4 = (r4 + r5) * (nr(r5) + r4) - tmp - nr(tmp);
    F2 t5 = tmp.dbl();
    Fp12 z;
    // z0 = 3 t0 - 2 r0, z1 = 3 t1 + 2 r1
    z.c0.c0 = (t0 - r0).dbl() + t0;
    z.c1.c1 = (t1 + r1).dbl() + t1;
    // z2 = 3 xi t5 + 2 r2, z3 = 3 t4 - 2 r3
    F2 x5 = nr(t5);
    z.c1.c0 = (r2 + x5).dbl() + x5;
    z.c0.c2 = (t4 - r3).dbl() + t4;
    // z4 = 3 t2 - 2 r4, z5 = 3 t3 + 2 r5
    z.c0.c1 = (t2 - r4).dbl() + t2;
    z.c1.c2 = (r5 + t3).dbl() + t3;
    return z;
  }

  // x^e, e given as little-endian 64-bit words (any length).
  Fp12 pow(const uint64_t* e, int words) const {
    Fp12 r = one();
    bool started = false;
    for (int i = words - 1; i >= 0; --i)
      for (int b = 63; b >= 0; --b) {
        if (started) r = r.sqr();
        if ((e[i] >> b) & 1) {
          r = started ? r * *this : *this;
          started = true;
        }
      }
    return r;
  }
  template <int M>
  Fp12 pow(const Limbs<M>& e) const {
    return pow(e.v, M);
  }

  // x^e for x in the cyclotomic subgroup, e a 64-bit magnitude (conj is the inverse there), with
  // signed binary digits (NAF) to save multiplications.
  Fp12 cyclotomic_pow_u64(uint64_t e) const {
    if (e == 0) return one();
    // NAF digits, least significant first.
    int8_t naf[66];
    int n = 0;
    unsigned __int128 k = e;
    while (k > 0) {
      if (k & 1) {
        int8_t d = int8_t(2 - int(k & 3));  // 1 or -1
        naf[n++] = d;
        if (d == 1)
          k -= 1;
        else
          k += 1;
      } else {
        naf[n++] = 0;
      }
      k >>= 1;
    }
    Fp12 inv = conj();
    Fp12 r = naf[n - 1] == 1 ? *this : inv;
    for (int i = n - 2; i >= 0; --i) {
      r = r.cyclotomic_sqr();
      if (naf[i] == 1)
        r = r * *this;
      else if (naf[i] == -1)
        r = r * inv;
    }
    return r;
  }

 private:
  // x^(p^k) for k = 1..3.
  Fp12 frobenius_step(int k) const {
    const auto& g = FrobeniusConsts<Cfg>::get().gamma[k];
    F6 a0 = c0.frobenius(k);
    F2 b0 = c1.c0, b1 = c1.c1, b2 = c1.c2;
    if (k & 1) {
      b0 = b0.conj();
      b1 = b1.conj();
      b2 = b2.conj();
    }
    return {a0, {b0 * g[1], b1 * g[3], b2 * g[5]}};
  }
};

using Bn254Fq6 = Fp6<Bn254TowerCfg>;
using Bn254Fq12 = Fp12<Bn254TowerCfg>;
using Bls12381Fq6 = Fp6<Bls12381TowerCfg>;
using Bls12381Fq12 = Fp12<Bls12381TowerCfg>;

}  // namespace cuzk::ff
