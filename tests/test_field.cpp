// SPDX-License-Identifier: MIT OR Apache-2.0
// Field arithmetic without a reference library (runs everywhere, including bare GPU hosts):
// the algebraic laws on random elements of the four prime fields and of the two quadratic
// extensions, batch inversion, Fp2 inverse / square root, and a few values known in closed
// form (1/2 = (p+1)/2, -1 = p-1). test_field_gmp.cpp compares against GMP where it exists.
#include <cstdio>
#include <vector>

#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using cuzk::ff::Bls12381Fq;
using cuzk::ff::Bls12381Fq2;
using cuzk::ff::Bls12381Fr;
using cuzk::ff::Bn254Fq;
using cuzk::ff::Bn254Fq2;
using cuzk::ff::Bn254Fr;

namespace {

RandomSource rng_for(uint64_t tag) { return RandomSource(test::seed() ^ (tag * 0x9e3779b97f4a7c15ull)); }

uint64_t name_tag(const char* name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char* c = name; *c; ++c) h = (h ^ uint64_t(uint8_t(*c))) * 1099511628211ull;
  return h;
}

// A hex dump of the raw limbs, for failure messages.
template <class F>
std::string hex(const F& a) {
  char buf[24];
  std::string s = "0x";
  for (int i = F::N - 1; i >= 0; --i) {
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)a.l[i]);
    s += buf;
  }
  return s;
}
template <class B>
std::string hex(const ff::Fp2<B>& a) {
  std::string s = "(";
  s += hex(a.c0);
  s += ", ";
  s += hex(a.c1);
  s += ")";
  return s;
}

// Mostly uniform elements, sometimes 0, 1, -1 or a small integer.
template <class F>
F random_elem(RandomSource& rs) {
  switch (rs.next() % 32) {
    case 0:
      return F::zero();
    case 1:
      return F::one();
    case 2:
      return -F::one();
    case 3:
      return F::from_u64(rs.next() % 1000);
    default:
      return random_field<F>(rs);
  }
}
template <class F>
F random_nonzero(RandomSource& rs) {
  for (;;) {
    F x = random_field<F>(rs);
    if (!x.is_zero()) return x;
  }
}

template <int N>
bool limbs_eq(const ff::Limbs<N>& a, const ff::Limbs<N>& b) {
  for (int i = 0; i < N; ++i)
    if (a.v[i] != b.v[i]) return false;
  return true;
}

// ------------------------------------------------------------------ prime fields

template <class F>
void check_field_laws() {
  RandomSource rs = rng_for(name_tag(F::Params::name) + 10);
  const F zero = F::zero(), one = F::one();
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    F a = random_elem<F>(rs), b = random_elem<F>(rs), c = random_elem<F>(rs);
    CHECK_MSG(a + b == b + a, F::Params::name << " a+b != b+a for " << hex(a) << ", " << hex(b));
    CHECK_MSG(a * b == b * a, F::Params::name << " a*b != b*a for " << hex(a) << ", " << hex(b));
    CHECK_MSG((a + b) + c == a + (b + c), F::Params::name << " + not associative: " << hex(a) << hex(b) << hex(c));
    CHECK_MSG((a * b) * c == a * (b * c), F::Params::name << " * not associative: " << hex(a) << hex(b) << hex(c));
    CHECK_MSG(a * (b + c) == a * b + a * c, F::Params::name << " not distributive: " << hex(a) << hex(b) << hex(c));
    CHECK_MSG((a - b) * c == a * c - b * c, F::Params::name << " - not distributive: " << hex(a) << hex(b) << hex(c));
    CHECK(a - b == a + (-b));
    CHECK(a - b == -(b - a));
    CHECK((a - b) + b == a);
    CHECK((a + b) - b == a);
    CHECK((a - a).is_zero());
    CHECK((a + (-a)).is_zero());
    CHECK(-(-a) == a);
    CHECK(a + zero == a);
    CHECK(a * one == a);
    CHECK((a * zero).is_zero());
    CHECK(a.sqr() == a * a);
    CHECK(a.dbl() == a + a);
    CHECK((a + b).sqr() == a.sqr() + (a * b).dbl() + b.sqr());
    CHECK((a + b) * (a - b) == a.sqr() - b.sqr());
    // Every result is a reduced representative.
    CHECK((a + b).is_reduced() && (a - b).is_reduced() && (a * b).is_reduced() && (-a).is_reduced());
    if (!a.is_zero()) {
      F ai = a.inv();
      CHECK_MSG((a * ai).is_one(), F::Params::name << " a * inv(a) != 1 for " << hex(a));
      CHECK(ai.inv() == a);
      if (!b.is_zero()) CHECK((a * b).inv() == ai * b.inv());
      CHECK(a == b * (a * b.inv()) || b.is_zero());
    } else {
      CHECK(a.inv().is_zero());
    }
    // (a^2)^((p-1)/2) = 1 for a != 0: the Legendre symbol of a square.
    CHECK(a.sqr().legendre() == (a.is_zero() ? 0 : 1));
    // -1 is a non-square exactly when p = 3 mod 4: legendre(-a^2) flips then.
    if (!a.is_zero()) CHECK((-a.sqr()).legendre() == (F::K.p_is_3_mod_4 ? -1 : 1));
  }
  std::printf("  %-13s %d random triples\n", F::Params::name, n);
}

