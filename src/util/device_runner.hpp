// How code outside the engine (setup, benchmarks) runs work on a device without a path around
// the device's lock and budget: the engine hands out a DeviceRunner (Engine::runner) and the
// caller puts every device allocation and kernel inside it.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace cuzk {

// run(bytes, what, fn): `fn` runs with `bytes` of the device's budget reserved and its lock held.
using DeviceRunner = std::function<void(size_t bytes, const std::string& what, const std::function<void()>& fn)>;

}  // namespace cuzk
