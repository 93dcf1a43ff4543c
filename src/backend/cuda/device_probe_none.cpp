#include "backend/cuda/probe.hpp"

namespace cuzk::cuda {

bool built_with_cuda() { return false; }
int driver_version() { return 0; }
int runtime_version() { return 0; }
std::vector<DeviceInfo> list_devices() { return {}; }
std::string field_check(int, const std::string&, const uint64_t*, const uint64_t*, uint64_t*, size_t) {
  return "cuzk was built without the CUDA backend";
}

}  // namespace cuzk::cuda
