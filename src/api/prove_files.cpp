// The file-level prover (include/cuzk/prove.hpp): a .zkey and a .wtns read and checked, then
// one proof through an engine of one device, so that a lone proof takes the device's lock,
// budget and self-verification like every partition.
#include "cuzk/prove.hpp"
#include "engine/engine.hpp"
#include "groth16/key.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"
#include "util/time.hpp"

namespace cuzk {

namespace {

std::optional<io::R1cs> read_matching_r1cs(const std::string& r1cs_path, const io::ZkeyGroth16& z,
                                           const std::string& zkey_path) {
  if (r1cs_path.empty()) return std::nullopt;
  io::R1cs cs = io::read_r1cs(r1cs_path);
  if (cs.curve != z.curve)
    throw InvalidArgument(r1cs_path + ": constraint system is for " + curve_name(cs.curve) + " but " + zkey_path +
                          " is for " + curve_name(z.curve));
  if (cs.n_wires != z.n_vars || cs.n_public() != z.n_public)
    throw InvalidArgument(r1cs_path + ": " + std::to_string(cs.n_wires) + " wires / " + std::to_string(cs.n_public()) +
                          " public do not match " + zkey_path + " (" + std::to_string(z.n_vars) + " / " +
                          std::to_string(z.n_public) + ")");
  return cs;
}

}  // namespace

ProveOutput prove_files(const std::string& zkey_path, const std::string& wtns_path, const ProveOptions& opt,
                        ThreadPool& pool) {
  auto log = [&](const std::string& s) {
    if (opt.log) opt.log(s);
  };
  engine::EngineConfig cfg;
  cfg.devices = {engine::one_device(opt.device, "--device")};
  cfg.devices[0].threads = pool.size();
  cfg.workers_per_device = 1;
  cfg.synthesis_workers = 1;
  cfg.synthesis_threads = pool.size();
  cfg.verify = opt.verify;
  cfg.seed = opt.seed;

  const auto t0 = SteadyClock::now();
  io::ZkeyGroth16 z = io::read_zkey(zkey_path);
  io::Wtns w = io::read_wtns(wtns_path);
  if (w.curve != z.curve)
    throw InvalidArgument(wtns_path + ": witness is for " + curve_name(w.curve) + " but " + zkey_path + " is for " +
                          curve_name(z.curve));
  if (w.n_witness != z.n_vars)
    throw InvalidArgument(wtns_path + ": witness has " + std::to_string(w.n_witness) + " values but " + zkey_path +
                          " expects " + std::to_string(z.n_vars));
  std::optional<io::R1cs> cs = read_matching_r1cs(opt.r1cs_path, z, zkey_path);
  if (!z.insecure_note.empty()) log("warning: " + zkey_path + " is from an insecure setup: " + z.insecure_note);
  auto circuit = engine::make_circuit(zkey_path, z, std::move(cs), pool);
  std::vector<cpu::Scalar> witness = groth16::witness_scalars(w.values, w.n_witness);
  ProveOutput out;
  out.curve = curve_name(z.curve);
  out.load_ms = ms_since(t0);
  log("key loaded: " + std::to_string(z.n_vars) + " variables, " + std::to_string(z.n_public) + " public, domain 2^" +
      std::to_string(circuit->log_n()) + " (" + std::to_string(int(out.load_ms)) + " ms)");

  engine::Engine engine(cfg);
  engine.register_circuit("circuit", circuit);
  engine::JobRequest req;
  req.circuit = "circuit";
  req.partitions.push_back(engine::Witness::values(wtns_path, std::move(witness)));
  const engine::JobResult r = engine.await(engine.submit(std::move(req)));
  if (r.state != engine::JobState::Done) {
    // A partition's error already names the device; the job's adds "partition 0 on ...".
    const std::string err = r.records.empty() || r.records[0].error.empty() ? r.error : r.records[0].error;
    throw Error(err + (err.find("nothing written") == std::string::npos ? "; nothing written" : ""));
  }
  const engine::PartitionRecord& rec = r.records.at(0);
  out.device = rec.device;
  out.proof_json = r.proofs[0].proof_json;
  out.public_json = r.proofs[0].public_json;
  out.proof_compressed = r.proofs[0].compressed;
  for (size_t i = 0; i < kPhaseCount; ++i)
    if (rec.spans.at[i].happened()) out.phases_ms.emplace_back(std::string(kPhaseNames[i]), rec.spans.at[i].ms());
  if (cs && rec.spans[Phase::Synthesis].happened())
    log("witness satisfies all constraints of " + opt.r1cs_path + " (" + std::to_string(int(rec.ms(Phase::Synthesis))) +
        " ms)");
  log("on " + rec.device + (rec.streamed ? " (key streamed in chunks)" : "") + ": " +
      std::to_string(rec.reserved_bytes >> 20) + " MiB reserved, staging " + std::to_string(int(rec.ms(Phase::Stage))) +
      " ms, kernels " + std::to_string(int(rec.ms(Phase::Kernels))) + " ms" + (opt.verify ? ", proof verified" : ""));
  return out;
}

}  // namespace cuzk
