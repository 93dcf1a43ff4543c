// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's local job store (queue.backend = "local"): every accepted job is journaled
// (journal.hpp) before it is answered, then proved by this daemon's engine. A watcher thread
// polls the engine for the jobs that ended and queues them for a fixed few reaper threads, which
// journal their results. At start the journal's unfinished jobs run again. Results stay on disk
// (the most recent kCachedResults in memory) until the pruner drops those older than
// keep_results, oldest first, from an index ordered by (end time, job id).
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

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

// Results held in memory (the most recently ended or read); the rest are read from the journal
// when AwaitProof asks. A result is 1-40 KB (proofs, summary, timeline), so this is a few MB.
constexpr size_t kCachedResults = 256;
// Threads that journal ended jobs' results (each write is synced: a few let them overlap).
constexpr int kReapers = 2;
// How often the watcher asks the engine about the jobs it runs, while none has ended.
constexpr auto kWatchPeriod = std::chrono::milliseconds(20);

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

bool ended_state(engine::JobState s) {
  return s == engine::JobState::Done || s == engine::JobState::Failed || s == engine::JobState::Cancelled;
}

class JournalStore final : public JobStore {
 public:
  explicit JournalStore(const StoreContext& ctx) : ctx_(ctx), journal_(ctx.cfg.journal) {}
  ~JournalStore() override;  // ends the threads if stop() did not (a start that threw)

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
  void status(v1::GetStatusResponse& s) override;
  void metrics(const v1::GetStatusResponse& s, MetricsText& m) override;

 private:
  struct Job {
    // Its request; once it has ended only what identifies it (ids, circuit, digest).
    v1::JournalJob job;
    uint32_t partitions = 0;
    size_t witness_bytes = 0;  // held in host_budget until the job ends
    uint64_t engine_id = 0;
    bool ended = false;
    bool client_cancelled = false;  // a CancelProof, not a shutdown, stopped it
    v1::JobState state = v1::QUEUED;
    uint64_t ended_unix_ms = 0;
    std::string note;                                  // said in its result: why it ran again
    std::shared_ptr<const v1::JobResult> unjournaled;  // a result the journal could not keep
  };
  using JobPtr = std::shared_ptr<Job>;

  JobPtr new_job(const v1::SubmitProofRequest& head, uint64_t digest, uint32_t partitions);
  Rejected cannot_journal(const std::exception& e);
  void remember(JobPtr j);                                                // under mu_
  JobPtr find(const std::string& job_id, const std::string& request_id);  // under mu_
  v1::SubmitProofResponse run_accepted(JobPtr j, const v1::SubmitProofRequest* req);
  void run(JobPtr j, const v1::SubmitProofRequest* req = nullptr);
  void recover(Journal::Entry& e, uint64_t now, size_t& kept, size_t& expired, size_t& recovered);
  void fail_now(JobPtr j, const std::string& why);
  void watch_loop();
  void reap_loop();
  void reap(JobPtr j, engine::JobResult r);
  void ended(Job& j, v1::JobState state, uint64_t ended_unix_ms);  // under mu_
  v1::JobResult result_of(const Job& j, const engine::JobResult& r);
  v1::JobResult ended_result(JobPtr j, std::unique_lock<std::mutex>& lk);
  std::shared_ptr<const v1::JobResult> cached(const std::string& job_id);         // under mu_
  void cache(const std::string& job_id, std::shared_ptr<const v1::JobResult> r);  // under mu_
  void prune_loop();

  StoreContext ctx_;
  Journal journal_;
  std::mutex mu_;
  std::condition_variable cv_;  // a job ended, was handed to the engine or is to be reaped; stopping
  std::mutex submit_mu_;        // one acceptance at a time: request_id check, journal, engine
  std::mutex results_mu_;       // one read of a result from the journal at a time
  std::unordered_map<std::string, JobPtr> jobs_;
  std::unordered_map<std::string, std::string> by_request_;
  std::set<std::pair<uint64_t, std::string>> expiry_;                            // ended jobs by (end time, id)
  size_t kept_ = 0;                                                              // ended jobs known (results on disk)
  std::list<std::pair<std::string, std::shared_ptr<const v1::JobResult>>> lru_;  // most recent first
  std::unordered_map<std::string, decltype(lru_)::iterator> cached_;
  std::vector<JobPtr> watched_;  // handed to the engine, not seen ending
  std::deque<std::pair<JobPtr, engine::JobResult>> to_reap_;
  std::thread watcher_, pruner_;
  std::vector<std::thread> reapers_;
  bool stopping_ = false, stopped_ = false, quit_ = false;
  size_t active_ = 0;  // jobs accepted (or recovered) and not reaped
};

