// SPDX-License-Identifier: MIT OR Apache-2.0
#include "bench/job_bench.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "backend/cpu/device.hpp"
#include "ec/curves.hpp"
#include "engine/circuit_impl.hpp"
#include "engine/engine.hpp"
#include "engine/report.hpp"
#include "groth16/sequence.hpp"
#include "setup/fixed_base_on.hpp"
#include "setup/setup.hpp"
#include "setup/synthetic.hpp"
#include "setup/tools.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/strings.hpp"
#include "util/thread_pool.hpp"
#include "util/time.hpp"
#include "util/version.hpp"

namespace cuzk::bench {

namespace {

// The circuit's insecure key; its device work runs on an engine of its own, gone before the
// measured engines start.
template <class E>
groth16::ProvingKey<E> bench_key(const JobBenchOptions& o, const setup::SyntheticCircuit<typename E::Fr>& circ,
                                 ThreadPool& pool) {
  RandomSource rs(o.seed);
  auto tw = setup::ToxicWaste<typename E::Fr>::draw(rs);
  auto setup_engine = engine::tool_engine(o.setup_device, pool.size());
  const setup::SetupDevice sdev{setup_engine.get(), engine::one_device(o.setup_device, "--setup-device").name()};
  return setup::setup<E>(circ.source(), tw, setup::fixed_base_on<E>(sdev), pool);
}

// A set is DEVICES[@MEMORY][*WORKERS], e.g. "gpu:0,gpu:1@20GiB" or "gpu:0@1TiB*6".
engine::EngineConfig set_config(const JobBenchOptions& o, const std::string& set, const ThreadPool& pool) {
  engine::EngineConfig cfg;
  cfg.devices = backend::parse_device_specs(set, "--devices");
  if (!o.device_memory.empty() && set.find('@') == std::string::npos)
    backend::apply_memory(cfg.devices, split(o.device_memory, ','), "--device-memory");
  for (auto& d : cfg.devices) d.threads = std::max(1u, pool.size() / unsigned(cfg.devices.size()));
  cfg.workers_per_device = o.workers_per_device;
  cfg.seed = o.seed;
  return cfg;
}

// The footprint on the set's first device (its budget).
void print_footprint(engine::Engine& eng, const std::string& name, const engine::EngineConfig& cfg) {
  const auto d0 = cfg.devices[0].name();
  const auto f = eng.footprint(name, d0);
  std::printf(
      "on %s: key %.2f GiB (MSM tables %.2f), working set per partition %.2f GiB (key resident), %.2f GiB streamed "
      "(MSMs in pieces of %zu points)\n",
      d0.c_str(), double(f.key) / double(1ull << 30), double(f.key_tables) / double(1ull << 30),
      double(f.working_set) / double(1ull << 30), double(f.working_set_streamed) / double(1ull << 30), f.stream_chunk);
}

// Keys made resident before the clock starts (a streamed or refused device keeps none); returns
// the milliseconds it took.
double preload(engine::Engine& eng, const std::string& name) {
  auto tp = std::chrono::steady_clock::now();
  for (auto& o : eng.preload_all(name))
    if (!o.error.empty()) std::printf("  preload on %s: %s\n", o.device.c_str(), o.error.c_str());
  return ms_since(tp);
}

// All jobs at once, their witnesses made when the engine asks for them.
template <class Fr>
std::vector<uint64_t> submit_jobs(engine::Engine& eng, const JobBenchOptions& o, const std::string& name,
                                  const setup::SyntheticCircuit<Fr>& circ, ThreadPool& pool) {
  std::vector<uint64_t> ids;
  for (uint32_t j = 0; j < o.jobs; ++j) {
    engine::JobRequest req;
    req.circuit = name;
    for (uint32_t p = 0; p < o.partitions; ++p) {
      const uint64_t wid = uint64_t(j) * o.partitions + p;
      engine::Witness w;
      w.name = "partition " + std::to_string(wid);
      // Written where the engine says (page-locked memory for a partition that will find a worker free).
      w.fill = [&circ, &pool, wid](std::span<cpu::Scalar> out) { circ.witness_into(wid, out, pool); };
      req.partitions.push_back(std::move(w));
    }
    ids.push_back(eng.submit(std::move(req)));
  }
  return ids;
}

// The CPU's proof of the first job's partition 0 with the engine's r, s.
template <class E>
std::string cpu_proof_of_first(const engine::EngineConfig& cfg, uint64_t first_job, const engine::CircuitT<E>& circuit,
                               const setup::SyntheticCircuit<typename E::Fr>& circ, const ThreadPool& pool) {
  using Fr = typename E::Fr;
  cpu::CpuDeviceOptions co;
  co.threads = std::max(1u, pool.size() / 2);
  cpu::CpuDevice cpu_dev(co);
  ThreadPool wp(co.threads);
  RandomSource r2(engine::partition_seed(*cfg.seed, first_job, 0));
  const Fr r = random_field<Fr>(r2), s = random_field<Fr>(r2);
  return groth16::proof_json(groth16::prove_on<E>(cpu_dev, circuit.key(), circ.witness(0, wp), r, s));
}

// The set's line: proofs per second, against the first set, and each device's busy share;
// returns the number of failed jobs.
int print_throughput(const JobBenchOptions& o, const std::string& set, const std::vector<engine::JobResult>& results,
                     const std::vector<engine::DeviceRecord>& devs, double wall, double preload_ms, bool check,
                     bool first_set, double& base_rate) {
  int bad = 0;
  size_t proofs = 0;
  for (auto& r : results) {
    if (r.state != engine::JobState::Done) {
      ++bad;
      std::printf("  job %llu %s: %s\n", (unsigned long long)r.id, engine::job_state_name(r.state), r.error.c_str());
    }
    proofs += r.proofs.size();
  }
  const double rate = proofs / (wall / 1000);
  if (first_set) base_rate = rate;
  std::printf(
      "devices %-16s %u job(s) x %u partitions: %zu proofs in %.2f s = %.3f proofs/s (%.2fx the first set)%s;"
      " keys preloaded in %.1f s",
      set.c_str(), o.jobs, o.partitions, proofs, wall / 1000, rate, base_rate > 0 ? rate / base_rate : 0.0,
      check ? ", with a CPU proof running" : "", preload_ms / 1000);
  for (auto& d : devs) {
    std::printf("; %s busy %.0f%% (%zu)", d.name.c_str(), wall > 0 ? 100 * d.busy_ms / wall : 0.0, d.partitions);
    if (d.device_ms >= 0)  // the kernel phases on the device's own clock (events), not the lock's host time
      std::printf(", active %.0f%% by its clock", wall > 0 ? 100 * d.device_ms / wall : 0.0);
  }
  std::printf("\n");
  return bad;
}

void print_first_job(const engine::JobResult& r0) {
  double lock_wait = 0, stage = 0, budget_wait = 0, kernels = 0;
  for (auto& p : r0.records)
    lock_wait += p.ms(Phase::LockWait), stage += p.ms(Phase::Stage), budget_wait += p.ms(Phase::BudgetWait),
        kernels += p.ms(Phase::Kernels);
  const double k = r0.records.size();
  std::printf(
      "  first job: %.2f s; per partition: stage %.0f ms (of which waiting for the memory budget %.0f ms),"
      " lock wait %.0f ms, kernels %.0f ms; working set %.2f GiB\n",
      r0.wall_ms / 1000, stage / k, budget_wait / k, lock_wait / k, kernels / k,
      r0.records.empty() ? 0.0 : r0.records[0].reserved_bytes / double(size_t(1) << 30));
}

// summary.json and timeline.svg of set number si, in a folder named after it.
void write_set_files(const JobBenchOptions& o, size_t si, const std::string& name,
                     const std::vector<engine::JobResult>& results, const std::vector<engine::DeviceRecord>& devs,
                     double wall) {
  std::string dir = o.out_dir + "/" + std::to_string(si) + "-" + o.device_sets[si];
  for (char& ch : dir)
    if (ch == ',' || ch == ':' || ch == '@' || ch == '*') ch = '_';
  std::filesystem::create_directories(dir);
  std::vector<engine::PartitionRecord> all;
  for (auto& r : results) all.insert(all.end(), r.records.begin(), r.records.end());
  write_files_atomically(
      {{dir + "/summary.json",
        engine::summary_json(std::string(version_string()) + " (commit " + git_commit() + ")", wall, all, devs)},
       {dir + "/timeline.svg",
        engine::timeline_svg(all, devs,
                             "cuzk bench: " + std::to_string(o.jobs) + " x " + std::to_string(o.partitions) +
                                 " partitions of " + name + " on " + o.device_sets[si])}});
}

// Set number si: its engine, the jobs, the lines printed; returns the failures (failed jobs, a
// CPU proof that differs).
template <class E>
int run_set(const JobBenchOptions& o, size_t si, const std::string& name,
            const std::shared_ptr<engine::CircuitT<E>>& circuit, const setup::SyntheticCircuit<typename E::Fr>& circ,
            ThreadPool& pool, double& base_rate) {
  const engine::EngineConfig cfg = set_config(o, o.device_sets[si], pool);
  engine::Engine eng(cfg);
  const auto tr = std::chrono::steady_clock::now();
  eng.register_circuit(name, circuit);  // a device that streams the key page-locks it here
  const double register_ms = ms_since(tr);
  print_footprint(eng, name, cfg);
  if (register_ms >= 100) std::printf("  registered in %.1f s\n", register_ms / 1000);
  const double preload_ms = preload(eng, name);
  auto tj = std::chrono::steady_clock::now();
  const std::vector<uint64_t> ids = submit_jobs(eng, o, name, circ, pool);
  // The CPU proves while the devices work.
  std::string cpu_proof;
  std::thread cpu_thread;
  const bool check = o.check_cpu && si + 1 == o.device_sets.size();  // the last set, under full load
  if (check) cpu_thread = std::thread([&] { cpu_proof = cpu_proof_of_first<E>(cfg, ids[0], *circuit, circ, pool); });
  std::vector<engine::JobResult> results;
  for (uint64_t id : ids) results.push_back(eng.await(id));
  const double wall = ms_since(tj);
  if (cpu_thread.joinable()) cpu_thread.join();
  auto devs = eng.device_records();
  int bad = print_throughput(o, o.device_sets[si], results, devs, wall, preload_ms, check, si == 0, base_rate);
  if (!results.empty() && results[0].state == engine::JobState::Done) {
    const auto& r0 = results[0];
    print_first_job(r0);
    if (check) {
      const bool same = cpu_proof == r0.proofs[0].proof_json;
      std::printf("  partition 0 of the first job: %s proof %s the CPU's (same r, s)\n", r0.records[0].device.c_str(),
                  same ? "equals" : "DIFFERS FROM");
      if (!same) ++bad;
    }
    if (!o.out_dir.empty()) write_set_files(o, si, name, results, devs, wall);
  }
  std::fflush(stdout);
  return bad;
}

template <class E>
int run(const JobBenchOptions& o) {
  using Fr = typename E::Fr;
  ThreadPool pool(0);
  auto t0 = std::chrono::steady_clock::now();
  setup::SyntheticSpec spec;
  spec.shape = setup::parse_shape(o.shape);
  spec.log_n = o.log_n;
  spec.seed = o.seed;
  setup::SyntheticCircuit<Fr> circ(spec);
  groth16::ProvingKey<E> pk = bench_key<E>(o, circ, pool);
  const double setup_ms = ms_since(t0);
  const std::string name = o.shape + "-2^" + std::to_string(o.log_n) + "-" + curve_name(E::id);
  auto circuit = std::make_shared<engine::CircuitT<E>>(name, std::move(pk), circ.source());
  circuit->set_check_witnesses(false);  // correct by construction; every proof is self-verified
  std::printf("cuzk bench --job %s: %s, %zu constraints, made in %.1f s (setup on %s)\n", o.shape.c_str(), name.c_str(),
              circ.n_rows(), setup_ms / 1000, o.setup_device.c_str());
  std::fflush(stdout);

  int bad = 0;
  double base_rate = 0;
  for (size_t si = 0; si < o.device_sets.size(); ++si) bad += run_set<E>(o, si, name, circuit, circ, pool, base_rate);
  return bad ? 1 : 0;
}

}  // namespace

int run_job_bench(const JobBenchOptions& o) {
  return o.curve == CurveId::bn254 ? run<ec::Bn254>(o) : run<ec::Bls12381>(o);
}

}  // namespace cuzk::bench
