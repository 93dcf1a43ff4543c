// The daemon's local job store (queue.backend = "local"): every accepted job is journaled
// (journal.hpp) before it is answered, then proved by this daemon's engine; a reaper thread per
// job waits for its end and journals the result. At start the journal's results are kept and its
// unfinished jobs run again; a pruner drops results older than keep_results.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "daemon/job_store.hpp"
#include "daemon/journal.hpp"
#include "daemon/service_util.hpp"
#include "engine/report.hpp"
#include "groth16/key.hpp"
#include "io/wtns.hpp"
#include "util/error.hpp"

namespace cuzk::daemon {

using namespace detail;

namespace {

FileIdentity identity_of(const v1::WitnessPath& p) { return {p.dev(), p.ino(), p.size(), p.mtime_ns(), p.ctime_ns()}; }

// A witness named by path: read in place (not mapped) when it is proved, if it is still under
// witness_dirs and still the file that was accepted (device, inode, size, mtime, ctime). What
// the file is now is not told: after a swap it may be another one.
engine::Witness witness_in_place(const v1::WitnessPath& p, const WitnessDirs* dirs) {
  return engine::Witness{p.path(), [p, dirs] {
                           auto f = dirs->open(p.path());  // refuses a path no longer under them
                           if (!(f->identity() == identity_of(p)))
                             throw InvalidArgument(p.path() + ": changed since the job was accepted (it was " +
                                                   identity_of(p).describe() + ")");
                           io::Wtns w = io::parse_wtns(io::FileBytes::from_buffer(p.path(), f->read_all()));
                           return groth16::witness_scalars(w.values, w.n_witness);
                         }};
}

class JournalStore final : public JobStore {
 public:
  explicit JournalStore(const StoreContext& ctx) : ctx_(ctx), journal_(ctx.cfg.journal) {}

  void start() override;
  void stop(double grace_s) override;
  bool stopping() override {
    std::lock_guard lk(mu_);
    return stopping_;
  }
  bool stopped() override {
    std::lock_guard lk(mu_);
    return stopped_;
  }
  bool takes_paths() const override { return true; }
  std::optional<v1::SubmitProofResponse> existing(const v1::SubmitProofRequest& req, uint64_t digest) override;
  v1::SubmitProofResponse accept(Submission s) override;
  v1::JobResult await(const v1::AwaitProofRequest& req) override;
  v1::CancelProofResponse cancel(const v1::CancelProofRequest& req) override;
  void status(v1::GetStatusResponse& s) override {
    std::lock_guard lk(mu_);
    s.set_jobs_active(active_);
  }
  void metrics(const v1::GetStatusResponse&, MetricsText&) override {}  // nothing of its own

 private:
  struct Job {
    v1::JournalJob job;  // witnesses dropped once the job ends
    uint32_t partitions = 0;
    size_t witness_bytes = 0;  // held in host_budget until the job ends
    uint64_t engine_id = 0;
    bool ended = false;
    bool client_cancelled = false;  // a CancelProof, not a shutdown, stopped it
    v1::JobResult result;           // when ended
    uint64_t ended_unix_ms = 0;
  };

  std::shared_ptr<Job> new_job(const v1::SubmitProofRequest& head, uint64_t digest, uint32_t partitions);
  void remember(std::shared_ptr<Job> j);                                                // under mu_
  std::shared_ptr<Job> find(const std::string& job_id, const std::string& request_id);  // under mu_
  v1::SubmitProofResponse run_accepted(std::shared_ptr<Job> j);
  void run(std::shared_ptr<Job> j);
  void spawn_reaper(std::shared_ptr<Job> j, std::function<void()> body);  // under mu_
  void reap(std::shared_ptr<Job> j);
  void reap_unrunnable(std::shared_ptr<Job> j, engine::JobResult r);
  void ended(Job& j, v1::JobResult res, uint64_t ended_unix_ms);  // under mu_
  v1::JobResult result_of(const Job& j, const engine::JobResult& r);
  void join_reaped();  // under mu_
  void prune_loop();

