// SPDX-License-Identifier: MIT OR Apache-2.0
// Variables and linear combinations of a bellperson-style rank-1 constraint system.
//
// Inputs and auxiliary (private) variables have separate index spaces; Input(0) is the constant
// ONE. A linear combination keeps bellpepper's semantics exactly, since Filecoin's verifying keys
// fix every column of the QAP:
//  - its terms are a map from variable to coefficient: adding a variable already present adds to
//    its coefficient (no second term), and a coefficient that sums to zero stays as a term;
//  - the terms are kept sorted: every input (by index) before every auxiliary variable (by index),
//    whatever order they were added in.
// A Var's key sorts in that order (the aux flag is the top bit), so one sorted vector holds both.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "util/small_vector.hpp"

namespace cuzk::circuit {

struct Var {
  static constexpr uint32_t kAuxBit = 0x80000000u;
  uint32_t key = 0;
  static constexpr Var input(uint32_t i) { return Var{i}; }
  static constexpr Var aux(uint32_t i) { return Var{i | kAuxBit}; }
  constexpr bool is_input() const { return !(key & kAuxBit); }
  constexpr uint32_t index() const { return key & ~kAuxBit; }
  friend constexpr bool operator==(Var a, Var b) { return a.key == b.key; }
};

// The constant ONE: bellperson allocates it as the first input.
inline constexpr Var kOne = Var::input(0);

template <class F>
struct Term {
  Var var;
  F coeff;
};

template <class F>
class Lc {
 public:
  Lc() = default;
  explicit Lc(Var v) { terms_.push_back({v, F::one()}); }
  Lc(Var v, const F& c) { terms_.push_back({v, c}); }

  // lc + (c, v): merged into v's term if present, else inserted in order.
  Lc& add(Var v, const F& c) {
    if (terms_.empty() || terms_.back().var.key < v.key) {
      terms_.push_back({v, c});
      return *this;
    }
    auto it = std::lower_bound(terms_.begin(), terms_.end(), v.key,
                               [](const Term<F>& t, uint32_t k) { return t.var.key < k; });
    if (it != terms_.end() && it->var.key == v.key)
      it->coeff += c;
    else
      terms_.insert(it, {v, c});
    return *this;
  }
  Lc& add(Var v) { return add(v, F::one()); }
  // lc - (c, v) is lc + (-c, v).
  Lc& sub(Var v, const F& c) { return add(v, -c); }
  Lc& sub(Var v) { return add(v, -F::one()); }
  // lc + (c, &other): every term of other scaled by c, as add(var, coeff · c) term by term in
  // other's order would (one merge of the two sorted lists).
  Lc& add(const Lc& o, const F& c) {
    return merge(o.terms(), [&](const F& x) { return x * c; });
  }
  Lc& add(const Lc& o) {
    return merge(o.terms(), [](const F& x) { return x; });
  }
  Lc& sub(const Lc& o, const F& c) {
    return merge(o.terms(), [&](const F& x) { return -(x * c); });
  }
  Lc& sub(const Lc& o) {
    return merge(o.terms(), [](const F& x) { return -x; });
  }
  // lc + each of `terms` in any order (a variable twice gets the sum of its coefficients): what
  // add(var, coeff) term by term gives, the field's sums not depending on their order. One sort
  // and one merge, where adding term by term would insert each into the middle; `terms` is
  // consumed.
  Lc& add_terms(std::vector<Term<F>>&& terms) {
    std::sort(terms.begin(), terms.end(), [](const Term<F>& x, const Term<F>& y) { return x.var.key < y.var.key; });
    size_t out = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (out > 0 && terms[out - 1].var.key == terms[i].var.key)
        terms[out - 1].coeff += terms[i].coeff;
      else
        terms[out++] = terms[i];
    }
    terms.resize(out);
    return merge(std::span<const Term<F>>(terms), [](const F& x) { return x; });
  }
  // Every coefficient times c (bellpepper's Num::scale).
  Lc& scale(const F& c) {
    for (auto& t : terms_) t.coeff *= c;
    return *this;
  }

  std::span<const Term<F>> terms() const { return {terms_.data(), terms_.size()}; }
  size_t size() const { return terms_.size(); }
  bool empty() const { return terms_.empty(); }
  void clear() { terms_.clear(); }

  // The value under an assignment: value(Var) -> F.
  template <class Value>
  F eval(Value&& value) const {
    F s = F::zero();
    for (const auto& t : terms_) s += t.coeff * value(t.var);
    return s;
  }

 private:
  // terms_ + {(t.var, coeff(t.coeff)) : t in o}, o sorted with distinct variables: a variable
  // present in both gets the sum of its coefficients, the others are inserted in order. o may be
  // our own terms (every coefficient then gains coeff of itself). In place, from the back: no
  // allocation where the capacity suffices.
  template <class Coeff>
  Lc& merge(std::span<const Term<F>> o, Coeff&& coeff) {
    const size_t n = terms_.size(), m = o.size();
    if (m == 0) return *this;
    if (n == 0 || terms_.back().var.key < o.front().var.key) {  // all after ours (o is not ours)
      terms_.reserve(n + m);
      for (const auto& t : o) terms_.push_back({t.var, coeff(t.coeff)});
      return *this;
    }
    size_t fresh = 0;  // o's variables that are not ours
    for (size_t i = 0, j = 0; j < m; ++j) {
      const uint32_t k = o[j].var.key;
      while (i < n && terms_[i].var.key < k) ++i;
      if (i < n && terms_[i].var.key == k)
        ++i;
      else
        ++fresh;
    }
    // o is ours only with fresh = 0 (every variable already ours): the size stays, no reallocation,
    // and each step reads its own term before writing it back in place.
    terms_.resize(n + fresh);
    size_t i = n, j = m, out = n + fresh;
    while (j > 0) {
      const Term<F>& t = o[j - 1];
      if (i > 0 && terms_[i - 1].var.key > t.var.key) {
        terms_[--out] = terms_[--i];
      } else if (i > 0 && terms_[i - 1].var.key == t.var.key) {
        Term<F> s = terms_[--i];
        s.coeff += coeff(t.coeff);
        terms_[--out] = s;
        --j;
      } else {
        terms_[--out] = Term<F>{t.var, coeff(t.coeff)};
        --j;
      }
    }
    return *this;  // terms_[0 .. i) are in place already (out == i)
  }

  // Most combinations are one to three terms: those never allocate.
  SmallVector<Term<F>, 3> terms_;
};

}  // namespace cuzk::circuit
