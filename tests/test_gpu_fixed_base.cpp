// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU fixed-base multiplication (backend/cuda/fixed_base.hpp) against the CPU's
// double-and-add (ec::Curve<...>::mul, then to_affine), on every visible GPU: G1 and G2 of both
// curves, uniform scalars and edge scalars (0, 1, 2, r - 1, r, 2^256 - 1, digit patterns at the
// window limits), n = 1, 7, 1000, 4097, one chunk and many (a workspace just big enough for a
// small chunk), the infinity base. Also: the workspace query, the too-small-workspace error, a
// bad device named in the error, the caller's device left current.
// Skips where cuzk has no CUDA backend or no GPU is visible.
//
// Timing (not run by default): CUZK_FIXED_BASE_BENCH=1 build/tests/test_gpu_fixed_base
// bench_gpu_fixed_base (CUZK_FIXED_BASE_BENCH=22 stops at 2^22); samples of each result checked.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/cuda/fixed_base.hpp"
#include "backend/cuda/probe.hpp"
#include "ec/curves.hpp"
#include "gpu_testing.hpp"
#include "testing.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
using gpu::Group;

namespace {

using Scalar = ff::Limbs<4>;  // standard form, little-endian

std::vector<cuda::DeviceInfo> gpus() { return test::gpus_or_skip(); }

template <class E, bool G2>
struct Pick {
  using Cfg = std::conditional_t<G2, typename E::G2, typename E::G1>;
  using F = typename Cfg::F;
  using Aff = ec::Affine<F>;
  using Jac = ec::Jacobian<F>;
  using Fr = typename E::Fr;
  static constexpr Group group = G2 ? Group::G2 : Group::G1;
  static Aff generator() {
    if constexpr (G2)
      return std::conditional_t<E::id == CurveId::bn254, ec::Bn254G2Cfg, ec::Bls12381G2Cfg>::generator();
    else
      return std::conditional_t<E::id == CurveId::bn254, ec::Bn254G1Cfg, ec::Bls12381G1Cfg>::generator();
  }
  static const char* name() {
    if (E::id == CurveId::bn254) return G2 ? "bn254 G2" : "bn254 G1";
    return G2 ? "bls12-381 G2" : "bls12-381 G1";
  }
};

// A uniform scalar < r, standard form (a random field element's limbs taken as the value).
template <class Fr>
Scalar random_scalar(RandomSource& rs) {
  Fr x = random_field<Fr>(rs);
  Scalar k;
  for (int i = 0; i < 4; ++i) k.v[i] = x.l[i];
  return k;
}

// The value whose 12-bit windows all hold `pattern` (bits above 255 dropped).
Scalar window_pattern(uint64_t pattern) {
  Scalar k{};
  for (unsigned pos = 0; pos < 256; pos += 12)
    for (unsigned b = 0; b < 12 && pos + b < 256; ++b)
      if ((pattern >> b) & 1) k.v[(pos + b) / 64] |= uint64_t(1) << ((pos + b) % 64);
  return k;
}

// Edge scalars: 0, 1, 2, r - 1, then values beyond the contract (< r) that are still
// multiplied as integers: r, 2^256 - 1, and windows at the digit limits (+-2^11, 2^12 - 1).
template <class Fr>
std::vector<Scalar> edge_scalars() {
  Scalar r = Fr::K.p, rm1 = r;
  rm1.v[0] -= 1;  // r is odd
  return {Scalar{{0, 0, 0, 0}},
          Scalar{{1, 0, 0, 0}},
          Scalar{{2, 0, 0, 0}},
          rm1,
          r,
          Scalar{{~0ull, ~0ull, ~0ull, ~0ull}},
          window_pattern(0x800),
          window_pattern(0x7ff),
          window_pattern(0xfff),
          window_pattern(0x801),
          Scalar{{0, 0, 0, uint64_t(1) << 63}},
          Scalar{{0x800, 0, 0, 0}}};
}

// index 0 random (so that n = 1 is a uniform scalar), then the edges, then uniform scalars.
template <class Fr>
std::vector<Scalar> test_scalars(size_t n, RandomSource& rs) {
  std::vector<Scalar> k;
  k.push_back(random_scalar<Fr>(rs));
  for (auto& e : edge_scalars<Fr>()) k.push_back(e);
  while (k.size() < n) k.push_back(random_scalar<Fr>(rs));
  k.resize(n);
  return k;
}

template <class E, bool G2>
std::vector<typename Pick<E, G2>::Aff> cpu_mul(const typename Pick<E, G2>::Aff& base, const std::vector<Scalar>& k,
                                               ThreadPool& pool) {
  using P = Pick<E, G2>;
  std::vector<typename P::Aff> out(k.size());
  const typename P::Jac b = P::Jac::from_affine(base);
  pool.parallel_for(
      k.size(),
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) out[i] = P::Cfg::mul(b, k[i].v).to_affine();
      },
      8);
  return out;
}

