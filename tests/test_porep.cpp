// SPDX-License-Identifier: MIT OR Apache-2.0
// The StackedDRG PoRep circuit: the counts storage-proofs-porep's stacked circuit tests assert
// (tests/stacked_circuit.rs: nodes = 8 per base tree, 2 layers, 1 challenge, 22 inputs), the
// public inputs' count and order, the three back ends agreeing, a witness that satisfies the rows,
// the sector-size table, and one 32GiB partition's fingerprint. `test_porep porep` runs the fast
// cases, `test_porep sector_32gib` the 32GiB one (ctest runs both).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "filecoin/c1.hpp"
#include "filecoin/porep_challenges.hpp"
#include "filecoin/porep_circuit.hpp"
#include "filecoin/prover.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/sha256.hpp"
#include "testing.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"

namespace cuzk::test {
namespace {

using namespace cuzk::filecoin;
using Fr = PoseidonFr;

PorepCircuitConfig test_config(const std::string& tree) {
  PorepCircuitConfig c;
  c.tree = TreeShape::parse("poseidon-" + tree);
  c.nodes = 8 * c.tree.base_tree_count();
  c.layers = 2;
  c.challenges = 1;
  return c;
}

circuit::Shape shape_of(const PorepCircuitConfig& c) {
  circuit::ShapeCs<Fr> cs;
  porep_circuit(cs, c, porep_blank_witness(c));
  return cs.shape();
}

CUZK_TEST(porep_stacked_test_circuit_counts) {
  const std::pair<const char*, uint64_t> published[] = {
      {"2-0-0", 1206212}, {"8-0-0", 1199620}, {"8-4-0", 1296576}, {"8-4-2", 1346982}};
  for (const auto& [tree, count] : published) {
    const PorepCircuitConfig c = test_config(tree);
    const circuit::Shape s = shape_of(c);
    CHECK_MSG(s.constraints == count, tree << ": " << s.constraints << " constraints");
    CHECK_MSG(s.inputs == 22, tree << ": " << s.inputs << " inputs");
    CHECK_EQ(c.inputs(), s.inputs);
    // B touches ONE (the equality and packing rows) and no other input.
    CHECK_EQ(s.b_input_density, uint64_t(1));
  }
}

// The rows kept (RecordCs) give the counts ShapeCs computes without keeping them, and the values
// back end allocates the same variables.
CUZK_TEST(porep_back_ends_agree) {
  const PorepCircuitConfig c = test_config("8-0-0");
  const PorepWitness w = porep_blank_witness(c);
  circuit::RecordCs<Fr, false> rec;
  porep_circuit(rec, c, w);
  CHECK(rec.shape() == shape_of(c));
  circuit::WitnessCs<Fr> wit;
  porep_circuit(wit, c, w);
  CHECK_EQ(wit.num_inputs(), rec.num_inputs());
  CHECK_EQ(wit.num_aux(), rec.num_aux());
  CHECK_EQ(wit.num_constraints(), rec.num_constraints());
}

// The rows recorded with a pool (blocks in parallel, in waves appended in order) are the
// sequential ones, row for row: 8 challenges are block 0, then waves of 2 over 3 threads.
CUZK_TEST(porep_rows_recorded_in_parallel_are_the_sequential_ones) {
  PorepCircuitConfig c = test_config("8-0-0");
  c.challenges = 8;
  const PorepWitness w = porep_blank_witness(c);
  circuit::RecordCs<Fr, false> seq, par;
  ThreadPool pool(3);
  porep_circuit(par, c, w, &pool);
  porep_circuit(seq, c, w);
  CHECK_EQ(par.num_inputs(), seq.num_inputs());
  CHECK_EQ(par.num_aux(), seq.num_aux());
  CHECK_EQ(par.num_constraints(), seq.num_constraints());
  auto same = [](const circuit::CsrRows<Fr>& x, const circuit::CsrRows<Fr>& y) {
    if (x.ptr != y.ptr || x.terms.size() != y.terms.size()) return false;
    for (size_t i = 0; i < x.terms.size(); ++i)
      if (!(x.terms[i].var == y.terms[i].var) || !(x.terms[i].coeff == y.terms[i].coeff)) return false;
    return true;
  };
  CHECK(same(par.a(), seq.a()));
  CHECK(same(par.b(), seq.b()));
  CHECK(same(par.c(), seq.c()));
  CHECK(par.shape() == shape_of(c));
}

// The public inputs in generate_public_inputs' order: replica_id, comm_d, comm_r, then per
// challenge the tree D path, 14 parent paths, the challenge, the tree R path, the tree C path.
CUZK_TEST(porep_public_inputs_in_order) {
  PorepCircuitConfig c = test_config("8-4-0");
  c.challenges = 2;
  PorepWitness w = porep_blank_witness(c);
  w.replica_id = Fr::from_u64(11), w.comm_d = Fr::from_u64(12), w.comm_r = Fr::from_u64(13);
  const uint64_t challenges[2] = {5, 30};
  for (size_t i = 0; i < 2; ++i) {
    PorepChallengeWitness& ch = w.challenges[i];
    ch.challenge = challenges[i];
    auto set_index = [](std::vector<PorPathLevel>& path, uint64_t node, const TreeShape& s, uint64_t nodes) {
      const std::vector<size_t> ar = s.path_arities(nodes);
      for (size_t l = 0; l < path.size(); ++l) path[l].index = node % ar[l], node /= ar[l];
    };
    set_index(ch.comm_d_path, challenges[i], c.tree_d(), c.nodes);
    for (size_t p = 0; p < kDrgDegree; ++p) set_index(ch.drg_parents[p].path, p + 1, c.tree, c.nodes);
    for (size_t p = 0; p < kExpDegree; ++p) set_index(ch.exp_parents[p].path, 20 + p, c.tree, c.nodes);
    set_index(ch.comm_r_last_path, challenges[i], c.tree, c.nodes);
    set_index(ch.comm_c_path, challenges[i], c.tree, c.nodes);
  }
  circuit::WitnessCs<Fr> cs;
  porep_circuit(cs, c, w);
  CHECK_EQ(cs.num_inputs(), c.inputs());
  CHECK_EQ(cs.inputs.size(), size_t(4 + 2 * 18));
  CHECK(cs.inputs[1] == Fr::from_u64(11) && cs.inputs[2] == Fr::from_u64(12) && cs.inputs[3] == Fr::from_u64(13));
  for (size_t i = 0; i < 2; ++i) {
    const size_t at = 4 + 18 * i;
    std::vector<uint64_t> want = {challenges[i]};
    for (uint64_t p = 0; p < kDrgDegree; ++p) want.push_back(p + 1);
    for (uint64_t p = 0; p < kExpDegree; ++p) want.push_back(20 + p);
    want.insert(want.end(), {challenges[i], challenges[i], challenges[i]});
    for (size_t k = 0; k < want.size(); ++k)
      CHECK_MSG(cs.inputs[at + k] == Fr::from_u64(want[k]), "challenge " << i << " input " << k);
  }
}

using CheckCs = circuit::CheckCs<Fr>;

// The 32-byte little-endian encoding of a field element.
std::array<uint8_t, 32> fr_bytes(const Fr& x) {
  const auto s = x.to_std();
  std::array<uint8_t, 32> b{};
  for (int i = 0; i < 32; ++i) b[i] = uint8_t(s.v[i / 8] >> (8 * (i % 8)));
  return b;
}

// A label as the sealing computes it (stacked/vanilla/create_label), written out here apart from
// the circuit: SHA-256 of replica_id ‖ layer (u32 BE) ‖ node (u64 BE) ‖ zeros to 64 bytes ‖ the
// 37 parents' labels, the digest read little-endian with its top two bits cleared.
Fr plain_label(const Fr& replica_id, uint32_t layer, uint64_t node, const std::vector<Fr>& parents) {
  std::vector<uint8_t> buf;
  const auto id = fr_bytes(replica_id);
  buf.insert(buf.end(), id.begin(), id.end());
  for (int i = 3; i >= 0; --i) buf.push_back(uint8_t(layer >> (8 * i)));
  for (int i = 7; i >= 0; --i) buf.push_back(uint8_t(node >> (8 * i)));
  buf.resize(64, 0);
  for (size_t k = 0; k < circuit::kTotalParents; ++k) {
    const auto p = fr_bytes(parents[k % parents.size()]);
    buf.insert(buf.end(), p.begin(), p.end());
  }
  Sha256 h;
  h.update(std::span<const uint8_t>(buf));
  auto d = h.finish();
  d[31] &= 0x3f;
  Fr::Limbs l{};
  for (int i = 0; i < 32; ++i) l.v[i / 8] |= uint64_t(d[i]) << (8 * (i % 8));
  return Fr::from_std(l);
}

// A partition whose values hold: random data, parents' columns and a challenge, the challenged
// column's labels computed in the clear, trees D, C and R built over them. The circuit is
// satisfied, its labels are the plain ones, and a changed value anywhere breaks it.
CUZK_TEST(porep_witness_satisfies_and_breaks) {
  struct Case {
    const char* tree;
    size_t layers, challenges;
    bool breaks;
  };
  for (const Case& k : {Case{"8-0-0", 2, 2, true}, Case{"8-2-0", 2, 2, true}, Case{"8-8-2", 11, 1, false}}) {
    {
      const char* tree = k.tree;
      const size_t layers = k.layers;
      PorepCircuitConfig c;
      c.tree = TreeShape::parse(std::string("poseidon-") + tree);
      c.nodes = 64 * c.tree.base_tree_count();
      c.layers = layers;
      c.challenges = k.challenges;
      RandomSource rs(seed() + layers + c.nodes);
      auto rnd = [&] { return random_field<Fr>(rs); };
      std::vector<Fr> data(c.nodes), leaves_c(c.nodes), leaves_r(c.nodes);
      for (uint64_t n = 0; n < c.nodes; ++n) data[n] = rnd(), leaves_c[n] = rnd(), leaves_r[n] = rnd();
      PorepWitness w;
      w.replica_id = rnd();
      // Challenge k: node 3 + 50k; its parents nodes 10 + 20k + p (apart from the challenges).
      struct Opened {
        uint64_t challenge;
        std::vector<uint64_t> parents;
        std::vector<std::vector<Fr>> rows;  // per parent, a row per layer
      };
      std::vector<Opened> opened;
      for (size_t k = 0; k < c.challenges; ++k) {
        Opened o;
        o.challenge = 3 + 50 * k;
        for (size_t p = 0; p < kDrgDegree + kExpDegree; ++p) {
          o.parents.push_back(10 + 20 * k + p);
          std::vector<Fr> rows(layers);
          for (Fr& x : rows) x = rnd();
          leaves_c[o.parents.back()] = poseidon_hash(layers, rows);
          o.rows.push_back(rows);
        }
        std::vector<Fr> labels;
        for (size_t layer = 1; layer <= layers; ++layer) {
          std::vector<Fr> parents;
          for (size_t p = 0; p < kDrgDegree; ++p) parents.push_back(o.rows[p][layer - 1]);
          if (layer > 1)
            for (size_t p = kDrgDegree; p < kDrgDegree + kExpDegree; ++p) parents.push_back(o.rows[p][layer - 2]);
          labels.push_back(plain_label(w.replica_id, uint32_t(layer), o.challenge, parents));
        }
        leaves_c[o.challenge] = poseidon_hash(layers, labels);
        leaves_r[o.challenge] = labels.back() + data[o.challenge];
        opened.push_back(std::move(o));
      }
      for (const Opened& o : opened) {
        PorepChallengeWitness ch;
        ch.challenge = o.challenge;
        ch.data_leaf = data[o.challenge];
        const PorWitness d = por_witness(c.tree_d(), data, o.challenge);
        ch.comm_d_path = d.path, w.comm_d = d.root;
        const PorWitness r = por_witness(c.tree, leaves_r, o.challenge);
        ch.comm_r_last_path = r.path, w.comm_r_last = r.root;
        const PorWitness cx = por_witness(c.tree, leaves_c, o.challenge);
        ch.comm_c_path = cx.path, w.comm_c = cx.root;
        for (size_t p = 0; p < kDrgDegree + kExpDegree; ++p)
          (p < kDrgDegree ? ch.drg_parents : ch.exp_parents)
              .push_back({o.rows[p], por_witness(c.tree, leaves_c, o.parents[p]).path});
        w.challenges.push_back(std::move(ch));
      }
      const Fr pair[2] = {w.comm_c, w.comm_r_last};
      w.comm_r = poseidon_hash(2, pair);

      CheckCs cs;
      porep_circuit(cs, c, w);
      const std::string what = std::string(tree) + " layers " + std::to_string(layers);
      {  // the challenges filled in parallel: the sequential values, in order
        ThreadPool pool(3);
        circuit::WitnessCs<Fr> par;
        porep_circuit(par, c, w, &pool);
        CHECK_MSG(par.inputs == cs.inputs && std::ranges::equal(par.aux, cs.aux), what);
        CHECK_EQ(par.num_constraints(), cs.num_constraints());
      }
      CHECK_MSG(cs.is_satisfied(), what << ": row " << cs.first_unsatisfied);
      CHECK_EQ(cs.num_inputs(), c.inputs());
      CHECK(cs.inputs.at(1) == w.replica_id && cs.inputs.at(2) == w.comm_d && cs.inputs.at(3) == w.comm_r);
      CHECK(cs.inputs.at(4) == Fr::from_u64(opened[0].challenge));
      CHECK(cs.inputs.at(4 + 15) == Fr::from_u64(opened[0].challenge));  // the challenge's UInt64
      CHECK(cs.inputs.at(4 + 1) == Fr::from_u64(opened[0].parents[0]));
      if (!k.breaks) continue;
      // A changed value: comm_r, a data leaf, a parent's row, the challenge.
      auto breaks = [&](auto change) {
        PorepWitness bad = w;
        change(bad);
        CheckCs b;
        porep_circuit(b, c, bad);
        return !b.is_satisfied();
      };
      CHECK_MSG(breaks([](PorepWitness& b) { b.comm_r += Fr::one(); }), what);
      CHECK_MSG(breaks([](PorepWitness& b) { b.challenges[1].data_leaf += Fr::one(); }), what);
      CHECK_MSG(breaks([](PorepWitness& b) { b.challenges[0].exp_parents[7].rows[0] += Fr::one(); }), what);
      CHECK_MSG(breaks([](PorepWitness& b) { b.challenges[0].challenge += 1; }), what);
      CHECK_MSG(breaks([](PorepWitness& b) { b.replica_id += Fr::one(); }), what);
    }
  }
}

// A 2KiB sector sealed here (labels over the StackedDRG graph, trees D, C and R), its vanilla
// proofs for the challenges a seed gives (interactive and synthetic), the circuit satisfied by
// them and its public inputs exactly what porep_public_inputs computes from the public data alone
// (replica_id, comm_d, comm_r, the challenges and their parents): the graph, the challenges and
// the circuit agree. Both API versions (they order the DRG parents differently).
CUZK_TEST(porep_sealed_2kib_sector_satisfies_with_its_public_inputs) {
  const PorepSectorConfig sc = porep_sector_config(2048);
  RandomSource rs(seed() + 2048);
  for (uint64_t proof : {0, 5}) {
    const ApiVersion api = proof < 5 ? ApiVersion::v1_0_0 : ApiVersion::v1_1_0;
    std::vector<Fr> data(sc.circuit.nodes);
    for (Fr& x : data) x = random_field<Fr>(rs);
    SealIds ids;
    for (auto* b : {&ids.prover_id, &ids.ticket})
      for (auto& x : *b) x = uint8_t(rs.next());
    ids.sector_id = rs.next();
    ids.porep_id = porep_id_of(proof);
    ids.api = api;
    ThreadPool pool(2);
    const SealedSector sealed = seal_sector(sc.circuit, data, ids, &pool);
    const StackedGraph graph(sc.circuit.nodes, ids.porep_id, api);
    Bytes32 seed_bytes;
    for (auto& x : seed_bytes) x = uint8_t(rs.next());
    const std::vector<std::vector<uint64_t>> challenge_sets = {
        interactive_challenges(sc.circuit.nodes, sealed.replica_id, seed_bytes, sc.circuit.challenges, 0),
        SyntheticChallenges(sc.circuit.nodes, sealed.replica_id, sealed.comm_r)
            .partition(seed_bytes, sc.circuit.challenges, 0)};
    for (const auto& challenges : challenge_sets) {
      const bool first = &challenges == &challenge_sets[0];
      const PorepWitness w = porep_vanilla_witness(sealed, graph, challenges);
      CheckCs cs;
      porep_circuit(cs, sc.circuit, w);
      CHECK_MSG(cs.is_satisfied(), "proof " << proof << ": row " << cs.first_unsatisfied);
      const auto want = porep_public_inputs(graph, sealed.replica_id, sealed.comm_d, sealed.comm_r, challenges);
      CHECK_EQ(cs.inputs.size(), want.size() + 1);
      for (size_t i = 0; i < want.size(); ++i)
        CHECK_MSG(cs.inputs[i + 1] == want[i], "proof " << proof << " input " << i);
      if (!first) continue;
      // One parent's label changed: not satisfied.
      PorepWitness bad = w;
      bad.challenges[0].drg_parents[2].rows[1] += Fr::one();
      CheckCs b;
      porep_circuit(b, sc.circuit, bad);
      CHECK(!b.is_satisfied());
    }
  }
}

// A C1 output written for a sealed 2KiB sector reads back into the same witness (the seed's
// challenges and the graph's parents checked on the way), satisfies the circuit, and refuses
// what does not fit, naming the member.
CUZK_TEST(porep_c1_output_round_trip_and_refusals) {
  const SealProofType t = seal_proof_type("StackedDrg2KiBV1_1");
  CHECK_EQ(t.vanilla_key(), std::string("StackedDrg2KiBV1"));
  const PorepSectorConfig sc = porep_sector_config(2048);
  RandomSource rs(seed() + 4096);
  std::vector<Fr> data(sc.circuit.nodes);
  for (Fr& x : data) x = random_field<Fr>(rs);
  SealIds ids;
  for (auto& x : ids.ticket) x = uint8_t(rs.next());
  ids.porep_id = porep_id_of(t.porep_proof_id);
  const SealedSector sealed = seal_sector(sc.circuit, data, ids);
  const StackedGraph graph(sc.circuit.nodes, ids.porep_id, t.api);
  Bytes32 sd;
  for (auto& x : sd) x = uint8_t(rs.next());
  const auto challenges = interactive_challenges(sc.circuit.nodes, sealed.replica_id, sd, sc.circuit.challenges, 0);
  const std::string json = c1_json(sealed, t, sd, ids.ticket, graph, {challenges});
  const C1Output c1 = parse_c1("c1.json", json);
  CHECK(c1.partitions.size() == 1 && c1.challenges[0] == challenges);
  const PorepWitness want = porep_vanilla_witness(sealed, graph, challenges);
  const PorepWitness& got = c1.partitions[0];
  CHECK(got.replica_id == want.replica_id && got.comm_c == want.comm_c && got.comm_r_last == want.comm_r_last);
  for (size_t i = 0; i < want.challenges.size(); ++i) {
    const auto &a = got.challenges[i], &b = want.challenges[i];
    CHECK(a.challenge == b.challenge && a.data_leaf == b.data_leaf);
    CHECK(a.drg_parents[5].rows == b.drg_parents[5].rows &&
          a.exp_parents[7].path[1].siblings == b.exp_parents[7].path[1].siblings);
  }
  CheckCs cs;
  porep_circuit(cs, sc.circuit, got);
  CHECK_MSG(cs.is_satisfied(), "row " << cs.first_unsatisfied);
  // Refusals, each naming where.
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string j = json;
    const size_t at = j.find(from);
    CHECK_MSG(at != std::string::npos, from);
    return j.replace(at, from.size(), to);
  };
  CHECK_THROWS_WITH(parse_c1("c1.json", edit("StackedDrg2KiBV1_1", "StackedDrg4KiBV1_1")), FormatError,
                    "c1.json: registered_proof: registered proof 'StackedDrg4KiBV1_1'");
  CHECK_THROWS_WITH(parse_c1("c1.json", edit("\"seed\":[", "\"seed\":[1,")), FormatError,
                    "seed: expected 32 items, found 33");
  CHECK_THROWS_WITH(parse_c1("c1.json", edit("\"index\":" + std::to_string(challenges[0]) + ",",
                                             "\"index\":" + std::to_string(challenges[0] ^ 1) + ",")),
                    FormatError, "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x");
  CHECK_THROWS_WITH(parse_c1("c1.json", edit("{\"data\":{\"Single\"", "{\"data\":{\"Sub\"")), FormatError,
                    "comm_d_proofs.data.Sub: no member \"base_proof\"");
  CHECK_THROWS_WITH(parse_c1("c1.json", edit("{\"data\":{\"Single\":{",
                                             "{\"data\":{\"Sub\":{\"base_proof\":{\"path\":[]},"
                                             "\"sub_proof\":{\"path\":[]},")),
                    FormatError, "a \"Sub\" proof, expected \"Single\"");
  Bytes32 other = sd;
  other[0] ^= 1;
  const std::string other_seed = c1_json(sealed, t, other, ids.ticket, graph, {challenges});
  CHECK_THROWS_WITH(parse_c1("c1.json", other_seed), FormatError, "(from replica_id, seed and comm_r)");
  CHECK_THROWS_WITH(parse_c1("c1.json", "{]"), FormatError, "c1.json: invalid JSON");
}

bool same_paths(const std::vector<PorPathLevel>& a, const std::vector<PorPathLevel>& b) {
  if (a.size() != b.size()) return false;
  for (size_t l = 0; l < a.size(); ++l)
    if (a[l].siblings != b[l].siblings || a[l].index != b[l].index) return false;
  return true;
}

bool same_columns(const std::vector<PorepColumnWitness>& a, const std::vector<PorepColumnWitness>& b) {
  if (a.size() != b.size()) return false;
  for (size_t q = 0; q < a.size(); ++q)
    if (a[q].rows != b[q].rows || !same_paths(a[q].path, b[q].path)) return false;
  return true;
}

// Every field of two C1 outputs, the circuit's witness included.
bool same_c1(const C1Output& a, const C1Output& b) {
  if (a.proof.name != b.proof.name || a.proof.sector_size != b.proof.sector_size ||
      a.proof.porep_proof_id != b.proof.porep_proof_id || a.proof.api != b.proof.api || a.proof.kind != b.proof.kind)
    return false;
  if (a.config.nodes != b.config.nodes || a.config.layers != b.config.layers ||
      a.config.challenges != b.config.challenges || a.config.tree.name() != b.config.tree.name())
    return false;
  if (a.comm_r != b.comm_r || a.comm_d != b.comm_d || a.replica_id != b.replica_id || a.seed != b.seed ||
      a.ticket != b.ticket || a.challenges != b.challenges || a.partitions.size() != b.partitions.size())
    return false;
  for (size_t k = 0; k < a.partitions.size(); ++k) {
    const PorepWitness &x = a.partitions[k], &y = b.partitions[k];
    if (x.replica_id != y.replica_id || x.comm_d != y.comm_d || x.comm_r != y.comm_r ||
        x.comm_r_last != y.comm_r_last || x.comm_c != y.comm_c || x.challenges.size() != y.challenges.size())
      return false;
    for (size_t i = 0; i < x.challenges.size(); ++i) {
      const PorepChallengeWitness &p = x.challenges[i], &q = y.challenges[i];
      if (p.challenge != q.challenge || p.data_leaf != q.data_leaf || !same_paths(p.comm_d_path, q.comm_d_path) ||
          !same_paths(p.comm_r_last_path, q.comm_r_last_path) || !same_paths(p.comm_c_path, q.comm_c_path) ||
          !same_columns(p.drg_parents, q.drg_parents) || !same_columns(p.exp_parents, q.exp_parents))
        return false;
    }
  }
  return true;
}

// The bincode form of a sealed 2KiB sector's C1 output reads to the same C1Output as its JSON;
// cut short, altered or with a wrong variant tag it is refused, naming the member and its offset.
CUZK_TEST(porep_c1_bincode_round_trip_and_refusals) {
  const SealProofType t = seal_proof_type("StackedDrg2KiBV1_1");
  const PorepSectorConfig sc = porep_sector_config(2048);
  RandomSource rs(seed() + 4097);
  std::vector<Fr> data(sc.circuit.nodes);
  for (Fr& x : data) x = random_field<Fr>(rs);
  SealIds ids;
  for (auto& x : ids.ticket) x = uint8_t(rs.next());
  ids.porep_id = porep_id_of(t.porep_proof_id);
  const SealedSector sealed = seal_sector(sc.circuit, data, ids);
  const StackedGraph graph(sc.circuit.nodes, ids.porep_id, t.api);
  Bytes32 sd;
  for (auto& x : sd) x = uint8_t(rs.next());
  const auto challenges = interactive_challenges(sc.circuit.nodes, sealed.replica_id, sd, sc.circuit.challenges, 0);
  const std::string json = c1_json(sealed, t, sd, ids.ticket, graph, {challenges});
  const std::vector<uint8_t> bin = c1_bincode(sealed, t, sd, ids.ticket, graph, {challenges});
  const C1Output from_json = parse_c1("c1.json", json);
  const C1Output from_bin = parse_c1_bincode("c1.bin", bin);
  CHECK(same_c1(from_json, from_bin));
  CHECK(from_bin.partitions.size() == 1 && from_bin.challenges[0] == challenges);
  // parse_c1_any tells the two apart (JSON from its '{' after any white space).
  const std::string spaced = " \n\t" + json;
  CHECK(same_c1(
      parse_c1_any("c1", std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(spaced.data()), spaced.size())),
      from_json));
  CHECK(same_c1(parse_c1_any("c1", bin), from_json));
  CHECK_THROWS_WITH(parse_c1_any("c1", std::span<const uint8_t>()), FormatError,
                    "c1: registered_proof at offset 0: needs 4 bytes, 0 left");
  // A PoRep proof request carries either form, to the same public inputs.
  ProofRequest req;
  req.kind = ProofKind::porep;
  req.registered_proof = 5;  // StackedDrg2KiBV1_1
  req.vanilla_proof = bin;
  const PreparedProof from_bin_request = prepare_proof(req, nullptr);
  req.vanilla_proof.assign(json.begin(), json.end());
  const PreparedProof from_json_request = prepare_proof(req, nullptr);
  CHECK(from_bin_request.partitions() == 1 && from_bin_request.public_inputs == from_json_request.public_inputs);

