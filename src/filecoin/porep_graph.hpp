// SPDX-License-Identifier: MIT OR Apache-2.0
// The StackedDRG graph of a PoRep sector (storage-proofs-porep's StackedBucketGraph): each node's
// 6 DRG parents (storage-proofs-core's BucketGraph, drawn from ChaCha8 seeded per node) and 8
// expander parents (a Feistel permutation of node * 8 + i over BLAKE2b), both keyed by the
// porep_id. The circuit's public inputs name the parents of every challenge (their tree C
// inclusion inputs), and the parent cache that sealing reads is every node's 14 parents.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "filecoin/sha256.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

using PorepId = std::array<uint8_t, 32>;

// rust-fil-proofs' ApiVersion: 1.0.0 puts the immediate predecessor last among the DRG parents,
// later versions first.
enum class ApiVersion { v1_0_0, v1_1_0, v1_2_0 };
ApiVersion parse_api_version(const std::string& s);  // "V1_0_0", "1.0.0", ...; throws InvalidArgument
const char* api_version_name(ApiVersion v);          // "V1_0_0", ...

// The porep_id of a registered seal proof (filecoin-proofs-api: the proof's enum value, u64 LE,
// then a nonce, u64 LE, then zeros): StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1 are 0..4, their
// V1_1 forms 5..9.
PorepId porep_id_of(uint64_t registered_proof, uint64_t nonce = 0);

inline constexpr size_t kGraphDrgDegree = 6, kGraphExpDegree = 8, kGraphDegree = 14;

class StackedGraph {
 public:
  // nodes: a power of two from 2 to 2^32 - 1 (throws InvalidArgument).
  StackedGraph(uint64_t nodes, const PorepId& porep_id, ApiVersion api);

  uint64_t nodes() const { return nodes_; }
  // out: the node's parents in rust-fil-proofs' order (not sorted; repeats kept).
  void drg_parents(uint32_t node, uint32_t out[kGraphDrgDegree]) const;
  void exp_parents(uint32_t node, uint32_t out[kGraphExpDegree]) const;
  void parents(uint32_t node, uint32_t out[kGraphDegree]) const {
    drg_parents(node, out), exp_parents(node, out + kGraphDrgDegree);
  }

  // "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: N;
  // degree: 6; hasher: poseidon_hasher} }"
  std::string identifier() const;
  // The parent cache file's stem, "v28-sdr-parent-<hex>" (its name in parent_cache.json).
  std::string parent_cache_name() const;
  // SHA-256 of the whole parent cache (every node's 14 parents, u32 LE): parent_cache.json's
  // digest. Nodes spread over the pool when one is given.
  Sha256::Digest parent_cache_digest(ThreadPool* pool = nullptr) const;

  const std::array<uint64_t, 4>& feistel_keys() const { return feistel_keys_; }

 private:
  uint64_t feistel(uint64_t index) const;

  uint64_t nodes_;
  ApiVersion api_;
  std::array<uint8_t, 28> drg_seed_;
  std::array<uint64_t, 4> feistel_keys_;
  uint64_t left_mask_, right_mask_, half_bits_;
};

}  // namespace cuzk::filecoin
