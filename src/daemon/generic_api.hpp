// SPDX-License-Identifier: MIT OR Apache-2.0
// cuzk's own wire API, package cuzk.groth16.v1 (proto/cuzk/groth16/v1/engine.proto): in the
// daemon's code it is `v1`. Curio's API, package cuzk.v1, is served beside it by curio_service.
#pragma once
#include "cuzk/groth16/v1/engine.pb.h"

namespace cuzk::daemon {
namespace v1 = ::cuzk::groth16::v1;
}  // namespace cuzk::daemon
