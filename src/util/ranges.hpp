// SPDX-License-Identifier: MIT OR Apache-2.0
// A set of disjoint half-open address ranges [begin, end) (page-locked host memory, say), and
// the runs a span splits into against it: a copy of the span goes by DMA over the covered runs
// (one per range) and through a staging buffer over the others, wherever the ranges begin and end.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>

namespace cuzk {

class RangeSet {
 public:
  // Adds [b, e); false (nothing added) when it is empty or meets a range already there.
  bool add(uintptr_t b, uintptr_t e) {
    if (b >= e) return false;
    auto it = ranges_.upper_bound(b);
    if (it != ranges_.end() && it->first < e) return false;
    if (it != ranges_.begin() && std::prev(it)->second > b) return false;
    ranges_.emplace(b, e);
    return true;
  }
  // Removes the range that begins at b (nothing when none does).
  void erase(uintptr_t b) { ranges_.erase(b); }

  struct Run {
    size_t bytes = 0;      // from the span's start
    bool covered = false;  // by one range of the set
  };
  // The first run of [b, b + bytes): to the end of the range that covers b (one DMA cannot span
  // two registrations, adjacent or not), or, when none does, up to the next range's start.
  // bytes == 0 gives an empty run.
  Run first_run(uintptr_t b, size_t bytes) const {
    const uintptr_t e = b + bytes;
    if (bytes == 0) return {};
    auto it = ranges_.upper_bound(b);  // the first range beginning after b
    if (it != ranges_.begin() && std::prev(it)->second > b)
      return {size_t(std::min(std::prev(it)->second, e) - b), true};
    const uintptr_t next = it == ranges_.end() ? e : std::min(it->first, e);
    return {size_t(next - b), false};
  }
  // Whether [b, b + bytes) is covered end to end (bytes > 0), by one range or adjacent ones.
  bool covers(uintptr_t b, size_t bytes) const {
    if (bytes == 0) return false;
    for (size_t at = 0; at < bytes;) {
      const Run r = first_run(b + at, bytes - at);
      if (!r.covered) return false;
      at += r.bytes;
    }
    return true;
  }

 private:
  std::map<uintptr_t, uintptr_t> ranges_;  // begin -> end
};

}  // namespace cuzk
