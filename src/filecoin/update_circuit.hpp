// SPDX-License-Identifier: MIT OR Apache-2.0
// The SnapDeals EmptySectorUpdate circuit of one partition, as storage-proofs-update builds it
// (circuit.rs with gadgets.rs; and the Poseidon variant, poseidon/circuit.rs), with the same
// allocation order, rows and public inputs. Public inputs, after ONE: k_and_h_select (the
// Poseidon variant: h_select), comm_r_old, comm_d_new, comm_r_new.
//
// The SHA-256 variant (tree D new is binary SHA-256), in allocation order:
//   k_and_h_select (aux, then a public input), its low partition_bits + 6 bits (booleans) and
//     (sum 2^i b_i) · ONE = k_and_h_select; the partition bits packed into one aux (`partition`)
//   comm_r_old, comm_d_new, comm_r_new (each aux, then a public input)
//   phi = Poseidon-2 with the custom tag 1·2^40 (gen randomness) of (comm_d_new, comm_r_old)
//   comm_c, root_r_old, root_r_new, this partition's apex leaves, the partition path's siblings
//   comm_r_old = Poseidon-2(comm_c, root_r_old), comm_r_new = Poseidon-2(comm_c, root_r_new)
//   the apex tree (binary SHA-256 over the apex leaves) and its root's inclusion in comm_d_new
//     along the partition path (the partition bits)
//   the challenges' bits: per digest j, digest_index = k · digests + j and
//     Poseidon-2-gen-randomness(comm_r_new, digest_index) as 255 bits; each challenge takes
//     challenge_bits - partition_bits of them, the partition bits appended above
//   per challenge (circuit::for_each_block):
//     the h high bits of the challenge selected by h_select (one pack per h of hs, times its
//       h_select bit, summed), rho = Poseidon-2-gen-randomness(phi, high)
//     leaf_r_old, leaf_d_new (aux), leaf_r_new = leaf_r_old + leaf_d_new · rho
//     tree R old's path (siblings, aux) and leaf_r_old's inclusion in root_r_old, then the same
//       for tree R new and leaf_r_new (storage-proofs-core por_no_challenge_input: the
//       challenge's bits are the insertion positions; no public input)
//     the apex leaf selected by the challenge's bits, the tree D path below it (siblings, aux)
//       and leaf_d_new's inclusion in that apex leaf
// The Poseidon variant: h_select alone (6 bits), no partitions (one proof of all challenges), no
// apex tree; `partition` is an aux of value 0; tree D new has tree R's shape, Poseidon, and each
// challenge's leaf_d_new is included in comm_d_new with its whole path.
//
// The values come from an UpdateWitness (what the vanilla partition proof holds), or zeros of the
// right shape (update_blank_witness, bellperson's blank circuit). The plain computations the
// prover needs beside it (phi, rho, the challenges, the public inputs) are here too.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "circuit/multipack.hpp"
#include "filecoin/por_circuit.hpp"
#include "filecoin/poseidon_circuit.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

// What fixes the circuit of one partition.
struct UpdateCircuitConfig {
  uint64_t nodes = 0;          // the sector's nodes (32 bytes each)
  bool poseidon = false;       // the Poseidon variant (tree D new Poseidon, one partition)
  size_t partitions = 1;       // partition proofs per sector (the Poseidon variant: 1)
  size_t challenges = 0;       // per partition
  size_t apex_leaves = 0;      // per partition's apex tree (the Poseidon variant: 0)
  TreeShape tree_r;            // trees R old and R new (Poseidon); the Poseidon variant's tree D too
  std::array<size_t, 6> hs{};  // the h values h_select chooses from

  static size_t log2(uint64_t x) { return size_t(__builtin_ctzll(x)); }
  size_t challenge_bits() const { return log2(nodes); }
  size_t partition_bits() const { return log2(partitions); }
  size_t apex_bits() const { return poseidon ? 0 : log2(apex_leaves); }
  // Random bits per challenge (those above are the partition's).
  size_t random_bits() const { return challenge_bits() - partition_bits(); }
  size_t challenges_per_digest() const { return size_t(circuit::field_capacity<PoseidonFr>()) / random_bits(); }
  size_t digests() const { return (challenges + challenges_per_digest() - 1) / challenges_per_digest(); }
  TreeShape tree_d() const { return poseidon ? tree_r : TreeShape{MerkleHasher::sha256, 2, 0, 0}; }

