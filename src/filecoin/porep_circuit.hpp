// SPDX-License-Identifier: MIT OR Apache-2.0
// The StackedDRG PoRep circuit of one partition, as storage-proofs-porep's StackedCircuit::
// synthesize builds it (stacked/circuit/proof.rs, params.rs), with the same allocation order,
// rows and public inputs:
//   replica_id (aux, then a public input equal to it), its 255 bits (bit-reversed within bytes)
//   comm_d, comm_r (each aux, then a public input), comm_r_last, comm_c (aux)
//   Poseidon-2(comm_c, comm_r_last), then comm_r · ONE = that hash
//   per challenge:
//     data_leaf (aux) and its inclusion in tree D (binary SHA-256, private root comm_d)
//     per DRG parent (6), then per expander parent (8): the column's rows (one per layer, aux),
//       its column hash (Poseidon of arity = layers) and that hash's inclusion in tree C (comm_c)
//     the challenge as 64 booleans packed into one public input (storage-proofs-core UInt64)
//     per layer 1..L: each parent's label in that layer (DRG parents' row `layer`, expander
//       parents' row `layer - 1` from layer 2 on) as 255 bits, repeated to 37 parents, and
//       create_label over replica_id, the layer (constant) and the challenge
//     encoding = last label + data_leaf, its inclusion in tree R (comm_r_last)
//     the column hash of the labels and its inclusion in tree C (comm_c)
// Every inclusion is PoRCircuit with leaf and root already allocated and a private root: one
// public input each, the packed path bits. So the inputs are ONE, replica_id, comm_d, comm_r and
// per challenge 1 + 6 + 8 + 1 + 1 + 1 = 18 (generate_public_inputs' order).
//
// The values come from a PorepWitness: what the vanilla proofs hold, or zeros of the right shape
// (porep_blank_witness, bellperson's blank circuit) where no proof is given.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "circuit/storage.hpp"
#include "circuit/uint.hpp"
#include "filecoin/por_circuit.hpp"
#include "filecoin/poseidon_circuit.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

// The stacked graph's degrees (storage-proofs-core BASE_DEGREE, storage-proofs-porep EXP_DEGREE).
inline constexpr size_t kDrgDegree = 6;
inline constexpr size_t kExpDegree = 8;

// What fixes the circuit of one partition.
struct PorepCircuitConfig {
  uint64_t nodes = 0;     // the sector's nodes (32 bytes each): the leaves of trees D, C and R
  size_t layers = 0;      // 2 or 11 (the column hash's arity)
  size_t challenges = 0;  // per partition
  TreeShape tree;         // trees C and R (Poseidon); tree D is binary SHA-256

  TreeShape tree_d() const { return TreeShape{MerkleHasher::sha256, 2, 0, 0}; }
  // Throws InvalidArgument naming what does not fit.
  void validate() const {
    if (layers != 2 && layers != 11)
      throw InvalidArgument("porep: " + std::to_string(layers) + " layers (the column hash takes 2 or 11)");
    if (challenges == 0) throw InvalidArgument("porep: no challenges");
    if (tree.hasher != MerkleHasher::poseidon) throw InvalidArgument("porep: trees C and R are Poseidon trees");
    if (nodes < 2 || (nodes & (nodes - 1))) throw InvalidArgument("porep: the node count must be a power of two");
    tree_d().base_path_length(nodes);
    tree.base_path_length(nodes);
  }
  // The public inputs, ONE included (bellperson adds one constraint per input when it proves).
  uint64_t inputs() const { return 4 + uint64_t(challenges) * (4 + kDrgDegree + kExpDegree); }
};

// One opened column of tree C: a row per layer and the column hash's path.
struct PorepColumnWitness {
  std::vector<PoseidonFr> rows;
  std::vector<PorPathLevel> path;
};

// The circuit's view of one challenge's vanilla proof.
struct PorepChallengeWitness {
  uint64_t challenge = 0;
  PoseidonFr data_leaf = PoseidonFr::zero();
  std::vector<PorPathLevel> comm_d_path, comm_r_last_path, comm_c_path;
  std::vector<PorepColumnWitness> drg_parents, exp_parents;
};

struct PorepWitness {
  PoseidonFr replica_id = PoseidonFr::zero(), comm_d = PoseidonFr::zero(), comm_r = PoseidonFr::zero();
  PoseidonFr comm_r_last = PoseidonFr::zero(), comm_c = PoseidonFr::zero();
  std::vector<PorepChallengeWitness> challenges;
};

