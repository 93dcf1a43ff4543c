// cuzk command line. Thin: parsing and printing; the work is in the library.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <thread>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/probe.hpp"
#include "backend/spec.hpp"
#include "bench/gpu_bench.hpp"
#include "cuzk/prove.hpp"
#include "cuzk/verify.hpp"
#include "engine/engine.hpp"
#include "engine/report.hpp"
#include "bench/job_bench.hpp"
#if defined(CUZK_WITH_DAEMON)
#include "daemon/commands.hpp"
#endif
#include "setup/tools.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/thread_pool.hpp"

namespace {

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kUsage = R"(usage: cuzk <command> [options]

commands:
  prove <circuit.zkey> --partitions <w0.wtns>,<w1.wtns>,... --out DIR [options]
        One job of many partitions on the engine, every device at once. Writes
        DIR/proof_<i>.json, DIR/public_<i>.json (i in --partitions order),
        DIR/proofs.bin (compressed proofs in order), DIR/summary.json (device,
        worker and phase timings of each partition) and DIR/timeline.svg.
        --devices LIST     gpu:0,gpu:1 | all | sim:K | cpu (default: all GPUs, else cpu)
        --workers-per-device W   (default 2)
        --device-memory S  budget per device: 20GiB, or 20GiB,80GiB in device order
        --priority P       low, normal, high, critical
        --r1cs FILE, --no-verify, --seed N, --threads N, --quiet as below
  prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]
        Groth16 proof of a snarkjs key and witness (BN254 or BLS12-381), written as
        snarkjs writes proof.json and public.json. Nothing is written on error.
        --r1cs FILE        check the witness against every constraint first
        --proof-bin FILE   also write the compressed binary proof
                           (BLS12-381: 192 bytes, BN254: 128 bytes)
        --no-verify        skip the check of the proof against the key (by default a
                           proof is verified before it is written, and one that
                           fails is never written; --verify is accepted)
        --seed N           deterministic r, s (tests only; default: OS CSPRNG)
        --threads N        CPU threads (default: all)
        --device D         gpu:N, cpu, or auto (default: auto = gpu:0 if a GPU is
                           visible, else cpu); a named device that is absent is an
                           error, never a fallback (--devices is a synonym)
        --quiet            no progress lines
  bench --job porep|dense [options]
        A circuit of that shape, its insecure key and witnesses made in memory (nothing
        written), then jobs through the engine on each device set, e.g.
        --devices 'gpu:0;gpu:0,gpu:1' (sets separated by ';'; a set may end in @MEMORY
        and *WORKERS, e.g. gpu:0,gpu:1@20GiB): proofs/s, busy fractions.
        --log-n N, --curve C (default bls12-381), --partitions K (default 10),
        --jobs J (submitted at once; default 1), --device-memory S, --workers-per-device W,
        --setup-device gpu:N|cpu, --check-cpu (during the last set, partition 0 is also
        proved on the CPU with the same r, s: the proofs must be equal); keys are
        preloaded on every device before the clock starts, --out DIR (summary.json, timeline.svg per set)
  bench [options]          GPU timings (CUDA events, warm-up, median of runs), each result
                           checked against the CPU; a table, and JSON with --json
        --device gpu:N     the GPU (default: auto = the first visible one)
        --curve C          bn254, bls12-381 or all (default all)
        --log-n N...       sizes: values, lists (16,20) or ranges (16..26); default 16..24 step 2
        --ops LIST         ntt,msm-g1,msm-g2,h,prove (default all)
        --runs R           timed runs after one warm-up (default 5)
        --max-seconds S    stop cleanly, between measurements, after S seconds (default 540)
        --json FILE        also write the results as JSON
  verify <verification_key.json> <public.json> <proof.json> [<public2.json> <proof2.json> ...]
        snarkjs's argument order. Exit 0 only if every proof is valid; each invalid one
        is named. Several proofs are checked together (one final exponentiation).
        Stricter than snarkjs: points must also be in the prime-order subgroups.
  setup <circuit.r1cs> <circuit.zkey> --insecure [options]
        A Groth16 key in snarkjs's .zkey format from known random toxic waste, for
        tests and benchmarks only (the key records that it is insecure). Refuses to
        run without --insecure.
        --seed N           derive the toxic waste from N (default: OS CSPRNG)
        --device D         where the fixed-base multiplications run: gpu:N, cpu or
                           auto (default auto = gpu:0 if visible, else all CPU threads)
        --threads N        CPU threads (default: all)
  gen-circuit --shape porep|dense --log-n N --curve bn254|bls12-381 [options]
        A synthetic circuit filling the domain 2^N and satisfying witnesses.
        porep: bits of hashes (most values 0 or 1, ~5.5 non-zeros per constraint);
        dense: random field elements. Each witness is checked against every constraint.
        --out DIR          write DIR/circuit.r1cs, DIR/witness_<i>.wtns, DIR/circuit.zkey
        --in-memory        write nothing: generate, check and time (for large N)
        --partitions K     witnesses (default 1)
        --setup            also make an insecure key (see setup)
        --seed N           the circuit's structure (default 1); witnesses derive from it
        --setup-seed N     toxic waste seed (default: OS CSPRNG)
        --device D, --threads N   as for setup
  devices                  list the GPUs this binary can use
  version, --version       version, git commit and CUDA architectures
  help, --help
)";