  // Throws InvalidArgument naming what does not fit.
  void validate() const {
    auto pow2 = [](uint64_t x) { return x && !(x & (x - 1)); };
    if (nodes < 2 || !pow2(nodes)) throw InvalidArgument("update: the node count must be a power of two");
    if (challenges == 0) throw InvalidArgument("update: no challenges");
    if (!pow2(partitions)) throw InvalidArgument("update: the partition count must be a power of two");
    if (tree_r.hasher != MerkleHasher::poseidon) throw InvalidArgument("update: tree R is a Poseidon tree");
    tree_r.base_path_length(nodes);
    if (poseidon && (partitions != 1 || apex_leaves != 0))
      throw InvalidArgument("update: the Poseidon variant has one partition and no apex tree");
    if (!poseidon && !pow2(apex_leaves)) throw InvalidArgument("update: the apex leaf count must be a power of two");
    if (challenge_bits() <= partition_bits() + apex_bits())
      throw InvalidArgument("update: " + std::to_string(nodes) + " nodes are too few for " +
                            std::to_string(partitions) + " partitions of " + std::to_string(apex_leaves) +
                            " apex leaves");
    for (size_t h : hs)
      if (h < 1 || h > challenge_bits())
        throw InvalidArgument("update: h = " + std::to_string(h) + " outside 1.." + std::to_string(challenge_bits()));
  }
  // The public inputs, ONE included (bellperson adds one constraint per input when it proves).
  uint64_t inputs() const { return 5; }
};

// rust-fil-proofs' SnapDeals circuits by sector size (storage-proofs-update constants.rs:
// partition_count, challenge_count, hs, apex_leaf_count, the tree R shape validate_tree_r_shape
// requires); the test sizes 1KiB .. 32KiB, 8MiB, 16MiB, 512MiB and the published 32GiB, 64GiB.
// The Poseidon variant proves every partition's challenges in one. Throws InvalidArgument for a
// size storage-proofs-update does not allow.
struct UpdateSectorConfig {
  UpdateCircuitConfig circuit;
  size_t partitions = 1;  // proofs per sector
};

inline UpdateSectorConfig update_sector_config(uint64_t sector_bytes, bool poseidon) {
  struct Row {
    uint64_t nodes;
    size_t sub, top;
  };
  static constexpr Row rows[] = {
      {uint64_t(1) << 5, 4, 0},  {uint64_t(1) << 6, 0, 0},  {uint64_t(1) << 7, 2, 0},  {uint64_t(1) << 8, 4, 0},
      {uint64_t(1) << 9, 8, 0},  {uint64_t(1) << 10, 8, 2}, {uint64_t(1) << 18, 0, 0}, {uint64_t(1) << 19, 2, 0},
      {uint64_t(1) << 24, 0, 0}, {uint64_t(1) << 30, 8, 0}, {uint64_t(1) << 31, 8, 2},
  };
  for (const Row& r : rows) {
    if (r.nodes * 32 != sector_bytes) continue;
    const uint64_t n = r.nodes;
    // partition_count and challenge_count (per partition): up to 8KiB, 32KiB, 16MiB, above.
    const size_t partitions = n <= (1u << 8) ? 1 : n <= (1u << 10) ? 2 : n <= (1u << 19) ? 4 : 16;
    const size_t challenges = n <= (1u << 19) ? 10 : 86;
    UpdateSectorConfig s;
    UpdateCircuitConfig& c = s.circuit;
    c.nodes = n;
    c.poseidon = poseidon;
    c.tree_r = TreeShape{MerkleHasher::poseidon, 8, r.sub, r.top};
    if (n <= (1u << 10))  // hs: the test sizes take the top bit alone
      c.hs = {1, 1, 1, 1, 1, 1};
    else
      c.hs = {7, 8, 9, 10, 11, 12};
    if (poseidon) {
      c.partitions = 1, c.challenges = challenges * partitions, c.apex_leaves = 0;
      s.partitions = 1;
    } else {
      // apex_leaf_count: 8 up to 8KiB, else 128.
      c.partitions = partitions, c.challenges = challenges, c.apex_leaves = n <= (1u << 8) ? 8 : 128;
      s.partitions = partitions;
    }
    c.validate();
    return s;
  }
  throw InvalidArgument("update: sector size " + std::to_string(sector_bytes) +
                        " bytes is not one storage-proofs-update allows (1KiB, 2KiB, 4KiB, 8KiB, 16KiB, 32KiB, 8MiB, "
                        "16MiB, 512MiB, 32GiB, 64GiB)");
}

