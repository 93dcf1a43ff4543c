// SPDX-License-Identifier: MIT OR Apache-2.0
// SHA-256 in a circuit, constraint for constraint bellperson's sha256.rs: the compression
// function over UInt32 words with its additions batched by one MultiEq per block (and the
// additions into a and e deferred to the next round), sha256(bits) with the padding as constant
// booleans, and sha256_block_no_padding. Bits are big-endian within each 32-bit word, as in
// the standard.
#pragma once
#include <array>
#include <span>
#include <stdexcept>
#include <vector>

#include "circuit/uint.hpp"
#include "util/sha256_constants.hpp"

namespace cuzk::circuit {

inline std::vector<UInt32> sha256_iv() {
  std::vector<UInt32> iv;
  for (uint32_t v : kSha256Iv) iv.push_back(UInt32::constant(v));
  return iv;
}

namespace detail {
// A word known (Concrete) or the operands of a sum not yet taken (Deferred): bellperson defers
// the additions that make a and e to where they are next used.
struct MaybeWord {
  bool deferred = false;
  UInt32 word;
  std::vector<UInt32> ops;
  template <class CS>
  UInt32 compute(MultiEq<CS>& cs, std::span<const UInt32> others) const {
    if (!deferred) return word;
    std::vector<UInt32> v = ops;
    v.insert(v.end(), others.begin(), others.end());
    return uint32_addmany(cs, std::span<const UInt32>(v));
  }
};
}  // namespace detail

// One compression of a 512-bit block (big-endian words) into the 8-word state.
template <class CS>
std::vector<UInt32> sha256_compression_function(CS& outer, std::span<const Boolean> input,
                                                std::span<const UInt32> current) {
  if (input.size() != 512 || current.size() != 8) throw std::invalid_argument("sha256 compression: 512 bits, 8 words");
  std::vector<UInt32> w;
  w.reserve(64);
  for (size_t i = 0; i < 16; ++i) w.push_back(UInt32::from_bits_be(input.subspan(32 * i, 32)));
  MultiEq<CS> cs(outer);
  for (size_t i = 16; i < 64; ++i) {
    UInt32 s0 = w[i - 15].rotr(7);
    s0 = uint32_xor(cs, s0, w[i - 15].rotr(18));
    s0 = uint32_xor(cs, s0, w[i - 15].shr(3));
    UInt32 s1 = w[i - 2].rotr(17);
    s1 = uint32_xor(cs, s1, w[i - 2].rotr(19));
    s1 = uint32_xor(cs, s1, w[i - 2].shr(10));
    const UInt32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
    w.push_back(uint32_addmany(cs, std::span<const UInt32>(ops)));
  }
  detail::MaybeWord a{false, current[0], {}}, e{false, current[4], {}};
  UInt32 b = current[1], c = current[2], d = current[3], f = current[5], g = current[6], h = current[7];
  for (size_t i = 0; i < 64; ++i) {
    const UInt32 new_e = e.compute(cs, {});
    UInt32 s1 = new_e.rotr(6);
    s1 = uint32_xor(cs, s1, new_e.rotr(11));
    s1 = uint32_xor(cs, s1, new_e.rotr(25));
    const UInt32 ch = uint32_sha256_ch(cs, new_e, f, g);
    const std::vector<UInt32> temp1 = {h, s1, ch, UInt32::constant(kSha256RoundConstants[i]), w[i]};
    const UInt32 new_a = a.compute(cs, {});
    UInt32 s0 = new_a.rotr(2);
    s0 = uint32_xor(cs, s0, new_a.rotr(13));
    s0 = uint32_xor(cs, s0, new_a.rotr(22));
    const UInt32 maj = uint32_sha256_maj(cs, new_a, b, c);
    h = g;
    g = f;
    f = new_e;
    e = {true, {}, temp1};
    e.ops.push_back(d);
    d = c;
    c = b;
    b = new_a;
    a = {true, {}, temp1};
    a.ops.push_back(s0);
    a.ops.push_back(maj);
  }
  auto add2 = [&](const UInt32& x, const UInt32& y) {
    const UInt32 ops[2] = {x, y};
    return uint32_addmany(cs, std::span<const UInt32>(ops));
  };
  std::vector<UInt32> out;
  out.push_back(a.compute(cs, current.subspan(0, 1)));
  out.push_back(add2(current[1], b));
  out.push_back(add2(current[2], c));
  out.push_back(add2(current[3], d));
  out.push_back(e.compute(cs, current.subspan(4, 1)));
  out.push_back(add2(current[5], f));
  out.push_back(add2(current[6], g));
  out.push_back(add2(current[7], h));
  cs.finish();
  return out;
}

inline std::vector<Boolean> words_into_bits_be(const std::vector<UInt32>& words) {
  std::vector<Boolean> out;
  out.reserve(words.size() * 32);
  for (const UInt32& w : words)
    for (int i = 31; i >= 0; --i) out.push_back(w.bits[i]);
  return out;
}

// The compression of one 512-bit block from the IV, no padding: 256 bits.
template <class CS>
std::vector<Boolean> sha256_block_no_padding(CS& cs, std::span<const Boolean> input) {
  const std::vector<UInt32> iv = sha256_iv();
  return words_into_bits_be(sha256_compression_function(cs, input, iv));
}

// SHA-256 of a whole number of bytes (bits most significant first within each byte): 256 bits.
template <class CS>
std::vector<Boolean> sha256(CS& cs, std::span<const Boolean> input) {
  if (input.size() % 8) throw std::invalid_argument("sha256: the input must be whole bytes");
  std::vector<Boolean> padded(input.begin(), input.end());
  const uint64_t plen = input.size();
  padded.push_back(Boolean::constant_of(true));
  while ((padded.size() + 64) % 512) padded.push_back(Boolean::constant_of(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::constant_of((plen >> i) & 1));
  std::vector<UInt32> cur = sha256_iv();
  for (size_t lo = 0; lo < padded.size(); lo += 512)
    cur = sha256_compression_function(cs, std::span<const Boolean>(padded).subspan(lo, 512), cur);
  return words_into_bits_be(cur);
}

}  // namespace cuzk::circuit
