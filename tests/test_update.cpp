// SPDX-License-Identifier: MIT OR Apache-2.0
// The SnapDeals EmptySectorUpdate circuit (storage-proofs-update): the counts its tests assert
// (tests/circuit.rs, tests/circuit_poseidon.rs: the circuit's own constraints), the back ends
// agreeing, the sector-size table, a real sector's witness satisfying the rows (and a changed
// value breaking them), and the 32GiB counts. `test_update update` runs the fast cases,
// `test_update sector_32gib` the 32GiB ones (ctest runs both).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "filecoin/update.hpp"
#include "filecoin/update_circuit.hpp"
#include "testing.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::test {
namespace {

using namespace cuzk::filecoin;
using Fr = PoseidonFr;

circuit::Shape shape_of(const UpdateCircuitConfig& c) {
  circuit::ShapeCs<Fr> cs;
  update_circuit(cs, c, update_blank_witness(c));
  return cs.shape();
}

CUZK_TEST(update_test_circuit_counts) {
  const std::pair<uint64_t, uint64_t> published[] = {{1 << 10, 1248389}, {2 << 10, 1705039},  {4 << 10, 2165109},
                                                     {8 << 10, 2620359}, {16 << 10, 6300021}, {32 << 10, 6760091}};
  for (const auto& [bytes, count] : published) {
    const UpdateCircuitConfig c = update_sector_config(bytes, false).circuit;
    const circuit::Shape s = shape_of(c);
    CHECK_MSG(s.constraints == count, bytes << " bytes: " << s.constraints << " constraints, want " << count);
    CHECK_EQ(s.inputs, c.inputs());
  }
  const std::pair<uint64_t, uint64_t> published_poseidon[] = {{1 << 10, 32164}, {8 << 10, 47974}};
  for (const auto& [bytes, count] : published_poseidon) {
    const UpdateCircuitConfig c = update_sector_config(bytes, true).circuit;
    const circuit::Shape s = shape_of(c);
    CHECK_MSG(s.constraints == count, bytes << " bytes, Poseidon: " << s.constraints << " constraints, want " << count);
    CHECK_EQ(s.inputs, c.inputs());
  }
}

// The gadgets' counts gadgets.rs' tests assert: gen_challenge_bits at every allowed size (after
// the partition's bits, as the test allocates them), and apex_por.
CUZK_TEST(update_gadget_counts) {
  const uint64_t kib[] = {1, 2, 4, 8, 16, 32, 8 << 10, 16 << 10, 512 << 10, 32 << 20, 64 << 20};
  const uint64_t gen_expected[] = {568, 568, 568, 568, 568, 568, 568, 568, 4544, 5680, 5680};
  for (size_t i = 0; i < std::size(kib); ++i) {
    const UpdateCircuitConfig c = update_sector_config(kib[i] << 10, false).circuit;
    circuit::ShapeCs<Fr> cs;
    const auto comm_r_new = circuit::alloc_num(cs, [] { return Fr::zero(); });
    const auto k = circuit::alloc_num(cs, [] { return Fr::zero(); });
    detail::update_num_bits(cs, k, size_t(circuit::field_num_bits<Fr>()));
    const uint64_t before = cs.num_constraints();
    const auto bits = detail::update_gen_challenge_bits(cs, c, comm_r_new, k, c.random_bits());
    CHECK_MSG(cs.num_constraints() - before == gen_expected[i], kib[i] << "KiB: " << cs.num_constraints() - before);
    CHECK_EQ(bits.size(), c.challenges);
  }
  // apex_por at the test sizes (32KiB's is 16KiB's: 2 partitions of 128 apex leaves), and at 16KiB
  // split into 4 partitions of 16 apex leaves and 8 of 8 (test_apex_por_gadget_16kib_4_8_partitions).
  struct Apex {
    uint64_t kib;
    size_t partitions, apex_leaves;
    uint64_t want;
  };
  for (const Apex& a : {Apex{1, 1, 8, 317654}, Apex{2, 1, 8, 317654}, Apex{4, 1, 8, 317654}, Apex{8, 1, 8, 317654},
                        Apex{16, 2, 128, 5808515}, Apex{16, 4, 16, 771448}, Apex{16, 8, 8, 453797}}) {
    UpdateCircuitConfig c = update_sector_config(a.kib << 10, false).circuit;
    c.partitions = a.partitions, c.apex_leaves = a.apex_leaves;
    c.validate();
    circuit::ShapeCs<Fr> cs;
    const auto comm_d = circuit::alloc_num(cs, [] { return Fr::zero(); });
    std::vector<circuit::Bit> pbits;
    for (size_t b = 0; b < c.partition_bits(); ++b) pbits.push_back(circuit::alloc_bit(cs, false));
    std::vector<circuit::Num<Fr>> leaves;
    for (size_t l = 0; l < c.apex_leaves; ++l) leaves.push_back(circuit::alloc_num(cs, [] { return Fr::zero(); }));
    std::vector<std::vector<circuit::Num<Fr>>> path;
    for (size_t b = 0; b < c.partition_bits(); ++b) path.push_back({circuit::alloc_num(cs, [] { return Fr::zero(); })});
    const uint64_t before = cs.num_constraints();
    detail::update_apex_por(cs, std::span<const circuit::Bit>(pbits), leaves, path, comm_d);
    CHECK_MSG(cs.num_constraints() - before == a.want,
              a.kib << "KiB, " << a.partitions << " partitions: " << cs.num_constraints() - before);
  }
}

// rand_xorshift's XorShiftRng (the Rust tests' generator) and blstrs' Scalar::random over it
// (four u64 least significant first, the top bit cleared, rejected unless below r).
class XorShiftRng {
 public:
  explicit XorShiftRng(const std::array<uint8_t, 16>& seed) {
    for (int i = 0; i < 4; ++i)
      s_[i] = uint32_t(seed[4 * i]) | uint32_t(seed[4 * i + 1]) << 8 | uint32_t(seed[4 * i + 2]) << 16 |
              uint32_t(seed[4 * i + 3]) << 24;
  }
  uint32_t next_u32() {
    const uint32_t t = s_[0] ^ (s_[0] << 11);
    s_[0] = s_[1], s_[1] = s_[2], s_[2] = s_[3];
    s_[3] = s_[3] ^ (s_[3] >> 19) ^ (t ^ (t >> 8));
    return s_[3];
  }
  uint64_t next_u64() {
    const uint64_t lo = next_u32();
    return uint64_t(next_u32()) << 32 | lo;
  }
  Fr random_fr() {
    for (;;) {
      Fr::Limbs l{};
      for (int i = 0; i < 4; ++i) l.v[i] = next_u64();
      l.v[3] &= ~uint64_t(0) >> 1;
      const Fr x = Fr::from_std(l);
      const Fr::Limbs back = x.to_std();
      if (std::equal(back.v, back.v + 4, l.v)) return x;  // below r: the value round-trips
    }
  }