// The circuit's view of one challenge's vanilla proof: the three leaves and the three paths'
// siblings, leaf upwards (a level's index is not read: the circuit derives the challenge itself).
struct UpdateChallengeWitness {
  PoseidonFr leaf_r_old = PoseidonFr::zero(), leaf_d_new = PoseidonFr::zero(), leaf_r_new = PoseidonFr::zero();
  std::vector<PorPathLevel> path_r_old, path_d_new, path_r_new;
};

struct UpdateWitness {
  uint64_t k_and_h_select = 0;  // k | h_select << partition_bits (the Poseidon variant: h_select)
  PoseidonFr comm_r_old = PoseidonFr::zero(), comm_d_new = PoseidonFr::zero(), comm_r_new = PoseidonFr::zero();
  PoseidonFr comm_c = PoseidonFr::zero(), root_r_old = PoseidonFr::zero(), root_r_new = PoseidonFr::zero();
  std::vector<PoseidonFr> apex_leaves;  // the partition's apex leaves (none in the Poseidon variant)
  std::vector<UpdateChallengeWitness> challenges;
};

// h_select for an h of hs: 2^(its first index); throws InvalidArgument for another h.
inline uint64_t update_h_select(const UpdateCircuitConfig& c, size_t h) {
  for (size_t i = 0; i < c.hs.size(); ++i)
    if (c.hs[i] == h) return uint64_t(1) << i;
  throw InvalidArgument("update: h = " + std::to_string(h) + " is not one the circuit allows for " +
                        std::to_string(c.nodes) + " nodes");
}

// k | h_select << partition_bits (PublicInputs::new); throws InvalidArgument for k beyond the
// partitions or an h the circuit does not allow.
inline uint64_t update_k_and_h_select(const UpdateCircuitConfig& c, size_t k, size_t h) {
  if (k >= c.partitions)
    throw InvalidArgument("update: partition " + std::to_string(k) + " of " + std::to_string(c.partitions));
  return uint64_t(k) | update_h_select(c, h) << c.partition_bits();
}

// Zeros of the right shape for every value (the blank circuit: the shape does not depend on
// them), k = 0 and h_select choosing hs[3] (the h rust-fil-proofs proves with).
inline UpdateWitness update_blank_witness(const UpdateCircuitConfig& c) {
  c.validate();
  UpdateChallengeWitness ch;
  ch.path_r_old = ch.path_r_new = por_blank_witness(c.tree_r, c.nodes).path;
  ch.path_d_new = por_blank_witness(c.tree_d(), c.nodes).path;
  UpdateWitness w;
  w.k_and_h_select = update_k_and_h_select(c, 0, c.hs[3]);
  w.apex_leaves.assign(c.poseidon ? 0 : c.apex_leaves, PoseidonFr::zero());
  w.challenges.assign(c.challenges, ch);
  return w;
}

