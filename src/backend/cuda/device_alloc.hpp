// Device memory for the engine's working sets and resident keys, from the device's
// stream-ordered pool (cudaMallocAsync): taking and returning it does not synchronise the
// device (cudaFree waits for every kernel on it), so one worker's buffers come and go while
// another worker's kernels run. No CUDA types here.
#pragma once
#include <cstddef>

#include "backend/cuda/gpu.hpp"

namespace cuzk::gpu {

class PoolBuffer {
 public:
  // Throws GpuError naming the device and the bytes when the device cannot provide them.
  PoolBuffer(DeviceId dev, size_t bytes, const char* what);
  ~PoolBuffer();
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;
  DeviceMemory memory() const { return {dev_, ptr_, bytes_}; }

 private:
  DeviceId dev_;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  void* stream_ = nullptr;  // cudaStream_t
};

// Free and total memory of the device now (cudaMemGetInfo).
void memory_info(DeviceId dev, size_t* free_bytes, size_t* total_bytes);

}  // namespace cuzk::gpu
