// SPDX-License-Identifier: MIT OR Apache-2.0
// cuzk command line. Thin: parsing and printing; the work is in the library.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/keys.hpp"
#include "backend/cuda/probe.hpp"
#include "backend/spec.hpp"
#include "bench/gpu_bench.hpp"
#include "bench/job_bench.hpp"
#include "commands.hpp"
#include "cuzk/prove.hpp"
#include "cuzk/verify.hpp"
#include "engine/engine.hpp"
#include "engine/report.hpp"
#include "filecoin/setup_params.hpp"
#include "setup/tools.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/progress.hpp"
#include "util/strings.hpp"
#include "util/thread_pool.hpp"
#include "util/time.hpp"

namespace cli = cuzk::cli;
namespace app = cuzk::app;

namespace {

using app::kExitError, app::kExitOk, app::kExitUsage;
using cli::Args;
using cli::UsageError;

// A decimal number in [0, max]: digits only (no sign, no spaces, no base prefixes).
uint64_t parse_u64(const std::string& what, const std::string& s, uint64_t max = UINT64_MAX) {
  char* end = nullptr;
  errno = 0;
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])))
    throw UsageError(what + ": not a number: '" + s + "'");
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
// CPU). A GPU that is not visible is an error, never a fallback; a malformed name is a usage error.
std::string one_device(const std::string& spec, const char* what = "--device") {
  try {
    return cuzk::engine::one_device(spec, what).name();
  } catch (const cuzk::backend::BadDeviceSpec& e) {
    throw UsageError(e.what());
  }
}

// "20", "16,18", "16..26" -> sizes
[[maybe_unused]] void add_log_ns(const std::string& s, std::vector<int>& out) {
  for (auto& part : cuzk::split(s, ',')) {
    if (part.empty()) continue;
    auto dots = part.find("..");
    if (dots == std::string::npos) {
      out.push_back(int(parse_u64("--log-n", part, 28)));
    } else {
      int lo = int(parse_u64("--log-n", part.substr(0, dots), 28)),
          hi = int(parse_u64("--log-n", part.substr(dots + 2), 28));
      if (lo > hi) throw UsageError("--log-n: empty range " + part);
      for (int v = lo; v <= hi; ++v) out.push_back(v);
    }
  }
}

// `cuzk bench --job porep ...`: jobs through the engine on in-memory circuits (any build).
int cmd_bench_job(const Args& a) {
  cuzk::bench::JobBenchOptions o;
  o.shape = *a.get("--job");
  if (o.shape != "porep" && o.shape != "dense")
    throw UsageError("--job: expected porep or dense, got '" + o.shape + "'");
  std::string curve = a.get("--curve").value_or("bls12-381");
  if (curve == "bn254")
    o.curve = cuzk::CurveId::bn254;
  else if (curve != "bls12-381")
    throw UsageError("--curve: bn254 or bls12-381 for --job, got '" + curve + "'");
  o.log_n = int(parse_u64("--log-n", a.get("--log-n").value_or("20"), 30));
  if (o.log_n < 10) throw UsageError("--log-n: at least 10 for --job");
  if (auto p = a.get("--partitions")) o.partitions = uint32_t(parse_u64("--partitions", *p, 1000));
  if (auto j = a.get("--jobs")) o.jobs = uint32_t(parse_u64("--jobs", *j, 1000));
  if (o.partitions == 0 || o.jobs == 0) throw UsageError("--partitions and --jobs must be at least 1");
  const bool gpus = !cuzk::cuda::list_devices().empty();
  std::string sets = a.get_or("--device", gpus ? "all" : "cpu");
  o.device_sets = cuzk::split(sets, ';');
  for (auto& d : o.device_sets)
    if (d.empty()) throw UsageError("--devices: an empty device set in '" + sets + "'");
  if (auto m = a.get("--device-memory")) o.device_memory = *m;
  if (auto w = a.get("--workers-per-device")) o.workers_per_device = int(parse_u64("--workers-per-device", *w, 16));
  o.setup_device = one_device(a.get("--setup-device").value_or("auto"), "--setup-device");
  o.check_cpu = a.flag("--check-cpu");
  if (auto d = a.get("--out")) o.out_dir = *d;
  if (auto s = a.get("--seed")) o.seed = parse_u64("--seed", *s);
  try {
    return cuzk::bench::run_job_bench(o);
  } catch (const cuzk::InvalidArgument& e) {
    throw UsageError(e.what());
  }
}

