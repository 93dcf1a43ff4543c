// SPDX-License-Identifier: MIT OR Apache-2.0
// CPU NTT and MSM against naive references on random inputs.
#include <vector>

#include "backend/cpu/msm.hpp"
#include "backend/cpu/ntt.hpp"
#include "backend/cuda/msm.hpp"
#include "ec/curves.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;

namespace {

template <class Fr>
std::vector<Fr> random_vec(RandomSource& rs, size_t n) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = random_field<Fr>(rs);
  return v;
}

// p(x) at x by Horner.
template <class Fr>
Fr eval_poly(const std::vector<Fr>& c, const Fr& x) {
  Fr acc = Fr::zero();
  for (size_t i = c.size(); i-- > 0;) acc = acc * x + c[i];
  return acc;
}

template <class Fr>
void check_roots() {
  constexpr int s = Fr::Params::two_adicity;
  for (int k : {1, 2, 5, 10, 20, s}) {
    Fr w = cpu::root_of_unity<Fr>(k);
    Fr x = w;
    for (int i = 1; i < k; ++i) x = x.sqr();
    CHECK_MSG(x == -Fr::one(), "w_{2^" << k << "}^(2^(k-1)) != -1");
    CHECK(x.sqr() == Fr::one());
  }
  CHECK_THROWS_WITH(cpu::root_of_unity<Fr>(s + 1), Error, "root of unity");
  // snarkjs's choice: the 2^s-th root is 5^t, t = (r-1)/2^s.
  ff::Limbs<Fr::N> t = Fr::K.p;
  t.v[0] -= 1;
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < Fr::N; ++j) t.v[j] = (t.v[j] >> 1) | (j + 1 < Fr::N ? t.v[j + 1] << 63 : 0);
  CHECK(cpu::root_of_unity<Fr>(s) == Fr::from_u64(5).pow(t));
}

template <class Fr>
void check_ntt_vs_naive(ThreadPool& pool) {
  RandomSource rs(test::seed() ^ 0x1111);
  for (int log_n = 0; log_n <= 9; ++log_n) {
    auto dom = cpu::Domain<Fr>::make(log_n);
    auto coeffs = random_vec<Fr>(rs, dom.n);
    auto v = coeffs;
    cpu::ntt(v.data(), dom, false, pool);
    Fr x = Fr::one();
    for (size_t i = 0; i < dom.n; ++i) {
      CHECK_MSG(v[i] == eval_poly(coeffs, x), "forward NTT 2^" << log_n << " index " << i);
      x = x * dom.omega;
    }
    cpu::ntt(v.data(), dom, true, pool);
    for (size_t i = 0; i < dom.n; ++i) CHECK_MSG(v[i] == coeffs[i], "inverse NTT 2^" << log_n << " index " << i);
  }
  // A polynomial whose degree is not a power of two minus one, padded: its evaluations on a
  // coset g<w> equal direct evaluation.
  for (size_t deg : {size_t(2), size_t(37), size_t(300)}) {
    int log_n = 0;
    while ((size_t(1) << log_n) < deg + 1) ++log_n;
    auto dom = cpu::Domain<Fr>::make(log_n);
    auto coeffs = random_vec<Fr>(rs, deg + 1);
    std::vector<Fr> v(dom.n, Fr::zero());
    std::copy(coeffs.begin(), coeffs.end(), v.begin());
    Fr g = cpu::root_of_unity<Fr>(log_n + 1);
    cpu::scale_by_powers(v.data(), dom.n, g, pool);
    cpu::ntt(v.data(), dom, false, pool);
    Fr x = g;
    for (size_t i = 0; i < dom.n; ++i) {
      CHECK_MSG(v[i] == eval_poly(coeffs, x), "coset NTT degree " << deg << " index " << i);
      x = x * dom.omega;
    }
  }
}

template <class Fr>
void check_ntt_roundtrip_large(ThreadPool& pool) {
  RandomSource rs(test::seed() ^ 0x2222);
  auto dom = cpu::Domain<Fr>::make(14);
  auto a = random_vec<Fr>(rs, dom.n);
  auto v = a;
  cpu::ntt(v.data(), dom, false, pool);
  // Spot-check three evaluations directly.
  for (size_t i : {size_t(0), size_t(1), dom.n - 1}) CHECK(v[i] == eval_poly(a, dom.omega.pow_u64(i)));
  cpu::ntt(v.data(), dom, true, pool);
  CHECK(v == a);
}