// The journal's jobs: unfinished ones run again (in the order they were accepted), ended ones
// are known by their ids, results read when asked for.
void JournalStore::start() {
  const uint64_t now = unix_ms();
  size_t kept = 0, expired = 0, recovered = 0;
  auto entries = journal_.load(ctx_.log);
  watcher_ = std::thread([this] { watch_loop(); });
  for (int i = 0; i < kReapers; ++i) reapers_.emplace_back([this] { reap_loop(); });
  std::stable_sort(entries.begin(), entries.end(), [](const Journal::Entry& a, const Journal::Entry& b) {
    return a.job.accepted_unix_ms() < b.job.accepted_unix_ms();
  });
  for (auto& e : entries) recover(e, now, kept, expired, recovered);
  ctx_.say("journal " + ctx_.cfg.journal + ": " + std::to_string(recovered) + " unfinished job(s) running again, " +
           std::to_string(kept) + " result(s) kept, " + std::to_string(expired) + " expired" +
           (journal_.quarantined() ? ", " + std::to_string(journal_.quarantined()) + " record(s) in quarantine" : ""));
  pruner_ = std::thread([this] { prune_loop(); });
}

void JournalStore::recover(Journal::Entry& e, uint64_t now, size_t& kept, size_t& expired, size_t& recovered) {
  auto j = std::make_shared<Job>();
  j->job = std::move(e.job);
  j->partitions = uint32_t(j->job.partitions_size() + j->job.partition_files_size() + j->job.partition_paths_size());
  const uint64_t keep = uint64_t(ctx_.cfg.keep_results_s * 1000);
  if (e.job_corrupt) return fail_now(j, e.corrupt);
  if (!e.corrupt.empty() && !e.witnesses_present)
    return fail_now(j, e.corrupt + "; its witnesses were dropped when it ended, so it cannot run again");
  if (!e.corrupt.empty()) {
    j->note = e.corrupt + "; the job ran again";
    ctx_.warn("job " + j->job.job_id() + ": " + e.corrupt + "; it runs again (its witnesses are still journaled)");
  } else if (e.outcome) {  // ended; its record did not say so yet (first format, or a crash)
    if (e.outcome->ended_unix_ms() + keep >= now) {
      try {
        journal_.finish(j->job, *e.outcome);
      } catch (const std::exception& x) {
        ctx_.warn(std::string("job ") + j->job.job_id() + ": " + x.what());
      }
      j->partitions = e.outcome->result().partitions();
    }
    j->job.set_ended_unix_ms(e.outcome->ended_unix_ms());
    j->job.set_ended_state(e.outcome->result().state());
  }
  if (j->job.ended_unix_ms() != 0) {
    if (j->job.ended_unix_ms() + keep < now) {
      journal_.remove(j->job.job_id());
      ++expired;
      return;
    }
    std::lock_guard lk(mu_);
    remember(j);
    ended(*j, j->job.ended_state(), j->job.ended_unix_ms());
    ++kept;
    return;
  }
  {
    std::lock_guard lk(mu_);
    remember(j);
    ++active_;
  }
  ctx_.stats.recovered();
  ++recovered;
  run(j);
}

// A job that cannot run: it ends FAILED with `why`, journaled like any result.
void JournalStore::fail_now(JobPtr j, const std::string& why) {
  v1::JournalOutcome o;
  v1::JobResult& r = *o.mutable_result();
  r.set_job_id(j->job.job_id());
  r.set_request_id(j->job.request_id());
  r.set_circuit_id(j->job.circuit_id());
  r.set_state(v1::FAILED);
  r.set_error(why);
  r.set_partitions(j->partitions);
  o.set_ended_unix_ms(unix_ms());
  try {
    journal_.finish(j->job, o);
  } catch (const std::exception& e) {
    ctx_.warn(std::string("job ") + j->job.job_id() + ": " + e.what() + " (the result is kept in memory)");
    j->unjournaled = std::make_shared<const v1::JobResult>(r);
  }
  std::lock_guard lk(mu_);
  remember(j);
  ended(*j, v1::FAILED, o.ended_unix_ms());
  cache(j->job.job_id(), std::make_shared<const v1::JobResult>(r));
}