  StoreContext ctx_;
  Journal journal_;
  std::mutex mu_;
  std::condition_variable cv_;  // a job ended; stopping
  std::mutex submit_mu_;        // one acceptance at a time: request_id check, journal, engine
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::map<std::string, std::string> by_request_;
  std::map<std::string, std::thread> reapers_;  // by job id; joined once they have ended
  std::vector<std::string> reaped_;
  std::thread pruner_;
  bool stopping_ = false, stopped_ = false;
  size_t active_ = 0;  // jobs handed to the engine and not ended
};

// The journal's results back in memory, its unfinished jobs run again (in the order they were
// accepted).
void JournalStore::start() {
  const uint64_t now = unix_ms();
  size_t kept = 0, expired = 0, recovered = 0;
  auto entries = journal_.load(ctx_.log);
  std::stable_sort(entries.begin(), entries.end(), [](const Journal::Entry& a, const Journal::Entry& b) {
    return a.job.accepted_unix_ms() < b.job.accepted_unix_ms();
  });
  for (auto& e : entries) {
    auto j = std::make_shared<Job>();
    j->job = std::move(e.job);
    j->partitions = uint32_t(j->job.partitions_size() + j->job.partition_files_size() + j->job.partition_paths_size());
    if (e.outcome) {
      if (e.outcome->ended_unix_ms() + uint64_t(ctx_.cfg.keep_results_s * 1000) < now) {
        journal_.remove(j->job.job_id());
        ++expired;
        continue;
      }
      j->ended = true;
      j->result = e.outcome->result();
      j->partitions = j->result.partitions();
      j->ended_unix_ms = e.outcome->ended_unix_ms();
      j->job.clear_partitions();  // a crash between the two journal writes may have left them
      std::lock_guard lk(mu_);
      remember(j);
      ++kept;
      continue;
    }
    {
      std::lock_guard lk(mu_);
      remember(j);
    }
    ctx_.stats.recovered();
    ++recovered;
    run(j);
  }
  ctx_.say("journal " + ctx_.cfg.journal + ": " + std::to_string(recovered) + " unfinished job(s) running again, " +
           std::to_string(kept) + " result(s) kept, " + std::to_string(expired) + " expired");
  pruner_ = std::thread([this] { prune_loop(); });
}

void JournalStore::remember(std::shared_ptr<Job> j) {
  jobs_[j->job.job_id()] = j;
  if (!j->job.request_id().empty()) by_request_[j->job.request_id()] = j->job.job_id();
}

std::optional<v1::SubmitProofResponse> JournalStore::existing(const v1::SubmitProofRequest& req, uint64_t digest) {
  std::lock_guard lk(mu_);
  if (req.request_id().empty()) return std::nullopt;
  auto it = by_request_.find(req.request_id());
  if (it == by_request_.end()) return std::nullopt;
  const Job& j = *jobs_.at(it->second);
  return same_request(req, digest, j.job.job_id(), j.job.request_digest(),
                      ", circuit '" + j.job.circuit_id() + "', " + std::to_string(j.partitions) + " partitions");
}

// Journaled (durable) before the answer; witness bytes also held in host_budget until the job
// ends, streamed files moved into the journal, paths kept with their identities.
v1::SubmitProofResponse JournalStore::accept(Submission s) {
  s.mapped.clear();  // streamed files move into the journal; the engine reads them from there
  std::lock_guard accept(submit_mu_);
  // Again under submit_mu_: stop() drains it after it set stopping_, and a request with the same
  // request_id may have been accepted meanwhile.
  refuse_if_stopping();
  if (auto known = existing(s.req, s.digest)) return *known;
  JournalSpace::Reservation room;  // until the witnesses are journaled
  if (s.kind == Submission::Bytes) {
    ctx_.budget.check(s.bytes);
    room = ctx_.space.reserve(s.bytes);
  }
  auto j = new_job(s.req, s.digest, s.partitions());
  switch (s.kind) {
    case Submission::Bytes:
      for (auto& w : s.req.partitions()) j->job.add_partitions(w);
      break;
    case Submission::Paths:
      for (auto& p : s.paths) *j->job.add_partition_paths() = p;
      break;
    case Submission::Files:
      try {
        for (auto& name : journal_.adopt(j->job.job_id(), s.files)) j->job.add_partition_files(name);
        journal_.accept(j->job);
      } catch (const std::exception& e) {
        journal_.remove(j->job.job_id());
        throw Rejected(Rejected::Unavailable, std::string("cannot journal the job: ") + e.what());
      }
      return run_accepted(j);
  }
  try {
    journal_.accept(j->job);
  } catch (const std::exception& e) {
    throw Rejected(Rejected::Unavailable, std::string("cannot journal the job: ") + e.what());
  }
  return run_accepted(j);
}

// A job of this request, not yet journaled.
std::shared_ptr<JournalStore::Job> JournalStore::new_job(const v1::SubmitProofRequest& head, uint64_t digest,
                                                         uint32_t partitions) {
  auto j = std::make_shared<Job>();
  j->job.set_job_id(new_job_id());
  j->job.set_request_id(head.request_id());
  j->job.set_circuit_id(head.circuit_id());
  j->job.set_priority(head.priority());
  j->job.set_accepted_unix_ms(unix_ms());
  j->job.set_request_digest(digest);
  j->partitions = partitions;
  return j;
}

// A journaled job: known by its ids from now on, and handed to the engine.
v1::SubmitProofResponse JournalStore::run_accepted(std::shared_ptr<Job> j) {
  {
    std::lock_guard lk(mu_);
    remember(j);
  }
  run(j);
  v1::SubmitProofResponse resp;
  resp.set_job_id(j->job.job_id());
  return resp;
}

// Hands a journaled job to the engine and starts its reaper. Not under mu_.
void JournalStore::run(std::shared_ptr<Job> j) {
  auto cit = ctx_.circuits.find(j->job.circuit_id());
  engine::JobRequest req;
  req.circuit = j->job.circuit_id();
  req.priority = to_engine(j->job.priority());
  size_t bytes = 0;
  for (int i = 0; i < j->job.partition_files_size(); ++i)
    req.partitions.push_back(engine::Witness::file(journal_.dir() + "/" + j->job.partition_files(i)));
  for (auto& p : j->job.partition_paths()) req.partitions.push_back(witness_in_place(p, &ctx_.witness_dirs));
  for (int i = 0; i < j->job.partitions_size(); ++i) {
    const std::string& w = j->job.partitions(i);
    bytes += w.size();
    req.partitions.push_back(engine::Witness::bytes(j->job.job_id() + " partition " + std::to_string(i),
                                                    std::vector<uint8_t>(w.begin(), w.end())));
  }
  j->witness_bytes = bytes;
  {
    std::lock_guard lk(mu_);
    ++active_;
    ctx_.budget.hold(bytes);
  }
  if (cit == ctx_.circuits.end() || req.partitions.empty()) {
    // Recovered from a journal whose circuit is no longer configured: it fails, with the reason.
    engine::JobResult r;
    r.state = engine::JobState::Failed;
    r.error = cit == ctx_.circuits.end() ? "circuit '" + j->job.circuit_id() + "' is not configured any more"
                                         : "the job has no witnesses";
    std::lock_guard lk(mu_);
    spawn_reaper(j, [this, j, r] { reap_unrunnable(j, r); });
    return;
  }
  const uint64_t eid = ctx_.engine.submit(std::move(req), j->job.job_id());
  std::lock_guard lk(mu_);
  j->engine_id = eid;
  j->job.clear_partitions();  // the engine holds them now; the journal has them on disk
  spawn_reaper(j, [this, j] { reap(j); });
}

void JournalStore::spawn_reaper(std::shared_ptr<Job> j, std::function<void()> body) {
  join_reaped();
  reapers_[j->job.job_id()] = std::thread(std::move(body));
}

void JournalStore::join_reaped() {
  for (auto& id : reaped_) {
    auto it = reapers_.find(id);
    if (it == reapers_.end()) continue;
    it->second.join();
    reapers_.erase(it);
  }
  reaped_.clear();
}

// A job's reaper: waits for the engine, journals the result, then the job has ended.
void JournalStore::reap(std::shared_ptr<Job> j) {
  engine::JobResult r = ctx_.engine.await(j->engine_id);
  {
    std::lock_guard lk(mu_);
    if (stopping_ && r.state == engine::JobState::Cancelled && stopped_ && !j->client_cancelled) {
      // Stopped by the shutdown, not by a client: no result; it runs again after a restart.
      --active_;
      ctx_.budget.release(j->witness_bytes);
      reaped_.push_back(j->job.job_id());
      cv_.notify_all();
      return;
    }
  }
  v1::JobResult res = result_of(*j, r);
  v1::JournalOutcome o;
  *o.mutable_result() = res;
  o.set_ended_unix_ms(unix_ms());
  try {
    journal_.finish(j->job, o);
  } catch (const std::exception& e) {
    ctx_.say(std::string("job ") + j->job.job_id() + ": " + e.what() + " (the result is kept in memory)");
  }
  std::lock_guard lk(mu_);
  ended(*j, std::move(res), o.ended_unix_ms());
  for (auto& rec : r.records)
    if (rec.ok) ctx_.stats.proved(rec);
  ctx_.engine.forget(j->engine_id);
  ctx_.say("job " + j->job.job_id() + ": " + state_name(j->result.state()) + " (" + std::to_string(j->partitions) +
           " partitions, " + std::to_string(int(r.wall_ms)) + " ms)" + (r.error.empty() ? "" : ": " + r.error));
  cv_.notify_all();
}

// The reaper of a job that could not be handed to the engine: its failure is journaled.
void JournalStore::reap_unrunnable(std::shared_ptr<Job> j, engine::JobResult r) {
  v1::JournalOutcome o;
  *o.mutable_result() = result_of(*j, r);
  o.set_ended_unix_ms(unix_ms());
  try {
    journal_.finish(j->job, o);  // durable before anyone sees it ended
  } catch (const std::exception& e) {
    ctx_.say(e.what());
  }
  std::lock_guard lk(mu_);
  ended(*j, o.result(), o.ended_unix_ms());
  cv_.notify_all();
}

// The job has ended (its result journaled, or kept in memory when the journal failed).
void JournalStore::ended(Job& j, v1::JobResult res, uint64_t ended_unix_ms) {
  j.result = std::move(res);
  j.ended = true;
  j.ended_unix_ms = ended_unix_ms;
  j.job.clear_partitions();
  --active_;
  ctx_.budget.release(j.witness_bytes);
  ctx_.stats.ended(j.result.state());
  reaped_.push_back(j.job.job_id());
}

v1::JobResult JournalStore::result_of(const Job& j, const engine::JobResult& r) {
  v1::JobResult out;
  out.set_job_id(j.job.job_id());
  out.set_request_id(j.job.request_id());
  out.set_circuit_id(j.job.circuit_id());
  out.set_state(to_proto(r.state));
  out.set_error(r.error);
  out.set_partitions(j.partitions);
  out.set_wall_ms(r.wall_ms);
  uint32_t done = 0;
  for (auto& rec : r.records) done += rec.ok ? 1 : 0;
  out.set_partitions_done(done);
  if (r.state != engine::JobState::Done) return out;
  for (size_t i = 0; i < r.proofs.size(); ++i)
    fill_partition_result(out.add_results(), r.records[i], uint32_t(i), r.records[i].attempts, r.proofs[i].proof_json,
                          r.proofs[i].public_json,
                          std::string(r.proofs[i].compressed.begin(), r.proofs[i].compressed.end()));
  // This job's share of each device (the engine's records are for its whole life).
  auto devs = ctx_.engine.device_records();
  for (auto& d : devs) {
    d.busy_ms = 0;
    d.partitions = 0;
    for (auto& rec : r.records)
      if (rec.device == d.name) d.busy_ms += rec.ms(Phase::Kernels), ++d.partitions;
  }
  out.set_summary_json(engine::summary_json(version_line(), r.wall_ms, r.records, devs));
  out.set_timeline_svg(engine::timeline_svg(
      r.records, devs,
      "cuzk: job " + j.job.job_id() + ", " + std::to_string(j.partitions) + " partitions of " + j.job.circuit_id()));
  return out;
}

std::shared_ptr<JournalStore::Job> JournalStore::find(const std::string& job_id, const std::string& request_id) {
  if (!job_id.empty()) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) throw Rejected(Rejected::NotFound, "unknown job '" + job_id + "'");
    return it->second;
  }
  if (!request_id.empty()) {
    auto it = by_request_.find(request_id);
    if (it == by_request_.end()) throw Rejected(Rejected::NotFound, "unknown request_id '" + request_id + "'");
    return jobs_.at(it->second);
  }
  throw Rejected(Rejected::InvalidArgument, "give a job_id or a request_id");
}

