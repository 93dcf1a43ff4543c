// cuzk's file-level prover: a snarkjs .zkey and .wtns in, snarkjs proof.json/public.json and the
// compressed binary proof out. No CUDA types here.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cuzk {

class ThreadPool;

const char* version_string();
const char* git_commit();          // short hash, "-dirty" appended when the tree had changes
const char* cuda_architectures();  // e.g. "90", or "none"

// Where a proof runs. The library never picks a device: callers name one.
struct ProveDevice {
  enum Kind { Cpu, Gpu } kind = Cpu;
  int ordinal = -1;  // for Gpu
  std::string name() const { return kind == Cpu ? "cpu" : "gpu:" + std::to_string(ordinal); }
};

struct ProveOptions {
  ProveDevice device;
  std::string r1cs_path;             // when set, the witness is checked against every constraint
  std::optional<uint64_t> seed;      // deterministic r, s (tests); otherwise the OS CSPRNG
  bool verify = true;                // check the proof against the key before returning it
  std::function<void(const std::string&)> log;  // progress lines (may be empty)
};

struct PhaseTimes {
  double load_ms = 0, check_ms = 0, abc_ms = 0, ntt_h_ms = 0, msm_a_ms = 0, msm_b1_ms = 0,
         msm_b2_ms = 0, msm_c_ms = 0, msm_h_ms = 0, finish_ms = 0, prove_ms = 0, verify_ms = 0;
};

struct ProveOutput {
  std::string curve;              // "bn254" / "bls12-381"
  std::string device;             // "cpu", or "gpu:N" as reported by the runtime for the memory used
  std::string proof_json;         // as snarkjs writes proof.json
  std::string public_json;        // as snarkjs writes public.json
  std::vector<uint8_t> proof_compressed;
  PhaseTimes times;
};

// Reads, checks and proves. Throws cuzk::Error (FormatError names the file) on any problem.
ProveOutput prove_files(const std::string& zkey_path, const std::string& wtns_path, const ProveOptions& opt,
                        ThreadPool& pool);

// Writes all files or none: each goes to a temporary beside its target and is renamed into
// place only after every one was written.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& path_and_content);

}  // namespace cuzk
