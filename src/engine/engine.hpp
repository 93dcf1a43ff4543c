// The proving engine: jobs of many partitions on every device at once.
//
//   submit -> [synthesis pool: witness, a/b/c]  -> ready queue (priority, job age, index)
//          -> worker k of device d: stage (reserve d's budget, copies)  -> lock d -> kernels
//             -> unlock -> finish (assemble, self-verify, encode) -> job
//
// Devices are fixed at construction (GPUs by ordinal, or simulated devices that run the CPU
// backend under a declared budget and speed). Each has its own lock, budget, resident keys and
// workers; no lock is shared between devices and nothing uses a device outside its worker.
// A partition's whole device working set is reserved from its device's budget before staging;
// a key that does not fit beside it is streamed in chunks; if even that cannot fit the partition
// fails naming the bytes needed and available. A device's failure (out of memory, CUDA error,
// a proof that does not verify) is retried once on another device; a bad witness fails the job.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "cuzk/prove.hpp"
#include "engine/record.hpp"
#include "ff/curve_id.hpp"
#include "util/device_runner.hpp"

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

struct DeviceConfig {
  enum Kind { Gpu, Sim } kind = Sim;
  int ordinal = 0;              // GPU ordinal, or the simulated device's number
  size_t memory_budget = 0;     // bytes; 0 = default (GPU: free memory less a margin; sim: 16 GiB)
  double speed = 1.0;           // sim: kernels take at least sim_kernel_ms / speed
  double sim_kernel_ms = 0;     // sim: the kernels' floor at speed 1 (0 = just the CPU's time)
  double sim_stage_ms = 0;      // sim: the staging copies' floor at speed 1
  unsigned sim_threads = 1;     // sim: CPU threads of its "kernels"
  std::string name() const { return (kind == Gpu ? "gpu:" : "sim:") + std::to_string(ordinal); }
};

// Parses "gpu:0,gpu:1", "all" (every visible GPU), "sim:K" (K simulated devices), "cpu" (= sim:1).
// Throws InvalidArgument naming what is wrong (a GPU that is not visible is an error).
std::vector<DeviceConfig> parse_devices(const std::string& spec);
// "20GiB", "512MiB", "1.5GB", "123456": bytes. Throws InvalidArgument.
size_t parse_size(const std::string& s);
// "20GiB" or "20GiB,80GiB" applied in device order (one value applies to all).
void apply_memory_budgets(std::vector<DeviceConfig>& devs, const std::string& spec);

// Where the engine calls out so that tests can inject faults. InvalidArgument acts as the job's
// failure (bad input: no retry); DeviceFault, or any other error, as the device's (retried once
// on another device).
enum class Phase { Synthesis, Stage, Kernels, Finish };
struct DeviceFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};
using FaultHook = std::function<void(Phase, const std::string& device, uint64_t job, uint32_t partition, int attempt)>;

// With EngineConfig::seed, partition `index` of job `job` draws its r, s from
// RandomSource(partition_seed(seed, job, index)) (tests and benchmarks compare with the CPU).
// The first job's first partition draws from `seed` itself, as a single CPU proof with that seed.
inline uint64_t partition_seed(uint64_t seed, uint64_t job, uint32_t index) {
  return seed ^ ((job - 1) << 20) ^ index;
}

struct EngineConfig {
  std::vector<DeviceConfig> devices;
  int workers_per_device = 2;
  unsigned synthesis_threads = 0;  // threads of the synthesis pool (0 = hardware threads)
  unsigned synthesis_workers = 0;  // partitions synthesized at once (0 = one per device worker, at least 2)
  size_t max_synthesized = 0;      // synthesized partitions waiting for a device (0 = 2 per worker)
  bool verify = true;              // self-verify every proof (a failing one is never returned)
  bool use_pce = true;             // false (or CUZK_DISABLE_PCE=1): a, b, c row by row from the r1cs
  std::optional<uint64_t> seed;    // deterministic r, s per (job, partition) for tests
  size_t stream_chunk_points = size_t(1) << 20;  // streamed mode: MSMs in pieces of this many points
  FaultHook fault;
};

// A witness: loaded when its partition is synthesized.
struct Witness {
  std::string name;  // for errors: a path, or "partition 3"
  std::function<std::vector<cpu::Scalar>()> load;
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
  // Device bytes of the key when resident (points and compiled matrices).
  virtual size_t key_bytes() const = 0;
  // Device bytes of one partition's working set: with stream_chunk_points 0, besides the
  // resident key; otherwise besides nothing (the key's points pass through in chunks of at most
  // that many points).
  virtual size_t working_set_bytes(size_t stream_chunk_points) const = 0;
  // An identity of the key (a hash of its verifying part and its shape): two hosts with the same
  // digest prove against the same key.
  virtual std::string key_digest() const = 0;
};

// A .zkey (and .r1cs for checks / CUZK_DISABLE_PCE) read into memory once.
std::shared_ptr<Circuit> load_circuit(const std::string& zkey_path, const std::string& r1cs_path, ThreadPool& pool);
// The same from a key (and constraint system) already read and checked against each other.
std::shared_ptr<Circuit> make_circuit(const std::string& name, const io::ZkeyGroth16& z, std::optional<io::R1cs> cs,
                                      ThreadPool& pool);

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
  std::vector<ProofData> proofs;          // in partition order (when Done)
  std::vector<PartitionRecord> records;   // in partition order
  double wall_ms = 0;                     // submit -> last partition finished
};

struct DeviceStatus {
  DeviceRecord record;
  size_t reserved_bytes = 0, free_bytes = 0;
  std::vector<std::string> resident_keys;
  std::string current;  // "job J partition I" under the lock now, or ""
};
struct EngineStatus {
  std::vector<DeviceStatus> devices;
  size_t queued_synthesis = 0, queued_ready = 0, running = 0;
  size_t jobs_done = 0, jobs_failed = 0, partitions_done = 0, partitions_retried = 0;
};

class Engine {
 public:
  explicit Engine(EngineConfig cfg);
  ~Engine();  // stops accepting, cancels what is queued, joins every thread
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void register_circuit(const std::string& id, std::shared_ptr<Circuit> c);
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
  // Device work that is not a partition (the setup's fixed-base kernels, kernel benchmarks):
  // waits for `bytes` of `device`'s budget (evicting keys no partition uses), then runs `fn`
  // under the device's kernel lock, counted in its busy time. Throws InvalidArgument, naming
  // both sizes, when `bytes` exceeds the budget. `fn` allocates at most `bytes` on the device.
  void run_on_device(const std::string& device, size_t bytes, const std::string& what, const std::function<void()>& fn);
  // run_on_device bound to one device, for code that knows nothing of the engine.
  DeviceRunner runner(const std::string& device);

  EngineStatus status() const;
  std::vector<DeviceRecord> device_records() const;
  double now_ms() const;  // on the records' time axis

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// An engine of one device and no circuits, for tools whose device work is not a partition (the
// setup's fixed-base kernels, kernel benchmarks): use its runner(device). Its budget is the
// default (free memory less a margin).
std::unique_ptr<Engine> tool_engine(const std::string& device);

// One proof of one witness through a one-device engine (the single-proof form of `cuzk prove`
// on a GPU): the same lock, budget, residency and self-verification as every partition.
// `opt.device` names the device; `opt.seed` gives the same r, s as the CPU prover's.
ProveOutput prove_one(std::shared_ptr<Circuit> circuit, std::vector<cpu::Scalar> witness,
                      const std::string& witness_name, const ProveOptions& opt, unsigned threads);

}  // namespace cuzk::engine