v1::JobResult JournalStore::await(const v1::AwaitProofRequest& req) {
  std::unique_lock lk(mu_);
  auto j = find(req.job_id(), req.request_id());
  const uint64_t timeout = std::min<uint64_t>(req.timeout_ms(), uint64_t(24) * 3600 * 1000);
  cv_.wait_for(lk, std::chrono::milliseconds(timeout), [&] { return j->ended || stopped_; });
  if (j->ended) return j->result;
  if (stopped_)
    throw Rejected(Rejected::Unavailable, "the daemon is stopping; job " + j->job.job_id() +
                                              " stays journaled and runs again at the next start");
  v1::JobResult out;
  out.set_job_id(j->job.job_id());
  out.set_request_id(j->job.request_id());
  out.set_circuit_id(j->job.circuit_id());
  out.set_partitions(j->partitions);
  const uint64_t eid = j->engine_id;
  lk.unlock();
  if (eid) {
    engine::JobResult r;
    try {
      r = ctx_.engine.await(eid, 0.0);
    } catch (const InvalidArgument&) {  // reaped meanwhile: the engine forgot it
      lk.lock();
      if (j->ended) return j->result;
      lk.unlock();
    }
    uint32_t done = 0;
    for (auto& rec : r.records) done += rec.ok ? 1 : 0;
    out.set_partitions_done(done);
    // Ended only once journaled: until then any end the engine reports is still "running".
    out.set_state(r.state == engine::JobState::Queued ? v1::QUEUED : v1::RUNNING);
    out.set_wall_ms(r.wall_ms);
  } else {
    out.set_state(v1::QUEUED);
  }
  return out;
}

