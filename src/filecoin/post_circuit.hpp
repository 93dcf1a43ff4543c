// SPDX-License-Identifier: MIT OR Apache-2.0
// The Fallback PoSt circuit (WindowPoSt and WinningPoSt) of one partition, as storage-proofs-post's
// FallbackPoStCircuit::synthesize builds it (fallback/circuit.rs), with the same allocation order,
// rows and public inputs. Per sector, in order:
//   comm_r_last, comm_c, comm_r (aux), then a public input equal to comm_r (inputize)
//   Poseidon-2(comm_c, comm_r_last) (hash2_circuit), then comm_r · ONE = that hash
//   per challenge: the leaf (aux) and its inclusion in the sector's tree R (PoRCircuit with a
//     private root, the root being comm_r_last already allocated): the path's levels, their index
//     bits packed into one public input, computed root · ONE = comm_r_last
// So the inputs are ONE and per sector 1 + challenges: comm_r, then each challenged leaf's index
// (FallbackPoStCompound::generate_public_inputs' order).
//
// The values come from a PostWitness: what the sectors' vanilla proofs hold, or zeros of the right
// shape (post_blank_witness, bellperson's blank circuit).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "circuit/num.hpp"
#include "circuit/storage.hpp"
#include "filecoin/por_circuit.hpp"
#include "filecoin/porep_circuit.hpp"
#include "filecoin/poseidon_circuit.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

// What fixes the circuit of one partition.
struct PostCircuitConfig {
  size_t sectors = 0;     // per partition
  size_t challenges = 0;  // per sector
  TreeShape tree;         // tree R (Poseidon)
  uint64_t leaves = 0;    // per sector: its size / 32

  // Throws InvalidArgument naming what does not fit.
  void validate() const {
    if (sectors == 0) throw InvalidArgument("fallback post: no sectors");
    if (challenges == 0) throw InvalidArgument("fallback post: no challenges");
    if (tree.hasher != MerkleHasher::poseidon) throw InvalidArgument("fallback post: tree R is a Poseidon tree");
    tree.base_path_length(leaves);
  }
  // The public inputs, ONE included (bellperson adds one constraint per input when it proves).
  uint64_t inputs() const { return 1 + uint64_t(sectors) * (1 + challenges); }
};

// One challenge: the leaf and its path (leaf upwards; each level's index is the position among
// its arity).
struct PostChallengeWitness {
  PoseidonFr leaf = PoseidonFr::zero();
  std::vector<PorPathLevel> path;
};

struct PostSectorWitness {
  PoseidonFr comm_r = PoseidonFr::zero(), comm_c = PoseidonFr::zero(), comm_r_last = PoseidonFr::zero();
  std::vector<PostChallengeWitness> challenges;
};

struct PostWitness {
  std::vector<PostSectorWitness> sectors;
};

// Zeros of the right shape for every value (the blank circuit: the shape does not depend on them).
inline PostWitness post_blank_witness(const PostCircuitConfig& c) {
  c.validate();
  PostSectorWitness s;
  s.challenges.assign(c.challenges, PostChallengeWitness{PoseidonFr::zero(), por_blank_witness(c.tree, c.leaves).path});
  PostWitness w;
  w.sectors.assign(c.sectors, s);
  return w;
}

// The challenged leaf's index a path encodes: the level indices, each scaled by the arities below
// it (what the packed index bits are as a number).
inline uint64_t post_path_index(const TreeShape& s, uint64_t leaves, std::span<const PorPathLevel> path) {
  const std::vector<size_t> ar = s.path_arities(leaves);
  if (path.size() != ar.size()) throw InvalidArgument("fallback post: the path has another height than the tree");
  uint64_t index = 0, scale = 1;
  for (size_t l = 0; l < ar.size(); ++l) {
    if (path[l].index >= ar[l]) throw InvalidArgument("fallback post: a path level's index beyond its arity");
    index += scale * path[l].index;
    scale *= ar[l];
  }
  return index;
}

