// SPDX-License-Identifier: MIT OR Apache-2.0
// The prime-field arithmetic (src/ff/field.hpp) checked against GMP, an independent
// implementation, for all four fields: bn254 Fq/Fr and bls12-381 Fq/Fr.
//
// Most checks work on the raw limbs, i.e. on the Montgomery representatives themselves:
//   raw(a + b) = raw(a) + raw(b) mod p       raw(a * b) = raw(a) raw(b) R^-1 mod p
//   raw(from_std(x)) = x R mod p             to_std(a)  = raw(a) R^-1 mod p
// so GMP sees exactly the numbers the limb code handled, and a carry or reduction slip at any
// limb boundary shows up as a mismatch. Random inputs mix uniform values with structured ones
// (small, near p, limbs of all ones or zeros) because uniform values almost never hit those.
#include <gmpxx.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "io/json.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using cuzk::ff::Bls12381Fq;
using cuzk::ff::Bls12381Fr;
using cuzk::ff::Bn254Fq;
using cuzk::ff::Bn254Fr;

namespace {

constexpr int kRandomCases = 100000;  // per operation and field: add, sub, mul, sqr, neg
constexpr int kSlowCases = 2000;      // per field: inv, pow (and sqrt / legendre)

// The moduli, written independently of src/ff (the well-known published values).
template <class F>
const char* expected_modulus();
template <>
const char* expected_modulus<Bn254Fq>() {
  return "21888242871839275222246405745257275088696311157297823662689037894645226208583";
}
template <>
const char* expected_modulus<Bn254Fr>() {
  return "21888242871839275222246405745257275088548364400416034343698204186575808495617";
}
template <>
const char* expected_modulus<Bls12381Fq>() {
  return "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272"
         "559787";
}
template <>
const char* expected_modulus<Bls12381Fr>() {
  return "52435875175126190479447740508185965837690552500527637822603658699938581184513";
}

// ------------------------------------------------------------------ mpz <-> limbs

mpz_class from_words(const uint64_t* w, int n) {
  mpz_class z;
  mpz_import(z.get_mpz_t(), size_t(n), -1, sizeof(uint64_t), 0, 0, w);
  return z;
}

template <int N>
mpz_class to_mpz(const ff::Limbs<N>& l) {
  return from_words(l.v, N);
}

template <class F>
mpz_class raw_mpz(const F& a) {
  return from_words(a.l, F::N);
}

template <int N>
ff::Limbs<N> to_limbs(const mpz_class& z) {
  if (z < 0 || mpz_sizeinbase(z.get_mpz_t(), 2) > size_t(64 * N))
    throw test::Failure("to_limbs: value does not fit: " + z.get_str(16));
  ff::Limbs<N> l{};
  size_t count = 0;
  mpz_export(l.v, &count, -1, sizeof(uint64_t), 0, 0, z.get_mpz_t());
  return l;
}

template <class F>
F raw_from_mpz(const mpz_class& z) {
  return F::from_raw(to_limbs<F::N>(z).v);
}

mpz_class mod(const mpz_class& a, const mpz_class& m) {
  mpz_class r;
  mpz_mod(r.get_mpz_t(), a.get_mpz_t(), m.get_mpz_t());
  return r;
}

std::string hex(const mpz_class& z) { return "0x" + z.get_str(16); }

// Per-field reference values computed by GMP.
template <class F>
struct Ref {
  mpz_class p, R, r1, r2, rinv, pm1h;
  Ref() {
    p = mpz_class(expected_modulus<F>());
    R = mpz_class(1) << (64 * F::N);
    r1 = mod(R, p);
    r2 = mod(R * R, p);
    mpz_invert(rinv.get_mpz_t(), r1.get_mpz_t(), p.get_mpz_t());
    pm1h = (p - 1) / 2;
  }
  mpz_class mont_mul(const mpz_class& a, const mpz_class& b) const { return mod(a * b * rinv, p); }
};

// A per-test random source, derived from the run's seed and a test-specific tag.
RandomSource rng_for(uint64_t tag) { return RandomSource(test::seed() ^ (tag * 0x9e3779b97f4a7c15ull)); }

uint64_t field_tag(const char* name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char* c = name; *c; ++c) h = (h ^ uint64_t(uint8_t(*c))) * 1099511628211ull;
  return h;
}

