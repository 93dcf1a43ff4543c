// SPDX-License-Identifier: MIT OR Apache-2.0
// Merkle inclusion in a circuit as storage-proofs-core's PoRCircuit::synthesize builds it, for
// Filecoin's Poseidon trees (base / sub / top arities: 8-0-0, 8-8-0, 8-8-2, ...) and SHA-256
// trees, and the plain trees that give its witness.
//
// The circuit, in allocation order:
//   the leaf (aux)
//   per path level, base levels first, then the sub-tree level, then the top-tree level:
//     log2(arity) index bits (booleans), the arity - 1 siblings (aux), the current hash inserted
//     among them (insertion.hpp), and the hash of the arity values (hash_multi_leaf_circuit:
//     Poseidon of that arity with the Merkle tag, or the 254-bit SHA-256 of the values' bits)
//   the index bits, all levels in order, packed into one public input (multipack)
//   the root (aux), computed root · ONE = root, and unless the root is private a public input
//   equal to it (inputize)
// So the inputs are ONE, the challenge, the root (3), or ONE and the challenge with a private root.
//
// Plain trees: a base tree of arity `base` over contiguous leaves; with a sub arity, that many
// base trees under one more node; with a top arity, that many such sub-trees under a root. A
// SHA-256 node is SHA-256 of its children's 32-byte little-endian encodings with the top two bits
// of the digest's last byte cleared, read little-endian (filecoin-hashers' Sha256Function).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "circuit/insertion.hpp"
#include "circuit/multipack.hpp"
#include "circuit/storage.hpp"
#include "filecoin/poseidon_circuit.hpp"
#include "filecoin/sha256.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

enum class MerkleHasher { poseidon, sha256 };

struct TreeShape {
  MerkleHasher hasher = MerkleHasher::poseidon;
  size_t base = 8, sub = 0, top = 0;  // 0: no such layer

  size_t base_tree_count() const { return (sub ? sub : 1) * (top ? top : 1); }
  // "poseidon-8-8-2", "poseidon-8", "sha256-2".
  std::string name() const {
    std::string s = hasher == MerkleHasher::poseidon ? "poseidon-" : "sha256-";
    s += std::to_string(base);
    if (sub || top) s += "-" + std::to_string(sub);
    if (top) s += "-" + std::to_string(top);
    return s;
  }
  // Parses the form name() prints (poseidon-8-0-0 is accepted too); throws InvalidArgument.
  static TreeShape parse(const std::string& text) {
    TreeShape s;
    std::string rest;
    if (text.rfind("poseidon-", 0) == 0)
      s.hasher = MerkleHasher::poseidon, rest = text.substr(9);
    else if (text.rfind("sha256-", 0) == 0)
      s.hasher = MerkleHasher::sha256, rest = text.substr(7);
    else
      throw InvalidArgument("tree '" + text + "': expected poseidon-B[-S[-T]] or sha256-B[-S[-T]]");
    std::vector<size_t> ar;
    size_t pos = 0;
    while (pos <= rest.size()) {
      const size_t dash = rest.find('-', pos);
      const std::string part = rest.substr(pos, dash == std::string::npos ? std::string::npos : dash - pos);
      if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos)
        throw InvalidArgument("tree '" + text + "': arities are numbers separated by '-'");
      ar.push_back(std::stoul(part));
      if (dash == std::string::npos) break;
      pos = dash + 1;
    }
    if (ar.size() > 3) throw InvalidArgument("tree '" + text + "': at most base, sub and top arities");
    s.base = ar[0];
    s.sub = ar.size() > 1 ? ar[1] : 0;
    s.top = ar.size() > 2 ? ar[2] : 0;
    s.validate();
    return s;
  }
  // Arities are powers of two (2..32), the base one non-zero, a top layer only over a sub layer.
  void validate() const {
    auto pow2 = [](size_t a) { return a >= 2 && a <= 32 && (a & (a - 1)) == 0; };
    if (!pow2(base)) throw InvalidArgument("tree " + name() + ": the base arity must be a power of two, 2 to 32");
    if (sub && !pow2(sub)) throw InvalidArgument("tree " + name() + ": the sub arity must be 0 or a power of two");
    if (top && !pow2(top)) throw InvalidArgument("tree " + name() + ": the top arity must be 0 or a power of two");
    if (top && !sub) throw InvalidArgument("tree " + name() + ": a top layer needs a sub layer");
  }
  // The base tree's height for `leaves` leaves in all; throws InvalidArgument unless each base
  // tree has base^k leaves, k >= 1.
  size_t base_path_length(uint64_t leaves) const {
    validate();
    const uint64_t n = base_tree_count();
    if (leaves == 0 || leaves % n)
      throw InvalidArgument("tree " + name() + ": leaves not a multiple of the base trees");
    uint64_t per = leaves / n;
    size_t k = 0;
    while (per > 1 && per % base == 0) per /= base, ++k;
    if (per != 1 || k == 0)
      throw InvalidArgument("tree " + name() + ": " + std::to_string(leaves / n) +
                            " leaves per base tree, not a power of " + std::to_string(base));
    return k;
  }
  // The arity of every path level, leaf upwards.
  std::vector<size_t> path_arities(uint64_t leaves) const {
    std::vector<size_t> a(base_path_length(leaves), base);
    if (sub) a.push_back(sub);
    if (top) a.push_back(top);
    return a;
  }
};

