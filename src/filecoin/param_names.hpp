// SPDX-License-Identifier: MIT OR Apache-2.0
// The published parameter files of Filecoin's circuits (rust-fil-proofs, parameter cache version
// 28): each circuit's file stem is `v28-<prefix>-<sha256 hex of its identifier>`, the identifier
// being the circuit's public parameters as rust-fil-proofs formats them (`ParameterSetMetadata::
// identifier` of storage-proofs' stacked, fallback and update PublicParams). The files are
// `<stem>.params`, `<stem>.vk` and `<stem>.meta`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::filecoin {

enum class ProofKind { porep, window_post, winning_post, snap_deals, snap_deals_poseidon };

const char* proof_kind_name(ProofKind k);      // "porep", "window-post", ...
std::string sector_size_name(uint64_t bytes);  // "2KiB", "32GiB", ...

struct CircuitParams {
  ProofKind kind;
  uint64_t sector_size;
  std::string prefix;        // "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher"
  std::string identifier;    // the string whose SHA-256 names the file
  std::string stem() const;  // "v28-<prefix>-<sha256 hex of identifier>"
};

// The 22 published circuits: PoRep, WindowPoSt, WinningPoSt and SnapDeals at 2KiB, 8MiB, 512MiB,
// 32GiB and 64GiB, and SnapDeals' Poseidon variant at 32GiB and 64GiB, in that order by size.
std::vector<CircuitParams> published_circuits();

}  // namespace cuzk::filecoin
