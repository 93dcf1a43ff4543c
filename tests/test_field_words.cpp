// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU's field arithmetic on 32-bit words (ff/field.hpp's device section) run on the host over
// an emulation of its PTX instructions (the carry flag a variable): the Montgomery product and
// the modular sum and difference give the host's values, bit for bit, on random and edge inputs
// of both curves' base and scalar fields. A GPU then runs the same lines (test_cuda, test_gpu_msm).
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

}  // namespace

CUZK_TEST(field_words_match_host) {
  words_match_host<Bn254Fq>("BN254 Fq", 120);
  words_match_host<Bn254Fr>("BN254 Fr", 120);
  words_match_host<Bls12381Fq>("BLS12-381 Fq", 120);
  words_match_host<Bls12381Fr>("BLS12-381 Fr", 120);
}