// One node of a plain tree from its children (arity of them).
inline PoseidonFr merkle_node(MerkleHasher h, std::span<const PoseidonFr> children) {
  if (h == MerkleHasher::poseidon) return poseidon_hash(children.size(), children);
  Sha256 s;
  for (const PoseidonFr& c : children) {
    const auto v = c.to_std();
    uint8_t b[32];
    for (int i = 0; i < 32; ++i) b[i] = uint8_t(v.v[i / 8] >> (8 * (i % 8)));
    s.update(std::span<const uint8_t>(b, 32));
  }
  Sha256::Digest d = s.finish();
  d[31] &= 0x3f;
  PoseidonFr::Limbs l{};
  for (int i = 0; i < 32; ++i) l.v[i / 8] |= uint64_t(d[i]) << (8 * (i % 8));
  return PoseidonFr::from_std(l);
}

// A Merkle path: per level, leaf upwards, the siblings and the position among them.
struct PorPathLevel {
  std::vector<PoseidonFr> siblings;  // arity - 1
  size_t index = 0;                  // 0..arity-1
};
struct PorWitness {
  PoseidonFr leaf = PoseidonFr::zero();
  std::vector<PorPathLevel> path;
  PoseidonFr root = PoseidonFr::zero();
  uint64_t challenge = 0;
};

// Zeros of the right shape: what a circuit without values (bellperson's blank circuit) takes.
inline PorWitness por_blank_witness(const TreeShape& s, uint64_t leaves) {
  PorWitness w;
  for (size_t a : s.path_arities(leaves)) w.path.push_back({std::vector<PoseidonFr>(a - 1, PoseidonFr::zero()), 0});
  return w;
}

// The path of leaf `challenge` and the root, from the plain tree over the leaves.
inline PorWitness por_witness(const TreeShape& s, std::span<const PoseidonFr> leaves, uint64_t challenge) {
  s.base_path_length(leaves.size());  // validates
  if (challenge >= leaves.size()) throw InvalidArgument("por: challenge beyond the leaves");
  PorWitness w;
  w.leaf = leaves[challenge];
  w.challenge = challenge;
  // One level up from `nodes` (groups of arity), recording the path of node `idx`.
  auto level_up = [&](std::vector<PoseidonFr>& nodes, size_t arity, size_t& idx, bool record) {
    if (record) {
      PorPathLevel l;
      l.index = idx % arity;
      const size_t lo = idx - l.index;
      for (size_t k = 0; k < arity; ++k)
        if (k != l.index) l.siblings.push_back(nodes[lo + k]);
      w.path.push_back(std::move(l));
    }
    std::vector<PoseidonFr> up;
    up.reserve(nodes.size() / arity);
    for (size_t lo = 0; lo < nodes.size(); lo += arity)
      up.push_back(merkle_node(s.hasher, std::span<const PoseidonFr>(nodes).subspan(lo, arity)));
    nodes = std::move(up);
    idx /= arity;
  };
  const size_t per = leaves.size() / s.base_tree_count();
  std::vector<PoseidonFr> roots;
  for (size_t b = 0; b < s.base_tree_count(); ++b) {
    std::vector<PoseidonFr> nodes(leaves.begin() + b * per, leaves.begin() + (b + 1) * per);
    const bool mine = challenge / per == b;
    size_t idx = challenge % per;
    while (nodes.size() > 1) level_up(nodes, s.base, idx, mine);
    roots.push_back(nodes[0]);
  }
  size_t idx = challenge / per;
  if (s.sub) level_up(roots, s.sub, idx, true);
  if (s.top) level_up(roots, s.top, idx, true);
  w.root = roots.at(0);
  return w;
}

// Filecoin's SHA-256 Merkle node in a circuit (Sha256Function::hash_multi_leaf_circuit): each
// value's NUM_BITS bits (to_bits_le, not range-checked), padded to whole bytes with constant
// zeros and reversed within each byte, all concatenated, then the 254-bit SHA-256.
template <class CS>
circuit::Num<PoseidonFr> sha256_hash_multi_leaf_circuit(CS& cs, std::span<const circuit::Num<PoseidonFr>> leaves) {
  std::vector<circuit::Boolean> bits;
  for (const auto& leaf : leaves) {
    const std::vector<circuit::Boolean> b = circuit::reverse_bit_numbering(circuit::to_bits_le(cs, leaf));
    bits.insert(bits.end(), b.begin(), b.end());
  }
  return circuit::sha254_hash_circuit(cs, std::span<const circuit::Boolean>(bits));
}

