// SPDX-License-Identifier: MIT OR Apache-2.0
// rust-fil-proofs' seal regression records (filecoin-proofs/tests/seal_regression_records-*.json):
// one JSON object per line with `porep_config{sector_size, partitions, porep_id, api_version,
// api_features}`, `comm_r`, `comm_d`, `prover_id`, `sector_id`, `ticket`, `seed` and `proof`
// (byte strings as arrays of numbers). A proof of partitions × 192 bytes is the partitions'
// Groth16 proofs; a NonInteractivePoRep record (api_features) of another size holds a SnarkPack
// aggregate of them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "filecoin/porep_challenges.hpp"
#include "filecoin/porep_graph.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

// One record, every field checked (32-byte values of 32 bytes, a known sector size, an API
// version rust-fil-proofs defines, a partition count that fits the features).
struct PorepRecord {
  size_t line = 0;
  uint64_t sector_size = 0;
  size_t partitions = 0;
  PorepId porep_id{};
  ApiVersion api = ApiVersion::v1_1_0;
  PorepChallengeKind kind = PorepChallengeKind::interactive;  // SyntheticPoRep, NonInteractivePoRep
  Bytes32 comm_r{}, comm_d{}, prover_id{}, ticket{}, seed{};
  uint64_t sector_id = 0;
  std::vector<uint8_t> proof;

  uint64_t nodes() const { return sector_size / 32; }
  // rust-fil-proofs' challenges per partition: the minimum total (2 below 32GiB, 176 at 32GiB and
  // 64GiB; non-interactive 26 and 2253) over the partitions, rounded up.
  size_t challenges_per_partition() const;
  Bytes32 replica_id() const;
  // Partition k's challenged nodes and its circuit's public inputs (ONE excluded).
  std::vector<uint64_t> challenges(const Bytes32& replica_id, size_t k) const;
  std::vector<PoseidonFr> public_inputs(const StackedGraph& graph, size_t k) const;
};

// Every record of a file's text / of a file. Throws FormatError naming the file, the line and
// the member for a record that is malformed.
std::vector<PorepRecord> parse_records_text(const std::string& path, const std::string& text);
std::vector<PorepRecord> read_records(const std::string& path);

struct RecordsSummary {
  size_t records = 0;
  size_t proofs_decoded = 0;          // 192-byte partition proofs that decode with every check
  size_t invalid = 0;                 // partition proofs that do not (or records whose size fits no form)
  size_t aggregated = 0;              // NonInteractivePoRep records holding a SnarkPack aggregate (not decoded)
  size_t inputs = 0;                  // partitions whose public inputs were computed
  size_t verified = 0, rejected = 0;  // partitions checked against a verifying key (--vk-dir)
  size_t no_vk = 0;                   // partitions not checked: their sector size's .vk is not in the directory
  std::vector<std::string> problems;  // one line per invalid or rejected proof: line, partition, what
};

// Decodes every partition proof of every record and computes its public inputs (replica_id,
// challenges, parents); with vk_dir, verifies each decoded proof under its sector size's
// published verifying key (<stem>.vk, filecoin param-names) found there.
RecordsSummary check_records(const std::vector<PorepRecord>& records, const std::string& path,
                             const std::optional<std::string>& vk_dir = std::nullopt);
// decode_records: check_records without keys, over a file / a file's text.
RecordsSummary decode_records(const std::string& path);
RecordsSummary decode_records_text(const std::string& path, const std::string& text);

}  // namespace cuzk::filecoin
