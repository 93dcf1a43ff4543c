// SPDX-License-Identifier: MIT OR Apache-2.0
// cuzk's file-level prover: a snarkjs .zkey (or a bellperson .params with its circuit's .r1cs)
// and a .wtns in, snarkjs proof.json/public.json and the compressed binary proof out (on
// BLS12-381 the 192 bytes of Filecoin's encoding). No CUDA types here.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cuzk {

class ThreadPool;

const char* version_string();
const char* git_commit();          // short hash, "-dirty" appended when the tree had changes
const char* cuda_architectures();  // e.g. "90", or "none"

struct ProveOptions {
  // Where the proof runs: "cpu", "gpu:N", or "auto" (the first visible GPU, else the CPU). The
  // library never picks a device on its own; a named device that is absent is an error.
  std::string device = "cpu";
  // When set, the witness is checked against every constraint; a .params needs it (the file
  // carries no constraint rows).
  std::string r1cs_path;
  std::optional<uint64_t> seed;                 // deterministic r, s (tests); otherwise the OS CSPRNG
  bool verify = true;                           // check the proof against the key before returning it
  std::function<void(const std::string&)> log;  // progress lines (may be empty)
};

struct ProveOutput {
  std::string curve;        // "bn254" / "bls12-381"
  std::string device;       // where it ran: "cpu", "gpu:N"
  std::string proof_json;   // as snarkjs writes proof.json
  std::string public_json;  // as snarkjs writes public.json
  std::vector<uint8_t> proof_compressed;
  double load_ms = 0;  // reading and checking the key and the witness
  // Every phase of the proof that happened, in order, as (name, milliseconds); the names are
  // those of summary.json's timings_ms ("stage", "abc", "ntt_h", "msm_a", ..., "finish").
  std::vector<std::pair<std::string, double>> phases_ms;
  double ms(const std::string& phase) const {
    for (auto& [n, v] : phases_ms)
      if (n == phase) return v;
    return 0;
  }
};

// Reads, checks and proves, through an engine of the one device named (its lock, budget and
// self-verification, as for every partition). `pool` reads the key; the device's kernels use
// as many threads. Throws cuzk::Error (FormatError names the file) on any problem.
ProveOutput prove_files(const std::string& key_path, const std::string& wtns_path, const ProveOptions& opt,
                        ThreadPool& pool);

// Writes all files or none: each goes to a temporary beside its target and is renamed into
// place only after every one was written.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& path_and_content);

}  // namespace cuzk
