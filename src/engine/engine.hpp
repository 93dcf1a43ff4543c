// SPDX-License-Identifier: MIT OR Apache-2.0
// The proving engine: jobs of many partitions on every device at once.
//
//   submit -> [synthesis pool: witness, a/b/c]  -> ready queue (priority, job age, index)
//          -> worker k of device d: stage (reserve d's budget, copies)  -> lock d -> kernels
//             -> unlock -> finish (assemble, self-verify, encode) -> job
//
// Devices (backend::Device: GPUs, the CPU, simulated devices) are opened once at construction
// from their specs; the engine never asks which kind it holds. Each has its own lock, budget,
// resident keys and workers; no lock is shared between devices and nothing uses a device
// outside its worker. A partition's whole working set is reserved from its device's budget
// before staging (idle keys of any circuit are evicted for it, least recently used first); a
// key that does not fit beside it is streamed in chunks. A partition goes only to a device that
// can hold it, and a job whose circuit no device can hold fails at once, naming each device's
// need and budget. A device's failure (out of memory, a device error, a proof that does not
// verify) is retried once on another device; a bad witness fails the job; a cancelled job's
// partitions stop between phases and give their device back. A failed job's result says which
// kind of failure ended it (FailureKind: bad input, or transient), so that a caller with other
// hosts (the farm) retries only what another host may prove.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "backend/device.hpp"
#include "backend/spec.hpp"
#include "engine/record.hpp"
#include "ff/curve_id.hpp"
#include "groth16/key.hpp"
#include "groth16/phases.hpp"
#include "util/error.hpp"
#include "util/fill_vector.hpp"

namespace cuzk {
class ThreadPool;
}
namespace cuzk::io {
struct ZkeyGroth16;
struct R1cs;
}  // namespace cuzk::io

