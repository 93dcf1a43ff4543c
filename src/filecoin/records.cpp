// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/records.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "filecoin/param_names.hpp"
#include "filecoin/params.hpp"
#include "filecoin/params_key.hpp"
#include "filecoin/proof_bytes.hpp"
#include "groth16/verifier.hpp"
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
  if (!obj.is_object()) where.fail(std::string("expected a JSON object, found ") + obj.type_name());
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

Bytes32 bytes32(const io::Json& obj, const char* key, const Where& where) {
  const std::vector<uint8_t> v = byte_array(member(obj, key, where), where / key);
  if (v.size() != 32) (where / key).fail("expected 32 bytes, found " + std::to_string(v.size()));
  Bytes32 b;
  std::copy(v.begin(), v.end(), b.begin());
  return b;
}

uint64_t number(const io::Json& obj, const char* key, const Where& where) {
  auto v = member(obj, key, where).as_u64();
  if (!v) (where / key).fail("expected an unsigned integer");
  return *v;
}

bool is_test_or_published_size(uint64_t s) {
  for (uint64_t k :
       {uint64_t(2) << 10, uint64_t(4) << 10, uint64_t(16) << 10, uint64_t(32) << 10, uint64_t(8) << 20,
        uint64_t(16) << 20, uint64_t(512) << 20, uint64_t(1) << 30, uint64_t(32) << 30, uint64_t(64) << 30})
    if (s == k) return true;
  return false;
}

PorepRecord parse_record(const io::Json& rec, const Where& where, size_t line) {
  PorepRecord r;
  r.line = line;
  if (!rec.is_object()) where.fail(std::string("expected a JSON object, found ") + rec.type_name());
  const io::Json& cfg = member(rec, "porep_config", where);
  const Where wc = where / "porep_config";
  r.sector_size = number(cfg, "sector_size", wc);
  if (!is_test_or_published_size(r.sector_size))
    (wc / "sector_size").fail(std::to_string(r.sector_size) + " is not a sector size rust-fil-proofs defines");
  const uint64_t parts = number(cfg, "partitions", wc);
  if (parts == 0 || parts > 1024) wc.fail("partitions is not a partition count (1..1024)");
  r.partitions = size_t(parts);
  r.porep_id = bytes32(cfg, "porep_id", wc);
  const io::Json& api = member(cfg, "api_version", wc);
  if (!api.is_string()) (wc / "api_version").fail("expected a string");
  try {
    r.api = parse_api_version(api.text);
  } catch (const InvalidArgument& e) {
    (wc / "api_version").fail(e.what());
  }
  if (const io::Json* f = cfg.find("api_features"); f && !f->is_null()) {
    if (!f->is_array()) (wc / "api_features").fail("expected an array");
    for (const io::Json& x : f->items) {
      if (!x.is_string()) (wc / "api_features").fail("expected strings");
      if (x.text == "SyntheticPoRep")
        r.kind = PorepChallengeKind::synthetic;
      else if (x.text == "NonInteractivePoRep")
        r.kind = PorepChallengeKind::non_interactive;
      else
        (wc / "api_features").fail("unknown feature '" + x.text + "'");
    }
    if (f->items.size() > 1) (wc / "api_features").fail("more than one feature");
  }
  if (r.challenges_per_partition() > 18)
    wc.fail(std::to_string(r.partitions) + " partitions leave more than 18 challenges per partition");
  r.comm_r = bytes32(rec, "comm_r", where);
  r.comm_d = bytes32(rec, "comm_d", where);
  r.prover_id = bytes32(rec, "prover_id", where);
  r.ticket = bytes32(rec, "ticket", where);
  r.seed = bytes32(rec, "seed", where);
  r.sector_id = number(rec, "sector_id", where);
  r.proof = byte_array(member(rec, "proof", where), where / "proof");
  return r;
}

std::string record_at(const std::string& path, const PorepRecord& r) {
  return path + ": line " + std::to_string(r.line);
}

}  // namespace

size_t PorepRecord::challenges_per_partition() const {
  const bool big = sector_size >= (uint64_t(32) << 30);
  const size_t minimum = kind == PorepChallengeKind::non_interactive ? (big ? 2253 : 26) : (big ? 176 : 2);
  return (minimum + partitions - 1) / partitions;
}

Bytes32 PorepRecord::replica_id() const { return replica_id_of(prover_id, sector_id, ticket, comm_d, porep_id); }

