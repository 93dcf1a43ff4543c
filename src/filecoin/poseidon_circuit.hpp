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
//
// The rows depend only on the constants, not on the values: a system that records rows without
// values (shapes, fingerprints, the prover's rows) replays a program recorded once per set of
// constants (PoseidonProgram: the rows over symbolic variables, ONE, the preimage, the hash's
// own), where building them again costs the MDS products over ever longer combinations
// (thousands of field products a hash). Systems with values run the gadget itself.
// Also here: the stacked DRG's column hash (storage-proofs-porep hash_single_column).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
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

// A hash's rows over symbolic variables: 0 is ONE, 1 + i the preimage's i-th, 1 + arity + k the
// k-th variable the hash allocates. Recorded by running the gadget on PoseidonRecorder.
struct PoseidonProgram {
  struct Term {
    uint32_t ref;
    PoseidonFr coeff;
  };
  std::vector<Term> terms;
  std::vector<uint32_t> ends;    // per row, where its A, B and C terms end (3 a row)
  std::vector<uint32_t> allocs;  // per row, the variables allocated just before it
  uint32_t allocs_after = 0;     // after the last row
  uint32_t vars = 0;             // allocated in all
  uint32_t result = 0;           // the hash's variable
};

// A constraint system that records the rows as a PoseidonProgram: the preimage's i-th variable is
// Var::input(1 + i), the k-th allocated Var::aux(k).
class PoseidonRecorder {
 public:
  using Field = PoseidonFr;
  static constexpr bool kValues = false;
  static constexpr bool kRows = true;

  explicit PoseidonRecorder(size_t arity) : arity_(uint32_t(arity)) {}
  template <class Fn>
  circuit::Var alloc(Fn&&) {
    ++pending_;
    return circuit::Var::aux(p_.vars++);
  }
  template <class Fn>
  circuit::Var alloc_input(Fn&&) {
    throw Error("poseidon program: the gadget allocated an input");
  }
  template <class A, class B, class C>
  void enforce(A&& a, B&& b, C&& c) {
    p_.allocs.push_back(pending_);
    pending_ = 0;
    record(circuit::make_lc<Field>(std::forward<A>(a)));
    record(circuit::make_lc<Field>(std::forward<B>(b)));
    record(circuit::make_lc<Field>(std::forward<C>(c)));
  }
  uint32_t ref(circuit::Var v) const {
    if (!v.is_input()) return 1 + arity_ + v.index();
    if (v.index() > arity_) throw Error("poseidon program: an input beyond the preimage");
    return v.index();  // ONE is input 0
  }
  PoseidonProgram finish(circuit::Var result) {
    p_.allocs_after = pending_;
    p_.result = ref(result);
    return std::move(p_);
  }

 private:
  void record(const circuit::Lc<Field>& lc) {
    for (const auto& t : lc.terms()) p_.terms.push_back({ref(t.var), t.coeff});
    p_.ends.push_back(uint32_t(p_.terms.size()));
  }
  uint32_t arity_;
  uint32_t pending_ = 0;
  PoseidonProgram p_;
};

// The gadget itself (every system; what the program is recorded from).
template <class CS>
circuit::Num<PoseidonFr> poseidon_hash_gadget(CS& cs, std::span<const circuit::Num<PoseidonFr>> preimage,
                                              const PoseidonConstants& c) {
  std::vector<PoseidonElt> elements;
  elements.reserve(c.width);
  elements.push_back(poseidon_constant_elt<CS>(c.domain_tag));
  for (const auto& x : preimage) {
    PoseidonElt e;
    e.allocated = true;
    e.num = x;
    elements.push_back(e);
  }
  return PoseidonCircuit<CS>(cs, c, std::move(elements)).hash();
}

inline PoseidonProgram poseidon_record_program(const PoseidonConstants& c) {
  PoseidonRecorder rec(c.arity);
  std::vector<circuit::Num<PoseidonFr>> preimage(c.arity);
  for (size_t i = 0; i < c.arity; ++i) preimage[i].var = circuit::Var::input(uint32_t(1 + i));
  const circuit::Num<PoseidonFr> out =
      poseidon_hash_gadget(rec, std::span<const circuit::Num<PoseidonFr>>(preimage), c);
  return rec.finish(out.var);
}

// The program of c, made on first use; null unless c is one of poseidon_constants()'s own (whose
// addresses stay for the process: a program is never matched to other constants at an address
// reused).
inline const PoseidonProgram* poseidon_program(const PoseidonConstants& c) {
  static std::mutex mu;
  static std::map<const PoseidonConstants*, std::unique_ptr<const PoseidonProgram>> programs;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = programs.find(&c); it != programs.end()) return it->second.get();
  }
  // Hand-made constants may hold an arity or hash type poseidon_constants() refuses: not its own.
  try {
    if (&poseidon_constants(c.arity, c.hash_type) != &c) return nullptr;
  } catch (const InvalidArgument&) {
    return nullptr;
  }
  auto made = std::make_unique<const PoseidonProgram>(poseidon_record_program(c));
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = programs[&c];
  if (!slot) slot = std::move(made);  // another thread's, made meanwhile, is the same
  return slot.get();
}

// The program's rows on cs with the preimage's variables (a variable twice in the preimage has
// its coefficients summed, as the gadget's own merges would); no values.
template <class CS>
circuit::Num<PoseidonFr> poseidon_replay(CS& cs, std::span<const circuit::Num<PoseidonFr>> preimage,
                                         const PoseidonProgram& p) {
  static_assert(CS::kRows && !CS::kValues, "a replay makes rows, not values");
  using F = PoseidonFr;
  std::vector<circuit::Var> vars;
  vars.reserve(1 + preimage.size() + p.vars);
  vars.push_back(circuit::kOne);
  for (const auto& x : preimage) vars.push_back(x.var);
  auto lc = [&](uint32_t from, uint32_t to) {
    circuit::Lc<F> l;
    for (uint32_t k = from; k < to; ++k) l.add(vars[p.terms[k].ref], p.terms[k].coeff);
    return l;
  };
  uint32_t at = 0;
  for (size_t r = 0; r < p.allocs.size(); ++r) {
    for (uint32_t k = 0; k < p.allocs[r]; ++k) vars.push_back(cs.alloc([] { return F::zero(); }));
    const uint32_t a = p.ends[3 * r], b = p.ends[3 * r + 1], c = p.ends[3 * r + 2];
    cs.enforce([&] { return lc(at, a); }, [&] { return lc(a, b); }, [&] { return lc(b, c); });
    at = c;
  }
  for (uint32_t k = 0; k < p.allocs_after; ++k) vars.push_back(cs.alloc([] { return F::zero(); }));
  circuit::Num<F> out;
  out.var = vars[p.result];
  return out;
}

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
  if constexpr (CS::kRows && !CS::kValues) {
    if (const detail::PoseidonProgram* p = detail::poseidon_program(c))
      return detail::poseidon_replay(cs, preimage, *p);
  }
  return detail::poseidon_hash_gadget(cs, preimage, c);
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
