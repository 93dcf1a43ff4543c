// SPDX-License-Identifier: MIT OR Apache-2.0
// Unsigned words in a circuit: bellperson's MultiEq and UInt32 (with addmany's carry bits), and
// storage-proofs-core's UInt64. Bits are kept least significant first.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "circuit/multipack.hpp"

namespace cuzk::circuit {

// Batches equalities lhs = rhs of few bits each into one constraint (sum 2^k lhs_i) · ONE =
// (sum 2^k rhs_i), as long as the shifted bits stay below CAPACITY; a constraint is emitted when
// the next equality does not fit, and by finish() (bellperson's MultiEq, emitted on drop).
// It forwards alloc and enforce, so gadgets run on it as on any constraint system.
template <class CS>
class MultiEq {
 public:
  using Field = typename CS::Field;
  using F = Field;
  static constexpr bool kValues = CS::kValues;
  static constexpr bool kRows = CS::kRows;

  explicit MultiEq(CS& cs) : cs_(cs) {}
  MultiEq(const MultiEq&) = delete;
  ~MultiEq() { finish(); }

  template <class Fn>
  Var alloc(Fn&& f) {
    return cs_.alloc(std::forward<Fn>(f));
  }
  template <class Fn>
  Var alloc_input(Fn&& f) {
    return cs_.alloc_input(std::forward<Fn>(f));
  }
  template <class A, class B, class C>
  void enforce(A&& a, B&& b, C&& c) {
    cs_.enforce(std::forward<A>(a), std::forward<B>(b), std::forward<C>(c));
  }

  // lhs and rhs are built by the caller only where rows are kept; elsewhere they are empty.
  void enforce_equal(size_t num_bits, const Lc<F>& lhs, const Lc<F>& rhs) {
    constexpr size_t cap = size_t(field_capacity<F>());
    if (cap <= bits_used_ + num_bits) accumulate();
    if constexpr (kRows) {
      const F& coeff = pow2(bits_used_);
      lhs_.add(lhs, coeff);
      rhs_.add(rhs, coeff);
    }
    bits_used_ += num_bits;
  }
  void finish() {
    if (bits_used_ > 0) accumulate();
  }

 private:
  // 2^k for k below the capacity, made once (an exponentiation per equality was a tenth of
  // building SHA-256's rows).
  static const F& pow2(size_t k) {
    static const std::vector<F> table = [] {
      std::vector<F> t(size_t(field_capacity<F>()) + 1);
      t[0] = F::one();
      for (size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1].dbl();
      return t;
    }();
    return table[k];
  }
  void accumulate() {
    cs_.enforce([&] { return std::move(lhs_); }, [] { return Lc<F>(kOne); }, [&] { return std::move(rhs_); });
    lhs_.clear(), rhs_.clear();
    bits_used_ = 0;
  }
  CS& cs_;
  size_t bits_used_ = 0;
  Lc<F> lhs_, rhs_;
};

struct UInt32 {
  std::array<Boolean, 32> bits;  // least significant first
  uint32_t value = 0;