// A value in [0, p): mostly uniform, one time in four structured.
template <class F>
mpz_class random_value(RandomSource& rs, const Ref<F>& ref) {
  uint64_t kind = rs.next() % 16;
  if (kind >= 4) {
    F x = random_field<F>(rs);  // uniform raw limbs below p
    return raw_mpz(x);
  }
  switch (kind) {
    case 0:
      return mpz_class((unsigned long)(rs.next() % 1024));  // small
    case 1:
      return ref.p - 1 - mpz_class((unsigned long)(rs.next() % 1024));  // just below p
    case 2: {  // every limb 0, all ones, or random; reduced mod p
      uint64_t w[F::N];
      for (int i = 0; i < F::N; ++i) {
        uint64_t c = rs.next() % 3;
        w[i] = c == 0 ? 0 : c == 1 ? ~0ull : rs.next();
      }
      return mod(from_words(w, F::N), ref.p);
    }
    default: {  // near R mod p, (p-1)/2, or a power of two, mod p
      uint64_t c = rs.next() % 3;
      mpz_class base = c == 0 ? ref.r1 : c == 1 ? ref.pm1h : mpz_class(1) << int(rs.next() % (64 * F::N));
      long d = long(rs.next() % 64) - 32;
      return mod(base + d, ref.p);
    }
  }
}

// ------------------------------------------------------------------ constants

template <class F>
void check_constants() {
  Ref<F> ref;
  constexpr auto K = F::K;
  CHECK_MSG(to_mpz(K.p) == ref.p, F::Params::name << ": parsed modulus " << hex(to_mpz(K.p)));
  CHECK_MSG(mpz_probab_prime_p(ref.p.get_mpz_t(), 30) != 0, F::Params::name << ": p not prime");
  // The design assumption of field.hpp: p < 2^(64N - 1).
  CHECK_MSG(mpz_sizeinbase(ref.p.get_mpz_t(), 2) < size_t(64 * F::N), F::Params::name);
  CHECK_MSG(to_mpz(K.r1) == ref.r1, F::Params::name << ": R mod p " << hex(to_mpz(K.r1)) << " vs " << hex(ref.r1));
  CHECK_MSG(to_mpz(K.r2) == ref.r2, F::Params::name << ": R^2 mod p " << hex(to_mpz(K.r2)) << " vs " << hex(ref.r2));
  mpz_class two64 = mpz_class(1) << 64, pinv;
  CHECK(mpz_invert(pinv.get_mpz_t(), ref.p.get_mpz_t(), two64.get_mpz_t()) != 0);
  mpz_class want_inv = mod(-pinv, two64);
  mpz_class got_inv = from_words(&K.inv, 1);
  CHECK_MSG(got_inv == want_inv, F::Params::name << ": -p^-1 mod 2^64 " << hex(got_inv) << " vs " << hex(want_inv));
  CHECK_MSG(mod(ref.p * got_inv + 1, two64) == 0, F::Params::name);
  CHECK(to_mpz(K.p_minus_2) == ref.p - 2);
  CHECK(to_mpz(K.p_minus_1_div_2) == ref.pm1h);
  CHECK(to_mpz(K.p_plus_1_div_4) == (ref.p + 1) / 4);
  CHECK(K.p_is_3_mod_4 == (mod(ref.p, 4) == 3));
  CHECK(to_mpz(F::one().to_std()) == 1);
  CHECK(raw_mpz(F::one()) == ref.r1);
  CHECK(raw_mpz(F::zero()) == 0);
  for (int i = 0; i < F::N; ++i) CHECK(F::mod(i) == K.p.v[i]);
}

// ------------------------------------------------------------------ one operation, checked

template <class F>
struct Checker {
  const Ref<F>& ref;

