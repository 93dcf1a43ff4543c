// SPDX-License-Identifier: MIT OR Apache-2.0
// Booleans: AllocatedBit (a variable constrained to 0 or 1) and Boolean (a constant, a bit, or a
// bit's negation), with bellpepper's constraints, allocation order and special cases exactly.
// A bit's value is a plain bool carried along; it is meaningful only in a back end with values
// (in the shape mode no field value is ever computed).
#pragma once
#include <cstdint>
#include <vector>

#include "circuit/cs.hpp"

namespace cuzk::circuit {

struct Bit {
  Var var;
  bool value = false;
};

template <class CS>
Var alloc_bool_var(CS& cs, bool v) {
  using F = typename CS::Field;
  return cs.alloc([v] { return v ? F::one() : F::zero(); });
}

// (1 - x) · x = 0.
template <class CS>
Bit alloc_bit(CS& cs, bool value) {
  using F = typename CS::Field;
  const Var x = alloc_bool_var(cs, value);
  cs.enforce([&] { return Lc<F>(kOne).sub(x); }, [&] { return Lc<F>(x); }, [] { return Lc<F>(); });
  return {x, value};
}

// (1 - must_be_false - x) · x = 0.
template <class CS>
Bit alloc_bit_conditionally(CS& cs, bool value, const Bit& must_be_false) {
  using F = typename CS::Field;
  const Var x = alloc_bool_var(cs, value);
  cs.enforce([&] { return Lc<F>(kOne).sub(must_be_false.var).sub(x); }, [&] { return Lc<F>(x); },
             [] { return Lc<F>(); });
  return {x, value};
}

// 2a · b = a + b - r.
template <class CS>
Bit bit_xor(CS& cs, const Bit& a, const Bit& b) {
  using F = typename CS::Field;
  const bool v = a.value ^ b.value;
  const Var r = alloc_bool_var(cs, v);
  cs.enforce([&] { return Lc<F>(a.var).add(a.var); }, [&] { return Lc<F>(b.var); },
             [&] { return Lc<F>(a.var).add(b.var).sub(r); });
  return {r, v};
}

// a · b = r.
template <class CS>
Bit bit_and(CS& cs, const Bit& a, const Bit& b) {
  using F = typename CS::Field;
  const bool v = a.value && b.value;
  const Var r = alloc_bool_var(cs, v);
  cs.enforce([&] { return Lc<F>(a.var); }, [&] { return Lc<F>(b.var); }, [&] { return Lc<F>(r); });
  return {r, v};
}

// a · (1 - b) = r.
template <class CS>
Bit bit_and_not(CS& cs, const Bit& a, const Bit& b) {
  using F = typename CS::Field;
  const bool v = a.value && !b.value;
  const Var r = alloc_bool_var(cs, v);
  cs.enforce([&] { return Lc<F>(a.var); }, [&] { return Lc<F>(kOne).sub(b.var); }, [&] { return Lc<F>(r); });
  return {r, v};
}

// (1 - a) · (1 - b) = r.
template <class CS>
Bit bit_nor(CS& cs, const Bit& a, const Bit& b) {
  using F = typename CS::Field;
  const bool v = !a.value && !b.value;
  const Var r = alloc_bool_var(cs, v);
  cs.enforce([&] { return Lc<F>(kOne).sub(a.var); }, [&] { return Lc<F>(kOne).sub(b.var); }, [&] { return Lc<F>(r); });
  return {r, v};
}

struct Boolean {
  enum class Kind : uint8_t { Constant, Is, Not };
  Kind kind = Kind::Constant;
  bool constant = false;  // for Kind::Constant
  Bit bit;                // for Kind::Is / Kind::Not

