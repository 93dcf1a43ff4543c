// What the engine records about each partition it runs and each device it owns: enough to
// answer "where did this partition run, who waited for what, were both GPUs busy?" afterwards.
// Times are milliseconds since the engine's epoch (steady clock), so records of one engine share
// one time axis.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::engine {

struct Span {
  double start_ms = -1, end_ms = -1;  // -1: the phase did not happen
  bool happened() const { return start_ms >= 0 && end_ms >= start_ms; }
  double ms() const { return happened() ? end_ms - start_ms : 0; }
};

struct PartitionRecord {
  uint64_t job = 0;
  uint32_t index = 0;      // partition index within its job
  std::string device;      // "gpu:0", "sim:1", ... where its kernels ran (last attempt)
  int worker = -1;         // worker number on that device
  int attempts = 0;        // 1, or 2 after a retry on another device
  bool ok = false;
  std::string error;       // when !ok
  bool streamed = false;   // the key did not fit next to the working set: points streamed in chunks
  size_t reserved_bytes = 0;  // device memory reserved for this partition's working set
  // Phases on the shared time axis.
  Span queued;     // submitted -> synthesis starts
  Span synth;      // witness load and a, b, c (CPU)
  Span stage;      // outside the device lock: reservation, staging copies
  double budget_wait_ms = 0;  // inside `stage`: waiting for the device's memory budget
  Span lock_wait;  // waiting for the device's lock
  Span kernels;    // under the device's lock: NTT/H and the MSMs
  Span finish;     // outside: assembly, self-verification, encoding
  // Inside `kernels`.
  double ntt_h_ms = 0, msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_c_ms = 0, msm_h_ms = 0;
};

struct DeviceRecord {
  std::string name;         // "gpu:0", "sim:0"
  std::string description;  // e.g. "NVIDIA H200" or "simulated, speed 1.0"
  int workers = 0;
  size_t budget_bytes = 0;
  double busy_ms = 0;       // time under the lock (kernels)
  size_t partitions = 0;    // partitions whose kernels ran here
};

}  // namespace cuzk::engine