  void binary(const mpz_class& a, const mpz_class& b) const {
    F x = raw_from_mpz<F>(a), y = raw_from_mpz<F>(b);
    mpz_class s = raw_mpz(x + y), d = raw_mpz(x - y), m = raw_mpz(x * y);
    CHECK_MSG(s == mod(a + b, ref.p), F::Params::name << " add " << hex(a) << " + " << hex(b) << " = " << hex(s));
    CHECK_MSG(d == mod(a - b, ref.p), F::Params::name << " sub " << hex(a) << " - " << hex(b) << " = " << hex(d));
    CHECK_MSG(m == ref.mont_mul(a, b), F::Params::name << " mul " << hex(a) << " * " << hex(b) << " = " << hex(m)
                                                       << " want " << hex(ref.mont_mul(a, b)));
    // operator* is the x86 assembly where the processor has it; the portable product too.
    mpz_class mp = raw_mpz(F::mul_portable(x, y));
    CHECK_MSG(mp == m, F::Params::name << " portable mul " << hex(a) << " * " << hex(b) << " = " << hex(mp));
    // The compound assignments share the operators but are checked once each anyway.
    F t = x;
    t += y;
    CHECK(raw_mpz(t) == s);
    t = x;
    t -= y;
    CHECK(raw_mpz(t) == d);
    t = x;
    t *= y;
    CHECK(raw_mpz(t) == m);
    CHECK((x == y) == (a == b));
    CHECK((x != y) == (a != b));
  }
  void add(const mpz_class& a, const mpz_class& b) const {
    mpz_class s = raw_mpz(raw_from_mpz<F>(a) + raw_from_mpz<F>(b));
    CHECK_MSG(s == mod(a + b, ref.p), F::Params::name << " add " << hex(a) << " + " << hex(b) << " = " << hex(s));
  }
  void sub(const mpz_class& a, const mpz_class& b) const {
    mpz_class d = raw_mpz(raw_from_mpz<F>(a) - raw_from_mpz<F>(b));
    CHECK_MSG(d == mod(a - b, ref.p), F::Params::name << " sub " << hex(a) << " - " << hex(b) << " = " << hex(d));
  }
  void mul(const mpz_class& a, const mpz_class& b) const {
    mpz_class m = raw_mpz(raw_from_mpz<F>(a) * raw_from_mpz<F>(b));
    mpz_class want = ref.mont_mul(a, b);
    CHECK_MSG(m == want,
              F::Params::name << " mul " << hex(a) << " * " << hex(b) << " = " << hex(m) << " want " << hex(want));
  }
  void sqr(const mpz_class& a) const {
    mpz_class q = raw_mpz(raw_from_mpz<F>(a).sqr());
    mpz_class want = ref.mont_mul(a, a);
    CHECK_MSG(q == want, F::Params::name << " sqr " << hex(a) << " = " << hex(q) << " want " << hex(want));
  }
  void neg(const mpz_class& a) const {
    F x = raw_from_mpz<F>(a);
    mpz_class n = raw_mpz(-x);
    CHECK_MSG(n == mod(-a, ref.p), F::Params::name << " neg " << hex(a) << " = " << hex(n));
    mpz_class d2 = raw_mpz(x.dbl());
    CHECK_MSG(d2 == mod(2 * a, ref.p), F::Params::name << " dbl " << hex(a) << " = " << hex(d2));
  }
  void inv(const mpz_class& a) const {
    // raw(inv(x)) = (a R^-1)^-1 R = a^-1 R^2; inverse of 0 is 0.
    mpz_class got = raw_mpz(raw_from_mpz<F>(a).inv());
    mpz_class want = 0;
    if (a != 0) {
      mpz_class ai;
      mpz_invert(ai.get_mpz_t(), a.get_mpz_t(), ref.p.get_mpz_t());
      want = mod(ai * ref.r2, ref.p);
    }
    CHECK_MSG(got == want, F::Params::name << " inv " << hex(a) << " = " << hex(got) << " want " << hex(want));
  }
  // Standard-form conversions of a value v < p.
  void convert(const mpz_class& v) const {
    auto l = to_limbs<F::N>(v);
    F x = F::from_std(l);
    CHECK_MSG(raw_mpz(x) == mod(v * ref.R, ref.p),
              F::Params::name << " from_std " << hex(v) << " = " << hex(raw_mpz(x)));
    auto back = x.to_std();
    CHECK_MSG(to_mpz(back) == v, F::Params::name << " from_std/to_std " << hex(v) << " -> " << hex(to_mpz(back)));
    // to_std of the raw value v itself: v R^-1 mod p.
    mpz_class t = to_mpz(raw_from_mpz<F>(v).to_std());
    CHECK_MSG(t == mod(v * ref.rinv, ref.p), F::Params::name << " to_std(raw " << hex(v) << ") = " << hex(t));
    CHECK(x.is_reduced());
    CHECK(x.is_zero() == (v == 0));
    CHECK(x.is_one() == (v == 1));
  }
};