v1::CancelProofResponse JournalStore::cancel(const v1::CancelProofRequest& req) {
  std::unique_lock lk(mu_);
  auto j = find(req.job_id(), req.request_id());
  v1::CancelProofResponse resp;
  if (j->ended || !j->engine_id) {
    resp.set_cancelled(false);
    resp.set_state(j->ended ? j->result.state() : v1::QUEUED);
    return resp;
  }
  const uint64_t eid = j->engine_id;
  j->client_cancelled = true;
  lk.unlock();
  resp.set_cancelled(ctx_.engine.cancel(eid));
  lk.lock();
  cv_.wait_for(lk, std::chrono::seconds(10), [&] { return j->ended; });
  resp.set_state(j->ended ? j->result.state() : v1::CANCELLED);
  return resp;
}

// Drops the results older than keep_results, from memory and from the journal.
void JournalStore::prune_loop() {
  std::unique_lock lk(mu_);
  const double period = std::clamp(ctx_.cfg.keep_results_s / 4, 0.05, 60.0);
  while (!stopping_) {
    cv_.wait_for(lk, std::chrono::duration<double>(period), [&] { return stopping_; });
    if (stopping_) return;
    const uint64_t now = unix_ms(), keep = uint64_t(ctx_.cfg.keep_results_s * 1000);
    std::vector<std::string> gone;
    for (auto& [id, j] : jobs_)
      if (j->ended && j->ended_unix_ms + keep < now) gone.push_back(id);
    for (auto& id : gone) {
      auto j = jobs_[id];
      if (!j->job.request_id().empty()) by_request_.erase(j->job.request_id());
      jobs_.erase(id);
      journal_.remove(id);
    }
  }
}

