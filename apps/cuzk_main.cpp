// cuzk command line. Thin: parsing and printing; the work is in the library.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/probe.hpp"
#include "cuzk/prove.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace {

constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kUsage = R"(usage: cuzk <command> [options]

commands:
  prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]
        Groth16 proof of a snarkjs key and witness (BN254 or BLS12-381), written as
        snarkjs writes proof.json and public.json. Nothing is written on error.
        --r1cs FILE        check the witness against every constraint first
        --proof-bin FILE   also write the compressed binary proof
                           (BLS12-381: 192 bytes, BN254: 128 bytes)
        --seed N           deterministic r, s (tests only; default: OS CSPRNG)
        --threads N        CPU threads (default: all)
        --quiet            no progress lines
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

uint64_t parse_u64(const std::string& what, const std::string& s) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (s.empty() || *end != '\0' || errno != 0 || s[0] == '-') throw UsageError(what + ": not a number: '" + s + "'");
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

int cmd_prove(int argc, char** argv) {
  Args a = Args::parse(argc, argv, 2, {"--r1cs", "--proof-bin", "--seed", "--threads"}, {"--quiet"});
  if (a.pos.size() != 4)
    throw UsageError("prove takes 4 paths: <circuit.zkey> <witness.wtns> <proof.json> <public.json>");
  const bool quiet = a.flag("--quiet");
  cuzk::ProveOptions opt;
  if (auto r = a.opt("--r1cs")) opt.r1cs_path = *r;
  if (auto s = a.opt("--seed")) opt.seed = parse_u64("--seed", *s);
  unsigned threads = 0;
  if (auto t = a.opt("--threads")) threads = unsigned(parse_u64("--threads", *t));
  const bool tty = isatty(2);
  if (!quiet) opt.log = [tty](const std::string& s) { std::fprintf(stderr, "%scuzk: %s\n", tty ? "" : "", s.c_str()); };

  auto t0 = std::chrono::steady_clock::now();
  cuzk::ThreadPool pool(threads);
  cuzk::ProveOutput out = cuzk::prove_files(a.pos[0], a.pos[1], opt, pool);

  std::vector<std::pair<std::string, std::string>> files = {{a.pos[2], out.proof_json}, {a.pos[3], out.public_json}};
  if (auto b = a.opt("--proof-bin"))
    files.push_back({*b, std::string(out.proof_compressed.begin(), out.proof_compressed.end())});
  cuzk::write_files_atomically(files);
  double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!quiet) {
    const auto& t = out.times;
    std::fprintf(stderr,
                 "cuzk: %s proof on cpu (%u threads): prove %.1f ms [abc %.1f, ntt/h %.1f, msm A %.1f, B1 %.1f, "
                 "B2 %.1f, C %.1f, H %.1f, finish %.1f]; total %.1f ms\n",
                 out.curve.c_str(), pool.size(), t.prove_ms, t.abc_ms, t.ntt_h_ms, t.msm_a_ms, t.msm_b1_ms,
                 t.msm_b2_ms, t.msm_c_ms, t.msm_h_ms, t.finish_ms, total);
  }
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
      return kExitOk;
    }
    if (cmd == "prove") return cmd_prove(argc, argv);
    if (cmd == "devices") return cmd_devices();
    throw UsageError("unknown command '" + cmd + "'");
  } catch (const UsageError& e) {
    std::fprintf(stderr, "cuzk: %s\n(run 'cuzk help' for usage)\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
    return kExitError;
  }
}
