// SPDX-License-Identifier: MIT OR Apache-2.0
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "backend/cuda/common.cuh"
#include "backend/cuda/device_alloc.hpp"
#include "util/ranges.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::gpu {

namespace {
cudaMemPool_t default_pool(DeviceId dev) {
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetDefaultMemPool(&pool, dev.ordinal) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return pool;
}

// The device's pool keeps what its buffers free, mapped, for the next allocation (its release
// threshold: everything). Given back to the driver at each synchronisation, as by default, a
// 3 GiB working set costs ~4 ms to map again at the next partition's stage and ~5 ms to unmap at
// its free, inside the device's lock. Once per device, before its first allocation.
void keep_freed_memory(DeviceId dev) {
  static std::mutex mu;
  static std::set<int> done;
  std::lock_guard lk(mu);
  if (!done.insert(dev.ordinal).second) return;
  if (cudaMemPool_t pool = default_pool(dev)) {
    uint64_t keep = UINT64_MAX;
    if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) cudaGetLastError();
  }
}

bool out_of_memory(cudaError_t e) { return e == cudaErrorMemoryAllocation; }
}  // namespace

void trim_pool(DeviceId dev) {
  DeviceScope s(dev, std::nothrow);
  if (cudaMemPool_t pool = default_pool(dev))
    if (cudaMemPoolTrimTo(pool, 0) != cudaSuccess) cudaGetLastError();
}

size_t pool_idle_bytes(DeviceId dev) {
  cudaMemPool_t pool = default_pool(dev);
  uint64_t reserved = 0, used = 0;
  if (!pool || cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return reserved > used ? size_t(reserved - used) : 0;
}

PoolBuffer::PoolBuffer(DeviceId dev, size_t bytes, const char* what, StreamHandle bound)
    : dev_(dev), bytes_(bytes), bound_(bound.stream) {
  DeviceScope s(dev);
  keep_freed_memory(dev);
  cudaStream_t st = nullptr;
  check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), dev, "cudaStreamCreate");
  stream_ = st;
  cudaError_t e = cudaMallocAsync(&ptr_, bytes, st);
  if (out_of_memory(e)) {
    // What the pool keeps is in pieces of earlier sizes; memory not mapped to it may be what a
    // larger allocation needs. Unused pieces go back to the driver and the allocation is tried
    // again.
    cudaGetLastError();
    trim_pool(dev);
    e = cudaMallocAsync(&ptr_, bytes, st);
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(st);
  if (e != cudaSuccess) {
    ptr_ = nullptr;
    cudaGetLastError();
    cudaStreamDestroy(st);
    stream_ = nullptr;
    check(e, dev, "cudaMallocAsync", std::string(what) + ", " + std::to_string(bytes) + " bytes");
  }
}

PoolBuffer::~PoolBuffer() {
  DeviceScope s(dev_, std::nothrow);
  auto st = static_cast<cudaStream_t>(stream_);
  // Kernels still queued on the bound stream may write here: the memory goes back to the pool
  // (where another worker's allocation can take it at once) only after they are done.
  if (bound_) cudaStreamSynchronize(static_cast<cudaStream_t>(bound_));
  if (ptr_) {
    cudaFreeAsync(ptr_, st);
    cudaStreamSynchronize(st);  // this stream only: the memory is back in the pool
  }
  if (st) cudaStreamDestroy(st);
}

namespace {
// Two pinned buffers, their events and a stream, per thread and device; freed at thread exit.
struct Staging {
  static constexpr size_t kChunk = size_t(32) << 20;
  int ordinal = -1;
  void* buf[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};
  bool pending[2] = {false, false};
  cudaStream_t stream = nullptr;
  Staging() = default;
  Staging(const Staging&) = delete;
  ~Staging() {
    if (ordinal < 0) return;
    DeviceScope s(DeviceId{ordinal}, std::nothrow);
    release();
  }
  void release() {
    if (stream) cudaStreamSynchronize(stream);
    for (int i = 0; i < 2; ++i) {
      if (buf[i]) cudaFreeHost(buf[i]);
      if (done[i]) cudaEventDestroy(done[i]);
      buf[i] = nullptr, done[i] = nullptr, pending[i] = false;
    }
    if (stream) cudaStreamDestroy(stream);
    stream = nullptr;
  }
  // All or nothing: `ordinal` is set only once every resource exists.
  void init(DeviceId dev) {
    try {
      check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), dev, "cudaStreamCreate (staging)");
      for (int i = 0; i < 2; ++i) {
        check(cudaHostAlloc(&buf[i], kChunk, cudaHostAllocPortable), dev, "cudaHostAlloc (staging)",
              std::to_string(kChunk) + " bytes");
        check(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming), dev, "cudaEventCreate (staging)");
      }
    } catch (...) {
      release();
      throw;
    }
    ordinal = dev.ordinal;
  }
};
thread_local std::map<int, Staging> t_staging;

