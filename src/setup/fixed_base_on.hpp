// SPDX-License-Identifier: MIT OR Apache-2.0
// The setup's fixed-base multiplications on a device of an engine (the CPU's table over its
// threads, or a GPU's kernel): each call reserves and allocates the device's own workspace
// figure and runs under its lock, through Engine::run_on_device.
#pragma once
#include <algorithm>

#include "backend/cpu/fixed_base.hpp"
#include "engine/engine.hpp"
#include "setup/setup.hpp"
#include "setup/tools.hpp"

namespace cuzk::setup {

template <class E>
FixedBase fixed_base_on(const SetupDevice& dev) {
  if (!dev.engine) throw InvalidArgument("setup on " + dev.name + ": no engine owns the device");
  return [dev](FixedGroup g, const cpu::Scalar* k, size_t n, void* out) {
    if (n == 0) return;
    const backend::Group grp = g == FixedGroup::G1 ? backend::Group::G1 : backend::Group::G2;
    const size_t chunk = std::min<size_t>(n, size_t(1) << 22);
    const size_t bytes = dev.engine->ask_device(
        dev.name, [&](const backend::Device& d) { return d.fixed_base_workspace_bytes(E::id, grp, chunk); });
    const std::string what =
        std::string("setup: fixed-base ") + (g == FixedGroup::G1 ? "G1" : "G2") + " x " + std::to_string(n);
    dev.engine->run_on_device(dev.name, bytes, what, [&](backend::Device& d, backend::Memory ws, backend::Stream& s) {
      if (g == FixedGroup::G1) {
        const auto gen = cpu::generator<typename E::G1>();
        d.fixed_base_mul(E::id, grp, &gen, k, n, out, ws, s);
      } else {
        const auto gen = cpu::generator<typename E::G2>();
        d.fixed_base_mul(E::id, grp, &gen, k, n, out, ws, s);
      }
    });
  };
}

}  // namespace cuzk::setup
