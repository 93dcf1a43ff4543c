#include "backend/cuda/common.cuh"
#include "backend/cuda/device_alloc.hpp"

namespace cuzk::gpu {

PoolBuffer::PoolBuffer(DeviceId dev, size_t bytes, const char* what) : dev_(dev), bytes_(bytes) {
  DeviceScope s(dev);
  cudaStream_t st = nullptr;
  check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), dev, "cudaStreamCreate");
  stream_ = st;
  cudaError_t e = cudaMallocAsync(&ptr_, bytes, st);
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
  if (ptr_) {
    cudaFreeAsync(ptr_, st);
    cudaStreamSynchronize(st);  // this stream only: the memory is back in the pool
  }
  if (st) cudaStreamDestroy(st);
}

void memory_info(DeviceId dev, size_t* free_bytes, size_t* total_bytes) {
  DeviceScope s(dev);
  check(cudaMemGetInfo(free_bytes, total_bytes), dev, "cudaMemGetInfo");
}

}  // namespace cuzk::gpu
