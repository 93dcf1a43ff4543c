// SPDX-License-Identifier: MIT OR Apache-2.0
// Field elements in a circuit: AllocatedNum (one variable) and Num (a linear combination with its
// value), as bellpepper's num.rs, plus the storage-proofs-core helpers over them (constraint.rs:
// equal, sum, add, sub, difference; encode.rs: encode, decode).
#pragma once
#include <vector>

#include "circuit/boolean.hpp"

namespace cuzk::circuit {

template <class F>
struct Num {
  Var var;
  F value{};  // meaningful only where the constraint system has values
};

template <class CS, class Fn>
Num<typename CS::Field> alloc_num(CS& cs, Fn&& value) {
  Num<typename CS::Field> n;
  n.var = cs.alloc([&] { return n.value = value(); });
  return n;
}

template <class CS, class Fn>
Num<typename CS::Field> alloc_input_num(CS& cs, Fn&& value) {
  Num<typename CS::Field> n;
  n.var = cs.alloc_input([&] { return n.value = value(); });
  return n;
}

// A new input equal to x: input · ONE = x.
template <class CS>
Var inputize(CS& cs, const Num<typename CS::Field>& x) {
  using F = typename CS::Field;
  const Var in = cs.alloc_input([&] { return x.value; });
  cs.enforce([&] { return Lc<F>(in); }, [] { return Lc<F>(kOne); }, [&] { return Lc<F>(x.var); });
  return in;
}

template <class CS>
Num<typename CS::Field> num_add(CS& cs, const Num<typename CS::Field>& a, const Num<typename CS::Field>& b) {
  using F = typename CS::Field;
  const auto r = alloc_num(cs, [&] { return a.value + b.value; });
  cs.enforce([&] { return Lc<F>(a.var).add(b.var); }, [] { return Lc<F>(kOne); }, [&] { return Lc<F>(r.var); });
  return r;
}

template <class CS>
Num<typename CS::Field> num_mul(CS& cs, const Num<typename CS::Field>& a, const Num<typename CS::Field>& b) {
  using F = typename CS::Field;
  const auto r = alloc_num(cs, [&] { return a.value * b.value; });
  cs.enforce([&] { return Lc<F>(a.var); }, [&] { return Lc<F>(b.var); }, [&] { return Lc<F>(r.var); });
  return r;
}

template <class CS>
Num<typename CS::Field> num_square(CS& cs, const Num<typename CS::Field>& a) {
  using F = typename CS::Field;
  const auto r = alloc_num(cs, [&] { return a.value.sqr(); });
  cs.enforce([&] { return Lc<F>(a.var); }, [&] { return Lc<F>(a.var); }, [&] { return Lc<F>(r.var); });
  return r;
}

// x · inv = 1 (fails to be satisfiable for x = 0: inv is then 0).
template <class CS>
void assert_nonzero(CS& cs, const Num<typename CS::Field>& x) {
  using F = typename CS::Field;
  const Var inv = cs.alloc([&] { return x.value.is_zero() ? F::zero() : x.value.inv(); });
  cs.enforce([&] { return Lc<F>(x.var); }, [&] { return Lc<F>(inv); }, [] { return Lc<F>(kOne); });
}

// (c, d) = condition ? (b, a) : (a, b); two variables, two constraints, in bellpepper's order.
template <class CS>
std::pair<Num<typename CS::Field>, Num<typename CS::Field>> conditionally_reverse(CS& cs,
                                                                                  const Num<typename CS::Field>& a,
                                                                                  const Num<typename CS::Field>& b,
                                                                                  const Boolean& condition) {
  using F = typename CS::Field;
  const auto c = alloc_num(cs, [&] { return condition.value() ? b.value : a.value; });
  cs.enforce([&] { return Lc<F>(a.var).sub(b.var); }, [&] { return condition.lc<F>(); },
             [&] { return Lc<F>(a.var).sub(c.var); });
  const auto d = alloc_num(cs, [&] { return condition.value() ? a.value : b.value; });
  cs.enforce([&] { return Lc<F>(b.var).sub(a.var); }, [&] { return condition.lc<F>(); },
             [&] { return Lc<F>(b.var).sub(d.var); });
  return {c, d};
}

namespace detail {
// Bit i of a field element's standard form.
template <class F>
bool field_bit(const F& x, const typename F::Limbs& std_form, int i) {
  (void)x;
  return (std_form.v[i / 64] >> (i % 64)) & 1;
}
}  // namespace detail

// NUM_BITS booleans, least significant first (bellpepper's field_into_allocated_bits_le).
template <class CS>
std::vector<Bit> field_into_allocated_bits_le(CS& cs, const typename CS::Field& value) {
  using F = typename CS::Field;
  constexpr int n = field_num_bits<F>();
  typename F::Limbs s{};
  if constexpr (CS::kValues) s = value.to_std();
  std::vector<Bit> bits;
  bits.reserve(n);
  for (int i = 0; i < n; ++i) bits.push_back(alloc_bit(cs, detail::field_bit(value, s, i)));
  return bits;
}

// NUM_BITS booleans, least significant first, and sum 2^i b_i = x (not range-checked below p).
template <class CS>
std::vector<Boolean> to_bits_le(CS& cs, const Num<typename CS::Field>& x) {
  using F = typename CS::Field;
  const std::vector<Bit> bits = field_into_allocated_bits_le(cs, x.value);
  cs.enforce([] { return Lc<F>(); }, [] { return Lc<F>(); },
             [&] {
               Lc<F> lc;
               F coeff = F::one();
               for (const Bit& b : bits) lc.add(b.var, coeff), coeff = coeff.dbl();
               return lc.sub(x.var);
             });
  std::vector<Boolean> out;
  out.reserve(bits.size());
  for (const Bit& b : bits) out.push_back(Boolean::is(b));
  return out;
}

// As to_bits_le, and the bits are the canonical representation (below the modulus): bellpepper's
// to_bits_le_strict, with its runs of ones of p - 1 and-ed together.
template <class CS>
std::vector<Boolean> to_bits_le_strict(CS& cs, const Num<typename CS::Field>& x) {
  using F = typename CS::Field;
  constexpr int n = field_num_bits<F>();
  const typename F::Limbs pm1 = (-F::one()).to_std();
  typename F::Limbs s{};
  if constexpr (CS::kValues) s = x.value.to_std();
  std::vector<Bit> result, run;
  Bit last_run{};
  bool have_last = false;
  for (int i = n - 1; i >= 0; --i) {
    const bool abit = detail::field_bit(x.value, s, i);
    if (detail::field_bit(x.value, pm1, i)) {
      const Bit b = alloc_bit(cs, abit);
      run.push_back(b);
      result.push_back(b);
    } else {
      if (!run.empty()) {
        if (have_last) run.push_back(last_run);
        Bit cur = run[0];
        for (size_t k = 1; k < run.size(); ++k) cur = bit_and(cs, cur, run[k]);
        last_run = cur, have_last = true;
        run.clear();
      }
      result.push_back(alloc_bit_conditionally(cs, abit, last_run));
    }
  }
  cs.enforce([] { return Lc<F>(); }, [] { return Lc<F>(); },
             [&] {
               Lc<F> lc;
               F coeff = F::one();
               for (auto it = result.rbegin(); it != result.rend(); ++it) lc.add(it->var, coeff), coeff = coeff.dbl();
               return lc.sub(x.var);
             });
  std::vector<Boolean> out;
  out.reserve(result.size());
  for (auto it = result.rbegin(); it != result.rend(); ++it) out.push_back(Boolean::is(*it));
  return out;
}

// A linear combination with its value (bellpepper's Num). The combination is built only where
// the constraint system keeps rows, the value only where it has values.
template <class F>
struct LcNum {
  Lc<F> lc;
  F value = F::zero();
};

template <class CS>
void add_bool_with_coeff(LcNum<typename CS::Field>& n, const Boolean& bit, const typename CS::Field& coeff) {
  if constexpr (CS::kValues)
    if (bit.value()) n.value += coeff;
  if constexpr (CS::kRows) bit.each_term(coeff, [&](Var v, const typename CS::Field& c) { n.lc.add(v, c); });
}

// storage-proofs-core constraint::equal: a · ONE = b.
template <class CS>
void enforce_num_equal(CS& cs, const Num<typename CS::Field>& a, const Num<typename CS::Field>& b) {
  using F = typename CS::Field;
  cs.enforce([&] { return Lc<F>(a.var); }, [] { return Lc<F>(kOne); }, [&] { return Lc<F>(b.var); });
}

// constraint::sum: (a + b) · ONE = s.
template <class CS>
void enforce_sum(CS& cs, const Num<typename CS::Field>& a, const Num<typename CS::Field>& b,
                 const Num<typename CS::Field>& s) {
  using F = typename CS::Field;
  cs.enforce([&] { return Lc<F>(a.var).add(b.var); }, [] { return Lc<F>(kOne); }, [&] { return Lc<F>(s.var); });
}

// constraint::difference: (d + b) · ONE = a.
template <class CS>
void enforce_difference(CS& cs, const Num<typename CS::Field>& a, const Num<typename CS::Field>& b,
                        const Num<typename CS::Field>& d) {
  using F = typename CS::Field;
  cs.enforce([&] { return Lc<F>(d.var).add(b.var); }, [] { return Lc<F>(kOne); }, [&] { return Lc<F>(a.var); });
}

// constraint::add / encode(key, value) = key + value.
template <class CS>
Num<typename CS::Field> constraint_add(CS& cs, const Num<typename CS::Field>& a, const Num<typename CS::Field>& b) {
  const auto r = alloc_num(cs, [&] { return a.value + b.value; });
  enforce_sum(cs, a, b, r);
  return r;
}

// constraint::sub / decode(key, value) = value - key.
template <class CS>
Num<typename CS::Field> constraint_sub(CS& cs, const Num<typename CS::Field>& a, const Num<typename CS::Field>& b) {
  const auto r = alloc_num(cs, [&] { return a.value - b.value; });
  enforce_difference(cs, a, b, r);
  return r;
}

template <class CS>
Num<typename CS::Field> encode(CS& cs, const Num<typename CS::Field>& key, const Num<typename CS::Field>& value) {
  return constraint_add(cs, key, value);
}
template <class CS>
Num<typename CS::Field> decode(CS& cs, const Num<typename CS::Field>& key, const Num<typename CS::Field>& value) {
  return constraint_sub(cs, value, key);
}

}  // namespace cuzk::circuit
