// SPDX-License-Identifier: MIT OR Apache-2.0
#include "backend/cuda/probe.hpp"
#include "backend/device.hpp"
#include "util/error.hpp"

namespace cuzk::cuda {

bool built_with_cuda() { return false; }
int driver_version() { return 0; }
int runtime_version() { return 0; }
std::vector<DeviceInfo> list_devices() { return {}; }
std::unique_ptr<backend::Device> open_gpu(int ordinal) {
  throw InvalidArgument("gpu:" + std::to_string(ordinal) + " is not available (this cuzk was built without CUDA)");
}
std::string field_check(int, const std::string&, const uint64_t*, const uint64_t*, uint64_t*, size_t) {
  return "cuzk was built without the CUDA backend";
}

}  // namespace cuzk::cuda