template <class CS>
circuit::Num<PoseidonFr> hash_multi_leaf_circuit(CS& cs, MerkleHasher h,
                                                 std::span<const circuit::Num<PoseidonFr>> leaves) {
  if (h == MerkleHasher::poseidon) return poseidon_hash_circuit(cs, leaves, poseidon_constants(leaves.size()));
  return sha256_hash_multi_leaf_circuit(cs, leaves);
}

// The variables a PoR circuit leaves: its root (aux) and the public inputs it made.
struct PorVars {
  circuit::Num<PoseidonFr> leaf, computed_root, root;
  circuit::Var challenge_input, root_input;  // root_input only with a public root
};

// The path levels of PoRCircuit (AuthPath's base, sub and top parts in turn) from `cur` upwards:
// per level the index bits, the siblings, the insertion and the node's hash. Returns the computed
// root and appends every level's index bits to path_bits.
template <class CS>
circuit::Num<PoseidonFr> por_path_circuit(CS& cs, const TreeShape& s, uint64_t leaves,
                                          std::span<const PorPathLevel> path, circuit::Num<PoseidonFr> cur,
                                          std::vector<circuit::Boolean>& path_bits) {
  using circuit::Boolean;
  using circuit::Num;
  const std::vector<size_t> arities = s.path_arities(leaves);
  if (path.size() != arities.size()) throw InvalidArgument("por: the path has another height than the tree");
  for (size_t level = 0; level < arities.size(); ++level) {
    const size_t arity = arities[level];
    const PorPathLevel& pl = path[level];
    if (pl.siblings.size() != arity - 1) throw InvalidArgument("por: a path level with the wrong sibling count");
    std::vector<Boolean> bits;
    for (size_t k = 0; (size_t(1) << k) < arity; ++k) bits.push_back(circuit::alloc_boolean(cs, (pl.index >> k) & 1));
    path_bits.insert(path_bits.end(), bits.begin(), bits.end());
    std::vector<Num<PoseidonFr>> siblings;
    for (const PoseidonFr& v : pl.siblings) siblings.push_back(circuit::alloc_num(cs, [&] { return v; }));
    const std::vector<Num<PoseidonFr>> inserted =
        circuit::insert(cs, cur, std::span<const Boolean>(bits), std::span<const Num<PoseidonFr>>(siblings));
    cur = hash_multi_leaf_circuit(cs, s.hasher, std::span<const Num<PoseidonFr>>(inserted));
  }
  return cur;
}

// PoRCircuit::synthesize over the witness's leaf, path and root (zeros from por_blank_witness for
// a circuit without values); the path must have the tree's levels for `leaves` leaves.
template <class CS>
PorVars por_circuit(CS& cs, const TreeShape& s, uint64_t leaves, const PorWitness& w, bool private_root) {
  using circuit::Boolean;
  PorVars out;
  out.leaf = circuit::alloc_num(cs, [&] { return w.leaf; });
  std::vector<Boolean> path_bits;
  out.computed_root = por_path_circuit(cs, s, leaves, std::span<const PorPathLevel>(w.path), out.leaf, path_bits);
  const uint64_t first_input = cs.num_inputs();
  circuit::pack_into_inputs(cs, std::span<const Boolean>(path_bits));
  out.challenge_input = circuit::Var::input(uint32_t(first_input));
  out.root = circuit::alloc_num(cs, [&] { return w.root; });
  circuit::enforce_num_equal(cs, out.computed_root, out.root);
  if (!private_root) out.root_input = circuit::inputize(cs, out.root);
  return out;
}

// PoRCircuit over a leaf and a root the caller has allocated, the root private (storage-proofs-
// porep's enforce_inclusion: Root::Var for both, so neither is allocated again): the path, its
// index bits packed into one public input (returned), computed root · ONE = root.
template <class CS>
circuit::Var por_inclusion_circuit(CS& cs, const TreeShape& s, uint64_t leaves, std::span<const PorPathLevel> path,
                                   const circuit::Num<PoseidonFr>& leaf, const circuit::Num<PoseidonFr>& root) {
  using circuit::Boolean;
  std::vector<Boolean> path_bits;
  const circuit::Num<PoseidonFr> computed = por_path_circuit(cs, s, leaves, path, leaf, path_bits);
  const uint64_t first_input = cs.num_inputs();
  circuit::pack_into_inputs(cs, std::span<const Boolean>(path_bits));
  circuit::enforce_num_equal(cs, computed, root);
  return circuit::Var::input(uint32_t(first_input));
}

}  // namespace cuzk::filecoin
