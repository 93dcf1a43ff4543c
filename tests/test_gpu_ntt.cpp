// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU NTT and H evaluation agree bit for bit with the CPU backend (cpu::ntt and
// cpu::compute_h) on fresh random inputs, on every visible GPU; memory comes only from the
// workspace the caller sized; errors name the device. Skips where no GPU is visible.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "backend/cpu/h.hpp"
#include "backend/cuda/ntt.hpp"
#include "backend/cuda/probe.hpp"
#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "gpu_testing.hpp"
#include "groth16/key.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using gpu::DeviceBuffer;
using gpu::DeviceId;

namespace {

std::vector<cuda::DeviceInfo> gpus() { return test::gpus_or_skip(); }

ThreadPool& pool() {
  static ThreadPool p(0);
  return p;
}

template <class Fr>
std::vector<Fr> random_vector(RandomSource& rs, size_t n) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = random_field<Fr>(rs);
  if (n > 2) {  // edge values among the random ones
    v[0] = Fr::zero();
    v[1] = -Fr::one();
  }
  return v;
}

template <class T>
void upload(DeviceId dev, const DeviceBuffer& buf, const std::vector<T>& v) {
  gpu::copy_to_device(dev, buf.memory().ptr, v.data(), v.size() * sizeof(T), "test input");
}
template <class T>
std::vector<T> download(DeviceId dev, const DeviceBuffer& buf, size_t n) {
  std::vector<T> v(n);
  gpu::copy_to_host(dev, v.data(), buf.memory().ptr, n * sizeof(T), "test output");
  return v;
}

template <class Fr>
size_t first_difference(const std::vector<Fr>& a, const std::vector<Fr>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return i;
  return SIZE_MAX;
}

template <class Fr>
void check_ntt_sizes(DeviceId dev, CurveId curve, int max_log, int extra_log) {
  RandomSource rs(test::seed() ^ 0x4e54 ^ uint64_t(dev.ordinal) << 40 ^ uint64_t(curve) << 48);
  std::vector<int> sizes;
  for (int l = 1; l <= max_log; ++l) sizes.push_back(l);
  if (extra_log) sizes.push_back(extra_log);
  for (int log_n : sizes) {
    const size_t n = size_t(1) << log_n;
    auto dom = cpu::Domain<Fr>::make(log_n);
    const std::vector<Fr> x = random_vector<Fr>(rs, n);
    DeviceBuffer data(dev, n * sizeof(Fr));
    DeviceBuffer ws(dev, gpu::ntt_workspace_bytes(curve, log_n));

    // forward
    std::vector<Fr> want = x;
    cpu::ntt(want.data(), dom, false, pool());
    upload(dev, data, x);
    gpu::ntt(dev, curve, data.memory().ptr, log_n, false, ws.memory());
    std::vector<Fr> got = download<Fr>(dev, data, n);
    size_t d = first_difference(got, want);
    CHECK_MSG(d == SIZE_MAX,
              Fr::Params::name << " forward NTT 2^" << log_n << " on " << dev.name() << ": first difference at " << d);
    // round trip: the inverse of the forward result is the input
    gpu::ntt(dev, curve, data.memory().ptr, log_n, true, ws.memory());
    got = download<Fr>(dev, data, n);
    d = first_difference(got, x);
    CHECK_MSG(d == SIZE_MAX,
              Fr::Params::name << " round trip 2^" << log_n << " on " << dev.name() << ": first difference at " << d);
    // inverse of a fresh input
    want = x;
    cpu::ntt(want.data(), dom, true, pool());
    upload(dev, data, x);
    gpu::ntt(dev, curve, data.memory().ptr, log_n, true, ws.memory());
    got = download<Fr>(dev, data, n);
    d = first_difference(got, want);
    CHECK_MSG(d == SIZE_MAX,
              Fr::Params::name << " inverse NTT 2^" << log_n << " on " << dev.name() << ": first difference at " << d);
    // twiddles made once, in memory cleared first (the calls above left their tables there):
    // both directions, twice each, equal to the CPU's
    upload(dev, ws, std::vector<uint8_t>(gpu::ntt_workspace_bytes(curve, log_n), 0));
    const gpu::NttTwiddles tw = gpu::make_ntt_twiddles(dev, curve, log_n, ws.memory());
    for (int round = 0; round < 2; ++round)
      for (bool inverse : {false, true}) {
        want = x;
        cpu::ntt(want.data(), dom, inverse, pool());
        upload(dev, data, x);
        gpu::ntt(dev, data.memory().ptr, inverse, tw);
        got = download<Fr>(dev, data, n);
        d = first_difference(got, want);
        CHECK_MSG(d == SIZE_MAX, Fr::Params::name << (inverse ? " inverse" : " forward") << " NTT 2^" << log_n
                                                  << " over twiddles made once, on " << dev.name()
                                                  << ": first difference at " << d);
      }
    // Out of place (the bit reversal in pass 0's loads): equal to the CPU, the input untouched,
    // the output's previous contents (a pattern) all overwritten.
    DeviceBuffer out(dev, n * sizeof(Fr));
    for (bool inverse : {false, true}) {
      want = x;
      cpu::ntt(want.data(), dom, inverse, pool());
      upload(dev, data, x);
      upload(dev, out, std::vector<uint8_t>(n * sizeof(Fr), 0xa5));
      gpu::ntt(dev, data.memory().ptr, out.memory().ptr, inverse, tw);
      got = download<Fr>(dev, out, n);
      d = first_difference(got, want);
      CHECK_MSG(d == SIZE_MAX, Fr::Params::name << (inverse ? " inverse" : " forward") << " NTT 2^" << log_n
                                                << " out of place, on " << dev.name() << ": first difference at " << d);
      d = first_difference(download<Fr>(dev, data, n), x);
      CHECK_MSG(d == SIZE_MAX, Fr::Params::name << " NTT 2^" << log_n << " out of place wrote its input, on "
                                                << dev.name() << ", at " << d);
    }
    {  // an output that overlaps the input without being it is refused, on either side
      DeviceBuffer both(dev, 2 * n * sizeof(Fr));
      void* shifted = static_cast<uint8_t*>(both.memory().ptr) + (n / 2) * sizeof(Fr);
      CHECK_THROWS_WITH(gpu::ntt(dev, both.memory().ptr, shifted, false, tw), InvalidArgument, "overlap");
      CHECK_THROWS_WITH(gpu::ntt(dev, shifted, both.memory().ptr, false, tw), InvalidArgument, "overlap");
    }
  }
  // Twiddles given less memory than the domain's tables are refused, naming both sizes.
  DeviceBuffer small(dev, gpu::ntt_workspace_bytes(curve, 10) - 1);
  CHECK_THROWS_WITH(gpu::make_ntt_twiddles(dev, curve, 10, small.memory()), InvalidArgument,
                    std::to_string(gpu::ntt_workspace_bytes(curve, 10)));
}