  // The layout's first members: registered_proof u32 (StackedDrg2KiBV1_1 is variant 5),
  // vanilla_proofs u32 (StackedDrg2KiBV1 is 0), one partition, its proofs, then the first proof's
  // comm_d_proofs: variant 0 (Single), root at 28, leaf at 60.
  auto u32_at = [&](size_t at) {
    return uint32_t(bin[at]) | uint32_t(bin[at + 1]) << 8 | uint32_t(bin[at + 2]) << 16 | uint32_t(bin[at + 3]) << 24;
  };
  auto u64_at = [&](size_t at) { return uint64_t(u32_at(at)) | uint64_t(u32_at(at + 4)) << 32; };
  CHECK_EQ(u32_at(0), 5u);
  CHECK_EQ(u32_at(4), 0u);
  CHECK_EQ(u64_at(8), uint64_t(1));
  CHECK_EQ(u64_at(16), uint64_t(sc.circuit.challenges));
  CHECK_EQ(u32_at(24), 0u);
  CHECK(std::equal(bin.end() - 32, bin.end(), ids.ticket.begin()));
  CHECK(std::equal(bin.end() - 64, bin.end() - 32, sd.begin()));

  auto cut = [&](size_t n) { return parse_c1_bincode("c1.bin", std::span<const uint8_t>(bin.data(), n)); };
  auto with = [&](size_t at, std::initializer_list<uint8_t> b) {
    std::vector<uint8_t> v = bin;
    std::copy(b.begin(), b.end(), v.begin() + std::ptrdiff_t(at));
    return v;
  };
  const std::string p0 = "vanilla_proofs.StackedDrg2KiBV1[0][0]";
  // Cut short anywhere: refused, naming the member being read.
  CHECK_THROWS_WITH(cut(2), FormatError, "c1.bin: registered_proof at offset 0: needs 4 bytes, 2 left (cut short)");
  CHECK_THROWS_WITH(cut(6), FormatError, "c1.bin: vanilla_proofs at offset 4: needs 4 bytes");
  CHECK_THROWS_WITH(cut(12), FormatError, "vanilla_proofs.StackedDrg2KiBV1 at offset 8: needs 8 bytes");
  CHECK_THROWS_WITH(cut(40), FormatError,
                    "vanilla_proofs.StackedDrg2KiBV1[0] at offset 16: a length of " +
                        std::to_string(sc.circuit.challenges) +
                        " elements of at least 284 bytes, but 16 bytes are left");
  CHECK_THROWS_WITH(cut(bin.size() - 161), FormatError,
                    "vanilla_proofs.StackedDrg2KiBV1[0][" + std::to_string(sc.circuit.challenges - 1) +
                        "].encoding_proof.node at offset " + std::to_string(bin.size() - 168) +
                        ": needs 8 bytes, 7 left (cut short)");
  CHECK_THROWS_WITH(cut(bin.size() - 1), FormatError, "c1.bin: ticket at offset " + std::to_string(bin.size() - 32));
  CHECK_THROWS_WITH(cut(bin.size() - 40), FormatError, "c1.bin: seed at offset " + std::to_string(bin.size() - 64));
  for (size_t n : {bin.size() / 7, bin.size() / 3, bin.size() / 2, bin.size() - 200}) {
    try {
      cut(n);
      CHECK_MSG(false, "cut to " << n << " bytes was accepted");
    } catch (const FormatError& e) {
      const std::string m = e.what();
      CHECK_MSG(m.find("c1.bin: vanilla_proofs.StackedDrg2KiBV1[0][") == 0 &&
                    (m.find("(cut short)") != std::string::npos || m.find("bytes are left") != std::string::npos),
                m);
      if (getenv("CUZK_C1_SHOW")) fprintf(stderr, "%s\n", m.c_str());
    }
  }
  std::vector<uint8_t> longer = bin;
  longer.push_back(0);
  CHECK_THROWS_WITH(
      parse_c1_bincode("c1.bin", longer), FormatError,
      "c1.bin: trailing data at offset " + std::to_string(bin.size()) + ": 1 bytes after the last member");
  // Wrong variant tags, each named.
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(0, {20})), FormatError,
                    "c1.bin: registered_proof at offset 0: variant tag 20 is not a RegisteredSealProof (0..19)");
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(4, {5})), FormatError,
                    "c1.bin: vanilla_proofs at offset 4: variant tag 5 is not a VanillaSealProof (0..4)");
  CHECK_THROWS_WITH(
      parse_c1_bincode("c1.bin", with(4, {1})), FormatError,
      "c1.bin: vanilla_proofs at offset 4: expected {\"StackedDrg2KiBV1\": [...]} for StackedDrg2KiBV1_1, "
      "found \"StackedDrg8MiBV1\"");
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(0, {6})), FormatError,
                    "c1.bin: vanilla_proofs at offset 4: expected {\"StackedDrg8MiBV1\"");
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(24, {3})), FormatError,
                    p0 + ".comm_d_proofs.data at offset 24: variant tag 3, expected 0 Single, 1 Sub or 2 Top");
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(24, {1})), FormatError, p0 + ".comm_d_proofs.data");
  // Lengths the bytes cannot hold, refused before anything is allocated.
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(15, {0x40})), FormatError,
                    "vanilla_proofs.StackedDrg2KiBV1 at offset 8: a length of 4611686018427387905 elements");
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(16, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})), FormatError,
                    "vanilla_proofs.StackedDrg2KiBV1[0] at offset 16: a length of 18446744073709551615");
  // Altered values: a field element at least r, a root that is not comm_d, a wrong challenge count.
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(59, {0xff})), FormatError,
                    p0 + ".comm_d_proofs.data.Single.root at offset 28: value: ");
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(28, {uint8_t(bin[28] ^ 1)})), FormatError,
                    p0 + ".comm_d_proofs at offset 24: its root is not comm_d");
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(16, {uint8_t(bin[16] - 1)})), FormatError,
                    "c1.bin: trailing data at offset ");
  // One proof fewer (each proof of this sector has the same size): a wrong count, named.
  const size_t proof_bytes = (bin.size() - 24 - 160) / sc.circuit.challenges;
  std::vector<uint8_t> fewer = with(16, {uint8_t(bin[16] - 1)});
  fewer.erase(fewer.begin() + 24, fewer.begin() + 24 + std::ptrdiff_t(proof_bytes));
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", fewer), FormatError,
                    "vanilla_proofs.StackedDrg2KiBV1[0] at offset 16: expected " +
                        std::to_string(sc.circuit.challenges) + " items, found " +
                        std::to_string(sc.circuit.challenges - 1));
  CHECK_THROWS_WITH(parse_c1_bincode("c1.bin", with(bin.size() - 64 - 1, {0xff})), FormatError,
                    "c1.bin: replica_id at offset " + std::to_string(bin.size() - 96) + ": value: ");
  // Flipped bytes in what the reader checks: lengths, path indices, roots, tags. The first proof's
  // comm_d_proofs (tree D, binary, 6 levels): tag 24, root 28, leaf 60, path length 92, then per
  // level l a hashes length at 100 + 48 l, its one hash, its index at 140 + 48 l.
  const std::string d = p0 + ".comm_d_proofs";
  auto flipped = [&](size_t at, uint8_t mask) {
    std::vector<uint8_t> v = bin;
    v[at] ^= mask;
    return parse_c1_bincode("c1.bin", v);
  };
  CHECK_THROWS_WITH(flipped(92, 1), FormatError, d + ".data.Single.path.path[6].hashes at offset 388: a length of");
  CHECK_THROWS_WITH(flipped(140, 2), FormatError,
                    d + ".data.Single.path.path[0].index at offset 140: " + std::to_string(bin[140] ^ 2) +
                        " is not below the arity 2");
  CHECK_THROWS_WITH(flipped(140 + 48 * 3, 1), FormatError,
                    d + " at offset 24: opens node " + std::to_string(challenges[0] ^ 8) + ", but challenge 0");
  CHECK_THROWS_WITH(flipped(100, 1), FormatError, d + ".data.Single.path.path[");
  CHECK_THROWS_WITH(
      flipped(8, 2), FormatError,
      "vanilla_proofs.StackedDrg2KiBV1[1] at offset " + std::to_string(bin.size() - 160) + ": a length of");
  CHECK_THROWS_WITH(flipped(24, 1), FormatError, d + ".data.Sub.");
  // A flipped bit anywhere: refused with the member and its offset named, or (in a value the
  // reader does not check, such as a sibling hash or a labeling proof's parents, which the
  // proof's own verification catches) read as it is; never a crash.
  for (size_t at = 0; at < bin.size(); at += 1 + size_t(rs.next() % 97)) {
    try {
      flipped(at, uint8_t(1u << (rs.next() % 8)));
    } catch (const FormatError& e) {
      const std::string m = e.what();
      CHECK_MSG(m.find(" at offset ") != std::string::npos, m);
    }
  }
}

