// SPDX-License-Identifier: MIT OR Apache-2.0
// Milliseconds on the steady clock: the one helper every timer in cuzk uses.
#pragma once
#include <chrono>

namespace cuzk {

using SteadyClock = std::chrono::steady_clock;

inline double ms_since(SteadyClock::time_point t0) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
}

}  // namespace cuzk
