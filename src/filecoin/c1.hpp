// SPDX-License-Identifier: MIT OR Apache-2.0
// A PoRep C1 output (filecoin-proofs-api's SealCommitPhase1Output, serde JSON or bincode): what
// Curio sends for a PoRep proof. Read into the circuit's witness, one PorepWitness per partition,
// every field checked (a C1 of 50 MB from an unknown source is untrusted input); written for
// sectors sealed here (tests, `cuzk filecoin seal`). Both forms are read into one intermediate
// (the Rust structure) that one pass checks and converts.
//   {"registered_proof": "StackedDrg2KiBV1_1", "vanilla_proofs": {"StackedDrg2KiBV1": [[proof per
//    challenge] per partition]}, "comm_r": [32 bytes], "comm_d": .., "replica_id": .., "seed": ..,
//    "ticket": ..}
//   proof: {"comm_d_proofs": MerkleProof, "comm_r_last_proof": MerkleProof, "replica_column_proofs":
//    {"c_x": ColumnProof, "drg_parents": [6], "exp_parents": [8]}, "labeling_proofs": [{"parents":
//    [37 labels], "layer_index": L, "node": N} per layer], "encoding_proof": {the last layer's}}
//   MerkleProof: {"data": {"Single": {"root", "leaf", "path": {"path": [{"hashes": [..], "index": i}]}}}}
//    or "Sub" {"base_proof", "sub_proof", "root", "leaf"} or "Top" (with "top_proof")
//   ColumnProof: {"column": {"index": node, "rows": [label per layer], "_h": null}, "inclusion_proof"}
// Bincode (bincode 1, default options): integers little-endian at their width, usize as u64, a Vec
// as a u64 length then its elements, an enum as a u32 variant tag then its fields, a struct as its
// fields in order, [u8; 32] and a domain element as its 32 bytes, PhantomData as nothing:
//   registered_proof u32 (RegisteredSealProof: 0-4 StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1,
//    5-9 V1_1, 10-14 V1_1_Feat_SyntheticPoRep, 15-19 V1_2_Feat_NonInteractivePoRep),
//   vanilla_proofs u32 (VanillaSealProof: 0-4 StackedDrg<size>V1) then Vec<Vec<Proof>>,
//   comm_r 32, comm_d 32, replica_id 32, seed 32, ticket 32
//   Proof: comm_d_proofs MerkleProof, comm_r_last_proof MerkleProof, replica_column_proofs {c_x
//    ColumnProof, drg_parents Vec<ColumnProof>, exp_parents Vec<ColumnProof>}, labeling_proofs
//    Vec<LabelingProof>, encoding_proof LabelingProof
//   MerkleProof: u32 0 Single {root, leaf, path}, 1 Sub {base_proof, sub_proof, root, leaf},
//    2 Top {base_proof, sub_proof, top_proof, root, leaf}; a path Vec<{hashes Vec<32>, index u64}>
//   ColumnProof: index u32, rows Vec<32>, inclusion_proof MerkleProof
//   LabelingProof (and EncodingProof): parents Vec<32>, layer_index u32, node u64
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "filecoin/porep_challenges.hpp"
#include "filecoin/porep_circuit.hpp"
#include "filecoin/records.hpp"
#include "filecoin/seal.hpp"

namespace cuzk::filecoin {

// filecoin-proofs-api's RegisteredSealProof: its name, the sector, the porep_id's proof number
// (the feature forms share their V1_1 form's), the API version and the challenge kind.
struct SealProofType {
  std::string name;
  uint64_t sector_size = 0;
  uint64_t porep_proof_id = 0;
  ApiVersion api = ApiVersion::v1_1_0;
  PorepChallengeKind kind = PorepChallengeKind::interactive;
  // "StackedDrg2KiBV1": the key of C1's vanilla_proofs.
  std::string vanilla_key() const;
};
// Throws InvalidArgument naming the known forms.
SealProofType seal_proof_type(const std::string& name);

struct C1Output {
  SealProofType proof;
  PorepCircuitConfig config;  // one partition's circuit (nodes, layers, challenges, trees)
  Bytes32 comm_r{}, comm_d{}, replica_id{}, seed{}, ticket{};
  std::vector<PorepWitness> partitions;  // the circuit's witness of each partition
  std::vector<std::vector<uint64_t>> challenges;
};

// Parses and checks a C1 output (JSON): the structure, every 32-byte value canonical, every path of
// the sector's tree shape, every proof's roots those of the first, its data and comm_r_last
// paths opening its challenge, comm_r = Poseidon2(comm_c, comm_r_last). Throws FormatError naming
// `path` and the member ("vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3]...").
C1Output parse_c1(const std::string& path, const std::string& text);
// The same from its bincode form, with the same checks; errors name the member as the JSON reader
// does and the offset it starts at ("vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs at offset N: ...").
C1Output parse_c1_bincode(const std::string& path, std::span<const uint8_t> bytes);
// JSON when the first byte that is not white space is '{', else bincode.
C1Output parse_c1_any(const std::string& path, std::span<const uint8_t> bytes);
// A file of either form.
C1Output read_c1(const std::string& path);

// The C1 output of a sector sealed here, for the given challenges of each partition.
std::string c1_json(const SealedSector& s, const SealProofType& proof, const Bytes32& seed, const Bytes32& ticket,
                    const StackedGraph& graph, const std::vector<std::vector<uint64_t>>& partition_challenges);
// The same output in bincode.
std::vector<uint8_t> c1_bincode(const SealedSector& s, const SealProofType& proof, const Bytes32& seed,
                                const Bytes32& ticket, const StackedGraph& graph,
                                const std::vector<std::vector<uint64_t>>& partition_challenges);

}  // namespace cuzk::filecoin
