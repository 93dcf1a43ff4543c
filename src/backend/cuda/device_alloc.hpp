// SPDX-License-Identifier: MIT OR Apache-2.0
// Device memory for the engine's working sets and resident keys, from the device's
// stream-ordered pool (cudaMallocAsync): taking and returning it does not synchronise the
// device (cudaFree waits for every kernel on it), so one worker's buffers come and go while
// another worker's kernels run. The pool keeps what is freed, mapped, for the next allocation;
// an allocation that finds too little gives the pool's unused memory back to the driver and
// tries once more. No CUDA types here.
#pragma once
#include <cstddef>
#include <memory>

#include "backend/cuda/gpu.hpp"

namespace cuzk::gpu {

class PoolBuffer {
 public:
  // Throws GpuError naming the device and the bytes when the device cannot provide them.
  // `bound`: the stream whose work uses the memory; the destructor waits for it before the
  // memory goes back to the pool (null: every user has already waited for its own work).
  PoolBuffer(DeviceId dev, size_t bytes, const char* what, StreamHandle bound = {});
  ~PoolBuffer();
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;
  DeviceMemory memory() const { return {dev_, ptr_, bytes_}; }

 private:
  DeviceId dev_;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  void* stream_ = nullptr;  // cudaStream_t of the allocation and the free
  void* bound_ = nullptr;   // cudaStream_t of the work that uses the memory
};

// A stream on `dev` (cudaStream_t behind the handle), for code without CUDA headers. Destroying
// it waits for its work.
StreamHandle create_stream(DeviceId dev);
void destroy_stream(DeviceId dev, StreamHandle s);  // waits for the stream's work first
void synchronize(DeviceId dev, StreamHandle s, const char* what);
void device_synchronize(DeviceId dev);  // every stream of the device (tests)

// The device's own time for a stream's work between two marks (a pair of CUDA events): start()
// marks the stream's queue; stop_ms() marks it again, waits for that mark and returns the
// device milliseconds between the two.
class StreamClock {
 public:
  StreamClock(DeviceId dev, StreamHandle s);
  ~StreamClock();
  StreamClock(const StreamClock&) = delete;
  StreamClock& operator=(const StreamClock&) = delete;
  void start();
  double stop_ms();

 private:
  DeviceId dev_;
  void* stream_ = nullptr;            // cudaStream_t
  void* ev_[2] = {nullptr, nullptr};  // cudaEvent_t
};

// A host-to-device copy from pageable memory through two pinned buffers of the calling thread
// (a few host threads fill one while the DMA empties the other, on a stream of the thread's
// own). The driver's own path for pageable copies is shared by every thread of the process: a
// large staging copy there holds up the small result reads inside another worker's kernels.
// Returns when the data is on the device. The source's page-locked runs (pin_host, or within a
// copy_page_locked buffer) go by DMA from where they are, the rest through the staging buffers.
void copy_to_device_staged(DeviceId dev, void* dst, const void* src, size_t bytes, const char* what);

// Host memory page-locked for every device's copies (cudaHostRegister, portable) until the
// handle goes; null when the driver refuses (the memory stays as it was). Registering holds the
// driver (~18 GB/s of memory locked): every other thread's copies and launches on any device
// wait for it meanwhile, even when the memory is registered in pieces (measured on an H200).
std::shared_ptr<void> pin_host(DeviceId dev, const void* p, size_t bytes);
// A copy of [p, p + bytes) (made by the copy pool's threads, ~27 GB/s) in a free page-locked
// buffer of those keep_page_locked_copies made (rounded up to 64 MiB; reused): the handle points
// at the copy, which copies to a device read by DMA, and gives the buffer back. No driver call,
// so nothing else on the device waits for it. Null when no buffer that large is free (none is
// allocated here).
std::shared_ptr<void> copy_page_locked(const void* p, size_t bytes);
// A free buffer of those kept, of at least `bytes`, handed out to be written (uninitialised;
// page-locked: copies from it go by DMA); none is allocated. Null when none is free.
std::shared_ptr<void> page_locked_buffer(size_t bytes);
// The room for copy_page_locked and page_locked_buffer, set (the caller combines what it needs):
// frees the free buffers beyond it (smaller than `bytes`, or more than `count`; one handed out
// is kept until it is given back and room is set or trimmed again) and allocates page-locked
// buffers until `count` of at least `bytes` exist (free or handed out; they serve every device),
// so that no allocation (which holds the driver like a registration) runs beside kernels later;
// returns how many exist (fewer where the host refused). count 0: no room, the idle buffers freed.
size_t keep_page_locked_copies(DeviceId dev, size_t bytes, size_t count);
// Frees the buffers copy_page_locked keeps and no handle uses, beyond the room asked for;
// returns their bytes.
size_t free_page_locked_copies();
// Whether [p, p + bytes) is page-locked end to end (by pin_host, side by side, or copy_page_locked).
bool is_pinned(const void* p, size_t bytes);

// Free and total memory of the device now: cudaMemGetInfo's free memory and what the pool keeps
// unused (free to this process's allocations).
void memory_info(DeviceId dev, size_t* free_bytes, size_t* total_bytes);

// The pool's memory that no buffer uses, kept for the next allocation.
size_t pool_idle_bytes(DeviceId dev);
// Gives that memory back to the driver (for other processes, or a plain cudaMalloc).
void trim_pool(DeviceId dev);

}  // namespace cuzk::gpu
