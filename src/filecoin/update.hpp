// SPDX-License-Identifier: MIT OR Apache-2.0
// SnapDeals' vanilla side (storage-proofs-update vanilla.rs): a sector updated with new data as
// EmptySectorUpdate encodes it, each partition's vanilla proof (PartitionProof, bincode as
// filecoin-proofs-api passes it), and the circuit's witness of a partition from its vanilla
// proof, every part of it checked against the public data.
//   encoding   replica_new[n] = replica_old[n] + data_new[n] · rho(n >> (challenge_bits - h)),
//              rho(high) = H(phi, high), phi = H(comm_d_new, comm_r_old) (Poseidon-2, custom tag 1)
//   trees      tree D new: binary SHA-256 over data_new (comm_d_new); tree R new: Poseidon over
//              replica_new of tree R's shape; comm_r_new = Poseidon2(comm_c, root_r_new)
// Bincode: PartitionProof = comm_c 32, apex_leafs: Vec<32>, challenge_proofs: Vec<ChallengeProof>;
// ChallengeProof = proof_r_old, proof_d_new, proof_r_new (MerkleProof, post_vanilla.hpp's form).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "filecoin/post_circuit.hpp"
#include "filecoin/post_vanilla.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/update_circuit.hpp"

namespace cuzk::filecoin {

struct UpdatedSector {
  UpdateCircuitConfig config;
  size_t h = 0;
  std::vector<PoseidonFr> replica_old, data_new, replica_new;
  StoredTree tree_r_old, tree_d_new, tree_r_new;
  PoseidonFr comm_c = PoseidonFr::zero(), comm_r_old = PoseidonFr::zero(), comm_d_new = PoseidonFr::zero(),
             comm_r_new = PoseidonFr::zero();
};

// Encodes data_new into a replica (replica_old: tree R old's leaves; comm_c: its tree C root).
// Throws InvalidArgument on sizes that do not fit the config or an h it does not allow.
UpdatedSector update_sector(const UpdateCircuitConfig& c, size_t h, std::vector<PoseidonFr> replica_old,
                            const PoseidonFr& comm_c, std::vector<PoseidonFr> data_new, ThreadPool* pool = nullptr);

struct UpdateChallengeProof {
  PostMerkleProof r_old, d_new, r_new;
};
struct UpdatePartitionProof {
  PoseidonFr comm_c = PoseidonFr::zero();
  std::vector<PoseidonFr> apex_leaves;
  std::vector<UpdateChallengeProof> challenges;
};

// Partition k's vanilla proof (the prover's side: its challenges' three Merkle proofs).
UpdatePartitionProof update_partition_proof(const UpdatedSector& s, size_t k);
std::vector<uint8_t> encode_update_partition_proof(const UpdatePartitionProof& p);
// Every length, tag and field element checked: throws FormatError(what, "<field> at offset N: ...").
UpdatePartitionProof parse_update_partition_proof(std::span<const uint8_t> bytes, const std::string& what);

// The circuit's witness of partition k: each challenge's three proofs open the challenge
// update_challenges gives, under roots that agree (tree R old and new: comm_r_old / comm_r_new =
// Poseidon2(comm_c, root); tree D new: comm_d_new), with leaf_r_new = leaf_r_old + leaf_d_new ·
// rho; the apex leaves those of the partition's tree D paths. Throws InvalidArgument naming `what`
// and the challenge at fault.
UpdateWitness update_witness_of(const UpdateCircuitConfig& c, size_t k, size_t h, const PoseidonFr& comm_r_old,
                                const PoseidonFr& comm_d_new, const PoseidonFr& comm_r_new,
                                const UpdatePartitionProof& p, const std::string& what);

}  // namespace cuzk::filecoin
