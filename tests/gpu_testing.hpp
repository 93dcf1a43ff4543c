// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by the GPU tests: the visible GPUs, or SKIP where there are none.
#pragma once
#include <vector>

#include "backend/cuda/probe.hpp"
#include "testing.hpp"

namespace cuzk::test {

inline std::vector<cuda::DeviceInfo> gpus_or_skip() {
  mark_gpu_case();
  if (!cuda::built_with_cuda()) SKIP("built without CUDA");
  auto d = cuda::list_devices();
  if (d.empty()) SKIP("no GPU visible");
  return d;
}

}  // namespace cuzk::test