// Splits "--opt value" / "--opt=value" / "--flag" from positional arguments.
struct Args {
  std::vector<std::string> pos;
  std::map<std::string, std::string> opts;
  std::vector<std::string> flags;

  static Args parse(int argc, char** argv, int first, const std::vector<std::string>& value_opts,
                    const std::vector<std::string>& flag_opts) {
    Args a;
    for (int i = first; i < argc; ++i) {
      std::string s = argv[i];
      if (s.rfind("--", 0) != 0 || s == "--") {
        a.pos.push_back(s);
        continue;
      }
      std::string key = s, val;
      bool has_val = false;
      if (auto eq = s.find('='); eq != std::string::npos) {
        key = s.substr(0, eq);
        val = s.substr(eq + 1);
        has_val = true;
      }
      bool is_value = std::find(value_opts.begin(), value_opts.end(), key) != value_opts.end();
      bool is_flag = std::find(flag_opts.begin(), flag_opts.end(), key) != flag_opts.end();
      if (is_value) {
        if (!has_val) {
          if (i + 1 >= argc) throw UsageError(key + " needs a value");
          val = argv[++i];
        }
        if (val.empty()) throw UsageError(key + " needs a non-empty value");
        a.opts[key] = val;
      } else if (is_flag && !has_val) {
        a.flags.push_back(key);
      } else {
        throw UsageError("unknown option " + key);
      }
    }
    return a;
  }
  bool flag(const std::string& f) const { return std::find(flags.begin(), flags.end(), f) != flags.end(); }
  std::optional<std::string> opt(const std::string& k) const {
    auto it = opts.find(k);
    if (it == opts.end()) return std::nullopt;
    return it->second;
  }
};

// A decimal number in [0, max]: digits only (no sign, no spaces, no base prefixes).
uint64_t parse_u64(const std::string& what, const std::string& s, uint64_t max = UINT64_MAX) {
  char* end = nullptr;
  errno = 0;
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) throw UsageError(what + ": not a number: '" + s + "'");
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (*end != '\0' || errno != 0) throw UsageError(what + ": not a number: '" + s + "'");
  if (v > max) throw UsageError(what + ": " + s + " is too large (at most " + std::to_string(max) + ")");
  return v;
}

void print_version() {
  std::printf("cuzk %s (commit %s)\n", cuzk::version_string(), cuzk::git_commit());
  std::printf("CUDA architectures: %s\n", cuzk::cuda_architectures());
  if (cuzk::cuda::built_with_cuda()) {
    int rt = cuzk::cuda::runtime_version(), drv = cuzk::cuda::driver_version();
    std::printf("CUDA runtime %d.%d (static), driver %s\n", rt / 1000, (rt % 1000) / 10,
                drv ? (std::to_string(drv / 1000) + "." + std::to_string((drv % 1000) / 10)).c_str() : "none");
  }
}

