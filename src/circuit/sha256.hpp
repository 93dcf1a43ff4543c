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

namespace cuzk::circuit {

inline constexpr std::array<uint32_t, 64> kSha256RoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline constexpr std::array<uint32_t, 8> kSha256Iv = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

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