// The threads that fill the pinned buffers, shared by every staging copy of the process: one
// thread copies pageable memory at 5-7 GB/s, the DMA from pinned memory runs at ~50 GB/s, so a
// chunk's memcpy is split over up to 8 threads (half the host's, the caller's included).
// Never destroyed: a copy running while the process exits (an engine owned by a static) must
// not find its pool gone.
ThreadPool& copy_pool() {
  static ThreadPool& pool = *new ThreadPool(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u));
  return pool;
}

void fill(void* dst, const void* src, size_t len) {
  constexpr size_t kPiece = size_t(2) << 20;
  if (len <= kPiece) {
    std::memcpy(dst, src, len);
    return;
  }
  copy_pool().parallel_for((len + kPiece - 1) / kPiece, [&](size_t b, size_t e) {
    const size_t from = b * kPiece, to = std::min(len, e * kPiece);
    std::memcpy(static_cast<char*>(dst) + from, static_cast<const char*>(src) + from, to - from);
  });
}

// The ranges pin_host page-locked and the buffers copy_page_locked handed out.
// Never destroyed (as the copy pool): a copy or a handle's end while the process exits (an
// engine owned by a static) must not find them gone.
std::mutex& g_pinned_mu = *new std::mutex;
RangeSet& g_pinned = *new RangeSet;

RangeSet::Run pinned_run(const void* p, size_t bytes) {
  std::lock_guard lk(g_pinned_mu);
  return g_pinned.first_run(reinterpret_cast<uintptr_t>(p), bytes);
}

// Page-locked buffers for copy_page_locked and page_locked_buffer, allocated by
// keep_page_locked_copies and kept: by size, the free ones and
// the sizes of those handed out; and the room asked for (keep_page_locked_copies): `count`
// buffers of at least `bytes`.
std::mutex& g_copies_mu = *new std::mutex;
std::multimap<size_t, void*>& g_free_copies = *new std::multimap<size_t, void*>;
std::multiset<size_t>& g_used_copies = *new std::multiset<size_t>;
size_t g_keep_bytes = 0, g_keep_count = 0;

// Buffers of at least `bytes`, free or handed out (under g_copies_mu).
size_t copies_of_at_least(size_t bytes) {
  return size_t(std::distance(g_free_copies.lower_bound(bytes), g_free_copies.end()) +
                std::distance(g_used_copies.lower_bound(bytes), g_used_copies.end()));
}

size_t copy_buffer_size(size_t bytes) {
  constexpr size_t kRound = size_t(64) << 20;  // a slightly larger witness later reuses it
  return (bytes + kRound - 1) / kRound * kRound;
}