int cmd_devices() {
  if (!cuzk::cuda::built_with_cuda()) {
    std::printf("this cuzk was built without CUDA: CPU only\n");
    return kExitOk;
  }
  auto devs = cuzk::cuda::list_devices();
  if (devs.empty()) std::printf("no GPU visible (driver %d): CPU only\n", cuzk::cuda::driver_version());
  for (auto& d : devs)
    std::printf("gpu:%d  %s  sm_%d%d  %d SMs  %.1f GiB total, %.1f GiB free\n", d.ordinal, d.name.c_str(), d.cc_major,
                d.cc_minor, d.multiprocessors, double(d.total_memory) / (1ull << 30),
                double(d.free_memory) / (1ull << 30));
  return kExitOk;
}

// One device named on the command line ("gpu:N", "cpu", "auto": the first visible GPU, else the
// CPU). A GPU that is not visible is an error: a proof never silently runs elsewhere.
std::string one_device(const std::string& spec) { return cuzk::engine::one_device(spec, "--device").name(); }

// "20", "16,18", "16..26" -> sizes
[[maybe_unused]] void add_log_ns(const std::string& s, std::vector<int>& out) {
  for (auto& part : cuzk::split(s, ',')) {
    if (part.empty()) continue;
    auto dots = part.find("..");
    if (dots == std::string::npos) {
      out.push_back(int(parse_u64("--log-n", part, 28)));
    } else {
      int lo = int(parse_u64("--log-n", part.substr(0, dots), 28)), hi = int(parse_u64("--log-n", part.substr(dots + 2), 28));
      if (lo > hi) throw UsageError("--log-n: empty range " + part);
      for (int v = lo; v <= hi; ++v) out.push_back(v);
    }
  }
}

// `cuzk bench --job porep ...`: jobs through the engine on in-memory circuits (any build).
int cmd_bench_job(const Args& a) {
  cuzk::bench::JobBenchOptions o;
  o.shape = *a.opt("--job");
  if (o.shape != "porep" && o.shape != "dense") throw UsageError("--job: expected porep or dense, got '" + o.shape + "'");
  std::string curve = a.opt("--curve").value_or("bls12-381");
  if (curve == "bn254") o.curve = cuzk::CurveId::bn254;
  else if (curve != "bls12-381") throw UsageError("--curve: bn254 or bls12-381 for --job, got '" + curve + "'");
  o.log_n = int(parse_u64("--log-n", a.opt("--log-n").value_or("20"), 30));
  if (o.log_n < 10) throw UsageError("--log-n: at least 10 for --job");
  if (auto p = a.opt("--partitions")) o.partitions = uint32_t(parse_u64("--partitions", *p, 1000));
  if (auto j = a.opt("--jobs")) o.jobs = uint32_t(parse_u64("--jobs", *j, 1000));
  if (o.partitions == 0 || o.jobs == 0) throw UsageError("--partitions and --jobs must be at least 1");
  const bool gpus = !cuzk::cuda::list_devices().empty();
  std::string sets = a.opt("--devices").value_or(a.opt("--device").value_or(gpus ? "all" : "cpu"));
  o.device_sets = cuzk::split(sets, ';');
  for (auto& d : o.device_sets)
    if (d.empty()) throw UsageError("--devices: an empty device set in '" + sets + "'");
  if (auto m = a.opt("--device-memory")) o.device_memory = *m;
  if (auto w = a.opt("--workers-per-device")) o.workers_per_device = int(parse_u64("--workers-per-device", *w, 16));
  o.setup_device = one_device(a.opt("--setup-device").value_or("auto"));
  o.check_cpu = a.flag("--check-cpu");
  if (auto d = a.opt("--out")) o.out_dir = *d;
  if (auto s = a.opt("--seed")) o.seed = parse_u64("--seed", *s);
  try {
    return cuzk::bench::run_job_bench(o);
  } catch (const cuzk::InvalidArgument& e) {
    throw UsageError(e.what());
  }
}