// Runs the GPU with a workspace sized for `chunk` scalars per launch; the output starts as
// garbage so that every point must be written.
template <class E, bool G2>
std::vector<typename Pick<E, G2>::Aff> gpu_mul(gpu::DeviceId dev, const typename Pick<E, G2>::Aff& base,
                                               const Scalar* k, size_t n, size_t chunk) {
  using P = Pick<E, G2>;
  std::vector<typename P::Aff> out(n);
  std::memset(static_cast<void*>(out.data()), 0xa5, n * sizeof(typename P::Aff));
  gpu::DeviceBuffer w(dev, gpu::fixed_base_workspace_bytes(E::id, P::group, chunk));
  gpu::fixed_base_mul(dev, E::id, P::group, &base, k, n, out.data(), w.memory());
  return out;
}

template <class E, bool G2>
void check_range(const std::vector<typename Pick<E, G2>::Aff>& got, const std::vector<typename Pick<E, G2>::Aff>& want,
                 const std::string& what) {
  using P = Pick<E, G2>;
  for (size_t i = 0; i < got.size(); ++i)
    CHECK_MSG(got[i] == want[i], P::name() << " " << what << ": point " << i << " differs from the CPU");
}

template <class E, bool G2>
void check_against_cpu() {
  using P = Pick<E, G2>;
  using Fr = typename P::Fr;
  auto devs = gpus();
  ThreadPool pool(0);
  RandomSource rs(test::seed() ^ (G2 ? 0x7e7e : 0x3c3c) ^ uint64_t(E::id));
  const size_t max_n = 4097;
  const typename P::Jac g = P::Jac::from_affine(P::generator());
  const typename P::Aff base = P::Cfg::mul(g, random_field<Fr>(rs)).to_affine();
  const auto k = test_scalars<Fr>(max_n, rs);
  const auto want = cpu_mul<E, G2>(base, k, pool);
  CHECK(want[1].is_inf());       // 0
  CHECK(want[2] == base);        // 1
  CHECK(want[4] == base.neg());  // r - 1
  CHECK(want[5].is_inf());       // r
  for (auto& d : devs) {
    gpu::DeviceId dev{d.ordinal};
    const std::string gpu = "gpu:" + std::to_string(d.ordinal);
    for (size_t n : {size_t(1), size_t(7), size_t(1000), size_t(4097)}) {
      auto got = gpu_mul<E, G2>(dev, base, k.data(), n, n);  // one chunk
      check_range<E, G2>(got, std::vector<typename P::Aff>(want.begin(), want.begin() + n),
                         gpu + " n=" + std::to_string(n));
    }
    // Several chunks: a workspace just big enough for `chunk` scalars per launch.
    struct Chunked {
      size_t n, chunk;
    };
    for (auto [n, chunk] : {Chunked{7, 1}, Chunked{1000, 100}, Chunked{4097, 333}}) {
      auto got = gpu_mul<E, G2>(dev, base, k.data(), n, chunk);
      check_range<E, G2>(got, std::vector<typename P::Aff>(want.begin(), want.begin() + n),
                         gpu + " n=" + std::to_string(n) + " chunk=" + std::to_string(chunk));
    }
    // Another base, the generator, on a slice that does not start at 0.
    {
      const size_t off = 13, n = 50;
      std::vector<Scalar> ks(k.begin() + off, k.begin() + off + n);
      auto w2 = cpu_mul<E, G2>(P::generator(), ks, pool);
      auto got = gpu_mul<E, G2>(dev, P::generator(), ks.data(), n, n);
      check_range<E, G2>(got, w2, gpu + " generator");
    }
    // The infinity base: every output is (0, 0).
    {
      auto got = gpu_mul<E, G2>(dev, P::Aff::infinity(), k.data(), 20, 20);
      for (size_t i = 0; i < got.size(); ++i)
        CHECK_MSG(got[i].is_inf(), P::name() << " " << gpu << " infinity base: point " << i);
    }
  }
}

}  // namespace

CUZK_TEST(gpu_fixed_base_bn254_g1_matches_cpu) { check_against_cpu<ec::Bn254, false>(); }
CUZK_TEST(gpu_fixed_base_bn254_g2_matches_cpu) { check_against_cpu<ec::Bn254, true>(); }
CUZK_TEST(gpu_fixed_base_bls12_381_g1_matches_cpu) { check_against_cpu<ec::Bls12381, false>(); }
CUZK_TEST(gpu_fixed_base_bls12_381_g2_matches_cpu) { check_against_cpu<ec::Bls12381, true>(); }