namespace cuzk::engine {

enum class Priority { Low = 0, Normal = 1, High = 2, Critical = 3 };
Priority parse_priority(const std::string& s);  // low, normal, high, critical (any case)
const char* priority_name(Priority p);

using backend::DeviceSpec;
// Device specs, for the layers above that reach devices only through the engine (the daemon).
using backend::apply_memory;
using backend::BadDeviceSpec;
using backend::parse_device_specs;
using backend::parse_size;

// Where the engine calls out so that tests can inject faults: at the start of synthesis, stage,
// kernels, each kernel phase (abc, ntt_h, msm_*) and finish. InvalidArgument acts as the job's
// failure (bad input: no retry); DeviceFault, or any other error, as the device's (retried once
// on another device).
struct DeviceFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A partition stopped because its job was cancelled (or the engine is stopping).
struct Cancelled : Error {
  using Error::Error;
};
using FaultHook = std::function<void(Phase, const std::string& device, uint64_t job, uint32_t partition, int attempt)>;

// With EngineConfig::seed, partition `index` of job `job` draws its r, s from
// RandomSource(partition_seed(seed, job, index)) (tests and benchmarks compare with the CPU).
// The first job's first partition draws from `seed` itself, as a single CPU proof with that seed.
inline uint64_t partition_seed(uint64_t seed, uint64_t job, uint32_t index) { return seed ^ ((job - 1) << 20) ^ index; }

struct EngineConfig {
  std::vector<DeviceSpec> devices;
  int workers_per_device = 2;      // unless a device's spec names its own
  unsigned synthesis_threads = 0;  // threads of the synthesis pool (0 = hardware threads)
  unsigned synthesis_workers = 0;  // partitions synthesized at once (0 = one per device worker, at least 2)
  size_t max_synthesized = 0;      // synthesized partitions waiting for a device (0 = 2 per worker)
  bool verify = true;              // self-verify every proof (a failing one is never returned)
  bool use_pce = true;             // false (or CUZK_DISABLE_PCE=1): a, b, c row by row from the r1cs
  std::optional<uint64_t> seed;    // deterministic r, s per (job, partition) for tests
  // Streamed mode (a key too large to stay on a device): its MSMs run in pieces of this many
  // points. 0: each device's own, the largest power of two (from kMinStreamChunk) with which a
  // working set per worker fits its budget, or failing that one working set.
  size_t stream_chunk_points = 0;
  static constexpr size_t kMinStreamChunk = size_t(1) << 16;
  // A resident key's MSM tables (precomputed multiples of its points: fewer, wider windows) may
  // take this share of the device memory left beside the key and one working set per worker;
  // 0: no tables. Devices without tables (the CPU) ignore it.
  double key_tables_share = 0.5;
  // Page-locked host buffers for witnesses (a witness synthesized for a free worker is written
  // into one; one that waits for device memory is moved into one): one a device worker, made
  // when a circuit is registered and kept, within this many bytes of host memory in all (fewer
  // buffers where they do not fit). Unset: a quarter of the host's physical memory; 0: none,
  // every witness is staged through the copy buffers.
  std::optional<size_t> page_locked_witness_bytes;
  FaultHook fault;
};

// The points of each piece of a streamed MSM when EngineConfig::stream_chunk_points is 0: the
// largest power of two, from kMinStreamChunk up to the first that holds `largest` points (the
// key's largest section) in one piece, with which `workers` working sets (`working_set(chunk)`
// bytes each) fit `budget`; else the largest with which one does; else kMinStreamChunk (the
// partition then fits nowhere). Larger pieces cost nothing while the MSM's workspace (four
// slots of a piece's points, then the MSM's own) stays within the working set's b, c and the
// scratch after them, and make fewer, larger copies and MSMs.
size_t automatic_stream_chunk(size_t largest, size_t budget, size_t workers,
                              const std::function<size_t(size_t)>& working_set);

// How many page-locked witness buffers of `witness_bytes` EngineConfig::page_locked_witness_bytes
// allows (unset: a quarter of the host's physical memory).
size_t page_locked_witness_room(const EngineConfig& cfg, size_t witness_bytes);

// A partition's witness values (standard form, in wire order) as a loader made them: a
// std::vector, or a FillVector, which a loader that writes every value itself (in parallel)
// sizes without the vector's zeroing first (one thread's pass over GBs at 2^27); or values in
// memory held by a handle (page-locked memory of a device's: a Witness::fill written there, or a
// copy the engine moved them to).
class WitnessValues {
 public:
  WitnessValues() = default;
  WitnessValues(std::vector<cpu::Scalar> v) : v_(std::move(v)) {}
  WitnessValues(FillVector<cpu::Scalar> f) : f_(std::move(f)), filled_(true) {}
  // `n` values at `memory`, which the handle keeps alive.
  WitnessValues(std::shared_ptr<void> memory, size_t n) : held_(std::move(memory)), held_size_(n) {}
  std::span<const cpu::Scalar> span() const& {
    if (held_) return {static_cast<const cpu::Scalar*>(held_.get()), held_size_};
    return filled_ ? std::span<const cpu::Scalar>(f_) : v_;
  }
  // From now on the values are those at `copy` (a copy of span() that `copy` keeps alive); the
  // memory that held them goes.
  void adopt(std::shared_ptr<void> copy) {
    held_size_ = size();
    held_ = std::move(copy);
    std::vector<cpu::Scalar>().swap(v_);
    FillVector<cpu::Scalar>().swap(f_);
  }
  std::span<const cpu::Scalar> span() const&& = delete;  // a view of a temporary would dangle
  size_t size() const { return span().size(); }
  // Whether the values live in memory held by a handle (adopted, or made that way).
  bool held() const { return held_ != nullptr; }
  const cpu::Scalar& operator[](size_t i) const { return span()[i]; }