int cmd_bench(int argc, char** argv) {
  Args a = Args::parse(argc, argv, 2,
                       {"--device", "--devices", "--curve", "--log-n", "--ops", "--runs", "--json", "--max-seconds",
                        "--job", "--partitions", "--jobs", "--device-memory", "--workers-per-device", "--setup-device",
                        "--out", "--seed"},
                       {"--check-cpu"});
  if (a.opt("--job")) return cmd_bench_job(a);
  cuzk::bench::BenchOptions o;
  o.device = one_device(a.opt("--device").value_or(a.opt("--devices").value_or("auto")));
  // The measurements take the device's lock and budget; `prove` runs as jobs on this engine.
  cuzk::engine::EngineConfig ec;
  ec.devices = {cuzk::engine::one_device(o.device, "--device")};
  ec.workers_per_device = 1;
  ec.verify = false;  // the prove benchmark's key is random points: its proofs are compared with the CPU's
  ec.seed = o.seed;
  cuzk::engine::Engine engine(ec);
  o.engine = &engine;
  if (auto c = a.opt("--curve"); c && *c != "all") o.curves = cuzk::split(*c, ',');
  std::vector<int> sizes;
  bool given = a.opt("--log-n").has_value() || !a.pos.empty();
  if (auto l = a.opt("--log-n")) add_log_ns(*l, sizes);
  for (auto& p : a.pos) add_log_ns(p, sizes);  // --log-n 16 18 20
  if (given && sizes.empty()) throw UsageError("--log-n: no sizes given");
  if (!sizes.empty()) o.log_ns = sizes;
  for (auto& c : o.curves)
    if (c != "bn254" && c != "bls12-381") throw UsageError("--curve: unknown curve '" + c + "' (bn254, bls12-381, all)");
  for (int v : o.log_ns)
    if (v < 3 || v > 28) throw UsageError("--log-n: sizes are 3..28, got " + std::to_string(v));
  if (auto p = a.opt("--ops")) o.ops = cuzk::split(*p, ',');
  for (auto& op : o.ops)
    if (op != "ntt" && op != "msm-g1" && op != "msm-g2" && op != "h" && op != "prove")
      throw UsageError("--ops: unknown op '" + op + "' (ntt, msm-g1, msm-g2, h, prove)");
  if (auto r = a.opt("--runs")) o.runs = std::max(1, int(parse_u64("--runs", *r, 1000)));
  if (auto m = a.opt("--max-seconds")) o.max_seconds = double(parse_u64("--max-seconds", *m, 86400));
  const std::string name = o.device + " (" + engine.device_records().at(0).description + ")";
  std::printf("cuzk bench on %s; cuzk %s commit %s\n", name.c_str(), cuzk::version_string(), cuzk::git_commit());
  auto rows = cuzk::bench::run_gpu_bench(o);
  if (auto j = a.opt("--json")) cuzk::write_files_atomically({{*j, cuzk::bench::rows_to_json(rows, name)}});
  return kExitOk;
}

int cmd_verify(int argc, char** argv) {
  Args a = Args::parse(argc, argv, 2, {}, {"--quiet"});
  if (a.pos.size() < 3 || (a.pos.size() - 1) % 2 != 0)
    throw UsageError("verify takes <verification_key.json> then pairs of <public.json> <proof.json>");
  std::vector<std::pair<std::string, std::string>> items;
  for (size_t i = 1; i + 1 < a.pos.size(); i += 2) items.emplace_back(a.pos[i], a.pos[i + 1]);
  std::vector<cuzk::VerifyResult> res;
  if (items.size() == 1) res.push_back(cuzk::verify_files(a.pos[0], items[0].first, items[0].second));
  else res = cuzk::verify_batch(a.pos[0], items);
  size_t bad = 0;
  for (auto& r : res) {
    if (r.valid) {
      if (!a.flag("--quiet")) std::printf("OK      %s %s\n", r.public_path.c_str(), r.proof_path.c_str());
    } else {
      ++bad;
      std::printf("INVALID %s %s: %s\n", r.public_path.c_str(), r.proof_path.c_str(), r.error.c_str());
    }
  }
  if (res.size() > 1) std::printf("%zu of %zu proofs valid\n", res.size() - bad, res.size());
  return bad == 0 ? kExitOk : kExitError;
}

