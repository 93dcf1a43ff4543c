// SPDX-License-Identifier: MIT OR Apache-2.0
// Host-side vocabulary of the CUDA backend, free of CUDA headers so that .cpp code (the
// prover, the engine, the CLI) can use it with any compiler.
//
// Rules every GPU entry point follows:
//  - the device is an explicit DeviceId parameter; nothing reads or sets CUDA_VISIBLE_DEVICES,
//    nothing defaults to device 0, and the caller's current device is restored on return;
//  - a *_workspace_bytes() query says how much device memory a call needs, and the call then
//    allocates only from the DeviceMemory the caller hands it (so an engine can budget);
//  - CUDA errors come back as GpuError naming the device, the kernel or call, and the size;
//    nothing aborts the process;
//  - no global mutable state: caches belong to the objects that own them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "util/carver.hpp"
#include "util/error.hpp"

namespace cuzk::gpu {

struct DeviceId {
  int ordinal = -1;
  std::string name() const { return "gpu:" + std::to_string(ordinal); }
  friend bool operator==(DeviceId a, DeviceId b) { return a.ordinal == b.ordinal; }
};

struct GpuError : Error {
  using Error::Error;
};

// A block of device memory owned by the caller, on one device.
struct DeviceMemory {
  DeviceId device;
  void* ptr = nullptr;
  size_t bytes = 0;
};

// The workspace of a call, carved in order (util/carver.hpp). Throws GpuError naming the device,
// what was asked and what was left, when the caller's block is too small: that is a bug in a
// workspace query, never a reason to call cudaMalloc.
class Arena : public Carver {
 public:
  explicit Arena(const DeviceMemory& m) : Carver(m.ptr, m.bytes, m.device.name()) {}

 protected:
  [[noreturn]] void too_small(const std::string& msg) const override { throw GpuError(msg); }
};

// Owns one cudaMalloc'd block on one device (for tests, benchmarks and the CLI; the engine
// hands out memory from its own budgeted pool instead).
// Synchronous copies between host memory and a device pointer on `dev` (errors name both).
void copy_to_device(DeviceId dev, void* dst, const void* src, size_t bytes, const char* what);
void copy_to_host(DeviceId dev, void* dst, const void* src, size_t bytes, const char* what);

// The device that owns a device pointer (from the runtime's pointer attributes), or -1.
int device_of(const void* ptr);

namespace detail {
// The calling thread's current CUDA device (tests check that calls restore it).
DeviceId current_device();
}  // namespace detail

class DeviceBuffer {
 public:
  DeviceBuffer(DeviceId dev, size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceMemory memory() const { return {dev_, ptr_, bytes_}; }

 private:
  DeviceId dev_;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace cuzk::gpu

namespace cuzk::gpu {
// A cudaStream_t passed through code that must not include CUDA headers. Null means "the call
// makes its own stream and synchronises before returning".
struct StreamHandle {
  void* stream = nullptr;
};
}  // namespace cuzk::gpu