// The witness's shape against the circuit's (counts, path heights and sibling counts, the one
// partition path every challenge's tree D path ends with) and k_and_h_select (k below the
// partitions, exactly one h_select bit, nothing above). Throws InvalidArgument naming what differs.
inline void update_check_witness(const UpdateCircuitConfig& c, const UpdateWitness& w) {
  c.validate();
  if (w.challenges.size() != c.challenges)
    throw InvalidArgument("update: " + std::to_string(w.challenges.size()) + " challenge proofs for " +
                          std::to_string(c.challenges) + " challenges");
  if (w.apex_leaves.size() != (c.poseidon ? 0 : c.apex_leaves))
    throw InvalidArgument("update: " + std::to_string(w.apex_leaves.size()) + " apex leaves, the circuit takes " +
                          std::to_string(c.poseidon ? 0 : c.apex_leaves));
  const size_t pb = c.partition_bits();
  const uint64_t hsel = w.k_and_h_select >> pb;
  if ((w.k_and_h_select & ((uint64_t(1) << pb) - 1)) >= c.partitions || hsel == 0 || (hsel & (hsel - 1)) ||
      hsel >= (uint64_t(1) << c.hs.size()))
    throw InvalidArgument("update: k_and_h_select " + std::to_string(w.k_and_h_select) + ": not a partition below " +
                          std::to_string(c.partitions) + " and exactly one of 6 h_select bits");
  auto check_path = [&](const std::vector<PorPathLevel>& p, const TreeShape& s, const char* what, size_t i) {
    const std::vector<size_t> ar = s.path_arities(c.nodes);
    bool ok = p.size() == ar.size();
    for (size_t l = 0; ok && l < ar.size(); ++l) ok = p[l].siblings.size() == ar[l] - 1;
    if (!ok)
      throw InvalidArgument("update: challenge " + std::to_string(i) + ": " + what + " is not a path of tree " +
                            s.name() + " over " + std::to_string(c.nodes) + " leaves");
  };
  for (size_t i = 0; i < w.challenges.size(); ++i) {
    const UpdateChallengeWitness& ch = w.challenges[i];
    check_path(ch.path_r_old, c.tree_r, "path_r_old", i);
    check_path(ch.path_r_new, c.tree_r, "path_r_new", i);
    check_path(ch.path_d_new, c.tree_d(), "path_d_new", i);
    if (c.poseidon || i == 0) continue;
    for (size_t l = c.challenge_bits() - pb; l < c.challenge_bits(); ++l)
      if (ch.path_d_new[l].siblings[0] != w.challenges[0].path_d_new[l].siblings[0])
        throw InvalidArgument("update: challenge " + std::to_string(i) +
                              ": its tree D path ends with another partition path than challenge 0's");
  }
}

// --- plain computations (vanilla.rs, challenges.rs, compound.rs) ---

inline const PoseidonConstants& update_gen_randomness() {
  return poseidon_constants(2, PoseidonHashType::custom_id(1));
}

// phi = H(comm_d_new, comm_r_old), rho = H(phi, high), Poseidon-2 with the gen-randomness tag.
inline PoseidonFr update_phi(const PoseidonFr& comm_d_new, const PoseidonFr& comm_r_old) {
  const PoseidonFr in[2] = {comm_d_new, comm_r_old};
  return poseidon_hash(update_gen_randomness(), in);
}
inline PoseidonFr update_rho(const PoseidonFr& phi, uint64_t high) {
  const PoseidonFr in[2] = {phi, PoseidonFr::from_u64(high)};
  return poseidon_hash(update_gen_randomness(), in);
}

// Partition k's challenges (Challenges::new; the Poseidon variant's Challenges::new_poseidon is
// the same with one partition): digest_index = k · digests + j, digest = H(comm_r_new,
// digest_index), random_bits bits per challenge from its bits (least significant first), k above.
inline std::vector<uint64_t> update_challenges(const UpdateCircuitConfig& c, const PoseidonFr& comm_r_new, size_t k) {
  c.validate();
  if (k >= c.partitions)
    throw InvalidArgument("update: partition " + std::to_string(k) + " of " + std::to_string(c.partitions));
  const size_t rb = c.random_bits(), per = c.challenges_per_digest();
  std::vector<uint64_t> out;
  for (uint64_t j = 0; out.size() < c.challenges; ++j) {
    const PoseidonFr in[2] = {comm_r_new, PoseidonFr::from_u64(uint64_t(k) * c.digests() + j)};
    const auto d = poseidon_hash(update_gen_randomness(), in).to_std();
    for (size_t i = 0; i < per && out.size() < c.challenges; ++i) {
      uint64_t v = 0;
      for (size_t b = 0; b < rb; ++b) v |= ((d.v[(i * rb + b) / 64] >> ((i * rb + b) % 64)) & 1) << b;
      out.push_back(v | uint64_t(k) << rb);
    }
  }
  return out;
}

