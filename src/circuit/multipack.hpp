// SPDX-License-Identifier: MIT OR Apache-2.0
// Packing booleans into field elements (bellperson's multipack.rs): CAPACITY bits per element,
// least significant first.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "circuit/num.hpp"

namespace cuzk::circuit {

// Bits of bytes, most significant bit of each byte first.
inline std::vector<bool> bytes_to_bits(std::span<const uint8_t> bytes) {
  std::vector<bool> out;
  out.reserve(bytes.size() * 8);
  for (uint8_t b : bytes)
    for (int i = 7; i >= 0; --i) out.push_back((b >> i) & 1);
  return out;
}

// Bits of bytes, least significant bit of each byte first.
inline std::vector<bool> bytes_to_bits_le(std::span<const uint8_t> bytes) {
  std::vector<bool> out;
  out.reserve(bytes.size() * 8);
  for (uint8_t b : bytes)
    for (int i = 0; i < 8; ++i) out.push_back((b >> i) & 1);
  return out;
}

// The field elements pack_into_inputs makes of these bits.
template <class F>
std::vector<F> compute_multipacking(const std::vector<bool>& bits) {
  constexpr size_t cap = size_t(field_capacity<F>());
  std::vector<F> out;
  for (size_t lo = 0; lo < bits.size(); lo += cap) {
    F cur = F::zero(), coeff = F::one();
    for (size_t i = lo; i < std::min(bits.size(), lo + cap); ++i) {
      if (bits[i]) cur += coeff;
      coeff = coeff.dbl();
    }
    out.push_back(cur);
  }
  return out;
}

// One input per CAPACITY bits: (sum 2^i b_i) · ONE = input.
template <class CS>
void pack_into_inputs(CS& cs, std::span<const Boolean> bits) {
  using F = typename CS::Field;
  constexpr size_t cap = size_t(field_capacity<F>());
  for (size_t lo = 0; lo < bits.size(); lo += cap) {
    LcNum<F> num;
    F coeff = F::one();
    for (size_t i = lo; i < std::min(bits.size(), lo + cap); ++i) {
      add_bool_with_coeff<CS>(num, bits[i], coeff);
      coeff = coeff.dbl();
    }
    const Var in = cs.alloc_input([&] { return num.value; });
    cs.enforce([&] { return Lc<F>().add(num.lc); }, [] { return Lc<F>(kOne); }, [&] { return Lc<F>(in); });
  }
}

// The first CAPACITY bits packed into one new aux variable (bellperson's multipack::pack_bits).
template <class CS>
Num<typename CS::Field> pack_bits(CS& cs, std::span<const Boolean> bits) {
  using F = typename CS::Field;
  const size_t n = std::min(bits.size(), size_t(field_capacity<F>()));
  LcNum<F> num;
  F coeff = F::one();
  for (size_t i = 0; i < n; ++i) {
    add_bool_with_coeff<CS>(num, bits[i], coeff);
    coeff = coeff.dbl();
  }
  const auto out = alloc_num(cs, [&] { return num.value; });
  cs.enforce([&] { return Lc<F>().add(num.lc); }, [] { return Lc<F>(kOne); }, [&] { return Lc<F>(out.var); });
  return out;
}

}  // namespace cuzk::circuit
