// SPDX-License-Identifier: MIT OR Apache-2.0
// A vector of trivially copyable elements that holds its first N in place: no allocation until it
// grows past N (a circuit's linear combinations are mostly one to three terms, and made and
// dropped by the million while a circuit's rows are built).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

namespace cuzk {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "elements are moved by memcpy");
  static_assert(N > 0);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { take(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  T* data() { return ptr(); }
  const T* data() const { return ptr(); }
  T* begin() { return ptr(); }
  T* end() { return ptr() + size_; }
  const T* begin() const { return ptr(); }
  const T* end() const { return ptr() + size_; }
  T& operator[](size_t i) { return ptr()[i]; }
  const T& operator[](size_t i) const { return ptr()[i]; }
  T& front() { return ptr()[0]; }
  const T& front() const { return ptr()[0]; }
  T& back() { return ptr()[size_ - 1]; }
  const T& back() const { return ptr()[size_ - 1]; }

  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > cap_) grow_to(n);
  }
  // New elements are value-initialised.
  void resize(size_t n) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) new (ptr() + i) T{};
    size_ = n;
  }
  void push_back(const T& x) {
    if (size_ == cap_) {
      const T copy = x;  // x may be one of ours
      grow_to(cap_ * 2);
      ptr()[size_++] = copy;
      return;
    }
    ptr()[size_++] = x;
  }
  // Inserts x before pos; returns where it now is.
  T* insert(const T* pos, const T& x) {
    const size_t at = size_t(pos - ptr());
    const T copy = x;
    if (size_ == cap_) grow_to(cap_ * 2);
    T* p = ptr();
    std::memmove(static_cast<void*>(p + at + 1), p + at, (size_ - at) * sizeof(T));
    p[at] = copy;
    ++size_;
    return p + at;
  }
  // The elements of [b, e), a range that is not this vector's own (it may be freed by the growth).
  void assign(const T* b, const T* e) {
    const size_t n = size_t(e - b);
    size_ = 0;
    reserve(n);
    if (n) std::memcpy(static_cast<void*>(ptr()), b, n * sizeof(T));
    size_ = n;
  }

 private:
  T* ptr() { return heap_ ? heap_ : reinterpret_cast<T*>(inline_); }
  const T* ptr() const { return heap_ ? heap_ : reinterpret_cast<const T*>(inline_); }
  void grow_to(size_t n) {
    n = std::max(n, size_t(N) * 2);
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    if (size_) std::memcpy(static_cast<void*>(fresh), ptr(), size_ * sizeof(T));
    release();
    heap_ = fresh;
    cap_ = n;
  }
  void release() {
    if (heap_) ::operator delete(heap_, std::align_val_t(alignof(T)));
    heap_ = nullptr;
    cap_ = N;
  }
  // o's elements become ours; o is left empty (its own storage).
  void take(SmallVector& o) {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_, cap_ = o.cap_;
      o.heap_ = nullptr, o.cap_ = N;
    } else if (size_) {
      std::memcpy(static_cast<void*>(inline_), o.inline_, size_ * sizeof(T));
    }
    o.size_ = 0;
  }

  T* heap_ = nullptr;
  size_t size_ = 0, cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace cuzk
