// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 prover on the committed snarkjs fixtures: the key's compiled matrices against the
// r1cs evaluated row by row, the H polynomial's degree, determinism under a seed, and the
// rejection of bad key points. (snarkjs itself judges the proofs: tests/snarkjs/run-fixtures.sh.)
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "backend/cpu/h.hpp"
#include "cuzk/prove.hpp"
#include "groth16/encode.hpp"
#include "groth16/key.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "r1cs/check.hpp"
#include "testing.hpp"
#include "util/files.hpp"

using namespace cuzk;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string dir, curve, name;
};

std::vector<Fixture> fixtures() {
  std::vector<Fixture> out;
  fs::path root = test::fixtures_dir();
  if (!fs::exists(root)) return out;
  for (const char* curve : {"bn254", "bls12-381"}) {
    if (!fs::exists(root / curve)) continue;
    for (auto& e : fs::directory_iterator(root / curve)) {
      if (fs::exists(e.path() / "circuit.zkey") && fs::exists(e.path() / "witness.wtns") &&
          fs::exists(e.path() / "circuit.r1cs"))
        out.push_back({e.path().string(), curve, e.path().filename().string()});
    }
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.dir < b.dir; });
  return out;
}

std::string read_text(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// a, b from the key's matrices equal A.w, B.w of the r1cs on every constraint row, c = a.b equals
// C.w there; the extra rows carry the public inputs (a = w_s); the rest is zero.
template <class E>
void check_pce_against_r1cs(const Fixture& fx, ThreadPool& pool) {
  using Fr = typename E::Fr;
  auto z = io::read_zkey(fx.dir + "/circuit.zkey");
  auto wt = io::read_wtns(fx.dir + "/witness.wtns");
  auto cs = io::read_r1cs(fx.dir + "/circuit.r1cs");
  auto pk = groth16::load_proving_key<E>(z, pool);
  auto w = groth16::witness_scalars(wt.values, wt.n_witness);
  const size_t n = pk.domain_size;
  std::vector<Fr> a(n), b(n), c(n);
  cpu::evaluate_abc<Fr>(n, pk.A.view(), pk.B.view(), w.data(), a.data(), b.data(), c.data(), pool);
  for (size_t i = 0; i < cs.n_constraints; ++i) {
    CHECK_MSG(a[i] == r1cs::row_dot<Fr>(cs.A, i, wt), fx.dir << " row " << i << " a");
    CHECK_MSG(b[i] == r1cs::row_dot<Fr>(cs.B, i, wt), fx.dir << " row " << i << " b");
    CHECK_MSG(c[i] == r1cs::row_dot<Fr>(cs.C, i, wt), fx.dir << " row " << i << " c");
  }
  for (size_t s = 0; s <= pk.n_public; ++s) {
    size_t row = cs.n_constraints + s;
    CHECK_MSG(a[row] == Fr::from_std(w[s]), fx.dir << " public row " << s);
    CHECK(b[row].is_zero());
  }
  for (size_t row = cs.n_constraints + pk.n_public + 1; row < pk.domain_size; ++row) CHECK(a[row].is_zero());

  // h on the coset is (ab - c)(g w^i) = -2 H(g w^i) with deg H <= n - 2: interpolating the
  // values back gives a zero top coefficient. A witness that breaks one constraint does not.
  auto h_degree_top = [&](const std::vector<cpu::Scalar>& ws) {
    std::vector<Fr> aa(n), bb(n), cc(n);
    cpu::evaluate_abc<Fr>(n, pk.A.view(), pk.B.view(), ws.data(), aa.data(), bb.data(), cc.data(), pool);
    // c must come from the C matrix for the negative control to mean anything
    for (size_t i = 0; i < cs.n_constraints; ++i) {
      Fr sum = Fr::zero();
      for (uint64_t k = cs.C.row_ptr[i]; k < cs.C.row_ptr[i + 1]; ++k) {
        ff::Limbs<Fr::N> coef;
        std::memcpy(coef.v, cs.C.coef.data() + k * 32, 32);
        sum += Fr::from_std(coef) * Fr::from_std(ws[cs.C.wire[k]]);
      }
      cc[i] = sum;
    }
    std::vector<cpu::Scalar> h(n);
    cpu::compute_h<Fr>(aa.data(), bb.data(), cc.data(), pk.log_n, h.data(), pool);
    std::vector<Fr> hv(h.size());
    for (size_t i = 0; i < h.size(); ++i) hv[i] = Fr::from_std(h[i]);
    auto dom = cpu::Domain<Fr>::make(pk.log_n);
    cpu::ntt(hv.data(), dom, true, pool);
    return hv.back();
  };
  CHECK_MSG(h_degree_top(w).is_zero(), fx.dir << ": H has full degree");
  auto bad = w;
  bad.back().v[0] ^= 1;  // last wire is internal in every fixture
  CHECK_MSG(!h_degree_top(bad).is_zero(), fx.dir << ": degree check cannot see a broken witness");
}

}  // namespace