void JournalStore::remember(JobPtr j) {
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

// Journaled (durable) before the answer; witness bytes also held once in memory (the engine's
// copy, in host_budget) until the job ends, streamed files moved into the journal, paths kept
// with their identities.
v1::SubmitProofResponse JournalStore::accept(Submission s) {
  s.mapped.clear();  // streamed files move into the journal; the engine reads them from there
  std::lock_guard accept(submit_mu_);
  // Again under submit_mu_: stop() drains it after it set stopping_, and a request with the same
  // request_id may have been accepted meanwhile.
  refuse_if_stopping();
  if (auto known = existing(s.req, s.digest)) return *known;
  JournalSpace::Reservation room;
  if (s.kind == Submission::Bytes) {
    ctx_.budget.check(s.bytes);
    room = ctx_.space.reserve(s.bytes);
  }
  auto j = new_job(s.req, s.digest, s.partitions());
  try {
    switch (s.kind) {
      case Submission::Bytes: {
        std::vector<const std::string*> w;
        for (auto& p : s.req.partitions()) w.push_back(&p);
        journal_.accept(j->job, w);  // from the request: the job holds no copy
        break;
      }
      case Submission::Paths:
        for (auto& p : s.paths) *j->job.add_partition_paths() = p;
        journal_.accept(j->job);
        break;
      case Submission::Files:
        for (auto& name : journal_.adopt(j->job.job_id(), s.files)) j->job.add_partition_files(name);
        journal_.accept(j->job);
        break;
    }
  } catch (const std::exception& e) {
    journal_.remove(j->job.job_id());  // nothing of it stays: it was not acknowledged
    throw cannot_journal(e);
  }
  return run_accepted(j, s.kind == Submission::Bytes ? &s.req : nullptr);
}

// The journal's paths are the daemon's business: the log has them, the client learns what failed.
Rejected JournalStore::cannot_journal(const std::exception& e) {
  ctx_.warn(std::string("cannot journal a job: ") + e.what());
  return Rejected(Rejected::Unavailable, "cannot journal the job (the daemon's log says why); retry later");
}

// A job of this request, not yet journaled.
JournalStore::JobPtr JournalStore::new_job(const v1::SubmitProofRequest& head, uint64_t digest, uint32_t partitions) {
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
v1::SubmitProofResponse JournalStore::run_accepted(JobPtr j, const v1::SubmitProofRequest* req) {
  {
    std::lock_guard lk(mu_);
    remember(j);
    ++active_;
  }
  run(j, req);
  v1::SubmitProofResponse resp;
  resp.set_job_id(j->job.job_id());
  return resp;
}

// Hands a journaled job to the engine and to the watcher. Its witness bytes come from `req` (a
// new job) or from its record (a recovered one, moved out one at a time): the engine's copy is
// the only one the store holds. Not under mu_.
void JournalStore::run(JobPtr j, const v1::SubmitProofRequest* req) {
  auto cit = ctx_.circuits.find(j->job.circuit_id());
  engine::JobRequest er;
  er.circuit = j->job.circuit_id();
  er.priority = to_engine(j->job.priority());
  size_t bytes = 0;
  for (int i = 0; i < j->job.partition_files_size(); ++i)
    er.partitions.push_back(engine::Witness::file(journal_.path_of(j->job.job_id(), j->job.partition_files(i))));
  for (auto& p : j->job.partition_paths()) er.partitions.push_back(witness_in_place(p, &ctx_.witness_dirs));
  const int n = req ? req->partitions_size() : j->job.partitions_size();
  for (int i = 0; i < n; ++i) {
    std::string taken;
    if (!req) taken.swap(*j->job.mutable_partitions(i));
    const std::string& w = req ? req->partitions(i) : taken;
    bytes += w.size();
    er.partitions.push_back(engine::Witness::bytes(j->job.job_id() + " partition " + std::to_string(i),
                                                   std::vector<uint8_t>(w.begin(), w.end())));
  }
  j->job.clear_partitions();
  {
    std::lock_guard lk(mu_);
    j->witness_bytes = bytes;
    ctx_.budget.hold(bytes);
  }
  if (cit == ctx_.circuits.end() || er.partitions.empty()) {
    // Recovered from a journal whose circuit is no longer configured: it fails, with the reason.
    engine::JobResult r;
    r.state = engine::JobState::Failed;
    r.error = cit == ctx_.circuits.end() ? "circuit '" + j->job.circuit_id() + "' is not configured any more"
                                         : "the job has no witnesses";
    std::lock_guard lk(mu_);
    to_reap_.emplace_back(j, std::move(r));
    cv_.notify_all();
    return;
  }
  const uint64_t eid = ctx_.engine.submit(std::move(er), j->job.job_id());
  std::lock_guard lk(mu_);
  j->engine_id = eid;
  watched_.push_back(j);
  cv_.notify_all();
}

// Asks the engine about every job it runs for the store (without waiting); those that ended go
// to the reapers. While none ended it waits kWatchPeriod (or a new job).
void JournalStore::watch_loop() {
  std::unique_lock lk(mu_);
  while (!quit_) {
    if (watched_.empty()) {
      cv_.wait(lk, [&] { return quit_ || !watched_.empty(); });
      continue;
    }
    const std::vector<JobPtr> now = watched_;
    lk.unlock();
    std::vector<std::pair<JobPtr, engine::JobResult>> done;
    for (auto& j : now) {
      engine::JobResult r = ctx_.engine.await(j->engine_id, 0.0);
      if (ended_state(r.state)) done.emplace_back(j, std::move(r));
    }
    lk.lock();
    if (done.empty()) {
      cv_.wait_for(lk, kWatchPeriod, [&] { return quit_; });
      continue;
    }
    for (auto& d : done) {
      watched_.erase(std::find(watched_.begin(), watched_.end(), d.first));
      to_reap_.push_back(std::move(d));
    }
    cv_.notify_all();
  }
}

void JournalStore::reap_loop() {
  std::unique_lock lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return quit_ || !to_reap_.empty(); });
    if (to_reap_.empty()) return;
    auto [j, r] = std::move(to_reap_.front());
    to_reap_.pop_front();
    lk.unlock();
    reap(j, std::move(r));
    lk.lock();
  }
}

