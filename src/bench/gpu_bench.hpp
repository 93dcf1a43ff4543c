// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench`: GPU NTT, MSM (G1, G2), H and whole-proof timings on one named device.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::engine {
class Engine;
}

namespace cuzk::bench {

struct BenchOptions {
  std::vector<std::string> curves = {"bn254", "bls12-381"};
  std::vector<int> log_ns = {16, 18, 20, 22, 24};
  std::vector<std::string> ops = {"ntt", "msm-g1", "msm-g2", "h", "prove"};
  std::string device;  // "gpu:N" (required)
  // The engine that owns that GPU (required): every measurement runs under its lock and within
  // its budget (Engine::run_on_device), and `prove` runs as one-partition jobs on it. It must
  // not self-verify: the prove benchmark's key is random points.
  engine::Engine* engine = nullptr;
  uint64_t seed = 1;                  // the engine's EngineConfig::seed (its r, s are compared with the CPU's)
  int runs = 5;                       // timed runs after one warm-up; the median is reported
  std::vector<unsigned> window_bits;  // MSM window widths to time (empty: the one each call chooses)
  unsigned tables = 0;                // MSMs with up to this many tables of the bases (a resident key's; 0: none)
  double max_seconds = 540;           // stop cleanly (between measurements) once this much time has passed
  int g2_max_log_n = 24;              // G2 bases are twice as large and slower: cap their size
  int prove_max_log_n = 24;
};

struct BenchRow {
  std::string curve, op;
  int log_n = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
  std::string check;   // how the result was checked against the CPU, and the outcome
  std::string detail;  // phase breakdown of the median run
};

// Runs the sweep; prints each row as it completes (so a cut-off run still shows what it did).
// Throws on a failed check (a wrong result is never reported as a timing), and where cuzk was
// built without CUDA or the device is not a GPU.
std::vector<BenchRow> run_gpu_bench(const BenchOptions& opt);

std::string rows_to_json(const std::vector<BenchRow>& rows, const std::string& device_name);

}  // namespace cuzk::bench