CUZK_TEST(porep_sector_sizes) {
  const PorepSectorConfig s32 = porep_sector_config(uint64_t(32) << 30);
  CHECK_EQ(s32.circuit.layers, size_t(11));
  CHECK_EQ(s32.circuit.challenges, size_t(18));
  CHECK_EQ(s32.partitions, size_t(10));
  CHECK_EQ(s32.circuit.tree.name(), std::string("poseidon-8-8"));
  CHECK_EQ(s32.circuit.inputs(), uint64_t(328));
  const PorepSectorConfig s2 = porep_sector_config(2048);
  CHECK_EQ(s2.circuit.nodes, uint64_t(64));
  CHECK_EQ(s2.circuit.challenges, size_t(2));
  CHECK_EQ(s2.circuit.tree.name(), std::string("poseidon-8"));
  CHECK_EQ(porep_sector_config(uint64_t(64) << 30).circuit.tree.name(), std::string("poseidon-8-8-2"));
  for (uint64_t kib : {2, 4, 16, 32, 8 << 10, 16 << 10, 512 << 10, 1 << 20, 32 << 20, 64 << 20})
    porep_sector_config(kib << 10).circuit.validate();
  CHECK_THROWS_WITH(porep_sector_config(8192), InvalidArgument, "not one rust-fil-proofs supports");
  PorepCircuitConfig bad = test_config("8-0-0");
  bad.layers = 3;
  CHECK_THROWS_WITH(bad.validate(), InvalidArgument, "2 or 11");
  bad = test_config("8-0-0");
  bad.nodes = 16;
  CHECK_THROWS_WITH(bad.validate(), InvalidArgument, "not a power of 8");
}

