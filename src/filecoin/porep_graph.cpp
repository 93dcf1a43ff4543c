// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/porep_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "filecoin/blake2b.hpp"
#include "filecoin/chacha.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

// SHA-256(tag || porep_id): storage-proofs-core's derive_porep_domain_seed.
Sha256::Digest domain_seed(const std::string& tag, const PorepId& porep_id) {
  Sha256 h;
  h.update(tag);
  h.update(porep_id);
  return h.finish();
}

uint64_t load64le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

ApiVersion parse_api_version(const std::string& s) {
  if (s == "V1_0_0" || s == "1.0.0") return ApiVersion::v1_0_0;
  if (s == "V1_1_0" || s == "1.1.0") return ApiVersion::v1_1_0;
  if (s == "V1_2_0" || s == "1.2.0") return ApiVersion::v1_2_0;
  throw InvalidArgument("api version '" + s + "': expected V1_0_0, V1_1_0 or V1_2_0");
}

const char* api_version_name(ApiVersion v) {
  switch (v) {
    case ApiVersion::v1_0_0:
      return "V1_0_0";
    case ApiVersion::v1_1_0:
      return "V1_1_0";
    case ApiVersion::v1_2_0:
      return "V1_2_0";
  }
  return "?";
}

PorepId porep_id_of(uint64_t registered_proof, uint64_t nonce) {
  PorepId id{};
  for (int i = 0; i < 8; ++i) id[i] = uint8_t(registered_proof >> (8 * i)), id[8 + i] = uint8_t(nonce >> (8 * i));
  return id;
}

StackedGraph::StackedGraph(uint64_t nodes, const PorepId& porep_id, ApiVersion api) : nodes_(nodes), api_(api) {
  if (nodes < 2 || nodes > 0xffffffffull || (nodes & (nodes - 1)))
    throw InvalidArgument("porep graph: " + std::to_string(nodes) + " nodes (a power of two from 2 to 2^31)");
  const auto drg = domain_seed("Filecoin_DRSample", porep_id);
  std::copy_n(drg.begin(), drg_seed_.size(), drg_seed_.begin());
  const auto fk = domain_seed("Filecoin_Feistel", porep_id);
  for (int i = 0; i < 4; ++i) feistel_keys_[i] = load64le(fk.data() + 8 * i);
  // The fewest pairs of bits, at least one, whose 4^k covers nodes * 8 indices.
  const uint64_t elements = nodes * kGraphExpDegree;
  uint64_t next_pow4 = 4, log4 = 1;
  while (next_pow4 < elements) next_pow4 *= 4, ++log4;
  left_mask_ = ((uint64_t(1) << log4) - 1) << log4;
  right_mask_ = (uint64_t(1) << log4) - 1;
  half_bits_ = log4;
}

void StackedGraph::drg_parents(uint32_t node, uint32_t out[kGraphDrgDegree]) const {
  constexpr uint64_t m_prime = kGraphDrgDegree - 1;
  if (node < 2) {  // node 0 refers to itself, node 1 to node 0
    std::fill_n(out, kGraphDrgDegree, 0u);
    return;
  }
  std::array<uint8_t, 32> seed{};
  std::copy(drg_seed_.begin(), drg_seed_.end(), seed.begin());
  for (int i = 0; i < 4; ++i) seed[28 + i] = uint8_t(node >> (8 * i));
  ChaCha8Rng rng(seed);
  const uint64_t meta = uint64_t(node) * m_prime;
  const uint64_t n_buckets = uint64_t(std::ceil(std::log2(double(meta))));
  const size_t predecessor = api_ == ApiVersion::v1_0_0 ? m_prime : 0;
  uint32_t* others = api_ == ApiVersion::v1_0_0 ? out : out + 1;
  for (size_t k = 0; k < m_prime; ++k) {
    const uint64_t bucket = rng.next_u64() % n_buckets + 1;
    const uint64_t largest = std::min(meta, uint64_t(1) << bucket);
    const uint64_t smallest = std::max<uint64_t>(2, largest >> 1);
    const uint64_t distance = smallest + rng.next_u64() % (largest - smallest + 1);
    const uint32_t mapped = uint32_t((meta - distance) / m_prime);
    others[k] = mapped == node ? node - 1 : mapped;
  }
  out[predecessor] = node - 1;
}

