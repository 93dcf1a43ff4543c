// SPDX-License-Identifier: MIT OR Apache-2.0
// The Poseidon circuit (neptune's legacy optimized one), the insertion gadgets, Merkle inclusion
// (PoR) over Poseidon and SHA-256 trees and the column hash: the constraint counts the Rust tests
// assert, witnesses against the plain hashes and tree roots, the test mode, and a changed value
// failing it.
#include <algorithm>
#include <functional>

#include "circuit/insertion.hpp"
#include "filecoin/gadgets.hpp"
#include "filecoin/por_circuit.hpp"
#include "filecoin/poseidon_circuit.hpp"
#include "testing.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::test {
namespace {

using namespace cuzk::filecoin;
using Fr = PoseidonFr;
using circuit::Num;
using Record = circuit::RecordCs<Fr>;

Fr rand_fr(RandomSource& rs) { return random_field<Fr>(rs); }

std::vector<Fr> rand_frs(RandomSource& rs, size_t n) {
  std::vector<Fr> v;
  for (size_t i = 0; i < n; ++i) v.push_back(rand_fr(rs));
  return v;
}

template <class CS>
std::vector<Num<Fr>> alloc_all(CS& cs, const std::vector<Fr>& vals) {
  std::vector<Num<Fr>> v;
  for (const Fr& x : vals) v.push_back(circuit::alloc_num(cs, [&] { return x; }));
  return v;
}

// The rows no longer hold under the values once aux variable i changes.
bool breaks_when_changed(const Record& cs, size_t aux_index, const Fr& delta = Fr::one()) {
  Record bad = cs;
  bad.aux.at(aux_index) += delta;
  return !bad.is_satisfied();
}

// neptune's test_poseidon_hash: `arity` allocated inputs, then the hash.
uint64_t poseidon_count(size_t arity) {
  circuit::ShapeCs<Fr> cs;
  const std::vector<Fr> zeros(arity, Fr::zero());
  const auto in = alloc_all(cs, zeros);
  poseidon_hash_circuit(cs, std::span<const Num<Fr>>(in), poseidon_constants(arity));
  return cs.num_constraints();
}

CUZK_TEST(poseidon_circuit_counts_as_neptune) {
  const uint64_t published[][2] = {{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}, {24, 1009}, {36, 1385}};
  for (auto& p : published) CHECK_MSG(poseidon_count(p[0]) == p[1], "arity " << p[0] << ": " << poseidon_count(p[0]));
  // neptune's formula: 3 rows per S-box but the tag's first, one allocation per S-box input that
  // is a linear combination and one for the result.
  for (size_t arity = 1; arity <= kPoseidonMaxArity; ++arity) {
    const PoseidonRounds r = poseidon_round_numbers(arity + 1);
    const uint64_t sboxes = (arity + 1) * r.full + r.partial;
    CHECK_MSG(poseidon_count(arity) == 3 * (sboxes - 1) + (sboxes - arity), "arity " << arity);
  }
}

CUZK_TEST(poseidon_circuit_witness_is_the_hash) {
  RandomSource rs(seed());
  const PoseidonHashType types[] = {PoseidonHashType::merkle_tree(), PoseidonHashType::custom_id(1),
                                    PoseidonHashType::custom_id(256)};
  for (size_t arity : {1, 2, 3, 4, 8, 11, 16, 24, 36}) {
    std::vector<PoseidonHashType> ts(std::begin(types), std::end(types));
    ts.push_back(PoseidonHashType::constant_length_of(arity));
    for (const PoseidonHashType& t : ts) {
      const PoseidonConstants& c = poseidon_constants(arity, t);
      const std::vector<Fr> x = rand_frs(rs, arity);
      Record cs;
      const auto in = alloc_all(cs, x);
      const Num<Fr> out = poseidon_hash_circuit(cs, std::span<const Num<Fr>>(in), c);
      CHECK_MSG(out.value == poseidon_hash(c, x), "arity " << arity);
      CHECK_MSG(cs.aux.at(out.var.index()) == out.value, "arity " << arity);
      CHECK_MSG(cs.is_satisfied(), "arity " << arity << ": row " << cs.first_unsatisfied());
      CHECK_EQ(cs.num_constraints(), poseidon_count(arity));
      // An input, an intermediate and the result changed: some row fails.
      CHECK(breaks_when_changed(cs, 0));
      CHECK(breaks_when_changed(cs, cs.aux.size() / 2));
      CHECK(breaks_when_changed(cs, out.var.index()));
      // The witness back end computes the same values; the shape back end counts the same rows.
      circuit::WitnessCs<Fr> ws;
      const auto win = alloc_all(ws, x);
      const Num<Fr> wout = poseidon_hash_circuit(ws, std::span<const Num<Fr>>(win), c);
      CHECK(wout.value == out.value);
      CHECK(std::ranges::equal(ws.aux, cs.aux));
      circuit::ShapeCs<Fr> ss;
      const auto sin = alloc_all(ss, x);
      poseidon_hash_circuit(ss, std::span<const Num<Fr>>(sin), c);
      CHECK(ss.shape() == cs.shape());
    }
  }
  // The known answer: Poseidon2(1, 0) through the circuit.
  Record cs;
  const auto in = alloc_all(cs, {Fr::one(), Fr::zero()});
  const Num<Fr> out = poseidon_hash_circuit(cs, std::span<const Num<Fr>>(in));
  CHECK_EQ(poseidon_fr_to_hex(out.value),
           std::string("0x042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e"));
}

CUZK_TEST(poseidon_circuit_refuses_what_neptune_refuses) {
  circuit::ShapeCs<Fr> cs;
  const auto in = alloc_all(cs, std::vector<Fr>(3, Fr::zero()));
  CHECK_THROWS_WITH(poseidon_hash_circuit(cs, std::span<const Num<Fr>>(in), poseidon_constants(4)), InvalidArgument,
                    "3 inputs for arity 4");
  CHECK_THROWS_WITH(poseidon_hash_circuit(cs, std::span<const Num<Fr>>(in),
                                          poseidon_constants(3, PoseidonHashType::constant_length_of(2))),
                    InvalidArgument, "no padding");
}

CUZK_TEST(poseidon_circuit_rows_are_neptunes) {
  // The first rows of arity 2, by hand from neptune's circuit: input 1's first S-box is
  // (x + k)^2 with A = B = k·ONE + x, then ^4, then C = l5 - k'·ONE.
  const PoseidonConstants& c = poseidon_constants(2);
  Record cs;
  const auto in = alloc_all(cs, {Fr::from_u64(5), Fr::from_u64(7)});
  poseidon_hash_circuit(cs, std::span<const Num<Fr>>(in), c);
  auto row = [&](const circuit::CsrRows<Fr>& m, size_t i) {
    return std::vector<circuit::Term<Fr>>(m.begin(i), m.end(i));
  };
  const auto a0 = row(cs.a(), 0);
  CHECK_EQ(a0.size(), size_t(2));
  CHECK(a0[0].var == circuit::kOne && a0[0].coeff == c.compressed_round_constants[1]);
  CHECK(a0[1].var == in[0].var && a0[1].coeff == Fr::one());
  const auto c2 = row(cs.c(), 2);
  CHECK_EQ(c2.size(), size_t(2));
  CHECK(c2[0].var == circuit::kOne && c2[0].coeff == -c.compressed_round_constants[c.width + 1]);
  // The second round's first row allocates state[0], a combination of ONE and both S-box outputs
  // with the MDS column 0 (the constant tag folded into ONE's coefficient).
  const auto a6 = row(cs.a(), 6);
  CHECK_EQ(a6.size(), size_t(3));
  CHECK(a6[0].var == circuit::kOne);
  CHECK(a6[1].coeff == c.mds[1][0] && a6[2].coeff == c.mds[2][0]);
  CHECK_EQ(row(cs.b(), 6).size(), size_t(1));
}

// A system without values replays the rows recorded once per set of constants: exactly the
// gadget's rows (terms, order, coefficients, zeros kept), for preimages in order, reversed, with
// a variable twice (its coefficients summed) and with inputs among them.
CUZK_TEST(poseidon_replay_makes_the_gadgets_rows) {
  using Rows = circuit::RecordCs<Fr, false>;
  auto same = [](const circuit::CsrRows<Fr>& x, const circuit::CsrRows<Fr>& y) {
    if (x.ptr != y.ptr || x.terms.size() != y.terms.size()) return false;
    for (size_t i = 0; i < x.terms.size(); ++i)
      if (!(x.terms[i].var == y.terms[i].var) || !(x.terms[i].coeff == y.terms[i].coeff)) return false;
    return true;
  };
  size_t cases = 0;
  for (size_t arity : {1, 2, 4, 8, 11, 16}) {
    for (const PoseidonHashType& t : {PoseidonHashType::merkle_tree(), PoseidonHashType::custom_id(3),
                                      PoseidonHashType::constant_length_of(arity)}) {
      const PoseidonConstants& c = poseidon_constants(arity, t);
      CHECK(detail::poseidon_program(c) != nullptr);
      for (int arrangement = 0; arrangement < 4; ++arrangement) {
        Rows replayed, direct;
        auto preimage = [&](Rows& cs) {
          std::vector<Num<Fr>> in;
          for (size_t i = 0; i < arity; ++i)
            in.push_back(arrangement == 3 && i % 2 ? circuit::alloc_input_num(cs, [] { return Fr::zero(); })
                                                   : circuit::alloc_num(cs, [] { return Fr::zero(); }));
          if (arrangement == 1) std::reverse(in.begin(), in.end());
          if (arrangement == 2 && arity > 1) in[arity - 1] = in[0];
          return in;
        };
        const auto ri = preimage(replayed), di = preimage(direct);
        const Num<Fr> r = poseidon_hash_circuit(replayed, std::span<const Num<Fr>>(ri), c);
        const Num<Fr> d = detail::poseidon_hash_gadget(direct, std::span<const Num<Fr>>(di), c);
        const std::string what = "arity " + std::to_string(arity) + ", arrangement " + std::to_string(arrangement);
        CHECK_MSG(r.var == d.var, what);
        CHECK_MSG(replayed.num_aux() == direct.num_aux() && replayed.num_inputs() == direct.num_inputs(), what);
        CHECK_MSG(replayed.num_constraints() == direct.num_constraints(), what);
        CHECK_MSG(same(replayed.a(), direct.a()) && same(replayed.b(), direct.b()) && same(replayed.c(), direct.c()),
                  what);
        ++cases;
      }
    }
  }
  CHECK_EQ(cases, size_t(6 * 3 * 4));
  // Constants that are not poseidon_constants()'s own (a copy, perhaps changed) run the gadget.
  const PoseidonConstants copy = poseidon_constants(2);
  CHECK(detail::poseidon_program(copy) == nullptr);
  // Even one whose hash type poseidon_constants() refuses (constant length 3 at arity 2): the
  // question "is it one of yours" has the answer no, not an exception.
  PoseidonConstants odd = poseidon_constants(2);
  odd.hash_type = PoseidonHashType::constant_length_of(3);
  std::string thrown;
  const detail::PoseidonProgram* program = nullptr;
  try {
    program = detail::poseidon_program(odd);
  } catch (const std::exception& e) {
    thrown = e.what();
  }
  CHECK_MSG(thrown.empty(), "poseidon_program threw for hand-made constants: " << thrown);
  CHECK(program == nullptr);
}

CUZK_TEST(insertion_puts_the_element_at_its_index) {
  RandomSource rs(seed() + 1);
  // Rows: 2 picks for 2, 8 for 4, 2 bits' and + nor and 20 picks for 8, a select of size - 1
  // picks per position otherwise.
  const std::pair<size_t, uint64_t> sizes[] = {{2, 2}, {4, 8}, {8, 22}, {16, 16 * 15}, {32, 32 * 31}};
  for (auto [size, rows] : sizes) {
    for (size_t index = 0; index < size; ++index) {
      Record cs;
      const std::vector<Fr> vals = rand_frs(rs, size);
      const auto elements = alloc_all(cs, std::vector<Fr>(vals.begin(), vals.end() - 1));
      const auto element = circuit::alloc_num(cs, [&] { return vals.back(); });
      std::vector<circuit::Boolean> bits;
      for (size_t k = 0; (size_t(1) << k) < size; ++k) bits.push_back(circuit::alloc_boolean(cs, (index >> k) & 1));
      const uint64_t before = cs.num_constraints();
      const auto out =
          circuit::insert(cs, element, std::span<const circuit::Boolean>(bits), std::span<const Num<Fr>>(elements));
      CHECK_EQ(cs.num_constraints() - before, rows);
      CHECK(cs.is_satisfied());
      CHECK_EQ(out.size(), size);
      for (size_t pos = 0; pos < size; ++pos) {
        const Fr want = pos < index ? vals[pos] : pos == index ? vals.back() : vals[pos - 1];
        CHECK_MSG(out[pos].value == want, "size " << size << " index " << index << " pos " << pos);
      }
      // Another index bit: the picks no longer agree with the values.
      CHECK(breaks_when_changed(cs, bits[0].bit.var.index()));
    }
  }
}

// The root of a plain SHA-256 tree (base arity only), written out independently of
// por_circuit.hpp: SHA-256 of the children's little-endian bytes, top two bits cleared.
Fr sha256_tree_root(std::vector<Fr> nodes, size_t arity) {
  while (nodes.size() > 1) {
    std::vector<Fr> up;
    for (size_t lo = 0; lo < nodes.size(); lo += arity) {
      std::vector<uint8_t> buf;
      for (size_t k = 0; k < arity; ++k) {
        const auto s = nodes[lo + k].to_std();
        for (int i = 0; i < 32; ++i) buf.push_back(uint8_t(s.v[i / 8] >> (8 * (i % 8))));
      }
      Sha256 h;
      h.update(std::span<const uint8_t>(buf));
      const auto d = h.finish();
      Fr::Limbs l{};
      for (int i = 0; i < 32; ++i) l.v[i / 8] |= uint64_t(i == 31 ? d[i] & 0x3f : d[i]) << (8 * (i % 8));
      up.push_back(Fr::from_std(l));
    }
    nodes = std::move(up);
  }
  return nodes[0];
}

// storage-proofs-core's test_por_circuit(_private_root): 64 leaves per base tree, the published
// count, ONE + challenge (+ root) inputs; with values for `challenges` random leaves.
void check_por(const std::string& tree, bool private_root, uint64_t published, int challenges) {
  const TreeShape s = TreeShape::parse(tree);
  const uint64_t leaves = 64 * s.base_tree_count();
  circuit::ShapeCs<Fr> shape;
  por_circuit(shape, s, leaves, por_blank_witness(s, leaves), private_root);
  CHECK_MSG(shape.num_constraints() == published,
            tree << (private_root ? " private root" : "") << ": " << shape.num_constraints() << " constraints");
  CHECK_EQ(shape.num_inputs(), uint64_t(private_root ? 2 : 3));

  RandomSource rs(seed() + leaves + (private_root ? 7 : 0));
  const std::vector<Fr> data = rand_frs(rs, leaves);
  Fr plain_root;
  if (s.hasher == MerkleHasher::poseidon) {
    ThreadPool pool(1);
    plain_root = poseidon_tree_root(data, s.base, s.sub, s.top, pool);
  } else {
    CHECK(s.sub == 0);
    plain_root = sha256_tree_root(data, s.base);
  }
  for (int k = 0; k < challenges; ++k) {
    const uint64_t challenge = k == 0 ? leaves - 1 : rs.next() % leaves;
    const PorWitness w = por_witness(s, data, challenge);
    CHECK(w.root == plain_root);
    Record cs;
    const PorVars v = por_circuit(cs, s, leaves, w, private_root);
    CHECK_MSG(cs.is_satisfied(), tree << " challenge " << challenge << ": row " << cs.first_unsatisfied());
    CHECK(cs.shape() == shape.shape());
    CHECK(v.computed_root.value == plain_root);
    CHECK(cs.inputs.at(1) == Fr::from_u64(challenge));  // the packed path bits are the challenge
    if (!private_root) CHECK(cs.inputs.at(2) == plain_root);
    // A changed leaf, index bit, sibling or root: the rows fail.
    CHECK(breaks_when_changed(cs, v.leaf.var.index()));
    CHECK(breaks_when_changed(cs, v.leaf.var.index() + 1));                                    // the first index bit
    CHECK(breaks_when_changed(cs, v.leaf.var.index() + 1 + size_t(__builtin_ctzll(s.base))));  // a sibling
    CHECK(breaks_when_changed(cs, v.root.var.index()));
    // A path to another leaf does not reach the root.
    PorWitness other = w;
    other.leaf += Fr::one();
    Record cs2;
    por_circuit(cs2, s, leaves, other, private_root);
    CHECK(!cs2.is_satisfied());
  }
}

CUZK_TEST(por_poseidon_counts_and_roots) {
  check_por("poseidon-2", false, 1887, 3);
  check_por("poseidon-4", false, 1164, 3);
  check_por("poseidon-8", false, 1063, 3);
  check_por("poseidon-8-2", false, 1377, 2);
  check_por("poseidon-8-8", false, 1593, 2);
  check_por("poseidon-8-8-2", false, 1907, 2);
  check_por("poseidon-8-4-2", false, 1764, 2);
  check_por("poseidon-8-2-4", false, 1764, 2);
}

CUZK_TEST(por_poseidon_private_root_counts) {
  check_por("poseidon-2", true, 1886, 2);
  check_por("poseidon-4", true, 1163, 2);
  check_por("poseidon-8", true, 1062, 2);
}

CUZK_TEST(por_sha256_counts_and_roots) {
  check_por("sha256-2", false, 272295, 1);
  check_por("sha256-8", false, 250987, 1);
}

CUZK_TEST(tree_shapes_parse_and_refuse) {
  CHECK_EQ(TreeShape::parse("poseidon-8-8-2").name(), std::string("poseidon-8-8-2"));
  CHECK_EQ(TreeShape::parse("poseidon-8-0-0").name(), std::string("poseidon-8"));
  CHECK_EQ(TreeShape::parse("sha256-4").name(), std::string("sha256-4"));
  CHECK_THROWS_WITH(TreeShape::parse("poseidon-3"), InvalidArgument, "power of two");
  CHECK_THROWS_WITH(TreeShape::parse("poseidon-8-0-2"), InvalidArgument, "needs a sub layer");
  CHECK_THROWS_WITH(TreeShape::parse("blake-8"), InvalidArgument, "expected poseidon");
  CHECK_THROWS_WITH(TreeShape::parse("poseidon-8").base_path_length(32), InvalidArgument, "not a power of 8");
  CHECK_EQ(TreeShape::parse("poseidon-8-8-2").path_arities(1024).size(), size_t(4));
}

CUZK_TEST(column_hash_counts_and_values) {
  RandomSource rs(seed() + 3);
  for (auto [layers, published] : {std::pair<size_t, uint64_t>{2, 311}, {11, 598}}) {
    const std::vector<Fr> col = rand_frs(rs, layers);
    Record cs;
    const auto rows = alloc_all(cs, col);
    const Num<Fr> h = hash_single_column_circuit(cs, std::span<const Num<Fr>>(rows));
    CHECK_EQ(cs.num_constraints(), published);
    CHECK(h.value == poseidon_hash(layers, col));
    CHECK(cs.is_satisfied());
    CHECK(breaks_when_changed(cs, layers - 1));
  }
  circuit::ShapeCs<Fr> cs;
  const auto rows = alloc_all(cs, std::vector<Fr>(4, Fr::zero()));
  CHECK_THROWS_WITH(hash_single_column_circuit(cs, std::span<const Num<Fr>>(rows)), InvalidArgument, "2 or 11");
}

// The catalog's circuits are these gadgets, counted as above.
CUZK_TEST(catalog_gadgets_count_as_published) {
  auto count = [](FilecoinGadgetSpec g) {
    circuit::ShapeCs<Fr> cs;
    synthesize_filecoin_gadget(cs, g);
    return cs.num_constraints();
  };
  FilecoinGadgetSpec p;
  p.name = "poseidon";
  p.arity = 11;
  CHECK_EQ(count(p), uint64_t(598));
  FilecoinGadgetSpec por;
  por.name = "por";
  por.tree = "poseidon-8-8";
  CHECK_EQ(count(por), uint64_t(1593));
  por.private_root = true, por.tree = "poseidon-4";
  CHECK_EQ(count(por), uint64_t(1163));
  FilecoinGadgetSpec col;
  col.name = "column-hash";
  col.layers = 2;
  CHECK_EQ(count(col), uint64_t(311));
  // With values the catalog's circuits hold.
  for (FilecoinGadgetSpec g : {p, por, col}) {
    Record cs;
    synthesize_filecoin_gadget(cs, g);
    CHECK_MSG(cs.is_satisfied(), g.name);
  }
  FilecoinGadgetSpec sha;
  sha.name = "sha254-leaf";  // the circuit layer's gadgets pass through
  CHECK_EQ(count(sha), uint64_t(45387));
}

}  // namespace
}  // namespace cuzk::test
