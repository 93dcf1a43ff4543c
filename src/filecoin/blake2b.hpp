// SPDX-License-Identifier: MIT OR Apache-2.0
// BLAKE2b (RFC 7693), in-tree like SHA-256 so that every build has it, a GPU host's too: the
// Feistel network of the PoRep graph's expander parents (blake2b_simd's default 64-byte digest),
// the keys of synthetic PoRep's challenge streams (32-byte digests under a key) and the digests
// of parameters.json (`cuzk params verify`).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace cuzk::filecoin {

class Blake2b {
 public:
  // out_bytes 1..64; key 0..64 bytes. Throws InvalidArgument outside those.
  explicit Blake2b(size_t out_bytes = 64, std::span<const uint8_t> key = {});
  void update(std::span<const uint8_t> data);
  void update(const std::string& s) { update({reinterpret_cast<const uint8_t*>(s.data()), s.size()}); }
  // The digest's first out_bytes bytes in out[0 .. out_bytes).
  std::array<uint8_t, 64> finish();
  size_t out_bytes() const { return out_; }

 private:
  void compress(const uint8_t* block, bool last);
  uint64_t h_[8];
  uint8_t buf_[128];
  size_t fill_ = 0, out_;
  uint64_t t_[2] = {0, 0};
};

// Hex BLAKE2b-512 of bytes / of a whole file (read in pieces, never whole); the file's errors
// name it.
std::string blake2b_512_hex(const std::string& bytes);
std::string blake2b_512_hex_file(const std::string& path);

}  // namespace cuzk::filecoin