  static Boolean constant_of(bool b) { return {Kind::Constant, b, {}}; }
  static Boolean is(const Bit& b) { return {Kind::Is, false, b}; }
  static Boolean negated(const Bit& b) { return {Kind::Not, false, b}; }
  bool is_constant() const { return kind == Kind::Constant; }
  bool value() const { return kind == Kind::Constant ? constant : kind == Kind::Is ? bit.value : !bit.value; }
  Boolean operator!() const {
    if (kind == Kind::Constant) return constant_of(!constant);
    return {kind == Kind::Is ? Kind::Not : Kind::Is, false, bit};
  }
  // bellpepper's Boolean::lc(one, coeff): coeff·x, coeff·ONE - coeff·x, coeff·ONE or nothing;
  // each_term gives its terms, in that order, to out(var, coeff).
  template <class F, class Out>
  void each_term(const F& coeff, Out&& out) const {
    switch (kind) {
      case Kind::Constant:
        if (constant) out(kOne, coeff);
        return;
      case Kind::Is:
        out(bit.var, coeff);
        return;
      case Kind::Not:
      default:
        out(kOne, coeff);
        out(bit.var, -coeff);
    }
  }
  template <class F>
  Lc<F> lc(const F& coeff) const {
    Lc<F> l;
    each_term(coeff, [&](Var v, const F& c) { l.add(v, c); });
    return l;
  }
  template <class F>
  Lc<F> lc() const {
    return lc<F>(F::one());
  }
};

template <class CS>
Boolean alloc_boolean(CS& cs, bool value) {
  return Boolean::is(alloc_bit(cs, value));
}

// Fails (returns false) on two different constants, as bellpepper's Unsatisfiable.
template <class CS>
bool enforce_equal(CS& cs, const Boolean& a, const Boolean& b) {
  using F = typename CS::Field;
  using K = Boolean::Kind;
  if (a.is_constant() && b.is_constant()) return a.constant == b.constant;
  if ((a.kind == K::Constant && a.constant) || (b.kind == K::Constant && b.constant)) {
    const Boolean& x = a.kind == K::Constant && a.constant ? b : a;
    cs.enforce([] { return Lc<F>(); }, [] { return Lc<F>(); }, [&] { return Lc<F>(kOne).sub(x.lc<F>()); });
    return true;
  }
  if (a.kind == K::Constant || b.kind == K::Constant) {
    const Boolean& x = a.kind == K::Constant ? b : a;
    cs.enforce([] { return Lc<F>(); }, [] { return Lc<F>(); }, [&] { return x.lc<F>(); });
    return true;
  }
  cs.enforce([] { return Lc<F>(); }, [] { return Lc<F>(); }, [&] { return a.lc<F>().sub(b.lc<F>()); });
  return true;
}

template <class CS>
Boolean boolean_xor(CS& cs, const Boolean& a, const Boolean& b) {
  using K = Boolean::Kind;
  if (a.kind == K::Constant && !a.constant) return b;
  if (b.kind == K::Constant && !b.constant) return a;
  if (a.kind == K::Constant) return !b;  // a is true
  if (b.kind == K::Constant) return !a;
  if (a.kind != b.kind) {
    const Boolean& is = a.kind == K::Is ? a : b;
    const Boolean& not_ = a.kind == K::Is ? b : a;
    return !Boolean::is(bit_xor(cs, is.bit, not_.bit));
  }
  return Boolean::is(bit_xor(cs, a.bit, b.bit));
}

template <class CS>
Boolean boolean_and(CS& cs, const Boolean& a, const Boolean& b) {
  using K = Boolean::Kind;
  if ((a.kind == K::Constant && !a.constant) || (b.kind == K::Constant && !b.constant))
    return Boolean::constant_of(false);
  if (a.kind == K::Constant) return b;  // a is true
  if (b.kind == K::Constant) return a;
  if (a.kind == K::Is && b.kind == K::Not) return Boolean::is(bit_and_not(cs, a.bit, b.bit));
  if (a.kind == K::Not && b.kind == K::Is) return Boolean::is(bit_and_not(cs, b.bit, a.bit));
  if (a.kind == K::Not) return Boolean::is(bit_nor(cs, a.bit, b.bit));
  return Boolean::is(bit_and(cs, a.bit, b.bit));
}

template <class CS>
Boolean boolean_or(CS& cs, const Boolean& a, const Boolean& b) {
  return !boolean_and(cs, !a, !b);
}

// SHA-256's Ch(a, b, c) = (a & b) ^ (!a & c): one variable and one constraint
// (b - c) · a = ch - c, after bellpepper's constant cases.
template <class CS>
Boolean sha256_ch(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  using F = typename CS::Field;
  using K = Boolean::Kind;
  const bool av = a.value(), bv = b.value(), cv = c.value();
  const bool v = (av && bv) ^ (!av && cv);
  auto is_c = [](const Boolean& x, bool val) { return x.kind == K::Constant && x.constant == val; };
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean::constant_of(v);
  if (is_c(a, false)) return c;
  if (is_c(b, false)) return boolean_and(cs, !a, c);
  if (is_c(c, false)) return boolean_and(cs, a, b);
  if (is_c(c, true)) return !boolean_and(cs, a, !b);
  if (is_c(b, true)) return !boolean_and(cs, !a, !c);
  // a constant true falls through to the general case, as in bellpepper.
  const Var ch = alloc_bool_var(cs, v);
  cs.enforce([&] { return b.lc<F>().sub(c.lc<F>()); }, [&] { return a.lc<F>(); },
             [&] { return Lc<F>(ch).sub(c.lc<F>()); });
  return Boolean::is({ch, v});
}

// SHA-256's Maj(a, b, c): maj allocated, then bc = b & c, then (2bc - b - c) · a = bc - maj.
template <class CS>
Boolean sha256_maj(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  using F = typename CS::Field;
  using K = Boolean::Kind;
  const bool av = a.value(), bv = b.value(), cv = c.value();
  const bool v = (av && bv) ^ (av && cv) ^ (bv && cv);
  auto is_c = [](const Boolean& x, bool val) { return x.kind == K::Constant && x.constant == val; };
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean::constant_of(v);
  if (is_c(a, false)) return boolean_and(cs, b, c);
  if (is_c(b, false)) return boolean_and(cs, a, c);
  if (is_c(c, false)) return boolean_and(cs, a, b);
  if (is_c(c, true)) return !boolean_and(cs, !a, !b);
  if (is_c(b, true)) return !boolean_and(cs, !a, !c);
  if (is_c(a, true)) return !boolean_and(cs, !b, !c);
  const Var maj = alloc_bool_var(cs, v);
  const Boolean bc = boolean_and(cs, b, c);
  cs.enforce([&] { return bc.lc<F>().add(bc.lc<F>()).sub(b.lc<F>()).sub(c.lc<F>()); }, [&] { return a.lc<F>(); },
             [&] { return bc.lc<F>().sub(maj); });
  return Boolean::is({maj, v});
}

// n bits allocated least significant first (bellpepper's u64_into_boolean_vec_le).
template <class CS>
std::vector<Boolean> u64_into_boolean_vec_le(CS& cs, uint64_t value) {
  std::vector<Boolean> out;
  out.reserve(64);
  for (int i = 0; i < 64; ++i) out.push_back(alloc_boolean(cs, (value >> i) & 1));
  return out;
}

}  // namespace cuzk::circuit
