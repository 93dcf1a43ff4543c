// SPDX-License-Identifier: MIT OR Apache-2.0
// The ChaCha block function (Bernstein; RFC 8439's quarter round and state layout) with a given
// number of rounds, and the two keystreams Filecoin draws from it:
//   - rand_chacha's ChaCha8Rng (the PoRep graph's DRG parents): 8 rounds, a 64-bit block counter
//     in words 12-13 and a zero stream id in words 14-15; its u64 draws are two consecutive
//     keystream words, the first the low half;
//   - RFC 8439's ChaCha20 (synthetic PoRep's challenges, RustCrypto's chacha20): 20 rounds, a
//     32-bit block counter in word 12 and a 96-bit nonce, with a byte position to seek to.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace cuzk::filecoin {

// The 16 keystream words of one block of `in` after `rounds` rounds (even).
std::array<uint32_t, 16> chacha_block(const std::array<uint32_t, 16>& in, int rounds);

// rand_chacha's ChaCha8Rng from a 32-byte seed, drawing u64s.
class ChaCha8Rng {
 public:
  explicit ChaCha8Rng(std::span<const uint8_t, 32> seed);
  uint64_t next_u64();
  uint32_t next_u32();

 private:
  std::array<uint32_t, 16> state_, block_;
  size_t used_ = 16;
  uint64_t counter_ = 0;
};

// RFC 8439 ChaCha20: XORs (here: writes) the keystream from a byte position on.
class ChaCha20 {
 public:
  ChaCha20(std::span<const uint8_t, 32> key, std::span<const uint8_t, 12> nonce);
  void seek(uint64_t byte_position);  // throws InvalidArgument past the 2^32-block keystream
  void keystream(std::span<uint8_t> out);

 private:
  std::array<uint32_t, 16> state_, block_;
  uint64_t pos_ = 0;  // byte position in the keystream
  bool have_block_ = false;
};

}  // namespace cuzk::filecoin
