// SPDX-License-Identifier: MIT OR Apache-2.0
// BLAKE2b as RFC 7693 specifies it: 12 rounds of G over a 16-word state, 128-byte blocks, the
// parameter block's first word (digest length, key length, fanout 1, depth 1) folded into h[0],
// a key taking a whole first block of its own.
#include "filecoin/blake2b.hpp"

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "filecoin/sha256.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

constexpr uint64_t kIv[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                             0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
                             0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

inline uint64_t rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }
inline uint64_t load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Blake2b::Blake2b(size_t out_bytes, std::span<const uint8_t> key) : out_(out_bytes) {
  if (out_bytes < 1 || out_bytes > 64)
    throw InvalidArgument("BLAKE2b: a digest of " + std::to_string(out_bytes) + " bytes (1 to 64)");
  if (key.size() > 64) throw InvalidArgument("BLAKE2b: a key of " + std::to_string(key.size()) + " bytes (at most 64)");
  for (int i = 0; i < 8; ++i) h_[i] = kIv[i];
  h_[0] ^= 0x01010000ull ^ (uint64_t(key.size()) << 8) ^ uint64_t(out_bytes);
  if (!key.empty()) {
    uint8_t block[128] = {};
    std::memcpy(block, key.data(), key.size());
    update({block, sizeof block});
  }
}

void Blake2b::compress(const uint8_t* block, bool last) {
  uint64_t m[16], v[16];
  for (int i = 0; i < 16; ++i) m[i] = load64(block + 8 * i);
  for (int i = 0; i < 8; ++i) v[i] = h_[i], v[i + 8] = kIv[i];
  v[12] ^= t_[0], v[13] ^= t_[1];
  if (last) v[14] = ~v[14];
  auto g = [&](int a, int b, int c, int d, uint64_t x, uint64_t y) {
    v[a] = v[a] + v[b] + x, v[d] = rotr(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d], v[b] = rotr(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y, v[d] = rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d], v[b] = rotr(v[b] ^ v[c], 63);
  };
  for (const auto& s : kSigma) {
    g(0, 4, 8, 12, m[s[0]], m[s[1]]), g(1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(2, 6, 10, 14, m[s[4]], m[s[5]]), g(3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(0, 5, 10, 15, m[s[8]], m[s[9]]), g(1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(2, 7, 8, 13, m[s[12]], m[s[13]]), g(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h_[i] ^= v[i] ^ v[i + 8];
}

// A full buffer is compressed only when more input follows: the last block is flagged.
void Blake2b::update(std::span<const uint8_t> data) {
  const uint8_t* p = data.data();
  size_t n = data.size();
  while (n > 0) {
    if (fill_ == sizeof buf_) {
      t_[0] += sizeof buf_;
      if (t_[0] < sizeof buf_) ++t_[1];
      compress(buf_, false);
      fill_ = 0;
    }
    const size_t take = std::min(n, sizeof buf_ - fill_);
    std::memcpy(buf_ + fill_, p, take);
    fill_ += take, p += take, n -= take;
  }
}

std::array<uint8_t, 64> Blake2b::finish() {
  t_[0] += fill_;
  if (t_[0] < fill_) ++t_[1];
  std::memset(buf_ + fill_, 0, sizeof buf_ - fill_);
  compress(buf_, true);
  std::array<uint8_t, 64> out{};
  for (size_t i = 0; i < out_; ++i) out[i] = uint8_t(h_[i / 8] >> (8 * (i % 8)));
  return out;
}

std::string blake2b_512_hex(const std::string& bytes) {
  Blake2b h;
  h.update(bytes);
  const auto d = h.finish();
  return to_hex(d);
}

std::string blake2b_512_hex_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) throw FormatError(path, "cannot open");
  Blake2b h;
  std::vector<uint8_t> buf(size_t(4) << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) h.update({buf.data(), n});
  if (std::ferror(f.get())) throw FormatError(path, "read failed");
  const auto d = h.finish();
  return to_hex(d);
}

}  // namespace cuzk::filecoin
