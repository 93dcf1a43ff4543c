// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA-side helpers shared by the backend's .cu files.
#pragma once
#include <cuda_runtime.h>
#include <new>
#include <string>

#include "backend/cuda/gpu.hpp"

namespace cuzk::gpu {

// Throws GpuError "gpu:N: <what> (<detail>): <cuda error string>" when e is not cudaSuccess.
inline void check(cudaError_t e, DeviceId dev, const char* what, const std::string& detail = "") {
  if (e == cudaSuccess) return;
  std::string msg = dev.name() + ": " + what;
  if (!detail.empty()) msg += " (" + detail + ")";
  msg += ": ";
  msg += cudaGetErrorString(e);
  throw GpuError(msg);
}

// Makes `dev` current for the scope and restores the caller's device afterwards.
class DeviceScope {
 public:
  explicit DeviceScope(DeviceId dev) {
    cudaGetDevice(&prev_);
    cudaError_t e = cudaSetDevice(dev.ordinal);
    if (e != cudaSuccess) {
      cudaGetLastError();  // do not leave the failure as the thread's last error
      check(e, dev, "cudaSetDevice");
    }
  }
  // For destructors and cleanup paths: never throws (a destructor that throws aborts the
  // process); a failure leaves the current device as it was and clears the error.
  DeviceScope(DeviceId dev, std::nothrow_t) {
    cudaGetDevice(&prev_);
    if (cudaSetDevice(dev.ordinal) != cudaSuccess) cudaGetLastError();
  }
  ~DeviceScope() {
    if (prev_ >= 0) cudaSetDevice(prev_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int prev_ = -1;
};

// A non-blocking stream on one device. Destroying it first waits for its work: a call that
// throws after queueing kernels must not leave them running into memory its caller then frees.
class Stream {
 public:
  explicit Stream(DeviceId dev) : dev_(dev) {
    DeviceScope s(dev);
    check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), dev, "cudaStreamCreate");
  }
  ~Stream() {
    if (s_) {
      DeviceScope d(dev_, std::nothrow);
      cudaStreamSynchronize(s_);
      cudaStreamDestroy(s_);
    }
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  DeviceId device() const { return dev_; }
  void sync(const char* what) const { check(cudaStreamSynchronize(s_), dev_, what); }

 private:
  DeviceId dev_;
  cudaStream_t s_ = nullptr;
};

// After a launch: reports launch errors with the kernel's name and size.
inline void check_launch(DeviceId dev, const char* kernel, size_t n) {
  check(cudaGetLastError(), dev, kernel, "n = " + std::to_string(n));
}

}  // namespace cuzk::gpu