template <class Fr>
void check_h(DeviceId dev, CurveId curve, int log_n, bool h_aliases_a, gpu::HForm form = gpu::HForm::OddCoset) {
  RandomSource rs(test::seed() ^ 0x4848 ^ uint64_t(log_n) << 32 ^ uint64_t(dev.ordinal) << 40 ^ uint64_t(curve) << 48);
  const size_t n = size_t(1) << log_n;
  std::vector<Fr> a = random_vector<Fr>(rs, n), b = random_vector<Fr>(rs, n), c(n);
  for (size_t i = 0; i < n; ++i) c[i] = (i % 5 == 0) ? random_field<Fr>(rs) : a[i] * b[i];
  DeviceBuffer da(dev, n * sizeof(Fr)), db(dev, n * sizeof(Fr)), dc(dev, n * sizeof(Fr));
  DeviceBuffer dh(dev, h_aliases_a ? 256 : n * sizeof(Fr));
  upload(dev, da, a);
  upload(dev, db, b);
  upload(dev, dc, c);
  DeviceBuffer ws(dev, gpu::h_workspace_bytes(curve, log_n, form));
  void* h_ptr = h_aliases_a ? da.memory().ptr : dh.memory().ptr;
  gpu::compute_h(dev, curve, log_n, da.memory().ptr, db.memory().ptr, dc.memory().ptr, h_ptr, ws.memory(), {}, nullptr,
                 form);
  std::vector<cpu::Scalar> got(n);
  gpu::copy_to_host(dev, got.data(), h_ptr, n * sizeof(cpu::Scalar), "h");
  std::vector<cpu::Scalar> want(n);
  const bool coefficients = form == gpu::HForm::Coefficients;
  if (coefficients)
    cpu::compute_h_coefficients<Fr>(a.data(), b.data(), c.data(), log_n, want.data(), pool());
  else
    cpu::compute_h<Fr>(a.data(), b.data(), c.data(), log_n, want.data(), pool());
  size_t first = SIZE_MAX;
  for (size_t i = 0; i < n && first == SIZE_MAX; ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(cpu::Scalar)) != 0) first = i;
  CHECK_MSG(first == SIZE_MAX, Fr::Params::name << (coefficients ? " H coefficients" : " H") << " 2^" << log_n << " on "
                                                << dev.name() << ": first difference at " << first);
}