// ------------------------------------------------------------------ the tests

template <class F>
void check_random_ops() {
  Ref<F> ref;
  Checker<F> c{ref};
  RandomSource rs = rng_for(field_tag(F::Params::name) + 1);
  long n_add = 0, n_sub = 0, n_mul = 0, n_sqr = 0, n_neg = 0, n_conv = 0;
  for (int i = 0; i < kRandomCases; ++i) {
    mpz_class a = random_value<F>(rs, ref), b = random_value<F>(rs, ref);
    c.add(a, b), ++n_add;
    c.sub(a, b), ++n_sub;
    c.mul(a, b), ++n_mul;
    c.sqr(a), ++n_sqr;
    c.neg(a), ++n_neg;
    if (i % 4 == 0) c.convert(a), ++n_conv;
  }
  std::printf("  %-13s random cases: add %ld, sub %ld, mul %ld, sqr %ld, neg+dbl %ld, from_std/to_std %ld\n",
              F::Params::name, n_add, n_sub, n_mul, n_sqr, n_neg, n_conv);
  CHECK(n_add >= 100000 && n_sub >= 100000 && n_mul >= 100000 && n_sqr >= 100000 && n_neg >= 100000);
}

template <class F>
void check_inv_pow() {
  Ref<F> ref;
  Checker<F> c{ref};
  RandomSource rs = rng_for(field_tag(F::Params::name) + 2);
  long n_inv = 0, n_pow = 0;
  for (int i = 0; i < kSlowCases; ++i) {
    mpz_class a = random_value<F>(rs, ref);
    c.inv(a), ++n_inv;
    F x = raw_from_mpz<F>(a);
    CHECK(a == 0 || (x * x.inv()).is_one());
    // pow: the exponent is a plain integer; raw(x^e) = (a R^-1)^e R.
    mpz_class std_a = mod(a * ref.rinv, ref.p);
    auto want_pow = [&](const mpz_class& e) {
      mpz_class r;
      mpz_powm(r.get_mpz_t(), std_a.get_mpz_t(), e.get_mpz_t(), ref.p.get_mpz_t());
      return mod(r * ref.r1, ref.p);
    };
    // Full-width random exponent (may exceed p), a one-limb exponent, and a double-width one.
    ff::Limbs<F::N> e1;
    for (auto& w : e1.v) w = rs.next();
    if (i % 7 == 0) e1.v[F::N - 1] = 0;  // shorter exponents too
    mpz_class got1 = raw_mpz(x.pow(e1)), w1 = want_pow(to_mpz(e1));
    CHECK_MSG(got1 == w1, F::Params::name << " pow " << hex(a) << " ^ " << hex(to_mpz(e1)) << " = " << hex(got1)
                                          << " want " << hex(w1));
    ++n_pow;
    uint64_t e2 = i < 4 ? uint64_t(i) : rs.next() >> (rs.next() % 64);  // includes 0, 1, 2, 3
    mpz_class got2 = raw_mpz(x.pow_u64(e2)), w2 = want_pow(from_words(&e2, 1));
    CHECK_MSG(got2 == w2,
              F::Params::name << " pow_u64 " << hex(a) << " ^ " << e2 << " = " << hex(got2) << " want " << hex(w2));
    ++n_pow;
    if (i % 4 == 0) {
      ff::Limbs<2 * F::N> e3;
      for (auto& w : e3.v) w = rs.next();
      mpz_class got3 = raw_mpz(x.pow(e3)), w3 = want_pow(to_mpz(e3));
      CHECK_MSG(got3 == w3,
                F::Params::name << " pow(2N limbs) " << hex(a) << " = " << hex(got3) << " want " << hex(w3));
      ++n_pow;
    }
  }
  // p-1 and p-2 as exponents: Fermat.
  F g = F::from_u64(7);
  CHECK(g.pow(F::K.p_minus_2) == g.inv());
  ff::Limbs<F::N> pm1 = F::K.p;
  pm1.v[0] -= 1;  // p is odd
  CHECK(g.pow(pm1).is_one());
  std::printf("  %-13s random cases: inv %ld, pow %ld\n", F::Params::name, n_inv, n_pow);
  CHECK(n_inv >= 2000 && n_pow >= 2000);
}

