// SPDX-License-Identifier: MIT OR Apache-2.0
// Key points decoded on the GPU (Device::decode_points, backend/cuda/decode_points.cu) against
// the host's decoder (ec/uncompressed.hpp) on fresh random points: G1 and G2 of BLS12-381, more
// points than one chunk, every kind of bad encoding at random places (the lowest index must be
// the one reported, with its code), the identity accepted or refused, and every output point
// equal to the host's bytes. Skips where cuzk has no CUDA backend or no GPU is visible.
//
// Timing (not run by default): CUZK_DECODE_BENCH=N build/tests/test_gpu_decode bench_gpu_decode
// decodes 2^N G1 and 2^(N-1) G2 points and prints GB/s.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/open.hpp"
#include "ec/curves.hpp"
#include "ec/uncompressed.hpp"
#include "filecoin/params.hpp"
#include "gpu_testing.hpp"
#include "testing.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
using ec::zcash::PointCode;

namespace {

using Bls = ec::Bls12381;

template <bool G2>
struct Pick {
  using F = std::conditional_t<G2, Bls::Fq2, Bls::Fq>;
  using Aff = ec::Affine<F>;
  using Jac = ec::Jacobian<F>;
  static constexpr size_t bytes = G2 ? 192 : 96;
  static constexpr backend::Group group = G2 ? backend::Group::G2 : backend::Group::G1;
  static Aff generator() {
    if constexpr (G2)
      return ec::Bls12381G2Cfg::generator();
    else
      return ec::Bls12381G1Cfg::generator();
  }
};

// `distinct` points on the curve (multiples of the generator by random small steps), tiled to n
// and encoded; the identity at a few places.
template <bool G2>
std::vector<uint8_t> encoded_points(size_t n, size_t distinct, RandomSource& rs) {
  using P = Pick<G2>;
  std::vector<typename P::Aff> pts(distinct);
  auto g = P::Jac::from_affine(P::generator());
  auto acc = g;
  for (size_t i = 0; i < distinct; ++i) {
    for (uint64_t k = rs.next() % 3; k > 0; --k) acc = acc + g;
    acc = acc + g;
    pts[i] = acc.to_affine();
  }
  std::vector<uint8_t> raw(n * P::bytes);
  for (size_t i = 0; i < n; ++i) filecoin::encode_uncompressed(pts[i % distinct], raw.data() + i * P::bytes);
  for (int k = 0; k < 3; ++k)
    filecoin::encode_uncompressed(P::Aff::infinity(), raw.data() + (rs.next() % n) * P::bytes);
  return raw;
}

// One bad encoding of each kind at point i.
void spoil(uint8_t* p, size_t bytes, int kind, RandomSource& rs) {
  switch (kind) {
    case 0:
      p[1 + rs.next() % (bytes - 1)] ^= uint8_t(1 + rs.next() % 255);
      break;  // off the curve
    case 1:
      p[0] |= 0x80;
      break;  // compressed flag
    case 2:
      p[0] |= 0x20;
      break;  // sort flag
    case 3:   // infinity with bits
      std::memset(p, 0, bytes);
      p[0] = 0x40;
      p[bytes - 1 - rs.next() % (bytes - 1)] = 1;
      break;
    default:  // x >= q: the top coordinate all ones below the flags
      p[0] = (p[0] & 0xE0) | 0x1F;
      std::memset(p + 1, 0xFF, 47);
  }
}

// The host's answer: every point decoded (a failing one as the identity), the lowest failure.
template <bool G2>
std::vector<typename Pick<G2>::Aff> host_decode(const std::vector<uint8_t>& raw, size_t n, bool refuse, size_t& bad,
                                                PointCode& code) {
  using P = Pick<G2>;
  std::vector<typename P::Aff> out(n);
  bad = n, code = PointCode::ok;
  for (size_t i = 0; i < n; ++i) {
    const PointCode c = ec::zcash::decode(raw.data() + i * P::bytes, out[i], refuse);
    if (c != PointCode::ok) {
      out[i] = P::Aff::infinity();
      if (bad == n) bad = i, code = c;
    }
  }
  return out;
}

// The host's copies of a decode, over the pool in pieces of `piece` bytes.
backend::Device::HostCopy copy_over(ThreadPool& pool, size_t piece) {
  return [&pool, piece](void* d, const void* s, size_t b) {
    pool.parallel_for((b + piece - 1) / piece, [&](size_t lo, size_t hi) {
      std::memcpy(static_cast<char*>(d) + lo * piece, static_cast<const char*>(s) + lo * piece,
                  std::min(b, hi * piece) - lo * piece);
    });
  };
}

template <bool G2>
void check_against_host(backend::Device& dev, ThreadPool& pool, size_t n, size_t n_bad, bool refuse) {
  using P = Pick<G2>;
  RandomSource rs(test::seed() + n + n_bad + (G2 ? 7 : 0) + (refuse ? 13 : 0));
  std::vector<uint8_t> raw = encoded_points<G2>(n, 1024, rs);
  for (size_t k = 0; k < n_bad; ++k) spoil(raw.data() + (rs.next() % n) * P::bytes, P::bytes, int(k % 5), rs);
  size_t want_bad = 0;
  PointCode want_code{};
  const auto want = host_decode<G2>(raw, n, refuse, want_bad, want_code);

  std::vector<typename P::Aff> got(n);
  const auto ws = dev.allocate(dev.decode_workspace_bytes(), nullptr, "test decode");
  const auto r = dev.decode_points(P::group, raw.data(), n, got.data(), refuse, ws->memory(), copy_over(pool, 4096));
  const std::string what = std::string(G2 ? "G2" : "G1") + " n=" + std::to_string(n) + " bad=" + std::to_string(n_bad) +
                           (refuse ? " refusing the identity" : "");
  if (want_bad == n) {
    CHECK(!r.has_value());
  } else {
    CHECK(r.has_value());
    if (r) {
      CHECK_EQ(r->index, want_bad);
      CHECK_EQ(int(r->code), int(want_code));
    }
  }
  size_t differ = 0;
  for (size_t i = 0; i < n; ++i) differ += std::memcmp(&got[i], &want[i], sizeof want[i]) != 0;
  if (differ) std::fprintf(stderr, "%s: %zu points differ from the host's\n", what.c_str(), differ);
  CHECK_EQ(differ, size_t(0));
}

std::unique_ptr<backend::Device> gpu0() {
  test::gpus_or_skip();
  backend::DeviceSpec spec;
  spec.kind = backend::DeviceSpec::Kind::Gpu;
  spec.index = 0;
  return backend::open_device(spec);
}

}  // namespace

