// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/update.hpp"

#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

using Fr = PoseidonFr;

PostMerkleProof::Kind kind_of(const TreeShape& s) {
  return s.top ? PostMerkleProof::top : s.sub ? PostMerkleProof::sub : PostMerkleProof::single;
}

PostMerkleProof proof_of(const StoredTree& t, const TreeShape& s, const Fr& leaf, uint64_t node) {
  PostMerkleProof m;
  m.kind = kind_of(s);
  m.root = t.root(), m.leaf = leaf;
  m.path = t.path(node);
  m.sub_levels = s.sub ? 1 : 0, m.top_levels = s.top ? 1 : 0;
  m.base_levels = m.path.size() - m.sub_levels - m.top_levels;
  return m;
}

// The nodes of a path from its leaf up: node[l] is the value at height l (node[0] the leaf,
// node.back() the root).
std::vector<Fr> path_nodes(const TreeShape& s, const Fr& leaf, std::span<const PorPathLevel> path) {
  std::vector<Fr> out{leaf};
  for (const PorPathLevel& l : path) {
    std::vector<Fr> kids = l.siblings;
    kids.insert(kids.begin() + ptrdiff_t(l.index), out.back());
    out.push_back(merkle_node(s.hasher, kids));
  }
  return out;
}

}  // namespace

UpdatedSector update_sector(const UpdateCircuitConfig& c, size_t h, std::vector<Fr> replica_old, const Fr& comm_c,
                            std::vector<Fr> data_new, ThreadPool* pool) {
  c.validate();
  update_h_select(c, h);
  if (replica_old.size() != c.nodes || data_new.size() != c.nodes)
    throw InvalidArgument("update: " + std::to_string(replica_old.size()) + " old and " +
                          std::to_string(data_new.size()) + " new nodes for a sector of " + std::to_string(c.nodes));
  UpdatedSector s;
  s.config = c, s.h = h, s.comm_c = comm_c;
  s.tree_d_new = StoredTree(c.tree_d(), data_new, pool);
  s.comm_d_new = s.tree_d_new.root();
  s.replica_new.resize(c.nodes);
  s.tree_r_old = StoredTree(c.tree_r, replica_old, pool);
  s.replica_old = std::move(replica_old);
  const Fr pair_old[2] = {comm_c, s.tree_r_old.root()};
  s.comm_r_old = poseidon_hash(2, pair_old);
  const Fr phi = update_phi(s.comm_d_new, s.comm_r_old);
  const size_t shift = c.challenge_bits() - h;
  std::vector<Fr> rhos(size_t(1) << h);
  for (uint64_t high = 0; high < rhos.size(); ++high) rhos[high] = update_rho(phi, high);
  for (uint64_t n = 0; n < c.nodes; ++n) s.replica_new[n] = s.replica_old[n] + data_new[n] * rhos[n >> shift];
  s.tree_r_new = StoredTree(c.tree_r, s.replica_new, pool);
  const Fr pair_new[2] = {comm_c, s.tree_r_new.root()};
  s.comm_r_new = poseidon_hash(2, pair_new);
  s.data_new = std::move(data_new);
  return s;
}

UpdatePartitionProof update_partition_proof(const UpdatedSector& s, size_t k) {
  const UpdateCircuitConfig& c = s.config;
  UpdatePartitionProof p;
  p.comm_c = s.comm_c;
  if (!c.poseidon) {
    const std::vector<Fr>& row = s.tree_d_new.base_level(0, c.challenge_bits() - c.partition_bits() - c.apex_bits());
    p.apex_leaves.assign(row.begin() + ptrdiff_t(k * c.apex_leaves), row.begin() + ptrdiff_t((k + 1) * c.apex_leaves));
  }
  for (uint64_t ch : update_challenges(c, s.comm_r_new, k)) {
    UpdateChallengeProof cp;
    cp.r_old = proof_of(s.tree_r_old, c.tree_r, s.replica_old[ch], ch);
    cp.d_new = proof_of(s.tree_d_new, c.tree_d(), s.data_new[ch], ch);
    cp.r_new = proof_of(s.tree_r_new, c.tree_r, s.replica_new[ch], ch);
    p.challenges.push_back(std::move(cp));
  }
  return p;
}

