// SPDX-License-Identifier: MIT OR Apache-2.0
// Constraint systems: one synthesis code path (gadgets are templates over a constraint system
// type), several back ends.
//
// A constraint system CS provides
//   using Field;                       the scalar field
//   static constexpr bool kValues;     whether alloc's value functions are called (witness)
//   static constexpr bool kRows;       whether enforce's linear combinations are built
//   Var alloc(fn), alloc_input(fn)     fn() -> Field, called only when kValues (lazily)
//   void enforce(a, b, c)              each an Lc<Field> or a function returning one; a
//                                      function is called only when kRows
// and counts inputs (ONE included, as bellperson's num_inputs()), aux variables and constraints.
// Namespaces carry no meaning for the constraints and are not modelled.
//
// Back ends: ShapeCs (counts, non-zeros, densities; no values, no rows kept), WitnessCs (values
// only; no linear combination is built), RecordCs (rows as CSR, optionally with the values: the
// test mode checks every row against them), CheckCs (values, each row checked as it comes, none
// kept) and FingerprintCs (fingerprint.hpp).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "circuit/lc.hpp"
#include "ff/field.hpp"
#include "r1cs/rows.hpp"
#include "util/error.hpp"
#include "util/fill_vector.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::circuit {

// Bits of the field's modulus (bellperson's NUM_BITS) and CAPACITY = NUM_BITS - 1.
template <class F>
constexpr int field_num_bits() {
  int n = 64 * F::N;
  while (n > 0 && !((F::K.p.v[(n - 1) / 64] >> ((n - 1) % 64)) & 1)) --n;
  return n;
}
template <class F>
constexpr int field_capacity() {
  return field_num_bits<F>() - 1;
}

// An argument of enforce: a linear combination, or a function that makes one (called only by a
// back end that keeps rows).
template <class F, class X>
Lc<F> make_lc(X&& x) {
  if constexpr (std::is_invocable_v<X&>)
    return x();
  else
    return Lc<F>(std::forward<X>(x));
}

// What a circuit is, without its rows: bellperson's counts, the non-zeros of A, B and C (terms
// whose merged coefficient is not zero) and the density popcounts bellperson's prover computes
// (a variable is dense in a matrix when it has a non-zero coefficient in some row of it).
struct Shape {
  uint64_t inputs = 0, aux = 0, constraints = 0;
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  uint64_t a_aux_density = 0, b_input_density = 0, b_aux_density = 0;
  uint64_t zero_terms = 0;  // terms whose coefficients summed to zero (kept, as bellpepper keeps them)
  friend bool operator==(const Shape&, const Shape&) = default;
};

// A growable bitmap of dense variables. A block's bitmap (ShapeCs::at) starts at its base and keeps
// the variables below it, those the block shares with what came before, in a second bitmap (small:
// shared variables come first); merge() adds a block's bits to the system's.
class Density {
 public:
  Density() = default;
  explicit Density(uint64_t base) : base_(base) {}
  void grow(uint64_t n) {
    if (n > base_ && n - base_ > words_.size() * 64) words_.resize((n - base_ + 63) / 64 + words_.size(), 0);
  }
  void set(uint64_t i) {
    if (i >= base_) {
      words_[(i - base_) / 64] |= 1ull << ((i - base_) % 64);
      return;
    }
    if (i / 64 >= below_.size()) below_.resize(i / 64 + 1, 0);
    below_[i / 64] |= 1ull << (i % 64);
  }
  uint64_t count() const {
    uint64_t s = 0;
    for (uint64_t w : below_) s += uint64_t(__builtin_popcountll(w));
    for (uint64_t w : words_) s += uint64_t(__builtin_popcountll(w));
    return s;
  }
  void merge(const Density& o) {
    auto each = [&](const std::vector<uint64_t>& words, uint64_t base) {
      for (size_t k = 0; k < words.size(); ++k)
        for (uint64_t w = words[k]; w; w &= w - 1) {
          const uint64_t i = base + k * 64 + uint64_t(__builtin_ctzll(w));
          grow(i + 1);
          set(i);
        }
    };
    each(o.below_, 0);
    each(o.words_, o.base_);
  }

 private:
  uint64_t base_ = 0;
  std::vector<uint64_t> words_, below_;
};

// Counts only: O(variables / 8) bytes of density bitmaps, nothing per row.
template <class F>
class ShapeCs {
 public:
  using Field = F;
  static constexpr bool kValues = false;
  static constexpr bool kRows = true;