CUZK_TEST(fixtures_present) {
  auto fx = fixtures();
  if (fx.empty()) SKIP("no fixtures under " + test::fixtures_dir());
  int bn = 0, bls = 0;
  for (auto& f : fx) (f.curve == "bn254" ? bn : bls)++;
  CHECK_MSG(bn >= 4 && bls >= 4, "expected >= 4 circuits per curve, found " << bn << " bn254, " << bls << " bls12-381");
}

CUZK_TEST(pce_rows_equal_r1cs_rows_and_h_degree) {
  auto fx = fixtures();
  if (fx.empty()) SKIP("no fixtures");
  ThreadPool pool(2);
  for (auto& f : fx) {
    if (f.curve == "bn254")
      check_pce_against_r1cs<ec::Bn254>(f, pool);
    else
      check_pce_against_r1cs<ec::Bls12381>(f, pool);
  }
}

// A key matrix's values coded (groth16::code_values): each entry's value through its code is the
// value it had; the dictionary is sorted and the same for any number of threads; a, b, c from
// coded rows equal those from plain rows. Matrices with too many distinct values stay plain.
CUZK_TEST(key_rows_values_coded_evaluate_as_plain_values) {
  using Fr = ec::Bls12381::Fr;
  ThreadPool one(1), three(3);
  const size_t n = 1000, m = 300;
  uint64_t x = 0x1234567;
  auto next = [&] { return x = x * 6364136223846793005ull + 1442695040888963407ull, x >> 17; };
  // rows of 0..5 entries, values from `distinct` drawn values (each used), a run of equal ones now and then
  auto matrix = [&](size_t distinct, size_t entries_per_value) {
    groth16::Csr<Fr> M;
    std::vector<Fr> pool_of;
    for (size_t i = 0; i < distinct; ++i) pool_of.push_back(Fr::from_u64(next() | 1));
    M.row_ptr.assign(n + 1, 0);
    const size_t nnz = distinct * entries_per_value;
    for (size_t k = 0; k < nnz; ++k) {
      M.col.push_back(uint32_t(next() % m));
      M.val.push_back(k % 11 == 5 ? M.val.back() : pool_of[k % distinct]);
    }
    for (size_t i = 0; i < n; ++i) M.row_ptr[i + 1] = uint32_t(std::min(nnz, (i + 1) * nnz / n));
    return M;
  };
  const auto plain = matrix(7, 500);
  auto coded = plain, coded3 = plain;
  CHECK(groth16::code_values(coded, one));
  CHECK(groth16::code_values(coded3, three));
  CHECK(coded.coded() && coded.val.empty() && coded.code.size() == plain.val.size());
  CHECK_EQ(coded.dict.size(), size_t(7));
  CHECK(coded.code == coded3.code && coded.row_ptr == plain.row_ptr && coded.col == plain.col);
  CHECK(std::equal(coded.dict.begin(), coded.dict.end(), coded3.dict.begin(), coded3.dict.end()));
  for (size_t i = 1; i < coded.dict.size(); ++i)
    CHECK(std::lexicographical_compare(std::rbegin(coded.dict[i - 1].l), std::rend(coded.dict[i - 1].l),
                                       std::rbegin(coded.dict[i].l), std::rend(coded.dict[i].l)));
  for (size_t k = 0; k < plain.val.size(); ++k) CHECK_MSG(coded.value(k) == plain.val[k], "entry " << k);
  CHECK(groth16::code_values(coded, one));  // coded already: unchanged
  CHECK(coded.code == coded3.code);

  // a, b, c: A coded or plain, B plain or coded, against both plain
  std::vector<cpu::Scalar> w(m);
  for (auto& v : w) v = Fr::from_u64(next()).to_std();
  const auto plain_b = matrix(5, 300);
  auto coded_b = plain_b;
  CHECK(groth16::code_values(coded_b, three));
  auto abc = [&](const groth16::Csr<Fr>& A, const groth16::Csr<Fr>& B) {
    std::vector<Fr> a(n), b(n), c(n);
    cpu::evaluate_abc<Fr>(n, A.view(), B.view(), w.data(), a.data(), b.data(), c.data(), three);
    a.insert(a.end(), b.begin(), b.end()), a.insert(a.end(), c.begin(), c.end());
    return a;
  };
  const auto want = abc(plain, plain_b);
  CHECK(abc(coded, coded_b) == want);
  CHECK(abc(coded, plain_b) == want);
  CHECK(abc(plain, coded_b) == want);

  // Stay plain: every value distinct; more than 2^16 distinct values; nothing at all.
  for (auto [distinct, per] : {std::pair<size_t, size_t>{1000, 1}, {65537, 3}}) {
    auto M = matrix(distinct, per);
    const auto before = M.val;
    CHECK_MSG(!groth16::code_values(M, three), distinct << " distinct values");
    CHECK(!M.coded() && M.code.empty() && M.val == before);
  }
  auto most = matrix(65536, 3);  // exactly 2^16 distinct values: the largest code is 65535
  const auto most_plain = most;
  CHECK(groth16::code_values(most, three));
  CHECK_EQ(most.dict.size(), size_t(65536));
  for (size_t k = 0; k < most_plain.val.size(); ++k) CHECK(most.value(k) == most_plain.val[k]);
  groth16::Csr<Fr> none;
  none.row_ptr.assign(n + 1, 0);
  CHECK(!groth16::code_values(none, one) && !none.coded());
}