template <class F>
std::vector<mpz_class> edge_values(const Ref<F>& ref) {
  const mpz_class& p = ref.p;
  std::vector<mpz_class> v = {0,
                              1,
                              2,
                              3,
                              p - 1,
                              p - 2,
                              p - 3,
                              ref.pm1h,
                              ref.pm1h + 1,
                              ref.r1,
                              ref.r2,
                              ref.rinv,
                              mod(p - ref.r1, p),
                              mod(ref.r1 + 1, p),
                              mod(ref.r1 - 1, p)};
  mpz_class all_ones = ref.R - 1;
  v.push_back(mod(all_ones, p));
  for (int k = 1; k < F::N; ++k) {
    v.push_back(mod((mpz_class(1) << (64 * k)) - 1, p));               // the low k limbs all ones
    v.push_back(mod(all_ones - ((mpz_class(1) << (64 * k)) - 1), p));  // the high N-k limbs all ones
    v.push_back(mod(mpz_class(1) << (64 * k), p));
  }
  for (int i = 0; i < F::N; ++i) v.push_back(mod(((mpz_class(1) << 64) - 1) << (64 * i), p));  // one limb all ones
  v.push_back(mod(mpz_class(1) << (64 * F::N - 1), p));
  // p's top limb with the rest zero, and p with one lower limb cleared.
  mpz_class top = (p >> (64 * (F::N - 1))) << (64 * (F::N - 1));
  v.push_back(top);
  v.push_back(top - 1);
  for (const auto& x : v) CHECK(x >= 0 && x < p);
  return v;
}

template <class F>
void check_edges() {
  Ref<F> ref;
  Checker<F> c{ref};
  auto v = edge_values<F>(ref);
  long pairs = 0, singles = 0;
  for (const auto& a : v) {
    c.sqr(a);
    c.neg(a);
    c.inv(a);
    c.convert(a);
    ++singles;
    for (const auto& b : v) {
      c.binary(a, b);
      ++pairs;
      // The same pair taken as standard-form values through from_std.
      F x = F::from_std(to_limbs<F::N>(a)), y = F::from_std(to_limbs<F::N>(b));
      CHECK(to_mpz((x * y).to_std()) == mod(a * b, ref.p));
      CHECK(to_mpz((x + y).to_std()) == mod(a + b, ref.p));
      CHECK(to_mpz((x - y).to_std()) == mod(a - b, ref.p));
    }
  }
  // Fixed facts about the edge values.
  F pm1 = F::from_std(to_limbs<F::N>(ref.p - 1));
  CHECK(pm1 == -F::one());
  CHECK((pm1 + F::one()).is_zero());
  CHECK((pm1 * pm1).is_one());
  CHECK((F::zero() - F::one()) == pm1);
  CHECK(-F::zero() == F::zero());
  CHECK(F::zero().inv().is_zero());
  std::printf("  %-13s edge values: %zu, pairs %ld (add, sub, mul raw and standard form), singles %ld\n",
              F::Params::name, v.size(), pairs, singles);
}

template <class F>
void check_is_reduced() {
  Ref<F> ref;
  auto reduced = [](const mpz_class& z) { return raw_from_mpz<F>(z).is_reduced(); };
  CHECK_MSG(!reduced(ref.p), F::Params::name << ": p taken as reduced");
  CHECK_MSG(!reduced(ref.p + 1), F::Params::name << ": p+1 taken as reduced");
  CHECK_MSG(!reduced(ref.R - 1), F::Params::name << ": 2^(64N)-1 taken as reduced");
  CHECK(!reduced(2 * ref.p));
  CHECK(!reduced(ref.p + (mpz_class(1) << 64)));  // a lower limb above p's, top limb equal
  for (int i = 0; i + 1 < F::N; ++i) {
    mpz_class limb_mask = ((mpz_class(1) << 64) - 1) << (64 * i);
    mpz_class x = ref.p | limb_mask;  // p with one lower limb raised to all ones
    CHECK(!reduced(x));
    mpz_class y = ref.p - (mpz_class(1) << (64 * i));  // a lower limb one below p's
    CHECK(reduced(y));
  }
  CHECK(reduced(ref.p - 1));
  CHECK(reduced(0));
  CHECK(reduced(1));
  mpz_class top = (ref.p >> (64 * (F::N - 1))) << (64 * (F::N - 1));
  CHECK(reduced(top));
  CHECK(!reduced(top + (mpz_class(1) << (64 * (F::N - 1)))));
  RandomSource rs = rng_for(field_tag(F::Params::name) + 3);
  for (int i = 0; i < 20000; ++i) {
    uint64_t w[F::N];
    for (auto& x : w) x = rs.next();
    if (i % 2) w[F::N - 1] = F::K.p.v[F::N - 1] - 1 + rs.next() % 3;  // top limb near p's
    mpz_class z = from_words(w, F::N);
    CHECK_MSG(F::from_raw(w).is_reduced() == (z < ref.p), F::Params::name << " is_reduced " << hex(z));
  }
}