template <class F>
void check_pow_and_integers() {
  RandomSource rs = rng_for(name_tag(F::Params::name) + 11);
  for (int i = 0; i < 300; ++i) {
    F a = random_elem<F>(rs);
    uint64_t e1 = rs.next() >> 2, e2 = rs.next() >> 2;  // e1 + e2 does not overflow
    CHECK(a.pow_u64(e1) * a.pow_u64(e2) == a.pow_u64(e1 + e2));
    CHECK(a.pow_u64(0).is_one());
    CHECK(a.pow_u64(1) == a);
    CHECK(a.pow_u64(2) == a.sqr());
    CHECK(a.pow_u64(5) == a.sqr().sqr() * a);
    // (a^e)^2 = a^(2e) through a two-limb exponent: 2 e1 spills into the second limb.
    ff::Limbs<2> twice{{e1 << 1, 0}}, hi{{0, 1}};
    CHECK(a.pow_u64(e1).sqr() == a.pow(twice));
    CHECK(a.pow(hi) == a.pow_u64(1ull << 63).sqr());  // a^(2^64)
    // Fermat: a^(p-1) = 1.
    ff::Limbs<F::N> pm1 = F::K.p;
    pm1.v[0] -= 1;
    if (!a.is_zero()) CHECK(a.pow(pm1).is_one());
    CHECK(a.pow(F::K.p) == a);  // a^p = a
    // Small integers: the field agrees with machine arithmetic below 2^62.
    uint64_t x = rs.next() >> 2, y = rs.next() >> 2;
    CHECK(F::from_u64(x) + F::from_u64(y) == F::from_u64(x + y));
    CHECK(F::from_u64(x + y) - F::from_u64(y) == F::from_u64(x));
    unsigned __int128 prod = (unsigned __int128)x * y;
    ff::Limbs<F::N> pl{};
    pl.v[0] = uint64_t(prod);
    pl.v[1] = uint64_t(prod >> 64);
    CHECK(F::from_u64(x) * F::from_u64(y) == F::from_std(pl));
    CHECK(limbs_eq(F::from_std(pl).to_std(), pl));
    CHECK(F::from_u64(x).to_std().v[0] == x);
  }
  // Values known in closed form.
  ff::Limbs<F::N> half = F::K.p_minus_1_div_2;  // (p+1)/2 = (p-1)/2 + 1
  half.v[0] += 1;
  CHECK_MSG(limbs_eq(F::from_u64(2).inv().to_std(), half), F::Params::name << " 1/2 != (p+1)/2");
  ff::Limbs<F::N> pm1 = F::K.p;
  pm1.v[0] -= 1;
  CHECK(limbs_eq((-F::one()).to_std(), pm1));
  CHECK(F::from_std(pm1) == -F::one());
  CHECK(F::from_std(F::K.p_minus_1_div_2).dbl() == -F::one());
  CHECK(F::from_u64(3) * F::from_u64(3).inv() == F::one());
  CHECK(!F::one().is_zero() && F::zero().is_zero() && F::one().is_one() && !F::zero().is_one());
}

template <class F>
void check_batch_inverse() {
  RandomSource rs = rng_for(name_tag(F::Params::name) + 12);
  long total = 0;
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(17), size_t(256), size_t(1000)}) {
    for (int pattern = 0; pattern < 4; ++pattern) {
      std::vector<F> v(n), scratch(n);
      for (size_t i = 0; i < n; ++i) {
        bool zero = pattern == 1   ? true                    // all zeros
                    : pattern == 2 ? (i == 0 || i + 1 == n)  // zeros at both ends
                    : pattern == 3 ? rs.next() % 4 == 0      // scattered zeros
                                   : false;                  // none
        v[i] = zero ? F::zero() : random_nonzero<F>(rs);
      }
      std::vector<F> orig = v;
      ff::batch_inverse(v.data(), n, scratch.data());
      for (size_t i = 0; i < n; ++i) {
        CHECK_MSG(v[i] == orig[i].inv(), F::Params::name << " batch_inverse n=" << n << " pattern " << pattern
                                                         << " index " << i << " of " << hex(orig[i]));
        CHECK(orig[i].is_zero() ? v[i].is_zero() : (v[i] * orig[i]).is_one());
      }
      total += long(n);
    }
  }
  std::printf("  %-13s batch_inverse: %ld elements\n", F::Params::name, total);
}