  ShapeCs() { b_input_.grow(1); }
  // A block placed after given counts of inputs and aux (for_each_block): its variables carry their
  // global indices, and append() adds its counts and densities to the system's.
  static ShapeCs at(uint64_t input_base, uint64_t aux_base) {
    ShapeCs b;
    b.s_ = Shape{input_base, aux_base, 0, 0, 0, 0, 0, 0, 0, 0};
    b.a_aux_ = Density(aux_base), b.b_aux_ = Density(aux_base), b.b_input_ = Density(input_base);
    b.base_inputs_ = input_base, b.base_aux_ = aux_base;
    return b;
  }
  void append(const ShapeCs& b) {
    s_.inputs += b.s_.inputs - b.base_inputs_, s_.aux += b.s_.aux - b.base_aux_;
    s_.constraints += b.s_.constraints, s_.zero_terms += b.s_.zero_terms;
    s_.nnz_a += b.s_.nnz_a, s_.nnz_b += b.s_.nnz_b, s_.nnz_c += b.s_.nnz_c;
    a_aux_.grow(s_.aux), b_aux_.grow(s_.aux), b_input_.grow(s_.inputs);
    a_aux_.merge(b.a_aux_), b_aux_.merge(b.b_aux_), b_input_.merge(b.b_input_);
  }
  template <class Fn>
  Var alloc(Fn&&) {
    a_aux_.grow(s_.aux + 1), b_aux_.grow(s_.aux + 1);
    return Var::aux(uint32_t(s_.aux++));
  }
  template <class Fn>
  Var alloc_input(Fn&&) {
    b_input_.grow(s_.inputs + 1);
    return Var::input(uint32_t(s_.inputs++));
  }
  template <class A, class B, class C>
  void enforce(A&& a, B&& b, C&& c) {
    const Lc<F> la = make_lc<F>(std::forward<A>(a)), lb = make_lc<F>(std::forward<B>(b)),
                lc = make_lc<F>(std::forward<C>(c));
    for (const auto& t : la.terms()) {
      if (t.coeff.is_zero()) {
        ++s_.zero_terms;
        continue;
      }
      ++s_.nnz_a;
      if (!t.var.is_input()) a_aux_.set(t.var.index());
    }
    for (const auto& t : lb.terms()) {
      if (t.coeff.is_zero()) {
        ++s_.zero_terms;
        continue;
      }
      ++s_.nnz_b;
      (t.var.is_input() ? b_input_ : b_aux_).set(t.var.index());
    }
    for (const auto& t : lc.terms()) t.coeff.is_zero() ? ++s_.zero_terms : ++s_.nnz_c;
    ++s_.constraints;
  }
  uint64_t num_inputs() const { return s_.inputs; }
  uint64_t num_aux() const { return s_.aux; }
  uint64_t num_constraints() const { return s_.constraints; }
  Shape shape() const {
    Shape s = s_;
    s.a_aux_density = a_aux_.count();
    s.b_input_density = b_input_.count();
    s.b_aux_density = b_aux_.count();
    return s;
  }

 private:
  Shape s_{1, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // ONE is input 0
  Density a_aux_, b_input_, b_aux_;
  uint64_t base_inputs_ = 0, base_aux_ = 0;  // a block's (at)
};

template <class CS>
struct IsShapeCs : std::false_type {};
template <class F>
struct IsShapeCs<ShapeCs<F>> : std::true_type {};

// Values only: the witness a prover needs, with no linear combination built. A system made by
// `at` holds the values of a block placed after given counts of inputs and aux (its variables
// carry their global indices; the gadgets carry the values they read), so that blocks of the
// same shape can be filled in parallel and appended in order; one made by `into` writes its aux
// values straight into a caller's array of a known size (for_each_block: no copy, no growth).
// A block made by WitnessCs::into allocated more aux variables than its array holds.
struct BlockOverflow : Error {
  using Error::Error;
};

template <class F>
class WitnessCs {
 public:
  using Field = F;
  static constexpr bool kValues = true;
  static constexpr bool kRows = false;