CUZK_TEST(proof_is_deterministic_under_seed_and_public_matches_snarkjs) {
  auto fx = fixtures();
  if (fx.empty()) SKIP("no fixtures");
  ThreadPool pool(2);
  for (auto& f : fx) {
    ProveOptions o;
    o.seed = test::seed();
    auto p1 = prove_files(f.dir + "/circuit.zkey", f.dir + "/witness.wtns", o, pool);
    auto p2 = prove_files(f.dir + "/circuit.zkey", f.dir + "/witness.wtns", o, pool);
    CHECK_EQ(p1.proof_json, p2.proof_json);
    CHECK(p1.proof_compressed == p2.proof_compressed);
    CHECK_EQ(p1.proof_compressed.size(), size_t(f.curve == "bn254" ? 128 : 192));
    o.seed = test::seed() + 1;
    auto p3 = prove_files(f.dir + "/circuit.zkey", f.dir + "/witness.wtns", o, pool);
    CHECK(p1.proof_json != p3.proof_json);
    CHECK_EQ(p1.public_json, p3.public_json);
    // snarkjs's public.json, byte for byte
    CHECK_MSG(p1.public_json == read_text(f.dir + "/public.json"), f.dir);
    // Same layout as snarkjs's proof.json: same keys, nesting and line count.
    std::string ref = read_text(f.dir + "/proof.json");
    auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
    CHECK_EQ(lines(p1.proof_json), lines(ref));
    CHECK(p1.proof_json.find("\"curve\": \"" + std::string(f.curve == "bn254" ? "bn128" : "bls12381") + "\"") !=
          std::string::npos);
  }
}

// A key's A and B rows: a row pointer each for every row of the domain, or none at all (a key
// whose a, b, c come with the witness); anything else is refused naming the counts.
CUZK_TEST(key_shape_needs_rows_for_the_domain_or_none) {
  auto fx = fixtures();
  if (fx.empty()) SKIP("no fixtures");
  ThreadPool pool(2);
  const auto pk =
      groth16::load_proving_key<ec::Bn254>(io::read_zkey(test::fixtures_dir() + "/bn254/mulchain/circuit.zkey"), pool);
  groth16::check_key_shape(pk);
  auto no_rows = pk;
  no_rows.A = {}, no_rows.B = {};
  groth16::check_key_shape(no_rows);
  auto short_b = pk;
  short_b.B.row_ptr.pop_back();
  CHECK_THROWS_WITH(groth16::check_key_shape(short_b), InvalidArgument, "the A and B rows have");
  auto only_a = pk;
  only_a.B = {};
  CHECK_THROWS_WITH(groth16::check_key_shape(only_a), InvalidArgument, "row pointers, the domain needs");
}

