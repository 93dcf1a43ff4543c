// The setup's fixed-base multiplications on the device asked for: the GPU's kernel (a workspace
// of up to 2^22 scalars per call, reserved and locked through the device's runner) or the CPU
// table over all threads of the pool.
#pragma once
#include <algorithm>

#include "setup/setup.hpp"
#include "setup/tools.hpp"
#include "util/error.hpp"
#if defined(CUZK_WITH_CUDA)
#include "backend/cuda/fixed_base.hpp"
#include "backend/cuda/gpu.hpp"
#endif

namespace cuzk::setup {

template <class E>
FixedBase make_fixed_base(SetupDevice dev, ThreadPool& pool) {
  if (!dev.gpu) return cpu_fixed_base<E>(pool);
#if defined(CUZK_WITH_CUDA)
  if (!dev.run) throw InvalidArgument("setup on " + dev.name() + ": no device runner (the engine owns the GPU)");
  return [dev](FixedGroup g, const cpu::Scalar* k, size_t n, void* out) {
    if (n == 0) return;
    const gpu::DeviceId id{dev.ordinal};
    const gpu::Group grp = g == FixedGroup::G1 ? gpu::Group::G1 : gpu::Group::G2;
    const size_t chunk = std::min<size_t>(n, size_t(1) << 22);
    const size_t bytes = gpu::fixed_base_workspace_bytes(E::id, grp, chunk);
    const std::string what = std::string("setup: fixed-base ") + (g == FixedGroup::G1 ? "G1" : "G2") + " x " +
                             std::to_string(n);
    dev.run(bytes, what, [&] {
      gpu::DeviceBuffer ws(id, bytes);
      if (g == FixedGroup::G1) {
        auto gen = generator<typename E::G1>();
        gpu::fixed_base_mul(id, E::id, grp, &gen, k, n, out, ws.memory());
      } else {
        auto gen = generator<typename E::G2>();
        gpu::fixed_base_mul(id, E::id, grp, &gen, k, n, out, ws.memory());
      }
    });
  };
#else
  (void)pool;
  throw InvalidArgument("this cuzk was built without CUDA: " + dev.name() + " is not available");
#endif
}

}  // namespace cuzk::setup