// n random points [k]G of the group (G2 or G1 of E), made cheaply as a random walk from a random
// multiple.
template <class E, bool G2>
auto random_walk_points(RandomSource& rs, size_t n) {
  using Cfg = std::conditional_t<G2, typename E::G2, typename E::G1>;
  using F = typename Cfg::F;
  using Aff = ec::Affine<F>;
  using Jac = ec::Jacobian<F>;
  using Fr = typename E::Fr;
  Aff gen;
  if constexpr (G2)
    gen = std::conditional_t<E::id == CurveId::bn254, ec::Bn254G2Cfg, ec::Bls12381G2Cfg>::generator();
  else
    gen = std::conditional_t<E::id == CurveId::bn254, ec::Bn254G1Cfg, ec::Bls12381G1Cfg>::generator();
  std::vector<Aff> pts(n);
  Jac p = Cfg::mul(Jac::from_affine(gen), random_field<Fr>(rs));
  const Jac step = Cfg::mul(Jac::from_affine(gen), random_field<Fr>(rs));
  for (auto& q : pts) {
    q = p.to_affine();
    p = p + step;
  }
  return pts;
}

template <class E, bool G2>
void check_msm_sizes(ThreadPool& pool) {
  using Cfg = std::conditional_t<G2, typename E::G2, typename E::G1>;
  using F = typename Cfg::F;
  using Aff = ec::Affine<F>;
  using Jac = ec::Jacobian<F>;
  using Fr = typename E::Fr;
  RandomSource rs(test::seed() ^ (G2 ? 0x4444 : 0x5555) ^ uint64_t(E::id));
  const size_t max_n = G2 ? 300 : 1537;
  const std::vector<Aff> pts = random_walk_points<E, G2>(rs, max_n);
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(7), size_t(100), max_n}) {
    std::vector<cpu::Scalar> k(n);
    for (size_t i = 0; i < n; ++i) {
      uint64_t sel = rs.next() % 8;
      if (sel == 0)
        k[i] = {};  // zero
      else if (sel == 1)
        k[i] = {{1, 0, 0, 0}};  // one
      else if (sel == 2) {      // r - 1, the largest scalar
        k[i] = Fr::K.p;
        k[i].v[0] -= 1;
      } else
        k[i] = random_field<Fr>(rs).to_std();
    }
    std::vector<Aff> b(pts.begin(), pts.begin() + n);
    if (n >= 7) {
      b[3] = Aff::infinity();  // zkeys carry (0,0) bases
      b[5] = b[4];             // a repeated base: same bucket twice -> doubling
      k[5] = k[4];
      b[6] = b[4].neg();  // and its negation: cancels in a bucket
      k[6] = k[4];
    }
    Jac want = cpu::msm_naive(b.data(), k.data(), n);
    Jac got = cpu::msm(b.data(), k.data(), n, pool);
    CHECK_MSG(got == want, (G2 ? "G2" : "G1") << " " << curve_name(E::id) << " msm n=" << n);
  }
  // All scalars zero, or all one.
  std::vector<cpu::Scalar> zeros(50), ones(50, cpu::Scalar{{1, 0, 0, 0}});
  CHECK(cpu::msm(pts.data(), zeros.data(), 50, pool).is_inf());
  CHECK(cpu::msm(pts.data(), ones.data(), 50, pool) == cpu::msm_naive(pts.data(), ones.data(), 50));
}

// Batch-affine buckets under conflicts: many points of one bucket in a batch (a repeated
// scalar, its negation, repeated bases), tiny windows (4 buckets: nearly every addition meets a
// pending one) and the planned window: every result equals the naive sum.
template <class E, bool G2>
void check_msm_conflicts(ThreadPool& pool, size_t n) {
  using Cfg = std::conditional_t<G2, typename E::G2, typename E::G1>;
  using F = typename Cfg::F;
  using Aff = ec::Affine<F>;
  using Jac = ec::Jacobian<F>;
  using Fr = typename E::Fr;
  RandomSource rs(test::seed() ^ (G2 ? 0x7777 : 0x8888) ^ uint64_t(E::id));
  std::vector<Aff> b = random_walk_points<E, G2>(rs, n);
  const Fr v = random_field<Fr>(rs);
  std::vector<cpu::Scalar> k(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t sel = rs.next() % 10;
    k[i] = sel < 4 ? v.to_std() : sel < 6 ? (-v).to_std() : random_field<Fr>(rs).to_std();
    if (sel == 9 && i > 0) b[i] = b[i - 1];        // the same base twice in a row
    if (sel == 8 && i > 0) b[i] = b[i - 1].neg();  // and its negation
  }
  const Jac want = cpu::msm_naive(b.data(), k.data(), n);
  for (unsigned c : {3u, 6u, 0u}) {
    const Jac got = cpu::msm(b.data(), k.data(), n, pool, c);
    CHECK_MSG(got == want, (G2 ? "G2" : "G1") << " " << curve_name(E::id) << " n=" << n << " c=" << c);
  }
}