// `cuzk prove <zkey> --partitions w0,w1,... --out DIR`: one job on the engine, every device at once.
int cmd_prove_partitions(const Args& a) {
  namespace eng = cuzk::engine;
  if (a.pos.size() != 1) throw UsageError("prove --partitions takes one path: <circuit.zkey>");
  auto out = a.opt("--out");
  if (!out) throw UsageError("prove --partitions needs --out DIR");
  if (a.opt("--proof-bin")) throw UsageError("--proof-bin is for the single-proof form; --out DIR gets proofs.bin");
  const bool quiet = a.flag("--quiet");
  if (a.flag("--verify") && a.flag("--no-verify")) throw UsageError("--verify and --no-verify contradict each other");
  eng::EngineConfig cfg;
  unsigned threads = 0;
  if (auto t = a.opt("--threads")) threads = unsigned(parse_u64("--threads", *t, 4096));
  try {
    cfg.devices = cuzk::backend::parse_device_specs(a.opt("--devices").value_or(a.opt("--device").value_or("auto")));
    if (auto m = a.opt("--device-memory")) cuzk::backend::apply_memory(cfg.devices, cuzk::split(*m, ','), "--device-memory");
  } catch (const cuzk::InvalidArgument& e) {
    throw UsageError(e.what());
  }
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  for (auto& d : cfg.devices) d.threads = std::max(1u, (threads ? threads : hw) / unsigned(cfg.devices.size()));
  if (auto w = a.opt("--workers-per-device")) cfg.workers_per_device = int(parse_u64("--workers-per-device", *w, 16));
  cfg.synthesis_threads = threads;
  cfg.verify = !a.flag("--no-verify");
  if (auto s = a.opt("--seed")) cfg.seed = parse_u64("--seed", *s);
  eng::Priority prio = eng::Priority::Normal;
  if (auto p = a.opt("--priority")) {
    try {
      prio = eng::parse_priority(*p);
    } catch (const cuzk::InvalidArgument& e) {
      throw UsageError(e.what());
    }
  }
  auto paths = cuzk::split(*a.opt("--partitions"), ',');
  for (auto& p : paths)
    if (p.empty()) throw UsageError("--partitions: an empty path in the list");
  auto log = [&](const std::string& s) {
    if (!quiet) std::fprintf(stderr, "cuzk: %s\n", s.c_str());
  };

  cuzk::ThreadPool load_pool(threads);
  auto t0 = std::chrono::steady_clock::now();
  auto circuit = eng::load_circuit(a.pos[0], a.opt("--r1cs").value_or(""), load_pool);
  log("key loaded: " + a.pos[0] + " (" + std::to_string(circuit->n_vars()) + " variables, domain 2^" +
      std::to_string(circuit->log_n()) + ")");
  eng::Engine engine(cfg);
  engine.register_circuit("circuit", circuit);
  eng::JobRequest req;
  req.circuit = "circuit";
  req.priority = prio;
  for (auto& p : paths) req.partitions.push_back(eng::Witness::file(p));
  const std::string devnames = cuzk::backend::names_of(cfg.devices);
  log("job of " + std::to_string(paths.size()) + " partitions on " + devnames + ", " +
      std::to_string(cfg.workers_per_device) + " workers per device");
  uint64_t id = engine.submit(std::move(req));
  eng::JobResult r = engine.await(id);
  auto devrecs = engine.device_records();
  if (r.state != eng::JobState::Done) throw cuzk::Error("the job " + std::string(eng::job_state_name(r.state)) + ": " + r.error + "; nothing written");

  std::vector<std::pair<std::string, std::string>> files;
  auto path = [&](const std::string& name) { return *out + "/" + name; };
  std::string bin;
  for (size_t i = 0; i < r.proofs.size(); ++i) {
    files.push_back({path("proof_" + std::to_string(i) + ".json"), r.proofs[i].proof_json});
    files.push_back({path("public_" + std::to_string(i) + ".json"), r.proofs[i].public_json});
    bin.append(r.proofs[i].compressed.begin(), r.proofs[i].compressed.end());
  }
  files.push_back({path("proofs.bin"), bin});
  files.push_back({path("summary.json"), eng::summary_json(cuzk::version_string() + std::string(" (commit ") +
                                                                 cuzk::git_commit() + ")",
                                                             r.wall_ms, r.records, devrecs)});
  files.push_back({path("timeline.svg"),
                   eng::timeline_svg(r.records, devrecs,
                                     "cuzk: " + std::to_string(r.proofs.size()) + " partitions of " + a.pos[0] + " on " +
                                         devnames)});
  std::filesystem::create_directories(*out);
  cuzk::write_files_atomically(files);
  if (!quiet) {
    for (auto& rec : r.records)
      std::fprintf(stderr, "cuzk: partition %u on %s worker %d: synthesis %.1f, stage %.1f, lock wait %.1f, kernels %.1f, finish %.1f ms\n",
                   rec.index, rec.device.c_str(), rec.worker, rec.ms(cuzk::Phase::Synthesis), rec.ms(cuzk::Phase::Stage),
                   rec.ms(cuzk::Phase::LockWait), rec.ms(cuzk::Phase::Kernels), rec.ms(cuzk::Phase::Finish));
    for (auto& d : devrecs)
      std::fprintf(stderr, "cuzk: %s: %zu partitions, busy %.1f ms of %.1f (%.0f%%)\n", d.name.c_str(), d.partitions,
                   d.busy_ms, r.wall_ms, r.wall_ms > 0 ? 100.0 * d.busy_ms / r.wall_ms : 0.0);
    double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "cuzk: %zu proofs in %.1f ms (job %.1f ms), written to %s\n", r.proofs.size(), total, r.wall_ms,
                 out->c_str());
  }
  return kExitOk;
}

