// SPDX-License-Identifier: MIT OR Apache-2.0
// Inserting an element into a list at a position given by bits (storage-proofs-core
// insertion.rs), as a Merkle path step puts the current hash among its siblings: pick (one
// variable, one constraint), select (a binary tree of picks), insert with its specialised forms
// for 2, 4 and 8 elements and the generic form (one select per position) for the others.
// Constraints, allocation order and linear combinations as the Rust gadgets build them.
#pragma once
#include <span>
#include <stdexcept>
#include <vector>

#include "circuit/num.hpp"

namespace cuzk::circuit {

// condition ? a : b. One variable c and (b - a) · condition = b - c.
template <class CS>
Num<typename CS::Field> pick(CS& cs, const Boolean& condition, const Num<typename CS::Field>& a,
                             const Num<typename CS::Field>& b) {
  using F = typename CS::Field;
  const auto c = alloc_num(cs, [&] { return condition.value() ? a.value : b.value; });
  cs.enforce([&] { return Lc<F>(b.var).sub(a.var); }, [&] { return condition.lc<F>(); },
             [&] { return Lc<F>(b.var).sub(c.var); });
  return c;
}

// from[index], index given by path_bits least significant first (2^bits elements): the most
// significant bit halves the list first, each pick taking the upper half where the bit is set.
template <class CS>
Num<typename CS::Field> select(CS& cs, std::span<const Num<typename CS::Field>> from,
                               std::span<const Boolean> path_bits) {
  if (from.size() != (size_t(1) << path_bits.size())) throw std::invalid_argument("select: 2^bits elements");
  std::vector<Num<typename CS::Field>> state(from.begin(), from.end());
  size_t half = from.size() / 2;
  for (size_t k = path_bits.size(); k-- > 0;) {
    std::vector<Num<typename CS::Field>> next;
    next.reserve(half);
    for (size_t j = 0; j < half; ++j) next.push_back(pick(cs, path_bits[k], state[half + j], state[j]));
    state = std::move(next);
    half /= 2;
  }
  return state[0];
}

// [e0, e1] with element at position bits[0].
template <class CS>
std::vector<Num<typename CS::Field>> insert_2(CS& cs, const Num<typename CS::Field>& element,
                                              std::span<const Boolean> bits,
                                              std::span<const Num<typename CS::Field>> elements) {
  if (elements.size() != 1 || bits.size() != 1) throw std::invalid_argument("insert_2: 1 element, 1 bit");
  auto p0 = pick(cs, bits[0], elements[0], element);
  auto p1 = pick(cs, bits[0], element, elements[0]);
  return {p0, p1};
}

// Four positions from two bits: two picks per position.
template <class CS>
std::vector<Num<typename CS::Field>> insert_4(CS& cs, const Num<typename CS::Field>& element,
                                              std::span<const Boolean> bits,
                                              std::span<const Num<typename CS::Field>> elements) {
  if (elements.size() != 3 || bits.size() != 2) throw std::invalid_argument("insert_4: 3 elements, 2 bits");
  const Boolean &b0 = bits[0], &b1 = bits[1];
  const auto &a = element, &b = elements[0], &c = elements[1], &d = elements[2];
  const auto p0_x0 = pick(cs, b0, b, a);
  const auto p0 = pick(cs, b1, b, p0_x0);
  const auto p1_x0 = pick(cs, b0, a, b);
  const auto p1 = pick(cs, b1, c, p1_x0);
  const auto p2_x1 = pick(cs, b0, d, a);
  const auto p2 = pick(cs, b1, p2_x1, c);
  const auto p3_x1 = pick(cs, b0, a, d);
  const auto p3 = pick(cs, b1, p3_x1, d);
  return {p0, p1, p2, p3};
}

// Eight positions from three allocated (not negated) bits: b0 nor b1 and b0 and b1 first, then
// two or three picks per position.
template <class CS>
std::vector<Num<typename CS::Field>> insert_8(CS& cs, const Num<typename CS::Field>& element,
                                              std::span<const Boolean> bits,
                                              std::span<const Num<typename CS::Field>> elements) {
  if (elements.size() != 7 || bits.size() != 3) throw std::invalid_argument("insert_8: 7 elements, 3 bits");
  const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
  if (b0.kind != Boolean::Kind::Is || b1.kind != Boolean::Kind::Is)
    throw std::invalid_argument("insert_8: bits must be allocated and not negated");
  const auto &a = element, &b = elements[0], &c = elements[1], &d = elements[2], &e = elements[3], &f = elements[4],
             &g = elements[5], &h = elements[6];
  const Boolean b0_nor_b1 = Boolean::is(bit_nor(cs, b0.bit, b1.bit));
  const Boolean b0_and_b1 = Boolean::is(bit_and(cs, b0.bit, b1.bit));

  const auto p0_xx0 = pick(cs, b0_nor_b1, a, b);
  const auto p0 = pick(cs, b2, b, p0_xx0);

  const auto p1_x00 = pick(cs, b0, a, b);
  const auto p1_xx0 = pick(cs, b1, c, p1_x00);
  const auto p1 = pick(cs, b2, c, p1_xx0);

  const auto p2_x10 = pick(cs, b0, d, a);
  const auto p2_xx0 = pick(cs, b1, p2_x10, c);
  const auto p2 = pick(cs, b2, d, p2_xx0);

  const auto p3_xx0 = pick(cs, b0_and_b1, a, d);
  const auto p3 = pick(cs, b2, e, p3_xx0);

  const auto p4_xx1 = pick(cs, b0_nor_b1, a, f);
  const auto p4 = pick(cs, b2, p4_xx1, e);

  const auto p5_x01 = pick(cs, b0, a, f);
  const auto p5_xx1 = pick(cs, b1, g, p5_x01);
  const auto p5 = pick(cs, b2, p5_xx1, f);

  const auto p6_x11 = pick(cs, b0, h, a);
  const auto p6_xx1 = pick(cs, b1, p6_x11, g);
  const auto p6 = pick(cs, b2, p6_xx1, g);

  const auto p7_xx1 = pick(cs, b0_and_b1, a, h);
  const auto p7 = pick(cs, b2, p7_xx1, h);
  return {p0, p1, p2, p3, p4, p5, p6, p7};
}

// element inserted among `elements` (2^bits - 1 of them) at the position the bits give, least
// significant first.
template <class CS>
std::vector<Num<typename CS::Field>> insert(CS& cs, const Num<typename CS::Field>& element,
                                            std::span<const Boolean> bits,
                                            std::span<const Num<typename CS::Field>> elements) {
  const size_t size = elements.size() + 1;
  if (bits.size() >= 32 || (size_t(1) << bits.size()) != size)
    throw std::invalid_argument("insert: 2^bits - 1 elements");
  if (size == 2) return insert_2(cs, element, bits, elements);
  if (size == 4) return insert_4(cs, element, bits, elements);
  if (size == 8) return insert_8(cs, element, bits, elements);
  // Position pos of the list with element at index: elements[pos] before it, element at it,
  // elements[pos - 1] after it.
  std::vector<Num<typename CS::Field>> result;
  result.reserve(size);
  for (size_t pos = 0; pos < size; ++pos) {
    std::vector<Num<typename CS::Field>> choices;
    choices.reserve(size);
    for (size_t index = 0; index < size; ++index)
      choices.push_back(pos < index ? elements[pos] : pos == index ? element : elements[pos - 1]);
    result.push_back(select(cs, std::span<const Num<typename CS::Field>>(choices), bits));
  }
  return result;
}

}  // namespace cuzk::circuit