int cmd_bench(const Args& a) {
  if (a.get("--job")) return cmd_bench_job(a);
  cuzk::bench::BenchOptions o;
  o.device = one_device(a.get_or("--device", "auto"));
  // The measurements take the device's lock and budget; `prove` runs as jobs on this engine.
  cuzk::engine::EngineConfig ec;
  ec.devices = {cuzk::engine::one_device(o.device, "--device")};
  ec.workers_per_device = 1;
  ec.verify = false;  // the prove benchmark's key is random points: its proofs are compared with the CPU's
  ec.seed = o.seed;
  cuzk::engine::Engine engine(ec);
  o.engine = &engine;
  if (auto c = a.get("--curve"); c && *c != "all") o.curves = cuzk::split(*c, ',');
  std::vector<int> sizes;
  bool given = a.get("--log-n").has_value() || !a.pos.empty();
  if (auto l = a.get("--log-n")) add_log_ns(*l, sizes);
  for (auto& p : a.pos) add_log_ns(p, sizes);  // --log-n 16 18 20
  if (given && sizes.empty()) throw UsageError("--log-n: no sizes given");
  if (!sizes.empty()) o.log_ns = sizes;
  for (auto& c : o.curves)
    if (c != "bn254" && c != "bls12-381")
      throw UsageError("--curve: unknown curve '" + c + "' (bn254, bls12-381, all)");
  for (int v : o.log_ns)
    if (v < 3 || v > 28) throw UsageError("--log-n: sizes are 3..28, got " + std::to_string(v));
  if (auto p = a.get("--ops")) o.ops = cuzk::split(*p, ',');
  for (auto& op : o.ops)
    if (op != "ntt" && op != "msm-g1" && op != "msm-g2" && op != "h" && op != "prove")
      throw UsageError("--ops: unknown op '" + op + "' (ntt, msm-g1, msm-g2, h, prove)");
  if (auto r = a.get("--runs")) o.runs = std::max(1, int(parse_u64("--runs", *r, 1000)));
  if (auto w = a.get("--window-bits"))
    for (auto& v : cuzk::split(*w, ',')) o.window_bits.push_back(unsigned(parse_u64("--window-bits", v, 24)));
  for (unsigned v : o.window_bits)
    if (v < 2) throw UsageError("--window-bits: widths are 2..24, got " + std::to_string(v));
  if (auto t = a.get("--tables")) o.tables = unsigned(parse_u64("--tables", *t, 128));
  if (auto m = a.get("--max-seconds")) o.max_seconds = double(parse_u64("--max-seconds", *m, 86400));
  if (auto j = a.get("--json")) cuzk::check_output_path(*j);  // before the measurements
  const std::string name = o.device + " (" + engine.device_records().at(0).description + ")";
  std::printf("cuzk bench on %s; cuzk %s commit %s\n", name.c_str(), cuzk::version_string(), cuzk::git_commit());
  auto rows = cuzk::bench::run_gpu_bench(o);
  if (auto j = a.get("--json")) cuzk::write_files_atomically({{*j, cuzk::bench::rows_to_json(rows, name)}});
  return kExitOk;
}

