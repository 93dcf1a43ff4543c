// SPDX-License-Identifier: MIT OR Apache-2.0
// A PoRep's public data as storage-proofs-porep derives it: the replica_id, the challenged nodes
// of each partition (interactive: from the seed; synthetic: a seed's choice among 2^18 challenges
// drawn with ChaCha20; non-interactive: from comm_r alone), and the public inputs of one
// partition's circuit (StackedCircuit::generate_public_inputs).
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "filecoin/porep_graph.hpp"
#include "filecoin/poseidon.hpp"

namespace cuzk::filecoin {

using Bytes32 = std::array<uint8_t, 32>;

// An Fr's 32 little-endian bytes (the Domain's bytes) and back; the latter throws InvalidArgument
// naming `what` unless the value is below r.
Bytes32 fr_to_bytes(const PoseidonFr& x);
PoseidonFr fr_from_bytes(std::span<const uint8_t, 32> b, const std::string& what);

// SHA-256(prover_id || sector_id u64 BE || ticket || comm_d || porep_id), its top two bits
// cleared (bytes_into_fr_repr_safe): a canonical Fr.
Bytes32 replica_id_of(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                      const PorepId& porep_id);

enum class PorepChallengeKind { interactive, synthetic, non_interactive };

// The challenged nodes (1 .. nodes - 1) of partition k, `per_partition` of them.
std::vector<uint64_t> interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed,
                                             size_t per_partition, size_t k);
std::vector<uint64_t> non_interactive_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                 size_t per_partition, size_t k);

// Synthetic PoRep: min(nodes, 2^18) challenges drawn once from (replica_id, comm_r); a seed picks
// each partition's among them.
class SyntheticChallenges {
 public:
  SyntheticChallenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                      uint64_t count = 0 /* 0: min(nodes, 2^18) */);
  uint64_t count() const { return count_; }
  uint64_t challenge(uint64_t i) const;  // the i-th synthetic challenge
  std::vector<uint64_t> indexes(const Bytes32& seed, size_t per_partition, size_t k) const;
  std::vector<uint64_t> partition(const Bytes32& seed, size_t per_partition, size_t k) const;

 private:
  uint64_t nodes_, count_;
  Bytes32 replica_id_, key_;
};

// The public inputs of one partition of the StackedDRG circuit, ONE excluded, in the circuit's
// order: replica_id, comm_d, comm_r, then per challenge its tree D index, its 6 DRG and 8
// expander parents (their tree C indexes), the challenge, and its tree R and tree C indexes.
std::vector<PoseidonFr> porep_public_inputs(const StackedGraph& graph, const Bytes32& replica_id, const Bytes32& comm_d,
                                            const Bytes32& comm_r, std::span<const uint64_t> challenges);

}  // namespace cuzk::filecoin
