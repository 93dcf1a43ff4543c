// SPDX-License-Identifier: MIT OR Apache-2.0
// The gadgets of Filecoin's storage proofs built on SHA-256, as rust-fil-proofs writes them:
// bits of bytes allocated as booleans (storage-proofs-core util.rs), the bit order reversal
// within bytes, the 254-bit truncated SHA-256 of tree D's leaves (filecoin-hashers'
// Sha256Function::hash_leaf_bits_circuit / hash_circuit) and the stacked DRG label
// (storage-proofs-porep create_label_circuit).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "circuit/sha256.hpp"

namespace cuzk::circuit {

// One allocated boolean per bit of the bytes, least significant bit of each byte first
// (util::bytes_into_boolean_vec); with no bytes (shape), `size` bits.
template <class CS>
std::vector<Boolean> bytes_into_boolean_vec(CS& cs, std::optional<std::span<const uint8_t>> bytes, size_t size) {
  std::vector<Boolean> out;
  const size_t n = bytes ? bytes->size() * 8 : size;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(alloc_boolean(cs, bytes ? ((*bytes)[i / 8] >> (i % 8)) & 1 : false));
  return out;
}

// The same, most significant bit of each byte first (util::bytes_into_boolean_vec_be).
template <class CS>
std::vector<Boolean> bytes_into_boolean_vec_be(CS& cs, std::optional<std::span<const uint8_t>> bytes, size_t size) {
  std::vector<Boolean> out;
  const size_t n = bytes ? bytes->size() * 8 : size;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(alloc_boolean(cs, bytes ? ((*bytes)[i / 8] >> (7 - i % 8)) & 1 : false));
  return out;
}

// Padded with constant zeros to whole bytes, then the bits of every byte reversed
// (util::reverse_bit_numbering).
inline std::vector<Boolean> reverse_bit_numbering(std::vector<Boolean> bits) {
  while (bits.size() % 8) bits.push_back(Boolean::constant_of(false));
  std::vector<Boolean> out;
  out.reserve(bits.size());
  for (size_t lo = 0; lo < bits.size(); lo += 8)
    for (size_t k = 8; k-- > 0;) out.push_back(bits[lo + k]);
  return out;
}

// SHA-256 of the bits, its output read as a little-endian number of CAPACITY bits packed into
// one variable (Sha256Function::hash_circuit).
template <class CS>
Num<typename CS::Field> sha254_hash_circuit(CS& cs, std::span<const Boolean> bits) {
  using F = typename CS::Field;
  const std::vector<Boolean> be = sha256(cs, bits);
  std::vector<Boolean> le = reverse_bit_numbering(be);
  le.resize(std::min(le.size(), size_t(field_capacity<F>())));
  return pack_bits(cs, std::span<const Boolean>(le));
}

// Tree D's leaf hash (Sha256Function::hash_leaf_bits_circuit): both sides padded to whole bytes
// and bit-reversed within bytes, concatenated, then sha254_hash_circuit.
template <class CS>
Num<typename CS::Field> hash_leaf_bits_circuit(CS& cs, std::span<const Boolean> left, std::span<const Boolean> right) {
  std::vector<Boolean> preimage = reverse_bit_numbering({left.begin(), left.end()});
  const std::vector<Boolean> r = reverse_bit_numbering({right.begin(), right.end()});
  preimage.insert(preimage.end(), r.begin(), r.end());
  return sha254_hash_circuit(cs, std::span<const Boolean>(preimage));
}

// The stacked DRG's parents per label (6 base + 8 expander, repeated to 37).
inline constexpr size_t kTotalParents = 37;

// create_label_circuit: SHA-256 over replica_id (padded to 256 bits) ‖ layer (u32 BE) ‖ node
// (u64 BE) ‖ zeros to 512 bits ‖ each parent padded to 256 bits, bit-reversed within bytes and
// packed into one field element of CAPACITY bits.
template <class CS>
Num<typename CS::Field> create_label_circuit(CS& cs, std::span<const Boolean> replica_id,
                                             const std::vector<std::vector<Boolean>>& parents, const UInt32& layer,
                                             const UInt64& node) {
  using F = typename CS::Field;
  if (replica_id.size() < 32 || replica_id.size() > 256) throw std::invalid_argument("create_label: replica id size");
  if (parents.size() != kTotalParents) throw std::invalid_argument("create_label: 37 parents");
  std::vector<Boolean> buf(replica_id.begin(), replica_id.end());
  buf.resize(256, Boolean::constant_of(false));
  const std::vector<Boolean> lb = layer.into_bits_be(), nb = node.to_bits_be();
  buf.insert(buf.end(), lb.begin(), lb.end());
  buf.insert(buf.end(), nb.begin(), nb.end());
  buf.resize(512, Boolean::constant_of(false));
  for (const auto& p : parents) {
    buf.insert(buf.end(), p.begin(), p.end());
    while (buf.size() % 256) buf.push_back(Boolean::constant_of(false));
  }
  if (buf.size() != (2 + kTotalParents) * 256) throw std::invalid_argument("create_label: a parent over 256 bits");
  const std::vector<Boolean> hash = sha256(cs, std::span<const Boolean>(buf));
  const std::vector<Boolean> bits = reverse_bit_numbering(hash);
  return pack_bits(cs, std::span<const Boolean>(bits).subspan(0, size_t(field_capacity<F>())));
}

}  // namespace cuzk::circuit