// Scalars of at most L bits: the windows stop at the longest one's bits. All ones (2^L - 1)
// carries a Booth digit into the window above bit L - 1; 2^(L-1) is the top bit alone.
template <class E>
void check_msm_short_scalars(ThreadPool& pool) {
  using Aff = ec::Affine<typename E::G1::F>;
  using Jac = ec::Jacobian<typename E::G1::F>;
  using Fr = typename E::Fr;
  RandomSource rs(test::seed() ^ 0x9999 ^ uint64_t(E::id));
  const size_t n = 700;
  const std::vector<Aff> b = random_walk_points<E, false>(rs, n);
  for (unsigned L : {2u, 3u, 5u, 6u, 7u, 8u, 9u, 16u, 17u, 63u, 64u, 65u, 128u, 200u}) {
    std::vector<cpu::Scalar> k(n);
    for (size_t i = 0; i < n; ++i) {
      k[i] = random_field<Fr>(rs).to_std();
      for (unsigned w = 0; w < 4; ++w) {
        const unsigned lo = 64 * w;
        k[i].v[w] &= L >= lo + 64 ? ~uint64_t(0) : L <= lo ? 0 : (uint64_t(1) << (L - lo)) - 1;
      }
    }
    cpu::Scalar all{}, top{};
    for (unsigned bit = 0; bit < L; ++bit) all.v[bit / 64] |= uint64_t(1) << (bit % 64);
    top.v[(L - 1) / 64] = uint64_t(1) << ((L - 1) % 64);
    k[1] = all;
    k[2] = top;
    k[3] = {{1, 0, 0, 0}};
    k[4] = {};
    const Jac want = cpu::msm_naive(b.data(), k.data(), n);
    for (unsigned c : {0u, 3u, 6u, 8u}) {
      const Jac got = cpu::msm(b.data(), k.data(), n, pool, c);
      CHECK_MSG(got == want, curve_name(E::id) << " scalars of " << L << " bits, c=" << c);
    }
    // Only the carry: every general scalar 2^L - 1.
    std::vector<cpu::Scalar> same(n, all);
    CHECK_MSG(cpu::msm(b.data(), same.data(), n, pool) == cpu::msm_naive(b.data(), same.data(), n),
              curve_name(E::id) << " every scalar 2^" << L << " - 1");
  }
}

}  // namespace

CUZK_TEST(msm_short_scalars_walk_their_windows_only) {
  ThreadPool pool(2);
  check_msm_short_scalars<ec::Bn254>(pool);
  check_msm_short_scalars<ec::Bls12381>(pool);
}

CUZK_TEST(msm_batch_affine_conflicts) {
  ThreadPool pool(3);
  check_msm_conflicts<ec::Bn254, false>(pool, 2000);
  check_msm_conflicts<ec::Bls12381, false>(pool, 2000);
  check_msm_conflicts<ec::Bn254, true>(pool, 300);
  check_msm_conflicts<ec::Bls12381, true>(pool, 300);
}