  WitnessCs() { inputs.push_back(F::one()); }
  static WitnessCs at(uint64_t input_base, uint64_t aux_base) {
    WitnessCs w;
    w.inputs.clear();
    w.input_base_ = input_base, w.aux_base_ = aux_base;
    return w;
  }
  // A block whose aux values go to out[0 .. cap); more than cap of them is an error.
  static WitnessCs into(F* out, uint64_t cap, uint64_t input_base, uint64_t aux_base) {
    WitnessCs w = at(input_base, aux_base);
    w.out_ = out, w.out_cap_ = cap;
    return w;
  }
  template <class Fn>
  Var alloc(Fn&& f) {
    if (out_) {
      if (out_n_ == out_cap_)
        throw BlockOverflow("witness block at aux " + std::to_string(aux_base_) + " allocates more than its " +
                            std::to_string(out_cap_) + " aux variables");
      out_[out_n_++] = f();
      return Var::aux(uint32_t(aux_base_ + out_n_ - 1));
    }
    aux.push_back(f());
    return Var::aux(uint32_t(aux_base_ + aux.size() - 1));
  }
  template <class Fn>
  Var alloc_input(Fn&& f) {
    inputs.push_back(f());
    return Var::input(uint32_t(input_base_ + inputs.size() - 1));
  }
  template <class A, class B, class C>
  void enforce(A&&, B&&, C&&) {
    ++constraints;
  }
  uint64_t num_inputs() const { return input_base_ + inputs.size(); }
  uint64_t num_aux() const { return aux_base_ + own_aux(); }
  uint64_t num_constraints() const { return constraints; }
  const F& value(Var v) const {
    if (v.is_input()) return inputs[v.index() - input_base_];
    return out_ ? out_[v.index() - aux_base_] : aux[v.index() - aux_base_];
  }
  // This system's own aux values (from its base): in `aux`, or written to the array of `into`.
  uint64_t own_aux() const { return out_ ? out_n_ : aux.size(); }
  bool writes_into() const { return out_ != nullptr; }
  // The values of a block made by at(num_inputs(), num_aux()), appended.
  void append(const WitnessCs& block) {
    if (out_ || block.out_) throw Error("WitnessCs::append: a block made by into() is already in place");
    inputs.insert(inputs.end(), block.inputs.begin(), block.inputs.end());
    aux.insert(aux.end(), block.aux.begin(), block.aux.end());
    constraints += block.constraints;
  }

  std::vector<F> inputs;  // this system's own (from its base)
  FillVector<F> aux;      // likewise, unless made by into(); grown uninitialised (for_each_block)
  uint64_t constraints = 0;