template <class Fr>
void check_h_sizes(DeviceId dev, CurveId curve) {
  for (auto form : {gpu::HForm::OddCoset, gpu::HForm::Coefficients}) {
    for (int log_n = 1; log_n <= 13; ++log_n) check_h<Fr>(dev, curve, log_n, log_n % 2 == 0, form);
    check_h<Fr>(dev, curve, 16, false, form);
    check_h<Fr>(dev, curve, 20, true, form);
  }
}

}  // namespace

CUZK_TEST(gpu_ntt_matches_cpu_bn254_on_every_device) {
  for (auto& g : gpus()) check_ntt_sizes<ff::Bn254Fr>(DeviceId{g.ordinal}, CurveId::bn254, 20, 22);
}

CUZK_TEST(gpu_ntt_matches_cpu_bls12_381_on_every_device) {
  for (auto& g : gpus()) check_ntt_sizes<ff::Bls12381Fr>(DeviceId{g.ordinal}, CurveId::bls12_381, 20, 0);
}

CUZK_TEST(gpu_h_matches_cpu_compute_h_on_every_device) {
  for (auto& g : gpus()) {
    check_h_sizes<ff::Bn254Fr>(DeviceId{g.ordinal}, CurveId::bn254);
    check_h_sizes<ff::Bls12381Fr>(DeviceId{g.ordinal}, CurveId::bls12_381);
  }
}

// The caller's stream: the call only enqueues; the result is there once the stream is done.
CUZK_TEST(gpu_ntt_runs_on_the_callers_stream_and_restores_the_device) {
  auto devs = gpus();
  using Fr = ff::Bls12381Fr;
  const int log_n = 15;
  const size_t n = size_t(1) << log_n;
  RandomSource rs(test::seed() ^ 0x5354);
  const std::vector<Fr> x = random_vector<Fr>(rs, n);
  std::vector<Fr> want = x;
  cpu::ntt(want.data(), cpu::Domain<Fr>::make(log_n), false, pool());
  for (auto& g : devs) {
    DeviceId dev{g.ordinal};
    DeviceBuffer data(dev, n * sizeof(Fr)), ws(dev, gpu::ntt_workspace_bytes(CurveId::bls12_381, log_n));
    upload(dev, data, x);
    int other = devs.size() > 1 ? (g.ordinal == devs[0].ordinal ? devs[1].ordinal : devs[0].ordinal) : g.ordinal;
    CHECK(cudaSetDevice(other) == cudaSuccess);
    cudaStream_t s = nullptr;
    {
      CHECK(cudaSetDevice(g.ordinal) == cudaSuccess);
      CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
      CHECK(cudaSetDevice(other) == cudaSuccess);
    }
    gpu::NttTimings t;
    gpu::ntt(dev, CurveId::bls12_381, data.memory().ptr, log_n, false, ws.memory(), gpu::StreamHandle{s}, &t);
    int now = -1;
    CHECK(cudaGetDevice(&now) == cudaSuccess);
    CHECK_EQ(now, other);
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(t.total_ms > 0);
    std::vector<Fr> got = download<Fr>(dev, data, n);
    CHECK(first_difference(got, want) == SIZE_MAX);
    cudaSetDevice(g.ordinal);
    cudaStreamDestroy(s);
  }
}

CUZK_TEST(gpu_ntt_workspace_one_byte_short_is_a_gpu_error) {
  auto devs = gpus();
  DeviceId dev{devs[0].ordinal};
  for (int log_n : {1, 12, 18}) {
    for (CurveId curve : {CurveId::bn254, CurveId::bls12_381}) {
      const size_t n = size_t(1) << log_n;
      DeviceBuffer a(dev, n * 32), b(dev, n * 32), c(dev, n * 32);
      size_t need = gpu::ntt_workspace_bytes(curve, log_n);
      DeviceBuffer ws(dev, std::max(need, gpu::h_workspace_bytes(curve, log_n)));
      gpu::DeviceMemory short_ws = ws.memory();
      short_ws.bytes = need - 1;
      CHECK_THROWS_WITH(gpu::ntt(dev, curve, a.memory().ptr, log_n, false, short_ws), gpu::GpuError, dev.name());
      short_ws.bytes = gpu::h_workspace_bytes(curve, log_n) - 1;
      CHECK_THROWS_WITH(
          gpu::compute_h(dev, curve, log_n, a.memory().ptr, b.memory().ptr, c.memory().ptr, a.memory().ptr, short_ws),
          gpu::GpuError, "workspace too small");
      // exactly the queried size is enough
      short_ws.bytes = need;
      gpu::ntt(dev, curve, a.memory().ptr, log_n, false, short_ws);
    }
  }
}

