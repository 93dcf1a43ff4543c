// SPDX-License-Identifier: MIT OR Apache-2.0
// The insecure setup and the synthetic circuits: generated witnesses satisfy every constraint,
// the fixed-base table equals double-and-add, keys from the setup prove and verify (and a
// changed public input does not), the .zkey writer round-trips through the reader, and the
// .r1cs/.wtns writers give files the readers accept with the same rows. (snarkjs judges the
// keys in tests/snarkjs/run-setup.sh.)
#include <cstring>
#include <filesystem>

#include "backend/cpu/device.hpp"
#include "ec/curves.hpp"
#include "groth16/key.hpp"
#include "groth16/self_verify.hpp"
#include "groth16/sequence.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "setup/setup.hpp"
#include "setup/synthetic.hpp"
#include "setup/write.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::setup;

namespace {

bool same_scalars(const std::vector<cpu::Scalar>& x, const std::vector<cpu::Scalar>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(cpu::Scalar)) == 0;
}

template <class Fr>
bool satisfied(const r1cs::RowSource<Fr>& src, const std::vector<cpu::Scalar>& w, size_t* bad_row = nullptr) {
  ThreadPool pool(2);
  const size_t bad = r1cs::first_unsatisfied<Fr>(src, w.data(), pool);
  if (bad_row) *bad_row = bad;
  return bad == SIZE_MAX;
}

template <class E>
void synthetic_witnesses(Shape shape) {
  using Fr = typename E::Fr;
  ThreadPool pool(2);
  for (int log_n : {9, 12, 14}) {
    SyntheticSpec spec;
    spec.shape = shape;
    spec.log_n = log_n;
    spec.seed = test::seed() + log_n;
    SyntheticCircuit<Fr> c(spec);
    auto src = c.source();
    CHECK_EQ(src.n_rows + spec.n_public + 1, size_t(1) << log_n);
    for (uint64_t p : {0ull, 1ull, 7ull}) {
      auto w = c.witness(p, pool);
      CHECK_EQ(w.size(), size_t(src.n_wires));
      size_t bad = 0;
      CHECK_MSG(satisfied(src, w, &bad), shape_name(shape) << " 2^" << log_n << " partition " << p << " row " << bad);
      // A changed internal value breaks some constraint (the check can fail).
      auto w2 = w;
      w2[src.n_wires - 1].v[0] ^= 2;
      CHECK(!satisfied(src, w2));
    }
    // Partitions differ.
    CHECK(!same_scalars(c.witness(0, pool), c.witness(1, pool)));
    if (shape == Shape::Porep && log_n == 14) {
      size_t bits = 0, nnz = 0;
      auto w = c.witness(3, pool);
      for (auto& x : w) bits += (x.v[0] <= 1 && !(x.v[1] | x.v[2] | x.v[3]));
      r1cs::Row<Fr> row;
      for (size_t i = 0; i < src.n_rows; ++i) src.row(i, row), nnz += row.a.size() + row.b.size() + row.c.size();
      const double per_row = double(nnz) / double(src.n_rows), frac = double(bits) / double(w.size());
      CHECK_MSG(per_row > 5.0 && per_row < 6.0, per_row);
      CHECK_MSG(frac > 0.7, frac);
    }
  }
}

CUZK_TEST(synthetic_porep_witnesses_satisfy_bn254) { synthetic_witnesses<ec::Bn254>(Shape::Porep); }
CUZK_TEST(synthetic_porep_witnesses_satisfy_bls12_381) { synthetic_witnesses<ec::Bls12381>(Shape::Porep); }
CUZK_TEST(synthetic_dense_witnesses_satisfy_bn254) { synthetic_witnesses<ec::Bn254>(Shape::Dense); }
CUZK_TEST(synthetic_dense_witnesses_satisfy_bls12_381) { synthetic_witnesses<ec::Bls12381>(Shape::Dense); }

CUZK_TEST(synthetic_spec_errors) {
  SyntheticSpec s;
  s.log_n = 1;
  CHECK_THROWS_WITH(SyntheticCircuit<ff::Bn254Fr>(s), InvalidArgument, "out of range");
  s.log_n = 8;
  s.n_inputs = 300;
  CHECK_THROWS_WITH(SyntheticCircuit<ff::Bn254Fr>(s), InvalidArgument, "too small");
  CHECK_THROWS_WITH(parse_shape("sha"), InvalidArgument, "unknown circuit shape");
}

