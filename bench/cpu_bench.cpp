// SPDX-License-Identifier: MIT OR Apache-2.0
// CPU backend micro-benchmarks: MSM (G1, G2), NTT and H (the six transforms of a proof and
// a b - c) at one size, median of several runs.
//   cuzk_bench_cpu [--curve bn254|bls12-381] [--log-n N] [--runs R] [--threads T] [--window C]
// Bases are distinct random points, scalars uniform random (no zeros or ones).
// With --poseidon B-S-T (a Filecoin tree shape, e.g. 8-0-0): the root of a Poseidon tree over 2^N
// uniform random leaves instead (the constants are made before the timing).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/h.hpp"
#include "backend/cpu/msm.hpp"
#include "backend/cpu/ntt.hpp"
#include "ec/curves.hpp"
#include "filecoin/poseidon.hpp"
#include "util/rng.hpp"

using namespace cuzk;

namespace {

template <class Fn>
double median_ms(int runs, Fn fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class Cfg, class Fr>
std::vector<ec::Affine<typename Cfg::F>> random_points(RandomSource& rs, size_t n, ThreadPool& pool) {
  using Jac = ec::Jacobian<typename Cfg::F>;
  std::vector<ec::Affine<typename Cfg::F>> pts(n);
  auto gen = Jac::from_affine(Cfg::generator());
  std::vector<Fr> k(n);
  for (auto& x : k) x = random_field<Fr>(rs);
  pool.parallel_for(
      n,
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) pts[i] = ec::Curve<Cfg>::mul(gen, k[i]).to_affine();
      },
      64);
  return pts;
}

template <class E, class G1Cfg, class G2Cfg>
void run(int log_n, int runs, ThreadPool& pool, unsigned window) {
  using Fr = typename E::Fr;
  const size_t n = size_t(1) << log_n;
  RandomSource rs(1);
  std::vector<cpu::Scalar> k(n);
  for (auto& x : k) x = random_field<Fr>(rs).to_std();
  auto p1 = random_points<G1Cfg, Fr>(rs, n, pool);
  auto p2 = random_points<G2Cfg, Fr>(rs, n, pool);
  double g1 = median_ms(runs, [&] { cpu::msm(p1.data(), k.data(), n, pool, window); });
  double g2 = median_ms(runs, [&] { cpu::msm(p2.data(), k.data(), n, pool, window); });
  auto dom = cpu::Domain<Fr>::make(log_n);
  std::vector<Fr> v(n);
  for (auto& x : v) x = random_field<Fr>(rs);
  double nt = median_ms(runs, [&] { cpu::ntt(v.data(), dom, false, pool); });
  // H as a proof computes it: three transforms back and three onto the coset, then a b - c.
  std::vector<Fr> a(n), b(n), c(n);
  std::vector<cpu::Scalar> h(n);
  double ht = median_ms(runs, [&] {
    for (size_t i = 0; i < n; ++i) a[i] = b[i] = c[i] = v[i];
    cpu::compute_h(a.data(), b.data(), c.data(), log_n, h.data(), pool);
  });
  auto plan = cpu::plan_msm(n, pool.size());
  if (window) plan.c = window;
  std::printf("%-10s 2^%-3d threads %u  msm G1 %9.2f ms  msm G2 %9.2f ms  ntt %8.2f ms  h %8.2f ms  (window %u bits)\n",
              curve_name(E::id), log_n, pool.size(), g1, g2, nt, ht, plan.c);
}

void run_poseidon(const std::string& shape, int log_n, int runs, ThreadPool& pool) {
  unsigned b = 0, s = 0, t = 0;
  if (std::sscanf(shape.c_str(), "%u-%u-%u", &b, &s, &t) != 3 || b < 2) {
    std::fprintf(stderr, "--poseidon: expected B-S-T, e.g. 8-0-0\n");
    std::exit(2);
  }
  using Fr = filecoin::PoseidonFr;
  RandomSource rs(1);
  std::vector<Fr> leaves(size_t(1) << log_n);
  for (auto& x : leaves) x = random_field<Fr>(rs);
  size_t hashes = 0, n = leaves.size() / std::max(1u, s) / std::max(1u, t);
  for (; n > 1; n /= b) hashes += (n / b) * std::max(1u, s) * std::max(1u, t);
  hashes += (s ? std::max(1u, t) : 0) + (t ? 1 : 0);
  for (unsigned a : {b, s, t})
    if (a) filecoin::poseidon_constants(a);
  Fr root;
  double ms = median_ms(runs, [&] { root = filecoin::poseidon_tree_root(leaves, b, s, t, pool); });
  std::printf("poseidon tree %s 2^%d leaves threads %u  root %9.1f ms  (%zu hashes, %.0f hashes/s)  %s\n",
              shape.c_str(), log_n, pool.size(), ms, hashes, double(hashes) / (ms / 1000),
              filecoin::poseidon_fr_to_hex(root).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string curve = "bn254", poseidon;
  int log_n = 15, runs = 5;
  unsigned threads = 0, window = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--curve")
      curve = argv[i + 1];
    else if (a == "--log-n")
      log_n = std::atoi(argv[i + 1]);
    else if (a == "--runs")
      runs = std::atoi(argv[i + 1]);
    else if (a == "--window")
      window = unsigned(std::atoi(argv[i + 1]));
    else if (a == "--poseidon")
      poseidon = argv[i + 1];
    else if (a == "--threads")
      threads = unsigned(std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  ThreadPool pool(threads);
  if (!poseidon.empty())
    run_poseidon(poseidon, log_n, runs, pool);
  else if (curve == "bn254")
    run<ec::Bn254, ec::Bn254G1Cfg, ec::Bn254G2Cfg>(log_n, runs, pool, window);
  else if (curve == "bls12-381")
    run<ec::Bls12381, ec::Bls12381G1Cfg, ec::Bls12381G2Cfg>(log_n, runs, pool, window);
  else {
    std::fprintf(stderr, "unknown curve %s\n", curve.c_str());
    return 2;
  }
  return 0;
}
