// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/manifest.hpp"

#include <filesystem>

#include "filecoin/blake2b.hpp"
#include "io/json_parse.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

std::vector<ManifestEntry> read_manifest(const std::string& path) {
  io::Json j = io::parse_json_file(path, size_t(64) << 20);
  if (!j.is_object()) throw FormatError(path, std::string("expected a JSON object, found ") + j.type_name());
  std::vector<ManifestEntry> out;
  for (const auto& [name, v] : j.fields) {
    auto fail = [&](const std::string& what) { throw FormatError(path, "entry \"" + name + "\": " + what); };
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
      fail("not a plain file name");
    const io::Json* cid = v.find("cid");
    const io::Json* digest = v.find("digest");
    const io::Json* size = v.find("sector_size");
    if (!cid || !cid->is_string()) fail("no string \"cid\"");
    if (!digest || !digest->is_string()) fail("no string \"digest\"");
    if (!size || !size->as_u64()) fail("no integer \"sector_size\"");
    const std::string& d = digest->text;
    if (d.empty() || d.size() > 128 || d.find_first_not_of("0123456789abcdef") != std::string::npos)
      fail("digest \"" + d + "\" is not 1 to 128 lowercase hex characters");
    out.push_back({name, cid->text, d, *size->as_u64()});
  }
  return out;
}

std::vector<DigestCheck> verify_digests(const std::string& dir, const std::vector<ManifestEntry>& manifest) {
  std::vector<DigestCheck> out;
  for (const ManifestEntry& e : manifest) {
    const std::string path = (std::filesystem::path(dir) / e.name).string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      out.push_back({DigestCheck::Status::missing, e.name, e.digest, ""});
      continue;
    }
    std::string got = blake2b_512_hex_file(path).substr(0, e.digest.size());
    out.push_back({got == e.digest ? DigestCheck::Status::ok : DigestCheck::Status::mismatch, e.name, e.digest, got});
  }
  return out;
}

}  // namespace cuzk::filecoin
