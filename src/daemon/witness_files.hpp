// Witness files named by path (daemon.witness_dirs): where a client may point the daemon, and
// how such a file is opened, identified and read. Nothing here maps a file: a file that shrinks
// while it is read gives an error, never SIGBUS, and the daemon lives on.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/curve_id.hpp"

namespace cuzk::daemon {

// What identifies the file a job accepted: a rewrite (even with the old size and mtime put
// back) changes ctime; a swapped link or directory leads to another inode.
struct FileIdentity {
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
  std::string describe() const;  // "N bytes, modified at T, inode I" for messages
};

// An open, read-only descriptor of a regular file (no final link followed, no blocking open),
// closed on destruction.
class WitnessFile {
 public:
  // Throws InvalidArgument naming `shown` (what the client gave) with the reason.
  WitnessFile(const std::string& canonical, const std::string& shown);
  ~WitnessFile();
  WitnessFile(const WitnessFile&) = delete;
  WitnessFile& operator=(const WitnessFile&) = delete;
  const FileIdentity& identity() const { return id_; }
  // The path the open descriptor has now (from /proc/self/fd): equal to the canonical path
  // unless a directory on the way was swapped meanwhile.
  std::string path_now() const;
  // The .wtns headers (curve, nWitness) with pread; the values are not read.
  struct Header {
    CurveId curve{};
    uint32_t n_witness = 0;
  };
  Header header() const;
  // Every byte, read into memory (an error if the file is shorter than when it was opened).
  std::vector<uint8_t> read_all() const;

 private:
  int fd_ = -1;
  std::string shown_;
  FileIdentity id_;
};

class WitnessDirs {
 public:
  // `dirs` as configured (absolute); throws InvalidArgument for one that is not a directory.
  explicit WitnessDirs(const std::vector<std::string>& dirs);
  bool empty() const { return canonical_.empty(); }
  std::string list() const;  // as configured, for messages
  // A client's path: absolute, under one of the directories as written (no filesystem access
  // before that, so nothing outside is probed), and still under one once links are resolved.
  // Returns the canonical path; throws InvalidArgument with the reason.
  std::string resolve(const std::string& path) const;
  bool contains_canonical(const std::string& canonical) const;

 private:
  std::vector<std::string> configured_, canonical_;
};

}  // namespace cuzk::daemon
