// SPDX-License-Identifier: MIT OR Apache-2.0
// The host's physical memory (the CPU device's default budget; the engine's bound on page-locked
// witness buffers).
#pragma once
#include <unistd.h>

#include <cstddef>

namespace cuzk {

// Bytes of physical memory; 16 GiB where the system does not say.
inline size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? size_t(pages) * size_t(page) : size_t(16) << 30;
}

}  // namespace cuzk
