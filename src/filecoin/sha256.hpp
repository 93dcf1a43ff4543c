// SPDX-License-Identifier: MIT OR Apache-2.0
// SHA-256 (FIPS 180-4), in-tree so that every build names Filecoin's parameter files, also a GPU
// host's that has nothing but the compiler.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace cuzk::filecoin {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;
  Sha256();
  void update(std::span<const uint8_t> data);
  void update(const std::string& s) { update({reinterpret_cast<const uint8_t*>(s.data()), s.size()}); }
  Digest finish();

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t fill_ = 0;
  uint64_t total_ = 0;
};

Sha256::Digest sha256(const std::string& s);
std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace cuzk::filecoin