// The table's width follows the count it is made for (`hint`): every width gives the points of
// double-and-add, for scalars whose signed digits are all of one sign, of both, and the largest.
template <class Curve, class Fr>
void fixed_base_matches(size_t hint, unsigned want_c) {
  ThreadPool pool(2);
  RandomSource rs(test::seed() ^ hint);
  auto g = cpu::generator<Curve>();
  cpu::FixedBaseTable<Curve> t(g, hint, pool);
  CHECK_EQ(t.window_bits(), want_c);
  std::vector<cpu::Scalar> k;
  k.push_back(cpu::Scalar{{0, 0, 0, 0}});
  k.push_back(cpu::Scalar{{1, 0, 0, 0}});
  k.push_back((-Fr::one()).to_std());
  k.push_back((-Fr::from_u64(2)).to_std());
  k.push_back(cpu::Scalar{{~0ull, ~0ull, ~0ull, 0}});  // every digit's top bit set
  k.push_back(
      cpu::Scalar{{0x5555555555555555ull, 0x5555555555555555ull, 0x5555555555555555ull, 0x1555555555555555ull}});
  for (int i = 0; i < 40; ++i) k.push_back(random_field<Fr>(rs).to_std());
  // The additions whose x coordinates are equal. k = r: the top window's entry cancels the sum
  // of the windows below (the product is the infinity). k = 2 d 2^top - r with d = r / 2^top
  // rounded: the windows below sum to d 2^top - r, which is the top entry's point again (a
  // doubling). Integers of 256 bits, limbs little-endian.
  const auto r = Fr::K.p;
  k.push_back(cpu::Scalar{{r.v[0], r.v[1], r.v[2], r.v[3]}});
  const unsigned c = t.window_bits(), top = c * (255 / c);
  auto bit = [&](unsigned b) { return (r.v[b / 64] >> (b % 64)) & 1; };
  uint64_t d = 0;
  for (unsigned b = 255; b >= top && b < 256; --b) d = d << 1 | bit(b);
  if (top > 0 && bit(top - 1)) ++d;  // rounded
  size_t doublings = 0;
  for (uint64_t dd : {d, d + 1, d - 1}) {
    if (dd == 0 || dd > (uint64_t(1) << (c - 1))) continue;
    const unsigned sh = top + 1;  // 2 dd 2^top = dd 2^sh
    if (sh >= 256) continue;
    uint64_t x[4] = {0, 0, 0, 0};
    x[sh / 64] = dd << (sh % 64);
    if (sh % 64 && sh / 64 + 1 < 4) x[sh / 64 + 1] = dd >> (64 - sh % 64);
    uint64_t borrow = 0;  // x - r
    for (int l = 0; l < 4; ++l) {
      const unsigned __int128 v = (unsigned __int128)x[l] - r.v[l] - borrow;
      x[l] = uint64_t(v);
      borrow = uint64_t(v >> 64) & 1;
    }
    if (!borrow) k.push_back(cpu::Scalar{{x[0], x[1], x[2], x[3]}}), ++doublings;
  }
  CHECK(doublings > 0);  // the doubling case is among the scalars, not skipped
  std::vector<typename Curve::Aff> out(k.size());
  t.mul(k.data(), k.size(), out.data(), pool);
  for (size_t i = 0; i < k.size(); ++i) {
    auto want = Curve::mul(Curve::Jac::from_affine(g), k[i].v).to_affine();
    CHECK_MSG(out[i].x == want.x && out[i].y == want.y, "scalar " << i << ", " << want_c << "-bit windows");
  }
  CHECK(out[0].is_inf());
}

CUZK_TEST(fixed_base_table_matches_double_and_add) {
  using T1 = cpu::FixedBaseTable<ec::Bn254::G1>;
  CHECK_EQ(T1::window_bits(1), T1::kMinC);
  CHECK_EQ(T1::window_bits(size_t(1) << 22), T1::kMaxC);
  for (size_t n = 1; n < (size_t(1) << 26); n *= 2) CHECK(T1::window_bits(n) <= T1::window_bits(2 * n));
  CHECK_EQ(T1::table_bytes(size_t(1) << 22), size_t(16) * 32768 * sizeof(T1::Aff));
  for (size_t hint : {size_t(1), size_t(5000)}) {
    const unsigned c = T1::window_bits(hint);
    fixed_base_matches<ec::Bn254::G1, ff::Bn254Fr>(hint, c);
    fixed_base_matches<ec::Bn254::G2, ff::Bn254Fr>(hint, c);
    fixed_base_matches<ec::Bls12381::G1, ff::Bls12381Fr>(hint, c);
    fixed_base_matches<ec::Bls12381::G2, ff::Bls12381Fr>(hint, c);
  }
  fixed_base_matches<ec::Bn254::G1, ff::Bn254Fr>(size_t(1) << 22, 16);  // the widest table
}