// Three rounds of a balanced Feistel network over 2 * half_bits bits; the round function is the
// first 8 bytes (big-endian) of BLAKE2b-512(right BE || key BE), masked.
uint64_t StackedGraph::feistel(uint64_t index) const {
  uint64_t left = (index & left_mask_) >> half_bits_, right = index & right_mask_;
  for (int r = 0; r < 3; ++r) {
    uint8_t data[16];
    for (int i = 0; i < 8; ++i)
      data[i] = uint8_t(right >> (56 - 8 * i)), data[8 + i] = uint8_t(feistel_keys_[r] >> (56 - 8 * i));
    Blake2b h;
    h.update(data);
    const auto d = h.finish();
    uint64_t f = 0;
    for (int i = 0; i < 8; ++i) f = (f << 8) | d[i];
    const uint64_t next_right = left ^ (f & right_mask_);
    left = right, right = next_right;
  }
  return (left << half_bits_) | right;
}

void StackedGraph::exp_parents(uint32_t node, uint32_t out[kGraphExpDegree]) const {
  const uint64_t elements = nodes_ * kGraphExpDegree;
  for (size_t i = 0; i < kGraphExpDegree; ++i) {
    uint64_t u = feistel(uint64_t(node) * kGraphExpDegree + i);
    while (u >= elements) u = feistel(u);  // cycle-walk into the domain
    // 1.0.0 truncates the permuted index to 32 bits before dividing (it differs from 2^29 nodes on).
    out[i] = api_ == ApiVersion::v1_0_0 ? uint32_t(u) / uint32_t(kGraphExpDegree) : uint32_t(u / kGraphExpDegree);
  }
}

std::string StackedGraph::identifier() const {
  return "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: " +
         std::to_string(nodes_) + "; degree: 6; hasher: poseidon_hasher} }";
}

std::string StackedGraph::parent_cache_name() const {
  Sha256 h;
  h.update(std::string("poseidon_hasher"));
  h.update(identifier());
  for (uint64_t k : feistel_keys_) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = uint8_t(k >> (8 * i));
    h.update(b);
  }
  const uint32_t entries = uint32_t(nodes_);
  const uint8_t e[4] = {uint8_t(entries), uint8_t(entries >> 8), uint8_t(entries >> 16), uint8_t(entries >> 24)};
  h.update(e);
  return "v28-sdr-parent-" + to_hex(h.finish());
}

Sha256::Digest StackedGraph::parent_cache_digest(ThreadPool* pool) const {
  // Chunks of nodes made in parallel, hashed in order.
  constexpr uint64_t kChunk = uint64_t(1) << 16;
  const uint64_t chunks = (nodes_ + kChunk - 1) / kChunk;
  const size_t batch = pool ? std::max<size_t>(1, pool->size() * 2) : 1;
  std::vector<std::vector<uint8_t>> bufs(batch);
  Sha256 h;
  for (uint64_t c0 = 0; c0 < chunks; c0 += batch) {
    const size_t nb = size_t(std::min<uint64_t>(batch, chunks - c0));
    auto fill = [&](size_t b, size_t e) {
      for (size_t j = b; j < e; ++j) {
        const uint64_t first = (c0 + j) * kChunk, n = std::min(kChunk, nodes_ - first);
        std::vector<uint8_t>& buf = bufs[j];
        buf.resize(n * kGraphDegree * 4);
        uint32_t p[kGraphDegree];
        for (uint64_t i = 0; i < n; ++i) {
          parents(uint32_t(first + i), p);
          for (size_t k = 0; k < kGraphDegree; ++k)
            for (int s = 0; s < 4; ++s) buf[(i * kGraphDegree + k) * 4 + s] = uint8_t(p[k] >> (8 * s));
        }
      }
    };
    if (pool)
      pool->parallel_for(nb, fill);
    else
      fill(0, nb);
    for (size_t j = 0; j < nb; ++j) h.update(bufs[j]);
  }
  return h.finish();
}

}  // namespace cuzk::filecoin
