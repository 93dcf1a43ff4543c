// SPDX-License-Identifier: MIT OR Apache-2.0
// Filecoin proofs through the engine: a request as Curio sends it (a PoRep C1 output, PoSt
// vanilla proofs, SnapDeals partition proofs) read and checked, its circuit's rows recorded once
// (record mode, bellperson's convention) and registered with the .params of its published name,
// one engine job of its partitions whose witnesses the engine's synthesis workers fill (witness
// mode), and Filecoin's proof bytes back: 192 bytes per partition, in partition order, each
// self-verified by the engine. The insecure setup of these circuits and the verifier are here too.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "filecoin/param_names.hpp"
#include "filecoin/porep_challenges.hpp"
#include "filecoin/poseidon.hpp"
#include "io/r1cs.hpp"
#include "setup/tools.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

// One published circuit: its kind and sector size, and the parameter files it is proved with.
struct FilecoinCircuit {
  ProofKind kind = ProofKind::porep;
  uint64_t sector_bytes = 0;
  CircuitParams params;  // params.stem(): the files' name
  // "porep-2KiB", "window-post-32GiB": the engine's circuit id.
  std::string id() const;
};
// Throws InvalidArgument for a kind and size rust-fil-proofs does not publish.
FilecoinCircuit filecoin_circuit(ProofKind kind, uint64_t sector_bytes);

// The circuit's rows, recorded once from its blank witness (the rows do not depend on the
// values): the prover's and the setup's constraint system, bellperson's convention (the input
// rows are appended by whoever proves; zero coefficients left out).
io::R1cs compile_circuit(const FilecoinCircuit& c, ThreadPool& pool);

// `cuzk filecoin setup --insecure`: writes DIR/<stem>.params and DIR/<stem>.vk for the circuit.
struct SetupResult {
  std::string params_path, vk_path;
  uint64_t constraints = 0;
  double record_ms = 0, setup_ms = 0;
};
SetupResult setup_insecure(const FilecoinCircuit& c, const std::string& dir, std::optional<uint64_t> seed,
                           setup::SetupDevice dev, ThreadPool& pool, const setup::Log& log);

// A proof request, as Curio's cuzk.v1.SubmitProofRequest carries it.
struct ProofRequest {
  ProofKind kind = ProofKind::porep;  // porep, window_post, winning_post, snap_deals
  // RegisteredSealProof (porep), RegisteredPoStProof (window_post, winning_post) or
  // RegisteredUpdateProof (snap_deals); it fixes the sector size.
  uint64_t registered_proof = 0;
  uint64_t sector_size = 0;            // 0, or the registered proof's (checked)
  std::vector<uint8_t> vanilla_proof;  // porep: the C1 output (JSON or bincode)
  // window_post, winning_post: one bincode FallbackPoStSectorProof per sector; snap_deals: one
  // bincode partition proof per partition.
  std::vector<std::vector<uint8_t>> vanilla_proofs;
  Bytes32 randomness{};                              // PoSt
  uint32_t partition_index = 0;                      // WindowPoSt: the partition these sectors make
  Bytes32 comm_r_old{}, comm_r_new{}, comm_d_new{};  // SnapDeals
};

// A request read and checked: its circuit and, per partition, the public inputs (ONE not
// included) and the witness's synthesis (inputs then aux, standard form, written into memory the
// engine gives: an engine::Witness::fill), which the engine runs.
struct PreparedProof {
  FilecoinCircuit circuit;
  std::vector<std::vector<PoseidonFr>> public_inputs;
  std::vector<std::function<void(std::span<cpu::Scalar>)>> witnesses;
  size_t partitions() const { return public_inputs.size(); }
};
// Throws InvalidArgument (bad request: a field, a size, a count) or FormatError (a malformed
// vanilla proof), naming what is wrong.
PreparedProof prepare_proof(const ProofRequest& r, ThreadPool* pool);

// Where the parameter files are and how circuits are loaded.
struct ProverConfig {
  std::string params_dir;  // DIR/<stem>.params for every circuit proved
  setup::Log log;          // load figures, warnings
};

class Prover {
 public:
  // The engine must outlive the prover.
  Prover(engine::Engine& engine, ProverConfig cfg, ThreadPool& pool);

  // The circuit registered on the engine (once; later calls return at once): its rows recorded
  // and its .params read from params_dir. Returns the engine's circuit id. Throws
  // InvalidArgument when the .params is missing or does not fit the circuit.
  std::string ensure_circuit(const FilecoinCircuit& c);

  // Checks the request, registers its circuit, and submits one job of its partitions; returns
  // the engine's job id at once (the witnesses are synthesized by the engine's workers).
  uint64_t submit(const ProofRequest& r, engine::Priority priority = engine::Priority::Normal, std::string label = {});
  struct Outcome {
    engine::JobResult job;       // state, error, records
    std::vector<uint8_t> proof;  // when Done: 192 bytes per partition, in partition order
  };
  // Waits for the job (or the timeout: then job.state is Queued or Running and proof empty).
  Outcome await(uint64_t job, std::optional<double> timeout_ms = std::nullopt);

 private:
  engine::Engine& engine_;
  ProverConfig cfg_;
  ThreadPool& pool_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<std::once_flag>> loaded_;
};

// The leaves a PoSt challenges in one sector: `sector_index` is its place among the PoSt's
// sectors (partition k's sector i: k * sector_count + i; WinningPoSt's one sector: 0).
std::vector<uint64_t> post_challenged_leaves(uint64_t registered_post_proof, const Bytes32& randomness,
                                             uint64_t sector_id, uint64_t sector_index);
// A PoSt's public inputs per partition, as verify_window_post / verify_winning_post compute
// them: its sectors in order (WindowPoSt: sector_count per partition, the last partition
// padded with its last sector; WinningPoSt: one), the first of them in partition first_partition.
struct PostSector {
  uint64_t id = 0;
  PoseidonFr comm_r = PoseidonFr::zero();
};
std::vector<std::vector<PoseidonFr>> post_partition_inputs(ProofKind kind, uint64_t registered_post_proof,
                                                           const Bytes32& randomness,
                                                           std::span<const PostSector> sectors,
                                                           uint32_t first_partition = 0);

// RegisteredUpdateProof 0 .. 4 (StackedDrg2KiBV1 .. StackedDrg64GiBV1): its sector size.
uint64_t snap_sector_bytes(uint64_t registered_update_proof);
// A SnapDeals proof's public inputs per partition (k_and_h_select with h_default, comm_r_old,
// comm_d_new, comm_r_new), as verify_empty_sector_update_proof computes them.
std::vector<std::vector<PoseidonFr>> snap_partition_inputs(ProofKind kind, uint64_t registered_update_proof,
                                                           const Bytes32& comm_r_old, const Bytes32& comm_d_new,
                                                           const Bytes32& comm_r_new);

// Verifies Filecoin proof bytes (192 per partition) against the circuit's .vk (or .params) and
// each partition's public inputs. Empty when every partition verifies; else what failed
// ("partition 1: the proof does not verify", "8 partitions' public inputs for 1 proof").
std::string verify_proof_bytes(const std::string& vk_path, std::span<const std::vector<PoseidonFr>> public_inputs,
                               std::span<const uint8_t> proof);

}  // namespace cuzk::filecoin