template <class E>
void setup_prove_verify(Shape shape, int log_n, backend::HForm form = backend::HForm::OddCoset) {
  using Fr = typename E::Fr;
  ThreadPool pool(2);
  SyntheticSpec spec;
  spec.shape = shape;
  spec.log_n = log_n;
  spec.seed = test::seed() ^ 0x77;
  spec.n_inputs = 16;
  spec.n_public = 3;
  SyntheticCircuit<Fr> c(spec);
  RandomSource rs(test::seed());
  auto tw = ToxicWaste<Fr>::draw(rs);
  auto pk = setup::setup<E>(c.source(), tw, cpu_fixed_base<E>(pool), pool, nullptr, {}, form);
  CHECK_EQ(pk.log_n, log_n);
  groth16::check_key_shape(pk);
  for (const auto* list : {&pk.a_wires, &pk.b_wires})  // ascending wires of the circuit
    for (size_t i = 0; i < list->size(); ++i) CHECK((*list)[i] < pk.n_vars && (i == 0 || (*list)[i - 1] < (*list)[i]));
  if (form == backend::HForm::Coefficients) {
    // bellperson's layout: n - 1 H points; A holds every input and only the wires A uses.
    CHECK_EQ(pk.h.size(), (size_t(1) << log_n) - 1);
    CHECK(pk.compact && pk.a.size() == pk.a_wires.size() && pk.b2.size() == pk.b_wires.size());
    for (uint32_t j = 0; j <= spec.n_public; ++j) CHECK_EQ(pk.a_wires[j], j);
    CHECK(pk.a_wires.size() <= pk.n_vars && pk.b_wires.size() < pk.n_vars);
  }
  auto vk = groth16::verifying_key_of<E>(pk);
  cpu::CpuDeviceOptions co;
  co.threads = pool.size();
  cpu::CpuDevice dev(co);
  for (uint64_t p : {0ull, 5ull}) {
    auto w = c.witness(p, pool);
    auto proof = groth16::prove_on<E>(dev, pk, w, random_field<Fr>(rs), random_field<Fr>(rs));
    CHECK_MSG(groth16::self_verify<E>(vk, w, proof), shape_name(shape) << " partition " << p);
    auto w2 = w;
    w2[1].v[0] ^= 1;  // another public input: the same proof must not verify
    CHECK(!groth16::self_verify<E>(vk, w2, proof));
  }
  // An unsatisfying witness gives a proof that does not verify.
  auto w = c.witness(9, pool);
  w[w.size() - 1].v[0] ^= 2;
  auto bad = groth16::prove_on<E>(dev, pk, w, random_field<Fr>(rs), random_field<Fr>(rs));
  CHECK(!groth16::self_verify<E>(vk, w, bad));
}

CUZK_TEST(setup_keys_prove_and_verify_bn254) {
  setup_prove_verify<ec::Bn254>(Shape::Porep, 8);
  setup_prove_verify<ec::Bn254>(Shape::Dense, 9);
}
CUZK_TEST(setup_keys_prove_and_verify_bls12_381) {
  setup_prove_verify<ec::Bls12381>(Shape::Porep, 9);
  setup_prove_verify<ec::Bls12381>(Shape::Dense, 8);
}
// bellperson's convention: the generator's roots, H as coefficients, compacted A and B queries.
CUZK_TEST(bellperson_keys_prove_and_verify) {
  setup_prove_verify<ec::Bls12381>(Shape::Porep, 9, backend::HForm::Coefficients);
  setup_prove_verify<ec::Bls12381>(Shape::Dense, 8, backend::HForm::Coefficients);
  setup_prove_verify<ec::Bn254>(Shape::Porep, 8, backend::HForm::Coefficients);
}

// The primitive 2^32-th root of unity bellperson's domains use: 7^t on BLS12-381 (blstrs's
// ROOT_OF_UNITY), not snarkjs's 5^t.
CUZK_TEST(bellperson_root_of_unity_is_blstrs) {
  using Fr = ff::Bls12381Fr;
  ff::Limbs<4> want{{0x3829971F439F0D2Bull, 0xB63683508C2280B9ull, 0xD09B681922C813B4ull, 0x16A2A19EDFE81F20ull}};
  const Fr w = cpu::root_of_unity<Fr>(32, Fr::Params::generator);
  const auto got = w.to_std(), snarkjs = cpu::root_of_unity<Fr>(32).to_std();
  CHECK(std::memcmp(got.v, want.v, sizeof want.v) == 0);
  CHECK(std::memcmp(snarkjs.v, want.v, sizeof want.v) != 0);
}