 private:
  uint32_t s_[4];
};

// challenges.rs' test_challenges_against_hardcoded: the first five challenges of partition k for
// comm_r_new = the first random Fr of TEST_SEED. They hold Poseidon-2 under the custom tag 1 and
// the bit slicing to what rust-fil-proofs computes (the circuit takes the same bits).
CUZK_TEST(update_challenges_known_answers) {
  XorShiftRng rng({0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d, 0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5});
  const Fr comm_r_new = rng.random_fr();
  struct Vector {
    uint64_t kib;
    size_t k;
    std::array<uint64_t, 5> first;
  };
  const Vector vectors[] = {
      {1, 0, {21, 7, 3, 31, 0}},
      {2, 0, {53, 51, 56, 3, 0}},
      {4, 0, {117, 25, 62, 0, 72}},
      {8, 0, {245, 140, 15, 128, 28}},
      {16, 0, {245, 140, 15, 128, 28}},
      {16, 1, {286, 308, 493, 510, 508}},
      {32, 0, {245, 454, 3, 400, 193}},
      {32, 1, {542, 666, 955, 927, 911}},
      {8 << 10, 0, {36085, 32783, 44060, 10950, 3731}},
      {8 << 10, 1, {78878, 130797, 112892, 93994, 78379}},
      {16 << 10, 0, {101621, 16391, 109319, 25944, 41193}},
      {16 << 10, 1, {209950, 163702, 175679, 224741, 197410}},
      {512 << 10, 0, {1019125, 116736, 706220, 59698, 799498}},
      {512 << 10, 1, {2092548, 1213276, 1185483, 1164598, 1095197}},
      {512 << 10, 14, {15212432, 15665918, 15015423, 15012912, 15495223}},
      {512 << 10, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
      {32 << 20, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
      {32 << 20, 1, {109168525, 127316247, 80331041, 97065716, 72310052}},
      {32 << 20, 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
      {32 << 20, 15, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
      {64 << 20, 0, {1019125, 13992848, 3820715, 18225541, 57316660}},
      {64 << 20, 1, {243386253, 197875851, 204632136, 171516766, 247789010}},
      {64 << 20, 14, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
      {64 << 20, 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
  };
  for (const Vector& v : vectors) {
    const std::vector<uint64_t> got =
        update_challenges(update_sector_config(v.kib << 10, false).circuit, comm_r_new, v.k);
    for (size_t i = 0; i < 5; ++i)
      CHECK_MSG(got.at(i) == v.first[i], v.kib << "KiB k " << v.k << " challenge " << i << ": " << got.at(i));
  }
}

// Back ends: RecordCs's rows give ShapeCs's counts, and the values back end allocates the same.
CUZK_TEST(update_back_ends_agree) {
  for (bool poseidon : {false, true}) {
    const UpdateCircuitConfig c = update_sector_config(1 << 10, poseidon).circuit;
    const UpdateWitness w = update_blank_witness(c);
    circuit::RecordCs<Fr, false> rec;
    update_circuit(rec, c, w);
    CHECK(rec.shape() == shape_of(c));
    circuit::WitnessCs<Fr> wit;
    update_circuit(wit, c, w);
    CHECK_EQ(wit.num_inputs(), rec.num_inputs());
    CHECK_EQ(wit.num_aux(), rec.num_aux());
    CHECK_EQ(wit.num_constraints(), rec.num_constraints());
  }
}

// The table of constants.rs.
CUZK_TEST(update_sector_sizes) {
  const UpdateSectorConfig s32 = update_sector_config(uint64_t(32) << 30, false);
  CHECK_EQ(s32.partitions, size_t(16));
  CHECK_EQ(s32.circuit.challenges, size_t(86));
  CHECK_EQ(s32.circuit.apex_leaves, size_t(128));
  CHECK_EQ(s32.circuit.tree_r.name(), std::string("poseidon-8-8"));
  CHECK_EQ(s32.circuit.hs[3], size_t(10));
  CHECK_EQ(s32.circuit.random_bits(), size_t(26));
  CHECK_EQ(s32.circuit.digests(), size_t(10));  // 9 challenges per digest
  CHECK_EQ(update_sector_config(uint64_t(64) << 30, false).circuit.tree_r.name(), std::string("poseidon-8-8-2"));
  const UpdateSectorConfig p32 = update_sector_config(uint64_t(32) << 30, true);
  CHECK_EQ(p32.partitions, size_t(1));
  CHECK_EQ(p32.circuit.tree_d().name(), std::string("poseidon-8-8"));
  const UpdateSectorConfig s1 = update_sector_config(1 << 10, false);
  CHECK_EQ(s1.circuit.tree_r.name(), std::string("poseidon-8-4"));
  CHECK_EQ(s1.circuit.apex_leaves, size_t(8));
  CHECK_EQ(s1.circuit.hs[0], size_t(1));
  CHECK_EQ(update_sector_config(16 << 10, false).partitions, size_t(2));
  CHECK_EQ(update_sector_config(8 << 20, false).partitions, size_t(4));
  CHECK_EQ(update_sector_config(512 << 20, false).partitions, size_t(16));
  for (uint64_t kib : {1, 2, 4, 8, 16, 32, 8 << 10, 16 << 10, 512 << 10, 32 << 20, 64 << 20})
    for (bool poseidon : {false, true}) update_sector_config(kib << 10, poseidon).circuit.validate();
  CHECK_THROWS_WITH(update_sector_config(64 << 10, false), InvalidArgument, "not one storage-proofs-update allows");
  UpdateCircuitConfig bad = s1.circuit;
  bad.hs[5] = 6;
  CHECK_THROWS_WITH(bad.validate(), InvalidArgument, "h = 6");
  bad = s1.circuit;
  bad.apex_leaves = 32;
  CHECK_THROWS_WITH(bad.validate(), InvalidArgument, "too few");
  CHECK_THROWS_WITH(update_k_and_h_select(s1.circuit, 1, 1), InvalidArgument, "partition 1 of 1");
  CHECK_THROWS_WITH(update_h_select(s32.circuit, 13), InvalidArgument, "h = 13");
  CHECK_EQ(update_k_and_h_select(s32.circuit, 5, 10), uint64_t(5 | 8 << 4));
}

// A sector updated as rust-fil-proofs' circuit tests do it: random old replica labels (tree R
// old), comm_c, random new data (tree D new), the new replica label by label as
// old + data · rho(phi, the node's h high bits) (tree R new), comm_r = Poseidon-2(comm_c, root).
struct Sector {
  UpdateCircuitConfig c;
  size_t h = 0;
  std::vector<Fr> r_old, d_new, r_new;
  std::vector<std::vector<Fr>> tree_d;  // the SHA-256 variant's tree D, leaves up
  Fr comm_c, root_r_old, root_r_new, comm_r_old, comm_r_new, comm_d_new;
};

Sector make_sector(const UpdateCircuitConfig& c, size_t h, uint64_t salt) {
  Sector s;
  s.c = c, s.h = h;
  RandomSource rs(seed() + salt);
  auto rnd = [&] { return random_field<Fr>(rs); };
  for (uint64_t n = 0; n < c.nodes; ++n) s.r_old.push_back(rnd());
  s.comm_c = rnd();
  for (uint64_t n = 0; n < c.nodes; ++n) s.d_new.push_back(rnd());
  auto root = [&](const TreeShape& t, const std::vector<Fr>& leaves) { return por_witness(t, leaves, 0).root; };
  s.root_r_old = root(c.tree_r, s.r_old);
  s.comm_r_old = poseidon_hash(2, std::vector<Fr>{s.comm_c, s.root_r_old});
  if (c.poseidon) {
    s.comm_d_new = root(c.tree_r, s.d_new);
  } else {
    s.tree_d.push_back(s.d_new);
    while (s.tree_d.back().size() > 1) {
      const std::vector<Fr>& below = s.tree_d.back();
      std::vector<Fr> up;
      for (size_t i = 0; i < below.size(); i += 2)
        up.push_back(merkle_node(MerkleHasher::sha256, std::span<const Fr>(below).subspan(i, 2)));
      s.tree_d.push_back(std::move(up));
    }
    s.comm_d_new = s.tree_d.back()[0];
    CHECK(s.comm_d_new == root(c.tree_d(), s.d_new));
  }
  const Fr phi = update_phi(s.comm_d_new, s.comm_r_old);
  const size_t shift = c.challenge_bits() - h;
  for (uint64_t n = 0; n < c.nodes; ++n) s.r_new.push_back(s.r_old[n] + s.d_new[n] * update_rho(phi, n >> shift));
  s.root_r_new = root(c.tree_r, s.r_new);
  s.comm_r_new = poseidon_hash(2, std::vector<Fr>{s.comm_c, s.root_r_new});
  return s;
}

// Partition k's witness: its challenges' three Merkle proofs and its apex leaves.
UpdateWitness partition_witness(const Sector& s, size_t k) {
  const UpdateCircuitConfig& c = s.c;
  UpdateWitness w;
  w.k_and_h_select = update_k_and_h_select(c, k, s.h);
  w.comm_r_old = s.comm_r_old, w.comm_d_new = s.comm_d_new, w.comm_r_new = s.comm_r_new;
  w.comm_c = s.comm_c, w.root_r_old = s.root_r_old, w.root_r_new = s.root_r_new;
  if (!c.poseidon) {
    const std::vector<Fr>& row = s.tree_d.at(c.challenge_bits() - c.partition_bits() - c.apex_bits());
    w.apex_leaves.assign(row.begin() + k * c.apex_leaves, row.begin() + (k + 1) * c.apex_leaves);
  }
  for (uint64_t ch : update_challenges(c, s.comm_r_new, k)) {
    CHECK_MSG(ch / (c.nodes / c.partitions) == k, "challenge " << ch << " outside partition " << k);
    UpdateChallengeWitness cw;
    const PorWitness r_old = por_witness(c.tree_r, s.r_old, ch), r_new = por_witness(c.tree_r, s.r_new, ch);
    const PorWitness d_new = por_witness(c.tree_d(), s.d_new, ch);
    cw.leaf_r_old = r_old.leaf, cw.path_r_old = r_old.path;
    cw.leaf_r_new = r_new.leaf, cw.path_r_new = r_new.path;
    cw.leaf_d_new = d_new.leaf, cw.path_d_new = d_new.path;
    w.challenges.push_back(std::move(cw));
  }
  return w;
}

// Values and rows, each row checked as it comes and none kept (quicker than recording them).
class CheckCs {
 public:
  using Field = Fr;
  static constexpr bool kValues = true;
  static constexpr bool kRows = true;

  template <class Fn>
  circuit::Var alloc(Fn&& f) {
    aux.push_back(f());
    return circuit::Var::aux(uint32_t(aux.size() - 1));
  }
  template <class Fn>
  circuit::Var alloc_input(Fn&& f) {
    inputs.push_back(f());
    return circuit::Var::input(uint32_t(inputs.size() - 1));
  }
  template <class A, class B, class C>
  void enforce(A&& a, B&& b, C&& c) {
    auto value = [&](circuit::Var v) { return v.is_input() ? inputs[v.index()] : aux[v.index()]; };
    const Fr va = circuit::make_lc<Fr>(std::forward<A>(a)).eval(value);
    const Fr vb = circuit::make_lc<Fr>(std::forward<B>(b)).eval(value);
    const Fr vc = circuit::make_lc<Fr>(std::forward<C>(c)).eval(value);
    if (va * vb != vc) ok = false;
  }
  uint64_t num_inputs() const { return inputs.size(); }
  uint64_t num_aux() const { return aux.size(); }

  std::vector<Fr> inputs{Fr::one()}, aux;
  bool ok = true;
};

bool satisfied(const UpdateCircuitConfig& c, const UpdateWitness& w) {
  CheckCs cs;
  update_circuit(cs, c, w);
  return cs.ok;
}

// The circuit over a real sector's partition: satisfied, its public inputs generate_public_inputs'
// (k_and_h_select, comm_r_old, comm_d_new, comm_r_new), the parallel values the sequential ones,
// and a changed value breaks it.
void check_sector(const UpdateCircuitConfig& c, size_t h, size_t k, const std::string& what) {
  const Sector s = make_sector(c, h, c.nodes + (c.poseidon ? 1 : 0));
  const UpdateWitness w = partition_witness(s, k);
  circuit::RecordCs<Fr> cs;
  update_circuit(cs, c, w);
  CHECK_MSG(cs.is_satisfied(), what << ": row " << cs.first_unsatisfied());
  const std::vector<Fr> pub = update_public_inputs(c, k, h, s.comm_r_old, s.comm_d_new, s.comm_r_new);
  CHECK_EQ(cs.inputs.size(), size_t(5));
  for (size_t i = 0; i < pub.size() && i + 1 < cs.inputs.size(); ++i)
    CHECK_MSG(cs.inputs[i + 1] == pub[i], what << ": public input " << i);
  {
    ThreadPool pool(3);
    circuit::WitnessCs<Fr> par;
    update_circuit(par, c, w, &pool);
    CHECK_MSG(par.inputs == cs.inputs && std::ranges::equal(par.aux, cs.aux), what);
    CHECK_EQ(par.num_constraints(), cs.num_constraints());
  }
  auto breaks = [&](auto change) {
    UpdateWitness bad = w;
    change(bad);
    return !satisfied(c, bad);
  };
  CHECK_MSG(breaks([](UpdateWitness& b) { b.comm_c += Fr::one(); }), what);
  CHECK_MSG(breaks([](UpdateWitness& b) { b.root_r_new += Fr::one(); }), what);
  CHECK_MSG(breaks([](UpdateWitness& b) { b.challenges[3].path_r_old[0].siblings[2] += Fr::one(); }), what);
  CHECK_MSG(breaks([](UpdateWitness& b) { b.challenges[7].path_d_new[0].siblings[0] += Fr::one(); }), what);
  CHECK_MSG(breaks([](UpdateWitness& b) {
              b.challenges[5].leaf_r_old += Fr::one();
              b.challenges[5].leaf_r_new += Fr::one();
            }),
            what);
  if (!c.poseidon) CHECK_MSG(breaks([](UpdateWitness& b) { b.apex_leaves.back() += Fr::one(); }), what);
  // What the Rust circuit asserts is refused with the reason: among it a leaf_r_new other than the
  // circuit computes. So a changed comm_r_new (other challenges) is refused where some rho changes
  // with it, and unsatisfied otherwise.
  UpdateWitness bad = w;
  bad.challenges[2].leaf_r_new += Fr::one();
  CHECK_THROWS_WITH(satisfied(c, bad), InvalidArgument, "leaf_r_new is not");
  bad = w;
  bad.comm_r_new += Fr::one();
  try {
    CHECK_MSG(!satisfied(c, bad), what);
  } catch (const InvalidArgument& e) {
    CHECK_MSG(std::string(e.what()).find("leaf_r_new is not") != std::string::npos, e.what());
  }
  bad = w;
  bad.challenges[1].path_r_new.pop_back();
  CHECK_THROWS_WITH(satisfied(c, bad), InvalidArgument, "path_r_new is not a path");
  bad = w;
  bad.k_and_h_select = 0;
  CHECK_THROWS_WITH(satisfied(c, bad), InvalidArgument, "exactly one of 6 h_select bits");
  bad = w;
  bad.challenges.pop_back();
  CHECK_THROWS_WITH(satisfied(c, bad), InvalidArgument, "challenge proofs for");
  if (c.partitions > 1) {
    bad = w;
    bad.challenges[4].path_d_new.back().siblings[0] += Fr::one();
    CHECK_THROWS_WITH(satisfied(c, bad), InvalidArgument, "another partition path");
  }
}

CUZK_TEST(update_witness_satisfies_and_breaks_sha256) {
  check_sector(update_sector_config(1 << 10, false).circuit, 1, 0, "1KiB");
  // Partitions without the size of 16KiB: 32 nodes in 2 partitions of 4 apex leaves, partition 1
  // (its challenges' top bit, its apex leaves, the partition path, digest_index = k · digests + j).
  UpdateCircuitConfig c = update_sector_config(1 << 10, false).circuit;
  c.partitions = 2, c.apex_leaves = 4;
  check_sector(c, 1, 1, "32 nodes, partition 1 of 2");
}

// The library's side of a sector update (update.hpp: the encoding, the vanilla PartitionProof,
// its bincode, the witness read back from it with every check) against this test's own: the
// same commitments, the same witness, satisfied; a flipped byte of the proof is refused.
void check_vanilla_round_trip(const UpdateCircuitConfig& c, size_t h, const std::string& what) {
  const Sector s = make_sector(c, h, c.nodes + 7);
  const UpdatedSector u = update_sector(c, h, s.r_old, s.comm_c, s.d_new);
  CHECK_MSG(u.comm_r_old == s.comm_r_old && u.comm_d_new == s.comm_d_new && u.comm_r_new == s.comm_r_new, what);
  for (size_t k = 0; k < c.partitions; ++k) {
    const std::vector<uint8_t> bytes = encode_update_partition_proof(update_partition_proof(u, k));
    const UpdateWitness w = update_witness_of(c, k, h, s.comm_r_old, s.comm_d_new, s.comm_r_new,
                                              parse_update_partition_proof(bytes, what), what);
    const UpdateWitness want = partition_witness(s, k);
    CHECK_EQ(w.k_and_h_select, want.k_and_h_select);
    CHECK_MSG(w.comm_c == want.comm_c && w.root_r_old == want.root_r_old && w.root_r_new == want.root_r_new, what);
    CHECK_MSG(w.apex_leaves == want.apex_leaves, what);
    CHECK_EQ(w.challenges.size(), want.challenges.size());
    for (size_t i = 0; i < w.challenges.size() && i < want.challenges.size(); ++i) {
      const UpdateChallengeWitness &a = w.challenges[i], &b = want.challenges[i];
      CHECK_MSG(a.leaf_r_old == b.leaf_r_old && a.leaf_d_new == b.leaf_d_new && a.leaf_r_new == b.leaf_r_new, what);
      auto same = [](const std::vector<PorPathLevel>& x, const std::vector<PorPathLevel>& y) {
        return std::ranges::equal(x, y, [](const PorPathLevel& l, const PorPathLevel& m) {
          return l.index == m.index && l.siblings == m.siblings;
        });
      };
      CHECK_MSG(
          same(a.path_r_old, b.path_r_old) && same(a.path_d_new, b.path_d_new) && same(a.path_r_new, b.path_r_new),
          what << " challenge " << i);
    }
    CHECK_MSG(satisfied(c, w), what);
    // Every 97th byte flipped in turn: the reader or the checks refuse each one.
    for (size_t at = 0; at < bytes.size(); at += 97) {
      std::vector<uint8_t> bad = bytes;
      bad[at] ^= 0x04;
      bool refused = false;
      try {
        update_witness_of(c, k, h, s.comm_r_old, s.comm_d_new, s.comm_r_new, parse_update_partition_proof(bad, what),
                          what);
      } catch (const Error&) {
        refused = true;
      }
      CHECK_MSG(refused, what << ": byte " << at << " flipped was accepted");
    }
  }
}

CUZK_TEST(update_vanilla_proofs_round_trip) {
  check_vanilla_round_trip(update_sector_config(1 << 10, false).circuit, 1, "1KiB");
  check_vanilla_round_trip(update_sector_config(2 << 10, false).circuit, 1, "2KiB");
  UpdateCircuitConfig c = update_sector_config(1 << 10, false).circuit;
  c.partitions = 2, c.apex_leaves = 4;
  check_vanilla_round_trip(c, 1, "32 nodes in 2 partitions");
  check_vanilla_round_trip(update_sector_config(1 << 10, true).circuit, 1, "1KiB Poseidon");
}

CUZK_TEST(update_witness_satisfies_and_breaks_poseidon) {
  check_sector(update_sector_config(1 << 10, true).circuit, 1, 0, "1KiB Poseidon");
  check_sector(update_sector_config(8 << 10, true).circuit, 1, 0, "8KiB Poseidon");
  // Another h than the first: a 1KiB circuit whose hs differ (h = 3, h_select 2^3).
  UpdateCircuitConfig c = update_sector_config(1 << 10, true).circuit;
  c.hs = {1, 2, 4, 3, 5, 2};
  check_sector(c, 3, 0, "1KiB Poseidon, h = 3");
}

// One partition of a 32GiB sector (86 challenges, tree R 8-8-0, 128 apex leaves), blank, in the
// shape mode: the count storage-proofs-update's 32GiB test asserts (BenchCS: the circuit's own
// constraints). About a minute, tens of MB.
CUZK_TEST(sector_32gib_snap_sha256_counts) {
  const UpdateCircuitConfig c = update_sector_config(uint64_t(32) << 30, false).circuit;
  const circuit::Shape s = shape_of(c);
  CHECK_EQ(s.constraints, uint64_t(81049499));
  CHECK_EQ(s.inputs, uint64_t(5));
  // The rest of the shape as cuzk records it (the Rust tests assert the count alone).
  CHECK_EQ(s.aux, uint64_t(80978488));
  CHECK_EQ(s.nnz_a, uint64_t(190374907));
  CHECK_EQ(s.nnz_b, uint64_t(81118127));
  CHECK_EQ(s.nnz_c, uint64_t(172187492));
  CHECK_EQ(s.a_aux_density, uint64_t(80743581));
  CHECK_EQ(s.b_input_density, uint64_t(1));
  CHECK_EQ(s.b_aux_density, uint64_t(20983607));
}

// The Poseidon variant's one proof of a 32GiB sector (16 x 86 challenges, trees R and D 8-8-0).
CUZK_TEST(sector_32gib_snap_poseidon_counts) {
  const UpdateCircuitConfig c = update_sector_config(uint64_t(32) << 30, true).circuit;
  CHECK_EQ(c.challenges, size_t(1376));
  const circuit::Shape s = shape_of(c);
  CHECK_EQ(s.constraints, uint64_t(22305906));
  CHECK_EQ(s.inputs, uint64_t(5));
  CHECK_EQ(s.aux, uint64_t(22593319));
  CHECK_EQ(s.nnz_a, uint64_t(153822196));
  CHECK_EQ(s.nnz_b, uint64_t(22680528));
  CHECK_EQ(s.nnz_c, uint64_t(28116285));
  CHECK_EQ(s.a_aux_density, uint64_t(17104392));
  CHECK_EQ(s.b_input_density, uint64_t(1));
  CHECK_EQ(s.b_aux_density, uint64_t(16340709));
}

}  // namespace
}  // namespace cuzk::test
