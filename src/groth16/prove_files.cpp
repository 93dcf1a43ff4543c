#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cuzk/prove.hpp"
#include "ec/curves.hpp"
#include "engine/engine.hpp"
#include "groth16/prover.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk {
namespace groth16 {
template <class E>
ProveOutput prove_with(const io::ZkeyGroth16&, const io::Wtns&, const io::R1cs*, const ProveOptions&, ThreadPool&);
extern template ProveOutput prove_with<ec::Bn254>(const io::ZkeyGroth16&, const io::Wtns&, const io::R1cs*,
                                                 const ProveOptions&, ThreadPool&);
extern template ProveOutput prove_with<ec::Bls12381>(const io::ZkeyGroth16&, const io::Wtns&, const io::R1cs*,
                                                    const ProveOptions&, ThreadPool&);
}  // namespace groth16

ProveOutput prove_files(const std::string& zkey_path, const std::string& wtns_path, const ProveOptions& opt,
                        ThreadPool& pool) {
  io::ZkeyGroth16 z = io::read_zkey(zkey_path);
  io::Wtns w = io::read_wtns(wtns_path);
  if (w.curve != z.curve)
    throw InvalidArgument(wtns_path + ": witness is for " + curve_name(w.curve) + " but " + zkey_path + " is for " +
                          curve_name(z.curve));
  if (w.n_witness != z.n_vars)
    throw InvalidArgument(wtns_path + ": witness has " + std::to_string(w.n_witness) + " values but " + zkey_path +
                          " expects " + std::to_string(z.n_vars));
  std::optional<io::R1cs> cs;
  if (!opt.r1cs_path.empty()) {
    cs = io::read_r1cs(opt.r1cs_path);
    if (cs->curve != z.curve)
      throw InvalidArgument(opt.r1cs_path + ": constraint system is for " + curve_name(cs->curve) + " but " +
                            zkey_path + " is for " + curve_name(z.curve));
    if (cs->n_wires != z.n_vars || cs->n_public() != z.n_public)
      throw InvalidArgument(opt.r1cs_path + ": " + std::to_string(cs->n_wires) + " wires / " +
                            std::to_string(cs->n_public()) + " public do not match " + zkey_path + " (" +
                            std::to_string(z.n_vars) + " / " + std::to_string(z.n_public) + ")");
  }
  if (!z.insecure_note.empty() && opt.log)
    opt.log("warning: " + zkey_path + " is from an insecure setup: " + z.insecure_note);
  if (opt.device.kind == ProveDevice::Gpu) {
    // Through the engine: the device's lock and budget, as for every partition.
    auto t0 = std::chrono::steady_clock::now();
    auto circuit = engine::make_circuit(zkey_path, z, std::move(cs), pool);
    std::vector<cpu::Scalar> wv = groth16::witness_scalars(w.values, w.n_witness);
    const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (opt.log)
      opt.log("key loaded: " + std::to_string(z.n_vars) + " variables, " + std::to_string(z.n_public) +
              " public, domain 2^" + std::to_string(circuit->log_n()) + " (" + std::to_string(int(load_ms)) + " ms)");
    ProveOutput out = engine::prove_one(std::move(circuit), std::move(wv), wtns_path, opt, unsigned(pool.size()));
    out.times.load_ms += load_ms;
    return out;
  }
  const io::R1cs* csp = cs ? &*cs : nullptr;
  switch (z.curve) {
    case CurveId::bn254: return groth16::prove_with<ec::Bn254>(z, w, csp, opt, pool);
    case CurveId::bls12_381: return groth16::prove_with<ec::Bls12381>(z, w, csp, opt, pool);
  }
  throw Error("unreachable curve");
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  namespace fs = std::filesystem;
  // Refuse what would fail at the rename stage, after other targets were already replaced:
  // empty paths, directories, and the same file named twice.
  std::vector<fs::path> canon;
  for (auto& [path, content] : files) {
    if (path.empty()) throw Error("cannot write an output with an empty path");
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw Error("cannot write " + path + ": it is a directory");
    fs::path c = fs::weakly_canonical(fs::absolute(path), ec);
    for (auto& other : canon)
      if (other == c) throw Error("cannot write " + path + ": the same file is named for two outputs");
    canon.push_back(c);
  }
  std::vector<std::string> temps;
  size_t renamed = 0;
  auto cleanup = [&] {
    for (size_t i = renamed; i < temps.size(); ++i) std::remove(temps[i].c_str());
  };
  try {
    for (size_t i = 0; i < files.size(); ++i) {
      const auto& [path, content] = files[i];
      fs::path p(path);
      std::string tmp = (p.parent_path().empty() ? fs::path(".") : p.parent_path()) /
                        ("." + p.filename().string() + ".cuzk-tmp-" + std::to_string(::getpid()) + "-" +
                         std::to_string(i));
      int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) throw Error("cannot write " + path + ": " + std::strerror(errno));
      temps.push_back(tmp);
      size_t off = 0;
      while (off < content.size()) {
        ssize_t k = ::write(fd, content.data() + off, content.size() - off);
        if (k < 0) {
          if (errno == EINTR) continue;
          int e = errno;
          ::close(fd);
          throw Error("cannot write " + path + ": " + std::strerror(e));
        }
        off += size_t(k);
      }
      int rc = ::fsync(fd);
      int e = errno;
      if (::close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
      }
      if (rc != 0) throw Error("cannot write " + path + ": " + std::strerror(e));
    }
    for (; renamed < files.size(); ++renamed) {
      if (std::rename(temps[renamed].c_str(), files[renamed].first.c_str()) != 0)
        throw Error("cannot write " + files[renamed].first + ": " + std::strerror(errno));
    }
  } catch (...) {
    cleanup();
    throw;
  }
}

}  // namespace cuzk