UpdateWitness update_witness_of(const UpdateCircuitConfig& c, size_t k, size_t h, const Fr& comm_r_old,
                                const Fr& comm_d_new, const Fr& comm_r_new, const UpdatePartitionProof& p,
                                const std::string& what) {
  c.validate();
  auto fail = [&](const std::string& m) -> void { throw InvalidArgument(what + ": " + m); };
  const std::vector<uint64_t> chs = update_challenges(c, comm_r_new, k);
  if (p.challenges.size() != chs.size())
    fail(std::to_string(p.challenges.size()) + " challenge proofs, partition " + std::to_string(k) + " has " +
         std::to_string(chs.size()) + " challenges");
  const size_t apex = c.poseidon ? 0 : c.apex_leaves;
  if (p.apex_leaves.size() != apex)
    fail(std::to_string(p.apex_leaves.size()) + " apex leaves, the circuit takes " + std::to_string(apex));
  if (p.challenges.empty()) fail("no challenge proofs");
  const Fr root_r_old = p.challenges[0].r_old.root, root_r_new = p.challenges[0].r_new.root;
  const Fr pair_old[2] = {p.comm_c, root_r_old}, pair_new[2] = {p.comm_c, root_r_new};
  if (poseidon_hash(2, pair_old) != comm_r_old)
    fail("Poseidon2(comm_c, tree R old's root) is not comm_r_old " + poseidon_fr_to_hex(comm_r_old));
  if (poseidon_hash(2, pair_new) != comm_r_new)
    fail("Poseidon2(comm_c, tree R new's root) is not comm_r_new " + poseidon_fr_to_hex(comm_r_new));
  const Fr phi = update_phi(comm_d_new, comm_r_old);
  const size_t shift = c.challenge_bits() - h;
  update_h_select(c, h);
  UpdateWitness w;
  w.k_and_h_select = update_k_and_h_select(c, k, h);
  w.comm_r_old = comm_r_old, w.comm_d_new = comm_d_new, w.comm_r_new = comm_r_new;
  w.comm_c = p.comm_c, w.root_r_old = root_r_old, w.root_r_new = root_r_new;
  w.apex_leaves = p.apex_leaves;
  const size_t apex_height = c.challenge_bits() - c.partition_bits() - c.apex_bits();
  // The apex leaves hash up (tree D's hasher) to the partition's node of tree D.
  Fr apex_root = Fr::zero();
  if (apex) {
    std::vector<Fr> level = p.apex_leaves;
    while (level.size() > 1) {
      std::vector<Fr> up;
      for (size_t i = 0; i < level.size(); i += 2)
        up.push_back(merkle_node(c.tree_d().hasher, std::span<const Fr>(level).subspan(i, 2)));
      level = std::move(up);
    }
    apex_root = level[0];
  }
  for (size_t i = 0; i < chs.size(); ++i) {
    const UpdateChallengeProof& cp = p.challenges[i];
    const std::string at = "challenge_proofs[" + std::to_string(i) + "]";
    struct Part {
      const char* name;
      const PostMerkleProof* m;
      TreeShape shape;
      Fr root;
    };
    for (const Part& part :
         {Part{"proof_r_old", &cp.r_old, c.tree_r, root_r_old}, Part{"proof_d_new", &cp.d_new, c.tree_d(), comm_d_new},
          Part{"proof_r_new", &cp.r_new, c.tree_r, root_r_new}}) {
      const std::vector<size_t> ar = part.shape.path_arities(c.nodes);
      const PostMerkleProof& m = *part.m;
      bool shape_ok = m.kind == kind_of(part.shape) && m.path.size() == ar.size();
      for (size_t l = 0; shape_ok && l < ar.size(); ++l)
        shape_ok = m.path[l].siblings.size() == ar[l] - 1 && m.path[l].index < ar[l];
      if (!shape_ok) fail(at + "." + part.name + ": not a path of tree " + part.shape.name());
      const uint64_t node = post_path_index(part.shape, c.nodes, m.path);
      if (node != chs[i])
        fail(at + "." + part.name + ": opens node " + std::to_string(node) + ", the challenge is node " +
             std::to_string(chs[i]));
      const std::vector<Fr> nodes = path_nodes(part.shape, m.leaf, m.path);
      if (nodes.back() != m.root || m.root != part.root)
        fail(at + "." + part.name + ": the path does not hash to " + poseidon_fr_to_hex(part.root));
      if (part.m == &cp.d_new && apex && nodes.at(apex_height) != p.apex_leaves[(chs[i] >> apex_height) % apex])
        fail(at + ".proof_d_new: its node at the apex height is not the partition's apex leaf");
      if (part.m == &cp.d_new && apex && nodes.at(apex_height + c.apex_bits()) != apex_root)
        fail(at + ".proof_d_new: the apex leaves do not hash to the partition's node of tree D");
    }
    if (cp.r_new.leaf != cp.r_old.leaf + cp.d_new.leaf * update_rho(phi, chs[i] >> shift))
      fail(at + ": the new replica's leaf is not the old one's encoded with the new data's");
    UpdateChallengeWitness cw;
    cw.leaf_r_old = cp.r_old.leaf, cw.path_r_old = cp.r_old.path;
    cw.leaf_d_new = cp.d_new.leaf, cw.path_d_new = cp.d_new.path;
    cw.leaf_r_new = cp.r_new.leaf, cw.path_r_new = cp.r_new.path;
    w.challenges.push_back(std::move(cw));
  }
  update_check_witness(c, w);
  return w;
}

}  // namespace cuzk::filecoin