// Zeros of the right shape for every value (the blank circuit: the shape does not depend on them).
inline PorepWitness porep_blank_witness(const PorepCircuitConfig& c) {
  c.validate();
  const PorWitness d = por_blank_witness(c.tree_d(), c.nodes), t = por_blank_witness(c.tree, c.nodes);
  PorepColumnWitness col{std::vector<PoseidonFr>(c.layers, PoseidonFr::zero()), t.path};
  PorepChallengeWitness ch;
  ch.comm_d_path = d.path;
  ch.comm_r_last_path = ch.comm_c_path = t.path;
  ch.drg_parents.assign(kDrgDegree, col);
  ch.exp_parents.assign(kExpDegree, col);
  PorepWitness w;
  w.challenges.assign(c.challenges, ch);
  return w;
}

// A field element's 255 bits as allocated booleans, bit-reversed within bytes (to 256 bits):
// reverse_bit_numbering(AllocatedNum::to_bits_le).
template <class CS>
std::vector<circuit::Boolean> porep_num_bits(CS& cs, const circuit::Num<PoseidonFr>& x) {
  return circuit::reverse_bit_numbering(circuit::to_bits_le(cs, x));
}

// Params.rs' Proof::synthesize: one challenge.
template <class CS>
void porep_challenge_circuit(CS& cs, const PorepCircuitConfig& c, const PorepChallengeWitness& w,
                             const circuit::Num<PoseidonFr>& comm_d, const circuit::Num<PoseidonFr>& comm_c,
                             const circuit::Num<PoseidonFr>& comm_r_last,
                             std::span<const circuit::Boolean> replica_id_bits) {
  using circuit::Boolean;
  using circuit::Num;
  if (w.drg_parents.size() != kDrgDegree || w.exp_parents.size() != kExpDegree)
    throw InvalidArgument("porep: a challenge needs 6 DRG and 8 expander parent columns");
  const TreeShape td = c.tree_d();
  const Num<PoseidonFr> data_leaf = circuit::alloc_num(cs, [&] { return w.data_leaf; });
  por_inclusion_circuit(cs, td, c.nodes, std::span<const PorPathLevel>(w.comm_d_path), data_leaf, comm_d);

  // The parents' columns: allocated, hashed, and the hash included in tree C.
  auto open_columns = [&](const std::vector<PorepColumnWitness>& cols) {
    std::vector<std::vector<Num<PoseidonFr>>> out;
    for (const PorepColumnWitness& col : cols) {
      if (col.rows.size() != c.layers) throw InvalidArgument("porep: a parent column without a row per layer");
      std::vector<Num<PoseidonFr>> rows;
      rows.reserve(col.rows.size());
      for (const PoseidonFr& v : col.rows) rows.push_back(circuit::alloc_num(cs, [&] { return v; }));
      const Num<PoseidonFr> h = hash_single_column_circuit(cs, std::span<const Num<PoseidonFr>>(rows));
      por_inclusion_circuit(cs, c.tree, c.nodes, std::span<const PorPathLevel>(col.path), h, comm_c);
      out.push_back(std::move(rows));
    }
    return out;
  };
  const auto drg = open_columns(w.drg_parents);
  const auto exp = open_columns(w.exp_parents);

  const circuit::UInt64 challenge = circuit::uint64_alloc(cs, w.challenge);
  circuit::uint64_pack_into_input(cs, challenge);

  std::vector<Num<PoseidonFr>> labels;
  labels.reserve(c.layers);
  for (size_t layer = 1; layer <= c.layers; ++layer) {
    std::vector<std::vector<Boolean>> parents;
    for (const auto& col : drg) parents.push_back(porep_num_bits(cs, col[layer - 1]));
    if (layer > 1)
      for (const auto& col : exp) parents.push_back(porep_num_bits(cs, col[layer - 2]));
    // Repeated to kTotalParents as the hashing does: 14 + 14 + 9, or 6 six times + the first.
    std::vector<std::vector<Boolean>> expanded = parents;
    if (layer > 1) {
      expanded.insert(expanded.end(), parents.begin(), parents.end());
      expanded.insert(expanded.end(), parents.begin(), parents.begin() + 9);
    } else {
      for (int k = 0; k < 5; ++k) expanded.insert(expanded.end(), parents.begin(), parents.end());
      expanded.push_back(parents[0]);
    }
    labels.push_back(circuit::create_label_circuit(cs, replica_id_bits, expanded,
                                                   circuit::UInt32::constant(uint32_t(layer)), challenge));
  }

  const Num<PoseidonFr> encoded = circuit::encode(cs, labels.back(), data_leaf);
  por_inclusion_circuit(cs, c.tree, c.nodes, std::span<const PorPathLevel>(w.comm_r_last_path), encoded, comm_r_last);

  const Num<PoseidonFr> column_hash = hash_single_column_circuit(cs, std::span<const Num<PoseidonFr>>(labels));
  por_inclusion_circuit(cs, c.tree, c.nodes, std::span<const PorPathLevel>(w.comm_c_path), column_hash, comm_c);
}