// The GPU MSM's window plan (backend/cuda/msm.hpp, host code: checked without a GPU). Wide windows
// where the bucket reduction amortises (16 at 2^20, 20 at 2^24 for BLS12-381 G1, 22 from 2^26:
// 2^26 measured 451.6 ms at 20 bits, 447.2 at 22); the buckets held at once stay within a quarter
// of the bases or 2 GiB: every set when they fit, else one group's (at 2^27 one window a group,
// one set of 2^21 buckets); the table plan stays within its tables' count and bytes, and takes
// none where none pays.
CUZK_TEST(gpu_msm_window_plan) {
  using gpu::msm_model::CostModel;
  const auto bls_g1 = [](size_t n) { return CostModel::for_field(48, n); };
  CHECK_EQ(bls_g1(size_t(1) << 20).choose(size_t(1) << 20, 255), 16u);
  CHECK_EQ(bls_g1(size_t(1) << 24).choose(size_t(1) << 24, 255), 20u);
  CHECK_EQ(bls_g1(size_t(1) << 26).choose(size_t(1) << 26, 255), 22u);
  CHECK_EQ(bls_g1(size_t(1) << 27).choose(size_t(1) << 27, 255), 22u);
  CHECK_EQ(bls_g1(size_t(1) << 24).held_sets(20, 255), 13u);  // every set: 1.3 GB of 2 GiB
  CHECK_EQ(bls_g1(size_t(1) << 27).held_sets(20, 255), 13u);
  CHECK_EQ(bls_g1(size_t(1) << 27).held_sets(22, 255), 1u);        // 12 sets would be 4.8 GB of 3.2
  CHECK_EQ(bls_g1(size_t(1) << 26).held_sets(22, 255), 2u);        // two windows a group
  CHECK_EQ(bls_g1(size_t(1) << 27).held_sets(22, 255, 1, 4), 4u);  // a larger pairs buffer: as many as fit
  // Batched: two rooms (a batch reduced beside the next), each within half the bound.
  CHECK_EQ(bls_g1(size_t(1) << 27).rooms_for(22, 255).rooms, 2u);
  CHECK_EQ(bls_g1(size_t(1) << 27).rooms_for(22, 255).sets, 1u);
  CHECK_EQ(bls_g1(size_t(1) << 27).rooms_for(22, 255, 1, 12).sets, 4u);  // 8 fit the bound, 4 half of it
  CHECK_EQ(bls_g1(size_t(1) << 24).rooms_for(20, 255).rooms, 1u);        // every set held: one room
  CHECK_EQ(bls_g1(size_t(1) << 24).rooms_for(20, 255).sets, 13u);
  CHECK_EQ(CostModel::for_field(96, size_t(1) << 16).rooms_for(22, 255).rooms, 2u);  // 2 x 0.8 GB of 2 GiB
  CHECK_EQ(CostModel::for_field(96, size_t(1) << 16).rooms_for(24, 255).rooms, 1u);  // asked for, over the bound
  // The buckets carved at 2^27: the 22-bit rooms, or the 13 sets of 20 bits a call with fewer
  // general scalars chooses (more). Laid out, 20 bits hold every set in one room (no batch), 22
  // bits one set in each of two rooms.
  const auto m27 = bls_g1(size_t(1) << 27);
  const size_t total = m27.buckets_for(22, 255, 1, 1, false);
  CHECK_EQ(total, size_t(13) << 19);
  CHECK_EQ(m27.buckets_for(22, 255, 1, 1, true), size_t(2) << 21);  // a width asked for: its rooms alone
  CHECK_EQ(m27.layout(20, 255, 1, 1, total).rooms, 1u);
  CHECK_EQ(m27.layout(20, 255, 1, 1, total).sets, 13u);
  CHECK_EQ(m27.layout(22, 255, 1, 1, total).rooms, 2u);
  CHECK_EQ(m27.layout(22, 255, 1, 1, total).sets, 1u);
  CHECK_EQ(m27.layout(24, 255, 1, 1, total).rooms, 1u);             // half holds no 2^23-bucket set
  CHECK(!CostModel::for_field(96, size_t(1) << 16).fits(24, 255));  // one G2 set of 2^23 buckets > 2 GiB
  CHECK(CostModel::for_field(96, size_t(1) << 16).fits(22, 255));
  CHECK(CostModel::for_field(32, 1 << 12).choose(1 << 12, 254) < 16);
  for (unsigned lg = 10; lg <= 28; ++lg)
    for (size_t field : {32, 48, 64, 96}) {
      const size_t n = size_t(1) << lg;
      const auto cm = CostModel::for_field(field, n);
      const unsigned c = cm.choose(n, 255);
      const size_t held = cm.held_sets(c, 255);
      CHECK_MSG(held >= 1 && held <= gpu::msm_model::windows_for(c, 255), "2^" << lg << " field " << field);
      const auto rooms = cm.rooms_for(c, 255);
      CHECK_MSG(rooms.sets >= 1 && rooms.sets <= held, "2^" << lg << " field " << field);
      const double bytes = double(rooms.rooms * rooms.sets) * double(size_t(1) << (c - 1)) * 4 * double(field);
      CHECK_MSG(c <= 16 || bytes <= std::max(double(n) * 2 * double(field) / 4, 2147483648.0),
                "2^" << lg << " field " << field << " c=" << c);
    }
  // Short scalars walk fewer windows: a byte-sized witness never needs more than 16-bit windows.
  CHECK(bls_g1(size_t(1) << 24).choose(size_t(1) << 24, 8) <= 16);
  for (auto [curve, group] : {std::pair{CurveId::bn254, gpu::Group::G1}, std::pair{CurveId::bls12_381, gpu::Group::G1},
                              std::pair{CurveId::bls12_381, gpu::Group::G2}})
    for (unsigned lg : {10u, 16u, 20u, 22u, 24u, 26u}) {
      const size_t n = size_t(1) << lg;
      for (unsigned max_t : {0u, 1u, 4u, 24u}) {
        auto tp = gpu::msm_table_plan(curve, group, n, max_t);
        CHECK_MSG(tp.tables >= 1 && tp.tables <= std::max(1u, max_t), "2^" << lg << " max " << max_t);
        if (tp.tables == 1) {
          CHECK_EQ(tp.window_bits, 0u);
          continue;
        }
        CHECK_MSG(gpu::msm_tables_bytes(curve, group, n, tp.tables) <= gpu::kMsmTablesReach, "2^" << lg);
        CHECK(tp.tables <= gpu::msm_model::windows_for(tp.window_bits, 255));
        CHECK_MSG(size_t(tp.tables) * n <= gpu::msm_model::kMaxPairs, "2^" << lg << ": a table set sorts in one group");
        CHECK(tp.window_bits >= 2 && tp.window_bits <= 24);
      }
    }
  // BLS12-381 G1 at 2^20: 13 tables of 20-bit windows (1.2 GiB) replace 16 windows of 16 bits.
  auto tp = gpu::msm_table_plan(CurveId::bls12_381, gpu::Group::G1, size_t(1) << 20, 24);
  CHECK_EQ(tp.window_bits, 20u);
  CHECK_EQ(tp.tables, 13u);
  CHECK_EQ(gpu::msm_table_plan(CurveId::bls12_381, gpu::Group::G1, size_t(1) << 20, 24, size_t(1) << 20).tables, 1u);
  // At 2^24 a group sorts 8 windows' pairs: 8 tables of 22-bit windows, two bucket sets.
  tp = gpu::msm_table_plan(CurveId::bls12_381, gpu::Group::G1, size_t(1) << 24, 24);
  CHECK_EQ(tp.window_bits, 22u);
  CHECK_EQ(tp.tables, 8u);
}

