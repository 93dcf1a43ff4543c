// SPDX-License-Identifier: MIT OR Apache-2.0
// The iden3 binary container shared by .r1cs, .wtns, .zkey and .ptau:
//   magic[4] u32 version u32 nSections { u32 id; u64 size; u8 data[size] }*
// little-endian throughout; sections may come in any order (readers use the table).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ff/curve_id.hpp"

namespace cuzk::io {

// Bytes of a whole file: memory-mapped read-only (large keys are used in place), an owned
// buffer (fuzzing, tests), or a borrowed one (the C interfaces' buffers). Non-copyable; shared by the structures that point into it.
class FileBytes {
 public:
  static std::shared_ptr<FileBytes> map(const std::string& path);
  static std::shared_ptr<FileBytes> from_buffer(std::string name, std::vector<uint8_t> bytes);
  // The caller's bytes, not copied: they must outlive the FileBytes and everything that points
  // into it (a C caller's buffer read during one call).
  static std::shared_ptr<FileBytes> borrow(std::string name, std::span<const uint8_t> bytes);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  const std::string& path() const { return path_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // Once a part of a mapped file has been copied out, its pages need not count in this
  // process's memory: they are dropped (read again from the file if touched later; the bytes
  // never change). Nothing happens to buffers, or to a part outside the mapping.
  void release(std::span<const uint8_t> part) const;

 private:
  FileBytes() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;         // mmap base, when mapped
  std::vector<uint8_t> owned_;  // when from_buffer
};

struct BinFile {
  std::shared_ptr<FileBytes> file;
  uint32_t version = 0;
  // section id -> payload. A section id that occurs twice is an error.
  std::map<uint32_t, std::span<const uint8_t>> sections;

  const std::string& path() const { return file->path(); }
  bool has(uint32_t id) const { return sections.count(id) != 0; }
  // The payload of section `id`; throws FormatError naming `what` if it is missing.
  std::span<const uint8_t> section(uint32_t id, const char* what) const;
};

// Parses the container; `magic` is the expected 4-byte tag ("zkey", "wtns", "r1cs", "ptau").
// Throws FormatError (naming the file) for a wrong magic, unsupported version, truncated table
// or a section running past the end of the file.
BinFile parse_binfile(std::shared_ptr<FileBytes> file, const char magic[4], uint32_t min_version, uint32_t max_version);

// "0x..." big-endian hex of a little-endian byte string (for error messages; at most 64 bytes shown).
std::string le_hex(std::span<const uint8_t> le);

// Little-endian cursor over a section payload with bounds checks; errors name file and section.
class Reader {
 public:
  Reader(const std::string& path, const char* section_name, std::span<const uint8_t> bytes)
      : path_(path), what_(section_name), bytes_(bytes) {}
  uint32_t u32();
  uint64_t u64();
  std::span<const uint8_t> take(size_t n);
  // Throws unless the cursor is at the end ("N trailing bytes").
  void expect_end();
  size_t remaining() const { return bytes_.size() - pos_; }
  size_t position() const { return pos_; }
  [[noreturn]] void fail(const std::string& msg) const;

 private:
  std::string path_;
  std::string what_;  // copied: callers may pass a temporary's c_str()
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

// The scalar-field header shared by .r1cs and .wtns: u32 n8 (must be 32), then r (n8 bytes,
// identifying the curve). Reader errors name the file and section.
struct ScalarFieldHeader {
  uint32_t n8 = 0;
  CurveId curve{};
};
ScalarFieldHeader read_scalar_field_header(Reader& h);

}  // namespace cuzk::io