 private:
  uint64_t input_base_ = 0, aux_base_ = 0;
  F* out_ = nullptr;
  uint64_t out_n_ = 0, out_cap_ = 0;
};

template <class F, bool Values>
class RecordCs;
template <class CS>
struct IsRowsRecordCs : std::false_type {};
template <class F>
struct IsRowsRecordCs<RecordCs<F, false>> : std::true_type {};

template <class CS>
struct IsWitnessCs : std::false_type {};
template <class F>
struct IsWitnessCs<WitnessCs<F>> : std::true_type {};

// fn(cs, k) for k < n: blocks that allocate the same numbers of inputs and aux variables and
// enforce as many constraints (a circuit's challenges), in order. With the values back end and a
// pool, block 0 runs first and gives the shape; the aux values of blocks 1 .. n - 1 are then
// written in parallel straight into cs's array, grown once to hold them all (their inputs, few,
// are appended in order): the values are the sequential ones. The counting back end (ShapeCs)
// runs its blocks in parallel too, their counts and densities added as they finish (a sum: the
// order does not matter). A block of another shape is an error (a circuit whose blocks differ
// must not use this). A values system that itself writes into a caller's array (a block of an
// enclosing for_each_block) runs its blocks in order. The rows-only recorder (RecordCs<F, false>,
// the prover's rows) records blocks 1 .. n - 1 in parallel too, in waves appended in order (the
// rows are the sequential ones): a wave holds at most a quarter of the blocks (and one a
// thread), so the blocks waiting to be appended add at most a quarter to the rows' memory; with
// fewer than 8 blocks (a wave of one) it records in order.
template <class CS, class Fn>
void for_each_block(CS& cs, size_t n, ThreadPool* pool, Fn&& fn) {
  if constexpr (IsRowsRecordCs<CS>::value) {
    if (pool && pool->size() > 1 && n >= 8) {  // waves of two or more blocks
      const uint64_t i0 = cs.num_inputs(), a0 = cs.num_aux(), c0 = cs.num_constraints();
      const auto t0 = cs.term_counts();
      fn(cs, size_t(0));
      const uint64_t di = cs.num_inputs() - i0, da = cs.num_aux() - a0, dc = cs.num_constraints() - c0;
      auto dt = cs.term_counts();
      for (size_t m = 0; m < 3; ++m) dt[m] -= t0[m];
      cs.reserve_blocks(n - 1, dc, dt);
      const size_t wave = std::min<size_t>(n / 4, pool->size());
      // One recorder a wave's block, sized once from block 0 and reused by every wave: the
      // memory is allocated (and its pages touched) once, not per block.
      std::vector<CS> blocks(std::min(wave, n - 1));
      for (CS& b : blocks) b.reserve_blocks(1, dc, dt);
      for (size_t k0 = 1; k0 < n; k0 += wave) {
        const size_t k1 = std::min(n, k0 + wave);
        pool->parallel_for(k1 - k0, [&](size_t b, size_t e) {
          for (size_t j = b; j < e; ++j) {
            const size_t k = k0 + j;
            blocks[j].restart_at(i0 + k * di, a0 + k * da);
            fn(blocks[j], k);
            if (blocks[j].num_inputs() != i0 + (k + 1) * di || blocks[j].num_aux() != a0 + (k + 1) * da ||
                blocks[j].num_constraints() != dc)
              throw Error("for_each_block: block " + std::to_string(k) + " differs in shape from block 0");
          }
        });
        for (size_t j = 0; j < k1 - k0; ++j) cs.append(blocks[j]);
      }
      return;
    }
  }
  if constexpr (IsShapeCs<CS>::value) {
    if (pool && n > 1) {
      const uint64_t i0 = cs.num_inputs(), a0 = cs.num_aux(), c0 = cs.num_constraints();
      fn(cs, size_t(0));
      const uint64_t di = cs.num_inputs() - i0, da = cs.num_aux() - a0, dc = cs.num_constraints() - c0;
      CS sum = CS::at(cs.num_inputs(), cs.num_aux());
      std::mutex m;
      pool->parallel_for(n - 1, [&](size_t b, size_t e) {
        for (size_t k = b; k < e; ++k) {
          CS block = CS::at(i0 + (k + 1) * di, a0 + (k + 1) * da);
          fn(block, k + 1);
          if (block.num_inputs() != i0 + (k + 2) * di || block.num_aux() != a0 + (k + 2) * da ||
              block.num_constraints() != dc)
            throw Error("for_each_block: block " + std::to_string(k + 1) + " differs in shape from block 0");
          std::lock_guard<std::mutex> lock(m);
          sum.append(block);
        }
      });
      cs.append(sum);
      return;
    }
  }
  if constexpr (IsWitnessCs<CS>::value) {
    if (pool && n > 1 && !cs.writes_into()) {
      const uint64_t i0 = cs.num_inputs(), a0 = cs.num_aux(), c0 = cs.num_constraints();
      fn(cs, size_t(0));
      const uint64_t di = cs.num_inputs() - i0, da = cs.num_aux() - a0, dc = cs.num_constraints() - c0;
      const size_t off = cs.aux.size();
      cs.aux.resize(off + (n - 1) * da);
      std::vector<CS> blocks(n - 1);
      pool->parallel_for(n - 1, [&](size_t b, size_t e) {
        for (size_t k = b; k < e; ++k) {
          const auto differs = [&] {
            return Error("for_each_block: block " + std::to_string(k + 1) + " differs in shape from block 0");
          };
          blocks[k] = CS::into(cs.aux.data() + off + k * da, da, i0 + (k + 1) * di, a0 + (k + 1) * da);
          try {
            fn(blocks[k], k + 1);
          } catch (const BlockOverflow&) {
            throw differs();
          }
          if (blocks[k].inputs.size() != di || blocks[k].own_aux() != da || blocks[k].constraints != dc)
            throw differs();
        }
      });
      for (const CS& b : blocks) {
        cs.inputs.insert(cs.inputs.end(), b.inputs.begin(), b.inputs.end());
        cs.constraints += b.constraints;
      }
      return;
    }
  }
  (void)pool;
  for (size_t k = 0; k < n; ++k) fn(cs, k);
}

// Values and rows, each row checked as it comes and none kept: the test mode for circuits too big
// to record (one PoRep label is half a million rows, a 32GiB partition 130 million).
template <class F>
class CheckCs {
 public:
  using Field = F;
  static constexpr bool kValues = true;
  static constexpr bool kRows = true;

