// SPDX-License-Identifier: MIT OR Apache-2.0
// DeviceSpec -> Device: the one place that knows which backend serves which kind of device.
#pragma once
#include <memory>

#include "backend/device.hpp"
#include "backend/spec.hpp"

namespace cuzk::backend {

// Throws InvalidArgument when the device is not available (a GPU not visible, or a build
// without CUDA).
std::unique_ptr<Device> open_device(const DeviceSpec& spec);

}  // namespace cuzk::backend
