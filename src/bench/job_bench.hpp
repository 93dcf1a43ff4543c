// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench --job porep`: a PoRep-shaped circuit, its insecure key and its witnesses made in
// memory (nothing written: a GPU host's disk is small), then jobs of many partitions through
// the engine on each listed set of devices, with throughput, busy fractions and the timeline.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ff/curve_id.hpp"

namespace cuzk::bench {

struct JobBenchOptions {
  CurveId curve = CurveId::bls12_381;
  std::string shape = "porep";
  int log_n = 20;
  uint32_t partitions = 10;
  uint32_t jobs = 1;                     // jobs per device set, submitted at once (a stream)
  std::vector<std::string> device_sets;  // e.g. {"gpu:0", "gpu:0,gpu:1"}
  std::string device_memory;             // --device-memory for every set ("" = default)
  int workers_per_device = 2;
  std::string setup_device = "auto";  // where the key's fixed-base work runs (gpu:N, cpu, auto)
  bool check_cpu = false;             // prove one partition on the CPU with the same r, s
  std::string out_dir;                // summary.json / timeline.svg per set ("" = none)
  uint64_t seed = 1;
};

// Prints a line per set and returns non-zero when any job failed or a check did not hold.
int run_job_bench(const JobBenchOptions& o);

}  // namespace cuzk::bench
