// SPDX-License-Identifier: MIT OR Apache-2.0
// neptune's legacy optimized Poseidon circuit (circuit.rs `poseidon_hash`), the one Filecoin's
// verifying keys were made for, row for row: the state is a list of elements each either an
// allocated variable or a linear combination with its value (neptune's Elt); the MDS products
// only combine them linearly, and an element is allocated (one row: lc · ONE = v) where an S-box
// needs it as a variable and for the result.
//   first full round: the tag's S-box is a constant ((tag + k)^5 + k', no row); every input's
//     S-box adds its round constant before squaring: (l + k)^2, ^4, (l + k) · l4 + k' (3 rows)
//   other full rounds: every element allocated (1 row) and l^2, l^4, l4 · l + k' (3 rows; the
//     terminal round adds no constant)
//   partial rounds: state[0] alone through the S-box, then neptune's sparse matrix (the round
//     before them uses the pre-sparse matrix)
//   the result: state[1] allocated (1 row)
// So 3(t·R_F + R_P - 1) + (t·R_F + R_P - arity) rows for width t = arity + 1 (311 at arity 2).
// The round constants are neptune's compressed ones (src/filecoin/poseidon.hpp).
//
// Hash types: merkle and custom tags take `arity` inputs; constant_length(L) only L = arity, as
// neptune's legacy circuit has no padding (its plain hash zero-pads; the circuit refuses).
// Also here: the stacked DRG's column hash (storage-proofs-porep hash_single_column).
#pragma once
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "circuit/num.hpp"
#include "filecoin/poseidon.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace detail {

// neptune's Elt: an allocated variable, or a linear combination with its value.
struct PoseidonElt {
  bool allocated = false;
  circuit::Num<PoseidonFr> num;       // when allocated
  circuit::LcNum<PoseidonFr> linear;  // otherwise
};

template <class CS>
PoseidonElt poseidon_constant_elt(const PoseidonFr& c) {
  PoseidonElt e;
  if constexpr (CS::kRows) e.linear.lc.add(circuit::kOne, c);
  e.linear.value = c;
  return e;
}

// acc + e · s (neptune's Elt::scale, then Num::add: an allocated element is the term (s, v), a
// combination's terms are merged in its order with their coefficients times s; no scaled copy).
template <class CS>
void poseidon_accumulate_scaled(circuit::LcNum<PoseidonFr>& acc, const PoseidonElt& e, const PoseidonFr& s) {
  if (e.allocated) {
    if constexpr (CS::kRows) acc.lc.add(e.num.var, s);
    if constexpr (CS::kValues) acc.value += e.num.value * s;
  } else {
    if constexpr (CS::kRows) acc.lc.add(e.linear.lc, s);
    if constexpr (CS::kValues) acc.value += e.linear.value * s;
  }
}

// sum_i elts[i] · scalars[i], starting from an empty combination.
template <class CS>
PoseidonElt poseidon_scalar_product(std::span<const PoseidonElt> elts, const std::vector<PoseidonFr>& scalars) {
  PoseidonElt r;
  for (size_t i = 0; i < elts.size(); ++i) poseidon_accumulate_scaled<CS>(r.linear, elts[i], scalars[i]);
  return r;
}

// The element as a variable: itself when allocated, else a new variable v and lc · ONE = v.
template <class CS>
circuit::Num<PoseidonFr> poseidon_ensure_allocated(CS& cs, const PoseidonElt& e) {
  using F = PoseidonFr;
  if (e.allocated) return e.num;
  const auto v = circuit::alloc_num(cs, [&] { return e.linear.value; });
  cs.enforce([&] { return circuit::Lc<F>().add(e.linear.lc); }, [] { return circuit::Lc<F>(circuit::kOne); },
             [&] { return circuit::Lc<F>(v.var); });
  return v;
}

// (num + k)^2: A = B = num + k·ONE, C = result.
template <class CS>
circuit::Num<PoseidonFr> poseidon_square_sum(CS& cs, const PoseidonFr& k, const circuit::Num<PoseidonFr>& num) {
  using F = PoseidonFr;
  const auto r = circuit::alloc_num(cs, [&] { return (num.value + k).sqr(); });
  cs.enforce([&] { return circuit::Lc<F>(num.var).add(circuit::kOne, k); },
             [&] { return circuit::Lc<F>(num.var).add(circuit::kOne, k); }, [&] { return circuit::Lc<F>(r.var); });
  return r;
}

