// SPDX-License-Identifier: MIT OR Apache-2.0
// Filecoin's formats: bellperson's .params / .vk (writer and reader, every refusal naming its
// section and index), the 192-byte proofs of the regression records, the published parameter
// names against rust-fil-proofs' parameters.json, and the hashes behind them.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "backend/cpu/device.hpp"
#include "engine/engine.hpp"
#include "filecoin/blake2b.hpp"
#include "filecoin/manifest.hpp"
#include "filecoin/param_names.hpp"
#include "filecoin/params.hpp"
#include "filecoin/params_key.hpp"
#include "filecoin/proof_bytes.hpp"
#include "filecoin/prover.hpp"
#include "filecoin/records.hpp"
#include "filecoin/setup_params.hpp"
#include "filecoin/sha256.hpp"
#include "groth16/encode.hpp"
#include "groth16/self_verify.hpp"
#include "groth16/sequence.hpp"
#include "io/json_parse.hpp"
#include "setup/setup.hpp"
#include "setup/synthetic.hpp"
#include "setup/write.hpp"
#include "testing.hpp"
#include "util/rng.hpp"

namespace cuzk::test {
namespace {

using namespace cuzk::filecoin;

std::string tests_dir() { return std::filesystem::path(fixtures_dir()).parent_path().string(); }

// Real records of rust-fil-proofs, in tests/filecoin/vectors (CUZK_FILECOIN_VECTORS may name
// another directory of the same files).
std::string vectors_dir() {
  const char* d = std::getenv("CUZK_FILECOIN_VECTORS");
  return d ? std::string(d) : tests_dir() + "/filecoin/vectors";
}

CUZK_TEST(sha256_known_answers) {
  auto h = [](const std::string& s) {
    auto d = sha256(s);
    return to_hex(d);
  };
  CHECK_EQ(h(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  CHECK_EQ(h("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  CHECK_EQ(h("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
           std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
  // 1,000,000 'a' fed in uneven pieces (FIPS 180-2 appendix B.3).
  Sha256 s;
  std::string piece(997, 'a');
  size_t left = 1000000;
  while (left) {
    size_t n = std::min(left, piece.size());
    s.update({reinterpret_cast<const uint8_t*>(piece.data()), n});
    left -= n;
  }
  CHECK_EQ(to_hex(s.finish()), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

CUZK_TEST(blake2b_512_known_answer) {
  // RFC 7693 appendix A ("abc"), the empty input, and input across several blocks fed in pieces.
  CHECK_EQ(blake2b_512_hex("abc"), std::string("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                                               "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"));
  CHECK_EQ(blake2b_512_hex(""), std::string("786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
                                            "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"));
  std::string m(1000, '\0');
  for (size_t i = 0; i < m.size(); ++i) m[i] = char(i * 7 + 3);
  Blake2b h;
  for (size_t at = 0; at < m.size(); at += 77) h.update(m.substr(at, 77));
  CHECK_EQ(to_hex(h.finish()), blake2b_512_hex(m));
  // Keyed: the reference implementation's first keyed answer (key 00..3f, empty message).
  std::array<uint8_t, 64> key{};
  for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(i);
  Blake2b k(64, key);
  CHECK_EQ(to_hex(k.finish()).substr(0, 16), std::string("10ebb67700b1868e"));
  CHECK_THROWS_WITH(Blake2b(65), InvalidArgument, "65 bytes");
  CHECK_THROWS_WITH(Blake2b(0), InvalidArgument, "0 bytes");
}

// The 22 stems computed from the identifiers are exactly the published ones (parameters.json of
// rust-fil-proofs 87348a74, tests/filecoin/parameters.json), each with its .params and .vk.
CUZK_TEST(param_names_match_parameters_json) {
  auto manifest = read_manifest(tests_dir() + "/filecoin/parameters.json");
  std::set<std::string> published;
  for (const auto& e : manifest) {
    CHECK_EQ(e.digest.size(), size_t(32));
    published.insert(e.name.substr(0, e.name.rfind('.')));
  }
  CHECK_EQ(published.size(), size_t(22));
  auto circuits = published_circuits();
  CHECK_EQ(circuits.size(), size_t(22));
  std::set<std::string> ours;
  for (const auto& c : circuits) {
    std::string stem = c.stem();
    CHECK_MSG(published.count(stem), proof_kind_name(c.kind) << " " << sector_size_name(c.sector_size) << " " << stem);
    for (const char* ext : {".params", ".vk"}) {
      bool found = false;
      for (const auto& e : manifest) found |= e.name == stem + ext && e.sector_size == c.sector_size;
      CHECK_MSG(found, stem << ext);
    }
    ours.insert(stem);
  }
  CHECK_EQ(ours.size(), size_t(22));
  // The 32GiB PoRep identifier as rust-fil-proofs prints it.
  CHECK_EQ(circuits[12].stem(),
           std::string("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
                       "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"));
}

CUZK_TEST(params_verify_checks_digest_prefixes) {
  const std::string dir = temp_dir() + "/manifest";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/x.vk") << "abc";
  std::ofstream(dir + "/m.json") << R"({"x.vk": {"cid": "Q", "digest": "ba80a53f981c4d0d6a2797b69f12f6e9",
    "sector_size": 2048}, "y.vk": {"cid": "Q", "digest": "00", "sector_size": 2048}})";
  auto r = verify_digests(dir, read_manifest(dir + "/m.json"));
  CHECK_EQ(r.size(), size_t(2));
  CHECK(r[0].status == DigestCheck::Status::ok);
  CHECK(r[1].status == DigestCheck::Status::missing);
  std::ofstream(dir + "/x.vk") << "abd";
  r = verify_digests(dir, read_manifest(dir + "/m.json"));
  CHECK(r[0].status == DigestCheck::Status::mismatch);
}

// ------------------------------------------------------------------ .params and .vk

// A small BLS12-381 key from the insecure setup, in bellperson's sections: h has n - 1 points,
// l is the key's C, and a, b_g1, b_g2 keep the non-identity points (the density compaction of
// bellperson's generator is the prover's; here the sections are taken as given).
ParamsData small_key(int log_n) {
  using E = ec::Bls12381;
  using Fr = E::Fr;
  ThreadPool pool(2);
  setup::SyntheticSpec spec;
  spec.log_n = log_n;
  spec.seed = seed();
  spec.n_public = 3;
  spec.n_inputs = 16;
  setup::SyntheticCircuit<Fr> c(spec);
  RandomSource rs(seed() + 7);
  auto pk = setup::setup<E>(c.source(), setup::ToxicWaste<Fr>::draw(rs), setup::cpu_fixed_base<E>(pool), pool);
  ParamsData d;
  d.alpha_g1 = pk.alpha1, d.beta_g1 = pk.beta1, d.delta_g1 = pk.delta1;
  d.beta_g2 = pk.beta2, d.gamma_g2 = pk.gamma2, d.delta_g2 = pk.delta2;
  d.ic = pk.ic;
  d.h.assign(pk.h.begin(), pk.h.end() - 1);
  d.l = pk.c;
  for (size_t i = 0; i < pk.a.size(); ++i) {
    if (!pk.a[i].is_inf()) d.a.push_back(pk.a[i]);
    if (!pk.b1[i].is_inf()) d.b_g1.push_back(pk.b1[i]);
    if (!pk.b2[i].is_inf()) d.b_g2.push_back(pk.b2[i]);
  }
  return d;
}

const ParamsData& key() {
  static ParamsData d = small_key(8);
  return d;
}

std::shared_ptr<io::FileBytes> buffer(std::vector<uint8_t> b) {
  return io::FileBytes::from_buffer("k.params", std::move(b));
}

template <class P, class A>
bool same_points(const ParamsFile& f, const PointSection& s, const std::vector<P, A>& v) {
  if (s.count != v.size()) return false;
  for (size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<P, G1>) {
      if (f.g1(s, i) != v[i]) return false;
    } else {
      if (f.g2(s, i) != v[i]) return false;
    }
  }
  return true;
}

// `cuzk setup --format bellperson`: a key of bellperson's convention written in its layout, with
// the counts its generator gives (h = domain - 1, A and B compacted), equal to the key in memory.
CUZK_TEST(setup_writes_bellperson_params) {
  ThreadPool pool(2);
  setup::SyntheticSpec spec;
  spec.log_n = 9;
  spec.seed = seed();
  spec.n_public = 2;
  setup::SyntheticCircuit<Bls::Fr> c(spec);
  const std::string dir = temp_dir() + "/setup_params";
  std::filesystem::create_directories(dir);
  setup::write_r1cs<Bls::Fr>(dir + "/c.r1cs", c.source());
  auto eng = engine::tool_engine("cpu", 2);
  const setup::SetupDevice cpu{eng.get(), "cpu"};
  auto st = setup_params_files(dir + "/c.r1cs", dir + "/k", 7, cpu, pool, {});
  CHECK_EQ(st.log_n, 9);
  ParamsFile p = read_params(dir + "/k.params", pool, true);
  setup::SetupStats st2;
  auto pk =
      setup::setup_key_bls12_381(io::read_r1cs(dir + "/c.r1cs"), 7, cpu, pool, {}, backend::HForm::Coefficients, st2);
  CHECK_EQ(p.h.count, (1u << 9) - 1);
  CHECK_EQ(p.ic.count, spec.n_public + 1);
  CHECK_EQ(p.l.count, pk.n_vars - spec.n_public - 1);
  CHECK(p.a.count == pk.a_wires.size() && p.b_g2.count == pk.b_wires.size() && p.b_g1.count == p.b_g2.count);
  CHECK(p.b_g1.count < pk.n_vars);  // compacted: not every wire is in B
  CHECK(p.g1s(p.h, pool) == pk.h && p.g1s(p.a, pool) == pk.a && p.g2s(p.b_g2, pool) == pk.b2);
  CHECK(read_params(dir + "/k.vk", pool).is_vk);
  CHECK_THROWS_WITH(params_data_of(setup::setup_key_bls12_381(io::read_r1cs(dir + "/c.r1cs"), 7, cpu, pool, {},
                                                              backend::HForm::OddCoset, st2)),
                    InvalidArgument, "not in bellperson's convention");
}

// The wires bellperson's generator keeps in a compacted query, from the .r1cs matrix itself
// (not from cuzk's rows): every input for A (its input rows), else the columns with a non-zero
// coefficient.
size_t dense_columns(const io::R1cs& cs, const io::SparseMatrix& M, bool inputs) {
  std::vector<uint8_t> used(cs.n_wires, 0);
  if (inputs) std::fill(used.begin(), used.begin() + cs.n_public() + 1, 1);
  for (size_t k = 0; k < M.n_terms(); ++k)
    if (std::any_of(M.coef.begin() + k * cs.n8, M.coef.begin() + (k + 1) * cs.n8, [](uint8_t b) { return b != 0; }))
      used[M.wire[k]] = 1;
  return size_t(std::count(used.begin(), used.end(), 1));
}

// Filecoin's circuits have few distinct coefficients (Poseidon's constants, powers of two, +-1):
// the engine keeps their A and B rows coded (groth16::code_values), 6 bytes an entry instead of
// 36. The PoSt circuits of 2KiB sectors, recorded as the prover records them.
CUZK_TEST(filecoin_circuits_rows_are_coded) {
  ThreadPool pool(2);
  for (ProofKind kind : {ProofKind::window_post, ProofKind::winning_post}) {
    const io::R1cs cs = compile_circuit(filecoin_circuit(kind, 2048), pool);
    for (const io::SparseMatrix* M : {&cs.A, &cs.B}) {
      groth16::Csr<Bls::Fr> m;
      m.row_ptr.assign(M->row_ptr.begin(), M->row_ptr.end());
      m.col = M->wire;
      m.val.resize(M->n_terms());
      for (size_t k = 0; k < M->n_terms(); ++k) std::memcpy(m.val[k].l, M->coef.data() + k * 32, 32);
      const auto plain = m.val;
      CHECK(groth16::code_values(m, pool));
      CHECK_MSG(m.dict.size() < 4096, m.dict.size() << " distinct values");
      for (size_t k = 0; k < plain.size(); ++k) CHECK(m.value(k) == plain[k]);
      std::printf("  %s 2KiB %s: %zu entries, %zu distinct values\n", proof_kind_name(kind), M == &cs.A ? "A" : "B",
                  plain.size(), m.dict.size());
    }
  }
}

// A .params read back with its circuit's .r1cs is the key the setup made, field by field (the
// rows and densities rebuilt from the .r1cs included), its counts are what bellperson's
// generator writes, and its proofs are the same bytes for the same r, s; the .vk verifies them.
CUZK_TEST(params_key_is_the_setup_key) {
  ThreadPool pool(2);
  setup::SyntheticSpec spec;
  spec.log_n = 9;
  spec.seed = seed() ^ 0x5a;
  spec.n_inputs = 16;
  spec.n_public = 3;
  setup::SyntheticCircuit<Bls::Fr> c(spec);
  const std::string dir = temp_dir() + "/params_key";
  std::filesystem::create_directories(dir);
  setup::write_r1cs<Bls::Fr>(dir + "/c.r1cs", c.source());
  auto eng = engine::tool_engine("cpu", 2);
  const setup::SetupDevice cpu{eng.get(), "cpu"};
  setup_params_files(dir + "/c.r1cs", dir + "/k", 11, cpu, pool, {});
  const io::R1cs cs = io::read_r1cs(dir + "/c.r1cs");
  setup::SetupStats st;
  const auto want = setup::setup_key_bls12_381(cs, 11, cpu, pool, {}, backend::HForm::Coefficients, st);

  ParamsLoadStats ls;
  const ParamsFile p = read_params(dir + "/k.params", pool, false, /*defer=*/true);
  const auto pk = proving_key_of(p, cs, pool, /*subgroup=*/true, &ls);
  CHECK_EQ(ls.point_bytes, p.size() - kVkFixedBytes);
  CHECK(pk.n_vars == want.n_vars && pk.n_public == want.n_public && pk.domain_size == want.domain_size &&
        pk.log_n == want.log_n);
  CHECK(pk.h_form == backend::HForm::Coefficients && pk.compact);
  CHECK(pk.alpha1 == want.alpha1 && pk.beta1 == want.beta1 && pk.delta1 == want.delta1);
  CHECK(pk.beta2 == want.beta2 && pk.gamma2 == want.gamma2 && pk.delta2 == want.delta2);
  CHECK(pk.ic == want.ic && pk.c == want.c && pk.h == want.h);
  CHECK(pk.a == want.a && pk.b1 == want.b1 && pk.b2 == want.b2);
  CHECK(pk.a_wires == want.a_wires && pk.b_wires == want.b_wires);
  for (auto [m, w] : {std::pair{&pk.A, &want.A}, std::pair{&pk.B, &want.B}}) {
    CHECK(m->row_ptr == w->row_ptr && m->col == w->col);
    CHECK(m->val.size() == w->val.size() && std::memcmp(m->val.data(), w->val.data(), m->val.size() * 32) == 0);
  }
  // What bellperson's generator writes: h = domain - 1, a and b compacted by their columns.
  CHECK_EQ(p.h.count, (1u << 9) - 1);
  CHECK_EQ(size_t(p.a.count), dense_columns(cs, cs.A, true));
  CHECK_EQ(size_t(p.b_g1.count), dense_columns(cs, cs.B, false));
  CHECK(p.a.count < cs.n_wires && p.b_g2.count == p.b_g1.count);

  cpu::CpuDeviceOptions co;
  co.threads = pool.size();
  cpu::CpuDevice dev(co);
  RandomSource rs(seed());
  const auto vk = verifying_key_of(read_params(dir + "/k.vk", pool));
  CHECK_EQ(vk.n_public, spec.n_public);
  for (uint64_t part : {0ull, 3ull}) {
    const auto w = c.witness(part, pool);
    const auto r = random_field<Bls::Fr>(rs), s = random_field<Bls::Fr>(rs);
    const auto proof = groth16::prove_on<Bls>(dev, pk, w, r, s);
    const auto same = groth16::prove_on<Bls>(dev, want, w, r, s);
    CHECK(proof.a == same.a && proof.b == same.b && proof.c == same.c);
    CHECK_MSG(groth16::self_verify<Bls>(vk, w, proof), "partition " << part);
    auto w2 = w;
    w2[2].v[0] ^= 1;  // another public input
    CHECK(!groth16::self_verify<Bls>(vk, w2, proof));
    auto bad = proof;
    bad.c = bad.a;  // another proof
    CHECK(!groth16::self_verify<Bls>(vk, w, bad));
  }
}

// A .params proves only with its own circuit: every count is checked against the .r1cs before a
// point is decoded, naming the section; a .vk has nothing to prove with.
CUZK_TEST(params_key_refuses_another_circuit) {
  ThreadPool pool(2);
  const std::string dir = temp_dir() + "/params_other";
  std::filesystem::create_directories(dir);
  auto circuit = [&](int log_n, uint32_t n_public, const std::string& name) {
    setup::SyntheticSpec spec;
    spec.log_n = log_n;
    spec.seed = seed() ^ uint64_t(log_n);
    spec.n_public = n_public;
    spec.n_inputs = 16;
    setup::SyntheticCircuit<Bls::Fr> c(spec);
    setup::write_r1cs<Bls::Fr>(dir + "/" + name + ".r1cs", c.source());
    return io::read_r1cs(dir + "/" + name + ".r1cs");
  };
  const io::R1cs mine = circuit(8, 2, "mine"), more_public = circuit(8, 3, "pub3"), bigger = circuit(9, 2, "big");
  auto eng = engine::tool_engine("cpu", 2);
  setup_params_files(dir + "/mine.r1cs", dir + "/k", 3, {eng.get(), "cpu"}, pool, {});
  const ParamsFile p = read_params(dir + "/k.params", pool, false, true);
  CHECK(proving_key_of(p, mine, pool).a.size() == p.a.count);
  CHECK_THROWS_WITH(proving_key_of(p, more_public, pool), InvalidArgument, "section ic has 3 points");
  CHECK_THROWS_WITH(proving_key_of(p, bigger, pool), InvalidArgument, "section l has 253 points");
  CHECK_THROWS_WITH(proving_key_of(p, bigger, pool), InvalidArgument, "not this circuit's key");
  CHECK_THROWS_WITH(proving_key_of(read_params(dir + "/k.vk", pool), mine, pool), InvalidArgument,
                    "has no proving sections");
  io::R1cs bn = mine;
  bn.curve = CurveId::bn254;
  CHECK_THROWS_WITH(proving_key_of(p, bn, pool), InvalidArgument, "is for bn254");
  // A deferred read checks the points as they are decoded: an identity in h is refused there.
  auto bytes = p.file->bytes();
  std::vector<uint8_t> w(bytes.begin(), bytes.end());
  uint8_t* h4 = w.data() + p.h.offset + 4 * 96;
  std::memset(h4, 0, 96);
  h4[0] = 0x40;
  const ParamsFile q = parse_params(buffer(w), pool, false, true);
  CHECK_THROWS_WITH(proving_key_of(q, mine, pool), FormatError, "section h, point 4 ");
  CHECK_THROWS_WITH(parse_params(buffer(w), pool), FormatError, "section h, point 4 ");
}

CUZK_TEST(params_and_vk_round_trip) {
  const ParamsData& d = key();
  const std::string dir = temp_dir() + "/params";
  std::filesystem::create_directories(dir);
  write_params(dir + "/k.params", d);
  write_vk(dir + "/k.vk", d);
  ThreadPool pool(2);
  ParamsFile p = read_params(dir + "/k.params", pool, true);
  CHECK(!p.is_vk);
  CHECK_EQ(p.size(), uint64_t(std::filesystem::file_size(dir + "/k.params")));
  CHECK_EQ(p.size(), uint64_t(kVkFixedBytes + d.ic.size() * 96 + 20 +
                              (d.h.size() + d.l.size() + d.a.size() + d.b_g1.size()) * 96 + d.b_g2.size() * 192));
  CHECK(p.g1(p.alpha_g1, 0) == d.alpha_g1 && p.g1(p.beta_g1, 0) == d.beta_g1 && p.g1(p.delta_g1, 0) == d.delta_g1);
  CHECK(p.g2(p.beta_g2, 0) == d.beta_g2 && p.g2(p.gamma_g2, 0) == d.gamma_g2 && p.g2(p.delta_g2, 0) == d.delta_g2);
  CHECK(same_points(p, p.ic, d.ic) && same_points(p, p.h, d.h) && same_points(p, p.l, d.l));
  CHECK(same_points(p, p.a, d.a) && same_points(p, p.b_g1, d.b_g1) && same_points(p, p.b_g2, d.b_g2));
  CHECK_EQ(p.sections().size(), size_t(12));
  CHECK(p.g1s(p.h, pool) == d.h && p.g1s(p.a, pool) == d.a && p.g2s(p.b_g2, pool) == d.b_g2);
  CHECK_THROWS_WITH(p.g1s(p.b_g2, pool), InvalidArgument, "section b_g2 holds G2 points");
  ParamsFile v = read_params(dir + "/k.vk", pool);
  CHECK(v.is_vk);
  CHECK_EQ(v.ic.count, uint32_t(d.ic.size()));
  CHECK_EQ(v.h.count, 0u);
  CHECK(same_points(v, v.ic, d.ic));
  // The .vk is the .params' prefix, byte for byte.
  auto pb = p.file->bytes(), vb = v.file->bytes();
  CHECK(std::memcmp(pb.data(), vb.data(), vb.size()) == 0);
  // The first point is the zcash encoding of alpha: x big-endian, no flags.
  uint8_t enc[96];
  encode_uncompressed(d.alpha_g1, enc);
  CHECK((enc[0] & 0xE0) == 0 && std::memcmp(enc, pb.data(), 96) == 0);
  uint8_t inf[192];
  encode_uncompressed(G2::infinity(), inf);
  CHECK(inf[0] == 0x40 && std::all_of(inf + 1, inf + 192, [](uint8_t b) { return b == 0; }));
}

// Parsing `bytes` must throw naming `needle`.
void refused(std::vector<uint8_t> bytes, const std::string& needle, bool check = false) {
  ThreadPool pool(2);
  CHECK_THROWS_WITH(parse_params(buffer(std::move(bytes)), pool, check), FormatError, needle);
}

// Offsets of the first point of each counted section in an encoded key (its count is the 4 bytes
// before).
struct Offsets {
  size_t ic, h, l, a, b_g1, b_g2;
  explicit Offsets(const ParamsData& d) {
    ic = kVkFixedBytes;
    h = ic + d.ic.size() * 96 + 4;
    l = h + d.h.size() * 96 + 4;
    a = l + d.l.size() * 96 + 4;
    b_g1 = a + d.a.size() * 96 + 4;
    b_g2 = b_g1 + d.b_g1.size() * 96 + 4;
  }
};

CUZK_TEST(params_refuses_bad_layouts) {
  const ParamsData& d = key();
  const auto good = encode_params(d);
  const Offsets o(d);
  // Truncated: in the last section, and inside the fixed part.
  refused({good.begin(), good.end() - 1}, "section b_g2: count");
  refused({good.begin(), good.begin() + 500}, "shorter than a verifying key's fixed part");
  refused({good.begin(), good.begin() + o.h - 2}, "section h: its u32 count");
  // Trailing bytes.
  auto t = good;
  t.push_back(0);
  refused(t, "1 bytes after section b_g2");
  // Wrong counts: one more h point than there is room for (every later section then misreads).
  auto w = good;
  w[o.h - 1] += 1;
  refused(w, "section");
  w = good;
  w[o.l - 4] = 0xff;  // l's count ~ 4e9: needs far more than the file
  refused(w, "section l: count");
  w = good;
  w[o.ic - 1] = 0;
  w[o.ic - 2] = 0;
  w[o.ic - 3] = 0;
  w[o.ic - 4] = 0;
  refused(w, "section");
  ParamsData no_ic = d;
  no_ic.ic.clear();
  refused(encode_vk(no_ic), "section ic is empty");
}

CUZK_TEST(params_refuses_bad_points_naming_section_and_index) {
  const ParamsData& d = key();
  const auto good = encode_params(d);
  const Offsets o(d);
  // A point off the curve: h[3] with its last byte changed.
  auto w = good;
  w[o.h + 4 * 96 - 1] ^= 1;
  refused(w, "section h, point 3");
  refused(w, "not on the curve");
  // A G2 point's bytes in G1's place: l[1] takes the first 96 bytes of b_g2[0].
  w = good;
  std::memcpy(&w[o.l + 96], &good[o.b_g2], 96);
  refused(w, "section l, point 1");
  // The identity: a[2] (bellperson refuses it in a), ic[0].
  w = good;
  std::memset(&w[o.a + 2 * 96], 0, 96);
  w[o.a + 2 * 96] = 0x40;
  refused(w, "section a, point 2 (offset " + std::to_string(o.a + 2 * 96) + ") is the point at infinity");
  w = good;
  std::memset(&w[o.ic], 0, 96);
  w[o.ic] = 0x40;
  refused(w, "section ic, point 0");
  // The identity with a stray bit, the compression flag, the sort flag.
  w = good;
  std::memset(&w[o.b_g1], 0, 96);
  w[o.b_g1] = 0x40;
  w[o.b_g1 + 95] = 1;
  refused(w, "section b_g1, point 0 (offset " + std::to_string(o.b_g1) + ") is the point at infinity with non-zero");
  w = good;
  w[o.b_g2 + 192] |= 0x80;
  refused(w, "section b_g2, point 1");
  refused(w, "compression flag");
  w = good;
  w[0] |= 0x20;
  refused(w, "section alpha_g1, point 0");
  // A coordinate not below q: x of delta_g1 all ones.
  w = good;
  const size_t delta_g1 = 2 * 96 + 2 * 192;
  w[delta_g1] = 0x1f;
  std::memset(&w[delta_g1 + 1], 0xff, 47);
  refused(w, "section delta_g1, point 0");
  refused(w, "not canonical");
  // The first bad point is named, whatever the number of threads.
  w = good;
  w[o.h + 20 * 96 - 1] ^= 1;
  w[o.h + 7 * 96 - 1] ^= 1;
  refused(w, "section h, point 6 ");
}

// A point on E(Fp) outside the prime-order subgroup: found with --check (and always in the vk).
CUZK_TEST(params_check_finds_points_outside_the_subgroup) {
  using Fq = ec::Bls12381::Fq;
  G1 p;
  for (uint64_t x = 1;; ++x) {
    Fq xv = Fq::from_u64(x), y;
    if ((xv.sqr() * xv + Fq::from_u64(4)).sqrt(y)) {
      p = {xv, y};
      if (!ec::Pairing<ec::Bls12381>::g1_in_subgroup(p)) break;
    }
  }
  ParamsData d = key();
  d.l[5] = p;
  auto bytes = encode_params(d);
  ThreadPool pool(2);
  auto f = parse_params(buffer(bytes), pool, false);  // unchecked: on the curve is enough
  CHECK_EQ(f.l.count, uint32_t(d.l.size()));
  refused(bytes, "section l, point 5", true);
  refused(bytes, "not in the prime-order subgroup", true);
  d = key();
  d.ic[1] = p;
  refused(encode_params(d), "section ic, point 1");  // the verifying key is always checked
}

// ------------------------------------------------------------------ proofs

CUZK_TEST(regression_records_proofs_all_decode) {
  const std::string kVectors = vectors_dir();
  CHECK_MSG(std::filesystem::exists(kVectors), "no " << kVectors);
  struct Want {
    const char* file;
    size_t records, proofs, aggregated;
  };
  for (Want w :
       {Want{"seal_regression_records-v16.json", 448, 502, 0}, Want{"seal_regression_records-v18.json", 113, 98, 24}}) {
    auto s = decode_records(kVectors + "/" + w.file);
    std::printf("  %s: %zu records: %zu proofs decoded, %zu invalid, %zu aggregated\n", w.file, s.records,
                s.proofs_decoded, s.invalid, s.aggregated);
    CHECK_MSG(s.invalid == 0, (s.problems.empty() ? "" : s.problems[0]));
    CHECK_EQ(s.records, w.records);
    CHECK_EQ(s.proofs_decoded, w.proofs);
    CHECK_EQ(s.aggregated, w.aggregated);
  }
}

// The first record's proof: decodes, re-encodes to the same bytes; every single flipped bit of
// it is refused or decodes to another point (never the same proof), and the flags bits refused.
CUZK_TEST(proof_bytes_round_trip_and_flipped_bits) {
  const std::string kVectors = vectors_dir();
  CHECK_MSG(std::filesystem::exists(kVectors), "no " << kVectors);
  std::ifstream in(kVectors + "/seal_regression_records-v16.json");
  std::string line;
  std::getline(in, line);
  io::Json rec = io::parse_json(line);
  std::vector<uint8_t> bytes;
  for (const auto& x : rec.find("proof")->items) bytes.push_back(uint8_t(*x.as_u64()));
  CHECK_EQ(bytes.size(), size_t(192));
  auto proofs = decode_proofs(bytes);
  CHECK(encode_proofs(proofs) == bytes);
  size_t refused_bits = 0;
  for (size_t bit = 0; bit < 192 * 8; ++bit) {
    auto w = bytes;
    w[bit / 8] ^= uint8_t(1 << (bit % 8));
    BlsProof p;
    std::string e = decode_proof(std::span<const uint8_t, 192>(w.data(), 192), p);
    if (!e.empty()) {
      ++refused_bits;
      continue;
    }
    CHECK(encode_proofs({p}) == w);  // a different valid proof, then: canonical either way
  }
  std::printf("  %zu of 1536 single-bit flips refused\n", refused_bits);
  CHECK(refused_bits > 1400);
  // The compression flag of A, the infinity flag of B, a non-canonical C.
  auto w = bytes;
  w[0] &= 0x7f;
  CHECK_THROWS_WITH(decode_proofs(w), Error, "partition 0, A: the compression flag");
  w = bytes;
  w[48] |= 0x40;
  CHECK_THROWS_WITH(decode_proofs(w), Error, "B: the point at infinity has");
  w = bytes;
  w[144] = 0x9f;
  std::memset(&w[145], 0xff, 47);
  CHECK_THROWS_WITH(decode_proofs(w), Error, "C: x is not canonical");
  // The identity is a valid encoding, which a proof may not hold.
  w = bytes;
  w[0] = 0xc0;
  std::memset(&w[1], 0, 47);
  CHECK_THROWS_WITH(decode_proofs(w), Error, "A: the point at infinity (bellperson refuses it)");
  CHECK_THROWS_WITH(decode_proofs({bytes.data(), 191}), Error, "not a multiple of 192");
}

// A record's line with its proof bytes changed by f.
template <class Fn>
std::string with_proof(const std::string& line, Fn&& f) {
  const size_t at = line.find("\"proof\":[");
  CHECK(at != std::string::npos);
  const size_t begin = at + 9, end = line.find(']', begin);
  std::vector<uint8_t> p;
  for (size_t i = begin; i < end;) {
    size_t j = line.find_first_of(",]", i);
    p.push_back(uint8_t(std::stoul(line.substr(i, j - i))));
    i = j + 1;
  }
  f(p);
  std::string bytes;
  for (size_t i = 0; i < p.size(); ++i) bytes += (i ? "," : "") + std::to_string(p[i]);
  return line.substr(0, begin) + bytes + line.substr(end);
}

CUZK_TEST(records_with_a_flipped_bit_count_invalid) {
  const std::string kVectors = vectors_dir();
  CHECK_MSG(std::filesystem::exists(kVectors), "no " << kVectors);
  std::ifstream in(kVectors + "/seal_regression_records-v16.json");
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  // One flipped bit: A's compression flag (bit 7 of byte 0), in an otherwise unchanged record.
  const std::string text = with_proof(first, [](std::vector<uint8_t>& p) { p[0] &= 0x7f; });
  auto s = decode_records_text("r.json", second + "\n" + text);
  CHECK_EQ(s.records, size_t(2));
  CHECK_EQ(s.proofs_decoded, size_t(1));
  CHECK_EQ(s.invalid, size_t(1));
  CHECK_EQ(s.problems.size(), size_t(1));
  CHECK_MSG(s.problems[0].find("line 2: partition 0: A:") != std::string::npos, s.problems[0]);
  CHECK_THROWS_WITH(decode_records_text("r.json", "{\"proof\": []}\n"), FormatError, "r.json: line 1: no member");
  CHECK_THROWS_WITH(decode_records_text("r.json", "\n{]\n"), FormatError, "line 2: invalid JSON");
}

// Verification of records under a verifying key found by its published name: the key made here
// with known discrete logs (no circuit), so that a proof for exactly the public inputs cuzk
// computes from a record (replica_id, interactive or synthetic challenges, their parents) can be
// made by hand. The proof verifies; the same proof with any other seed or comm_d does not.
CUZK_TEST(records_verify_under_a_key_found_by_its_published_name) {
  using E = ec::Bls12381;
  using Fr = E::Fr;
  const std::string kVectors = vectors_dir();
  CHECK_MSG(std::filesystem::exists(kVectors), "no " << kVectors);
  std::ifstream in(kVectors + "/seal_regression_records-v16.json");
  std::vector<std::string> lines(4);
  for (auto& l : lines) std::getline(in, l);  // 2KiB: API 1.0, 1.1, 1.2, 1.2 synthetic
  const std::vector<PorepRecord> recs = parse_records_text("r.json", lines[1] + "\n" + lines[3] + "\n");
  CHECK(recs[0].kind == PorepChallengeKind::interactive && recs[1].kind == PorepChallengeKind::synthetic);
  const size_t n_in = recs[0].public_inputs(StackedGraph(64, recs[0].porep_id, recs[0].api), 0).size();
  CHECK_EQ(n_in, size_t(3 + 2 * 18));

  RandomSource rs(seed() + 11);
  const auto g1 = E::G1Jac::from_affine(ec::Bls12381G1Cfg::generator());
  const auto g2 = E::G2Jac::from_affine(ec::Bls12381G2Cfg::generator());
  auto p1 = [&](const Fr& k) { return E::G1::mul(g1, k).to_affine(); };
  auto p2 = [&](const Fr& k) { return E::G2::mul(g2, k).to_affine(); };
  const Fr alpha = random_field<Fr>(rs), beta = random_field<Fr>(rs), gamma = random_field<Fr>(rs),
           delta = random_field<Fr>(rs);
  std::vector<Fr> u(n_in + 1);
  for (Fr& x : u) x = random_field<Fr>(rs);
  ParamsData d;
  d.alpha_g1 = p1(alpha), d.beta_g1 = p1(beta), d.delta_g1 = p1(delta);
  d.beta_g2 = p2(beta), d.gamma_g2 = p2(gamma), d.delta_g2 = p2(delta);
  for (const Fr& x : u) d.ic.push_back(p1(x));
  const std::string dir = temp_dir() + "/vk";
  std::filesystem::create_directories(dir);
  for (const CircuitParams& c : published_circuits())
    if (c.kind == ProofKind::porep && c.sector_size == 2048) write_vk(dir + "/" + c.stem() + ".vk", d);

  // A proof of the record's own public inputs: e(A, B) = e(alpha, beta) e(vk_x, gamma) e(C, delta).
  auto proven = [&](const PorepRecord& r) {
    const auto x = r.public_inputs(StackedGraph(r.nodes(), r.porep_id, r.api), 0);
    Fr vk_x = u[0];
    for (size_t i = 0; i < x.size(); ++i) vk_x += x[i] * u[i + 1];
    const Fr a = random_field<Fr>(rs), b = random_field<Fr>(rs);
    const Fr c = (a * b - alpha * beta - vk_x * gamma) * delta.inv();
    const std::vector<uint8_t> bytes = encode_proofs({BlsProof{p1(a), p2(b), p1(c)}});
    return with_proof(r.line == 1 ? lines[1] : lines[3], [&](std::vector<uint8_t>& p) { p = bytes; });
  };
  std::string text = proven(recs[0]) + "\n" + proven(recs[1]) + "\n";
  RecordsSummary s = check_records(parse_records_text("r.json", text), "r.json", dir);
  CHECK_MSG(s.verified == 2 && s.rejected == 0, (s.problems.empty() ? "" : s.problems[0]));
  CHECK_EQ(s.inputs, size_t(2));
  // Without the key: decoded and the inputs computed, none verified.
  s = check_records(parse_records_text("r.json", text), "r.json");
  CHECK(s.verified == 0 && s.inputs == 2 && s.no_vk == 0);
  // Another seed (other challenges) or comm_d (another replica_id): rejected.
  for (const char* field : {"\"seed\":[", "\"comm_d\":["}) {
    std::string t = text;  // the first byte of the field made another
    const size_t at = t.find(field) + std::strlen(field), end = t.find(',', at);
    t.replace(at, end - at, t.substr(at, end - at) == "0" ? "1" : "0");
    s = check_records(parse_records_text("r.json", t), "r.json", dir);
    CHECK_MSG(s.verified == 1 && s.rejected == 1, field);
    CHECK_MSG(s.problems[0].find("line 1: partition 0: rejected by the verifying key") != std::string::npos,
              s.problems[0]);
  }
  // A directory without the 2KiB key: counted, not verified.
  s = check_records(parse_records_text("r.json", text), "r.json", temp_dir());
  CHECK_EQ(s.no_vk, size_t(2));
}

}  // namespace
}  // namespace cuzk::test