 private:
  std::vector<cpu::Scalar> v_;
  FillVector<cpu::Scalar> f_;
  bool filled_ = false;
  std::shared_ptr<void> held_;
  size_t held_size_ = 0;
};

// A witness: loaded when its partition is synthesized.
struct Witness {
  std::string name;  // for errors: a path, or "partition 3"
  std::function<WitnessValues()> load;
  // Instead of `load` (used when set), for a loader that can write the values where the engine
  // wants them: fills all of `out`, the circuit's n_vars values (standard form, wire order), or
  // throws InvalidArgument when its witness has another count. The engine picks the memory: for
  // a partition that will find a worker free (a burst of work begins), page-locked memory of the
  // device's when some is free (its stage then copies the values by DMA, not through the staging
  // buffers while synthesis keeps every core busy); else plain memory.
  std::function<void(std::span<cpu::Scalar> out)> fill = {};
  // For a caller that evaluated the constraint rows itself (a synthesis outside cuzk): fills the
  // domain's n values of a, b and c (Fr in Montgomery form, the rows after the last one zero),
  // which are then proved as given instead of being evaluated from the key's rows (a key with
  // no rows needs them). Nothing checks them against the witness; a proof made of wrong ones
  // does not verify.
  std::function<void(size_t n, cpu::Scalar* a, cpu::Scalar* b, cpu::Scalar* c)> abc = {};
  // The blinding r, s (Fr in Montgomery form) instead of the engine's draw.
  std::optional<std::array<cpu::Scalar, 2>> blinding = {};
  static Witness file(const std::string& path);
  static Witness values(std::string name, std::vector<cpu::Scalar> v);
  static Witness bytes(std::string name, std::vector<uint8_t> wtns_file_bytes);
};

// A registered circuit: its proving key (and optionally its r1cs), on one curve. Opaque here.
class Circuit {
 public:
  virtual ~Circuit() = default;
  virtual CurveId curve() const = 0;
  virtual uint32_t n_vars() const = 0;
  virtual uint32_t n_public() const = 0;
  virtual int log_n() const = 0;
  virtual bool has_r1cs() const = 0;
  // Host memory of the key as loaded (points and compiled rows).
  virtual size_t key_host_bytes() const = 0;
  // An identity of the key (a hash of its verifying part and its shape): two hosts with the same
  // digest prove against the same key.
  virtual std::string key_digest() const = 0;
};

// A .zkey (and .r1cs for checks / CUZK_DISABLE_PCE) already read and checked against each other
// (api/keys.hpp reads any key file).
std::shared_ptr<Circuit> make_circuit(const std::string& name, const io::ZkeyGroth16& z, std::optional<io::R1cs> cs,
                                      ThreadPool& pool);
// A BLS12-381 key already in the prover's layout (bellperson's convention, read from a .params
// with its circuit's rows), with the constraint system it was checked against.
std::shared_ptr<Circuit> make_circuit(const std::string& name, groth16::ProvingKey<ec::Bls12381> pk,
                                      std::optional<io::R1cs> cs);

struct ProofData {
  std::string proof_json, public_json;
  std::vector<uint8_t> compressed;
};

enum class JobState { Queued, Running, Done, Failed, Cancelled };
const char* job_state_name(JobState s);

struct JobRequest {
  std::string circuit;
  Priority priority = Priority::Normal;
  std::vector<Witness> partitions;
};

struct JobResult {
  uint64_t id = 0;
  JobState state = JobState::Queued;
  std::string error;
  FailureKind failure = FailureKind::None;  // when Failed by a partition: what kind of failure
  std::vector<ProofData> proofs;            // in partition order (when Done)
  std::vector<PartitionRecord> records;     // in partition order
  double wall_ms = 0;                       // submit -> last partition finished
};

struct ResidentKey {
  std::string circuit;
  size_t bytes = 0;  // of the device's memory (0 where the device uses the host's key in place)
};
struct DeviceStatus {
  DeviceRecord record;
  size_t reserved_bytes = 0, free_bytes = 0;
  std::vector<ResidentKey> resident_keys;  // most recently used first
  std::string current;                     // "job J partition I" under the lock now, or ""
};
struct EngineStatus {
  std::vector<DeviceStatus> devices;
  size_t queued_synthesis = 0, queued_ready = 0, running = 0;
  size_t jobs_done = 0, jobs_failed = 0, partitions_done = 0, partitions_retried = 0;
};

class Engine {
 public:
  explicit Engine(EngineConfig cfg);
  // With devices opened by the caller (tests keep a handle on a simulated device to read its
  // counters); cfg.devices gives each one's budget and workers, in the same order.
  Engine(EngineConfig cfg, std::vector<std::shared_ptr<backend::Device>> devices);
  ~Engine();  // stops accepting, cancels what is queued, joins every thread
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void register_circuit(const std::string& id, std::shared_ptr<Circuit> c);