CUZK_TEST(key_point_off_curve_or_unreduced_is_rejected) {
  auto fx = fixtures();
  if (fx.empty()) SKIP("no fixtures");
  ThreadPool pool(2);
  for (const char* curve : {"bn254", "bls12-381"}) {
    std::string path = test::fixtures_dir() + "/" + curve + "/mulchain/circuit.zkey";
    std::ifstream f(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), {});
    auto z0 = io::parse_zkey(io::FileBytes::from_buffer(path, bytes));
    size_t off = size_t(z0.b1.data() - z0.file->bytes().data()) + 2 * z0.g1_bytes() + z0.n8q;  // B1[2].y
    auto mutate = [&](auto fn) {
      auto copy = bytes;
      fn(copy.data() + off);
      return io::parse_zkey(io::FileBytes::from_buffer(path, copy));
    };
    auto off_curve = mutate([](uint8_t* y) { y[0] ^= 1; });
    auto unreduced = mutate([&](uint8_t* y) { std::memset(y, 0xff, z0.n8q); });
    if (std::string(curve) == "bn254") {
      CHECK_THROWS_WITH(groth16::load_proving_key<ec::Bn254>(off_curve, pool), FormatError,
                        "B1 (section 6) point 2 is not on the curve");
      CHECK_THROWS_WITH(groth16::load_proving_key<ec::Bn254>(unreduced, pool), FormatError, "not reduced");
    } else {
      CHECK_THROWS_WITH(groth16::load_proving_key<ec::Bls12381>(off_curve, pool), FormatError,
                        "B1 (section 6) point 2 is not on the curve");
      CHECK_THROWS_WITH(groth16::load_proving_key<ec::Bls12381>(unreduced, pool), FormatError, "not reduced");
    }
    if (std::string(curve) == "bls12-381")
      CHECK_THROWS_WITH(groth16::load_proving_key<ec::Bn254>(z0, pool), FormatError, "key is for another curve");
  }
}

CUZK_TEST(write_files_atomically_writes_all_or_nothing) {
  std::string d = test::temp_dir();
  write_files_atomically({{d + "/a.json", "A"}, {d + "/b.json", "B"}});
  CHECK_EQ(read_text(d + "/a.json"), std::string("A"));
  CHECK_EQ(read_text(d + "/b.json"), std::string("B"));
  CHECK_THROWS_WITH(write_files_atomically({{d + "/a.json", "A2"}, {d + "/missing/b.json", "B2"}}), Error,
                    "cannot write " + d + "/missing/b.json");
  CHECK_EQ(read_text(d + "/a.json"), std::string("A"));  // untouched
  for (auto& e : fs::directory_iterator(d)) CHECK(e.path().filename().string().find("cuzk-tmp") == std::string::npos);
}

// Outputs are regular files only: a FIFO, a symbolic link (even to a regular file) or a directory
// at an output path is refused, naming it, and left as it was; a missing path is fine.
CUZK_TEST(write_files_atomically_refuses_what_is_not_a_regular_file) {
  std::string d = test::temp_dir();
  write_files_atomically({{d + "/target.json", "T"}});
  CHECK(::mkfifo((d + "/fifo.json").c_str(), 0600) == 0);
  fs::create_symlink(d + "/target.json", d + "/link.json");
  fs::create_directory(d + "/dir.json");
  check_output_paths({d + "/target.json", d + "/new.json"});
  CHECK_THROWS_WITH(check_output_path(d + "/fifo.json"), Error, d + "/fifo.json: it is a FIFO, not a regular file");
  CHECK_THROWS_WITH(check_output_path(d + "/link.json"), Error, "it is a symbolic link, not a regular file");
  CHECK_THROWS_WITH(check_output_path(d + "/dir.json"), Error, "it is a directory, not a regular file");
  CHECK_THROWS_WITH(write_files_atomically({{d + "/fresh.json", "F"}, {d + "/link.json", "L"}}), Error,
                    "cannot write " + d + "/link.json");
  CHECK(fs::is_symlink(d + "/link.json"));
  CHECK_EQ(read_text(d + "/target.json"), std::string("T"));
  CHECK(!fs::exists(d + "/fresh.json"));
  CHECK(fs::is_fifo(d + "/fifo.json"));
}
