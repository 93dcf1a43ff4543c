// SPDX-License-Identifier: MIT OR Apache-2.0
// What the CUDA runtime sees on this host. Built as a no-op where cuzk has no CUDA backend, so
// callers never need #ifdefs. Nothing here selects or defaults a device.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cuzk::backend {
class Device;
}

namespace cuzk::cuda {

struct DeviceInfo {
  int ordinal = -1;
  std::string name;
  size_t total_memory = 0;
  size_t free_memory = 0;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
};

bool built_with_cuda();
// Driver and runtime versions (0 when absent).
int driver_version();
int runtime_version();
// Every visible GPU; empty when there is no driver or no device (never throws).
std::vector<DeviceInfo> list_devices();

// The GPU `ordinal` as a backend::Device (cuda_device.cpp); an InvalidArgument where it is not
// visible or cuzk was built without CUDA.
std::unique_ptr<backend::Device> open_gpu(int ordinal);

// Field self-check kernels (one per field): out[i] = a[i] * b[i] + a[i] - b[i] -
// mul_sub(a[i], b[i], a[i] + b[i], a[i] - b[i]) computed on GPU `ordinal` for `n` elements (N 64-bit words
// each, 2N for an Fp2 element: c0 then c1). `field` is one of "bn254.fq", "bn254.fr",
// "bls12-381.fq", "bls12-381.fr", "bn254.fq2", "bls12-381.fq2". Returns "" on success, or an
// error naming the device, the kernel and the size.
std::string field_check(int ordinal, const std::string& field, const uint64_t* a, const uint64_t* b, uint64_t* out,
                        size_t n);

}  // namespace cuzk::cuda