template <class E>
void writers_round_trip() {
  using Fr = typename E::Fr;
  ThreadPool pool(2);
  SyntheticSpec spec;
  spec.log_n = 9;
  spec.seed = test::seed();
  SyntheticCircuit<Fr> c(spec);
  auto src = c.source();
  const std::string dir = test::temp_dir() + "/rt_" + curve_name(E::id);
  std::filesystem::create_directories(dir);
  write_r1cs<Fr>(dir + "/c.r1cs", src);
  auto w = c.witness(2, pool);
  write_wtns<Fr>(dir + "/w.wtns", w);
  RandomSource rs(test::seed() + 1);
  auto pk = setup::setup<E>(src, ToxicWaste<Fr>::draw(rs), cpu_fixed_base<E>(pool), pool);
  write_zkey<E>(dir + "/k.zkey", pk, "test note");

  auto cs = io::read_r1cs(dir + "/c.r1cs");
  CHECK_EQ(cs.n_wires, src.n_wires);
  CHECK_EQ(size_t(cs.n_constraints), src.n_rows);
  CHECK_EQ(cs.n_pub_in, spec.n_public);
  auto back = r1cs::rows_of<Fr>(cs);
  r1cs::Row<Fr> r1, r2;
  for (size_t i = 0; i < src.n_rows; ++i) {
    src.row(i, r1);
    back.row(i, r2);
    CHECK(r1.a.wire == r2.a.wire && r1.b.wire == r2.b.wire && r1.c.wire == r2.c.wire);
    CHECK(r1.a.coef == r2.a.coef && r1.b.coef == r2.b.coef && r1.c.coef == r2.c.coef);
  }
  auto wt = io::read_wtns(dir + "/w.wtns");
  CHECK_EQ(wt.n_witness, uint32_t(w.size()));
  CHECK(same_scalars(groth16::witness_scalars(wt.values, wt.n_witness), w));

  auto z = io::read_zkey(dir + "/k.zkey");
  CHECK_EQ(z.insecure_note, std::string("test note"));
  auto pk2 = groth16::load_proving_key<E>(z, pool);
  CHECK_EQ(pk2.n_vars, pk.n_vars);
  CHECK_EQ(pk2.domain_size, pk.domain_size);
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
  };
  CHECK(same(pk2.a, pk.a) && same(pk2.b1, pk.b1) && same(pk2.b2, pk.b2) && same(pk2.c, pk.c) && same(pk2.h, pk.h) &&
        same(pk2.ic, pk.ic));
  CHECK(pk2.A.row_ptr == pk.A.row_ptr && pk2.A.col == pk.A.col && same(pk2.A.val, pk.A.val));
  CHECK(pk2.B.row_ptr == pk.B.row_ptr && pk2.B.col == pk.B.col && same(pk2.B.val, pk.B.val));
  // Nothing left behind but the three files.
  size_t files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  CHECK_EQ(files, size_t(3));
}

CUZK_TEST(writers_round_trip_bn254) { writers_round_trip<ec::Bn254>(); }
CUZK_TEST(writers_round_trip_bls12_381) { writers_round_trip<ec::Bls12381>(); }

CUZK_TEST(setup_rejects_a_wire_out_of_range) {
  using E = ec::Bn254;
  using Fr = E::Fr;
  ThreadPool pool(2);
  r1cs::RowSource<Fr> src;
  src.n_wires = 3;
  src.n_pub_in = 1;
  src.n_rows = 2;
  src.row = [](size_t i, r1cs::Row<Fr>& r) {
    r.clear();
    r.a.add(i == 1 ? 5 : 1, Fr::one());
    r.b.add(0, Fr::one());
    r.c.add(2, Fr::one());
  };
  RandomSource rs(1);
  CHECK_THROWS_WITH(setup::setup<E>(src, ToxicWaste<Fr>::draw(rs), cpu_fixed_base<E>(pool), pool), InvalidArgument,
                    "constraint 1 uses wire 5 of 3");
}

CUZK_TEST(a_failed_write_leaves_nothing) {
  const std::string dir = test::temp_dir() + "/fail";
  std::filesystem::create_directories(dir);
  {
    SectionWriter w(dir + "/x.bin", "test", 1, 2);
    w.begin(1);
    w.u32(7);
    w.end();
    CHECK_THROWS_WITH(w.commit(), Error, "fewer sections than declared");
  }
  CHECK(std::filesystem::is_empty(dir));
}

}  // namespace
