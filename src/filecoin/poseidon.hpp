// SPDX-License-Identifier: MIT OR Apache-2.0
// Poseidon over BLS12-381 Fr as Filecoin uses it (neptune's Strength::Standard): width t = arity + 1,
// x^5 S-box, R_F = 8 full rounds, R_P partial rounds by neptune's round-number rule, round constants
// from the Grain LFSR, the Cauchy MDS matrix 1/(x_i + y_j) with x = 0..t-1, y = t..2t-1, and the
// domain tag in state[0]. The output is state[1] after the permutation.
//
// Everything is generated here from those rules (no tables), including neptune's preprocessing for
// its optimized hash and its legacy optimized circuit: the round constants compressed so that only
// one constant follows each S-box, the pre-sparse matrix and one sparse matrix per partial round.
// Two hashes are provided: the textbook permutation (poseidon_hash_reference) and the optimized one
// on the preprocessed constants (poseidon_hash); they agree, which is what checks the preprocessing.
//
// Trees: poseidon_tree_root gives the root of Filecoin's Poseidon Merkle trees: a base tree of
// arity base_arity over contiguous leaves, then optionally one sub-tree layer (sub_arity identical
// base trees, their roots hashed together) and one top-tree layer (top_arity sub-trees), as
// rust-fil-proofs' tree shapes 8-0-0, 8-8-0, 8-8-2 name them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ff/bls12_381.hpp"

namespace cuzk {
class ThreadPool;
}

namespace cuzk::filecoin {

using PoseidonFr = ff::Bls12381Fr;
// A square matrix as rows: m[i][j] is row i, column j.
using PoseidonMatrix = std::vector<std::vector<PoseidonFr>>;

// The arities neptune defines (1..36); Filecoin uses 2, 4, 8, 11, 16, 24 and 36.
constexpr size_t kPoseidonMaxArity = 36;

// What state[0] holds (neptune's HashType):
//   merkle:          2^arity - 1 (the tree hashes, and Filecoin's Poseidon2/4/8/11 hashes)
//   constant_length: L * 2^64 for L inputs, L <= arity; the state is zero-padded after them
//   custom:          id * 2^40, id in 1..256 (SnapDeals' challenges use id 1)
struct PoseidonHashType {
  enum Kind { merkle, constant_length, custom };
  Kind kind = merkle;
  uint64_t value = 0;  // L for constant_length, id for custom

  static PoseidonHashType merkle_tree() { return {merkle, 0}; }
  static PoseidonHashType constant_length_of(uint64_t length) { return {constant_length, length}; }
  static PoseidonHashType custom_id(uint64_t id) { return {custom, id}; }
  friend bool operator==(const PoseidonHashType&, const PoseidonHashType&) = default;
};

// One of neptune's sparse matrices M'': row 0 is dense, column 0 is dense, the rest is the
// identity. w_hat is column 0 (t entries, w_hat[0] = M''[0][0]), v_rest is row 0 without its first
// entry (t - 1 entries). Applied to a state s:
//   s'[0] = sum_i w_hat[i] * s[i],   s'[j] = s[j] + v_rest[j-1] * s[0]  (j >= 1).
struct PoseidonSparseMatrix {
  std::vector<PoseidonFr> w_hat;
  std::vector<PoseidonFr> v_rest;
};

struct PoseidonConstants {
  size_t arity = 0;
  size_t width = 0;  // arity + 1
  size_t full_rounds = 0;
  size_t half_full_rounds = 0;
  size_t partial_rounds = 0;
  PoseidonHashType hash_type;
  PoseidonFr domain_tag;