  CheckCs() { inputs.push_back(F::one()); }
  template <class Fn>
  Var alloc(Fn&& f) {
    aux.push_back(f());
    return Var::aux(uint32_t(aux.size() - 1));
  }
  template <class Fn>
  Var alloc_input(Fn&& f) {
    inputs.push_back(f());
    return Var::input(uint32_t(inputs.size() - 1));
  }
  template <class A, class B, class C>
  void enforce(A&& a, B&& b, C&& c) {
    auto value = [&](Var v) { return v.is_input() ? inputs[v.index()] : aux[v.index()]; };
    const F va = make_lc<F>(std::forward<A>(a)).eval(value);
    const F vb = make_lc<F>(std::forward<B>(b)).eval(value);
    const F vc = make_lc<F>(std::forward<C>(c)).eval(value);
    if (va * vb != vc && first_unsatisfied == std::numeric_limits<uint64_t>::max()) first_unsatisfied = constraints;
    ++constraints;
  }
  uint64_t num_inputs() const { return inputs.size(); }
  uint64_t num_aux() const { return aux.size(); }
  uint64_t num_constraints() const { return constraints; }
  bool is_satisfied() const { return first_unsatisfied == std::numeric_limits<uint64_t>::max(); }

  std::vector<F> inputs, aux;
  uint64_t constraints = 0, first_unsatisfied = std::numeric_limits<uint64_t>::max();
};

// One matrix of recorded rows, compressed by row; terms in bellpepper's order, zeros kept.
template <class F>
struct CsrRows {
  std::vector<uint64_t> ptr{0};
  std::vector<Term<F>> terms;
  void push(const Lc<F>& lc) {
    terms.insert(terms.end(), lc.terms().begin(), lc.terms().end());
    ptr.push_back(terms.size());
  }
  const Term<F>* begin(size_t row) const { return terms.data() + ptr[row]; }
  const Term<F>* end(size_t row) const { return terms.data() + ptr[row + 1]; }
  // o's rows after ours.
  void append(const CsrRows& o) {
    const uint64_t off = terms.size();
    terms.insert(terms.end(), o.terms.begin(), o.terms.end());
    for (size_t r = 1; r < o.ptr.size(); ++r) ptr.push_back(off + o.ptr[r]);
  }
};

// Every row (and, with Values, every value): what the prover's rows are made from, and the test
// mode (first_unsatisfied / is_satisfied, like bellpepper's TestConstraintSystem).
template <class F, bool Values = true>
class RecordCs {
 public:
  using Field = F;
  static constexpr bool kValues = Values;
  static constexpr bool kRows = true;

  RecordCs() {
    if constexpr (Values) inputs.push_back(F::one());
  }
  // Made again as a block placed after given counts of inputs and aux (for_each_block): no rows
  // (the memory kept), its variables carrying their global indices, its rows its own until
  // append() adds them to the system's.
  void restart_at(uint64_t input_base, uint64_t aux_base) {
    static_assert(!Values, "blocks record rows only");
    for (CsrRows<F>* m : {&A_, &B_, &C_}) m->ptr.assign(1, 0), m->terms.clear();
    n_inputs = input_base, n_aux = aux_base;
  }
  // b's rows after ours; its counts (global, as restart_at placed it) become ours.
  void append(const RecordCs& b) {
    static_assert(!Values, "blocks record rows only");
    A_.append(b.A_), B_.append(b.B_), C_.append(b.C_);
    n_inputs = b.n_inputs, n_aux = b.n_aux;
  }
  // Terms recorded so far in A, B and C.
  std::array<size_t, 3> term_counts() const { return {A_.terms.size(), B_.terms.size(), C_.terms.size()}; }
  // Room for `blocks` more blocks of `rows` rows and `terms` terms each (a block's terms may
  // differ a little: 1/16 more; room never written is never touched).
  void reserve_blocks(size_t blocks, size_t rows, const std::array<size_t, 3>& terms) {
    CsrRows<F>* m[3] = {&A_, &B_, &C_};
    for (size_t i = 0; i < 3; ++i) {
      m[i]->ptr.reserve(m[i]->ptr.size() + blocks * rows);
      const size_t more = blocks * terms[i];
      m[i]->terms.reserve(m[i]->terms.size() + more + more / 16);
    }
  }
  template <class Fn>
  Var alloc(Fn&& f) {
    if constexpr (Values) aux.push_back(f());
    return Var::aux(uint32_t(n_aux++));
  }
  template <class Fn>
  Var alloc_input(Fn&& f) {
    if constexpr (Values) inputs.push_back(f());
    return Var::input(uint32_t(n_inputs++));
  }
  template <class A, class B, class C>
  void enforce(A&& a, B&& b, C&& c) {
    A_.push(make_lc<F>(std::forward<A>(a)));
    B_.push(make_lc<F>(std::forward<B>(b)));
    C_.push(make_lc<F>(std::forward<C>(c)));
  }
  uint64_t num_inputs() const { return n_inputs; }
  uint64_t num_aux() const { return n_aux; }
  uint64_t num_constraints() const { return A_.ptr.size() - 1; }
  const CsrRows<F>& a() const { return A_; }
  const CsrRows<F>& b() const { return B_; }
  const CsrRows<F>& c() const { return C_; }
  // The three matrices moved out (A, B, C), so that a caller converting them can free each as it
  // goes; the system has no rows after it.
  std::array<CsrRows<F>, 3> take_rows() {
    std::array<CsrRows<F>, 3> out{std::move(A_), std::move(B_), std::move(C_)};
    A_ = B_ = C_ = CsrRows<F>{};
    return out;
  }

