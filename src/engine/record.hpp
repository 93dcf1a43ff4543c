// SPDX-License-Identifier: MIT OR Apache-2.0
// What the engine records about each partition it runs and each device it owns: enough to
// answer "where did this partition run, who waited for what, were both GPUs busy?" afterwards.
// Times are milliseconds since the engine's epoch (steady clock), so records of one engine share
// one time axis.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "groth16/phases.hpp"

namespace cuzk::engine {

using cuzk::Span;

// Why a partition failed: its input (a witness that cannot be read or does not satisfy the
// circuit: another attempt anywhere fails the same way), or something transient (the device or
// the host: out of memory, a device error, a proof that does not verify: another device may
// prove it).
enum class FailureKind { None, BadInput, Transient };

struct PartitionRecord {
  uint64_t job = 0;
  uint32_t index = 0;  // partition index within its job
  std::string device;  // "gpu:0", "cpu", "sim:1", ... where its kernels ran (last attempt)
  int worker = -1;     // worker number on that device
  int attempts = 0;    // 1, or 2 after a retry on another device
  bool ok = false;
  std::string error;  // when !ok: the failure alone (the job's error names partition and device)
  FailureKind failure = FailureKind::None;
  bool streamed = false;      // the key did not fit next to the working set: points streamed in chunks
  size_t reserved_bytes = 0;  // device memory reserved for this partition's working set
  PhaseSpans spans;           // every phase (groth16/phases.hpp) on the shared time axis
  double device_ms = -1;      // the kernel phases on the device's own clock (events); -1: none
  double ms(Phase p) const { return spans.ms(p); }
};

// Adds one partition's device time (PartitionRecord::device_ms) to a device's total; -1 (no
// clock) adds nothing, and a total stays -1 until a partition brings some.
inline void add_device_ms(double& total, double part) {
  if (part >= 0) total = (total < 0 ? 0.0 : total) + part;
}

struct DeviceRecord {
  std::string name;         // "gpu:0", "cpu", "sim:0"
  std::string description;  // e.g. "NVIDIA H200" or "simulated (CPU backend), speed 1.0"
  int workers = 0;
  size_t budget_bytes = 0;
  double busy_ms = 0;     // time under the lock (kernels)
  size_t partitions = 0;  // partitions whose kernels ran here
  double device_ms = -1;  // its partitions' device_ms summed: the device's activity; -1: no clock
};

}  // namespace cuzk::engine
