// SPDX-License-Identifier: MIT OR Apache-2.0
// The shared field templates compiled for the GPU agree with the CPU on random inputs.
// Skips where cuzk has no CUDA backend or no GPU is visible.
#include <cstring>

#include "backend/cuda/probe.hpp"
#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "gpu_testing.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;

namespace {

template <class F>
void check_field_on_gpu(int ordinal, const char* name) {
  RandomSource rs(test::seed() ^ 0x7777);
  const size_t n = 100003;  // not a multiple of the block size
  std::vector<F> a(n), b(n), out(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = random_field<F>(rs);
    b[i] = random_field<F>(rs);
  }
  a[0] = F::zero();
  b[1] = F::zero();
  a[2] = -F::one();
  b[2] = -F::one();
  // Edge values in every pairing: 0, 1, 2, p-1, p-2, raw 1 (R^-1), raw p-1, words at 2^32-1.
  std::vector<F> edge = {F::zero(), F::one(), F::one() + F::one(), -F::one(), -(F::one() + F::one())};
  F raw{};
  raw.l[0] = 1;
  edge.push_back(raw);
  for (int i = 0; i < F::N; ++i) raw.l[i] = F::K.p.v[i];
  raw.l[0] -= 1;
  edge.push_back(raw);
  for (int i = 0; i < F::N; ++i) raw.l[i] = i + 1 < F::N ? ~0ull : 0;
  edge.push_back(raw);
  size_t at = 3;
  for (const F& x : edge)
    for (const F& y : edge) {
      a[at] = x;
      b[at] = y;
      ++at;
    }
  for (size_t i = at; i < n; i += 7) b[i] = a[i];  // squares
  std::string err = cuda::field_check(ordinal, name, a[0].l, b[0].l, out[0].l, n);
  CHECK_MSG(err.empty(), err);
  for (size_t i = 0; i < n; ++i) CHECK_MSG(out[i] == a[i] * b[i] + a[i] - b[i], name << " element " << i);
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
  }
}

CUZK_TEST(gpu_errors_name_the_device) {
  auto d = gpus();
  uint64_t x[4] = {};
  std::string err = cuda::field_check(int(d.size()) + 7, "bn254.fr", x, x, x, 1);
  CHECK_MSG(err.find("gpu:" + std::to_string(d.size() + 7)) != std::string::npos, err);
}
