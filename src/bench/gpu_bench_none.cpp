// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench` (kernel timings) in a build without the CUDA backend.
#include "bench/gpu_bench.hpp"
#include "util/error.hpp"

namespace cuzk::bench {

std::vector<BenchRow> run_gpu_bench(const BenchOptions&) {
  throw Error("this cuzk was built without CUDA: cuzk bench times the GPU backend (cuzk bench --job runs anywhere)");
}

std::string rows_to_json(const std::vector<BenchRow>&, const std::string&) { return "{}"; }

}  // namespace cuzk::bench
