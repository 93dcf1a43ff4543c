// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/sha256.hpp"

#include <algorithm>
#include <cstring>

#include "util/sha256_constants.hpp"

namespace cuzk::filecoin {

namespace {

constexpr uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

}  // namespace

Sha256::Sha256() { std::memcpy(h_, kSha256Iv.data(), sizeof h_); }

// §6.2.2
void Sha256::block(const uint8_t* p) {
  uint32_t w[64];
  for (int t = 0; t < 16; ++t)
    w[t] = uint32_t(p[4 * t]) << 24 | uint32_t(p[4 * t + 1]) << 16 | uint32_t(p[4 * t + 2]) << 8 | p[4 * t + 3];
  for (int t = 16; t < 64; ++t) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
  for (int t = 0; t < 64; ++t) {
    uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kSha256RoundConstants[t] + w[t];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e, h_[5] += f, h_[6] += g, h_[7] += h;
}

void Sha256::update(std::span<const uint8_t> data) {
  total_ += data.size();
  size_t i = 0;
  while (i < data.size()) {
    size_t n = std::min(data.size() - i, sizeof buf_ - fill_);
    std::memcpy(buf_ + fill_, data.data() + i, n);
    fill_ += n;
    i += n;
    if (fill_ == sizeof buf_) {
      block(buf_);
      fill_ = 0;
    }
  }
}

// §5.1.1: a 1 bit, zeros to 56 mod 64 bytes, the message length in bits (64-bit big-endian).
Sha256::Digest Sha256::finish() {
  const uint64_t bits = total_ * 8;
  const uint8_t one = 0x80, zero = 0;
  update({&one, 1});
  while (fill_ != 56) update({&zero, 1});
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = uint8_t(bits >> (56 - 8 * i));
  update({len, 8});
  Digest d;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) d[4 * i + j] = uint8_t(h_[i] >> (24 - 8 * j));
  return d;
}

Sha256::Digest sha256(const std::string& s) {
  Sha256 h;
  h.update(s);
  return h.finish();
}

std::string to_hex(std::span<const uint8_t> bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

}  // namespace cuzk::filecoin