// a · (b + pre) + post: A = b (+ pre·ONE), B = a, C = result (- post·ONE).
template <class CS>
circuit::Num<PoseidonFr> poseidon_mul_sum(CS& cs, const circuit::Num<PoseidonFr>& a, const circuit::Num<PoseidonFr>& b,
                                          const PoseidonFr* pre, const PoseidonFr* post) {
  using F = PoseidonFr;
  const auto r = circuit::alloc_num(cs, [&] {
    F t = b.value;
    if (pre) t += *pre;
    t *= a.value;
    if (post) t += *post;
    return t;
  });
  cs.enforce(
      [&] {
        circuit::Lc<F> lc(b.var);
        if (pre) lc.add(circuit::kOne, *pre);
        return lc;
      },
      [&] { return circuit::Lc<F>(a.var); },
      [&] {
        circuit::Lc<F> lc(r.var);
        if (post) lc.add(circuit::kOne, -*post);
        return lc;
      });
  return r;
}

// l = e allocated, then l^2, l^4, l4 · l (+ post).
template <class CS>
PoseidonElt poseidon_quintic_s_box(CS& cs, const PoseidonElt& e, const PoseidonFr* post) {
  const auto l = poseidon_ensure_allocated(cs, e);
  const auto l2 = circuit::num_square(cs, l);
  const auto l4 = circuit::num_square(cs, l2);
  PoseidonElt r;
  r.allocated = true;
  r.num = poseidon_mul_sum(cs, l4, l, nullptr, post);
  return r;
}

// The first round's S-box of an input: (l + pre)^2, ^4, l4 · (l + pre) + post.
template <class CS>
PoseidonElt poseidon_quintic_s_box_pre_add(CS& cs, const PoseidonElt& e, const PoseidonFr& pre,
                                           const PoseidonFr& post) {
  const auto l = poseidon_ensure_allocated(cs, e);
  const auto l2 = poseidon_square_sum(cs, pre, l);
  const auto l4 = circuit::num_square(cs, l2);
  PoseidonElt r;
  r.allocated = true;
  r.num = poseidon_mul_sum(cs, l4, l, &pre, &post);
  return r;
}

template <class CS>
class PoseidonCircuit {
 public:
  PoseidonCircuit(CS& cs, const PoseidonConstants& c, std::vector<PoseidonElt> elements)
      : cs_(cs), c_(c), elements_(std::move(elements)) {}

  circuit::Num<PoseidonFr> hash() {
    full_round(true, false);
    for (size_t i = 1; i < c_.half_full_rounds; ++i) full_round(false, false);
    for (size_t i = 0; i < c_.partial_rounds; ++i) partial_round();
    for (size_t i = 0; i + 1 < c_.half_full_rounds; ++i) full_round(false, false);
    full_round(false, true);
    return poseidon_ensure_allocated(cs_, elements_[1]);
  }

 private:
  void full_round(bool first, bool last) {
    const size_t t = c_.width;
    const PoseidonFr* pre = nullptr;
    if (first) pre = &c_.compressed_round_constants[offset_], offset_ += t;
    const PoseidonFr* post = nullptr;
    if (first || !last) post = &c_.compressed_round_constants[offset_], offset_ += t;
    for (size_t i = 0; i < t; ++i) {
      if (first && i == 0) {
        // The tag is a constant: its first S-box is computed, not constrained.
        PoseidonFr x = elements_[0].linear.value + pre[0];
        x = x.sqr().sqr() * x + post[0];
        elements_[0] = poseidon_constant_elt<CS>(x);
      } else if (first) {
        elements_[i] = poseidon_quintic_s_box_pre_add(cs_, elements_[i], pre[i], post[i]);
      } else {
        elements_[i] = poseidon_quintic_s_box(cs_, elements_[i], post ? &post[i] : nullptr);
      }
    }
    product_mds();
  }

  void partial_round() {
    const PoseidonFr& k = c_.compressed_round_constants[offset_++];
    elements_[0] = poseidon_quintic_s_box(cs_, elements_[0], &k);
    product_mds();
  }

  void product_mds() {
    const size_t half = c_.half_full_rounds, sparse_offset = half - 1;
    if (round_ == sparse_offset)
      product_matrix(c_.pre_sparse_matrix);
    else if (round_ > sparse_offset && round_ < half + c_.partial_rounds)
      product_sparse(c_.sparse_matrices[round_ - sparse_offset - 1]);
    else
      product_matrix(c_.mds);
    ++round_;
  }