  static UInt32 constant(uint32_t v) {
    UInt32 u;
    for (int i = 0; i < 32; ++i) u.bits[i] = Boolean::constant_of((v >> i) & 1);
    u.value = v;
    return u;
  }
  // Most significant bit first.
  std::vector<Boolean> into_bits_be() const { return {bits.rbegin(), bits.rend()}; }
  static UInt32 from_bits_be(std::span<const Boolean> be) {
    UInt32 u;
    for (int i = 0; i < 32; ++i) {
      u.bits[i] = be[31 - i];
      u.value |= uint32_t(be[31 - i].value()) << i;
    }
    return u;
  }
  static UInt32 from_bits(std::span<const Boolean> le) {
    UInt32 u;
    for (int i = 0; i < 32; ++i) u.bits[i] = le[i], u.value |= uint32_t(le[i].value()) << i;
    return u;
  }
  UInt32 rotr(int by) const {
    by %= 32;
    UInt32 u;
    for (int i = 0; i < 32; ++i) u.bits[i] = bits[(i + by) % 32];
    u.value = (value >> by) | (by ? value << (32 - by) : 0);
    return u;
  }
  UInt32 shr(int by) const {
    by %= 32;
    UInt32 u;
    for (int i = 0; i < 32; ++i) u.bits[i] = i + by < 32 ? bits[i + by] : Boolean::constant_of(false);
    u.value = value >> by;
    return u;
  }
};

// 32 booleans, least significant first.
template <class CS>
UInt32 uint32_alloc(CS& cs, uint32_t v) {
  UInt32 u;
  for (int i = 0; i < 32; ++i) u.bits[i] = alloc_boolean(cs, (v >> i) & 1);
  u.value = v;
  return u;
}

template <class CS>
UInt32 uint32_xor(CS& cs, const UInt32& a, const UInt32& b) {
  UInt32 u;
  for (int i = 0; i < 32; ++i) u.bits[i] = boolean_xor(cs, a.bits[i], b.bits[i]);
  u.value = a.value ^ b.value;
  return u;
}

template <class CS>
UInt32 uint32_sha256_ch(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 u;
  for (int i = 0; i < 32; ++i) u.bits[i] = sha256_ch(cs, a.bits[i], b.bits[i], c.bits[i]);
  u.value = (a.value & b.value) ^ (~a.value & c.value);
  return u;
}

template <class CS>
UInt32 uint32_sha256_maj(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 u;
  for (int i = 0; i < 32; ++i) u.bits[i] = sha256_maj(cs, a.bits[i], b.bits[i], c.bits[i]);
  u.value = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
  return u;
}

// The sum of 2..10 operands mod 2^32: as many result bits as the largest sum needs, allocated
// least significant first, and one MultiEq equality sum(operand bits) = sum(result bits); the
// sum of constants is a constant.
template <class CS>
UInt32 uint32_addmany(MultiEq<CS>& cs, std::span<const UInt32> ops) {
  using F = typename CS::Field;
  uint64_t max_value = uint64_t(ops.size()) * uint64_t(UINT32_MAX);
  uint64_t sum = 0;
  bool all_constants = true;
  std::vector<Term<F>> terms;  // the operands' bits, scaled (gathered, then sorted once)
  if constexpr (CS::kRows) terms.reserve(ops.size() * 64);
  for (const UInt32& op : ops) {
    sum += op.value;
    F coeff = F::one();
    for (const Boolean& b : op.bits) {
      if constexpr (CS::kRows) b.each_term(coeff, [&](Var v, const F& c) { terms.push_back({v, c}); });
      all_constants &= b.is_constant();
      if constexpr (CS::kRows) coeff = coeff.dbl();
    }
  }
  if (all_constants) return UInt32::constant(uint32_t(sum));
  UInt32 out;
  Lc<F> result_lc;
  F coeff = F::one();
  size_t i = 0;
  for (; max_value != 0; ++i, max_value >>= 1) {
    const Bit b = alloc_bit(cs, (sum >> i) & 1);
    if constexpr (CS::kRows) {
      result_lc.add(b.var, coeff);
      coeff = coeff.dbl();
    }
    if (i < 32) out.bits[i] = Boolean::is(b);
  }
  Lc<F> lc;
  if constexpr (CS::kRows) lc.add_terms(std::move(terms));
  cs.enforce_equal(i, lc, result_lc);
  out.value = uint32_t(sum);
  return out;
}

struct UInt64 {
  std::array<Boolean, 64> bits;  // least significant first
  uint64_t value = 0;

  static UInt64 constant(uint64_t v) {
    UInt64 u;
    for (int i = 0; i < 64; ++i) u.bits[i] = Boolean::constant_of((v >> i) & 1);
    u.value = v;
    return u;
  }
  std::vector<Boolean> to_bits_be() const { return {bits.rbegin(), bits.rend()}; }
  std::vector<Boolean> to_bits_le() const { return {bits.begin(), bits.end()}; }
  static UInt64 from_bits_be(std::span<const Boolean> be) {
    UInt64 u;
    for (int i = 0; i < 64; ++i) u.bits[i] = be[63 - i], u.value |= uint64_t(be[63 - i].value()) << i;
    return u;
  }
  static UInt64 from_bits(std::span<const Boolean> le) {
    UInt64 u;
    for (int i = 0; i < 64; ++i) u.bits[i] = le[i], u.value |= uint64_t(le[i].value()) << i;
    return u;
  }
};

template <class CS>
UInt64 uint64_alloc(CS& cs, uint64_t v) {
  UInt64 u;
  for (int i = 0; i < 64; ++i) u.bits[i] = alloc_boolean(cs, (v >> i) & 1);
  u.value = v;
  return u;
}

template <class CS>
void uint64_pack_into_input(CS& cs, const UInt64& u) {
  pack_into_inputs(cs, std::span<const Boolean>(u.bits));
}

}  // namespace cuzk::circuit
