// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU MSM (backend/cuda/msm.hpp) against the CPU reference, on every visible GPU: G1 and G2
// of both curves, sizes that are not powers of two too, scalars mixing 0, 1, r - 1 and uniform
// values, infinity, repeated and negated bases, both scalar forms, inputs from the host and from
// the device; tables of a resident key's bases; two arrays of bases over one set of scalars. Also:
// the workspace query is exact, a bad device is named in the error.
// Skips where cuzk has no CUDA backend or no GPU is visible.
//
// Timing (not run by default): CUZK_MSM_BENCH=1 build/tests/test_gpu_msm bench_gpu_msm
// (CUZK_MSM_BENCH=22 stops at 2^22), data on the GPU, median of 5, each result checked.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "backend/cuda/msm.hpp"
#include "backend/cuda/probe.hpp"
#include "ec/curves.hpp"
#include "gpu_testing.hpp"
#include "testing.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
using gpu::Group;
using gpu::ScalarForm;

namespace {

// The call's description from the test's flags (where bases and scalars are, and their form).
gpu::MsmConfig mcfg(CurveId curve, Group g, size_t n, const void* bases, bool bases_dev, const void* scalars,
                    bool scalars_dev, ScalarForm form = ScalarForm::Standard, unsigned window_bits = 0) {
  gpu::MsmConfig c;
  c.window_bits = window_bits;
  c.curve = curve, c.group = g, c.count = n;
  c.bases = bases, c.bases_at = bases_dev ? gpu::Where::Device : gpu::Where::Host;
  c.scalars = scalars, c.scalars_at = scalars_dev ? gpu::Where::Device : gpu::Where::Host;
  c.scalar_form = form;
  return c;
}

std::vector<cuda::DeviceInfo> gpus() { return test::gpus_or_skip(); }

template <class E, bool G2>
struct Pick {
  using Cfg = std::conditional_t<G2, typename E::G2, typename E::G1>;
  using F = typename Cfg::F;
  using Aff = ec::Affine<F>;
  using Jac = ec::Jacobian<F>;
  using Fr = typename E::Fr;
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

// P_i = p0 + i * step for i < n, in affine form (chunks walked in parallel, one batch inversion
// per chunk).
template <class E, bool G2>
std::vector<typename Pick<E, G2>::Aff> walk(size_t n, const typename Pick<E, G2>::Jac& p0,
                                            const typename Pick<E, G2>::Jac& step, ThreadPool& pool) {
  using P = Pick<E, G2>;
  using F = typename P::F;
  std::vector<typename P::Aff> out(n);
  pool.parallel_for(
      n,
      [&](size_t b, size_t e) {
        uint64_t kb[1] = {b};
        typename P::Jac p = p0 + P::Cfg::mul(step, kb);
        std::vector<typename P::Jac> js;
        js.reserve(e - b);
        for (size_t i = b; i < e; ++i) {
          js.push_back(p);
          p = p + step;
        }
        std::vector<F> z(js.size()), scratch(js.size());
        for (size_t i = 0; i < js.size(); ++i) z[i] = js[i].is_inf() ? F::zero() : js[i].Z;
        ff::batch_inverse(z.data(), z.size(), scratch.data());
        for (size_t i = 0; i < js.size(); ++i) {
          if (js[i].is_inf()) {
            out[b + i] = P::Aff::infinity();
            continue;
          }
          F zi2 = z[i].sqr();
          out[b + i] = {js[i].X * zi2, js[i].Y * zi2 * z[i]};
        }
      },
      4096);
  return out;
}

template <class Fr>
cpu::Scalar mixed_scalar(RandomSource& rs) {
  uint64_t sel = rs.next() % 8;
  if (sel == 0) return {};              // zero
  if (sel == 1) return {{1, 0, 0, 0}};  // one
  if (sel == 2) {                       // r - 1, the largest scalar
    cpu::Scalar k = Fr::K.p;
    k.v[0] -= 1;
    return k;
  }
  if (sel == 3) return {{rs.next() & 0xffff, 0, 0, 0}};  // small: the high windows are all zero
  return random_field<Fr>(rs).to_std();
}

template <class Fr>
std::vector<cpu::Scalar> to_montgomery(const std::vector<cpu::Scalar>& k) {
  std::vector<cpu::Scalar> m(k.size());
  for (size_t i = 0; i < k.size(); ++i) {
    Fr x = Fr::from_std(k[i]);
    for (int j = 0; j < 4; ++j) m[i].v[j] = x.l[j];
  }
  return m;
}

// Runs the GPU MSM with inputs on the host or the device and the given scalar form.
template <class E, bool G2>
typename Pick<E, G2>::Jac gpu_msm(gpu::DeviceId dev, const std::vector<typename Pick<E, G2>::Aff>& b,
                                  const std::vector<cpu::Scalar>& k, bool bases_dev, bool scalars_dev, ScalarForm form,
                                  gpu::MsmTimings* tm = nullptr, unsigned window_bits = 0, size_t max_pairs = 0) {
  using P = Pick<E, G2>;
  const size_t n = b.size();
  const Group g = G2 ? Group::G2 : Group::G1;
  std::vector<cpu::Scalar> ks = form == ScalarForm::Montgomery ? to_montgomery<typename P::Fr>(k) : k;
  std::optional<gpu::DeviceBuffer> db, dk;
  const void* bp = b.data();
  const void* kp = ks.data();
  if (bases_dev) {
    db.emplace(dev, n * sizeof(typename P::Aff));
    gpu::copy_to_device(dev, db->memory().ptr, b.data(), n * sizeof(typename P::Aff), "test bases");
    bp = db->memory().ptr;
  }
  if (scalars_dev) {
    dk.emplace(dev, n * sizeof(cpu::Scalar));
    gpu::copy_to_device(dev, dk->memory().ptr, ks.data(), n * sizeof(cpu::Scalar), "test scalars");
    kp = dk->memory().ptr;
  }
  auto cfg = mcfg(E::id, g, n, nullptr, bases_dev, nullptr, scalars_dev, ScalarForm::Standard, window_bits);
  cfg.max_pairs = max_pairs;
  gpu::DeviceBuffer w(dev, gpu::msm_workspace_bytes(dev, cfg));
  cfg = mcfg(E::id, g, n, bp, bases_dev, kp, scalars_dev, form, window_bits);
  cfg.max_pairs = max_pairs;
  typename P::Jac got;
  gpu::msm(dev, cfg, w.memory(), &got, {}, tm);
  return got;
}

// Every GPU, four ways of passing the inputs, against the CPU.
template <class E, bool G2>
void check_all_ways(const std::vector<cuda::DeviceInfo>& devs, const std::string& what,
                    const std::vector<typename Pick<E, G2>::Aff>& b, const std::vector<cpu::Scalar>& k,
                    ThreadPool& pool, bool naive) {
  using P = Pick<E, G2>;
  typename P::Jac want = cpu::msm(b.data(), k.data(), b.size(), pool);
  if (naive) CHECK_MSG(cpu::msm_naive(b.data(), k.data(), b.size()) == want, P::name() << " " << what);
  const auto want_a = want.to_affine();
  struct Way {
    bool bd, kd;
    ScalarForm f;
    const char* name;
  };
  const Way ways[] = {{false, false, ScalarForm::Standard, "host/host/standard"},
                      {true, true, ScalarForm::Montgomery, "device/device/montgomery"},
                      {false, true, ScalarForm::Standard, "host/device/standard"},
                      {true, false, ScalarForm::Montgomery, "device/host/montgomery"}};
  for (auto& d : devs)
    for (auto& way : ways) {
      auto got = gpu_msm<E, G2>(gpu::DeviceId{d.ordinal}, b, k, way.bd, way.kd, way.f);
      CHECK_MSG(got.to_affine() == want_a,
                "gpu:" << d.ordinal << " " << P::name() << " " << what << " n=" << b.size() << " (" << way.name << ")");
    }
}

template <class E, bool G2>
void check_against_cpu() {
  using P = Pick<E, G2>;
  auto devs = gpus();
  ThreadPool pool(0);
  RandomSource rs(test::seed() ^ (G2 ? 0x9a9a : 0x5b5b) ^ uint64_t(E::id));
  const size_t max_n = 65539;
  typename P::Jac g = P::Jac::from_affine(P::generator());
  auto pts = walk<E, G2>(max_n, P::Cfg::mul(g, random_field<typename P::Fr>(rs)),
                         P::Cfg::mul(g, random_field<typename P::Fr>(rs)), pool);
  for (size_t n :
       {size_t(1), size_t(2), size_t(3), size_t(100), size_t(1000), size_t(4097), size_t(65539), size_t(65536)}) {
    std::vector<cpu::Scalar> k(n);
    for (auto& x : k) x = mixed_scalar<typename P::Fr>(rs);
    std::vector<typename P::Aff> b(pts.begin(), pts.begin() + n);
    if (n >= 7) {
      b[3] = P::Aff::infinity();  // zkeys carry (0,0) bases
      b[5] = b[4];                // a repeated base: same bucket twice -> doubling
      k[5] = k[4];
      b[6] = b[4].neg();  // and its negation: cancels in a bucket
      k[6] = k[4];
    }
    if (n >= 100) {  // repeated and negated bases with unrelated scalars, and a run of repeats
      for (size_t i = 10; i < 20; ++i) b[i] = b[9];
      for (size_t i = 20; i < 30; ++i) b[i] = b[9].neg();
    }
    if (n == 3) k = {{{1, 0, 0, 0}}, {{1, 0, 0, 0}}, {{2, 0, 0, 0}}};  // ones and a doubling
    check_all_ways<E, G2>(devs, "mixed", b, k, pool, n <= 100);
  }
  // Pathological shapes: all zero, all one, one scalar everywhere (every window's pairs land in
  // one bucket: the partial sums go through every level), only small scalars.
  {
    std::vector<typename P::Aff> b(pts.begin(), pts.begin() + 1000);
    std::vector<cpu::Scalar> zeros(1000), ones(1000, cpu::Scalar{{1, 0, 0, 0}});
    check_all_ways<E, G2>(devs, "all zero", b, zeros, pool, false);
    check_all_ways<E, G2>(devs, "all one", b, ones, pool, false);
  }
  {
    std::vector<cpu::Scalar> same(max_n, random_field<typename P::Fr>(rs).to_std());
    check_all_ways<E, G2>(devs, "one scalar", pts, same, pool, false);
    std::vector<cpu::Scalar> small(max_n);
    for (auto& x : small) x = {{rs.next() % 1000, 0, 0, 0}};
    check_all_ways<E, G2>(devs, "small scalars", pts, small, pool, false);
  }
  // Scalars of at most L bits: the windows stop at the longest one's bits (2^L - 1 carries a
  // Booth digit into the window above bit L - 1; 2^(L-1) is the top bit alone).
  for (unsigned L : {2u, 3u, 16u, 17u, 64u, 65u, 128u}) {
    const size_t n = 4097;
    std::vector<typename P::Aff> b(pts.begin(), pts.begin() + n);
    std::vector<cpu::Scalar> k(n), all(n);
    cpu::Scalar ones_l{}, top{};
    for (unsigned bit = 0; bit < L; ++bit) ones_l.v[bit / 64] |= uint64_t(1) << (bit % 64);
    top.v[(L - 1) / 64] = uint64_t(1) << ((L - 1) % 64);
    for (auto& x : k) {
      x = random_field<typename P::Fr>(rs).to_std();
      for (unsigned w = 0; w < 4; ++w) x.v[w] &= ones_l.v[w];
    }
    k[1] = ones_l;
    k[2] = top;
    check_all_ways<E, G2>(devs, "scalars of " + std::to_string(L) + " bits", b, k, pool, false);
    std::fill(all.begin(), all.end(), ones_l);
    check_all_ways<E, G2>(devs, "every scalar 2^" + std::to_string(L) + " - 1", b, all, pool, false);
  }
}

// n walk points with an infinity, a repeated base and its negation (3, 5, 6).
template <class E, bool G2>
std::vector<typename Pick<E, G2>::Aff> odd_bases(size_t n, RandomSource& rs, ThreadPool& pool) {
  using P = Pick<E, G2>;
  typename P::Jac g = P::Jac::from_affine(P::generator());
  auto b = walk<E, G2>(n, P::Cfg::mul(g, random_field<typename P::Fr>(rs)),
                       P::Cfg::mul(g, random_field<typename P::Fr>(rs)), pool);
  b[3] = P::Aff::infinity();
  b[5] = b[4];
  b[6] = b[4].neg();
  return b;
}

// Window widths asked for (MsmConfig::window_bits), against the CPU: narrow ones (many windows
// in one group), and wide ones the plan takes only for large calls (2^16 to 2^21 buckets a
// window: sort keys above 16 bits, a bucket reduction of several levels, one bucket of
// millions holding a few points). Mixed scalars, and scalars of one window's bits or fewer.
template <class E, bool G2>
void check_window_widths(std::initializer_list<unsigned> widths) {
  using P = Pick<E, G2>;
  auto devs = gpus();
  ThreadPool pool(0);
  RandomSource rs(test::seed() ^ 0x7e7e ^ (G2 ? 0x11 : 0) ^ uint64_t(E::id));
  const size_t n = 4097;
  const auto b = odd_bases<E, G2>(n, rs, pool);
  std::vector<cpu::Scalar> mixed(n), short_k(n);
  for (auto& x : mixed) x = mixed_scalar<typename P::Fr>(rs);
  mixed[5] = mixed[6] = mixed[4];
  const auto want = cpu::msm(b.data(), mixed.data(), n, pool).to_affine();
  for (unsigned c : widths) {
    for (auto& x : short_k) x = {{rs.next() & ((uint64_t(1) << c) - 1), 0, 0, 0}};
    short_k[0] = {{(uint64_t(1) << c) - 1, 0, 0, 0}};  // the top Booth digit carries into a second window
    const auto want_short = cpu::msm(b.data(), short_k.data(), n, pool).to_affine();
    for (auto& d : devs) {
      gpu::DeviceId dev{d.ordinal};
      gpu::MsmTimings tm;
      auto got = gpu_msm<E, G2>(dev, b, mixed, false, false, ScalarForm::Standard, &tm, c);
      CHECK_MSG(got.to_affine() == want, "gpu:" << d.ordinal << " " << P::name() << " c=" << c << " mixed");
      CHECK_EQ(tm.c, c);
      // Every set's buckets at once while they fit in 2 GiB, else batches of sets reduced in
      // turn (BLS12-381 G1 at 22 bits: 5 sets of 2^21 buckets, then 5, then 2).
      const double set_bytes = double(size_t(1) << (c - 1)) * 4 * double(sizeof(typename P::Aff) / 2);
      const unsigned sets = gpu::msm_model::windows_for(c, E::id == CurveId::bn254 ? 254 : 255);
      const bool batched = double(sets) * set_bytes > 2147483648.0;
      CHECK_MSG((tm.reductions > 1) == batched, P::name() << " c=" << c << ": " << tm.reductions << " reductions");
      // Batched here, two rooms fit the bound: every batch but the last reduced on a second stream.
      CHECK_MSG((tm.reduce_beside_ms > 0) == batched, P::name() << " c=" << c << ": " << tm.reduce_beside_ms);
      // One window a group (the pairs of one window held): batched, each set reduced alone, the
      // last window's reducing only the buckets its digits reach.
      got = gpu_msm<E, G2>(dev, b, mixed, false, false, ScalarForm::Standard, &tm, c, n);
      CHECK_MSG(got.to_affine() == want, "gpu:" << d.ordinal << " " << P::name() << " c=" << c << " a window a group");
      CHECK_EQ(tm.window_groups, tm.windows);
      CHECK_EQ(tm.reductions, batched ? tm.windows : 1u);
      CHECK_EQ(tm.reduce_beside_ms > 0, batched);
      got = gpu_msm<E, G2>(dev, b, mixed, true, true, ScalarForm::Montgomery, nullptr, c);
      CHECK_MSG(got.to_affine() == want, "gpu:" << d.ordinal << " " << P::name() << " c=" << c << " mixed (device)");
      got = gpu_msm<E, G2>(dev, b, short_k, false, true, ScalarForm::Standard, &tm, c);
      CHECK_MSG(got.to_affine() == want_short, "gpu:" << d.ordinal << " " << P::name() << " c=" << c << " short");
      CHECK_EQ(tm.windows, 2u);
    }
  }
}

// Tables for a resident key (msm_make_tables, MsmConfig::tables), against the CPU: as many
// tables as windows (one bucket set), fewer (several sets, Horner over them), the pairs held at
// once capped below one set's (a set sorted in parts, each part a bucket set of its own),
// table 0 made in place, and scalars short enough that only the first table is read.
template <class E, bool G2>
void check_tables() {
  using P = Pick<E, G2>;
  auto devs = gpus();
  ThreadPool pool(0);
  RandomSource rs(test::seed() ^ 0x7ab1e ^ (G2 ? 0x11 : 0) ^ uint64_t(E::id));
  const size_t n = 3001;
  const Group grp = G2 ? Group::G2 : Group::G1;
  const auto b = odd_bases<E, G2>(n, rs, pool);
  const auto b2 = odd_bases<E, G2>(n, rs, pool);  // a second array over the same scalars
  auto b3 = odd_bases<E, G2>(n, rs, pool);        // and a third, starting with points at infinity
  for (size_t i = 0; i < 3; ++i) b3[i] = P::Aff::infinity();
  std::vector<cpu::Scalar> k(n), short_k(n);
  for (auto& x : k) x = mixed_scalar<typename P::Fr>(rs);
  const auto want = cpu::msm(b.data(), k.data(), n, pool).to_affine();
  const auto want2 = cpu::msm(b2.data(), k.data(), n, pool).to_affine();
  const auto want3 = cpu::msm(b3.data(), k.data(), n, pool).to_affine();
  struct Case {
    unsigned c, tables;
    size_t max_pairs;
  };
  const unsigned bits = E::id == CurveId::bn254 ? 254 : 255;
  const Case cases[] = {{13, bits / 13 + 1, 0},         {13, 3, 0}, {9, 5, 0}, {16, bits / 16 + 1, 0},
                        {11, bits / 11 + 1, 2 * n + 7}, {11, 4, n}};
  for (auto& d : devs) {
    gpu::DeviceId dev{d.ordinal};
    gpu::DeviceBuffer db(dev, n * sizeof(typename P::Aff)), dk(dev, n * sizeof(cpu::Scalar));
    gpu::DeviceBuffer db2(dev, n * sizeof(typename P::Aff)), db3(dev, n * sizeof(typename P::Aff));
    gpu::copy_to_device(dev, db.memory().ptr, b.data(), n * sizeof(typename P::Aff), "test bases");
    gpu::copy_to_device(dev, db2.memory().ptr, b2.data(), n * sizeof(typename P::Aff), "test bases 2");
    gpu::copy_to_device(dev, db3.memory().ptr, b3.data(), n * sizeof(typename P::Aff), "test bases 3");
    gpu::copy_to_device(dev, dk.memory().ptr, k.data(), n * sizeof(cpu::Scalar), "test scalars");
    // Two arrays of bases in one call (one sort of the scalars), the width chosen or asked for
    // (22 bits: batches of bucket sets, each array's in two rooms, reduced beside the next).
    for (unsigned c : {0u, 9u, 22u}) {
      gpu::MsmConfig cfg = mcfg(E::id, grp, n, db.memory().ptr, true, dk.memory().ptr, true);
      cfg.window_bits = c, cfg.bases2 = db2.memory().ptr;
      gpu::DeviceBuffer w(dev, gpu::msm_workspace_bytes(dev, cfg));
      CHECK(gpu::msm_workspace_bytes(dev, cfg) > gpu::msm_workspace_bytes(dev, [&] {
              auto one = cfg;
              one.bases2 = nullptr;
              return one;
            }()));
      typename P::Jac two[2];
      gpu::msm(dev, cfg, w.memory(), two, {}, nullptr);
      CHECK_MSG(two[0].to_affine() == want && two[1].to_affine() == want2,
                "gpu:" << d.ordinal << " " << P::name() << " two arrays of bases, c " << c);
      cfg.bases3 = db3.memory().ptr;  // three
      gpu::DeviceBuffer w3(dev, gpu::msm_workspace_bytes(dev, cfg));
      CHECK(w3.memory().bytes > w.memory().bytes);
      typename P::Jac three[3];
      gpu::MsmTimings tm;
      gpu::msm(dev, cfg, w3.memory(), three, {}, &tm);
      CHECK_MSG(three[0].to_affine() == want && three[1].to_affine() == want2 && three[2].to_affine() == want3,
                "gpu:" << d.ordinal << " " << P::name() << " three arrays of bases, c " << c);
      CHECK_EQ(tm.reductions > 1, c == 22);
      CHECK_EQ(tm.reduce_beside_ms > 0, c == 22);
    }
    for (const Case& cs : cases) {
      const std::string what = std::string(P::name()) + " c=" + std::to_string(cs.c) +
                               " tables=" + std::to_string(cs.tables) + " pairs=" + std::to_string(cs.max_pairs);
      gpu::MsmConfig cfg = mcfg(E::id, grp, n, db.memory().ptr, true, dk.memory().ptr, true);
      cfg.window_bits = cs.c, cfg.tables = cs.tables, cfg.max_pairs = cs.max_pairs;
      gpu::DeviceBuffer tb(dev, gpu::msm_tables_bytes(E::id, grp, n, cs.tables));
      gpu::msm_make_tables(dev, cfg, tb.memory().ptr);
      // Table 1 is [2^c] of the bases, on the CPU too.
      std::vector<typename P::Aff> t1(n);
      gpu::copy_to_host(dev, t1.data(), static_cast<const char*>(tb.memory().ptr) + n * sizeof(typename P::Aff),
                        n * sizeof(typename P::Aff), "test table 1");
      for (size_t i : {size_t(0), size_t(3), size_t(4), size_t(6), n - 1}) {
        cpu::Scalar two_c{};
        two_c.v[cs.c / 64] = uint64_t(1) << (cs.c % 64);
        auto one = cpu::msm_naive(&b[i], &two_c, 1).to_affine();
        CHECK_MSG(t1[i] == one, what << ": table 1 point " << i);
      }
      cfg.bases = tb.memory().ptr;
      gpu::DeviceBuffer w(dev, gpu::msm_workspace_bytes(dev, cfg));
      typename P::Jac got;
      gpu::MsmTimings tm;
      gpu::msm(dev, cfg, w.memory(), &got, {}, &tm);
      CHECK_MSG(got.to_affine() == want, "gpu:" << d.ordinal << " " << what);
      CHECK_EQ(tm.c, cs.c);
      if (cs.max_pairs) CHECK_MSG(tm.window_groups > 1, what << ": groups " << tm.window_groups);
      // The same tables of a second array, summed in the same call (every group's sort shared).
      gpu::DeviceBuffer tb2(dev, gpu::msm_tables_bytes(E::id, grp, n, cs.tables));
      gpu::MsmConfig cfg2 = cfg;
      cfg2.bases = db2.memory().ptr;
      gpu::msm_make_tables(dev, cfg2, tb2.memory().ptr);
      cfg2.bases = tb.memory().ptr, cfg2.bases2 = tb2.memory().ptr;
      gpu::DeviceBuffer w2(dev, gpu::msm_workspace_bytes(dev, cfg2));
      typename P::Jac two[2];
      gpu::msm(dev, cfg2, w2.memory(), two, {}, &tm);
      CHECK_MSG(two[0].to_affine() == want && two[1].to_affine() == want2,
                "gpu:" << d.ordinal << " " << what << ", two arrays of bases");
      // And a third (its points at infinity stay at infinity in every table).
      gpu::DeviceBuffer tb3(dev, gpu::msm_tables_bytes(E::id, grp, n, cs.tables));
      gpu::MsmConfig cfg3 = cfg;
      cfg3.bases = db3.memory().ptr;
      gpu::msm_make_tables(dev, cfg3, tb3.memory().ptr);
      cfg3.bases = tb.memory().ptr, cfg3.bases2 = tb2.memory().ptr, cfg3.bases3 = tb3.memory().ptr;
      gpu::DeviceBuffer w3(dev, gpu::msm_workspace_bytes(dev, cfg3));
      typename P::Jac three[3];
      gpu::msm(dev, cfg3, w3.memory(), three, {}, &tm);
      CHECK_MSG(three[0].to_affine() == want && three[1].to_affine() == want2 && three[2].to_affine() == want3,
                "gpu:" << d.ordinal << " " << what << ", three arrays of bases");
    }
    // Table 0 in place: the bases' own buffer grown to hold the tables.
    const unsigned K = bits / 12 + 1;
    gpu::DeviceBuffer tb(dev, gpu::msm_tables_bytes(E::id, grp, n, K));
    gpu::copy_to_device(dev, tb.memory().ptr, b.data(), n * sizeof(typename P::Aff), "test bases in place");
    gpu::MsmConfig cfg = mcfg(E::id, grp, n, tb.memory().ptr, true, dk.memory().ptr, true);
    cfg.window_bits = 12, cfg.tables = K;
    gpu::msm_make_tables(dev, cfg, tb.memory().ptr);
    gpu::DeviceBuffer w(dev, gpu::msm_workspace_bytes(dev, cfg));
    typename P::Jac got;
    gpu::msm(dev, cfg, w.memory(), &got, {}, nullptr);
    CHECK_MSG(got.to_affine() == want, "gpu:" << d.ordinal << " " << P::name() << " tables in place");
    for (auto& x : short_k) x = {{rs.next() & 0x3ff, 0, 0, 0}};  // one 12-bit window
    const auto want_short = cpu::msm(b.data(), short_k.data(), n, pool).to_affine();
    gpu::copy_to_device(dev, dk.memory().ptr, short_k.data(), n * sizeof(cpu::Scalar), "test short scalars");
    gpu::msm(dev, cfg, w.memory(), &got, {}, nullptr);
    CHECK_MSG(got.to_affine() == want_short, "gpu:" << d.ordinal << " " << P::name() << " tables, short scalars");
    // Named refusals: tables without their window width, host bases with tables.
    gpu::MsmConfig bad = cfg;
    bad.window_bits = 0;
    CHECK_THROWS_WITH(gpu::msm_workspace_bytes(dev, bad), gpu::GpuError, "need the window_bits");
    bad = cfg;
    bad.bases_at = gpu::Where::Host;
    CHECK_THROWS_WITH(gpu::msm_workspace_bytes(dev, bad), gpu::GpuError, "bases must be on the device");
    bad = mcfg(E::id, grp, n, b.data(), false, dk.memory().ptr, true);
    bad.bases2 = b2.data();
    CHECK_THROWS_WITH(gpu::msm_workspace_bytes(dev, bad), gpu::GpuError, "bases2) must be on the device");
    bad = cfg;
    bad.bases3 = db3.memory().ptr;
    CHECK_THROWS_WITH(gpu::msm_workspace_bytes(dev, bad), gpu::GpuError, "needs a second (bases2)");
  }
}

}  // namespace

CUZK_TEST(gpu_msm_tables_g1) {
  check_tables<ec::Bn254, false>();
  check_tables<ec::Bls12381, false>();
}
CUZK_TEST(gpu_msm_tables_g2) {
  check_tables<ec::Bn254, true>();
  check_tables<ec::Bls12381, true>();
}

CUZK_TEST(gpu_msm_window_widths_bn254_g1) { check_window_widths<ec::Bn254, false>({2, 7, 13, 17, 20, 22}); }
CUZK_TEST(gpu_msm_window_widths_bls12_381_g1) { check_window_widths<ec::Bls12381, false>({3, 11, 16, 18, 21, 22}); }
CUZK_TEST(gpu_msm_window_widths_g2) {
  check_window_widths<ec::Bn254, true>({5, 17, 20});
  check_window_widths<ec::Bls12381, true>({9, 19, 20});
}

CUZK_TEST(gpu_msm_bn254_g1_matches_cpu) { check_against_cpu<ec::Bn254, false>(); }
CUZK_TEST(gpu_msm_bn254_g2_matches_cpu) { check_against_cpu<ec::Bn254, true>(); }
CUZK_TEST(gpu_msm_bls12_381_g1_matches_cpu) { check_against_cpu<ec::Bls12381, false>(); }
CUZK_TEST(gpu_msm_bls12_381_g2_matches_cpu) { check_against_cpu<ec::Bls12381, true>(); }

// The query covers every byte the call takes; a block one byte smaller fails with GpuError
// (from the workspace Arena), and the device is usable afterwards.
CUZK_TEST(gpu_msm_workspace_query_is_exact) {
  auto devs = gpus();
  using P = Pick<ec::Bls12381, false>;
  ThreadPool pool(0);
  RandomSource rs(test::seed() ^ 0x3131);
  typename P::Jac g = P::Jac::from_affine(P::generator());
  for (size_t n : {size_t(5), size_t(4097)}) {
    auto b = walk<ec::Bls12381, false>(n, P::Cfg::mul(g, random_field<P::Fr>(rs)),
                                       P::Cfg::mul(g, random_field<P::Fr>(rs)), pool);
    std::vector<cpu::Scalar> k(n);
    for (auto& x : k) x = random_field<P::Fr>(rs).to_std();
    auto want = cpu::msm(b.data(), k.data(), n, pool).to_affine();
    for (auto& d : devs) {
      gpu::DeviceId dev{d.ordinal};
      for (bool on_dev : {false, true}) {
        size_t ws =
            gpu::msm_workspace_bytes(dev, mcfg(CurveId::bls12_381, Group::G1, n, nullptr, on_dev, nullptr, on_dev));
        CHECK(ws > 0);
        std::optional<gpu::DeviceBuffer> db, dk;
        const void* bp = b.data();
        const void* kp = k.data();
        if (on_dev) {
          db.emplace(dev, n * sizeof(P::Aff));
          dk.emplace(dev, n * sizeof(cpu::Scalar));
          gpu::copy_to_device(dev, db->memory().ptr, b.data(), n * sizeof(P::Aff), "test bases");
          gpu::copy_to_device(dev, dk->memory().ptr, k.data(), n * sizeof(cpu::Scalar), "test scalars");
          bp = db->memory().ptr;
          kp = dk->memory().ptr;
        }
        gpu::DeviceBuffer w(dev, ws);
        P::Jac got;
        gpu::DeviceMemory small = w.memory();
        small.bytes = ws - 1;
        CHECK_THROWS_WITH(
            gpu::msm(dev, mcfg(CurveId::bls12_381, Group::G1, n, bp, on_dev, kp, on_dev, ScalarForm::Standard), small,
                     &got, {}, nullptr),
            gpu::GpuError, "workspace too small");
        gpu::msm(dev, mcfg(CurveId::bls12_381, Group::G1, n, bp, on_dev, kp, on_dev, ScalarForm::Standard), w.memory(),
                 &got, {}, nullptr);
        CHECK_MSG(got.to_affine() == want, "gpu:" << d.ordinal << " n=" << n);
      }
    }
  }
}

CUZK_TEST(gpu_msm_errors_name_the_device) {
  auto devs = gpus();
  gpu::DeviceId bad{int(devs.size()) + 7};
  const std::string name = "gpu:" + std::to_string(bad.ordinal);
  CHECK_THROWS_WITH(gpu::msm_workspace_bytes(bad, mcfg(CurveId::bn254, Group::G1, 100, nullptr, false, nullptr, false)),
                    gpu::GpuError, name);
  std::vector<ec::Bn254::G1Affine> b(100, ec::Bn254::G1Affine::infinity());
  std::vector<cpu::Scalar> k(100);
  ec::Bn254::G1Jac got;
  CHECK_THROWS_WITH(
      gpu::msm(bad, mcfg(CurveId::bn254, Group::G1, 100, b.data(), false, k.data(), false, ScalarForm::Standard),
               gpu::DeviceMemory{bad, nullptr, 1 << 20}, &got, {}, nullptr),
      gpu::GpuError, name);
  // A window width outside 2..24 is named.
  gpu::DeviceId d0{devs[0].ordinal};
  for (unsigned c : {1u, 25u})
    CHECK_THROWS_WITH(gpu::msm_workspace_bytes(d0, mcfg(CurveId::bn254, Group::G1, 100, nullptr, false, nullptr, false,
                                                        ScalarForm::Standard, c)),
                      gpu::GpuError, "window_bits = " + std::to_string(c) + " is outside 2..24");
  // More pairs than a group's 32-bit counts hold is named.
  gpu::MsmConfig many = mcfg(CurveId::bn254, Group::G1, 100, nullptr, false, nullptr, false);
  many.max_pairs = (size_t(1) << 31) + 1;
  CHECK_THROWS_WITH(gpu::msm_workspace_bytes(d0, many), gpu::GpuError, "max_pairs = 2147483649 exceeds 2^31");
  // A workspace on another device than the one asked for is refused, naming both.
  if (devs.size() >= 2) {
    gpu::DeviceId d0{devs[0].ordinal}, d1{devs[1].ordinal};
    gpu::DeviceBuffer w(
        d0, gpu::msm_workspace_bytes(d0, mcfg(CurveId::bn254, Group::G1, 100, nullptr, false, nullptr, false)));
    CHECK_THROWS_WITH(
        gpu::msm(d1, mcfg(CurveId::bn254, Group::G1, 100, b.data(), false, k.data(), false, ScalarForm::Standard),
                 w.memory(), &got, {}, nullptr),
        gpu::GpuError, d1.name());
  }
}

// The call runs on the device it is given and leaves the caller's current device alone.
CUZK_TEST(gpu_msm_restores_the_current_device) {
  auto devs = gpus();
  gpu::DeviceId before = gpu::detail::current_device();
  using P = Pick<ec::Bn254, false>;
  RandomSource rs(test::seed() ^ 0x4141);
  ThreadPool pool(0);
  typename P::Jac g = P::Jac::from_affine(P::generator());
  auto b = walk<ec::Bn254, false>(300, P::Cfg::mul(g, random_field<P::Fr>(rs)), g, pool);
  std::vector<cpu::Scalar> k(300);
  for (auto& x : k) x = random_field<P::Fr>(rs).to_std();
  auto want = cpu::msm(b.data(), k.data(), 300, pool).to_affine();
  for (auto it = devs.rbegin(); it != devs.rend(); ++it) {
    P::Jac got;
    gpu::msm_host(gpu::DeviceId{it->ordinal}, CurveId::bn254, Group::G1, 300, b.data(), k.data(), ScalarForm::Standard,
                  &got);
    CHECK_MSG(got.to_affine() == want, "gpu:" << it->ordinal);
    CHECK_EQ(gpu::detail::current_device().ordinal, before.ordinal);
  }
}

// ------------------------------------------------------------------ timing (opt-in)
namespace {

// sum_i k_i (p0 + i s) = (sum k_i) p0 + (sum i k_i) s: an exact check of a large MSM whose bases
// are a walk, at the cost of two scalar multiplications.
template <class E, bool G2>
void bench_one(const cuda::DeviceInfo& d, int log_n, ThreadPool& pool, RandomSource& rs) {
  using P = Pick<E, G2>;
  using Fr = typename P::Fr;
  const size_t n = size_t(1) << log_n;
  gpu::DeviceId dev{d.ordinal};
  typename P::Jac g = P::Jac::from_affine(P::generator());
  Fr a = random_field<Fr>(rs), st = random_field<Fr>(rs);
  typename P::Jac p0 = P::Cfg::mul(g, a), step = P::Cfg::mul(g, st);
  auto b = walk<E, G2>(n, p0, step, pool);
  std::vector<cpu::Scalar> k(n);
  for (auto& x : k) x = random_field<Fr>(rs).to_std();
  Fr s0 = Fr::zero(), s1 = Fr::zero();
  for (size_t i = 0; i < n; ++i) {
    Fr ki = Fr::from_std(k[i]);
    s0 += ki;
    s1 += ki * Fr::from_u64(i);
  }
  auto want = (P::Cfg::mul(p0, s0) + P::Cfg::mul(step, s1)).to_affine();
  auto km = to_montgomery<Fr>(k);
  const Group grp = G2 ? Group::G2 : Group::G1;
  gpu::DeviceBuffer db(dev, n * sizeof(typename P::Aff)), dk(dev, n * sizeof(cpu::Scalar));
  gpu::copy_to_device(dev, db.memory().ptr, b.data(), n * sizeof(typename P::Aff), "bench bases");
  gpu::copy_to_device(dev, dk.memory().ptr, km.data(), n * sizeof(cpu::Scalar), "bench scalars");
  size_t ws = gpu::msm_workspace_bytes(dev, mcfg(E::id, grp, n, nullptr, true, nullptr, true));
  gpu::DeviceBuffer w(dev, ws);
  std::vector<gpu::MsmTimings> runs;
  for (int r = 0; r < 6; ++r) {  // the first is a warm-up
    typename P::Jac got;
    gpu::MsmTimings tm;
    gpu::msm(dev, mcfg(E::id, grp, n, db.memory().ptr, true, dk.memory().ptr, true, ScalarForm::Montgomery), w.memory(),
             &got, {}, &tm);
    CHECK_MSG(got.to_affine() == want, "gpu:" << d.ordinal << " " << P::name() << " 2^" << log_n);
    if (r > 0) runs.push_back(tm);
  }
  std::sort(runs.begin(), runs.end(), [](auto& x, auto& y) { return x.total_ms < y.total_ms; });
  const auto& m = runs[runs.size() / 2];
  std::printf(
      "  gpu:%d %-13s 2^%d  total %8.2f ms  (prepare %.2f, sort %.2f, accumulate %.2f, reduce %.2f)"
      "  c=%u windows=%u groups=%u  workspace %.0f MiB\n",
      d.ordinal, P::name(), log_n, m.total_ms, m.prepare_ms, m.sort_ms, m.accumulate_ms, m.reduce_ms, m.c, m.windows,
      m.window_groups, double(ws) / (1 << 20));
  std::fflush(stdout);
}

}  // namespace

CUZK_TEST(bench_gpu_msm) {
  test::mark_gpu_case();  // skipped below unless asked for: a GPU case all the same
  const char* env = std::getenv("CUZK_MSM_BENCH");
  if (!env) SKIP("set CUZK_MSM_BENCH=1 (or the largest log2 size) to time the GPU MSM");
  int max_log = std::atoi(env) > 1 ? std::atoi(env) : 24;
  auto devs = gpus();
  ThreadPool pool(0);
  RandomSource rs(test::seed() ^ 0xbe9c);
  const auto& d = devs[0];
  for (int lg : {16, 20, 22, 24}) {
    if (lg > max_log) break;
    bench_one<ec::Bn254, false>(d, lg, pool, rs);
    bench_one<ec::Bls12381, false>(d, lg, pool, rs);
  }
  for (int lg : {16, 20, 22}) {
    if (lg > max_log) break;
    bench_one<ec::Bn254, true>(d, lg, pool, rs);
    bench_one<ec::Bls12381, true>(d, lg, pool, rs);
  }
}
