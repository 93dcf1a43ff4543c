#include "filecoin/records.hpp"

#include <fstream>
#include <sstream>

#include "filecoin/proof_bytes.hpp"
#include "io/json_parse.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

// `where`: "line N" (of the records file) and the path to the member.
struct Where {
  const std::string& path;
  std::string at;
  [[noreturn]] void fail(const std::string& what) const { throw FormatError(path, at + ": " + what); }
  Where operator/(const std::string& member) const { return {path, at + ": " + member}; }
};

const io::Json& member(const io::Json& obj, const char* key, const Where& where) {
  const io::Json* v = obj.find(key);
  if (!v) where.fail(std::string("no member \"") + key + "\"");
  return *v;
}

std::vector<uint8_t> byte_array(const io::Json& j, const Where& where) {
  if (!j.is_array()) where.fail(std::string("expected an array of bytes, found ") + j.type_name());
  std::vector<uint8_t> out;
  out.reserve(j.items.size());
  for (size_t i = 0; i < j.items.size(); ++i) {
    auto v = j.items[i].as_u64();
    if (!v || *v > 255) where.fail("item " + std::to_string(i) + " is not a byte (0..255)");
    out.push_back(uint8_t(*v));
  }
  return out;
}

// NonInteractivePoRep (api_features) aggregates its partitions' proofs with SnarkPack: the
// record's proof is the aggregate, of another size than partitions x 192 (longer for a few
// partitions, shorter for many).
bool non_interactive(const io::Json& cfg, const Where& where) {
  const io::Json* f = cfg.find("api_features");
  if (!f || f->is_null()) return false;
  if (!f->is_array()) (where / "porep_config.api_features").fail("expected an array");
  for (const io::Json& x : f->items)
    if (x.is_string() && x.text == "NonInteractivePoRep") return true;
  return false;
}

void decode_record(const io::Json& rec, const Where& where, RecordsSummary& s) {
  if (!rec.is_object()) where.fail(std::string("expected a JSON object, found ") + rec.type_name());
  const io::Json& cfg = member(rec, "porep_config", where);
  auto partitions = member(cfg, "partitions", where / "porep_config").as_u64();
  if (!partitions || *partitions == 0 || *partitions > 1024)
    where.fail("porep_config.partitions is not a partition count (1..1024)");
  std::vector<uint8_t> proof = byte_array(member(rec, "proof", where), where / "proof");
  const size_t full = size_t(*partitions) * kProofBytes;
  if (proof.size() != full && non_interactive(cfg, where)) {
    ++s.aggregated;
    return;
  }
  if (proof.size() != full) {
    ++s.invalid;
    s.problems.push_back(where.path + ": " + where.at + ": proof of " + std::to_string(proof.size()) +
                         " bytes, expected " + std::to_string(full) + " (" + std::to_string(*partitions) +
                         " partitions x 192)");
    return;
  }
  for (size_t p = 0; p < *partitions; ++p) {
    BlsProof out;
    std::string e = decode_proof(std::span<const uint8_t>(proof).subspan(p * kProofBytes).first<kProofBytes>(), out);
    if (e.empty()) {
      ++s.proofs_decoded;
    } else {
      ++s.invalid;
      s.problems.push_back(where.path + ": " + where.at + ": partition " + std::to_string(p) + ": " + e);
    }
  }
}

}  // namespace

RecordsSummary decode_records_text(const std::string& path, const std::string& text) {
  RecordsSummary s;
  std::istringstream in(text);
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const Where where{path, "line " + std::to_string(n)};
    io::Json rec;
    try {
      rec = io::parse_json(line);
    } catch (const io::JsonError& e) {
      where.fail(std::string("invalid JSON: ") + e.what());
    }
    ++s.records;
    decode_record(rec, where, s);
  }
  return s;
}

RecordsSummary decode_records(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FormatError(path, "cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw FormatError(path, "read failed");
  return decode_records_text(path, ss.str());
}

}  // namespace cuzk::filecoin
