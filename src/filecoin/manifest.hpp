// SPDX-License-Identifier: MIT OR Apache-2.0
// rust-fil-proofs' parameters.json: per published file (`<stem>.params`, `.vk`, `.meta`) its IPFS
// CID, its digest (the first 32 hex characters of the BLAKE2b-512 of the whole file, as
// storage-proofs-core's parameter_cache compares them) and its sector size.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::filecoin {

struct ManifestEntry {
  std::string name, cid, digest;
  uint64_t sector_size = 0;
};

// Entries in file order. Throws FormatError naming the file and the entry.
std::vector<ManifestEntry> read_manifest(const std::string& path);

struct DigestCheck {
  enum class Status { ok, mismatch, missing } status;
  std::string name, expected, got;  // got: the same number of hex characters as expected
};
// Each manifest entry's file in dir against its digest (a prefix of the file's hex digest).
std::vector<DigestCheck> verify_digests(const std::string& dir, const std::vector<ManifestEntry>& manifest);

}  // namespace cuzk::filecoin