// The public inputs of partition k (generate_public_inputs): k_and_h_select (the Poseidon
// variant: h_select), comm_r_old, comm_d_new, comm_r_new.
inline std::vector<PoseidonFr> update_public_inputs(const UpdateCircuitConfig& c, size_t k, size_t h,
                                                    const PoseidonFr& comm_r_old, const PoseidonFr& comm_d_new,
                                                    const PoseidonFr& comm_r_new) {
  return {PoseidonFr::from_u64(update_k_and_h_select(c, k, h)), comm_r_old, comm_d_new, comm_r_new};
}

// --- the circuit ---

namespace detail {

using UNum = circuit::Num<PoseidonFr>;

// The low n bits of x as allocated booleans and (sum 2^i b_i) · ONE = x (gadgets.rs'
// allocated_num_to_allocated_bits at n = NUM_BITS; the k_and_h_select / h_select decomposition).
template <class CS>
std::vector<circuit::Bit> update_num_bits(CS& cs, const UNum& x, size_t n) {
  using F = PoseidonFr;
  PoseidonFr::Limbs s{};
  if constexpr (CS::kValues) s = x.value.to_std();
  std::vector<circuit::Bit> bits;
  bits.reserve(n);
  for (size_t i = 0; i < n; ++i) bits.push_back(circuit::alloc_bit(cs, (s.v[i / 64] >> (i % 64)) & 1));
  cs.enforce(
      [&] {
        circuit::Lc<F> lc;
        F coeff = F::one();
        for (const circuit::Bit& b : bits) lc.add(b.var, coeff), coeff = coeff.dbl();
        return lc;
      },
      [] { return circuit::Lc<F>(circuit::kOne); }, [&] { return circuit::Lc<F>(x.var); });
  return bits;
}

inline std::vector<circuit::Boolean> update_booleans(std::span<const circuit::Bit> bits) {
  std::vector<circuit::Boolean> out;
  out.reserve(bits.size());
  for (const circuit::Bit& b : bits) out.push_back(circuit::Boolean::is(b));
  return out;
}

template <class CS>
UNum update_poseidon2(CS& cs, const UNum& a, const UNum& b, const PoseidonConstants& c) {
  const UNum in[2] = {a, b};
  return poseidon_hash_circuit(cs, std::span<const UNum>(in), c);
}

// The siblings of every level, allocated level by level.
template <class CS>
std::vector<std::vector<UNum>> update_alloc_path(CS& cs, std::span<const PorPathLevel> path) {
  std::vector<std::vector<UNum>> out;
  out.reserve(path.size());
  for (const PorPathLevel& l : path) {
    std::vector<UNum> s;
    s.reserve(l.siblings.size());
    for (const PoseidonFr& v : l.siblings) s.push_back(circuit::alloc_num(cs, [&] { return v; }));
    out.push_back(std::move(s));
  }
  return out;
}

// storage-proofs-core por_no_challenge_input: the leaf hashed up the allocated path, each
// level's position taken from the next log2(arity) challenge bits (base levels, then the sub and
// top levels), and computed root · ONE = root. The bits must be used up exactly.
template <class CS>
void update_por(CS& cs, const TreeShape& s, std::span<const circuit::Bit> bits, UNum cur,
                const std::vector<std::vector<UNum>>& path, const UNum& root) {
  const size_t upper = (s.sub ? 1 : 0) + (s.top ? 1 : 0);
  if (path.size() < upper) throw InvalidArgument("update: a path shorter than the tree's sub and top levels");
  size_t next = 0;
  for (size_t level = 0; level < path.size(); ++level) {
    const size_t base_levels = path.size() - upper;
    const size_t arity = level < base_levels ? s.base : level == base_levels && s.sub ? s.sub : s.top;
    if (path[level].size() != arity - 1) throw InvalidArgument("update: a path level with the wrong sibling count");
    const size_t nb = size_t(__builtin_ctzll(arity));
    if (next + nb > bits.size()) throw InvalidArgument("update: fewer challenge bits than the path's levels take");
    const std::vector<circuit::Boolean> index = update_booleans(bits.subspan(next, nb));
    next += nb;
    const std::vector<UNum> preimage =
        circuit::insert(cs, cur, std::span<const circuit::Boolean>(index), std::span<const UNum>(path[level]));
    cur = hash_multi_leaf_circuit(cs, s.hasher, std::span<const UNum>(preimage));
  }
  if (next != bits.size()) throw InvalidArgument("update: challenge bits left over by the path");
  circuit::enforce_num_equal(cs, cur, root);
}

// apex_por: the apex tree (binary SHA-256, row by row) over the partition's apex leaves, and its
// root's inclusion in comm_d along the partition path, positions from the partition bits.
template <class CS>
void update_apex_por(CS& cs, std::span<const circuit::Bit> partition_bits, const std::vector<UNum>& apex_leaves,
                     const std::vector<std::vector<UNum>>& partition_path, const UNum& comm_d) {
  const TreeShape td{MerkleHasher::sha256, 2, 0, 0};
  std::vector<UNum> row = apex_leaves;
  while (row.size() > 1) {
    std::vector<UNum> up;
    for (size_t i = 0; i < row.size(); i += 2)
      up.push_back(hash_multi_leaf_circuit(cs, td.hasher, std::span<const UNum>(row).subspan(i, 2)));
    row = std::move(up);
  }
  update_por(cs, td, partition_bits, row.at(0), partition_path, comm_d);
}

// gen_challenge_bits: per digest j, digest_index = partition · digests + j (constrained), the
// digest H(comm_r_new, digest_index) as NUM_BITS booleans, random_bits of them per challenge.
template <class CS>
std::vector<std::vector<circuit::Bit>> update_gen_challenge_bits(CS& cs, const UpdateCircuitConfig& c,
                                                                 const UNum& comm_r_new, const UNum& partition,
                                                                 size_t bits_per_challenge) {
  using F = PoseidonFr;
  const size_t per = size_t(circuit::field_capacity<F>()) / bits_per_challenge;
  const uint64_t digests = (c.challenges + per - 1) / per;
  std::vector<std::vector<circuit::Bit>> out;
  out.reserve(c.challenges);
  for (uint64_t j = 0; j < digests; ++j) {
    const UNum index = circuit::alloc_num(cs, [&] { return partition.value * F::from_u64(digests) + F::from_u64(j); });
    cs.enforce([&] { return circuit::Lc<F>(partition.var, F::from_u64(digests)).add(circuit::kOne, F::from_u64(j)); },
               [] { return circuit::Lc<F>(circuit::kOne); }, [&] { return circuit::Lc<F>(index.var); });
    const UNum digest = update_poseidon2(cs, comm_r_new, index, update_gen_randomness());
    const std::vector<circuit::Bit> bits = update_num_bits(cs, digest, size_t(circuit::field_num_bits<F>()));
    const size_t take = j + 1 == digests ? c.challenges - out.size() : per;
    for (size_t i = 0; i < take; ++i)
      out.emplace_back(bits.begin() + i * bits_per_challenge, bits.begin() + (i + 1) * bits_per_challenge);
  }
  return out;
}

// get_challenge_high_bits: per h of hs, the h high bits of c packed, times its h_select bit; the
// sum (the selected one) allocated.
template <class CS>
UNum update_challenge_high(CS& cs, const UpdateCircuitConfig& c, std::span<const circuit::Bit> c_bits,
                           std::span<const circuit::Bit> h_select_bits) {
  using F = PoseidonFr;
  std::vector<UNum> scaled;
  scaled.reserve(c.hs.size());
  for (size_t k = 0; k < c.hs.size(); ++k) {
    const std::vector<circuit::Boolean> high = update_booleans(c_bits.subspan(c_bits.size() - c.hs[k]));
    const UNum packed = circuit::pack_bits(cs, std::span<const circuit::Boolean>(high));
    const circuit::Bit& sel = h_select_bits[k];
    const UNum v = circuit::alloc_num(cs, [&] { return sel.value ? packed.value : F::zero(); });
    cs.enforce([&] { return circuit::Lc<F>(packed.var); }, [&] { return circuit::Lc<F>(sel.var); },
               [&] { return circuit::Lc<F>(v.var); });
    scaled.push_back(v);
  }
  const UNum selected = circuit::alloc_num(cs, [&] {
    F s = F::zero();
    for (const UNum& v : scaled) s += v.value;
    return s;
  });
  cs.enforce(
      [&] {
        circuit::Lc<F> lc;
        for (const UNum& v : scaled) lc.add(v.var, F::one());
        return lc;
      },
      [] { return circuit::Lc<F>(circuit::kOne); }, [&] { return circuit::Lc<F>(selected.var); });
  return selected;
}

// What every challenge reads from the partition's part of the circuit.
struct UpdateShared {
  UNum phi, root_r_old, root_r_new, comm_d_new;
  std::vector<UNum> apex_leaves;
  std::vector<circuit::Bit> partition_bits, h_select_bits;
};

// One challenge (the loop body of both variants' synthesize).
template <class CS>
void update_challenge_circuit(CS& cs, const UpdateCircuitConfig& c, const UpdateShared& sh,
                              std::span<const circuit::Bit> random_bits, const UpdateChallengeWitness& w,
                              size_t index) {
  using F = PoseidonFr;
  std::vector<circuit::Bit> c_bits(random_bits.begin(), random_bits.end());
  c_bits.insert(c_bits.end(), sh.partition_bits.begin(), sh.partition_bits.end());
  const std::span<const circuit::Bit> bits(c_bits);

  const UNum high = update_challenge_high(cs, c, bits, std::span<const circuit::Bit>(sh.h_select_bits));
  const UNum rho = update_poseidon2(cs, sh.phi, high, update_gen_randomness());

  const UNum leaf_r_old = circuit::alloc_num(cs, [&] { return w.leaf_r_old; });
  const UNum leaf_d_new = circuit::alloc_num(cs, [&] { return w.leaf_d_new; });
  // label_r_new: leaf_r_new = leaf_r_old + leaf_d_new · rho.
  const UNum d_rho = circuit::num_mul(cs, leaf_d_new, rho);
  const UNum leaf_r_new = circuit::alloc_num(cs, [&] { return leaf_r_old.value + d_rho.value; });
  cs.enforce([&] { return circuit::Lc<F>(leaf_r_old.var).add(d_rho.var, F::one()); },
             [] { return circuit::Lc<F>(circuit::kOne); }, [&] { return circuit::Lc<F>(leaf_r_new.var); });
  if constexpr (CS::kValues)
    if (leaf_r_new.value != w.leaf_r_new)
      throw InvalidArgument("update: challenge " + std::to_string(index) +
                            ": leaf_r_new is not leaf_r_old + leaf_d_new · rho");

  const auto path_r_old = update_alloc_path(cs, std::span<const PorPathLevel>(w.path_r_old));
  update_por(cs, c.tree_r, bits, leaf_r_old, path_r_old, sh.root_r_old);
  const auto path_r_new = update_alloc_path(cs, std::span<const PorPathLevel>(w.path_r_new));
  update_por(cs, c.tree_r, bits, leaf_r_new, path_r_new, sh.root_r_new);

  if (c.poseidon) {
    const auto path_d_new = update_alloc_path(cs, std::span<const PorPathLevel>(w.path_d_new));
    update_por(cs, c.tree_r, bits, leaf_d_new, path_d_new, sh.comm_d_new);
    return;
  }
  const size_t below = c.challenge_bits() - c.partition_bits() - c.apex_bits();
  const std::vector<circuit::Boolean> apex_bits = update_booleans(bits.subspan(below, c.apex_bits()));
  const UNum apex_leaf =
      circuit::select(cs, std::span<const UNum>(sh.apex_leaves), std::span<const circuit::Boolean>(apex_bits));
  const auto path_d = update_alloc_path(cs, std::span<const PorPathLevel>(w.path_d_new).subspan(0, below));
  update_por(cs, c.tree_d(), bits.subspan(0, below), leaf_d_new, path_d, apex_leaf);
}

}  // namespace detail

