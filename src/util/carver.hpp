// SPDX-License-Identifier: MIT OR Apache-2.0
// Pieces of one block of memory, 256-byte aligned, taken in order; or, without a block, just
// the bytes they add up to. One code path then sizes a workspace and carves it, so the size a
// caller reserves and the pieces it uses cannot disagree.
#pragma once
#include <cstddef>
#include <string>

#include "util/error.hpp"

namespace cuzk {

class Carver {
 public:
  Carver() = default;  // sizing: take() returns nullptr and counts
  // Carving `bytes` at `base`; errors name `owner` (a device, say).
  Carver(void* base, size_t bytes, std::string owner)
      : base_(static_cast<char*>(base)), bytes_(bytes), owner_(std::move(owner)), sizing_(false) {}
  virtual ~Carver() = default;

  void* take(size_t bytes, const char* what) {
    const size_t need = round(bytes);
    if (sizing_) {
      used_ += need;
      return nullptr;
    }
    if (used_ + need > bytes_)
      too_small(owner_ + ": workspace too small for " + what + ": needs " + std::to_string(need) + " more bytes, " +
                std::to_string(bytes_ - used_) + " of " + std::to_string(bytes_) + " left");
    void* p = base_ + used_;
    used_ += need;
    return p;
  }
  template <class T>
  T* take(size_t count, const char* what) {
    return static_cast<T*>(take(count * sizeof(T), what));
  }
  template <class T>
  T* take_n(size_t count, const char* what) {
    return take<T>(count, what);
  }
  size_t used() const { return used_; }
  bool sizing() const { return sizing_; }
  static size_t round(size_t bytes) { return (bytes + 255) & ~size_t(255); }

 protected:
  [[noreturn]] virtual void too_small(const std::string& msg) const { throw Error(msg); }

 private:
  char* base_ = nullptr;
  size_t bytes_ = 0, used_ = 0;
  std::string owner_;
  bool sizing_ = true;
};

}  // namespace cuzk