std::vector<uint64_t> PorepRecord::challenges(const Bytes32& rid, size_t k) const {
  const size_t n = challenges_per_partition();
  switch (kind) {
    case PorepChallengeKind::interactive:
      return interactive_challenges(nodes(), rid, seed, n, k);
    case PorepChallengeKind::synthetic:
      return SyntheticChallenges(nodes(), rid, comm_r).partition(seed, n, k);
    case PorepChallengeKind::non_interactive:
      return non_interactive_challenges(nodes(), rid, comm_r, n, k);
  }
  return {};
}

std::vector<PoseidonFr> PorepRecord::public_inputs(const StackedGraph& graph, size_t k) const {
  const Bytes32 rid = replica_id();
  const std::vector<uint64_t> ch = challenges(rid, k);
  return porep_public_inputs(graph, rid, comm_d, comm_r, ch);
}

std::vector<PorepRecord> parse_records_text(const std::string& path, const std::string& text) {
  std::vector<PorepRecord> out;
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
    out.push_back(parse_record(rec, where, n));
  }
  return out;
}

std::vector<PorepRecord> read_records(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FormatError(path, "cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw FormatError(path, "read failed");
  return parse_records_text(path, ss.str());
}

RecordsSummary check_records(const std::vector<PorepRecord>& records, const std::string& path,
                             const std::optional<std::string>& vk_dir) {
  RecordsSummary s;
  std::map<uint64_t, std::optional<groth16::VerifyingKey<ec::Bls12381>>> keys;  // by sector size
  auto key_of = [&](uint64_t sector_size) -> const groth16::VerifyingKey<ec::Bls12381>* {
    auto it = keys.find(sector_size);
    if (it == keys.end()) {
      std::optional<groth16::VerifyingKey<ec::Bls12381>> vk;
      for (const CircuitParams& c : published_circuits())
        if (c.kind == ProofKind::porep && c.sector_size == sector_size) {
          const std::string f = (std::filesystem::path(*vk_dir) / (c.stem() + ".vk")).string();
          if (std::filesystem::exists(f)) {
            ThreadPool pool(1);
            vk = verifying_key_of(read_params(f, pool, true));
          }
        }
      it = keys.emplace(sector_size, std::move(vk)).first;
    }
    return it->second ? &*it->second : nullptr;
  };
  for (const PorepRecord& r : records) {
    ++s.records;
    const size_t full = r.partitions * kProofBytes;
    if (r.proof.size() != full && r.kind == PorepChallengeKind::non_interactive) {
      ++s.aggregated;
      continue;
    }
    if (r.proof.size() != full) {
      ++s.invalid;
      s.problems.push_back(record_at(path, r) + ": proof of " + std::to_string(r.proof.size()) + " bytes, expected " +
                           std::to_string(full) + " (" + std::to_string(r.partitions) + " partitions x 192)");
      continue;
    }
    const StackedGraph graph(r.nodes(), r.porep_id, r.api);
    for (size_t k = 0; k < r.partitions; ++k) {
      BlsProof proof;
      const std::string e =
          decode_proof(std::span<const uint8_t>(r.proof).subspan(k * kProofBytes).first<kProofBytes>(), proof);
      if (!e.empty()) {
        ++s.invalid;
        s.problems.push_back(record_at(path, r) + ": partition " + std::to_string(k) + ": " + e);
        continue;
      }
      ++s.proofs_decoded;
      const std::vector<PoseidonFr> in = r.public_inputs(graph, k);
      ++s.inputs;
      if (!vk_dir) continue;
      const auto* vk = key_of(r.sector_size);
      if (!vk) {
        ++s.no_vk;
        continue;
      }
      if (vk->ic.size() != in.size() + 1) {
        ++s.rejected;
        s.problems.push_back(record_at(path, r) + ": partition " + std::to_string(k) + ": " +
                             std::to_string(in.size()) + " public inputs, the verifying key takes " +
                             std::to_string(vk->ic.size() - 1));
        continue;
      }
      groth16::PublicInputs pub;
      for (const PoseidonFr& x : in) pub.push_back(x.to_std());
      const groth16::VerifyProof<ec::Bls12381> vp{proof.a, proof.b, proof.c};
      if (groth16::verify_proof(*vk, pub, vp)) {
        ++s.verified;
      } else {
        ++s.rejected;
        s.problems.push_back(record_at(path, r) + ": partition " + std::to_string(k) +
                             ": rejected by the verifying key (the proof does not verify for the public inputs "
                             "computed from the record)");
      }
    }
  }
  return s;
}

RecordsSummary decode_records_text(const std::string& path, const std::string& text) {
  return check_records(parse_records_text(path, text), path);
}

RecordsSummary decode_records(const std::string& path) { return check_records(read_records(path), path); }

}  // namespace cuzk::filecoin
