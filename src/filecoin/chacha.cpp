// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/chacha.hpp"

#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
inline uint32_t load32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
// "expand 32-byte k"
constexpr uint32_t kSigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

std::array<uint32_t, 16> keyed_state(std::span<const uint8_t, 32> key) {
  std::array<uint32_t, 16> s{};
  for (int i = 0; i < 4; ++i) s[i] = kSigma[i];
  for (int i = 0; i < 8; ++i) s[4 + i] = load32(key.data() + 4 * i);
  return s;
}

}  // namespace

std::array<uint32_t, 16> chacha_block(const std::array<uint32_t, 16>& in, int rounds) {
  std::array<uint32_t, 16> x = in;
  auto qr = [&](int a, int b, int c, int d) {
    x[a] += x[b], x[d] = rotl(x[d] ^ x[a], 16);
    x[c] += x[d], x[b] = rotl(x[b] ^ x[c], 12);
    x[a] += x[b], x[d] = rotl(x[d] ^ x[a], 8);
    x[c] += x[d], x[b] = rotl(x[b] ^ x[c], 7);
  };
  for (int r = 0; r < rounds; r += 2) {
    qr(0, 4, 8, 12), qr(1, 5, 9, 13), qr(2, 6, 10, 14), qr(3, 7, 11, 15);
    qr(0, 5, 10, 15), qr(1, 6, 11, 12), qr(2, 7, 8, 13), qr(3, 4, 9, 14);
  }
  for (int i = 0; i < 16; ++i) x[i] += in[i];
  return x;
}

ChaCha8Rng::ChaCha8Rng(std::span<const uint8_t, 32> seed) : state_(keyed_state(seed)) {}

uint32_t ChaCha8Rng::next_u32() {
  if (used_ == 16) {
    state_[12] = uint32_t(counter_), state_[13] = uint32_t(counter_ >> 32);
    state_[14] = state_[15] = 0;
    block_ = chacha_block(state_, 8);
    ++counter_, used_ = 0;
  }
  return block_[used_++];
}

// rand_core's BlockRng draws a u64 as two consecutive words, the first the low half (across a
// buffer boundary too: rand_chacha's buffer of four blocks is the keystream in order).
uint64_t ChaCha8Rng::next_u64() {
  const uint64_t lo = next_u32();
  return lo | uint64_t(next_u32()) << 32;
}

ChaCha20::ChaCha20(std::span<const uint8_t, 32> key, std::span<const uint8_t, 12> nonce) : state_(keyed_state(key)) {
  for (int i = 0; i < 3; ++i) state_[13 + i] = load32(nonce.data() + 4 * i);
}

void ChaCha20::seek(uint64_t byte_position) {
  if (byte_position >= (uint64_t(1) << 38))
    throw InvalidArgument("ChaCha20: byte position " + std::to_string(byte_position) + " past the keystream");
  pos_ = byte_position, have_block_ = false;
}

void ChaCha20::keystream(std::span<uint8_t> out) {
  for (uint8_t& b : out) {
    const uint64_t blk = pos_ / 64;
    if (blk >= (uint64_t(1) << 32)) throw InvalidArgument("ChaCha20: the keystream's 2^32 blocks are used up");
    if (!have_block_ || pos_ % 64 == 0) {
      state_[12] = uint32_t(blk);
      block_ = chacha_block(state_, 20);
      have_block_ = true;
    }
    const size_t i = pos_ % 64;
    b = uint8_t(block_[i / 4] >> (8 * (i % 4)));
    ++pos_;
  }
}

}  // namespace cuzk::filecoin
