// SPDX-License-Identifier: MIT OR Apache-2.0
// A vector whose new elements are default-initialised (for trivial types: left untouched) rather
// than zeroed: a key of many GB is then first touched by the threads that fill it, in parallel,
// instead of being zeroed page by page by one thread before (seconds at 2^24 and up). Whoever
// sizes one must write every element before reading it.
#pragma once
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuzk {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using FillVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace cuzk
