// SPDX-License-Identifier: MIT OR Apache-2.0
// Witness files named by path (daemon.witness_dirs): where a client may point the daemon, and
// how such a file is opened, identified and read.
//
// - A path is first matched against the directories as text: one outside is refused before
//   anything is looked up, so nothing outside is probed.
// - The file is opened beneath the directory's own descriptor: openat2 with RESOLVE_BENEATH
//   (links that stay inside are followed), or, where the kernel has no openat2, one component
//   at a time without following any link. A path that would leave the directory, even through
//   a link swapped in meanwhile, is refused with nothing said of what lies outside.
// - Nothing is mapped: a file that shrinks while it is read gives an error, never SIGBUS.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ff/curve_id.hpp"

namespace cuzk::daemon {

// What identifies the file a job accepted: a rewrite (even with the old size and mtime put
// back) changes ctime; another file has another inode or device.
struct FileIdentity {
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
  std::string describe() const;  // for messages
};

// A regular file opened read-only (no blocking open) by WitnessDirs::open; closed on destruction.
class WitnessFile {
 public:
  ~WitnessFile();
  WitnessFile(const WitnessFile&) = delete;
  WitnessFile& operator=(const WitnessFile&) = delete;
  // The path as the journal keeps it: the directory's canonical path and the file's path in it.
  const std::string& path() const { return path_; }
  const FileIdentity& identity() const { return id_; }
  // Its identity now (fstat of the open descriptor).
  FileIdentity identity_now() const;
  // The .wtns headers (curve, nWitness) with pread; the values are not read. At most 64
  // sections, 1 MiB outside sections 1 and 2, nothing after the last: the whole file is read
  // when it is proved. Throws FormatError.
  struct Header {
    CurveId curve{};
    uint32_t n_witness = 0;
  };
  Header header() const;
  // Every byte, read into memory: an error if the file is shorter than when it was opened, or
  // if its identity changed while it was read.
  std::vector<uint8_t> read_all() const;

 private:
  friend class WitnessDirs;
  WitnessFile(int fd, std::string path, std::string shown);
  int fd_ = -1;
  std::string path_, shown_;
  FileIdentity id_;
};

class WitnessDirs {
 public:
  // `dirs` as configured (absolute). Throws InvalidArgument for one that cannot be opened as a
  // directory. `no_openat2`: open by the component walk even where openat2 exists (tests).
  explicit WitnessDirs(const std::vector<std::string>& dirs, bool no_openat2 = false);
  ~WitnessDirs();
  WitnessDirs(const WitnessDirs&) = delete;
  WitnessDirs& operator=(const WitnessDirs&) = delete;
  bool empty() const { return dirs_.empty(); }
  std::string list() const;  // as configured, for messages
  // Opens the regular file a client's absolute path names (see the top of this file). Throws
  // InvalidArgument naming the path as given, with the reason.
  std::unique_ptr<WitnessFile> open(const std::string& path) const;

 private:
  struct Dir {
    std::string configured, canonical;
    int fd = -1;  // O_PATH
  };
  std::vector<Dir> dirs_;
  bool no_openat2_ = false;
  // Which directory, and the path in it ("" for the directory itself); false when outside.
  bool locate(const std::string& path, size_t& dir, std::string& rel) const;
};

}  // namespace cuzk::daemon
