// SPDX-License-Identifier: MIT OR Apache-2.0
#include "backend/open.hpp"

#include "backend/cpu/device.hpp"
#include "backend/cuda/probe.hpp"

namespace cuzk::backend {

std::unique_ptr<Device> open_device(const DeviceSpec& spec) {
  if (spec.kind == DeviceSpec::Kind::Gpu) return cuda::open_gpu(spec.index);
  cpu::CpuDeviceOptions o;
  o.name = spec.name();
  o.simulated = spec.kind == DeviceSpec::Kind::Sim;
  o.capacity = o.simulated ? spec.memory : 0;
  o.threads = spec.threads;
  o.speed = spec.speed;
  o.kernel_ms = spec.sim_kernel_ms;
  o.stage_ms = spec.sim_stage_ms;
  o.free_ms = spec.sim_free_ms;
  return std::make_unique<cpu::CpuDevice>(o);
}

}  // namespace cuzk::backend
