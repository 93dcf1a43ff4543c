// SPDX-License-Identifier: MIT OR Apache-2.0
// Sealing a (small) sector as storage-proofs-porep does, in memory, and the vanilla proofs of its
// challenges: what a C1 output holds, for tests and `cuzk filecoin seal`.
//   tree D     binary SHA-256 (254-bit) tree over the data; its root is comm_d
//   replica_id from prover_id, sector_id, ticket, comm_d and porep_id
//   labels     per layer and node: SHA-256 of replica_id || layer (u32 BE) || node (u64 BE) || zeros
//              to 64 bytes || 37 parents' labels (DRG parents from this layer, expander parents from
//              the one before; none for node 0), top two bits cleared
//   tree C     Poseidon tree (the sector's shape) over each node's column hash (its labels)
//   tree R     Poseidon tree over the replica: data + the last layer's label
//   comm_r     Poseidon2(comm_c, comm_r_last)
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/porep_challenges.hpp"
#include "filecoin/porep_circuit.hpp"
#include "filecoin/porep_graph.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

// Every level of a Merkle tree of a given shape, kept so that paths cost nothing.
class StoredTree {
 public:
  StoredTree() = default;
  StoredTree(const TreeShape& shape, std::vector<PoseidonFr> leaves, ThreadPool* pool = nullptr);
  const PoseidonFr& root() const { return root_; }
  std::vector<PorPathLevel> path(uint64_t leaf) const;
  // Level l (0: the leaves) of base tree `tree`.
  const std::vector<PoseidonFr>& base_level(size_t tree, size_t l) const { return base_.at(tree).at(l); }

 private:
  TreeShape shape_;
  uint64_t leaves_ = 0;
  std::vector<std::vector<std::vector<PoseidonFr>>> base_;  // per base tree, its levels (leaves first)
  std::vector<std::vector<PoseidonFr>> upper_;              // base roots, then the sub level's roots
  PoseidonFr root_ = PoseidonFr::zero();
};

struct SealedSector {
  PorepCircuitConfig config;
  std::vector<PoseidonFr> data;                 // per node
  std::vector<std::vector<PoseidonFr>> labels;  // per layer (1..L at 0..L-1), per node
  StoredTree tree_d, tree_c, tree_r;
  Bytes32 replica_id{}, comm_d{}, comm_c{}, comm_r_last{}, comm_r{};
};

struct SealIds {
  Bytes32 prover_id{}, ticket{};
  uint64_t sector_id = 0;
  PorepId porep_id{};
  ApiVersion api = ApiVersion::v1_1_0;
};

// Seals `data` (one canonical Fr per node; config.nodes of them) under the graph of ids. Throws
// InvalidArgument on a size that does not fit the config.
SealedSector seal_sector(const PorepCircuitConfig& config, std::vector<PoseidonFr> data, const SealIds& ids,
                         ThreadPool* pool = nullptr);

// The circuit's witness for the given challenges (the vanilla proofs' content).
PorepWitness porep_vanilla_witness(const SealedSector& s, const StackedGraph& graph,
                                   std::span<const uint64_t> challenges);

}  // namespace cuzk::filecoin