int cmd_prove(int argc, char** argv) {
  Args a = Args::parse(argc, argv, 2,
                       {"--r1cs", "--proof-bin", "--seed", "--threads", "--device", "--devices", "--partitions", "--out",
                        "--workers-per-device", "--device-memory", "--priority"},
                       {"--quiet", "--verify", "--no-verify"});
  if (a.opt("--partitions")) return cmd_prove_partitions(a);
  for (const char* k : {"--out", "--workers-per-device", "--device-memory", "--priority"})
    if (a.opt(k)) throw UsageError(std::string(k) + " is for the partitioned form (prove <zkey> --partitions ...)");
  if (a.pos.size() != 4)
    throw UsageError("prove takes 4 paths: <circuit.zkey> <witness.wtns> <proof.json> <public.json>");
  const bool quiet = a.flag("--quiet");
  cuzk::ProveOptions opt;
  if (auto r = a.opt("--r1cs")) opt.r1cs_path = *r;
  if (a.flag("--verify") && a.flag("--no-verify")) throw UsageError("--verify and --no-verify contradict each other");
  opt.verify = !a.flag("--no-verify");
  if (auto s = a.opt("--seed")) opt.seed = parse_u64("--seed", *s);
  unsigned threads = 0;
  if (auto t = a.opt("--threads")) threads = unsigned(parse_u64("--threads", *t, 4096));
  opt.device = one_device(a.opt("--device").value_or(a.opt("--devices").value_or("auto")));
  if (!quiet) opt.log = [](const std::string& s) { std::fprintf(stderr, "cuzk: %s\n", s.c_str()); };

  auto t0 = std::chrono::steady_clock::now();
  cuzk::ThreadPool pool(threads);
  cuzk::ProveOutput out = cuzk::prove_files(a.pos[0], a.pos[1], opt, pool);

  std::vector<std::pair<std::string, std::string>> files = {{a.pos[2], out.proof_json}, {a.pos[3], out.public_json}};
  if (auto b = a.opt("--proof-bin"))
    files.push_back({*b, std::string(out.proof_compressed.begin(), out.proof_compressed.end())});
  cuzk::write_files_atomically(files);
  double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!quiet) {
    std::string phases;
    for (auto& [name, ms] : out.phases_ms)
      if (name != "queue" && name != "synthesis" && name != "lock_wait" && name != "budget_wait" && name != "kernels")
        phases += (phases.empty() ? "" : ", ") + name + " " + std::to_string(ms).substr(0, std::to_string(ms).find('.') + 2);
    std::fprintf(stderr, "cuzk: %s proof on %s (%u CPU threads): [%s] ms; total %.1f ms\n", out.curve.c_str(),
                 out.device.c_str(), pool.size(), phases.c_str(), total);
  }
  return kExitOk;
}

