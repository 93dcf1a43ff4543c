// SPDX-License-Identifier: MIT OR Apache-2.0
// The prover on each GPU against the CPU prover: for every committed fixture (both curves), the
// same r, s must give byte-identical proofs, and the proof must verify. Skips without a GPU.
#include <filesystem>

#include "backend/cuda/probe.hpp"
#include "cuzk/prove.hpp"
#include "gpu_testing.hpp"
#include "testing.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
namespace fs = std::filesystem;

CUZK_TEST(gpu_proofs_equal_cpu_proofs_on_every_device) {
  auto gpus = test::gpus_or_skip();
  fs::path root = test::fixtures_dir();
  if (!fs::exists(root)) SKIP("no fixtures");
  ThreadPool pool(0);
  int compared = 0;
  for (const char* curve : {"bn254", "bls12-381"})
    for (auto& e : fs::directory_iterator(root / curve)) {
      std::string zkey = (e.path() / "circuit.zkey").string(), wtns = (e.path() / "witness.wtns").string();
      if (!fs::exists(zkey) || !fs::exists(wtns)) continue;
      ProveOptions cpu;
      cpu.seed = test::seed();
      auto want = prove_files(zkey, wtns, cpu, pool);
      for (auto& g : gpus) {
        ProveOptions o = cpu;
        o.device = "gpu:" + std::to_string(g.ordinal);
        o.verify = true;
        auto got = prove_files(zkey, wtns, o, pool);
        CHECK_MSG(got.proof_json == want.proof_json, e.path().string() << " on gpu:" << g.ordinal);
        CHECK(got.proof_compressed == want.proof_compressed);
        CHECK_EQ(got.public_json, want.public_json);
        // where the working memory lived, as the CUDA runtime reports it
        CHECK_EQ(got.device, "gpu:" + std::to_string(g.ordinal));
        ++compared;
      }
    }
  CHECK_MSG(compared >= 8, "only " << compared << " fixture proofs compared");
  std::printf("  %d GPU proofs identical to the CPU's\n", compared);
}