  // MDS matrix M (symmetric) and its inverse. Rounds multiply the state as s'[i] = sum_j M[i][j] s[j].
  PoseidonMatrix mds;
  PoseidonMatrix mds_inverse;
  // The Grain constants, (full_rounds + partial_rounds) * width, round r's at [r*width, (r+1)*width).
  std::vector<PoseidonFr> round_constants;
  // neptune's compressed constants, width * full_rounds + partial_rounds of them, consumed in order
  // by the optimized hash: width added before the first S-boxes, then width after each S-box layer
  // of the first half of the full rounds, one after each partial round's S-box, width after each
  // S-box layer of the second half except the last (which has none).
  std::vector<PoseidonFr> compressed_round_constants;
  // Mixes the state after the last full round of the first half, applied by columns as neptune
  // does: s'[j] = sum_i pre_sparse_matrix[i][j] * s[i].
  PoseidonMatrix pre_sparse_matrix;
  // One per partial round, in the order of the rounds.
  std::vector<PoseidonSparseMatrix> sparse_matrices;
};

// neptune's round numbers for width t (R_F, R_P), from the security inequalities of the Poseidon
// paper with its security margin; throws InvalidArgument for t < 2.
struct PoseidonRounds {
  size_t full = 0, partial = 0;
};
PoseidonRounds poseidon_round_numbers(size_t width);

// The Grain LFSR round constants (field 1 = prime field, sbox 1 = x^5, 255 bits) for the width and
// round numbers, (full + partial) * width of them.
std::vector<PoseidonFr> poseidon_grain_constants(size_t width, size_t full_rounds, size_t partial_rounds);

// The Cauchy MDS matrix of width t.
PoseidonMatrix poseidon_mds(size_t width);
// The inverse of a square matrix; throws InvalidArgument when it is singular.
PoseidonMatrix poseidon_matrix_inverse(const PoseidonMatrix& m);

// The domain tag of a hash type for an arity; throws InvalidArgument for a tag neptune refuses
// (constant length 0 or above the arity, custom id outside 1..256).
PoseidonFr poseidon_domain_tag(size_t arity, PoseidonHashType type);

// The constants of an arity (1..36) and hash type, computed once per arity and kept for the life of
// the process (thread-safe). Throws InvalidArgument for another arity or an invalid tag.
const PoseidonConstants& poseidon_constants(size_t arity, PoseidonHashType type = PoseidonHashType::merkle_tree());

// The permutation on a whole state (c.width elements), textbook form: each round adds its round
// constants, applies x^5 (all elements in full rounds, state[0] in partial rounds), multiplies by M.
void poseidon_permute_reference(const PoseidonConstants& c, std::span<PoseidonFr> state);
// The same permutation on the compressed constants and sparse matrices (neptune's optimized hash).
void poseidon_permute(const PoseidonConstants& c, std::span<PoseidonFr> state);

// The hash of `inputs` under c's hash type: state = [tag, inputs..., 0...], permuted, state[1].
// Merkle and custom tags take exactly `arity` inputs; constant_length(L) exactly L. Throws
// InvalidArgument for another count.
PoseidonFr poseidon_hash(const PoseidonConstants& c, std::span<const PoseidonFr> inputs);
PoseidonFr poseidon_hash_reference(const PoseidonConstants& c, std::span<const PoseidonFr> inputs);
inline PoseidonFr poseidon_hash(size_t arity, std::span<const PoseidonFr> inputs,
                                PoseidonHashType type = PoseidonHashType::merkle_tree()) {
  return poseidon_hash(poseidon_constants(arity, type), inputs);
}

// The root of a Filecoin Poseidon tree over `leaves` (see the top of this file). sub_arity 0 means
// no sub-tree layer, top_arity 0 no top-tree layer (a top layer needs a sub layer). The leaf count
// must be base_arity^k * max(sub_arity, 1) * max(top_arity, 1) with k >= 1; throws InvalidArgument
// otherwise. Each layer's hashes are spread over the pool.
PoseidonFr poseidon_tree_root(std::span<const PoseidonFr> leaves, size_t base_arity, size_t sub_arity, size_t top_arity,
                              ThreadPool& pool);

// A field element from text: "0x" + hex digits (any count, leading zeros allowed) or decimal digits.
// Throws InvalidArgument naming `what` when the text is malformed or the value is >= r.
PoseidonFr poseidon_fr_from_string(const std::string& text, const std::string& what);
// "0x" + 64 lowercase hex digits of the canonical value, most significant first.
std::string poseidon_fr_to_hex(const PoseidonFr& x);

}  // namespace cuzk::filecoin
