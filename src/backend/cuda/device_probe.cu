// SPDX-License-Identifier: MIT OR Apache-2.0
#include <cuda_runtime.h>

#include "backend/cuda/probe.hpp"

namespace cuzk::cuda {

bool built_with_cuda() { return true; }

int driver_version() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess) return 0;
  return v;
}

int runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return 0;
  return v;
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> out;
  if (driver_version() == 0) return out;  // no driver: every CUDA call would fail (error 35)
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return out;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.ordinal = i;
    d.name = p.name;
    d.total_memory = p.totalGlobalMem;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.multiprocessors = p.multiProcessorCount;
    // Free memory is read on that device explicitly; the calling thread's current device is
    // restored so that probing never changes what other code sees.
    int prev = -1;
    cudaGetDevice(&prev);
    if (cudaSetDevice(i) == cudaSuccess) {
      size_t fr = 0, tot = 0;
      if (cudaMemGetInfo(&fr, &tot) == cudaSuccess) d.free_memory = fr;
    }
    if (prev >= 0) cudaSetDevice(prev);
    out.push_back(d);
  }
  return out;
}

}  // namespace cuzk::cuda