// One partition of a 32GiB sector (11 layers, 18 challenges, trees C and R 8-8-0) against the
// fingerprint of the circuit bellperson synthesizes (Filecoin's published parameters fix it):
// counts, non-zeros (zero-coefficient terms apart; there are none) and density popcounts. The
// input constraints bellperson adds (one per input) make 130,278,869 rows and 309,405,051 A terms.
// Two minutes in the shape mode, tens of MB.
CUZK_TEST(sector_32gib_partition_fingerprint) {
  const PorepSectorConfig sc = porep_sector_config(uint64_t(32) << 30);
  const circuit::Shape s = shape_of(sc.circuit);
  CHECK_EQ(s.inputs, uint64_t(328));
  CHECK_EQ(s.inputs, sc.circuit.inputs());
  CHECK_EQ(s.aux, uint64_t(130169893));
  CHECK_EQ(s.constraints, uint64_t(130278541));
  CHECK_EQ(s.constraints + s.inputs, uint64_t(130278869));
  CHECK_EQ(s.nnz_a, uint64_t(309404723));
  CHECK_EQ(s.nnz_a + s.inputs, uint64_t(309405051));
  CHECK_EQ(s.nnz_b, uint64_t(130327340));
  CHECK_EQ(s.nnz_c, uint64_t(282656500));
  CHECK_EQ(s.a_aux_density, uint64_t(129753292));
  CHECK_EQ(s.b_input_density, uint64_t(1));
  CHECK_EQ(s.b_aux_density, uint64_t(33112281));
  CHECK_EQ(s.zero_terms, uint64_t(0));
}

}  // namespace
}  // namespace cuzk::test
