// SPDX-License-Identifier: MIT OR Apache-2.0
// The setup and generator tools behind `cuzk setup` and `cuzk gen-circuit`. No CUDA types here.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ec/curves.hpp"
#include "ff/curve_id.hpp"
#include "groth16/key.hpp"
#include "io/r1cs.hpp"
#include "setup/synthetic.hpp"

namespace cuzk {
class ThreadPool;
}
namespace cuzk::engine {
class Engine;
}

namespace cuzk::setup {

using Log = std::function<void(const std::string&)>;

// Where fixed-base multiplications run: a device (`name`: "cpu", "gpu:N") of an engine that
// owns it (engine::tool_engine), so that every allocation and kernel of the setup runs under
// the device's lock and budget.
struct SetupDevice {
  engine::Engine* engine = nullptr;
  std::string name = "cpu";
};

struct SetupStats {
  std::string curve, device;
  uint32_t n_vars = 0, n_public = 0;
  size_t n_rows = 0, nnz = 0;  // constraints, non-zeros of A, B, C (generated circuits)
  int log_n = 0;
  double read_ms = 0, synth_ms = 0, lagrange_ms = 0, columns_ms = 0, scalars_ms = 0, g1_ms = 0, g2_ms = 0, setup_ms = 0,
         write_ms = 0, witness_ms = 0, total_ms = 0;
  size_t g1_points = 0, g2_points = 0;
  double witness_bits = 0;  // fraction of witness values that are 0 or 1 (first partition)
};

// `cuzk setup`: an insecure key for `r1cs_path`, written to `zkey_path`. The toxic waste comes
// from `seed` (reproducible) or the OS CSPRNG.
SetupStats setup_files(const std::string& r1cs_path, const std::string& zkey_path, std::optional<uint64_t> seed,
                       SetupDevice dev, ThreadPool& pool, const Log& log);

// The insecure key of `cs` (BLS12-381) in `form`, for writers above this layer (bellperson's
// .params: HForm::Coefficients); `st` gets the sizes and timings.
groth16::ProvingKey<ec::Bls12381> setup_key_bls12_381(const io::R1cs& cs, std::optional<uint64_t> seed, SetupDevice dev,
                                                      ThreadPool& pool, const Log& log, backend::HForm form,
                                                      SetupStats& st);

struct GenOptions {
  SyntheticSpec spec;
  CurveId curve = CurveId::bls12_381;
  std::string out_dir;      // empty: in memory only (nothing written; timings reported)
  uint32_t partitions = 1;  // witnesses
  bool setup = false;       // also make an insecure key
  std::optional<uint64_t> setup_seed;
  SetupDevice device;
};

// `cuzk gen-circuit`: circuit.r1cs, witness_<i>.wtns, circuit.zkey (with setup) in out_dir.
SetupStats gen_circuit(const GenOptions& opt, ThreadPool& pool, const Log& log);

}  // namespace cuzk::setup