// The public inputs as generate_public_inputs gives them (ONE not included): per sector comm_r,
// then per challenge the challenged leaf's index. Fewer sectors than the partition holds repeat
// the last one, as rust-fil-proofs fills a partition.
inline std::vector<PoseidonFr> post_public_inputs(const PostCircuitConfig& c, std::span<const PoseidonFr> comm_r,
                                                  std::span<const std::vector<uint64_t>> challenges) {
  if (comm_r.empty() || comm_r.size() != challenges.size() || comm_r.size() > c.sectors)
    throw InvalidArgument("fallback post: public inputs need 1 to " + std::to_string(c.sectors) +
                          " sectors, each with its challenges");
  std::vector<PoseidonFr> in;
  for (size_t i = 0; i < c.sectors; ++i) {
    const size_t k = i < comm_r.size() ? i : comm_r.size() - 1;
    if (challenges[k].size() != c.challenges)
      throw InvalidArgument("fallback post: sector " + std::to_string(k) + " has " +
                            std::to_string(challenges[k].size()) + " challenges, not " + std::to_string(c.challenges));
    in.push_back(comm_r[k]);
    for (uint64_t ch : challenges[k]) {
      if (ch >= c.leaves) throw InvalidArgument("fallback post: a challenge beyond the sector's leaves");
      in.push_back(PoseidonFr::from_u64(ch));
    }
  }
  return in;
}

// Sector::synthesize: one sector's comm_r check and its challenges' inclusions.
template <class CS>
void post_sector_circuit(CS& cs, const PostCircuitConfig& c, const PostSectorWitness& w) {
  using circuit::Num;
  if (w.challenges.size() != c.challenges)
    throw InvalidArgument("fallback post: a sector with " + std::to_string(w.challenges.size()) +
                          " challenge proofs for " + std::to_string(c.challenges) + " challenges");
  const Num<PoseidonFr> comm_r_last = circuit::alloc_num(cs, [&] { return w.comm_r_last; });
  const Num<PoseidonFr> comm_c = circuit::alloc_num(cs, [&] { return w.comm_c; });
  const Num<PoseidonFr> comm_r = circuit::alloc_num(cs, [&] { return w.comm_r; });
  circuit::inputize(cs, comm_r);
  const Num<PoseidonFr> pair[2] = {comm_c, comm_r_last};
  const Num<PoseidonFr> h = poseidon_hash_circuit(cs, std::span<const Num<PoseidonFr>>(pair), poseidon_constants(2));
  circuit::enforce_num_equal(cs, comm_r, h);
  for (const PostChallengeWitness& ch : w.challenges) {
    const Num<PoseidonFr> leaf = circuit::alloc_num(cs, [&] { return ch.leaf; });
    por_inclusion_circuit(cs, c.tree, c.leaves, std::span<const PorPathLevel>(ch.path), leaf, comm_r_last);
  }
}

// FallbackPoStCircuit::synthesize: one partition over w's sectors (c.sectors of them). With a
// pool, the values back end fills the sectors in parallel (circuit::for_each_block).
template <class CS>
void post_circuit(CS& cs, const PostCircuitConfig& c, const PostWitness& w, ThreadPool* pool = nullptr) {
  c.validate();
  if (w.sectors.size() != c.sectors)
    throw InvalidArgument("fallback post: " + std::to_string(w.sectors.size()) + " sector proofs for " +
                          std::to_string(c.sectors) + " sectors");
  circuit::for_each_block(cs, w.sectors.size(), pool,
                          [&](auto& block, size_t k) { post_sector_circuit(block, c, w.sectors[k]); });
}

// The published PoSt circuits by sector size (filecoin-proofs constants.rs, parameters.rs):
// WindowPoSt takes WINDOW_POST_SECTOR_COUNT sectors (2349 at 32GiB, 2300 at 64GiB, 2 below) of
// WINDOW_POST_CHALLENGE_COUNT = 10 challenges; WinningPoSt's 66 challenges of one sector make a
// circuit of 66 sectors of one challenge (winning_post_setup_params). The tree is the sector
// shape's (8-0-0, 8-2-0, 8-8-0, 8-8-2 by size, as for PoRep). Throws InvalidArgument for a size
// rust-fil-proofs does not support.
enum class PostKind { window, winning };

inline PostCircuitConfig post_sector_config(PostKind kind, uint64_t sector_bytes) {
  PostCircuitConfig c;
  try {
    c.tree = porep_sector_config(sector_bytes).circuit.tree;
  } catch (const InvalidArgument&) {
    throw InvalidArgument("fallback post: sector size " + std::to_string(sector_bytes) +
                          " bytes is not one rust-fil-proofs supports (2KiB, 4KiB, 16KiB, 32KiB, 8MiB, 16MiB, "
                          "512MiB, 1GiB, 32GiB, 64GiB)");
  }
  c.leaves = sector_bytes / 32;
  if (kind == PostKind::winning) {
    c.sectors = 66, c.challenges = 1;
  } else {
    c.challenges = 10;
    c.sectors = sector_bytes == uint64_t(1) << 35 ? 2349 : sector_bytes == uint64_t(1) << 36 ? 2300 : 2;
  }
  return c;
}

}  // namespace cuzk::filecoin