  const F& value(Var v) const { return v.is_input() ? inputs[v.index()] : aux[v.index()]; }
  F eval(const CsrRows<F>& m, size_t row) const {
    F s = F::zero();
    for (const Term<F>* t = m.begin(row); t != m.end(row); ++t) s += t->coeff * value(t->var);
    return s;
  }
  // The first row whose A·B differs from C under the values, or SIZE_MAX.
  size_t first_unsatisfied() const {
    static_assert(Values, "the test mode needs the values");
    for (size_t i = 0; i < num_constraints(); ++i)
      if (eval(A_, i) * eval(B_, i) != eval(C_, i)) return i;
    return std::numeric_limits<size_t>::max();
  }
  bool is_satisfied() const { return first_unsatisfied() == std::numeric_limits<size_t>::max(); }

  // The counts as ShapeCs computes them, from the recorded rows (a cross-check of the two).
  Shape shape() const {
    Shape s;
    s.inputs = n_inputs, s.aux = n_aux, s.constraints = num_constraints();
    std::vector<char> a_aux(n_aux), b_in(n_inputs), b_aux(n_aux);
    for (const auto& t : A_.terms)
      if (t.coeff.is_zero())
        ++s.zero_terms;
      else if (++s.nnz_a; !t.var.is_input())
        a_aux[t.var.index()] = 1;
    for (const auto& t : B_.terms)
      if (t.coeff.is_zero())
        ++s.zero_terms;
      else
        ++s.nnz_b, (t.var.is_input() ? b_in : b_aux)[t.var.index()] = 1;
    for (const auto& t : C_.terms) t.coeff.is_zero() ? ++s.zero_terms : ++s.nnz_c;
    for (char x : a_aux) s.a_aux_density += uint64_t(x);
    for (char x : b_in) s.b_input_density += uint64_t(x);
    for (char x : b_aux) s.b_aux_density += uint64_t(x);
    return s;
  }

  // Wire w of the prover's rows: input i is wire i (ONE is wire 0), aux j is wire inputs + j.
  uint32_t wire(Var v) const { return v.is_input() ? v.index() : uint32_t(n_inputs) + v.index(); }

  // The circuit's rows for the r1cs / setup code (bellperson's convention: the prover appends the
  // input rows A = input_i, B = 0, C = 0 itself). Terms with a zero coefficient are left out, as
  // bellperson's prover skips them. The source refers to this object, which must outlive it.
  r1cs::RowSource<F> row_source() const {
    r1cs::RowSource<F> s;
    s.n_wires = uint32_t(n_inputs + n_aux);
    s.n_pub_in = uint32_t(n_inputs - 1);
    s.n_rows = num_constraints();
    s.row = [this](size_t i, r1cs::Row<F>& out) {
      auto fill = [&](const CsrRows<F>& m, r1cs::LinComb<F>& lc) {
        lc.clear();
        for (const Term<F>* t = m.begin(i); t != m.end(i); ++t)
          if (!t->coeff.is_zero()) lc.add(wire(t->var), t->coeff);
      };
      fill(A_, out.a), fill(B_, out.b), fill(C_, out.c);
    };
    return s;
  }
  // The values in wire order, standard form (what .wtns holds).
  std::vector<typename F::Limbs> witness_std() const {
    static_assert(Values, "no values recorded");
    std::vector<typename F::Limbs> w;
    w.reserve(inputs.size() + aux.size());
    for (const F& x : inputs) w.push_back(x.to_std());
    for (const F& x : aux) w.push_back(x.to_std());
    return w;
  }

  std::vector<F> inputs, aux;  // with Values
  uint64_t n_inputs = 1, n_aux = 0;

 private:
  CsrRows<F> A_, B_, C_;
};

}  // namespace cuzk::circuit
