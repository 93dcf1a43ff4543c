// A PoRep C1 output (filecoin-proofs-api's SealCommitPhase1Output, serde JSON): what Curio sends
// for a PoRep proof. Read into the circuit's witness, one PorepWitness per partition, every field
// checked (a C1 of 50 MB from an unknown source is untrusted input); written for sectors sealed
// here (tests, `cuzk filecoin seal`).
//   {"registered_proof": "StackedDrg2KiBV1_1", "vanilla_proofs": {"StackedDrg2KiBV1": [[proof per
//    challenge] per partition]}, "comm_r": [32 bytes], "comm_d": .., "replica_id": .., "seed": ..,
//    "ticket": ..}
//   proof: {"comm_d_proofs": MerkleProof, "comm_r_last_proof": MerkleProof, "replica_column_proofs":
//    {"c_x": ColumnProof, "drg_parents": [6], "exp_parents": [8]}, "labeling_proofs": [{"parents":
//    [37 labels], "layer_index": L, "node": N} per layer], "encoding_proof": {the last layer's}}
//   MerkleProof: {"data": {"Single": {"root", "leaf", "path": {"path": [{"hashes": [..], "index": i}]}}}}
//    or "Sub" {"base_proof", "sub_proof", "root", "leaf"} or "Top" (with "top_proof")
//   ColumnProof: {"column": {"index": node, "rows": [label per layer], "_h": null}, "inclusion_proof"}
#pragma once
#include <cstdint>
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

// Parses and checks a C1 output: the structure, every 32-byte value canonical, every path of
// the sector's tree shape, every proof's roots those of the first, its data and comm_r_last
// paths opening its challenge, comm_r = Poseidon2(comm_c, comm_r_last). Throws FormatError naming
// `path` and the member ("vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3]...").
C1Output parse_c1(const std::string& path, const std::string& text);
C1Output read_c1(const std::string& path);

// The C1 output of a sector sealed here, for the given challenges of each partition.
std::string c1_json(const SealedSector& s, const SealProofType& proof, const Bytes32& seed, const Bytes32& ticket,
                    const StackedGraph& graph, const std::vector<std::vector<uint64_t>>& partition_challenges);

}  // namespace cuzk::filecoin