// A job that ended: its result journaled, then it has ended. A job the shutdown cancelled has no
// result: it runs again after a restart.
void JournalStore::reap(JobPtr j, engine::JobResult r) {
  {
    std::lock_guard lk(mu_);
    if (stopping_ && r.state == engine::JobState::Cancelled && stopped_ && !j->client_cancelled) {
      --active_;
      ctx_.budget.release(j->witness_bytes);
      if (j->engine_id) ctx_.engine.forget(j->engine_id);
      cv_.notify_all();
      return;
    }
  }
  auto res = std::make_shared<v1::JobResult>(result_of(*j, r));
  v1::JournalOutcome o;
  *o.mutable_result() = *res;
  o.set_ended_unix_ms(unix_ms());
  try {
    journal_.finish(j->job, o);  // durable before anyone sees it ended
  } catch (const std::exception& e) {
    ctx_.warn(std::string("job ") + j->job.job_id() + ": " + e.what() + " (the result is kept in memory)");
    j->unjournaled = res;
  }
  std::lock_guard lk(mu_);
  --active_;
  ctx_.budget.release(j->witness_bytes);
  ended(*j, res->state(), o.ended_unix_ms());
  ctx_.stats.ended(res->state());
  cache(j->job.job_id(), res);
  for (auto& rec : r.records)
    if (rec.ok) ctx_.stats.proved(rec);
  if (j->engine_id) ctx_.engine.forget(j->engine_id);
  ctx_.say("job " + j->job.job_id() + ": " + state_name(res->state()) + " (" + std::to_string(j->partitions) +
           " partitions, " + std::to_string(int(r.wall_ms)) + " ms)" + (r.error.empty() ? "" : ": " + r.error));
  cv_.notify_all();
}

// The job has ended (its result journaled, or kept in memory when the journal failed): only what
// identifies it stays in memory.
void JournalStore::ended(Job& j, v1::JobState state, uint64_t ended_unix_ms) {
  j.ended = true;
  j.state = state;
  j.ended_unix_ms = ended_unix_ms;
  v1::JournalJob ids;
  ids.set_job_id(j.job.job_id());
  ids.set_request_id(j.job.request_id());
  ids.set_circuit_id(j.job.circuit_id());
  ids.set_request_digest(j.job.request_digest());
  j.job = std::move(ids);
  expiry_.emplace(ended_unix_ms, j.job.job_id());
  ++kept_;
}