// Where the setup's fixed-base work runs: a device of an engine of its own.
struct SetupTarget {
  std::unique_ptr<cuzk::engine::Engine> engine;
  cuzk::setup::SetupDevice dev;
};
SetupTarget setup_device(const Args& a, unsigned threads) {
  SetupTarget t;
  const std::string spec = a.opt("--device").value_or(a.opt("--devices").value_or("auto"));
  t.engine = cuzk::engine::tool_engine(spec, threads);
  t.dev = {t.engine.get(), one_device(spec)};
  return t;
}

void print_setup_stats(const cuzk::setup::SetupStats& st, bool with_setup) {
  std::fprintf(stderr, "cuzk: %s, 2^%d domain, %zu constraints, %u wires", st.curve.c_str(), st.log_n, st.n_rows,
               st.n_vars);
  if (st.witness_ms > 0) std::fprintf(stderr, "; witnesses %.1f ms", st.witness_ms);
  if (with_setup)
    std::fprintf(stderr,
                 "; setup on %s %.1f ms [lagrange %.1f, columns %.1f, scalars %.1f, G1 %zu points %.1f, G2 %zu points "
                 "%.1f]",
                 st.device.c_str(), st.setup_ms, st.lagrange_ms, st.columns_ms, st.scalars_ms, st.g1_points, st.g1_ms,
                 st.g2_points, st.g2_ms);
  if (st.write_ms > 0) std::fprintf(stderr, "; writing %.1f ms", st.write_ms);
  std::fprintf(stderr, "; total %.1f ms\n", st.total_ms);
}

int cmd_setup(int argc, char** argv) {
  Args a = Args::parse(argc, argv, 2, {"--seed", "--device", "--devices", "--threads"}, {"--insecure", "--quiet"});
  if (a.pos.size() != 2) throw UsageError("setup takes 2 paths: <circuit.r1cs> <circuit.zkey>");
  if (!a.flag("--insecure"))
    throw UsageError(
        "setup makes keys whose toxic waste is known: they are for tests and benchmarks only. Pass --insecure to "
        "confirm; for a real key run a ceremony (snarkjs powersoftau + zkey contribute)");
  std::optional<uint64_t> seed;
  if (auto s = a.opt("--seed")) seed = parse_u64("--seed", *s);
  unsigned threads = 0;
  if (auto t = a.opt("--threads")) threads = unsigned(parse_u64("--threads", *t, 4096));
  cuzk::ThreadPool pool(threads);
  auto target = setup_device(a, pool.size());
  const bool quiet = a.flag("--quiet");
  cuzk::setup::Log log;
  if (!quiet) log = [](const std::string& s) { std::fprintf(stderr, "cuzk: %s\n", s.c_str()); };
  auto st = cuzk::setup::setup_files(a.pos[0], a.pos[1], seed, target.dev, pool, log);
  if (!quiet) print_setup_stats(st, true);
  return kExitOk;
}

