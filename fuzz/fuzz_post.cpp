// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: a PoSt vanilla proof (bincode FallbackPoStSectorProof) and a SnapDeals
// partition proof (bincode PartitionProof) on arbitrary bytes. Only cuzk::Error may escape; a
// proof that parses holds every path index within its level and re-encodes to the same bytes.
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/post_vanilla.hpp"
#include "filecoin/update.hpp"
#include "util/error.hpp"

using namespace cuzk::filecoin;

static void require(bool ok) {
  if (!ok) __builtin_trap();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const FallbackPostSectorProof p = parse_fallback_post_sector_proof(std::span<const uint8_t>(data, size), "fuzz");
    for (const PostSectorProof& s : p.sectors)
      for (const PostMerkleProof& m : s.inclusion_proofs) {
        require(m.path.size() == m.base_levels + m.sub_levels + m.top_levels);
        for (const PorPathLevel& l : m.path) require(l.index <= l.siblings.size());
      }
    require(encode_fallback_post_sector_proof(p) == std::vector<uint8_t>(data, data + size));
  } catch (const cuzk::Error&) {
  }
  try {
    const UpdatePartitionProof p = parse_update_partition_proof(std::span<const uint8_t>(data, size), "fuzz");
    for (const UpdateChallengeProof& c : p.challenges)
      for (const PostMerkleProof* m : {&c.r_old, &c.d_new, &c.r_new}) {
        require(m->path.size() == m->base_levels + m->sub_levels + m->top_levels);
        for (const PorPathLevel& l : m->path) require(l.index <= l.siblings.size());
      }
    require(encode_update_partition_proof(p) == std::vector<uint8_t>(data, data + size));
  } catch (const cuzk::Error&) {
  }
  return 0;
}