void* allocate_copy_buffer(DeviceId dev, size_t size) {
  DeviceScope s(dev);
  void* p = nullptr;
  if (cudaHostAlloc(&p, size, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

// The smallest free buffer of at least `bytes`, handed out; {null, 0} when none is free (none is
// allocated here: a cudaHostAlloc beside kernels holds up every other thread's copies).
std::pair<void*, size_t> take_copy_buffer(size_t bytes) {
  std::lock_guard lk(g_copies_mu);
  auto it = g_free_copies.lower_bound(bytes);
  if (it == g_free_copies.end()) return {nullptr, 0};
  const auto got = std::make_pair(it->second, it->first);
  g_free_copies.erase(it);
  g_used_copies.insert(got.second);
  return got;
}

void give_back_copy_buffer(void* p, size_t size) {
  std::lock_guard lk(g_copies_mu);
  g_used_copies.erase(g_used_copies.find(size));
  g_free_copies.emplace(size, p);
}
}  // namespace

bool is_pinned(const void* p, size_t bytes) {
  std::lock_guard lk(g_pinned_mu);
  return g_pinned.covers(reinterpret_cast<uintptr_t>(p), bytes);
}

std::shared_ptr<void> pin_host(DeviceId dev, const void* p, size_t bytes) {
  if (!p || bytes == 0) return nullptr;
  DeviceScope s(dev);
  void* q = const_cast<void*>(p);
  if (cudaHostRegister(q, bytes, cudaHostRegisterPortable) != cudaSuccess) {
    cudaGetLastError();  // refused (too much locked memory, already registered): copies stage
    return nullptr;
  }
  const uintptr_t b = reinterpret_cast<uintptr_t>(q);
  {
    std::lock_guard lk(g_pinned_mu);
    g_pinned.add(b, b + bytes);
  }
  return std::shared_ptr<void>(q, [dev, b](void* r) {
    {
      std::lock_guard lk(g_pinned_mu);
      g_pinned.erase(b);
    }
    DeviceScope s(dev, std::nothrow);
    cudaHostUnregister(r);
  });
}

namespace {
// A kept buffer taken (take_copy_buffer) as a handle: its range counted page-locked until the
// handle goes and gives the buffer back.
std::shared_ptr<void> hand_out_copy_buffer(void* buf, size_t size) {
  const uintptr_t b = reinterpret_cast<uintptr_t>(buf);
  try {
    std::lock_guard lk(g_pinned_mu);
    g_pinned.add(b, b + size);  // page-locked by its allocation: copies from it go by DMA
  } catch (...) {
    give_back_copy_buffer(buf, size);
    throw;
  }
  return std::shared_ptr<void>(buf, [b, size](void*) {
    {
      std::lock_guard lk(g_pinned_mu);
      g_pinned.erase(b);
    }
    give_back_copy_buffer(reinterpret_cast<void*>(b), size);
  });
}
}  // namespace

std::shared_ptr<void> copy_page_locked(const void* p, size_t bytes) {
  if (!p || bytes == 0) return nullptr;
  const auto [buf, size] = take_copy_buffer(bytes);
  if (!buf) return nullptr;
  try {
    fill(buf, p, bytes);
  } catch (...) {
    give_back_copy_buffer(buf, size);
    throw;
  }
  return hand_out_copy_buffer(buf, size);
}

std::shared_ptr<void> page_locked_buffer(size_t bytes) {
  if (bytes == 0) return nullptr;
  const auto [buf, size] = take_copy_buffer(bytes);
  if (!buf) return nullptr;
  return hand_out_copy_buffer(buf, size);
}

size_t keep_page_locked_copies(DeviceId dev, size_t bytes, size_t count) {
  size_t have = 0;
  {
    std::lock_guard lk(g_copies_mu);
    g_keep_bytes = count == 0 ? 0 : bytes, g_keep_count = count;
    have = count == 0 ? 0 : copies_of_at_least(bytes);
  }
  free_page_locked_copies();  // free buffers beyond the room now asked for: smaller, or too many
  if (count == 0) return 0;
  const size_t size = copy_buffer_size(bytes);
  for (; have < count; ++have) {
    void* p = allocate_copy_buffer(dev, size);
    if (!p) break;
    std::lock_guard lk(g_copies_mu);
    g_free_copies.emplace(size, p);
  }
  return have;
}

size_t free_page_locked_copies() {
  std::vector<std::pair<size_t, void*>> idle;
  {
    std::lock_guard lk(g_copies_mu);
    // The room asked for stays: the largest free buffers of the kept size, as many as are not
    // handed out.
    const size_t used = size_t(std::distance(g_used_copies.lower_bound(g_keep_bytes), g_used_copies.end()));
    size_t keep = g_keep_count > used ? g_keep_count - used : 0;
    for (auto it = g_free_copies.end(); it != g_free_copies.begin();) {
      --it;
      if (keep > 0 && it->first >= g_keep_bytes) {
        --keep;
      } else {
        idle.emplace_back(*it);
        it = g_free_copies.erase(it);
      }
    }
  }
  size_t bytes = 0;
  for (const auto& [size, p] : idle) cudaFreeHost(p), bytes += size;
  return bytes;
}

void copy_to_device_staged(DeviceId dev, void* dst, const void* src, size_t bytes, const char* what) {
  if (bytes == 0) return;
  DeviceScope s(dev);
  Staging& st = t_staging[dev.ordinal];
  if (st.ordinal < 0) st.init(dev);
  const std::string detail = std::string(what) + ", " + std::to_string(bytes) + " bytes";
  int i = 0;
  try {
    // The source's page-locked runs go by DMA from where they are (one DMA per range: one cannot
    // span two registrations); the rest through the two staging buffers. One stream: the runs
    // land in order.
    for (size_t at = 0; at < bytes;) {
      const RangeSet::Run run = pinned_run(static_cast<const char*>(src) + at, bytes - at);
      if (run.covered) {
        check(cudaMemcpyAsync(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, run.bytes,
                              cudaMemcpyHostToDevice, st.stream),
              dev, "copy to device (page-locked)", detail);
        at += run.bytes;
        continue;
      }
      for (const size_t end = at + run.bytes; at < end; i ^= 1) {
        const size_t len = std::min(end - at, Staging::kChunk);
        if (st.pending[i]) check(cudaEventSynchronize(st.done[i]), dev, "copy to device (staging)", detail);
        fill(st.buf[i], static_cast<const char*>(src) + at, len);
        check(cudaMemcpyAsync(static_cast<char*>(dst) + at, st.buf[i], len, cudaMemcpyHostToDevice, st.stream), dev,
              "copy to device (staging)", detail);
        check(cudaEventRecord(st.done[i], st.stream), dev, "copy to device (staging)", detail);
        st.pending[i] = true;
        at += len;
      }
    }
    check(cudaStreamSynchronize(st.stream), dev, "copy to device", detail);
  } catch (...) {
    cudaStreamSynchronize(st.stream);  // nothing of this call still lands in `dst` afterwards
    st.pending[0] = st.pending[1] = false;
    throw;
  }
  st.pending[0] = st.pending[1] = false;
}

StreamHandle create_stream(DeviceId dev) {
  DeviceScope s(dev);
  cudaStream_t st = nullptr;
  check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), dev, "cudaStreamCreate");
  return StreamHandle{st};
}