// StackedCircuit::synthesize: one partition over w's challenges (c.challenges of them). With a
// pool, the values back end fills the challenges in parallel (circuit::for_each_block).
template <class CS>
void porep_circuit(CS& cs, const PorepCircuitConfig& c, const PorepWitness& w, ThreadPool* pool = nullptr) {
  using circuit::Num;
  c.validate();
  if (w.challenges.size() != c.challenges)
    throw InvalidArgument("porep: " + std::to_string(w.challenges.size()) + " challenge proofs for " +
                          std::to_string(c.challenges) + " challenges");
  const Num<PoseidonFr> replica_id = circuit::alloc_num(cs, [&] { return w.replica_id; });
  circuit::inputize(cs, replica_id);
  const std::vector<circuit::Boolean> replica_id_bits = porep_num_bits(cs, replica_id);
  const Num<PoseidonFr> comm_d = circuit::alloc_num(cs, [&] { return w.comm_d; });
  circuit::inputize(cs, comm_d);
  const Num<PoseidonFr> comm_r = circuit::alloc_num(cs, [&] { return w.comm_r; });
  circuit::inputize(cs, comm_r);
  const Num<PoseidonFr> comm_r_last = circuit::alloc_num(cs, [&] { return w.comm_r_last; });
  const Num<PoseidonFr> comm_c = circuit::alloc_num(cs, [&] { return w.comm_c; });
  const Num<PoseidonFr> pair[2] = {comm_c, comm_r_last};
  const Num<PoseidonFr> h = poseidon_hash_circuit(cs, std::span<const Num<PoseidonFr>>(pair), poseidon_constants(2));
  circuit::enforce_num_equal(cs, comm_r, h);
  circuit::for_each_block(cs, w.challenges.size(), pool, [&](auto& block, size_t k) {
    porep_challenge_circuit(block, c, w.challenges[k], comm_d, comm_c, comm_r_last,
                            std::span<const circuit::Boolean>(replica_id_bits));
  });
}

// The published PoRep circuits by sector size (filecoin-proofs constants.rs: LAYERS, POREP_PARTITIONS,
// the interactive minimum challenges split over the partitions rounding up, the sector shapes);
// throws InvalidArgument for a size rust-fil-proofs does not support.
struct PorepSectorConfig {
  PorepCircuitConfig circuit;
  size_t partitions = 1;
};

inline PorepSectorConfig porep_sector_config(uint64_t sector_bytes) {
  struct Row {
    uint64_t bytes;
    size_t layers, min_challenges, partitions, sub, top;
  };
  static constexpr Row rows[] = {
      {uint64_t(1) << 11, 2, 2, 1, 0, 0},      // 2KiB: 8-0-0
      {uint64_t(1) << 12, 2, 2, 1, 2, 0},      // 4KiB: 8-2-0
      {uint64_t(1) << 14, 2, 2, 1, 8, 0},      // 16KiB: 8-8-0
      {uint64_t(1) << 15, 2, 2, 1, 8, 2},      // 32KiB: 8-8-2
      {uint64_t(1) << 23, 2, 2, 1, 0, 0},      // 8MiB: 8-0-0
      {uint64_t(1) << 24, 2, 2, 1, 2, 0},      // 16MiB: 8-2-0
      {uint64_t(1) << 29, 2, 2, 1, 0, 0},      // 512MiB: 8-0-0
      {uint64_t(1) << 30, 2, 2, 1, 2, 0},      // 1GiB: 8-2-0
      {uint64_t(1) << 35, 11, 176, 10, 8, 0},  // 32GiB: 8-8-0
      {uint64_t(1) << 36, 11, 176, 10, 8, 2},  // 64GiB: 8-8-2
  };
  for (const Row& r : rows) {
    if (r.bytes != sector_bytes) continue;
    PorepSectorConfig s;
    s.partitions = r.partitions;
    s.circuit.nodes = sector_bytes / 32;
    s.circuit.layers = r.layers;
    s.circuit.challenges = (r.min_challenges + r.partitions - 1) / r.partitions;
    s.circuit.tree = TreeShape{MerkleHasher::poseidon, 8, r.sub, r.top};
    return s;
  }
  throw InvalidArgument("porep: sector size " + std::to_string(sector_bytes) +
                        " bytes is not one rust-fil-proofs supports (2KiB, 4KiB, 16KiB, 32KiB, 8MiB, 16MiB, 512MiB, "
                        "1GiB, 32GiB, 64GiB)");
}

}  // namespace cuzk::filecoin
