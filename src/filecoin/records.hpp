// rust-fil-proofs' seal regression records (filecoin-proofs/tests/seal_regression_records-*.json):
// one JSON object per line with `porep_config{sector_size, partitions, porep_id, api_version,
// api_features}`, `comm_r`, `comm_d`, `prover_id`, `sector_id`, `ticket`, `seed` and `proof`
// (byte strings as arrays of numbers). A proof of partitions × 192 bytes is the partitions'
// Groth16 proofs; a NonInteractivePoRep record (api_features) of another size holds a SnarkPack
// aggregate of them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::filecoin {

struct RecordsSummary {
  size_t records = 0;
  size_t proofs_decoded = 0;          // 192-byte partition proofs that decode with every check
  size_t invalid = 0;                 // partition proofs that do not (or records whose size fits no form)
  size_t aggregated = 0;              // NonInteractivePoRep records holding a SnarkPack aggregate (not decoded)
  std::vector<std::string> problems;  // one line per invalid proof: line, partition, what
};

// Decodes every partition proof of every record. Throws FormatError (naming the file and line)
// for a line that is not a record.
RecordsSummary decode_records(const std::string& path);
// The same over the file's text (tests, fuzzing); `path` names it in messages.
RecordsSummary decode_records_text(const std::string& path, const std::string& text);

}  // namespace cuzk::filecoin