template <class F>
void check_sqrt_legendre() {
  Ref<F> ref;
  RandomSource rs = rng_for(field_tag(F::Params::name) + 4);
  const bool p3 = F::K.p_is_3_mod_4;
  long n_leg = 0, n_sqrt = 0, n_nonsq = 0, sqrt_found = 0;
  auto legendre_ref = [&](const mpz_class& std_v) { return mpz_legendre(std_v.get_mpz_t(), ref.p.get_mpz_t()); };
  // legendre on random values and the edges (as standard values).
  std::vector<mpz_class> vals = edge_values<F>(ref);
  for (int i = 0; i < kSlowCases; ++i) vals.push_back(random_value<F>(rs, ref));
  for (const auto& v : vals) {
    F x = F::from_std(to_limbs<F::N>(v));
    int got = x.legendre(), want = legendre_ref(v);
    CHECK_MSG(got == want, F::Params::name << " legendre(" << hex(v) << ") = " << got << " want " << want);
    ++n_leg;
    F r;
    bool ok = x.sqrt(r);
    if (want == -1) {
      CHECK_MSG(!ok, F::Params::name << " sqrt of the non-square " << hex(v) << " reported a root");
      ++n_nonsq;
    } else if (p3) {
      CHECK_MSG(ok, F::Params::name << " sqrt of the square " << hex(v) << " found none");
    }
    if (ok) {
      mpz_class rv = to_mpz(r.to_std());
      CHECK_MSG(mod(rv * rv, ref.p) == v, F::Params::name << " sqrt(" << hex(v) << ") = " << hex(rv));
      CHECK(r.is_reduced());
    }
  }
  // sqrt of random squares: the root is +-x (GMP decides which).
  for (int i = 0; i < kSlowCases; ++i) {
    mpz_class a = random_value<F>(rs, ref);
    F x = F::from_std(to_limbs<F::N>(a));
    mpz_class sq = mod(a * a, ref.p);
    F s = x.sqr();
    CHECK(to_mpz(s.to_std()) == sq);
    CHECK(s.legendre() == (a == 0 ? 0 : 1));
    F r;
    bool ok = s.sqrt(r);
    ++n_sqrt;
    if (p3) CHECK_MSG(ok, F::Params::name << " sqrt of the square of " << hex(a) << " found none");
    if (ok) {
      ++sqrt_found;
      mpz_class rv = to_mpz(r.to_std());
      CHECK_MSG(rv == a || rv == mod(-a, ref.p), F::Params::name << " sqrt(" << hex(a) << "^2) = " << hex(rv));
      CHECK(mod(rv * rv, ref.p) == sq);
    }
  }
  std::printf("  %-13s legendre %ld, sqrt of squares %ld (root found %ld%s), non-squares %ld\n", F::Params::name, n_leg,
              n_sqrt, sqrt_found, p3 ? "" : "; p = 1 mod 4: sqrt is documented for p = 3 mod 4 only", n_nonsq);
  CHECK(n_nonsq > 100);
}

}  // namespace

CUZK_TEST(gmp_constants_bn254_fq) { check_constants<Bn254Fq>(); }
CUZK_TEST(gmp_constants_bn254_fr) { check_constants<Bn254Fr>(); }
CUZK_TEST(gmp_constants_bls12_381_fq) { check_constants<Bls12381Fq>(); }
CUZK_TEST(gmp_constants_bls12_381_fr) { check_constants<Bls12381Fr>(); }

CUZK_TEST(gmp_random_ops_bn254_fq) { check_random_ops<Bn254Fq>(); }
CUZK_TEST(gmp_random_ops_bn254_fr) { check_random_ops<Bn254Fr>(); }
CUZK_TEST(gmp_random_ops_bls12_381_fq) { check_random_ops<Bls12381Fq>(); }
CUZK_TEST(gmp_random_ops_bls12_381_fr) { check_random_ops<Bls12381Fr>(); }