// EmptySectorUpdateCircuit::synthesize (or the Poseidon variant's, as c.poseidon says) over w
// (checked first: update_check_witness). With a pool, the values back end fills the challenges in
// parallel (circuit::for_each_block).
template <class CS>
void update_circuit(CS& cs, const UpdateCircuitConfig& c, const UpdateWitness& w, ThreadPool* pool = nullptr) {
  using F = PoseidonFr;
  using detail::UNum;
  static_assert(std::is_same_v<typename CS::Field, F>, "the update circuit is over BLS12-381 Fr");
  update_check_witness(c, w);
  const PoseidonConstants& merkle2 = poseidon_constants(2);
  const size_t pb = c.partition_bits();
  detail::UpdateShared sh;

  const UNum k_and_h_select = circuit::alloc_num(cs, [&] { return F::from_u64(w.k_and_h_select); });
  circuit::inputize(cs, k_and_h_select);
  const std::vector<circuit::Bit> kh_bits = detail::update_num_bits(cs, k_and_h_select, pb + c.hs.size());
  sh.partition_bits.assign(kh_bits.begin(), kh_bits.begin() + pb);
  sh.h_select_bits.assign(kh_bits.begin() + pb, kh_bits.end());
  UNum partition;
  if (!c.poseidon) {
    const std::vector<circuit::Boolean> pbits =
        detail::update_booleans(std::span<const circuit::Bit>(sh.partition_bits));
    partition = circuit::pack_bits(cs, std::span<const circuit::Boolean>(pbits));
  }

  const UNum comm_r_old = circuit::alloc_num(cs, [&] { return w.comm_r_old; });
  circuit::inputize(cs, comm_r_old);
  sh.comm_d_new = circuit::alloc_num(cs, [&] { return w.comm_d_new; });
  circuit::inputize(cs, sh.comm_d_new);
  const UNum comm_r_new = circuit::alloc_num(cs, [&] { return w.comm_r_new; });
  circuit::inputize(cs, comm_r_new);
  sh.phi = detail::update_poseidon2(cs, sh.comm_d_new, comm_r_old, update_gen_randomness());

  const UNum comm_c = circuit::alloc_num(cs, [&] { return w.comm_c; });
  sh.root_r_old = circuit::alloc_num(cs, [&] { return w.root_r_old; });
  sh.root_r_new = circuit::alloc_num(cs, [&] { return w.root_r_new; });
  std::vector<std::vector<UNum>> partition_path;
  if (!c.poseidon) {
    for (const PoseidonFr& v : w.apex_leaves) sh.apex_leaves.push_back(circuit::alloc_num(cs, [&] { return v; }));
    for (size_t l = c.challenge_bits() - pb; l < c.challenge_bits(); ++l) {
      const PoseidonFr& v = w.challenges[0].path_d_new[l].siblings[0];
      partition_path.push_back({circuit::alloc_num(cs, [&] { return v; })});
    }
  }

  const UNum r_old = detail::update_poseidon2(cs, comm_c, sh.root_r_old, merkle2);
  circuit::enforce_num_equal(cs, r_old, comm_r_old);
  const UNum r_new = detail::update_poseidon2(cs, comm_c, sh.root_r_new, merkle2);
  circuit::enforce_num_equal(cs, r_new, comm_r_new);

  if (!c.poseidon) {
    detail::update_apex_por(cs, std::span<const circuit::Bit>(sh.partition_bits), sh.apex_leaves, partition_path,
                            sh.comm_d_new);
  } else {
    partition = circuit::alloc_num(cs, [] { return F::zero(); });
  }

  const std::vector<std::vector<circuit::Bit>> generated =
      detail::update_gen_challenge_bits(cs, c, comm_r_new, partition, c.random_bits());
  circuit::for_each_block(cs, c.challenges, pool, [&](auto& block, size_t i) {
    detail::update_challenge_circuit(block, c, sh, std::span<const circuit::Bit>(generated[i]), w.challenges[i], i);
  });
}

}  // namespace cuzk::filecoin
