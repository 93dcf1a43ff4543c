// SPDX-License-Identifier: MIT OR Apache-2.0
// Fallback PoSt's vanilla side: the PoSt challenges (storage-proofs-post fallback/vanilla.rs,
// utils.rs), a sector's vanilla proof as filecoin-proofs serializes it (bincode
// FallbackPoStSectorProof), the public data Lotus and Curio keep beside it (JSON: randomness,
// challenged sectors with their sealed CIDs, prover), and the check of one against the other
// (`cuzk filecoin check-post`).
//
// Bincode (bincode 1, default options): integers little-endian at their width, usize as u64,
// sequences as a u64 length then the elements, enum variants as a u32 tag then the fields, structs
// as their fields in order, a 32-byte domain element as its 32 bytes (Fr little-endian).
//   FallbackPoStSectorProof = sector_id u64, comm_r 32, vanilla_proof: Proof
//   Proof = sectors: Vec<SectorProof>
//   SectorProof = inclusion_proofs: Vec<MerkleProof>, comm_c 32, comm_r_last 32
//   MerkleProof = tag u32: 0 Single{root, leaf, path}, 1 Sub{base_proof, sub_proof, root, leaf},
//                          2 Top{base_proof, sub_proof, top_proof, root, leaf}
//   InclusionPath = Vec<PathElement>;  PathElement = hashes: Vec<32>, index u64
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "filecoin/por_circuit.hpp"
#include "filecoin/poseidon.hpp"

namespace cuzk::filecoin {

// get_challenge_index's versions: up to 1.1 the challenge index runs on over the sectors
// (sector_index * challenges + n); from 1.2 each sector's challenges are numbered from 0.
enum class PostApiVersion { v1_0, v1_1, v1_2 };

inline uint64_t post_challenge_index(PostApiVersion v, uint64_t sector_index, uint64_t challenges_per_sector,
                                     uint64_t n) {
  return v == PostApiVersion::v1_2 ? n : sector_index * challenges_per_sector + n;
}

// generate_leaf_challenge: SHA-256(randomness ‖ sector_id u64 LE ‖ challenge_index u64 LE), its
// first 8 bytes as a u64 LE, modulo the sector's leaves.
uint64_t post_leaf_challenge(const std::array<uint8_t, 32>& randomness, uint64_t sector_id, uint64_t challenge_index,
                             uint64_t leaves);

// One MerkleProof: its variant, root and leaf, and its path's levels in order (base levels, then
// the sub level, then the top level) with how many each part has.
struct PostMerkleProof {
  enum Kind : uint32_t { single = 0, sub = 1, top = 2 };
  Kind kind = single;
  PoseidonFr root = PoseidonFr::zero(), leaf = PoseidonFr::zero();
  std::vector<PorPathLevel> path;
  size_t base_levels = 0, sub_levels = 0, top_levels = 0;
};

struct PostSectorProof {
  std::vector<PostMerkleProof> inclusion_proofs;
  PoseidonFr comm_c = PoseidonFr::zero(), comm_r_last = PoseidonFr::zero();
};

struct FallbackPostSectorProof {
  uint64_t sector_id = 0;
  PoseidonFr comm_r = PoseidonFr::zero();
  std::vector<PostSectorProof> sectors;  // vanilla_proof.sectors
};

// Parses bincode bytes; every length, tag, index and field element is checked (untrusted input):
// throws FormatError(what, "<field> at offset N: ...") on anything malformed, truncated or trailing.
FallbackPostSectorProof parse_fallback_post_sector_proof(std::span<const uint8_t> bytes, const std::string& what);

// The bincode bytes of a proof (the parser's inverse: what filecoin-proofs writes).
std::vector<uint8_t> encode_fallback_post_sector_proof(const FallbackPostSectorProof& p);

// A vanilla proof file's bytes (a regular file of at most 64 MiB); throws FormatError naming it.
std::vector<uint8_t> read_post_vproof_bytes(const std::string& path);

// The public data of a PoSt (Lotus' / Curio's JSON): {"Randomness": base64 of 32 bytes, "Proofs":
// [{"PoStProof": N, "ProofBytes": null | base64}], "ChallengedSectors": [{"SealProof": N,
// "SectorNumber": N, "SealedCID": {"/": CID}}], "Prover": N}.
struct PostPublicSector {
  uint64_t seal_proof = 0, sector_number = 0;
  PoseidonFr comm_r = PoseidonFr::zero();  // from the sealed CID
};
struct PostPublicData {
  std::array<uint8_t, 32> randomness{};
  std::vector<uint64_t> post_proofs;
  std::vector<PostPublicSector> sectors;
  uint64_t prover = 0;
};
// Throws FormatError(path, ...) naming the field at fault.
PostPublicData parse_post_public_json(const std::string& path);

// comm_r from a sealed CID as Filecoin writes it: multibase 'b' (RFC 4648 base32, lower case, no
// padding), CIDv1, codec fil-commitment-sealed (0xf102), multihash poseidon-bls12_381-a2-fc1
// (0x1012) of 32 bytes: the digest is comm_r's little-endian bytes. Throws InvalidArgument.
PoseidonFr sealed_cid_comm_r(const std::string& cid);

// The sealed CID of comm_r (sealed_cid_comm_r's inverse).
std::string sealed_cid_of(const PoseidonFr& comm_r);
// RFC 4648 base64 with padding (the public data's Randomness).
std::string base64_encode(std::span<const uint8_t> b);

// A field element from its 32 little-endian bytes; throws InvalidArgument (naming `what`) unless
// the value is below r.
PoseidonFr post_fr_from_le(std::span<const uint8_t> b, const std::string& what);

// What a registered proof number means for a PoSt check.
struct SealProofInfo {
  uint64_t sector_bytes = 0;
  std::string name;  // "StackedDrg32GiBV1_1"
};
// RegisteredSealProof 0..19 (V1, V1_1, V1_1 with SyntheticPoRep, V1_2 NonInteractivePoRep, each
// 2KiB, 8MiB, 512MiB, 32GiB, 64GiB); throws InvalidArgument for another number.
SealProofInfo seal_proof_info(uint64_t n);
struct PostProofInfo {
  uint64_t sector_bytes = 0;
  bool winning = false;
  PostApiVersion api = PostApiVersion::v1_0;
  std::string name;  // "StackedDrgWindow32GiBV1"
};
// RegisteredPoStProof 0..14 (Winning V1, Window V1, Window V1_1 — the last with api 1.2's
// challenges); throws InvalidArgument for another number.
PostProofInfo post_proof_info(uint64_t n);

// check-post: each step in order, stopping at the first failure.
struct PostCheckResult {
  std::vector<std::string> passed;  // one line per check that held
  std::string failure;              // empty when every check held
};
PostCheckResult check_fallback_post(const FallbackPostSectorProof& proof, const PostPublicData& pub);

}  // namespace cuzk::filecoin