CUZK_TEST(gpu_ntt_errors_name_the_device) {
  auto devs = gpus();
  DeviceId dev{devs[0].ordinal};
  DeviceBuffer data(dev, 1024 * 32), ws(dev, gpu::h_workspace_bytes(CurveId::bn254, 10));
  DeviceId bad{int(devs.size()) + 7};
  gpu::DeviceMemory bad_ws = ws.memory();
  bad_ws.device = bad;
  CHECK_THROWS_WITH(gpu::ntt(bad, CurveId::bn254, data.memory().ptr, 10, false, bad_ws), gpu::GpuError, bad.name());
  CHECK_THROWS_WITH(gpu::compute_h(bad, CurveId::bn254, 10, data.memory().ptr, data.memory().ptr, data.memory().ptr,
                                   data.memory().ptr, bad_ws),
                    gpu::GpuError, bad.name());
  // a workspace on another device than the call's
  CHECK_THROWS_WITH(gpu::ntt(dev, CurveId::bn254, data.memory().ptr, 10, false, bad_ws), gpu::GpuError, bad.name());
  // sizes outside the field's range
  CHECK_THROWS_WITH(gpu::ntt_workspace_bytes(CurveId::bn254, 29), InvalidArgument, "log_n");
  CHECK_THROWS_WITH(gpu::ntt(dev, CurveId::bls12_381, data.memory().ptr, 0, false, ws.memory()), InvalidArgument,
                    "log_n");
  // a good call after the failures still works (no stale error is reported)
  gpu::ntt(dev, CurveId::bn254, data.memory().ptr, 10, false, ws.memory());
}

// Timings at 2^24 through the events hook (a report, checked only by a round trip).
CUZK_TEST(gpu_ntt_timings_2_24) {
  auto devs = gpus();
  DeviceId dev{devs[0].ordinal};
  const int log_n = 24;
  const size_t n = size_t(1) << log_n;
  for (CurveId curve : {CurveId::bn254, CurveId::bls12_381}) {
    using Fr = ff::Bn254Fr;  // the bytes only need to be reduced modulo the smaller r
    RandomSource rs(test::seed() ^ 0x7431);
    std::vector<Fr> x(n);
    for (size_t i = 0; i < n; ++i) {
      x[i] = Fr::zero();
      x[i].l[0] = rs.next();
      x[i].l[1] = rs.next();
    }
    DeviceBuffer a(dev, n * 32), b(dev, n * 32), c(dev, n * 32), ws(dev, gpu::h_workspace_bytes(curve, log_n));
    upload(dev, a, x);
    auto median = [](std::vector<float> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::vector<float> fwd, fwd_tw, inv, h, h_tw;
    for (int r = 0; r < 5; ++r) {
      gpu::NttTimings t;
      gpu::ntt(dev, curve, a.memory().ptr, log_n, false, ws.memory(), {}, &t);
      fwd.push_back(t.transform_ms);
      fwd_tw.push_back(t.twiddles_ms);
      gpu::ntt(dev, curve, a.memory().ptr, log_n, true, ws.memory(), {}, &t);
      inv.push_back(t.transform_ms);
    }
    std::vector<Fr> back = download<Fr>(dev, a, n);
    CHECK_MSG(first_difference(back, x) == SIZE_MAX, "round trip 2^24 after 5 forward/inverse pairs");
    upload(dev, b, x);
    upload(dev, c, x);
    for (int r = 0; r < 3; ++r) {
      gpu::HTimings t;
      gpu::compute_h(dev, curve, log_n, a.memory().ptr, b.memory().ptr, c.memory().ptr, a.memory().ptr, ws.memory(), {},
                     &t);
      h.push_back(t.total_ms - t.twiddles_ms);
      h_tw.push_back(t.twiddles_ms);
    }
    std::printf("  %s 2^24 on %s: NTT %.3f ms (+%.3f ms twiddles), inverse %.3f ms, H %.3f ms (+%.3f ms tables)\n",
                curve == CurveId::bn254 ? "bn254" : "bls12-381", dev.name().c_str(), median(fwd), median(fwd_tw),
                median(inv), median(h), median(h_tw));
  }
}
