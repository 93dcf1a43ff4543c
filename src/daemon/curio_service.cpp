// SPDX-License-Identifier: MIT OR Apache-2.0
#include "daemon/curio_service.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "daemon/service_util.hpp"
#include "filecoin/param_names.hpp"
#include "util/error.hpp"

namespace cuzk::daemon {

using Clock = std::chrono::steady_clock;

struct CurioService::Job {
  std::string id, request_id;
  curio::ProofKind kind = curio::PROOF_KIND_UNSPECIFIED;
  filecoin::Prover* prover = nullptr;
  uint64_t engine_job = 0;
  bool submitting = true;  // a placeholder under its request_id until the prover has it
  bool ended = false;
  curio::AwaitProofResponse result;  // once ended
  Clock::time_point ended_at;
};

namespace {

filecoin::ProofKind kind_of(curio::ProofKind k) {
  switch (k) {
    case curio::POREP_SEAL_COMMIT:
      return filecoin::ProofKind::porep;
    case curio::WINDOW_POST_PARTITION:
      return filecoin::ProofKind::window_post;
    case curio::WINNING_POST:
      return filecoin::ProofKind::winning_post;
    case curio::SNAP_DEALS_UPDATE:
      return filecoin::ProofKind::snap_deals;
    default:
      throw Rejected(Rejected::InvalidArgument,
                     "proof_kind " + std::to_string(int(k)) +
                         ": expected POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION or WINNING_POST");
  }
}

engine::Priority priority_of(curio::Priority p) {
  switch (p) {
    case curio::PRIORITY_UNSPECIFIED:
    case curio::NORMAL:
      return engine::Priority::Normal;
    case curio::LOW:
      return engine::Priority::Low;
    case curio::HIGH:
      return engine::Priority::High;
    case curio::CRITICAL:
      return engine::Priority::Critical;
    default:
      throw Rejected(Rejected::InvalidArgument, "priority " + std::to_string(int(p)) + ": unknown");
  }
}

// A 32-byte field: `required`, or empty (zeros).
filecoin::Bytes32 bytes32(const std::string& v, const char* name, bool required, const char* why) {
  filecoin::Bytes32 out{};
  if (v.empty() && !required) return out;
  if (v.size() != out.size())
    throw Rejected(Rejected::InvalidArgument, std::string(name) + ": " + std::to_string(v.size()) +
                                                  " bytes, expected 32" +
                                                  (v.empty() ? std::string(" (") + why + ")" : ""));
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}

// Curio's short names of its circuits: porep-32g, wpost-32g, winning-32g, snap-32g (and the
// other sizes the same way: porep-2k, wpost-8m, snap-512m).
std::string curio_circuit_name(const filecoin::CircuitParams& p) {
  const char* k = nullptr;
  switch (p.kind) {
    case filecoin::ProofKind::porep:
      k = "porep";
      break;
    case filecoin::ProofKind::window_post:
      k = "wpost";
      break;
    case filecoin::ProofKind::winning_post:
      k = "winning";
      break;
    case filecoin::ProofKind::snap_deals:
      k = "snap";
      break;
    default:
      return "";
  }
  const uint64_t s = p.sector_size;
  const std::string size = s % (uint64_t(1) << 30) == 0   ? std::to_string(s >> 30) + "g"
                           : s % (uint64_t(1) << 20) == 0 ? std::to_string(s >> 20) + "m"
                                                          : std::to_string(s >> 10) + "k";
  return std::string(k) + "-" + size;
}

// A circuit named as cuzk names it ("porep-32GiB", "window-post-2KiB") or as Curio does
// ("porep-32g", "wpost-32g", "winning-32g", "snap-32g").
std::optional<filecoin::FilecoinCircuit> circuit_named(const std::string& name) {
  for (const filecoin::CircuitParams& p : filecoin::published_circuits()) {
    filecoin::FilecoinCircuit c{p.kind, p.sector_size, p};
    if (name == c.id() || name == curio_circuit_name(p)) return c;
  }
  return std::nullopt;
}

filecoin::FilecoinCircuit circuit_or_throw(const std::string& name) {
  if (auto c = circuit_named(name)) return *c;
  throw Rejected(Rejected::InvalidArgument,
                 "unknown circuit '" + name +
                     "' (Filecoin's: porep-32GiB, window-post-32GiB, winning-post-32GiB, snap-deals-32GiB and "
                     "the other sector sizes, or Curio's porep-32g, wpost-32g, winning-32g, snap-32g)");
}

bool ended_state(engine::JobState s) {
  return s == engine::JobState::Done || s == engine::JobState::Failed || s == engine::JobState::Cancelled;
}

uint64_t ms_of(double ms) { return ms > 0 ? uint64_t(ms + 0.5) : 0; }

}  // namespace

CurioService::CurioService(const Config& cfg, engine::Engine& engine, Log log)
    : cfg_(cfg), engine_(engine), log_(std::move(log)), pool_(cfg.synthesis_threads) {
  const auto& f = cfg_.filecoin;
  for (auto [key, dir] : {std::pair{"params_dir", &f.params_dir},
                          {"porep_params_dir", &f.porep_params_dir},
                          {"window_post_params_dir", &f.window_post_params_dir},
                          {"winning_post_params_dir", &f.winning_post_params_dir},
                          {"snap_params_dir", &f.snap_params_dir}})
    if (!dir->empty() && !std::filesystem::is_directory(*dir))
      throw InvalidArgument(cfg_.source + ": filecoin." + key + ": " + *dir + " is not a directory");
  if (log_)
    log_(f.configured() ? "Curio's API (cuzk.v1): Filecoin parameters from " +
                              (f.params_dir.empty() ? std::string("the per-kind directories") : f.params_dir)
                        : "Curio's API (cuzk.v1): no [filecoin] params_dir: Filecoin proofs are refused");
  collector_ = std::thread([this] { collect(); });
}

CurioService::~CurioService() {
  std::vector<uint64_t> running;
  {
    std::lock_guard lk(mu_);
    accepting_ = false;
    stopping_ = true;
    for (auto& [id, j] : jobs_)
      if (!j->ended) running.push_back(j->engine_job);
  }
  cv_.notify_all();
  for (uint64_t e : running) engine_.cancel(e);
  collector_.join();
}

filecoin::Prover* CurioService::prover_for(filecoin::ProofKind k, curio::ProofKind ck) {
  const auto& f = cfg_.filecoin;
  const std::string* own = k == filecoin::ProofKind::porep          ? &f.porep_params_dir
                           : k == filecoin::ProofKind::window_post  ? &f.window_post_params_dir
                           : k == filecoin::ProofKind::winning_post ? &f.winning_post_params_dir
                                                                    : &f.snap_params_dir;
  const std::string& dir = own->empty() ? f.params_dir : *own;
  if (dir.empty())
    throw Rejected(Rejected::FailedPrecondition,
                   std::string("this daemon proves no ") + curio::ProofKind_Name(ck) +
                       ": its config has no [filecoin] params_dir (the directory of Filecoin's .params files)");
  std::lock_guard lk(prover_mu_);
  auto& p = provers_[dir];
  if (!p) {
    filecoin::ProverConfig pc;
    pc.params_dir = dir;
    pc.log = log_;
    p = std::make_unique<filecoin::Prover>(engine_, pc, pool_);
  }
  return p.get();
}

curio::SubmitProofResponse CurioService::submit(const curio::SubmitProofRequest& q) {
  const filecoin::ProofKind kind = kind_of(q.proof_kind());
  const engine::Priority priority = priority_of(q.priority());
  const bool post = kind == filecoin::ProofKind::window_post || kind == filecoin::ProofKind::winning_post;
  const bool snap = kind == filecoin::ProofKind::snap_deals;
  filecoin::ProofRequest r;
  r.kind = kind;
  r.registered_proof = q.registered_proof();
  r.sector_size = q.sector_size();
  r.randomness = bytes32(q.randomness(), "randomness", post, "a PoSt needs its 32-byte challenge seed");
  r.comm_r_old = bytes32(q.comm_r_old(), "comm_r_old", snap, "a SnapDeals proof needs it");
  r.comm_r_new = bytes32(q.comm_r_new(), "comm_r_new", snap, "a SnapDeals proof needs it");
  r.comm_d_new = bytes32(q.comm_d_new(), "comm_d_new", snap, "a SnapDeals proof needs it");
  r.partition_index = q.partition_index();
  filecoin::Prover* prover = prover_for(kind, q.proof_kind());

  // The request_id: its job while it runs or once it completed; a failed or cancelled one is
  // tried again (Curio resubmits under the same id).
  std::shared_ptr<Job> j = std::make_shared<Job>();
  j->id = detail::new_job_id();
  j->request_id = q.request_id();
  j->kind = q.proof_kind();
  j->prover = prover;
  {
    std::unique_lock lk(mu_);
    if (!accepting_) throw Rejected(Rejected::Unavailable, "the daemon is stopping");
    if (!q.request_id().empty()) {
      for (;;) {
        auto it = by_request_.find(q.request_id());
        if (it == by_request_.end()) break;
        if (it->second->submitting) {
          cv_.wait(lk);
          continue;
        }
        const Job& known = *it->second;
        const auto st = known.result.status();
        if (!known.ended || st == curio::AwaitProofResponse::COMPLETED) {
          curio::SubmitProofResponse resp;
          resp.set_job_id(known.id);
          return resp;
        }
        break;
      }
      by_request_[q.request_id()] = j;
    }
  }
  auto unreserve = [&] {
    std::lock_guard lk(mu_);
    auto it = by_request_.find(q.request_id());
    if (it != by_request_.end() && it->second == j) by_request_.erase(it);
    cv_.notify_all();
  };
  try {
    r.vanilla_proof.assign(q.vanilla_proof().begin(), q.vanilla_proof().end());
    for (const std::string& v : q.vanilla_proofs()) r.vanilla_proofs.emplace_back(v.begin(), v.end());
    j->engine_job = prover->submit(r, priority, j->id);
  } catch (const InvalidArgument& e) {  // a field, a size, a count, a missing .params
    unreserve();
    throw Rejected(Rejected::InvalidArgument, e.what());
  } catch (const FormatError& e) {  // a malformed vanilla proof
    unreserve();
    throw Rejected(Rejected::InvalidArgument, e.what());
  } catch (...) {
    unreserve();
    throw;
  }
  curio::SubmitProofResponse resp;
  resp.set_job_id(j->id);
  {
    std::lock_guard lk(mu_);
    uint32_t ahead = 0;
    for (auto& [id, o] : jobs_) ahead += o->ended ? 0 : 1;
    resp.set_queue_position(ahead);
    j->submitting = false;
    jobs_[j->id] = j;
    // Its circuit is registered now (GetStatus lists it): the one of its kind and sector size
    // (Curio sends the size; the prover checked it against the registered proof).
    if (q.sector_size() != 0) {
      try {
        circuits_.insert(filecoin::filecoin_circuit(kind, q.sector_size()).id());
      } catch (const std::exception&) {
      }
    }
  }
  cv_.notify_all();
  if (log_)
    log_("filecoin job " + j->id + ": " + curio::ProofKind_Name(j->kind) +
         (q.request_id().empty() ? "" : " (request " + q.request_id() + ")") + " accepted");
  return resp;
}

// The job's result from the engine's: the proof bytes, or why not, and the timings of its
// partitions (queue: until the first one started; synthesis and GPU compute: summed over the
// partitions; total: submit to the last partition's end). Then the engine forgets the job.
void CurioService::finish(Job& j, const filecoin::Prover::Outcome& o, const std::string& error) {
  std::lock_guard lk(mu_);
  if (j.ended) return;
  curio::AwaitProofResponse& r = j.result;
  r.set_job_id(j.id);
  if (!error.empty()) {
    r.set_status(curio::AwaitProofResponse::FAILED);
    r.set_error_message(error);
  } else if (o.job.state == engine::JobState::Done) {
    r.set_status(curio::AwaitProofResponse::COMPLETED);
    r.set_proof(std::string(o.proof.begin(), o.proof.end()));
  } else if (o.job.state == engine::JobState::Cancelled) {
    r.set_status(curio::AwaitProofResponse::CANCELLED);
    r.set_error_message(o.job.error.empty() ? "cancelled" : o.job.error);
  } else {
    r.set_status(curio::AwaitProofResponse::FAILED);
    r.set_error_message(o.job.error);
  }
  double queue = o.job.records.empty() ? 0 : std::numeric_limits<double>::max(), synthesis = 0, kernels = 0;
  for (const engine::PartitionRecord& rec : o.job.records) {
    queue = std::min(queue, rec.ms(Phase::Queue));
    synthesis += rec.ms(Phase::Synthesis);
    kernels += rec.ms(Phase::Kernels);
  }
  r.set_queue_wait_ms(ms_of(queue));
  r.set_synthesis_ms(ms_of(synthesis));
  r.set_gpu_compute_ms(ms_of(kernels));
  r.set_total_ms(ms_of(o.job.wall_ms));
  j.ended = true;
  j.ended_at = Clock::now();
  ++ended_[{int(j.kind), int(r.status())}];
  engine_.forget(j.engine_job);
  cv_.notify_all();
  if (log_)
    log_("filecoin job " + j.id + ": " + curio::AwaitProofResponse::Status_Name(r.status()) +
         (r.error_message().empty() ? "" : ": " + r.error_message()) + " (" + std::to_string(r.total_ms()) + " ms)");
}

curio::AwaitProofResponse CurioService::await(const std::string& job_id, uint64_t timeout_ms,
                                              const std::function<bool()>& gone) {
  const auto deadline = timeout_ms ? Clock::now() + std::chrono::milliseconds(timeout_ms) : Clock::time_point::max();
  for (;;) {
    std::shared_ptr<Job> j;
    {
      std::lock_guard lk(mu_);
      auto it = jobs_.find(job_id);
      if (it == jobs_.end()) throw Rejected(Rejected::NotFound, "unknown job_id '" + job_id + "'");
      j = it->second;
      if (j->ended) return j->result;
    }
    // In slices, so that a client that went away frees its thread.
    const auto now = Clock::now();
    const double slice =
        deadline == Clock::time_point::max()
            ? 1000.0
            : std::clamp(std::chrono::duration<double, std::milli>(deadline - now).count(), 0.0, 1000.0);
    try {
      filecoin::Prover::Outcome o = j->prover->await(j->engine_job, slice);
      if (ended_state(o.job.state)) finish(*j, o, "");
    } catch (const std::exception& e) {
      // The engine forgot it (another caller finished it), or its proof came back wrong.
      bool ended;
      {
        std::lock_guard lk(mu_);
        ended = j->ended;
      }
      if (!ended) finish(*j, {}, e.what());
    }
    {
      std::lock_guard lk(mu_);
      if (j->ended) return j->result;
      if (Clock::now() >= deadline || stopping_ || (gone && gone())) {
        curio::AwaitProofResponse r;
        r.set_job_id(j->id);
        r.set_status(curio::AwaitProofResponse::TIMEOUT);
        return r;
      }
    }
  }
}

curio::CancelProofResponse CurioService::cancel(const curio::CancelProofRequest& q) {
  std::shared_ptr<Job> j;
  {
    std::lock_guard lk(mu_);
    auto it = jobs_.find(q.job_id());
    if (it == jobs_.end()) throw Rejected(Rejected::NotFound, "unknown job_id '" + q.job_id() + "'");
    j = it->second;
    if (j->ended) return {};
  }
  curio::CancelProofResponse r;
  r.set_was_running(engine_.cancel(j->engine_job));
  cv_.notify_all();  // the collector records how it ended
  return r;
}

curio::GetStatusResponse CurioService::status() {
  curio::GetStatusResponse s;
  const engine::EngineStatus es = engine_.status();
  std::lock_guard lk(mu_);
  uint32_t ordinal = 0;
  for (const engine::DeviceStatus& d : es.devices) {
    curio::GPUStatus* g = s.add_gpus();
    g->set_ordinal(ordinal++);
    g->set_name(d.record.name + (d.record.description.empty() ? "" : " (" + d.record.description + ")"));
    g->set_vram_total_bytes(d.record.budget_bytes);
    g->set_vram_free_bytes(d.free_bytes);
    // "job <label> partition <i>": the label of a Filecoin job is its job id.
    if (d.current.rfind("job ", 0) == 0) {
      const std::string label = d.current.substr(4, d.current.find(" partition") - 4);
      g->set_current_job_id(label);
      if (auto it = jobs_.find(label); it != jobs_.end())
        g->set_current_proof_kind(curio::ProofKind_Name(it->second->kind));
    }
    for (const engine::ResidentKey& k : d.resident_keys)
      if (circuit_named(k.circuit)) circuits_.insert(k.circuit);
  }
  for (const std::string& id : circuits_) {
    curio::SRSStatus* k = s.add_loaded_srs();
    k->set_circuit_id(id);
    uint64_t bytes = 0;
    bool hot = false;
    for (const engine::DeviceStatus& d : es.devices)
      for (const engine::ResidentKey& rk : d.resident_keys)
        if (rk.circuit == id) hot = true, bytes = std::max<uint64_t>(bytes, rk.bytes);
    k->set_tier(hot ? curio::SRSStatus::HOT : curio::SRSStatus::WARM);
    k->set_size_bytes(bytes);
  }
  std::map<int, std::pair<uint32_t, uint32_t>> queues;  // kind -> pending, in progress
  for (auto& [id, j] : jobs_) {
    if (j->ended) continue;
    auto& q = queues[int(j->kind)];
    try {
      (engine_.await(j->engine_job, 0.0).state == engine::JobState::Queued ? q.first : q.second)++;
    } catch (const std::exception&) {
    }
  }
  for (auto& [kind, q] : queues) {
    curio::QueueStatus* o = s.add_queues();
    o->set_proof_kind(curio::ProofKind_Name(curio::ProofKind(kind)));
    o->set_pending(q.first);
    o->set_in_progress(q.second);
  }
  uint64_t done = 0, failed = 0;
  for (auto& [key, n] : ended_) {
    if (key.second == curio::AwaitProofResponse::COMPLETED) done += n;
    if (key.second == curio::AwaitProofResponse::FAILED) failed += n;
  }
  s.set_total_proofs_completed(done);
  s.set_total_proofs_failed(failed);
  s.set_uptime_seconds(uint64_t(std::chrono::duration<double>(Clock::now() - started_).count()));
  return s;
}

curio::PreloadSrsResponse CurioService::preload(const curio::PreloadSrsRequest& q) {
  const filecoin::FilecoinCircuit c = circuit_or_throw(q.circuit_id());
  const curio::ProofKind ck = c.kind == filecoin::ProofKind::porep          ? curio::POREP_SEAL_COMMIT
                              : c.kind == filecoin::ProofKind::window_post  ? curio::WINDOW_POST_PARTITION
                              : c.kind == filecoin::ProofKind::winning_post ? curio::WINNING_POST
                                                                            : curio::SNAP_DEALS_UPDATE;
  filecoin::Prover* prover = prover_for(c.kind, ck);
  const engine::EngineStatus before = engine_.status();
  bool everywhere = !before.devices.empty();
  for (const engine::DeviceStatus& d : before.devices)
    everywhere = everywhere && std::any_of(d.resident_keys.begin(), d.resident_keys.end(),
                                           [&](const engine::ResidentKey& k) { return k.circuit == c.id(); });
  const auto t0 = Clock::now();
  std::string id;
  try {
    id = prover->ensure_circuit(c);
  } catch (const InvalidArgument& e) {
    throw Rejected(Rejected::InvalidArgument, e.what());
  } catch (const FormatError& e) {
    throw Rejected(Rejected::InvalidArgument, e.what());
  }
  {
    std::lock_guard lk(mu_);
    circuits_.insert(id);
  }
  for (const auto& o : engine_.preload_all(id)) {
    if (o.error.empty()) continue;
    if (o.invalid_argument) throw Rejected(Rejected::InvalidArgument, o.device + ": " + o.error);
    throw Error(o.device + ": " + o.error);
  }
  curio::PreloadSrsResponse r;
  r.set_already_loaded(everywhere);
  r.set_load_time_ms(ms_of(std::chrono::duration<double, std::milli>(Clock::now() - t0).count()));
  return r;
}

curio::EvictSrsResponse CurioService::evict(const curio::EvictSrsRequest& q) {
  const std::string id = circuit_or_throw(q.circuit_id()).id();
  curio::EvictSrsResponse r;
  for (const engine::DeviceStatus& d : engine_.status().devices) {
    size_t bytes = 0;
    for (const engine::ResidentKey& k : d.resident_keys)
      if (k.circuit == id) bytes = k.bytes;
    if (engine_.evict(id, d.record.name)) {
      r.set_was_loaded(true);
      r.set_freed_bytes(r.freed_bytes() + bytes);
    }
  }
  return r;
}

void CurioService::metrics(MetricsText& m) {
  std::lock_guard lk(mu_);
  m.family("cuzk_filecoin_proofs_total", "counter", "Filecoin proofs of Curio's API (cuzk.v1), by kind and outcome.");
  // Every kind and outcome, zeros included (a family is never declared without samples).
  for (curio::ProofKind k :
       {curio::POREP_SEAL_COMMIT, curio::SNAP_DEALS_UPDATE, curio::WINDOW_POST_PARTITION, curio::WINNING_POST})
    for (auto st : {curio::AwaitProofResponse::COMPLETED, curio::AwaitProofResponse::FAILED,
                    curio::AwaitProofResponse::CANCELLED}) {
      auto it = ended_.find({int(k), int(st)});
      m.sample(
          "cuzk_filecoin_proofs_total",
          "kind=\"" + curio::ProofKind_Name(k) + "\",outcome=\"" + curio::AwaitProofResponse::Status_Name(st) + "\"",
          it == ended_.end() ? 0.0 : double(it->second));
    }
  size_t active = 0;
  for (auto& [id, j] : jobs_) active += j->ended ? 0 : 1;
  m.family("cuzk_filecoin_jobs_active", "gauge", "Filecoin jobs accepted and not ended.");
  m.sample("cuzk_filecoin_jobs_active", "", double(active));
}

void CurioService::stop_accepting() {
  std::lock_guard lk(mu_);
  accepting_ = false;
}

void CurioService::wait_idle(Clock::time_point deadline) {
  std::unique_lock lk(mu_);
  cv_.wait_until(lk, deadline,
                 [&] { return std::all_of(jobs_.begin(), jobs_.end(), [](auto& e) { return e.second->ended; }); });
}

// Every second: the jobs that ended without anyone awaiting them are finished (their results
// kept, the engine's copy forgotten), and results older than daemon.keep_results dropped.
void CurioService::collect() {
  std::unique_lock lk(mu_);
  while (!stopping_) {
    cv_.wait_for(lk, std::chrono::seconds(1));
    std::vector<std::shared_ptr<Job>> active;
    const auto now = Clock::now();
    const auto keep = std::chrono::duration<double>(cfg_.keep_results_s);
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      Job& j = *it->second;
      if (!j.ended) {
        active.push_back(it->second);
      } else if (now - j.ended_at > keep) {
        if (auto r = by_request_.find(j.request_id); r != by_request_.end() && r->second == it->second)
          by_request_.erase(r);
        it = jobs_.erase(it);
        continue;
      }
      ++it;
    }
    lk.unlock();
    for (auto& j : active) {
      try {
        filecoin::Prover::Outcome o = j->prover->await(j->engine_job, 0.0);
        if (ended_state(o.job.state)) finish(*j, o, "");
      } catch (const std::exception& e) {
        bool ended;
        {
          std::lock_guard g(mu_);
          ended = j->ended;
        }
        if (!ended) finish(*j, {}, e.what());
      }
    }
    lk.lock();
  }
  // Stopping: what has ended is recorded; the rest was cancelled by the destructor.
  std::vector<std::shared_ptr<Job>> left;
  for (auto& [id, j] : jobs_)
    if (!j->ended) left.push_back(j);
  lk.unlock();
  for (auto& j : left) {
    try {
      finish(*j, j->prover->await(j->engine_job), "");
    } catch (const std::exception& e) {
      finish(*j, {}, e.what());
    }
  }
}

}  // namespace cuzk::daemon