// Square roots in the base fields (p = 3 mod 4).
template <class F>
void check_fp_sqrt() {
  static_assert(F::K.p_is_3_mod_4);
  RandomSource rs = rng_for(name_tag(F::Params::name) + 13);
  int nonsq = 0;
  for (int i = 0; i < 300; ++i) {
    F a = random_elem<F>(rs), r;
    CHECK(a.sqr().sqrt(r));
    CHECK(r == a || r == -a);
    F b = random_nonzero<F>(rs);
    bool ok = b.sqrt(r);
    CHECK(ok == (b.legendre() == 1));
    if (ok)
      CHECK(r.sqr() == b);
    else
      ++nonsq;
  }
  CHECK(nonsq > 50);
}

// ------------------------------------------------------------------ Fp2

template <class F2>
F2 random_fp2(RandomSource& rs) {
  using B = typename F2::Base;
  switch (rs.next() % 32) {
    case 0:
      return F2::zero();
    case 1:
      return F2::one();
    case 2:
      return F2{B::zero(), random_field<B>(rs)};  // purely imaginary
    case 3:
      return F2{random_field<B>(rs), B::zero()};  // in the base field
    default:
      return F2{random_field<B>(rs), random_field<B>(rs)};
  }
}

template <class F2>
void check_fp2_laws() {
  using B = typename F2::Base;
  RandomSource rs = rng_for(name_tag(B::Params::name) + 20);
  const F2 zero = F2::zero(), one = F2::one();
  const F2 u = {B::zero(), B::one()};
  CHECK(u.sqr() == -one);  // u^2 = -1
  CHECK(u * u == -one);
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    F2 a = random_fp2<F2>(rs), b = random_fp2<F2>(rs), c = random_fp2<F2>(rs);
    // Schoolbook product with u^2 = -1, computed in the base field.
    F2 school = {a.c0 * b.c0 - a.c1 * b.c1, a.c0 * b.c1 + a.c1 * b.c0};
    CHECK_MSG(a * b == school, B::Params::name << " Fp2 mul " << hex(a) << " * " << hex(b));
    CHECK_MSG(a.sqr() == (F2{a.c0.sqr() - a.c1.sqr(), (a.c0 * a.c1).dbl()}), B::Params::name << " Fp2 sqr " << hex(a));
    CHECK(a.sqr() == a * a);
    CHECK(a + b == b + a);
    CHECK(a * b == b * a);
    CHECK((a + b) + c == a + (b + c));
    CHECK((a * b) * c == a * (b * c));
    CHECK(a * (b + c) == a * b + a * c);
    CHECK((a - b) + b == a);
    CHECK(a - b == a + (-b));
    CHECK((a + (-a)).is_zero());
    CHECK(a + zero == a && a * one == a && (a * zero).is_zero());
    CHECK(a.dbl() == a + a);
    CHECK(a.mul_base(b.c0) == a * (F2{b.c0, B::zero()}));
    // a conj(a) = norm(a) = a0^2 + a1^2, in the base field.
    F2 nrm = a * a.conj();
    CHECK(nrm.c1.is_zero() && nrm.c0 == a.c0.sqr() + a.c1.sqr());
    CHECK(a.conj().conj() == a);
    CHECK((a * b).conj() == a.conj() * b.conj());
    CHECK(a.is_reduced() && (a * b).is_reduced());
    if (!a.is_zero()) {
      F2 ai = a.inv();
      CHECK_MSG((a * ai) == one, B::Params::name << " Fp2 a * inv(a) != 1 for " << hex(a));
      CHECK(ai.inv() == a);
      if (!b.is_zero()) CHECK((a * b).inv() == ai * b.inv());
    } else {
      CHECK(a.inv().is_zero());
    }
    if (i < 50) {
      // Frobenius: a^p = conj(a), since u^p = -u when p = 3 mod 4.
      CHECK(a.pow(B::K.p) == a.conj());
      ff::Limbs<1> three{{3}};
      CHECK(a.pow(three) == a * a * a);
    }
  }
  std::printf("  %-13s Fp2: %d random triples\n", B::Params::name, n);
}