  // s'[j] = sum_i m[i][j] · s[i] (by columns, as neptune).
  void product_matrix(const PoseidonMatrix& m) {
    const size_t t = c_.width;
    std::vector<PoseidonElt> r;
    r.reserve(t);
    std::vector<PoseidonFr> column(t);
    for (size_t j = 0; j < t; ++j) {
      for (size_t i = 0; i < t; ++i) column[i] = m[i][j];
      r.push_back(poseidon_scalar_product<CS>(std::span<const PoseidonElt>(elements_), column));
    }
    elements_ = std::move(r);
  }

  // s'[0] = sum_i w_hat[i] · s[i]; s'[j] = s[j] + v_rest[j-1] · s[0]. s[j] (j >= 1) is always a
  // linear combination here, as neptune requires.
  void product_sparse(const PoseidonSparseMatrix& m) {
    const size_t t = c_.width;
    std::vector<PoseidonElt> r;
    r.reserve(t);
    r.push_back(poseidon_scalar_product<CS>(std::span<const PoseidonElt>(elements_), m.w_hat));
    for (size_t j = 1; j < t; ++j) {
      if (elements_[j].allocated) throw Error("poseidon circuit: a sparse round met an allocated element");
      PoseidonElt e = std::move(elements_[j]);  // elements_ is replaced by r below; [0] stays
      poseidon_accumulate_scaled<CS>(e.linear, elements_[0], m.v_rest[j - 1]);
      r.push_back(std::move(e));
    }
    elements_ = std::move(r);
  }

  CS& cs_;
  const PoseidonConstants& c_;
  std::vector<PoseidonElt> elements_;
  size_t offset_ = 0;  // into the compressed round constants
  size_t round_ = 0;   // rounds whose MDS product is done
};

}  // namespace detail

// The Poseidon hash of the allocated preimage under c (its arity and hash type), as a new
// variable. Throws InvalidArgument for a preimage of another length than the arity, or a
// constant-length type of length other than the arity.
template <class CS>
circuit::Num<PoseidonFr> poseidon_hash_circuit(CS& cs, std::span<const circuit::Num<PoseidonFr>> preimage,
                                               const PoseidonConstants& c) {
  static_assert(std::is_same_v<typename CS::Field, PoseidonFr>, "Poseidon is over BLS12-381 Fr");
  if (preimage.size() != c.arity)
    throw InvalidArgument("poseidon circuit: " + std::to_string(preimage.size()) + " inputs for arity " +
                          std::to_string(c.arity));
  if (c.hash_type.kind == PoseidonHashType::constant_length && c.hash_type.value != c.arity)
    throw InvalidArgument("poseidon circuit: constant length " + std::to_string(c.hash_type.value) +
                          " below the arity " + std::to_string(c.arity) + " (neptune's legacy circuit has no padding)");
  std::vector<detail::PoseidonElt> elements;
  elements.reserve(c.width);
  elements.push_back(detail::poseidon_constant_elt<CS>(c.domain_tag));
  for (const auto& x : preimage) {
    detail::PoseidonElt e;
    e.allocated = true;
    e.num = x;
    elements.push_back(e);
  }
  return detail::PoseidonCircuit<CS>(cs, c, std::move(elements)).hash();
}

template <class CS>
circuit::Num<PoseidonFr> poseidon_hash_circuit(CS& cs, std::span<const circuit::Num<PoseidonFr>> preimage,
                                               PoseidonHashType type = PoseidonHashType::merkle_tree()) {
  return poseidon_hash_circuit(cs, preimage, poseidon_constants(preimage.size(), type));
}

// The stacked DRG's column hash (hash_single_column): a column of 2 or 11 rows (one per layer)
// through Poseidon of that arity with the Merkle tag. Throws InvalidArgument for other sizes.
template <class CS>
circuit::Num<PoseidonFr> hash_single_column_circuit(CS& cs, std::span<const circuit::Num<PoseidonFr>> column) {
  if (column.size() != 2 && column.size() != 11)
    throw InvalidArgument("column hash: " + std::to_string(column.size()) + " rows (2 or 11)");
  return poseidon_hash_circuit(cs, column, poseidon_constants(column.size()));
}

}  // namespace cuzk::filecoin
