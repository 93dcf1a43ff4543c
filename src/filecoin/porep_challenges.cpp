// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/porep_challenges.hpp"

#include "filecoin/blake2b.hpp"
#include "filecoin/chacha.hpp"
#include "filecoin/sha256.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

using Limbs = PoseidonFr::Limbs;

// A 256-bit little-endian integer mod (nodes - 1), plus 1: a node other than 0.
uint64_t to_challenge(std::span<const uint8_t, 32> le, uint64_t nodes) {
  const uint64_t m = nodes - 1;
  unsigned __int128 r = 0;
  for (int limb = 3; limb >= 0; --limb) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | le[size_t(limb * 8 + i)];
    r = ((r << 64) | v) % m;
  }
  return uint64_t(r) + 1;
}

void check_nodes(uint64_t nodes) {
  if (nodes < 2 || nodes > 0xffffffffull)
    throw InvalidArgument("porep challenges: " + std::to_string(nodes) + " nodes (2 to 2^32 - 1)");
}

Bytes32 blake2b_256_keyed(const std::string& key, const Bytes32& a, const Bytes32& b) {
  Blake2b h(32, {reinterpret_cast<const uint8_t*>(key.data()), key.size()});
  h.update(a);
  h.update(b);
  const auto d = h.finish();
  Bytes32 out;
  std::copy_n(d.begin(), 32, out.begin());
  return out;
}

constexpr uint8_t kSynthNonce[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

}  // namespace

Bytes32 fr_to_bytes(const PoseidonFr& x) {
  const Limbs v = x.to_std();
  Bytes32 b;
  for (int i = 0; i < 32; ++i) b[size_t(i)] = uint8_t(v.v[i / 8] >> (8 * (i % 8)));
  return b;
}

PoseidonFr fr_from_bytes(std::span<const uint8_t, 32> b, const std::string& what) {
  Limbs v{};
  for (int i = 31; i >= 0; --i) v.v[i / 8] = (v.v[i / 8] << 8) | b[size_t(i)];
  for (int i = PoseidonFr::N - 1; i >= 0; --i)
    if (v.v[i] != PoseidonFr::mod(i)) {
      if (v.v[i] > PoseidonFr::mod(i)) break;
      return PoseidonFr::from_std(v);
    }
  throw InvalidArgument(what + ": " + to_hex(b) + " (little-endian) is not below BLS12-381's r");
}

Bytes32 replica_id_of(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                      const PorepId& porep_id) {
  Sha256 h;
  h.update(prover_id);
  uint8_t be[8];
  for (int i = 0; i < 8; ++i) be[i] = uint8_t(sector_id >> (56 - 8 * i));
  h.update(be);
  h.update(ticket);
  h.update(comm_d);
  h.update(porep_id);
  Bytes32 r = h.finish();
  r[31] &= 0x3f;
  return r;
}

namespace {

// Challenge j = per_partition * k + i: SHA-256(head || j u32 LE) as a node (1 .. nodes - 1).
std::vector<uint64_t> hashed_challenges(uint64_t nodes, const Sha256& head, size_t per_partition, size_t k) {
  check_nodes(nodes);
  std::vector<uint64_t> out;
  for (size_t i = 0; i < per_partition; ++i) {
    const uint32_t j = uint32_t(per_partition * k + i);
    const uint8_t le[4] = {uint8_t(j), uint8_t(j >> 8), uint8_t(j >> 16), uint8_t(j >> 24)};
    Sha256 h = head;
    h.update(le);
    out.push_back(to_challenge(h.finish(), nodes));
  }
  return out;
}

}  // namespace

std::vector<uint64_t> interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed,
                                             size_t per_partition, size_t k) {
  Sha256 head;
  head.update(replica_id);
  head.update(seed);
  return hashed_challenges(nodes, head, per_partition, k);
}

std::vector<uint64_t> non_interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                 size_t per_partition, size_t k) {
  Sha256 head;
  head.update(std::string("filecoin.io|PoRep|1|NonInteractive|1"));
  head.update(replica_id);
  head.update(comm_r);
  return hashed_challenges(nodes, head, per_partition, k);
}

SyntheticChallenges::SyntheticChallenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                         uint64_t count)
    : nodes_(nodes),
      count_(count ? count : std::min<uint64_t>(nodes, uint64_t(1) << 18)),
      replica_id_(replica_id),
      key_(blake2b_256_keyed("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r)) {
  check_nodes(nodes);
}

uint64_t SyntheticChallenges::challenge(uint64_t i) const {
  if (i >= count_) throw InvalidArgument("synthetic challenge " + std::to_string(i) + " of " + std::to_string(count_));
  ChaCha20 c(key_, kSynthNonce);
  c.seek(i * 32);
  Bytes32 r;
  c.keystream(r);
  return to_challenge(r, nodes_);
}

std::vector<uint64_t> SyntheticChallenges::indexes(const Bytes32& seed, size_t per_partition, size_t k) const {
  ChaCha20 c(blake2b_256_keyed("filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id_, seed), kSynthNonce);
  c.seek(uint64_t(k) * per_partition * 4);
  std::vector<uint8_t> r(per_partition * 4);
  c.keystream(r);
  std::vector<uint64_t> out;
  for (size_t i = 0; i < per_partition; ++i) {
    const uint32_t v =
        uint32_t(r[4 * i]) | uint32_t(r[4 * i + 1]) << 8 | uint32_t(r[4 * i + 2]) << 16 | uint32_t(r[4 * i + 3]) << 24;
    out.push_back(v % count_);
  }
  return out;
}

std::vector<uint64_t> SyntheticChallenges::partition(const Bytes32& seed, size_t per_partition, size_t k) const {
  std::vector<uint64_t> out;
  for (uint64_t i : indexes(seed, per_partition, k)) out.push_back(challenge(i));
  return out;
}

std::vector<PoseidonFr> porep_public_inputs(const StackedGraph& graph, const Bytes32& replica_id, const Bytes32& comm_d,
                                            const Bytes32& comm_r, std::span<const uint64_t> challenges) {
  std::vector<PoseidonFr> in;
  in.reserve(3 + challenges.size() * (4 + kGraphDegree));
  in.push_back(fr_from_bytes(replica_id, "replica_id"));
  in.push_back(fr_from_bytes(comm_d, "comm_d"));
  in.push_back(fr_from_bytes(comm_r, "comm_r"));
  for (uint64_t c : challenges) {
    if (c >= graph.nodes())
      throw InvalidArgument("porep challenge " + std::to_string(c) + " of a " + std::to_string(graph.nodes()) +
                            "-node sector");
    const auto node = PoseidonFr::from_u64(c);
    in.push_back(node);  // tree D inclusion: the path bits packed are the index
    uint32_t p[kGraphDegree];
    graph.parents(uint32_t(c), p);
    for (uint32_t x : p) in.push_back(PoseidonFr::from_u64(x));
    in.push_back(node);  // the challenge as a u64
    in.push_back(node);  // tree R inclusion
    in.push_back(node);  // tree C inclusion of the challenge's own column
  }
  return in;
}

}  // namespace cuzk::filecoin