template <class F2>
void check_fp2_sqrt() {
  using B = typename F2::Base;
  RandomSource rs = rng_for(name_tag(B::Params::name) + 21);
  F2 r;
  CHECK(F2::zero().sqrt(r) && r.is_zero());
  CHECK(F2::one().sqrt(r) && r.sqr() == F2::one());
  const F2 minus_one = -F2::one();
  CHECK(minus_one.sqrt(r) && r.sqr() == minus_one);  // +-u
  CHECK(r == (F2{B::zero(), B::one()}) || r == (F2{B::zero(), -B::one()}));
  int squares = 0, nonsquares = 0;
  for (int i = 0; i < 300; ++i) {
    F2 a = random_fp2<F2>(rs);
    F2 s = a.sqr();
    bool ok = s.sqrt(r);
    CHECK_MSG(ok, B::Params::name << " Fp2 sqrt found no root of the square of " << hex(a));
    CHECK_MSG(r == a || r == -a, B::Params::name << " Fp2 sqrt(" << hex(a) << "^2) = " << hex(r));
    ++squares;
    // Every base-field element is a square in Fp2 (base non-squares take the alpha = -1 branch).
    F2 base = {random_field<B>(rs), B::zero()};
    CHECK_MSG(base.sqrt(r) && r.sqr() == base, B::Params::name << " Fp2 sqrt of base element " << hex(base));
    F2 imag = {B::zero(), random_field<B>(rs)};
    CHECK_MSG(imag.sqrt(r) && r.sqr() == imag, B::Params::name << " Fp2 sqrt of imaginary element " << hex(imag));
    // A random element is a square iff its norm is a square in the base field.
    F2 b = random_fp2<F2>(rs);
    if (b.is_zero()) continue;
    bool is_square = (b.c0.sqr() + b.c1.sqr()).legendre() == 1;
    ok = b.sqrt(r);
    CHECK_MSG(ok == is_square, B::Params::name << " Fp2 sqrt(" << hex(b) << ") returned " << ok);
    if (ok)
      CHECK(r.sqr() == b);
    else
      ++nonsquares;
  }
  CHECK(nonsquares > 50);
  std::printf("  %-13s Fp2 sqrt: %d squares, %d non-squares\n", B::Params::name, squares, nonsquares);
}

}  // namespace

CUZK_TEST(field_laws_bn254_fq) { check_field_laws<Bn254Fq>(); }
CUZK_TEST(field_laws_bn254_fr) { check_field_laws<Bn254Fr>(); }
CUZK_TEST(field_laws_bls12_381_fq) { check_field_laws<Bls12381Fq>(); }
CUZK_TEST(field_laws_bls12_381_fr) { check_field_laws<Bls12381Fr>(); }

CUZK_TEST(field_pow_integers_bn254_fq) { check_pow_and_integers<Bn254Fq>(); }
CUZK_TEST(field_pow_integers_bn254_fr) { check_pow_and_integers<Bn254Fr>(); }
CUZK_TEST(field_pow_integers_bls12_381_fq) { check_pow_and_integers<Bls12381Fq>(); }
CUZK_TEST(field_pow_integers_bls12_381_fr) { check_pow_and_integers<Bls12381Fr>(); }

CUZK_TEST(field_batch_inverse_bn254_fq) { check_batch_inverse<Bn254Fq>(); }
CUZK_TEST(field_batch_inverse_bn254_fr) { check_batch_inverse<Bn254Fr>(); }
CUZK_TEST(field_batch_inverse_bls12_381_fq) { check_batch_inverse<Bls12381Fq>(); }
CUZK_TEST(field_batch_inverse_bls12_381_fr) { check_batch_inverse<Bls12381Fr>(); }

CUZK_TEST(field_sqrt_bn254_fq) { check_fp_sqrt<Bn254Fq>(); }
CUZK_TEST(field_sqrt_bls12_381_fq) { check_fp_sqrt<Bls12381Fq>(); }

CUZK_TEST(fp2_laws_bn254) { check_fp2_laws<Bn254Fq2>(); }
CUZK_TEST(fp2_laws_bls12_381) { check_fp2_laws<Bls12381Fq2>(); }
CUZK_TEST(fp2_sqrt_bn254) { check_fp2_sqrt<Bn254Fq2>(); }
CUZK_TEST(fp2_sqrt_bls12_381) { check_fp2_sqrt<Bls12381Fq2>(); }