  // What a partition of `circuit` takes on `device`, as its budget is charged.
  struct Footprint {
    size_t key = 0;                   // the key resident there
    size_t working_set = 0;           // one partition beside the resident key
    size_t working_set_streamed = 0;  // one partition with the key's points streamed
    size_t budget = 0;                // the device's budget
    size_t key_tables = 0;            // of `key`: the MSM tables made for it (0: none)
    size_t stream_chunk = 0;          // points of each piece of a streamed MSM
    bool resident() const { return key + working_set <= budget; }
    bool fits() const { return resident() || working_set_streamed <= budget; }
  };
  Footprint footprint(const std::string& circuit, const std::string& device) const;
  // "" when some device can run partitions of `circuit`; otherwise why not, naming each device's
  // need and budget.
  std::string cannot_hold(const std::string& circuit) const;
  // `label` names the job in status ("job <label> partition <i>"); by default its id.
  uint64_t submit(JobRequest req, std::string label = {});
  // Waits for the job to end (or the timeout): Done, Failed or Cancelled; Queued/Running on timeout.
  JobResult await(uint64_t job, std::optional<double> timeout_ms = std::nullopt);
  bool cancel(uint64_t job);
  // Forgets an ended job (its proofs and records): a long-lived service calls it once it has
  // taken the result. False when the job is unknown or has not ended.
  bool forget(uint64_t job);
  // Makes `circuit`'s key resident on `device` now / drops it (false if it is in use).
  void preload(const std::string& circuit, const std::string& device);
  // preload on every device at once (a thread each: a big host's uploads overlap instead of
  // queueing); per device in order: its name, "" or why it failed, and whether that was an
  // InvalidArgument (the key cannot fit there) rather than a device error.
  struct PreloadOutcome {
    std::string device, error;
    bool invalid_argument = false;
  };
  std::vector<PreloadOutcome> preload_all(const std::string& circuit);
  bool evict(const std::string& circuit, const std::string& device);
  // Device work that is not a partition (the setup's fixed-base multiplications, kernel
  // benchmarks): waits for `bytes` of `device`'s budget (evicting keys no partition uses),
  // allocates them, then runs `fn` with that memory and a stream under the device's kernel lock,
  // counted in its busy time. Throws InvalidArgument, naming both sizes, when `bytes` exceeds the
  // budget.
  using DeviceWork = std::function<void(backend::Device&, backend::Memory, backend::Stream&)>;
  void run_on_device(const std::string& device, size_t bytes, const std::string& what, const DeviceWork& fn);
  // The bytes that `query` asks of `device` (a workspace query of the device itself).
  size_t ask_device(const std::string& device, const std::function<size_t(const backend::Device&)>& query) const;

  EngineStatus status() const;
  std::vector<DeviceRecord> device_records() const;
  double now_ms() const;  // on the records' time axis

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// An engine of one device and no circuits, for tools whose device work is not a partition (the
// setup's fixed-base multiplications, kernel benchmarks): use run_on_device. `device` is a
// spec of one device (gpu:N, cpu; auto: the first GPU, else cpu).
std::unique_ptr<Engine> tool_engine(const std::string& device, unsigned threads = 0);

// One device from a spec that must name exactly one (auto and all: the first GPU, else cpu).
DeviceSpec one_device(const std::string& spec, const std::string& what);

}  // namespace cuzk::engine
