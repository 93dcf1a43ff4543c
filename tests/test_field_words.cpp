// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU's field arithmetic on 32-bit words (ff/field.hpp's device section) run on the host over
// an emulation of its PTX instructions (the carry flag a variable): the Montgomery product and
// the modular sum and difference give the host's values, bit for bit, on random and edge inputs
// of both curves' base and scalar fields; so do the double-width product, the reduction of any
// value below p R and a*b - c*d with one reduction. A GPU then runs the same lines (test_cuda,
// test_gpu_msm).
#define CUZK_PTX_EMULATE 1
#include <cstdio>
#include <vector>

#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::ff;

namespace {

// Edge values: 0, 1, 2, p - 1, p - 2, R mod p, words of all ones below p, and random ones.
template <class F>
std::vector<F> samples(RandomSource& rs, int random_count) {
  std::vector<F> out;
  auto raw = [](uint64_t x) {
    uint64_t l[F::N] = {};
    l[0] = x;
    return F::from_raw(l);
  };
  out.push_back(raw(0));
  out.push_back(raw(1));
  out.push_back(raw(2));
  Limbs<F::N> pm = F::K.p;
  pm.v[0] -= 1;
  out.push_back(F::from_raw(pm.v));
  pm.v[0] -= 1;
  out.push_back(F::from_raw(pm.v));
  out.push_back(F::one());
  Limbs<F::N> ones{};
  for (int i = 0; i < F::N; ++i) ones.v[i] = ~uint64_t(0);
  ones.v[F::N - 1] = F::K.p.v[F::N - 1] - 1;
  out.push_back(F::from_raw(ones.v));
  for (int i = 0; i < random_count; ++i) out.push_back(random_field<F>(rs));
  return out;
}

template <class F>
F from_words(const DevWords<F::N>& w) {
  F r;
  w.store(r.l);
  return r;
}

template <class F>
void words_match_host(const char* name, int random_count) {
  RandomSource rs(test::seed() ^ F::K.p.v[0]);
  constexpr MontConsts<F::N> k = F::K;
  const auto xs = samples<F>(rs, random_count);
  size_t checked = 0;
  for (size_t i = 0; i < xs.size(); ++i)
    for (size_t j = 0; j < xs.size(); j += (i < 8 || j < 8) ? 1 : 17) {
      const F& a = xs[i];
      const F& b = xs[j];
      DevWords<F::N> x(a.l), y(b.l), r(a.l);
      mont_mul_dev<F::N>(r.w, x.w, y.w, k);
      CHECK_MSG(from_words<F>(r) == a * b, name << " product " << i << ", " << j);
      add_mod_dev<F::N>(r.w, x.w, y.w, k);
      CHECK_MSG(from_words<F>(r) == a + b, name << " sum " << i << ", " << j);
      sub_mod_dev<F::N>(r.w, x.w, y.w, k);
      CHECK_MSG(from_words<F>(r) == a - b, name << " difference " << i << ", " << j);
      ++checked;
    }
  CHECK(checked > 1000);
}

// The schoolbook product of two N-limb values, 2N limbs.
template <int N>
void product_limbs(uint64_t* out, const uint64_t* a, const uint64_t* b) {
  using u128 = unsigned __int128;
  for (int i = 0; i < 2 * N; ++i) out[i] = 0;
  for (int i = 0; i < N; ++i) {
    uint64_t carry = 0;
    for (int j = 0; j < N; ++j) {
      u128 s = (u128)a[i] * b[j] + out[i + j] + carry;
      out[i + j] = uint64_t(s);
      carry = uint64_t(s >> 64);
    }
    out[i + N] = carry;
  }
}

void to_words(uint32_t* w, const uint64_t* l, int limbs) {
  for (int i = 0; i < limbs; ++i) {
    w[2 * i] = uint32_t(l[i]);
    w[2 * i + 1] = uint32_t(l[i] >> 32);
  }
}

// t / R mod p for t = t_hi R + t_lo < p R, from host operations: t_lo / R (the Montgomery
// product by the raw 1, which takes any t_lo < R) plus t_hi (< p).
template <class F>
F redc_reference(const uint64_t* t) {
  uint64_t one[F::N] = {1};
  F lo = F::mul_portable(F::from_raw(t), F::from_raw(one));
  return lo + F::from_raw(t + F::N);
}

template <class F>
F redc_words(const uint64_t* t) {
  uint32_t w[4 * F::N];
  to_words(w, t, 2 * F::N);
  DevWords<F::N> r(t);
  redc_dev<F::N>(r.w, w, F::K);
  return from_words<F>(r);
}

template <class F>
void lazy_matches_host(const char* name, int random_count) {
  RandomSource rs(test::seed() ^ F::K.p.v[1]);
  constexpr int N = F::N;
  constexpr MontConsts<N> k = F::K;
  const auto xs = samples<F>(rs, random_count);
  size_t checked = 0;
  for (size_t i = 0; i < xs.size(); ++i)
    for (size_t j = 0; j < xs.size(); j += (i < 8 || j < 8) ? 1 : 13) {
      const F& a = xs[i];
      const F& b = xs[j];
      const F& c = xs[(i * 7 + j) % xs.size()];
      const F& d = xs[(j * 5 + 3) % xs.size()];
      DevWords<N> x(a.l), y(b.l), z(c.l), u(d.l), r(a.l);
      uint32_t t[4 * N];
      uint64_t want[2 * N];
      mul_wide_dev<N>(t, x.w, y.w);
      product_limbs<N>(want, a.l, b.l);
      bool same = true;
      for (int w = 0; w < 2 * N; ++w)
        same = same && t[2 * w] == uint32_t(want[w]) && t[2 * w + 1] == uint32_t(want[w] >> 32);
      CHECK_MSG(same, name << " double-width product " << i << ", " << j);
      redc_dev<N>(r.w, t, k);
      CHECK_MSG(from_words<F>(r) == a * b, name << " reduced product " << i << ", " << j);
      mul_sub_dev<N>(r.w, x.w, y.w, z.w, u.w, k);
      CHECK_MSG(from_words<F>(r) == a * b - c * d, name << " a*b - c*d " << i << ", " << j);
      mul_sub_dev<N>(r.w, x.w, y.w, x.w, y.w, k);
      CHECK_MSG(from_words<F>(r).is_zero(), name << " a*b - a*b " << i << ", " << j);
      DevWords<N> q(a.l);
      mul_sub_dev<N>(q.w, q.w, y.w, z.w, u.w, k);
      CHECK_MSG(from_words<F>(q) == a * b - c * d, name << " a*b - c*d in place " << i);
      ++checked;
    }
  CHECK(checked > 400);

  // The reduction over its whole domain's edges: 0, 1, p R - 1, p^2 - 1, (p - 1) R, and
  // random values below p R.
  uint64_t t[2 * N] = {};
  CHECK_MSG(redc_words<F>(t) == redc_reference<F>(t), name << " redc(0)");
  t[0] = 1;
  CHECK_MSG(redc_words<F>(t) == redc_reference<F>(t), name << " redc(1)");
  for (int w = 0; w < N; ++w) t[w] = ~uint64_t(0);  // p R - 1 = (p - 1) R + (R - 1)
  Limbs<N> pm = k.p;
  pm.v[0] -= 1;
  for (int w = 0; w < N; ++w) t[N + w] = pm.v[w];
  CHECK_MSG(redc_words<F>(t) == redc_reference<F>(t), name << " redc(p R - 1)");
  for (int w = 0; w < N; ++w) t[w] = 0;
  CHECK_MSG(redc_words<F>(t) == redc_reference<F>(t), name << " redc((p - 1) R)");
  product_limbs<N>(t, k.p.v, k.p.v);
  for (int w = 0; w < 2 * N; ++w)  // p^2 - 1
    if (t[w]-- != 0) break;
  CHECK_MSG(redc_words<F>(t) == redc_reference<F>(t), name << " redc(p^2 - 1)");
  // t_lo = k p (the only low halves whose reduction reaches p itself), with t_hi = 0 and p - 1
  for (uint64_t kp = 1; kp < 64; kp = kp * 3 + 1) {
    for (int w = 0; w < 2 * N; ++w) t[w] = 0;
    unsigned __int128 carry = 0;
    for (int w = 0; w < N; ++w) {
      carry += (unsigned __int128)k.p.v[w] * kp;
      t[w] = uint64_t(carry);
      carry >>= 64;
    }
    if (carry != 0) continue;  // k p >= R
    CHECK_MSG(redc_words<F>(t) == redc_reference<F>(t), name << " redc(" << kp << " p)");
    for (int w = 0; w < N; ++w) t[N + w] = pm.v[w];
    CHECK_MSG(redc_words<F>(t) == redc_reference<F>(t), name << " redc((p - 1) R + " << kp << " p)");
  }
  for (int rep = 0; rep < 200; ++rep) {
    for (int w = 0; w < N; ++w) t[w] = rs.next();
    const F hi = random_field<F>(rs);
    for (int w = 0; w < N; ++w) t[N + w] = hi.l[w];
    CHECK_MSG(redc_words<F>(t) == redc_reference<F>(t), name << " redc of a random value below p R, " << rep);
  }
}

}  // namespace

CUZK_TEST(field_words_match_host) {
  words_match_host<Bn254Fq>("BN254 Fq", 120);
  words_match_host<Bn254Fr>("BN254 Fr", 120);
  words_match_host<Bls12381Fq>("BLS12-381 Fq", 120);
  words_match_host<Bls12381Fr>("BLS12-381 Fr", 120);
}

CUZK_TEST(lazy_reduction_matches_host) {
  lazy_matches_host<Bn254Fq>("BN254 Fq", 60);
  lazy_matches_host<Bls12381Fq>("BLS12-381 Fq", 60);
  lazy_matches_host<Bn254Fr>("BN254 Fr", 30);
  lazy_matches_host<Bls12381Fr>("BLS12-381 Fr", 30);
}
