// Engines of one device for the tools: the single-proof form on a GPU (one partition through a
// one-device engine, so that a lone proof takes the device's lock and budget like every
// partition) and the runner behind setup's and the kernel benchmark's device work.
#include <chrono>

#include "engine/engine.hpp"
#include "util/error.hpp"

namespace cuzk::engine {

std::unique_ptr<Engine> tool_engine(const std::string& device) {
  EngineConfig cfg;
  cfg.devices = parse_devices(device);
  if (cfg.devices.size() != 1) throw InvalidArgument("'" + device + "': expected one device");
  cfg.workers_per_device = 1;
  cfg.synthesis_workers = 1;
  cfg.synthesis_threads = 1;
  return std::make_unique<Engine>(cfg);
}

ProveOutput prove_one(std::shared_ptr<Circuit> circuit, std::vector<cpu::Scalar> witness,
                      const std::string& witness_name, const ProveOptions& opt, unsigned threads) {
  auto log = [&](const std::string& s) {
    if (opt.log) opt.log(s);
  };
  EngineConfig cfg;
  if (opt.device.kind == ProveDevice::Gpu) cfg.devices = parse_devices(opt.device.name());
  else cfg.devices = parse_devices("cpu");
  cfg.devices[0].sim_threads = threads;
  cfg.workers_per_device = 1;
  cfg.synthesis_workers = 1;
  cfg.synthesis_threads = threads;
  cfg.verify = opt.verify;
  cfg.seed = opt.seed;
  const CurveId curve = circuit->curve();
  Engine engine(cfg);
  engine.register_circuit("circuit", std::move(circuit));
  JobRequest req;
  req.circuit = "circuit";
  req.partitions.push_back(Witness::values(witness_name, std::move(witness)));
  const uint64_t id = engine.submit(std::move(req));
  JobResult r = engine.await(id);
  if (r.state != JobState::Done) {
    // A partition's error already names the device; the job's adds "partition 0 on ...".
    const std::string err = r.records.empty() || r.records[0].error.empty() ? r.error : r.records[0].error;
    throw Error(err + (err.find("nothing written") == std::string::npos ? "; nothing written" : ""));
  }
  const PartitionRecord& rec = r.records.at(0);
  ProveOutput out;
  out.curve = curve_name(curve);
  out.device = rec.device;
  out.proof_json = r.proofs[0].proof_json;
  out.public_json = r.proofs[0].public_json;
  out.proof_compressed = r.proofs[0].compressed;
  PhaseTimes& t = out.times;
  t.check_ms = rec.synth.ms();  // witness load (and the constraint check with --r1cs)
  t.load_ms = rec.stage.ms();   // the key's upload (first use on the device) and the staging copies
  t.ntt_h_ms = rec.ntt_h_ms;
  t.msm_a_ms = rec.msm_a_ms;
  t.msm_b1_ms = rec.msm_b1_ms;
  t.msm_b2_ms = rec.msm_b2_ms;
  t.msm_c_ms = rec.msm_c_ms;
  t.msm_h_ms = rec.msm_h_ms;
  t.finish_ms = rec.finish.ms();
  t.prove_ms = rec.kernels.ms() + rec.finish.ms();
  const double abc = rec.kernels.ms() - (t.ntt_h_ms + t.msm_a_ms + t.msm_b1_ms + t.msm_b2_ms + t.msm_c_ms + t.msm_h_ms);
  t.abc_ms = abc > 0 ? abc : 0;
  log("on " + rec.device + (rec.streamed ? " (key streamed in chunks)" : "") + ": " +
      std::to_string(rec.reserved_bytes >> 20) + " MiB reserved, staging " + std::to_string(int(rec.stage.ms())) +
      " ms, kernels " + std::to_string(int(rec.kernels.ms())) + " ms" + (opt.verify ? ", proof verified" : ""));
  return out;
}

}  // namespace cuzk::engine