CUZK_TEST(gpu_decode_equals_host) {
  auto dev = gpu0();
  CHECK(dev->decode_workspace_bytes() > 0);
  ThreadPool pool(4);
  for (bool refuse : {false, true}) {
    check_against_host<false>(*dev, pool, 1, 0, refuse);
    check_against_host<false>(*dev, pool, 1000, 0, refuse);
    check_against_host<false>(*dev, pool, 1000, 5, refuse);
    check_against_host<true>(*dev, pool, 777, 0, refuse);
    check_against_host<true>(*dev, pool, 777, 9, refuse);
  }
  // Several chunks (48 MiB each): failures spread over them, the lowest reported.
  check_against_host<false>(*dev, pool, 1300000, 0, true);
  check_against_host<false>(*dev, pool, 1300000, 3, true);
  check_against_host<true>(*dev, pool, 600000, 4, false);
}

CUZK_TEST(bench_gpu_decode) {
  const char* env = std::getenv("CUZK_DECODE_BENCH");
  if (!env) SKIP("set CUZK_DECODE_BENCH=log2 of the G1 count");
  auto dev = gpu0();
  const int lg = std::atoi(env);
  ThreadPool pool;
  RandomSource rs(test::seed());
  for (bool g2 : {false, true}) {
    const size_t n = size_t(1) << (g2 ? lg - 1 : lg), pb = g2 ? 192 : 96;
    std::vector<uint8_t> raw = g2 ? encoded_points<true>(n, 1024, rs) : encoded_points<false>(n, 1024, rs);
    std::vector<uint8_t> out(n * pb);
    const auto ws = dev->allocate(dev->decode_workspace_bytes(), nullptr, "bench decode");
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto r = dev->decode_points(g2 ? backend::Group::G2 : backend::Group::G1, raw.data(), n, out.data(), false,
                                        ws->memory(), copy_over(pool, size_t(1) << 20));
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      CHECK(!r.has_value());
      std::printf("decode %s: %zu points, %.2f GB in %.3f s (%.2f GB/s)%s\n", g2 ? "G2" : "G1", n, n * pb / 1e9, s,
                  n * pb / 1e9 / s, rep == 0 ? " (first: output pages touched)" : "");
    }
  }
}