void JournalStore::stop(double grace_s) {
  {
    std::lock_guard lk(mu_);
    if (stopped_) return;
    stopping_ = true;
  }
  // An acceptance in progress (journaling, handing to the engine) finishes first; every later
  // one sees stopping_ under submit_mu_.
  { std::lock_guard drain(submit_mu_); }
  {
    std::unique_lock lk(mu_);
    cv_.notify_all();
    if (grace_s > 0 && active_ > 0) {
      ctx_.say("stopping: waiting up to " + std::to_string(int(grace_s)) + " s for " + std::to_string(active_) +
               " job(s)");
      cv_.wait_for(lk, std::chrono::duration<double>(grace_s), [&] { return active_ == 0; });
    }
    stopped_ = true;
    cv_.notify_all();
  }
  // What did not end stays in the journal without a result (it runs again after a restart).
  std::vector<uint64_t> running;
  {
    std::lock_guard lk(mu_);
    for (auto& [id, j] : jobs_)
      if (!j->ended && j->engine_id) running.push_back(j->engine_id);
  }
  if (!running.empty())
    ctx_.say("stopping: " + std::to_string(running.size()) + " job(s) stay journaled for the next start");
  for (uint64_t id : running) ctx_.engine.cancel(id);
  std::map<std::string, std::thread> rs;
  {
    std::lock_guard lk(mu_);
    rs.swap(reapers_);
  }
  for (auto& [id, t] : rs) t.join();
  if (pruner_.joinable()) pruner_.join();
}

}  // namespace

std::unique_ptr<JobStore> make_journal_store(const StoreContext& ctx) { return std::make_unique<JournalStore>(ctx); }

}  // namespace cuzk::daemon