std::shared_ptr<const v1::JobResult> JournalStore::cached(const std::string& job_id) {
  auto it = cached_.find(job_id);
  if (it == cached_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void JournalStore::cache(const std::string& job_id, std::shared_ptr<const v1::JobResult> r) {
  if (auto it = cached_.find(job_id); it != cached_.end()) {
    lru_.erase(it->second);
    cached_.erase(it);
  }
  lru_.emplace_front(job_id, std::move(r));
  cached_[job_id] = lru_.begin();
  while (lru_.size() > kCachedResults) {
    cached_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

v1::JobResult JournalStore::result_of(const Job& j, const engine::JobResult& r) {
  v1::JobResult out;
  out.set_job_id(j.job.job_id());
  out.set_request_id(j.job.request_id());
  out.set_circuit_id(j.job.circuit_id());
  out.set_state(to_proto(r.state));
  out.set_error(j.note.empty() ? r.error : r.error.empty() ? j.note : r.error + " (" + j.note + ")");
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
    d.device_ms = -1;
    for (auto& rec : r.records) {
      if (rec.device != d.name) continue;
      d.busy_ms += rec.ms(Phase::Kernels), ++d.partitions;
      engine::add_device_ms(d.device_ms, rec.device_ms);
    }
  }
  // The summary and timeline on the job's own time axis, from its submission.
  std::vector<engine::PartitionRecord> recs = r.records;
  engine::rebase_to_submission(recs);
  out.set_summary_json(engine::summary_json(version_line(), r.wall_ms, recs, devs));
  out.set_timeline_svg(engine::timeline_svg(
      recs, devs,
      "cuzk: job " + j.job.job_id() + ", " + std::to_string(j.partitions) + " partitions of " + j.job.circuit_id()));
  return out;
}

JournalStore::JobPtr JournalStore::find(const std::string& job_id, const std::string& request_id) {
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

// An ended job's result: from the cache, else read from the journal (not under mu_). A result
// record found corrupt now is quarantined and the job fails (its witnesses went when it ended).
v1::JobResult JournalStore::ended_result(JobPtr j, std::unique_lock<std::mutex>& lk) {
  if (j->unjournaled) return *j->unjournaled;
  if (auto r = cached(j->job.job_id())) return *r;
  const v1::JournalJob ids = j->job;
  lk.unlock();
  std::optional<v1::JournalOutcome> o;
  bool corrupt = false;
  {
    std::lock_guard one(results_mu_);
    lk.lock();
    auto r = cached(ids.job_id());  // read meanwhile by another await
    lk.unlock();
    if (r) return *r;
    o = journal_.result(ids.job_id(), &corrupt);
    if (corrupt) {
      const std::string why = "its result record was corrupt and was quarantined (" + journal_.dir() + "/quarantine/" +
                              ids.job_id() + ".done); its witnesses were dropped when it ended, so it cannot run again";
      ctx_.warn("job " + ids.job_id() + ": " + why);
      o.emplace();
      v1::JobResult& f = *o->mutable_result();
      f.set_job_id(ids.job_id());
      f.set_request_id(ids.request_id());
      f.set_circuit_id(ids.circuit_id());
      f.set_state(v1::FAILED);
      f.set_error(why);
      f.set_partitions(j->partitions);
      o->set_ended_unix_ms(j->ended_unix_ms);
      try {
        journal_.finish(ids, *o);
      } catch (const std::exception& e) {
        ctx_.warn(std::string("job ") + ids.job_id() + ": " + e.what());
      }
    }
  }
  lk.lock();
  if (!o) throw Rejected(Rejected::NotFound, "job '" + ids.job_id() + "': its result is no longer kept");
  if (corrupt) j->state = v1::FAILED;
  auto r = std::make_shared<const v1::JobResult>(std::move(*o->mutable_result()));
  cache(ids.job_id(), r);
  return *r;
}

v1::JobResult JournalStore::await(const v1::AwaitProofRequest& req) {
  std::unique_lock lk(mu_);
  auto j = find(req.job_id(), req.request_id());
  const uint64_t timeout = std::min<uint64_t>(req.timeout_ms(), uint64_t(24) * 3600 * 1000);
  cv_.wait_for(lk, std::chrono::milliseconds(timeout), [&] { return j->ended || stopped_; });
  if (j->ended) return ended_result(j, lk);
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
      if (j->ended) return ended_result(j, lk);
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
    resp.set_state(j->ended ? j->state : v1::QUEUED);
    return resp;
  }
  const uint64_t eid = j->engine_id;
  j->client_cancelled = true;
  lk.unlock();
  resp.set_cancelled(ctx_.engine.cancel(eid));
  lk.lock();
  cv_.wait_for(lk, std::chrono::seconds(10), [&] { return j->ended; });
  resp.set_state(j->ended ? j->state : v1::CANCELLED);
  return resp;
}

void JournalStore::status(v1::GetStatusResponse& s) {
  std::lock_guard lk(mu_);
  s.set_jobs_active(active_);
  auto* js = s.mutable_journal();
  js->set_results_kept(kept_);
  js->set_results_cached(lru_.size());
  js->set_records_quarantined(journal_.quarantined());
  js->set_upload_bytes_reserved(ctx_.space.reserved());
}

void JournalStore::metrics(const v1::GetStatusResponse& s, MetricsText& m) {
  const auto& js = s.journal();
  m.family("cuzk_journal_results_kept", "gauge", "Results of ended jobs kept in the journal (until keep_results).");
  m.sample("cuzk_journal_results_kept", "", double(js.results_kept()));
  m.family("cuzk_journal_results_cached", "gauge", "Results held in memory (the most recent; the rest are on disk).");
  m.sample("cuzk_journal_results_cached", "", double(js.results_cached()));
  m.family("cuzk_journal_records_quarantined", "gauge",
           "Journal records that failed their checksum, moved to the journal's quarantine folder.");
  m.sample("cuzk_journal_records_quarantined", "", double(js.records_quarantined()));
  m.family("cuzk_journal_upload_bytes_reserved", "gauge",
           "Bytes reserved on the journal's filesystem by uploads and submissions in progress.");
  m.sample("cuzk_journal_upload_bytes_reserved", "", double(js.upload_bytes_reserved()));
}

// Drops the results older than keep_results, oldest first (from the index ordered by end
// time), from memory and from the journal; files are removed by name, outside the lock.
void JournalStore::prune_loop() {
  std::unique_lock lk(mu_);
  const double period = std::clamp(ctx_.cfg.keep_results_s / 4, 0.05, 60.0);
  while (!stopping_) {
    cv_.wait_for(lk, std::chrono::duration<double>(period), [&] { return stopping_; });
    if (stopping_) return;
    const uint64_t now = unix_ms(), keep = uint64_t(ctx_.cfg.keep_results_s * 1000);
    std::vector<std::string> gone;
    while (!expiry_.empty() && expiry_.begin()->first + keep < now) {
      const std::string id = expiry_.begin()->second;
      expiry_.erase(expiry_.begin());
      auto it = jobs_.find(id);
      if (it == jobs_.end()) continue;
      const std::string& rid = it->second->job.request_id();
      if (auto r = by_request_.find(rid); !rid.empty() && r != by_request_.end() && r->second == id)
        by_request_.erase(r);
      if (auto c = cached_.find(id); c != cached_.end()) {
        lru_.erase(c->second);
        cached_.erase(c);
      }
      jobs_.erase(it);
      --kept_;
      gone.push_back(id);
    }
    lk.unlock();
    for (auto& id : gone) journal_.remove(id);
    lk.lock();
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
  std::vector<uint64_t> running;
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
    // What did not end stays in the journal without a result (it runs again after a restart).
    for (auto& j : watched_) running.push_back(j->engine_id);
  }
  if (!running.empty())
    ctx_.say("stopping: " + std::to_string(running.size()) + " job(s) stay journaled for the next start");
  for (uint64_t id : running) ctx_.engine.cancel(id);
  {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return active_ == 0; });  // the reapers saw every job end
    quit_ = true;
    cv_.notify_all();
  }
  watcher_.join();
  for (auto& t : reapers_) t.join();
  if (pruner_.joinable()) pruner_.join();
}

JournalStore::~JournalStore() {
  {
    std::lock_guard lk(mu_);
    stopping_ = quit_ = true;
    cv_.notify_all();
  }
  if (watcher_.joinable()) watcher_.join();
  for (auto& t : reapers_)
    if (t.joinable()) t.join();
  if (pruner_.joinable()) pruner_.join();
}

}  // namespace

std::unique_ptr<JobStore> make_journal_store(const StoreContext& ctx) { return std::make_unique<JournalStore>(ctx); }

}  // namespace cuzk::daemon