CUZK_TEST(gmp_inv_pow_bn254_fq) { check_inv_pow<Bn254Fq>(); }
CUZK_TEST(gmp_inv_pow_bn254_fr) { check_inv_pow<Bn254Fr>(); }
CUZK_TEST(gmp_inv_pow_bls12_381_fq) { check_inv_pow<Bls12381Fq>(); }
CUZK_TEST(gmp_inv_pow_bls12_381_fr) { check_inv_pow<Bls12381Fr>(); }

CUZK_TEST(gmp_edges_bn254_fq) { check_edges<Bn254Fq>(); }
CUZK_TEST(gmp_edges_bn254_fr) { check_edges<Bn254Fr>(); }
CUZK_TEST(gmp_edges_bls12_381_fq) { check_edges<Bls12381Fq>(); }
CUZK_TEST(gmp_edges_bls12_381_fr) { check_edges<Bls12381Fr>(); }

CUZK_TEST(gmp_is_reduced_bn254_fq) { check_is_reduced<Bn254Fq>(); }
CUZK_TEST(gmp_is_reduced_bn254_fr) { check_is_reduced<Bn254Fr>(); }
CUZK_TEST(gmp_is_reduced_bls12_381_fq) { check_is_reduced<Bls12381Fq>(); }
CUZK_TEST(gmp_is_reduced_bls12_381_fr) { check_is_reduced<Bls12381Fr>(); }

CUZK_TEST(gmp_sqrt_legendre_bn254_fq) { check_sqrt_legendre<Bn254Fq>(); }
CUZK_TEST(gmp_sqrt_legendre_bn254_fr) { check_sqrt_legendre<Bn254Fr>(); }
CUZK_TEST(gmp_sqrt_legendre_bls12_381_fq) { check_sqrt_legendre<Bls12381Fq>(); }
CUZK_TEST(gmp_sqrt_legendre_bls12_381_fr) { check_sqrt_legendre<Bls12381Fr>(); }

// io::to_decimal against mpz_get_str: random 256- and 384-bit values, 0, and values whose
// decimal form has zero runs across the 19-digit chunks to_decimal works in.
CUZK_TEST(gmp_to_decimal) {
  RandomSource rs = rng_for(0xdec);
  long n = 0;
  auto check = [&](const uint64_t* w, int limbs) {
    std::string got = io::to_decimal(w, limbs);
    std::string want = from_words(w, limbs).get_str(10);
    CHECK_MSG(got == want, "to_decimal(" << hex(from_words(w, limbs)) << ") = " << got << " want " << want);
    ++n;
  };
  uint64_t zero4[4] = {0, 0, 0, 0}, zero6[6] = {0, 0, 0, 0, 0, 0};
  check(zero4, 4);
  check(zero6, 6);
  CHECK(io::to_decimal(zero4, 4) == "0");
  for (int i = 0; i < 20000; ++i) {
    uint64_t w[6];
    for (auto& x : w) x = rs.next();
    int limbs = i % 2 ? 6 : 4;
    if (i % 5 == 0) w[limbs - 1] >>= rs.next() % 64;  // shorter values
    if (i % 11 == 0)
      for (int k = 1; k < limbs; ++k) w[k] = 0;  // one-limb values
    check(w, limbs);
  }
  // Powers of ten, and 10^k +- 1, 10^k * random digits, up to the 384-bit range.
  for (int k = 0; k <= 115; ++k) {
    mpz_class t;
    mpz_ui_pow_ui(t.get_mpz_t(), 10, (unsigned long)k);
    for (const mpz_class& z : {mpz_class(t), mpz_class(t - 1), mpz_class(t + 1), mpz_class(t * 7 + 3)}) {
      if (z < 0 || mpz_sizeinbase(z.get_mpz_t(), 2) > 384) continue;
      auto l6 = to_limbs<6>(z);
      check(l6.v, 6);
      if (mpz_sizeinbase(z.get_mpz_t(), 2) <= 256) check(l6.v, 4);
    }
  }
  uint64_t ones[6] = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull};
  check(ones, 4);
  check(ones, 6);
  check(ones, 1);
  std::printf("  to_decimal cases: %ld\n", n);
}
