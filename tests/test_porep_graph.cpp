// SPDX-License-Identifier: MIT OR Apache-2.0
// The PoRep graph and public data against rust-fil-proofs' own answers: the parent caches'
// names and SHA-256 digests that storage-proofs-porep/parent_cache.json publishes (every node's
// 14 parents: the DRG parents from ChaCha8, the expander parents from the Feistel network over
// BLAKE2b), synthetic PoRep's hard-coded challenges (ChaCha20, keyed BLAKE2b), and the shape of
// the interactive challenges and of a partition's public inputs.
#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "filecoin/chacha.hpp"
#include "filecoin/porep_challenges.hpp"
#include "filecoin/porep_graph.hpp"
#include "filecoin/sha256.hpp"
#include "testing.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::test {
namespace {

using namespace cuzk::filecoin;

// storage-proofs-porep/parent_cache.json (rust-fil-proofs 87348a74): cache name -> digest.
const std::map<std::string, std::string>& published_parent_caches() {
  static const std::map<std::string, std::string> m = {
      {"v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117",
       "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da"},
      {"v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42",
       "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5"},
      {"v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
       "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
      {"v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b",
       "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03"},
      {"v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
       "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
      {"v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
       "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"},
      {"v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34",
       "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a"},
      {"v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6",
       "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c"},
      {"v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
       "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"},
      {"v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13",
       "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6"},
  };
  return m;
}

// The registered seal proofs: StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1 (ids 0..4, API 1.0.0)
// and V1_1 (5..9, API 1.1.0).
struct SealProof {
  uint64_t id, nodes;
  ApiVersion api;
};
constexpr SealProof kSealProofs[] = {
    {0, 64, ApiVersion::v1_0_0},         {1, 1 << 18, ApiVersion::v1_0_0},    {2, 1 << 24, ApiVersion::v1_0_0},
    {3, 1u << 30, ApiVersion::v1_0_0},   {4, 1ull << 31, ApiVersion::v1_0_0}, {5, 64, ApiVersion::v1_1_0},
    {6, 1 << 18, ApiVersion::v1_1_0},    {7, 1 << 24, ApiVersion::v1_1_0},    {8, 1u << 30, ApiVersion::v1_1_0},
    {9, 1ull << 31, ApiVersion::v1_1_0},
};

// Every published cache is named by one of the ten seal proofs.
CUZK_TEST(parent_cache_names_are_the_published_ones) {
  std::vector<std::string> names;
  for (const SealProof& p : kSealProofs) {
    const StackedGraph g(p.nodes, porep_id_of(p.id), p.api);
    names.push_back(g.parent_cache_name());
    CHECK_MSG(published_parent_caches().count(names.back()) == 1, "proof " << p.id << ": " << names.back());
  }
  std::sort(names.begin(), names.end());
  CHECK(std::unique(names.begin(), names.end()) == names.end());
}

// The whole cache's digest at 2KiB and 8MiB, for both API versions: every parent of every node.
CUZK_TEST(parent_cache_digests_match_2kib_and_8mib) {
  ThreadPool pool;
  for (const SealProof& p : kSealProofs) {
    if (p.nodes > (1 << 18)) continue;
    const StackedGraph g(p.nodes, porep_id_of(p.id), p.api);
    const std::string got = to_hex(g.parent_cache_digest(&pool));
    CHECK_MSG(got == published_parent_caches().at(g.parent_cache_name()), "proof " << p.id << ": " << got);
  }
}

// The shape of the graph: DRG parents before the node with the predecessor where the API puts it;
// the expander parents a permutation of node * 8 + i, so every node is an expander parent 8 times.
CUZK_TEST(graph_structure) {
  for (ApiVersion api : {ApiVersion::v1_0_0, ApiVersion::v1_1_0}) {
    const uint64_t n = 1 << 12;
    const StackedGraph g(n, porep_id_of(77), api);
    std::vector<uint32_t> times(n);
    for (uint32_t v = 0; v < n; ++v) {
      uint32_t d[6], e[8];
      g.drg_parents(v, d), g.exp_parents(v, e);
      if (v >= 2) {
        CHECK_EQ(d[api == ApiVersion::v1_0_0 ? 5 : 0], v - 1);
        for (uint32_t x : d) CHECK(x < v);
      }
      for (uint32_t x : e) {
        CHECK(x < n);
        ++times[x];
      }
    }
    CHECK(std::all_of(times.begin(), times.end(), [](uint32_t t) { return t == 8; }));
  }
  CHECK_THROWS_WITH(StackedGraph(48, porep_id_of(0), ApiVersion::v1_1_0), InvalidArgument, "48 nodes");
}

Bytes32 fr_bytes_of(uint64_t v) {
  Bytes32 b{};
  for (int i = 0; i < 8; ++i) b[size_t(i)] = uint8_t(v >> (8 * i));
  return b;
}

// storage-proofs-porep challenges.rs, test_synth_challenges_against_hardcoded.
CUZK_TEST(synthetic_challenges_known_answers) {
  const SyntheticChallenges s(1 << 10, fr_bytes_of(55), fr_bytes_of(101), 21);
  const std::vector<uint64_t> synth = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                       801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
  for (uint64_t i = 0; i < 21; ++i) CHECK_EQ(s.challenge(i), synth[i]);
  Bytes32 rand;
  rand.fill(1);
  CHECK(s.partition(rand, 10, 0) == (std::vector<uint64_t>{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}));
  // Partition k's challenges are those of one long draw, chunked.
  const auto all = s.partition(rand, 30, 0);
  for (size_t k = 0; k < 3; ++k)
    CHECK(s.partition(rand, 10, k) == std::vector<uint64_t>(all.begin() + 10 * k, all.begin() + 10 * (k + 1)));
  CHECK_THROWS_WITH(s.challenge(21), InvalidArgument, "of 21");
}

CUZK_TEST(interactive_challenges_in_range_and_partitioned) {
  SeededRng rng(seed());
  Bytes32 rid, sd;
  for (auto& b : rid) b = uint8_t(rng.next());
  for (auto& b : sd) b = uint8_t(rng.next());
  rid[31] &= 0x3f;
  const auto all = interactive_challenges(1 << 30, rid, sd, 180, 0);
  for (size_t k = 0; k < 10; ++k) {
    const auto part = interactive_challenges(1 << 30, rid, sd, 18, k);
    CHECK(part == std::vector<uint64_t>(all.begin() + 18 * k, all.begin() + 18 * (k + 1)));
  }
  for (uint64_t c : interactive_challenges(64, rid, sd, 1000, 0)) CHECK(c >= 1 && c < 64);
  // The derivation: SHA-256(replica_id || seed || j u32 LE) as a little-endian integer,
  // mod (nodes - 1), plus one: j = 0 by hand.
  Sha256 h;
  h.update(rid), h.update(sd);
  const uint8_t zero[4] = {0, 0, 0, 0};
  h.update(zero);
  const auto d = h.finish();
  uint64_t acc = 0;  // bytes from the most significant, mod 2^30 - 1
  for (int i = 31; i >= 0; --i) acc = ((acc << 8) | d[size_t(i)]) % ((1u << 30) - 1);
  CHECK_EQ(all[0], acc + 1);
}

CUZK_TEST(replica_id_and_public_inputs) {
  Bytes32 prover{}, ticket{}, comm_d{}, comm_r{};
  prover[0] = 1, ticket[1] = 2, comm_d[2] = 3, comm_r[3] = 4;
  const Bytes32 rid = replica_id_of(prover, 1234, ticket, comm_d, porep_id_of(5));
  CHECK_EQ(rid[31] & 0xc0, 0);
  Sha256 h;  // by hand: the sector id big-endian
  h.update(prover);
  const uint8_t be[8] = {0, 0, 0, 0, 0, 0, 0x04, 0xd2};
  h.update(be), h.update(ticket), h.update(comm_d), h.update(porep_id_of(5));
  Bytes32 want = h.finish();
  want[31] &= 0x3f;
  CHECK(rid == want);

  const StackedGraph g(64, porep_id_of(5), ApiVersion::v1_1_0);
  const std::vector<uint64_t> ch = {3, 60};
  const auto in = porep_public_inputs(g, rid, comm_d, comm_r, ch);
  CHECK_EQ(in.size(), size_t(3 + 2 * 18));
  CHECK(fr_to_bytes(in[0]) == rid && fr_to_bytes(in[1]) == comm_d && fr_to_bytes(in[2]) == comm_r);
  uint32_t p[14];
  g.parents(60, p);
  const size_t at = 3 + 18;
  CHECK(in[at] == PoseidonFr::from_u64(60));
  for (size_t i = 0; i < 14; ++i) CHECK(in[at + 1 + i] == PoseidonFr::from_u64(p[i]));
  for (size_t i = 15; i < 18; ++i) CHECK(in[at + i] == PoseidonFr::from_u64(60));
  CHECK_THROWS_WITH(porep_public_inputs(g, rid, comm_d, comm_r, std::vector<uint64_t>{64}), InvalidArgument,
                    "challenge 64");
  Bytes32 big;
  big.fill(0xff);
  CHECK_THROWS_WITH(porep_public_inputs(g, big, comm_d, comm_r, ch), InvalidArgument, "replica_id");
}

}  // namespace
}  // namespace cuzk::test
