// SPDX-License-Identifier: MIT OR Apache-2.0
#include "setup/write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"
#include "util/files.hpp"

namespace cuzk::setup {

SectionWriter::SectionWriter(const std::string& path, const char magic[4], uint32_t version, uint32_t n_sections)
    : path_(path), sections_left_(n_sections) {
  if (path.empty()) throw InvalidArgument("an output path is empty");
  check_output_path(path);
  tmp_ = path + ".tmp-" + std::to_string(::getpid());
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) throw Error("cannot create " + tmp_ + ": " + std::strerror(errno));
  std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
  bytes(magic, 4);
  u32(version);
  u32(n_sections);
}

SectionWriter::~SectionWriter() {
  if (f_) std::fclose(f_);
  if (!committed_) std::remove(tmp_.c_str());
}

void SectionWriter::fail(const std::string& what) {
  throw Error("writing " + path_ + ": " + what + ": " + std::strerror(errno));
}

void SectionWriter::bytes(const void* p, size_t n) {
  if (n && std::fwrite(p, 1, n, f_) != n) fail("write failed");
}

void SectionWriter::begin(uint32_t id) {
  if (sections_left_ == 0) throw Error("writing " + path_ + ": more sections than declared");
  --sections_left_;
  u32(id);
  section_start_ = ftello(f_);
  u64(0);
}

void SectionWriter::end() {
  long long here = ftello(f_);
  if (here < 0 || section_start_ < 0) fail("cannot tell the file position");
  uint64_t size = uint64_t(here - section_start_ - 8);
  if (fseeko(f_, section_start_, SEEK_SET) != 0) fail("seek failed");
  u64(size);
  if (fseeko(f_, here, SEEK_SET) != 0) fail("seek failed");
  section_start_ = -1;
}

void SectionWriter::commit() {
  if (sections_left_ != 0) throw Error("writing " + path_ + ": fewer sections than declared");
  if (std::fflush(f_) != 0) fail("flush failed");
  if (::fsync(fileno(f_)) != 0) fail("fsync failed");
  if (std::fclose(f_) != 0) {
    f_ = nullptr;
    fail("close failed");
  }
  f_ = nullptr;
  check_output_path(path_);
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail("cannot rename " + tmp_ + " into place");
  committed_ = true;
}

}  // namespace cuzk::setup
