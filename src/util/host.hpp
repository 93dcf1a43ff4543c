// SPDX-License-Identifier: MIT OR Apache-2.0
// The host's memory as this process may use it (the CPU device's default budget; the engine's
// bound on page-locked witness buffers).
#pragma once
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <string>

namespace cuzk {

// Bytes of physical memory, or the memory limit of the process's control group where it is
// lower (a container's: cgroup v2's memory.max, v1's memory.limit_in_bytes); 16 GiB where the
// system does not say.
inline size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  size_t bytes = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : size_t(16) << 30;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string v;
    if (!(in >> v) || v.empty() || v.find_first_not_of("0123456789") != std::string::npos) continue;  // "max"
    if (v.size() > 19) continue;  // beyond any memory: no limit
    const size_t limit = std::stoull(v);
    if (limit > 0 && limit < bytes) bytes = limit;
  }
  return bytes;
}

}  // namespace cuzk