// The query: a fixed table plus a per-scalar part, growing with the chunk; needs no GPU.
CUZK_TEST(gpu_fixed_base_workspace_query) {
  if (!cuda::built_with_cuda()) SKIP("built without CUDA");
  for (CurveId c : {CurveId::bn254, CurveId::bls12_381})
    for (Group g : {Group::G1, Group::G2}) {
      const size_t fq = c == CurveId::bn254 ? 32 : 48;
      const size_t pt = 2 * fq * (g == Group::G1 ? 1 : 2);
      const size_t table = gpu::kFixedBaseTableEntries * pt;
      size_t w0 = gpu::fixed_base_workspace_bytes(c, g, 0), w1 = gpu::fixed_base_workspace_bytes(c, g, 1);
      size_t wn = gpu::fixed_base_workspace_bytes(c, g, 1000);
      CHECK(w0 >= table && w0 < table + 256);
      CHECK(w1 > w0);
      CHECK(wn >= table + 1000 * (32 + pt) && wn < table + 1000 * (32 + pt) + 3 * 256);
    }
}

// Too small a workspace is refused before any work, saying what is needed and what there is;
// a workspace of exactly the one-scalar size works (one scalar per launch).
CUZK_TEST(gpu_fixed_base_workspace_too_small) {
  auto devs = gpus();
  using P = Pick<ec::Bls12381, false>;
  RandomSource rs(test::seed() ^ 0x5151);
  ThreadPool pool(0);
  const P::Aff base = P::generator();
  auto k = test_scalars<P::Fr>(5, rs);
  auto want = cpu_mul<ec::Bls12381, false>(base, k, pool);
  for (auto& d : devs) {
    gpu::DeviceId dev{d.ordinal};
    const size_t need = gpu::fixed_base_workspace_bytes(CurveId::bls12_381, Group::G1, 1);
    gpu::DeviceBuffer w(dev, need);
    std::vector<P::Aff> got(k.size());
    gpu::DeviceMemory small = w.memory();
    small.bytes = need - 1;
    CHECK_THROWS_WITH(
        gpu::fixed_base_mul(dev, CurveId::bls12_381, Group::G1, &base, k.data(), k.size(), got.data(), small),
        gpu::GpuError, "workspace too small");
    CHECK_THROWS_WITH(
        gpu::fixed_base_mul(dev, CurveId::bls12_381, Group::G1, &base, k.data(), k.size(), got.data(), small),
        gpu::GpuError, std::to_string(need) + " bytes");
    CHECK_THROWS_WITH(
        gpu::fixed_base_mul(dev, CurveId::bls12_381, Group::G1, &base, k.data(), k.size(), got.data(), small),
        gpu::GpuError, std::to_string(need - 1) + " available");
    small.bytes = 0;
    CHECK_THROWS_WITH(
        gpu::fixed_base_mul(dev, CurveId::bls12_381, Group::G1, &base, k.data(), k.size(), got.data(), small),
        gpu::GpuError, "gpu:" + std::to_string(d.ordinal));
    // n = 0 does nothing, whatever the workspace.
    gpu::fixed_base_mul(dev, CurveId::bls12_381, Group::G1, &base, nullptr, 0, nullptr, small);
    gpu::fixed_base_mul(dev, CurveId::bls12_381, Group::G1, &base, k.data(), k.size(), got.data(), w.memory());
    for (size_t i = 0; i < k.size(); ++i) CHECK_MSG(got[i] == want[i], "gpu:" << d.ordinal << " point " << i);
  }
}

CUZK_TEST(gpu_fixed_base_errors_name_the_device) {
  auto devs = gpus();
  gpu::DeviceId bad{int(devs.size()) + 7};
  const std::string name = "gpu:" + std::to_string(bad.ordinal);
  const auto base = ec::Bn254G1Cfg::generator();
  std::vector<Scalar> k(10, Scalar{{3, 0, 0, 0}});
  std::vector<ec::Bn254::G1Affine> out(10);
  CHECK_THROWS_WITH(gpu::fixed_base_mul(bad, CurveId::bn254, Group::G1, &base, k.data(), k.size(), out.data(),
                                        gpu::DeviceMemory{bad, nullptr, size_t(1) << 30}),
                    gpu::GpuError, name);
  // A workspace on another device than the one asked for is refused, naming both.
  if (devs.size() >= 2) {
    gpu::DeviceId d0{devs[0].ordinal}, d1{devs[1].ordinal};
    gpu::DeviceBuffer w(d0, gpu::fixed_base_workspace_bytes(CurveId::bn254, Group::G1, 10));
    CHECK_THROWS_WITH(
        gpu::fixed_base_mul(d1, CurveId::bn254, Group::G1, &base, k.data(), k.size(), out.data(), w.memory()),
        gpu::GpuError, d1.name());
  }
}