int cmd_gen_circuit(int argc, char** argv) {
  Args a = Args::parse(argc, argv, 2,
                       {"--shape", "--log-n", "--curve", "--out", "--partitions", "--seed", "--setup-seed", "--device",
                        "--devices", "--threads"},
                       {"--setup", "--in-memory", "--quiet"});
  if (!a.pos.empty()) throw UsageError("gen-circuit takes no positional arguments (got '" + a.pos[0] + "')");
  cuzk::setup::GenOptions o;
  auto need = [&](const char* k) {
    auto v = a.opt(k);
    if (!v) throw UsageError(std::string("gen-circuit needs ") + k);
    return *v;
  };
  try {
    o.spec.shape = cuzk::setup::parse_shape(need("--shape"));
  } catch (const cuzk::InvalidArgument& e) {
    throw UsageError(e.what());
  }
  o.spec.log_n = int(parse_u64("--log-n", need("--log-n"), 30));
  std::string curve = need("--curve");
  if (curve == "bn254" || curve == "bn128") o.curve = cuzk::CurveId::bn254;
  else if (curve == "bls12-381" || curve == "bls12381") o.curve = cuzk::CurveId::bls12_381;
  else throw UsageError("--curve: unknown curve '" + curve + "' (bn254, bls12-381)");
  if (auto s = a.opt("--seed")) o.spec.seed = parse_u64("--seed", *s);
  if (auto s = a.opt("--setup-seed")) o.setup_seed = parse_u64("--setup-seed", *s);
  if (auto p = a.opt("--partitions")) o.partitions = uint32_t(parse_u64("--partitions", *p, 100000));
  o.setup = a.flag("--setup");
  const bool in_mem = a.flag("--in-memory");
  auto out = a.opt("--out");
  if (in_mem == out.has_value()) throw UsageError("gen-circuit needs exactly one of --out DIR and --in-memory");
  if (out) o.out_dir = *out;
  unsigned threads = 0;
  if (auto t = a.opt("--threads")) threads = unsigned(parse_u64("--threads", *t, 4096));
  cuzk::ThreadPool pool(threads);
  auto target = setup_device(a, pool.size());
  o.device = target.dev;
  const bool quiet = a.flag("--quiet");
  cuzk::setup::Log log;
  if (!quiet) log = [](const std::string& s) { std::fprintf(stderr, "cuzk: %s\n", s.c_str()); };
  auto st = cuzk::setup::gen_circuit(o, pool, log);
  if (!quiet) print_setup_stats(st, o.setup);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) {
      std::fputs(kUsage, stderr);
      return kExitUsage;
    }
    std::string cmd = argv[1];
    if (cmd == "--version" || cmd == "version" || cmd == "-V") {
      print_version();
      return kExitOk;
    }
    if (cmd == "--help" || cmd == "help" || cmd == "-h") {
      std::fputs(kUsage, stdout);
#if defined(CUZK_WITH_DAEMON)
      std::fputs(cuzk::daemon::kUsage, stdout);
#else
      std::fputs("  daemon, submit, await, status, cancel, preload, evict, loadgen: not in this build "
                 "(needs gRPC, protobuf, toml++ and cpp-httplib)\n", stdout);
#endif
      return kExitOk;
    }
#if defined(CUZK_WITH_DAEMON)
    if (cmd == "daemon") return cuzk::daemon::cmd_daemon(argc, argv);
    if (cuzk::daemon::is_client_command(cmd.c_str())) return cuzk::daemon::cmd_client(argc, argv);
#else
    for (const char* k : {"daemon", "submit", "await", "status", "cancel", "preload", "evict", "loadgen"})
      if (cmd == k)
        throw cuzk::Error(cmd + ": this cuzk was built without the daemon (it needs libgrpc++-dev, "
                          "protobuf-compiler-grpc, libtomlplusplus-dev and libcpp-httplib-dev)");
#endif
    if (cmd == "prove") return cmd_prove(argc, argv);
    if (cmd == "devices") return cmd_devices();
    if (cmd == "bench") return cmd_bench(argc, argv);
    if (cmd == "verify") return cmd_verify(argc, argv);
    if (cmd == "setup") return cmd_setup(argc, argv);
    if (cmd == "gen-circuit") return cmd_gen_circuit(argc, argv);
    throw UsageError("unknown command '" + cmd + "'");
  } catch (const UsageError& e) {
    std::fprintf(stderr, "cuzk: %s\n(run 'cuzk help' for usage)\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
    return kExitError;
  }
}
