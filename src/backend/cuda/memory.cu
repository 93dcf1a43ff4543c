// SPDX-License-Identifier: MIT OR Apache-2.0
#include "backend/cuda/common.cuh"
#include "backend/cuda/device_alloc.hpp"

namespace cuzk::gpu {

void copy_to_device(DeviceId dev, void* dst, const void* src, size_t bytes, const char* what) {
  DeviceScope s(dev);
  std::string detail = std::string(what) + ", " + std::to_string(bytes) + " bytes";
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), dev, "copy to device", detail);
  // From pageable memory cudaMemcpy may return once the data is staged, before the DMA lands;
  // kernels on non-blocking streams do not wait for the legacy stream, so wait here.
  check(cudaStreamSynchronize(cudaStreamLegacy), dev, "copy to device", detail);
}

void copy_to_host(DeviceId dev, void* dst, const void* src, size_t bytes, const char* what) {
  DeviceScope s(dev);
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), dev, "copy to host",
        std::string(what) + ", " + std::to_string(bytes) + " bytes");
}

DeviceBuffer::DeviceBuffer(DeviceId dev, size_t bytes) : dev_(dev), bytes_(bytes) {
  DeviceScope s(dev);
  cudaError_t e = cudaMalloc(&ptr_, bytes);
  if (e == cudaErrorMemoryAllocation) {  // the pool may keep, freed, what this needs
    cudaGetLastError();
    trim_pool(dev);
    e = cudaMalloc(&ptr_, bytes);
  }
  if (e != cudaSuccess) {
    ptr_ = nullptr;
    cudaGetLastError();  // not the next kernel's error
    check(e, dev, "cudaMalloc", std::to_string(bytes) + " bytes");
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) {
    DeviceScope s(dev_, std::nothrow);
    cudaFree(ptr_);
  }
}

int device_of(const void* ptr) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return a.type == cudaMemoryTypeDevice ? a.device : -1;
}

DeviceId detail::current_device() {
  int d = -1;
  cudaError_t e = cudaGetDevice(&d);
  if (e != cudaSuccess) throw GpuError(std::string("no current CUDA device: ") + cudaGetErrorString(e));
  return DeviceId{d};
}

}  // namespace cuzk::gpu