CUZK_TEST(roots_of_unity_match_snarkjs_definition) {
  check_roots<ff::Bn254Fr>();
  check_roots<ff::Bls12381Fr>();
}

CUZK_TEST(ntt_matches_naive_evaluation) {
  ThreadPool pool(3);
  check_ntt_vs_naive<ff::Bn254Fr>(pool);
  check_ntt_vs_naive<ff::Bls12381Fr>(pool);
}

CUZK_TEST(ntt_roundtrip_2_14) {
  ThreadPool pool(0);
  check_ntt_roundtrip_large<ff::Bn254Fr>(pool);
  check_ntt_roundtrip_large<ff::Bls12381Fr>(pool);
}

CUZK_TEST(booth_digits_recompose_scalar) {
  RandomSource rs(test::seed() ^ 0x6666);
  for (unsigned c : {2u, 5u, 12u, 16u, 20u}) {
    unsigned W = (255 + c) / c;
    for (int t = 0; t < 200; ++t) {
      auto k = random_field<ff::Bn254Fr>(rs).to_std();
      if (t == 0) {
        k = ff::Bls12381Fr::K.p;
        k.v[0] -= 1;
      }
      // sum d_w 2^(wc) as a field element must equal k mod r (k < r for both r here)
      ff::Bls12381Fr acc = ff::Bls12381Fr::zero(), pw = ff::Bls12381Fr::one();
      ff::Bls12381Fr two_c = ff::Bls12381Fr::from_u64(1ull << c);
      for (unsigned w = 0; w < W; ++w) {
        int32_t d = cpu::signed_digit(k, w, c);
        CHECK(d >= -(1 << (c - 1)) && d <= (1 << (c - 1)));
        ff::Bls12381Fr dv = ff::Bls12381Fr::from_u64(uint64_t(d < 0 ? -d : d));
        acc += (d < 0 ? -dv : dv) * pw;
        pw = pw * two_c;
      }
      CHECK_MSG(acc == ff::Bls12381Fr::from_std(k), "c=" << c);
    }
  }
}

CUZK_TEST(msm_g1_bn254_matches_naive) {
  ThreadPool pool(3);
  check_msm_sizes<ec::Bn254, false>(pool);
}
CUZK_TEST(msm_g1_bls12_381_matches_naive) {
  ThreadPool pool(2);
  check_msm_sizes<ec::Bls12381, false>(pool);
}
CUZK_TEST(msm_g2_bn254_matches_naive) {
  ThreadPool pool(1);
  check_msm_sizes<ec::Bn254, true>(pool);
}
CUZK_TEST(msm_g2_bls12_381_matches_naive) {
  ThreadPool pool(4);
  check_msm_sizes<ec::Bls12381, true>(pool);
}
