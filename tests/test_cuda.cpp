// SPDX-License-Identifier: MIT OR Apache-2.0
// The shared field templates compiled for the GPU agree with the CPU on random and edge inputs:
// base and scalar fields (whose a*b - c*d takes the double-width path on the GPU) and Fp2, whole
// on a thread and held by two lanes (the G2 accumulation's).
// Skips where cuzk has no CUDA backend or no GPU is visible.
#include <cstring>

#include "backend/cuda/probe.hpp"
#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "ff/fp2.hpp"
#include "gpu_testing.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;

namespace {

// Edge values: 0, 1, 2, p-1, p-2, raw 1 (R^-1), raw p-1, words at 2^32-1.
template <class F>
std::vector<F> edges() {
  std::vector<F> edge = {F::zero(), F::one(), F::one() + F::one(), -F::one(), -(F::one() + F::one())};
  F raw{};
  raw.l[0] = 1;
  edge.push_back(raw);
  for (int i = 0; i < F::N; ++i) raw.l[i] = F::K.p.v[i];
  raw.l[0] -= 1;
  edge.push_back(raw);
  for (int i = 0; i < F::N; ++i) raw.l[i] = i + 1 < F::N ? ~0ull : 0;
  edge.push_back(raw);
  return edge;
}

// E is a field (Fp) or its extension (Fp2 over B); `edge` holds E's edge values.
// "-pair" fields (Fp2 held by two lanes) add one where a is zero.
template <class E>
void check_on_gpu(int ordinal, const char* name, const std::vector<E>& edge, E (*random)(RandomSource&)) {
  const bool pair = std::strstr(name, "-pair") != nullptr;
  RandomSource rs(test::seed() ^ 0x7777);
  const size_t n = 100003;  // not a multiple of the block size
  std::vector<E> a(n), b(n), out(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = random(rs);
    b[i] = random(rs);
  }
  size_t at = 0;
  for (const E& x : edge)
    for (const E& y : edge) {  // every pairing
      a[at] = x;
      b[at] = y;
      ++at;
    }
  for (size_t i = at; i < n; i += 7) b[i] = a[i];  // squares
  static_assert(sizeof(E) % sizeof(uint64_t) == 0);
  std::string err =
      cuda::field_check(ordinal, name, reinterpret_cast<const uint64_t*>(a.data()),
                        reinterpret_cast<const uint64_t*>(b.data()), reinterpret_cast<uint64_t*>(out.data()), n);
  CHECK_MSG(err.empty(), err);
  for (size_t i = 0; i < n; ++i) {
    E want = a[i] * b[i] + a[i] - b[i] - (a[i] * b[i] - (a[i] + b[i]) * (a[i] - b[i]));
    if (pair && a[i].is_zero()) want = want + E::one();
    CHECK_MSG(out[i] == want, name << " element " << i);
  }
}

template <class F>
void check_field_on_gpu(int ordinal, const char* name) {
  check_on_gpu<F>(ordinal, name, edges<F>(), [](RandomSource& rs) { return random_field<F>(rs); });
}

// Fp2: every pairing of (edge, edge) coordinates is too many; each edge in c0 with each in c1.
template <class F>
void check_fp2_on_gpu(int ordinal, const char* name) {
  using E = ff::Fp2<F>;
  std::vector<E> edge;
  for (const F& x : edges<F>())
    for (const F& y : edges<F>()) edge.push_back({x, y});
  check_on_gpu<E>(ordinal, name, edge, [](RandomSource& rs) { return E{random_field<F>(rs), random_field<F>(rs)}; });
}

std::vector<cuda::DeviceInfo> gpus() { return test::gpus_or_skip(); }

}  // namespace

CUZK_TEST(gpu_field_arithmetic_matches_cpu_on_every_device) {
  for (auto& d : gpus()) {
    std::printf("  gpu:%d %s\n", d.ordinal, d.name.c_str());
    check_field_on_gpu<ff::Bn254Fq>(d.ordinal, "bn254.fq");
    check_field_on_gpu<ff::Bn254Fr>(d.ordinal, "bn254.fr");
    check_field_on_gpu<ff::Bls12381Fq>(d.ordinal, "bls12-381.fq");
    check_field_on_gpu<ff::Bls12381Fr>(d.ordinal, "bls12-381.fr");
    check_fp2_on_gpu<ff::Bn254Fq>(d.ordinal, "bn254.fq2");
    check_fp2_on_gpu<ff::Bls12381Fq>(d.ordinal, "bls12-381.fq2");
    check_fp2_on_gpu<ff::Bn254Fq>(d.ordinal, "bn254.fq2-pair");
    check_fp2_on_gpu<ff::Bls12381Fq>(d.ordinal, "bls12-381.fq2-pair");
  }
}

CUZK_TEST(gpu_errors_name_the_device) {
  auto d = gpus();
  uint64_t x[4] = {};
  std::string err = cuda::field_check(int(d.size()) + 7, "bn254.fr", x, x, x, 1);
  CHECK_MSG(err.find("gpu:" + std::to_string(d.size() + 7)) != std::string::npos, err);
}
