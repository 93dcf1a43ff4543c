// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/param_names.hpp"

#include "filecoin/sha256.hpp"

namespace cuzk::filecoin {

namespace {

constexpr uint64_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;
constexpr uint64_t kNodeBytes = 32;  // a sector's node (one Fr)

// filecoin-proofs constants.rs: the tree shape of tree R (base arity 8; sub, top arities).
const char* tree_shape(uint64_t sector) {
  if (sector == 32 * kGiB) return "merkletree-poseidon_hasher-8-8-0";
  if (sector == 64 * kGiB) return "merkletree-poseidon_hasher-8-8-2";
  return "merkletree-poseidon_hasher-8-0-0";
}

bool production(uint64_t sector) { return sector >= 32 * kGiB; }

// StackedDrg's PublicParams::identifier: a StackedGraph over a BucketGraph (degree 6, expansion
// degree 8), the layer count and the challenges per partition (interactive PoRep: 2 for the test
// sizes; 176 over 10 partitions, rounded up to 18, for 32GiB and 64GiB).
std::string porep_identifier(uint64_t sector) {
  const char* tree = tree_shape(sector);
  return "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
         "drgraph::BucketGraph{size: " +
         std::to_string(sector / kNodeBytes) +
         "; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { " +
         "layers: " + std::to_string(production(sector) ? 11 : 2) +
         ", max_count: " + std::to_string(production(sector) ? 18 : 2) + " }, tree: " + tree + " }";
}

// FallbackPoSt's PublicParams::identifier. WindowPoSt: 10 challenges per sector over the sector
// count of one partition (2349 at 32GiB, 2300 at 64GiB, else 2); WinningPoSt: 66 challenges of one
// sector each, which rust-fil-proofs sets up as 66 sectors of 1 challenge.
std::string post_identifier(uint64_t sector, uint64_t challenges, uint64_t sectors) {
  return "FallbackPoSt::PublicParams{sector_size: " + std::to_string(sector) +
         ", challenge_count: " + std::to_string(challenges) + ", sector_count: " + std::to_string(sectors) + "}";
}
uint64_t window_post_sectors(uint64_t sector) { return sector == 32 * kGiB ? 2349 : sector == 64 * kGiB ? 2300 : 2; }

std::string update_identifier(uint64_t sector) {
  return "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(sector / kNodeBytes) + " }";
}

}  // namespace

const char* proof_kind_name(ProofKind k) {
  switch (k) {
    case ProofKind::porep:
      return "porep";
    case ProofKind::window_post:
      return "window-post";
    case ProofKind::winning_post:
      return "winning-post";
    case ProofKind::snap_deals:
      return "snap-deals";
    case ProofKind::snap_deals_poseidon:
      return "snap-deals-poseidon";
  }
  return "?";
}

std::string sector_size_name(uint64_t bytes) {
  if (bytes >= kGiB && bytes % kGiB == 0) return std::to_string(bytes / kGiB) + "GiB";
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + "MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + "KiB";
  return std::to_string(bytes) + "B";
}

std::string CircuitParams::stem() const {
  auto d = sha256(identifier);
  return "v28-" + prefix + "-" + to_hex(d);
}

std::vector<CircuitParams> published_circuits() {
  std::vector<CircuitParams> out;
  for (uint64_t s : {2 * kKiB, 8 * kMiB, 512 * kMiB, 32 * kGiB, 64 * kGiB}) {
    const std::string tree = tree_shape(s);
    out.push_back(
        {ProofKind::porep, s, "stacked-proof-of-replication-" + tree + "-sha256_hasher", porep_identifier(s)});
    out.push_back({ProofKind::window_post, s, "proof-of-spacetime-fallback-" + tree,
                   post_identifier(s, 10, window_post_sectors(s))});
    out.push_back({ProofKind::winning_post, s, "proof-of-spacetime-fallback-" + tree, post_identifier(s, 1, 66)});
    out.push_back({ProofKind::snap_deals, s, "empty-sector-update-" + tree, update_identifier(s)});
    if (production(s))
      out.push_back({ProofKind::snap_deals_poseidon, s, "empty-sector-update-poseidon-" + tree, update_identifier(s)});
  }
  return out;
}

}  // namespace cuzk::filecoin