void destroy_stream(DeviceId dev, StreamHandle h) {
  if (!h.stream) return;
  DeviceScope s(dev, std::nothrow);
  cudaStreamSynchronize(static_cast<cudaStream_t>(h.stream));
  cudaStreamDestroy(static_cast<cudaStream_t>(h.stream));
}

void synchronize(DeviceId dev, StreamHandle h, const char* what) {
  DeviceScope s(dev);
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(h.stream)), dev, what);
}

// A failed call of the clock must not leave its error behind for the next launch's check.
static void clock_check(cudaError_t e, DeviceId dev, const char* what) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  check(e, dev, what);
}

StreamClock::StreamClock(DeviceId dev, StreamHandle s) : dev_(dev), stream_(s.stream) {
  DeviceScope scope(dev);
  for (auto& e : ev_) {
    cudaEvent_t ev = nullptr;
    clock_check(cudaEventCreate(&ev), dev, "cudaEventCreate (stream clock)");
    e = ev;
  }
}

StreamClock::~StreamClock() {
  DeviceScope scope(dev_, std::nothrow);
  for (auto e : ev_)
    if (e) cudaEventDestroy(static_cast<cudaEvent_t>(e));
}

void StreamClock::start() {
  DeviceScope scope(dev_);
  clock_check(cudaEventRecord(static_cast<cudaEvent_t>(ev_[0]), static_cast<cudaStream_t>(stream_)), dev_,
              "cudaEventRecord (stream clock)");
}

double StreamClock::stop_ms() {
  DeviceScope scope(dev_);
  const auto a = static_cast<cudaEvent_t>(ev_[0]), b = static_cast<cudaEvent_t>(ev_[1]);
  clock_check(cudaEventRecord(b, static_cast<cudaStream_t>(stream_)), dev_, "cudaEventRecord (stream clock)");
  clock_check(cudaEventSynchronize(b), dev_, "cudaEventSynchronize (stream clock)");
  float ms = 0;
  clock_check(cudaEventElapsedTime(&ms, a, b), dev_, "cudaEventElapsedTime (stream clock)");
  return double(ms);
}

void device_synchronize(DeviceId dev) {
  DeviceScope s(dev);
  check(cudaDeviceSynchronize(), dev, "cudaDeviceSynchronize");
}

void memory_info(DeviceId dev, size_t* free_bytes, size_t* total_bytes) {
  DeviceScope s(dev);
  check(cudaMemGetInfo(free_bytes, total_bytes), dev, "cudaMemGetInfo");
  *free_bytes += pool_idle_bytes(dev);  // kept by the pool for the next allocation, free to it
}

}  // namespace cuzk::gpu