// The call runs on the device it is given and leaves the caller's current device alone.
CUZK_TEST(gpu_fixed_base_restores_the_current_device) {
  auto devs = gpus();
  gpu::DeviceId before = gpu::detail::current_device();
  using P = Pick<ec::Bn254, true>;
  RandomSource rs(test::seed() ^ 0x6161);
  ThreadPool pool(0);
  const P::Aff base = P::generator();
  auto k = test_scalars<P::Fr>(100, rs);
  auto want = cpu_mul<ec::Bn254, true>(base, k, pool);
  for (auto it = devs.rbegin(); it != devs.rend(); ++it) {
    auto got = gpu_mul<ec::Bn254, true>(gpu::DeviceId{it->ordinal}, base, k.data(), k.size(), k.size());
    check_range<ec::Bn254, true>(got, want, "gpu:" + std::to_string(it->ordinal));
    CHECK_EQ(gpu::detail::current_device().ordinal, before.ordinal);
  }
}

// ------------------------------------------------------------------ timing (opt-in)
namespace {

template <class E, bool G2>
void bench_one(const cuda::DeviceInfo& d, int log_n, ThreadPool& pool, RandomSource& rs) {
  using P = Pick<E, G2>;
  const size_t n = size_t(1) << log_n;
  gpu::DeviceId dev{d.ordinal};
  const typename P::Jac g = P::Jac::from_affine(P::generator());
  const typename P::Aff base = P::Cfg::mul(g, random_field<typename P::Fr>(rs)).to_affine();
  std::vector<Scalar> k(n);
  const uint64_t seed = rs.next();
  pool.parallel_for(
      n,
      [&](size_t lo, size_t hi) {
        RandomSource local(seed ^ (uint64_t(lo) * 0x9e3779b97f4a7c15ull));
        for (size_t i = lo; i < hi; ++i) k[i] = random_scalar<typename P::Fr>(local);
      },
      size_t(1) << 16);
  std::vector<typename P::Aff> out(n);
  // One chunk for everything, and (for larger n) chunks of 2^20.
  std::vector<size_t> chunks = {n};
  if (n > (size_t(1) << 20)) chunks.push_back(size_t(1) << 20);
  for (size_t chunk : chunks) {
    const size_t ws = gpu::fixed_base_workspace_bytes(E::id, P::group, chunk);
    gpu::DeviceBuffer w(dev, ws);
    std::vector<double> ms;
    for (int r = 0; r < 3; ++r) {  // the first is a warm-up
      auto t0 = std::chrono::steady_clock::now();
      gpu::fixed_base_mul(dev, E::id, P::group, &base, k.data(), n, out.data(), w.memory());
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    // A sample of the results against the CPU.
    std::vector<Scalar> ks;
    std::vector<size_t> idx;
    for (int s = 0; s < 256; ++s) {
      idx.push_back(rs.next() % n);
      ks.push_back(k[idx.back()]);
    }
    auto want = cpu_mul<E, G2>(base, ks, pool);
    for (size_t s = 0; s < idx.size(); ++s)
      CHECK_MSG(out[idx[s]] == want[s],
                "gpu:" << d.ordinal << " " << P::name() << " 2^" << log_n << " point " << idx[s]);
    std::sort(ms.begin() + 1, ms.end());
    std::printf("  gpu:%d %-13s 2^%d  chunk 2^%d  %9.1f ms (first call %.1f ms)  workspace %.0f MiB\n", d.ordinal,
                P::name(), log_n, int(std::log2(double(chunk))), ms[1], ms[0], double(ws) / (1 << 20));
    std::fflush(stdout);
  }
}

}  // namespace

CUZK_TEST(bench_gpu_fixed_base) {
  test::mark_gpu_case();  // skipped below unless asked for: a GPU case all the same
  const char* env = std::getenv("CUZK_FIXED_BASE_BENCH");
  if (!env) SKIP("set CUZK_FIXED_BASE_BENCH=1 (or the largest log2 size) to time the GPU fixed-base multiplication");
  int max_log = std::atoi(env) > 1 ? std::atoi(env) : 24;
  auto devs = gpus();
  ThreadPool pool(0);
  RandomSource rs(test::seed() ^ 0xfb);
  const auto& d = devs[0];
  for (int lg : {20, 24}) {
    if (lg > max_log) break;
    bench_one<ec::Bn254, false>(d, lg, pool, rs);
    bench_one<ec::Bls12381, false>(d, lg, pool, rs);
    bench_one<ec::Bn254, true>(d, lg, pool, rs);
    bench_one<ec::Bls12381, true>(d, lg, pool, rs);
  }
}
