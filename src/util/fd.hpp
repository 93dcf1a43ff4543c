// SPDX-License-Identifier: MIT OR Apache-2.0
// Whole writes to a file descriptor.
#pragma once
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace cuzk {

// Writes all of s to fd, retrying short writes and EINTR; false when a write fails (the rest is
// lost: a log line on a full disk).
inline bool write_fully(int fd, std::string_view s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += size_t(w);
  }
  return true;
}

}  // namespace cuzk