int cmd_verify(const Args& a) {
  if (a.pos.size() < 3 || (a.pos.size() - 1) % 2 != 0)
    throw UsageError("takes <verification_key.json> then pairs of <public.json> <proof.json>");
  std::vector<std::pair<std::string, std::string>> items;
  for (size_t i = 1; i + 1 < a.pos.size(); i += 2) items.emplace_back(a.pos[i], a.pos[i + 1]);
  std::vector<cuzk::VerifyResult> res;
  if (items.size() == 1)
    res.push_back(cuzk::verify_files(a.pos[0], items[0].first, items[0].second));
  else
    res = cuzk::verify_batch(a.pos[0], items);
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

// --out DIR is made after the job when missing: before it, the nearest part of it that exists
// must be a directory that takes new files.
void check_out_dir(const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path d = fs::absolute(out, ec);
  while (!fs::exists(d, ec) && d.has_relative_path()) d = d.parent_path();
  if (auto problem = cuzk::output_dir_problem(d.string()); !problem.empty())
    throw cuzk::Error("cannot write to --out " + out + ": " + problem);
}

// `cuzk prove <zkey> --partitions w0,w1,... --out DIR`: one job on the engine, every device at once.
int cmd_prove_partitions(const Args& a) {
  namespace eng = cuzk::engine;
  if (a.pos.size() != 1) throw UsageError("the --partitions form takes one path: <circuit.zkey>");
  auto out = a.get("--out");
  if (!out) throw UsageError("the --partitions form needs --out DIR");
  if (a.get("--proof-bin")) throw UsageError("--proof-bin is for the single-proof form; --out DIR gets proofs.bin");
  const bool quiet = a.flag("--quiet");
  if (a.flag("--verify") && a.flag("--no-verify")) throw UsageError("--verify and --no-verify contradict each other");
  eng::EngineConfig cfg;
  unsigned threads = 0;
  if (auto t = a.get("--threads")) threads = unsigned(parse_u64("--threads", *t, 4096));
  try {
    cfg.devices = cuzk::backend::parse_device_specs(a.get_or("--device", "auto"), "--devices");
    if (auto m = a.get("--device-memory"))
      cuzk::backend::apply_memory(cfg.devices, cuzk::split(*m, ','), "--device-memory");
  } catch (const cuzk::InvalidArgument& e) {
    throw UsageError(e.what());
  }
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  for (auto& d : cfg.devices) d.threads = std::max(1u, (threads ? threads : hw) / unsigned(cfg.devices.size()));
  if (auto w = a.get("--workers-per-device")) cfg.workers_per_device = int(parse_u64("--workers-per-device", *w, 16));
  cfg.synthesis_threads = threads;
  cfg.verify = !a.flag("--no-verify");
  if (auto s = a.get("--seed")) cfg.seed = parse_u64("--seed", *s);
  eng::Priority prio = eng::Priority::Normal;
  if (auto p = a.get("--priority")) {
    try {
      prio = eng::parse_priority(*p);
    } catch (const cuzk::InvalidArgument& e) {
      throw UsageError(e.what());
    }
  }
  auto paths = cuzk::split(*a.get("--partitions"), ',');
  for (auto& p : paths)
    if (p.empty()) throw UsageError("--partitions: an empty path in the list");
  auto log = [&](const std::string& s) {
    if (!quiet) cuzk::term::say(s);
  };
  auto path = [&](const std::string& name) { return *out + "/" + name; };
  // Every output checked before the work: a FIFO, a device or a link there is refused now.
  std::vector<std::string> outs = {path("proofs.bin"), path("summary.json"), path("timeline.svg")};
  for (size_t i = 0; i < paths.size(); ++i) {
    outs.push_back(path("proof_" + std::to_string(i) + ".json"));
    outs.push_back(path("public_" + std::to_string(i) + ".json"));
  }
  cuzk::check_output_paths(outs);
  check_out_dir(*out);

  cuzk::ThreadPool load_pool(threads);
  auto t0 = std::chrono::steady_clock::now();
  std::optional<cuzk::term::Activity> busy(std::in_place, "reading " + a.pos[0] + cuzk::term::size_note(a.pos[0]),
                                           !quiet);
  auto circuit = cuzk::api::load_key(a.pos[0], a.get("--r1cs").value_or(""), load_pool, log, cfg.devices);
  busy.reset();
  log("key loaded: " + a.pos[0] + " (" + std::to_string(circuit->n_vars()) + " variables, domain 2^" +
      std::to_string(circuit->log_n()) + ", " + std::to_string(int(cuzk::ms_since(t0))) + " ms)");
  eng::Engine engine(cfg);
  engine.register_circuit("circuit", circuit);
  eng::JobRequest req;
  req.circuit = "circuit";
  req.priority = prio;
  for (auto& p : paths) req.partitions.push_back(eng::Witness::file(p));
  const std::string devnames = cuzk::backend::names_of(cfg.devices);
  log("job of " + std::to_string(paths.size()) + " partitions on " + devnames + ", " +
      std::to_string(cfg.workers_per_device) + " workers per device");
  busy.emplace("proving " + std::to_string(paths.size()) + " partitions on " + devnames, !quiet);
  uint64_t id = engine.submit(std::move(req));
  eng::JobResult r = engine.await(id);
  busy.reset();
  auto devrecs = engine.device_records();
  if (r.state != eng::JobState::Done)
    throw cuzk::Error("the job " + std::string(eng::job_state_name(r.state)) + ": " + r.error + "; nothing written");

  std::vector<std::pair<std::string, std::string>> files;
  std::string bin;
  for (size_t i = 0; i < r.proofs.size(); ++i) {
    files.push_back({path("proof_" + std::to_string(i) + ".json"), r.proofs[i].proof_json});
    files.push_back({path("public_" + std::to_string(i) + ".json"), r.proofs[i].public_json});
    bin.append(r.proofs[i].compressed.begin(), r.proofs[i].compressed.end());
  }
  files.push_back({path("proofs.bin"), bin});
  files.push_back({path("summary.json"),
                   eng::summary_json(cuzk::version_string() + std::string(" (commit ") + cuzk::git_commit() + ")",
                                     r.wall_ms, r.records, devrecs)});
  files.push_back({path("timeline.svg"), eng::timeline_svg(r.records, devrecs,
                                                           "cuzk: " + std::to_string(r.proofs.size()) +
                                                               " partitions of " + a.pos[0] + " on " + devnames)});
  std::filesystem::create_directories(*out);
  cuzk::write_files_atomically(files);
  if (!quiet) {
    for (auto& rec : r.records)
      std::fprintf(stderr,
                   "cuzk: partition %u on %s worker %d: synthesis %.1f, stage %.1f, lock wait %.1f, kernels %.1f, "
                   "finish %.1f ms\n",
                   rec.index, rec.device.c_str(), rec.worker, rec.ms(cuzk::Phase::Synthesis),
                   rec.ms(cuzk::Phase::Stage), rec.ms(cuzk::Phase::LockWait), rec.ms(cuzk::Phase::Kernels),
                   rec.ms(cuzk::Phase::Finish));
    for (auto& d : devrecs)
      std::fprintf(stderr, "cuzk: %s: %zu partitions, busy %.1f ms of %.1f (%.0f%%)\n", d.name.c_str(), d.partitions,
                   d.busy_ms, r.wall_ms, r.wall_ms > 0 ? 100.0 * d.busy_ms / r.wall_ms : 0.0);
    double total = cuzk::ms_since(t0);
    std::fprintf(stderr, "cuzk: %zu proofs in %.1f ms (job %.1f ms), written to %s\n", r.proofs.size(), total,
                 r.wall_ms, out->c_str());
  }
  return kExitOk;
}

// The single-proof form of `prove`, and `prover`: one key, one witness, proof.json and
// public.json (and the compressed proof when `proof_bin` is not empty).
struct SingleProof {
  std::string zkey, witness, proof, pub, proof_bin;
  cuzk::ProveOptions opt;
  unsigned threads = 0;
  bool quiet = false;
};

SingleProof single_proof(const Args& a) {
  SingleProof p;
  p.zkey = a.pos[0], p.witness = a.pos[1], p.proof = a.pos[2], p.pub = a.pos[3];
  return p;
}

void prove_single(const SingleProof& p) {
  std::vector<std::string> outs = {p.proof, p.pub};
  if (!p.proof_bin.empty()) outs.push_back(p.proof_bin);
  cuzk::check_output_paths(outs);  // before the proof: a FIFO, a device or a link there is refused
  cuzk::check_output_dirs(outs);   // and a directory that is missing or not writable

  auto t0 = std::chrono::steady_clock::now();
  cuzk::ThreadPool pool(p.threads);
  std::optional<cuzk::term::Activity> busy(std::in_place, "proving with " + p.zkey + cuzk::term::size_note(p.zkey),
                                           !p.quiet);
  cuzk::ProveOutput out = cuzk::prove_files(p.zkey, p.witness, p.opt, pool);
  busy.reset();

  std::vector<std::pair<std::string, std::string>> files = {{p.proof, out.proof_json}, {p.pub, out.public_json}};
  if (!p.proof_bin.empty())
    files.push_back({p.proof_bin, std::string(out.proof_compressed.begin(), out.proof_compressed.end())});
  cuzk::write_files_atomically(files);
  double total = cuzk::ms_since(t0);
  if (!p.quiet) {
    // stage, abc, ntt_h, msm_a .. msm_h, finish (and verify inside it): the phases of the proof itself.
    std::string phases;
    double prove_ms = 0;
    char b[64];
    for (auto& [name, ms] : out.phases_ms) {
      if (name == "queue" || name == "synthesis" || name == "budget_wait" || name == "lock_wait" || name == "kernels")
        continue;
      std::snprintf(b, sizeof b, "%s%s %.1f", phases.empty() ? "" : ", ", name.c_str(), ms);
      phases += b;
      if (name == "stage" || name == "finish") prove_ms += ms;
    }
    prove_ms += out.ms("kernels");
    std::fprintf(stderr, "cuzk: %s proof on %s (%u CPU threads): prove %.1f ms [%s]; total %.1f ms\n",
                 out.curve.c_str(), out.device.c_str(), pool.size(), prove_ms, phases.c_str(), total);
  }
}

int cmd_prove(const Args& a) {
  if (a.get("--partitions")) return cmd_prove_partitions(a);
  for (const char* k : {"--out", "--workers-per-device", "--device-memory", "--priority"})
    if (a.get(k)) throw UsageError(std::string(k) + " is for the partitioned form (prove <zkey> --partitions ...)");
  if (a.pos.size() != 4) throw UsageError("takes 4 paths: <circuit.zkey> <witness.wtns> <proof.json> <public.json>");
  SingleProof p = single_proof(a);
  p.proof_bin = a.get_or("--proof-bin", "");
  p.quiet = a.flag("--quiet");
  if (auto r = a.get("--r1cs")) p.opt.r1cs_path = *r;
  if (a.flag("--verify") && a.flag("--no-verify")) throw UsageError("--verify and --no-verify contradict each other");
  p.opt.verify = !a.flag("--no-verify");
  if (auto s = a.get("--seed")) p.opt.seed = parse_u64("--seed", *s);
  if (auto t = a.get("--threads")) p.threads = unsigned(parse_u64("--threads", *t, 4096));
  p.opt.device = one_device(a.get_or("--device", "auto"));
  if (!p.quiet) p.opt.log = [](const std::string& s) { cuzk::term::say(s); };
  prove_single(p);
  return kExitOk;
}

// `cuzk prover`: rapidsnark's prover, word for word: the same four paths, nothing printed on
// success; on a wrong number of arguments "Invalid number of parameters" and the usage, on any
// other error "Error: " and the reason, both with exit code 1 (rapidsnark's EXIT_FAILURE).
const char* kProverUsage = "Usage: cuzk prover <circuit.zkey> <witness.wtns> <proof.json> <public.json>";

int cmd_prover(const Args& a) {
  SingleProof p = single_proof(a);
  p.quiet = !a.flag("--verbose");
  if (auto t = a.get("--threads")) p.threads = unsigned(parse_u64("--threads", *t, 4096));
  p.opt.device = one_device(a.get_or("--device", "auto"));
  if (!p.quiet) p.opt.log = [](const std::string& s) { cuzk::term::say(s); };
  prove_single(p);
  return kExitOk;
}

int prover_error(const std::exception& e) {
  if (dynamic_cast<const cli::ArgumentCountError*>(&e))
    std::fprintf(stderr, "Invalid number of parameters\n%s\n", kProverUsage);
  else if (dynamic_cast<const UsageError*>(&e))
    std::fprintf(stderr, "Error: %s\n%s\n", e.what(), kProverUsage);
  else
    std::fprintf(stderr, "Error: %s\n", e.what());
  return kExitError;
}

// `cuzk zkey export verificationkey`: snarkjs's command of that name.
int cmd_zkey_export_vk(const Args& a) {
  const std::string& out = a.pos[1];
  cuzk::check_output_path(out);
  cuzk::check_output_dir(out);
  cuzk::ThreadPool pool(1);
  cuzk::write_files_atomically({{out, cuzk::api::verification_key_json(a.pos[0], pool)}});
  return kExitOk;
}

// Where the setup's fixed-base work runs: a device of an engine of its own (its lock and budget).
struct SetupTarget {
  std::unique_ptr<cuzk::engine::Engine> engine;
  cuzk::setup::SetupDevice dev;
};
SetupTarget setup_device(const Args& a, unsigned threads) {
  SetupTarget t;
  const std::string name = one_device(a.get_or("--device", "auto"));
  t.engine = cuzk::engine::tool_engine(name, threads);
  t.dev = {t.engine.get(), name};
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

int cmd_setup(const Args& a) {
  if (!a.flag("--insecure"))
    throw UsageError(
        "makes keys whose toxic waste is known: they are for tests and benchmarks only. Pass --insecure to "
        "confirm; for a real key run a ceremony (snarkjs powersoftau + zkey contribute)");
  std::optional<uint64_t> seed;
  if (auto s = a.get("--seed")) seed = parse_u64("--seed", *s);
  unsigned threads = 0;
  if (auto t = a.get("--threads")) threads = unsigned(parse_u64("--threads", *t, 4096));
  cuzk::ThreadPool pool(threads);
  auto target = setup_device(a, pool.size());
  const bool quiet = a.flag("--quiet");
  cuzk::setup::Log log;
  if (!quiet) log = [](const std::string& s) { cuzk::term::say(s); };
  const std::string format = a.get("--format").value_or("zkey");
  if (format != "zkey" && format != "bellperson")
    throw UsageError("--format: unknown format '" + format + "' (zkey, bellperson)");
  cuzk::term::Activity busy("setup of " + a.pos[0] + " into " + a.pos[1], !quiet);
  auto st = format == "zkey" ? cuzk::setup::setup_files(a.pos[0], a.pos[1], seed, target.dev, pool, log)
                             : cuzk::filecoin::setup_params_files(a.pos[0], a.pos[1], seed, target.dev, pool, log);
  if (!quiet) print_setup_stats(st, true);
  return kExitOk;
}

int cmd_gen_circuit(const Args& a) {
  cuzk::setup::GenOptions o;
  try {
    o.spec.shape = cuzk::setup::parse_shape(a.value("--shape"));
  } catch (const cuzk::InvalidArgument& e) {
    throw UsageError(e.what());
  }
  o.spec.log_n = int(parse_u64("--log-n", a.value("--log-n"), 30));
  std::string curve = a.value("--curve");
  if (curve == "bn254" || curve == "bn128")
    o.curve = cuzk::CurveId::bn254;
  else if (curve == "bls12-381" || curve == "bls12381")
    o.curve = cuzk::CurveId::bls12_381;
  else
    throw UsageError("--curve: unknown curve '" + curve + "' (bn254, bls12-381)");
  if (auto s = a.get("--seed")) o.spec.seed = parse_u64("--seed", *s);
  if (auto s = a.get("--setup-seed")) o.setup_seed = parse_u64("--setup-seed", *s);
  if (auto p = a.get("--partitions")) o.partitions = uint32_t(parse_u64("--partitions", *p, 100000));
  o.setup = a.flag("--setup");
  const bool in_mem = a.flag("--in-memory");
  auto out = a.get("--out");
  if (in_mem == out.has_value()) throw UsageError("needs exactly one of --out DIR and --in-memory");
  if (out) o.out_dir = *out;
  unsigned threads = 0;
  if (auto t = a.get("--threads")) threads = unsigned(parse_u64("--threads", *t, 4096));
  cuzk::ThreadPool pool(threads);
  auto target = setup_device(a, pool.size());
  o.device = target.dev;
  const bool quiet = a.flag("--quiet");
  cuzk::setup::Log log;
  if (!quiet) log = [](const std::string& s) { cuzk::term::say(s); };
  std::optional<cuzk::term::Activity> busy(
      std::in_place, "generating a 2^" + std::to_string(o.spec.log_n) + " circuit" + (o.setup ? " and its key" : ""),
      !quiet);
  auto st = cuzk::setup::gen_circuit(o, pool, log);
  busy.reset();
  if (!quiet) print_setup_stats(st, o.setup);
  return kExitOk;
}

// ---------------------------------------------------------------- declarations

cli::Command prove_spec() {
  cli::Command c("prove", "Groth16 proofs: of one witness, or a job of many partitions on every device");
  c.synopsis("<circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]")
      .synopsis("<circuit.zkey> --partitions W0.wtns,W1.wtns,... --out DIR [options]")
      .describe(
          "The first form: a Groth16 proof of a snarkjs key and witness (BN254 or BLS12-381), written as snarkjs "
          "writes proof.json and public.json. Nothing is written on error.\n\n"
          "The key may also be a bellperson .params (BLS12-381, Filecoin's layout; told apart by its name) with the "
          "circuit's --r1cs, which gives the rows and densities the file does not carry; the proof is bellperson's "
          "(Filecoin's 192-byte encoding in --proof-bin and proofs.bin) and `cuzk verify KEY.vk` checks it.\n\n"
          "The second form: one job of many partitions on the engine, every device at once. Writes "
          "DIR/proof_<i>.json, DIR/public_<i>.json (i in --partitions order), DIR/proofs.bin (compressed proofs in "
          "order), DIR/summary.json (device, worker and phase timings of each partition) and DIR/timeline.svg.")
      .positional("<circuit.zkey>", "the proving key: snarkjs's .zkey, or bellperson's .params (needs --r1cs)")
      .optional_positional("<witness.wtns>", "the witness (first form)")
      .optional_positional("<proof.json>", "the proof written (first form)")
      .optional_positional("<public.json>", "the public signals written (first form)")
      .option("--device", "D",
              "first form: gpu:N, cpu, or auto (default: auto = gpu:0 if a GPU is visible, else cpu); second form: "
              "gpu:0,gpu:1 | all | sim:K | cpu (default: all GPUs, else cpu). A named device that is absent is an "
              "error, never a fallback")
      .alias("--devices")
      .option("--r1cs", "FILE",
              "check the witness against every constraint first; with a .params, the circuit's constraints "
              "(required)")
      .flag("--no-verify",
            "skip the check of the proof against the key (by default a proof is verified before it is written, "
            "and one that fails is never written)")
      .flag("--verify", "verify the proof before writing it (the default)")
      .option("--seed", "N", "deterministic r, s (tests only; default: OS CSPRNG)")
      .option("--threads", "N", "CPU threads (default: all)")
      .flag("--quiet", "no progress lines")
      .group("options of the first form")
      .option("--proof-bin", "FILE", "also write the compressed binary proof (BLS12-381: 192 bytes, BN254: 128 bytes)")
      .group("options of the second form")
      .option("--partitions", "W0,W1,...", "the witness files, one partition each: selects the second form")
      .option("--out", "DIR", "where the files go (required)")
      .option("--workers-per-device", "W", "workers on each device (default 2)")
      .option("--device-memory", "S", "budget per device: 20GiB, or 20GiB,80GiB in device order")
      .option("--priority", "P", "low, normal, high, critical (default normal)");
  return c;
}

cli::Command prover_spec() {
  cli::Command c("prover", "rapidsnark's prover: its arguments, its files, its messages and exit codes");
  c.synopsis("<circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]")
      .describe(
          "A drop-in for rapidsnark's `prover`: a script written for it switches by changing the word `prover` to "
          "`cuzk prover`. Writes proof.json and public.json as snarkjs writes them and prints nothing on success "
          "(exit 0). A wrong number of arguments prints \"Invalid number of parameters\" and the usage, any other "
          "error \"Error: \" and the reason; both exit 1, as rapidsnark does (cuzk prove exits 2 on usage "
          "errors). As cuzk prove: the proof runs on the default device (auto: the first visible GPU, else the "
          "CPU), is verified against the key before it is written, and nothing is written on error.")
      .positional("<circuit.zkey>", "the proving key (snarkjs's .zkey)")
      .positional("<witness.wtns>", "the witness")
      .positional("<proof.json>", "the proof written")
      .positional("<public.json>", "the public signals written")
      .option("--device", "D", "gpu:N, cpu, or auto (default auto = gpu:0 if a GPU is visible, else cpu)")
      .alias("--devices")
      .option("--threads", "N", "CPU threads (default: all)")
      .flag("--verbose", "cuzk prove's progress lines on stderr");
  return c;
}

cli::Command zkey_export_vk_spec() {
  cli::Command c("zkey export verificationkey", "a .zkey's verification_key.json, as snarkjs exports it");
  c.describe(
       "snarkjs's command of that name: writes the key's verifying part (alpha, beta, gamma, delta, "
       "e(alpha, beta) and IC) byte for byte as `snarkjs zkey export verificationkey` does, for BN254 and "
       "BLS12-381. Only the key's header and IC are read. `snarkjs groth16 verify` and `cuzk verify` take it.")
      .positional("<circuit.zkey>", "the proving key (snarkjs's .zkey)")
      .positional("<verification_key.json>", "the verification key written");
  return c;
}

cli::Command verify_spec() {
  cli::Command c("verify", "check Groth16 proofs against a verification key (snarkjs's argument order)");
  c.synopsis("<verification_key.json> <public.json> <proof.json> [<public2.json> <proof2.json> ...]")
      .describe(
          "Exit 0 only if every proof is valid; each invalid one is named. Several proofs are checked together (one "
          "final exponentiation). Stricter than snarkjs: points must also be in the prime-order subgroups.")
      .positional("<verification_key.json>",
                  "the key: snarkjs's verification_key.json, or bellperson's .vk (or the .params itself)")
      .positional("<public.json>", "the public signals of the first proof")
      .positional("<proof.json>", "the first proof")
      .variadic("<public2.json> <proof2.json>", "more pairs of public signals and proof")
      .flag("--quiet", "print only the invalid proofs");
  return c;
}

cli::Command setup_spec() {
  cli::Command c("setup",
                 "an insecure Groth16 key (snarkjs's .zkey, or bellperson's .params) for tests and benchmarks");
  c.synopsis("<circuit.r1cs> <circuit.zkey | OUT> --insecure [--format zkey|bellperson] [options]")
      .describe(
          "A Groth16 key in snarkjs's .zkey format from known random toxic waste, for tests and benchmarks only (the "
          "key records that it is insecure). Refuses to run without --insecure.")
      .positional("<circuit.r1cs>", "the constraint system (circom's .r1cs)")
      .positional("<circuit.zkey>", "the key written (with --format bellperson: OUT.params and OUT.vk)")
      .flag("--insecure", "confirm that the key is for tests and benchmarks only (required)")
      .option("--format", "F",
              "zkey (snarkjs's .zkey, default) or bellperson (OUT.params and OUT.vk in bellperson's layout and "
              "convention, BLS12-381 only)")
      .option("--seed", "N", "derive the toxic waste from N (default: OS CSPRNG)")
      .option("--device", "D",
              "where the fixed-base multiplications run: gpu:N, cpu or auto (default auto = gpu:0 if visible, else "
              "all CPU threads)")
      .alias("--devices")
      .option("--threads", "N", "CPU threads (default: all)")
      .flag("--quiet", "no progress lines");
  return c;
}

cli::Command gen_circuit_spec() {
  cli::Command c("gen-circuit", "a synthetic circuit, satisfying witnesses and optionally an insecure key");
  c.synopsis("--shape porep|dense --log-n N --curve bn254|bls12-381 (--out DIR | --in-memory) [options]")
      .describe(
          "A synthetic circuit filling the domain 2^N and satisfying witnesses. porep: bits of hashes (most values 0 "
          "or 1, ~5.5 non-zeros per constraint); dense: random field elements. Each witness is checked against every "
          "constraint.")
      .option("--shape", "porep|dense", "the circuit's shape")
      .required()
      .option("--log-n", "N", "the domain: 2^N constraints")
      .required()
      .option("--curve", "bn254|bls12-381", "the curve")
      .required()
      .option("--out", "DIR", "write DIR/circuit.r1cs, DIR/witness_<i>.wtns, DIR/circuit.zkey")
      .flag("--in-memory", "write nothing: generate, check and time (for large N)")
      .option("--partitions", "K", "witnesses (default 1)")
      .flag("--setup", "also make an insecure key (see cuzk setup --help)")
      .option("--seed", "N", "the circuit's structure (default 1); witnesses derive from it")
      .option("--setup-seed", "N", "toxic waste seed (default: OS CSPRNG)")
      .option("--device", "D", "where the key's fixed-base multiplications run, as for setup")
      .alias("--devices")
      .option("--threads", "N", "CPU threads (default: all)")
      .flag("--quiet", "no progress lines");
  return c;
}

cli::Command bench_spec() {
  cli::Command c("bench", "GPU kernel timings, or jobs through the engine on each device set (--job)");
  c.synopsis("[--device gpu:N] [--curve C] [--log-n N...] [--ops LIST] [options]")
      .synopsis("--job porep|dense [--devices 'SET;SET;...'] [options]")
      .describe(
          "The first form: GPU timings (CUDA events, warm-up, median of runs), each result checked against the CPU; "
          "a table, and JSON with --json.\n\n"
          "The second form: a circuit of that shape, its insecure key and witnesses made in memory (nothing "
          "written), then jobs through the engine on each device set, e.g. --devices 'gpu:0;gpu:0,gpu:1' (sets "
          "separated by ';'; a set may end in @MEMORY and *WORKERS, e.g. gpu:0,gpu:1@20GiB): proofs/s, busy "
          "fractions. Keys are preloaded on every device before the clock starts.")
      .variadic("N", "more sizes of the first form: --log-n 16 18 20")
      .option("--device", "D",
              "first form: the GPU, gpu:N (default: auto = the first visible one); second form: the device sets "
              "(default: all GPUs, else cpu)")
      .alias("--devices")
      .option("--curve", "C",
              "first form: bn254, bls12-381 or all (default all); second form: bn254 or bls12-381 (default "
              "bls12-381)")
      .option("--log-n", "N",
              "first form: sizes: values, lists (16,20) or ranges (16..26) (default 16..24 step 2); second form: one "
              "size, at least 10 (default 20)")
      .group("options of the first form")
      .option("--ops", "LIST", "ntt,msm-g1,msm-g2,h,prove (default all)")
      .option("--runs", "R", "timed runs after one warm-up (default 5)")
      .option("--window-bits", "LIST",
              "MSM window widths to time, e.g. 16,20,22 (default: the width each call chooses)")
      .option("--tables", "K",
              "MSMs over tables of the bases, as a resident key's: at most K, the width and count the table "
              "plan chooses (or K for each --window-bits width)")
      .option("--max-seconds", "S", "stop cleanly, between measurements, after S seconds (default 540)")
      .option("--json", "FILE", "also write the results as JSON")
      .group("options of the second form")
      .option("--job", "porep|dense", "the circuit's shape: selects the second form")
      .option("--partitions", "K", "partitions of a job (default 10)")
      .option("--jobs", "J", "jobs submitted at once (default 1)")
      .option("--device-memory", "S", "budget per device: 20GiB, or 20GiB,80GiB in device order")
      .option("--workers-per-device", "W", "workers on each device (default 2)")
      .option("--setup-device", "gpu:N|cpu", "where the key is made (default: auto)")
      .flag("--check-cpu",
            "during the last set, partition 0 is also proved on the CPU with the same r, s: the proofs must be equal")
      .option("--out", "DIR", "summary.json and timeline.svg of each set")
      .option("--seed", "N", "the circuit's and the witnesses' seed (default 1)");
  return c;
}

std::vector<app::Command> commands();

char** g_argv = nullptr;  // main's, handed on unchanged

#if defined(CUZK_WITH_DAEMON)

// The daemon and its client commands run in cuzk-daemon, beside this binary: the same process
// (execv), the same arguments, so that no other command loads the network's libraries.
int hand_over(const Args&) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {  // no /proc: the path this binary was run by, never the working directory
    const std::string a0 = g_argv && g_argv[0] ? g_argv[0] : "";
    if (a0.find('/') == std::string::npos)
      throw cuzk::Error("cannot find cuzk-daemon: /proc/self/exe is unreadable and cuzk was run without a path");
    self = a0;
  }
  const std::filesystem::path helper = self.parent_path() / "cuzk-daemon";
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(helper.c_str(), g_argv);
  const int err = errno;
  throw cuzk::Error("cannot run " + helper.string() + " (" + std::strerror(err) +
                    "): the daemon and its client commands are there, installed beside cuzk");
}
#endif

std::vector<const cli::Command*> specs_of(const std::vector<app::Command>& all) {
  std::vector<const cli::Command*> specs;
  for (auto& c : all) specs.push_back(&c.spec);
  return specs;
}

void print_help(FILE* to) {
  std::vector<app::Command> all = commands();
  std::string s =
      "usage: cuzk <command> [arguments]   ('cuzk <command> --help' prints that command's usage)\n\n"
      "commands:\n" +
      cli::command_table(specs_of(all));
#if !defined(CUZK_WITH_DAEMON)
  s += "  daemon, submit, await, status, cancel, preload, evict, loadgen: not in this build (needs gRPC, protobuf, "
       "toml++ and cpp-httplib)\n";
#endif
  std::fputs(s.c_str(), to);
}

// The command that `words` name: the longest command name (of one or more words) they start
// with; `used` gets its number of words. Null when none.
const app::Command* match_command(const std::vector<app::Command>& all, const std::vector<std::string>& words,
                                  size_t& used) {
  const app::Command* best = nullptr;
  used = 0;
  for (auto& c : all) {
    const auto w = cuzk::split(c.spec.name(), ' ');
    if (w.size() <= words.size() && w.size() > used && std::equal(w.begin(), w.end(), words.begin())) {
      best = &c;
      used = w.size();
    }
  }
  return best;
}

// The commands whose names start with `words` ("zkey" -> "zkey export verificationkey").
std::vector<const cli::Command*> commands_under(const std::vector<app::Command>& all,
                                                const std::vector<std::string>& words) {
  std::vector<const cli::Command*> out;
  for (auto& c : all) {
    const auto w = cuzk::split(c.spec.name(), ' ');
    if (w.size() > words.size() && std::equal(words.begin(), words.end(), w.begin())) out.push_back(&c.spec);
  }
  return out;
}

// No command is named by `words`: the error names what was given and, when its first words
// start longer names, those commands.
[[noreturn]] void unknown_command(const std::vector<app::Command>& all, const std::vector<std::string>& words) {
  std::vector<std::string> given;
  for (auto& w : words) {
    if (w.rfind("-", 0) == 0) break;
    given.push_back(w);
    if (commands_under(all, given).empty()) break;
  }
  const std::string name = cuzk::join(given, ' ');
  std::vector<std::string> first(given.begin(), given.begin() + std::min<size_t>(given.size(), 1));
  auto near = first.empty() ? std::vector<const cli::Command*>{} : commands_under(all, first);
  std::string known;
  for (auto* c : near) known += (known.empty() ? "" : ", ") + c->name();
  const bool incomplete = !given.empty() && !commands_under(all, given).empty();
  throw UsageError((incomplete ? "incomplete command '" : "unknown command '") + name + "'" +
                   (known.empty() ? "" : " (" + first[0] + " commands: " + known + ")"));
}

// Every command of this build, in the order `cuzk help` lists them.
std::vector<app::Command> commands() {
  std::vector<app::Command> all = {
      {prove_spec(), cmd_prove},
      {prover_spec(), cmd_prover, prover_error},
      {verify_spec(), cmd_verify},
      {zkey_export_vk_spec(), cmd_zkey_export_vk},
      {setup_spec(), cmd_setup},
      {gen_circuit_spec(), cmd_gen_circuit},
      {bench_spec(), cmd_bench},
      {cli::Command("devices", "list the GPUs this binary can use"), [](const Args&) { return cmd_devices(); }},
      {cli::Command("version", "version, git commit and CUDA architectures (also: cuzk --version)"),
       [](const Args&) {
         print_version();
         return kExitOk;
       }},
      {cli::Command("completion", "a bash completion script generated from these commands")
           .describe("Prints a bash completion script: command names (word by word for those of several words, such as "
                     "zkey export verificationkey), each command's options, and file names for paths. Load it with "
                     "`source <(cuzk completion bash)`, or save it as /etc/bash_completion.d/cuzk.")
           .positional("<shell>", "bash (the only shell supported)"),
       [](const Args& a) {
         if (a.pos[0] != "bash") throw UsageError("<shell>: only bash is supported, got '" + a.pos[0] + "'");
         auto all = commands();
         std::fputs(cli::bash_completion("cuzk", specs_of(all)).c_str(), stdout);
         return kExitOk;
       }},
      {cli::Command("help", "this list, or a command's usage (the same as cuzk <command> --help)")
           .variadic("<command>",
                     "the command whose usage to print (words of a name of several: help zkey export "
                     "verificationkey)"),
       [](const Args& a) {
         if (a.pos.empty()) {
           print_help(stdout);
           return kExitOk;
         }
         auto all = commands();
         size_t used = 0;
         const app::Command* c = match_command(all, a.pos, used);
         if (c && used == a.pos.size()) {
           std::fputs(c->spec.help().c_str(), stdout);
           return kExitOk;
         }
         auto under = commands_under(all, a.pos);
         const std::string given = cuzk::join(a.pos, ' ');
         if (under.empty() && c) throw UsageError("unknown command '" + given + "'");  // a name and more words
         if (under.empty()) unknown_command(all, a.pos);
         std::fputs((given + " commands:\n" + cli::command_table(under)).c_str(), stdout);
         return kExitOk;
       }},
  };
  // Filecoin's commands go before devices.
  auto at = std::find_if(all.begin(), all.end(), [](const app::Command& c) { return c.spec.name() == "devices"; });
  for (auto& c : app::filecoin_commands()) at = all.insert(at, std::move(c)) + 1;
#if defined(CUZK_WITH_DAEMON)
  for (auto& spec : app::network_specs()) all.push_back({spec, hand_over});
#endif
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  g_argv = argv;
  std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);  // after the program's name
  if (!words.empty() && (words[0] == "--version" || words[0] == "-V")) words[0] = "version";
  if (!words.empty() && (words[0] == "--help" || words[0] == "-h")) words[0] = "help";
  try {
    if (words.empty()) {
      print_help(stderr);
      return kExitUsage;
    }
    const std::vector<app::Command> all = commands();
    size_t used = 0;
    const app::Command* cmd = match_command(all, words, used);
    if (!cmd) {
#if !defined(CUZK_WITH_DAEMON)
      for (const char* k : {"daemon", "submit", "await", "status", "cancel", "preload", "evict", "loadgen"})
        if (words[0] == k)
          throw cuzk::Error(words[0] +
                            ": this cuzk was built without the daemon (it needs libgrpc++-dev, "
                            "protobuf-compiler-grpc, libtomlplusplus-dev and libcpp-httplib-dev)");
#endif
      unknown_command(all, words);
    }
    return app::run_command(*cmd, std::vector<std::string>(words.begin() + long(used), words.end()));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "cuzk: %s\n(run 'cuzk help' for usage)\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
    return kExitError;
  }
}
