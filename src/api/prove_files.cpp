// SPDX-License-Identifier: MIT OR Apache-2.0
// The file-level prover (include/cuzk/prove.hpp): a key (.zkey, or .params with its .r1cs) and a
// .wtns read and checked, then
// one proof through an engine of one device, so that a lone proof takes the device's lock,
// budget and self-verification like every partition.
#include "api/keys.hpp"
#include "cuzk/prove.hpp"
#include "engine/engine.hpp"
#include "groth16/key.hpp"
#include "io/wtns.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"
#include "util/time.hpp"

namespace cuzk {

ProveOutput prove_files(const std::string& key_path, const std::string& wtns_path, const ProveOptions& opt,
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
  // One proof (or one job) per run: making a large key's MSM tables costs about as much as ten
  // of its MSMs, which a long-lived engine earns back and a single proof does not.
  cfg.key_tables_share = 0;

  const auto t0 = SteadyClock::now();
  // The witness first: a bad one is refused before a large key is read.
  io::Wtns w = io::read_wtns(wtns_path);
  auto circuit = api::load_key(key_path, opt.r1cs_path, pool, log, cfg.devices);
  if (w.curve != circuit->curve())
    throw InvalidArgument(wtns_path + ": witness is for " + curve_name(w.curve) + " but " + key_path + " is for " +
                          curve_name(circuit->curve()));
  if (w.n_witness != circuit->n_vars())
    throw InvalidArgument(wtns_path + ": witness has " + std::to_string(w.n_witness) + " values but " + key_path +
                          " expects " + std::to_string(circuit->n_vars()));
  std::vector<cpu::Scalar> witness = groth16::witness_scalars(w.values, w.n_witness);
  ProveOutput out;
  out.curve = curve_name(circuit->curve());
  out.load_ms = ms_since(t0);
  log("key loaded: " + std::to_string(circuit->n_vars()) + " variables, " + std::to_string(circuit->n_public()) +
      " public, domain 2^" + std::to_string(circuit->log_n()) + " (" + std::to_string(int(out.load_ms)) + " ms)");

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
  if (circuit->has_r1cs() && rec.spans[Phase::Synthesis].happened())
    log("witness satisfies all constraints of " + opt.r1cs_path + " (" + std::to_string(int(rec.ms(Phase::Synthesis))) +
        " ms)");
  log("on " + rec.device + (rec.streamed ? " (key streamed in chunks)" : "") + ": " +
      std::to_string(rec.reserved_bytes >> 20) + " MiB reserved, staging " + std::to_string(int(rec.ms(Phase::Stage))) +
      " ms, kernels " + std::to_string(int(rec.ms(Phase::Kernels))) + " ms" + (opt.verify ? ", proof verified" : ""));
  return out;
}

}  // namespace cuzk
