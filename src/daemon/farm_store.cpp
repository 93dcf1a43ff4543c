// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's farm job store (queue.backend = "postgres"): the jobs live in PostgreSQL
// (PgQueue); every daemon of the farm accepts them, claims partitions of its circuits while its
// engine has room, holds each claim as a lease renewed by heartbeat, and writes each result with
// the claim's token. AwaitProof on any daemon reads the job from the database.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "daemon/job_store.hpp"
#include "daemon/service_util.hpp"
#include "engine/report.hpp"
#include "util/error.hpp"
#if defined(CUZK_WITH_PG)
#include "daemon/pg_queue.hpp"
#endif

namespace cuzk::daemon {

using namespace detail;

#if defined(CUZK_WITH_PG)

namespace {

// One connection per user at a time; connections are reused. Each has bounded waits
// (PgQueue::Limits) and the farm's max_attempts.
class ConnPool {
 public:
  ConnPool(std::string dsn, int max_attempts) : dsn_(std::move(dsn)), max_attempts_(max_attempts) {}
  struct Lease {
    ConnPool* pool;
    std::unique_ptr<PgQueue> q;
    Lease(ConnPool* p, std::unique_ptr<PgQueue> x) : pool(p), q(std::move(x)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (q) pool->put(std::move(q));
    }
    PgQueue* operator->() { return q.get(); }
  };
  Lease get() {
    {
      std::lock_guard lk(m_);
      if (!free_.empty()) {
        auto q = std::move(free_.back());
        free_.pop_back();
        return Lease(this, std::move(q));
      }
    }
    auto q = std::make_unique<PgQueue>(dsn_);
    q->set_max_attempts(max_attempts_);
    return Lease(this, std::move(q));
  }
  void put(std::unique_ptr<PgQueue> q) {
    std::lock_guard lk(m_);
    if (free_.size() < 16) free_.push_back(std::move(q));
  }

 private:
  std::string dsn_;
  int max_attempts_;
  std::mutex m_;
  std::vector<std::unique_ptr<PgQueue>> free_;
};

// A partition's record as text in the database: the top phases' spans in absolute unix
// milliseconds (so that partitions proved on different hosts share one time axis), then the
// inner phases' durations. Fields added later are appended, so that daemons of several versions
// can share a farm: each reads as far as it knows.
//   r1|device|worker|attempts|streamed|reserved|<6 spans: queue, synthesis, stage, lock_wait,
//   kernels, finish as start,end>|ntt_h|msm_a|msm_b1|msm_b2|msm_c|msm_h|budget_wait|abc|verify
constexpr Phase kInner[] = {Phase::NttH, Phase::MsmA,       Phase::MsmB1, Phase::MsmB2, Phase::MsmC,
                            Phase::MsmH, Phase::BudgetWait, Phase::Abc,   Phase::Verify};

std::string encode_record(const engine::PartitionRecord& r, const std::string& device, double offset_ms) {
  std::ostringstream o;
  o.precision(15);
  o << "r1|" << device << '|' << r.worker << '|' << r.attempts << '|' << (r.streamed ? 1 : 0) << '|'
    << r.reserved_bytes;
  for (Phase p : kTopPhases) {
    const Span& s = r.spans[p];
    o << '|' << (s.happened() ? s.start_ms + offset_ms : -1) << ',' << (s.happened() ? s.end_ms + offset_ms : -1);
  }
  for (Phase p : kInner) o << '|' << r.ms(p);
  return o.str();
}

bool decode_record(const std::string& text, engine::PartitionRecord& r) {
  std::vector<std::string> f;
  std::stringstream ss(text);
  std::string x;
  while (std::getline(ss, x, '|')) f.push_back(x);
  if (f.size() < 18 || f[0] != "r1") return false;  // the first version had 18 fields
  r.device = f[1];
  r.worker = std::atoi(f[2].c_str());
  r.attempts = std::atoi(f[3].c_str());
  r.streamed = f[4] == "1";
  r.reserved_bytes = size_t(std::strtoull(f[5].c_str(), nullptr, 10));
  for (size_t i = 0; i < kTopPhases.size(); ++i) {
    const std::string& s = f[6 + i];
    const auto comma = s.find(',');
    r.spans[kTopPhases[i]] =
        Span{std::strtod(s.substr(0, comma).c_str(), nullptr), std::strtod(s.substr(comma + 1).c_str(), nullptr)};
  }
  for (size_t i = 0; i < std::size(kInner) && 12 + i < f.size(); ++i) {
    const double ms = std::strtod(f[12 + i].c_str(), nullptr);
    if (ms > 0) r.spans[kInner[i]] = Span{0, ms};  // a duration: on no time axis
  }
  return true;
}

v1::JobState state_of(const std::string& s) {
  if (s == "queued") return v1::QUEUED;
  if (s == "running") return v1::RUNNING;
  if (s == "done") return v1::DONE;
  if (s == "failed") return v1::FAILED;
  if (s == "cancelled") return v1::CANCELLED;
  return v1::JOB_STATE_UNSPECIFIED;
}

std::string default_host_id() {
  char h[256] = {0};
  ::gethostname(h, sizeof h - 1);
  return std::string(h) + ":" + std::to_string(::getpid());
}

// A finished job as AwaitProof answers it: the proofs, and a summary and timeline on one time
// axis from the job's first partition, with a device per host and device.
v1::JobResult result_of(const PgQueue::JobView& v, v1::JobState st) {
  v1::JobResult out;
  out.set_job_id(v.job_id);
  out.set_request_id(v.request_id);
  out.set_circuit_id(v.circuit_id);
  out.set_state(st);
  out.set_error(v.error);
  out.set_partitions(uint32_t(v.partitions));
  out.set_partitions_done(uint32_t(v.partitions_done));
  out.set_wall_ms(v.wall_ms);
  if (st != v1::DONE) return out;
  std::vector<engine::PartitionRecord> recs;
  std::map<std::string, engine::DeviceRecord> devs;
  for (auto& p : v.results) {
    engine::PartitionRecord rec;
    if (!decode_record(p.timings_json, rec)) rec.device = p.device;
    rec.job = 0;
    rec.index = uint32_t(p.index);
    rec.ok = true;
    rec.attempts = p.attempts;
    recs.push_back(rec);
    fill_partition_result(out.add_results(), rec, uint32_t(p.index), p.attempts, p.proof_json, p.public_json,
                          p.compressed);
  }
  engine::rebase_to_submission(recs);
  for (auto& rec : recs) {
    auto& d = devs[rec.device];
    d.name = rec.device;
    d.description = "farm host " + rec.device.substr(0, rec.device.rfind('/'));
    d.workers = std::max(d.workers, rec.worker + 1);
    d.busy_ms += rec.ms(Phase::Kernels);
    ++d.partitions;
  }
  std::vector<engine::DeviceRecord> dl;
  for (auto& [n, d] : devs) dl.push_back(d);
  out.set_summary_json(engine::summary_json(version_line(), v.wall_ms, recs, dl));
  out.set_timeline_svg(engine::timeline_svg(
      recs, dl, "cuzk farm: job " + v.job_id + ", " + std::to_string(v.partitions) + " partitions of " + v.circuit_id));
  return out;
}

class FarmStore final : public JobStore {
 public:
  explicit FarmStore(const StoreContext& ctx)
      : ctx_(ctx),
        host_(ctx.cfg.host_id.empty() ? default_host_id() : ctx.cfg.host_id),
        pool_(ctx.cfg.queue_dsn, ctx.cfg.max_attempts) {}

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
  bool takes_paths() const override { return false; }
  // Request ids are looked up in the database as the job is submitted (accept).
  std::optional<v1::SubmitProofResponse> existing(const v1::SubmitProofRequest&, uint64_t) override {
    return std::nullopt;
  }
  v1::SubmitProofResponse accept(Submission s) override;
  v1::JobResult await(const v1::AwaitProofRequest& req) override;
  v1::CancelProofResponse cancel(const v1::CancelProofRequest& req) override;
  void status(v1::GetStatusResponse& s) override;
  void metrics(const v1::GetStatusResponse& s, MetricsText& m) override;

 private:
  struct Held {
    PgQueue::Claim claim;
    uint64_t engine_id = 0;
    bool lost = false;  // its claim was taken over or its job ended: the work stopped
    size_t bytes = 0;   // its witness
  };
  struct Written {
    bool completed = false, refused = false, released = false, failed = false;
  };

  void claim_loop();
  int claims_wanted();  // under mu_
  void run(PgQueue::Claim c);
  void reap(std::shared_ptr<Held> h);
  Written write_outcome(const Held& h, const engine::JobResult& r, double offset_ms, bool quitting, bool lost);
  void heartbeat_loop();
  void view_loop();
  bool read_view();
  void join_reaped();  // under mu_
  std::optional<PgQueue::JobView> read_job(const std::string& job_id, const std::string& request_id, bool with_results);

  StoreContext ctx_;
  const std::string host_;
  ConnPool pool_;
  std::vector<std::string> circuits_, keys_;  // what this daemon serves, and its key digests
  std::string devices_json_;
  int target_ = 2;  // claims held at once (keeps every worker fed)

  std::mutex mu_;
  std::condition_variable cv_;                     // a claim ended; a job was submitted here; stopping
  std::map<int64_t, std::shared_ptr<Held>> held_;  // by claim token
  std::map<int64_t, std::thread> reapers_;
  std::vector<int64_t> reaped_;
  std::thread claimer_, beater_;
  bool stopping_ = false;  // no new jobs or claims
  bool quit_ = false;      // the grace is over: the threads end, the claims still held go back
  bool stopped_ = false;
  uint64_t completed_ = 0, refused_ = 0, released_ = 0, failed_ = 0;
  size_t last_witness_ = 0;  // size of the last witness claimed (the next one's estimate)
  std::string last_error_;

  // The farm's view for status and /metrics, read by view_loop (never on a request's path, so a
  // database that hangs leaves status answering, the view marked stale).
  struct View {
    std::vector<PgQueue::Host> hosts;
    PgQueue::Depths depths;
    std::chrono::steady_clock::time_point at;
    bool read = false;
  };
  static constexpr double kViewPeriodS = 1, kViewStaleS = 3;
  std::mutex view_mu_;
  View view_;
  std::thread viewer_;
};

void FarmStore::start() {
  int version = 0;
  try {
    version = pool_.get()->migrate();
  } catch (const PgError& e) {
    throw Error(std::string("queue: ") + e.what());
  }
  // Only circuits that one of this daemon's devices can hold (the engine's own rule).
  for (auto& [id, c] : ctx_.circuits) {
    const std::string why = ctx_.engine.cannot_hold(id);
    if (why.empty())
      circuits_.push_back(id), keys_.push_back(c->key_digest());
    else
      ctx_.warn("farm: not claiming circuit " + id + ": " + why);
  }
  auto devs = ctx_.engine.device_records();
  devices_json_ = "[";
  for (size_t i = 0; i < devs.size(); ++i) devices_json_ += (i ? ",\"" : "\"") + devs[i].name + "\"";
  devices_json_ += "]";
  target_ = std::max(2, int(devs.size()) * ctx_.cfg.workers_per_device * 2);
  pool_.get()->heartbeat(host_, devices_json_, circuits_, keys_);
  read_view();
  ctx_.say("farm: host " + host_ + " on the PostgreSQL queue (schema version " + std::to_string(version) + "), " +
           std::to_string(target_) + " claims at most, leases of " + std::to_string(ctx_.cfg.lease_s) + " s");
  claimer_ = std::thread([this] { claim_loop(); });
  beater_ = std::thread([this] { heartbeat_loop(); });
  viewer_ = std::thread([this] { view_loop(); });
}

// Claims partitions while the engine has room; hands each to the engine with its reaper.
void FarmStore::claim_loop() {
  for (;;) {
    int want = 0;
    {
      std::lock_guard lk(mu_);
      if (stopping_) return;
      join_reaped();
      want = claims_wanted();
    }
    std::vector<PgQueue::Claim> got;
    if (want > 0) {
      try {
        got = pool_.get()->claim(host_, circuits_, want, ctx_.cfg.lease_s, keys_);
        std::lock_guard lk(mu_);
        last_error_.clear();
      } catch (const PgError& e) {
        std::lock_guard lk(mu_);
        if (last_error_ != e.what()) ctx_.warn(std::string("farm: claiming: ") + e.what());
        last_error_ = e.what();
      }
    }
    for (auto& c : got) run(std::move(c));
    std::unique_lock lk(mu_);
    if (stopping_) return;
    // Poll again soon; at once when a claim ended.
    cv_.wait_for(lk, std::chrono::milliseconds(got.empty() ? 100 : 5));
  }
}

// Up to target_ claims; within the host budget, as many more as witnesses of the last size fit
// (always one when nothing is held, so a witness larger than the budget still runs, alone). The
// budget's bytes change under mu_ only, with held_.
int FarmStore::claims_wanted() {
  int want = target_ - int(held_.size());
  const size_t limit = ctx_.budget.limit(), held = ctx_.budget.held();
  if (last_witness_ > 0 && !held_.empty()) {
    const size_t room = limit > held ? limit - held : 0;
    want = std::min(want, int(std::min<size_t>(room / last_witness_, size_t(1) << 20)));
  } else if (held_.empty()) {
    want = std::min(want,
                    last_witness_ > 0 ? std::max(1, int(std::min<size_t>(limit / last_witness_, size_t(1) << 20))) : 1);
  }
  return want;
}

// A claim becomes a one-partition engine job, watched by its reaper.
void FarmStore::run(PgQueue::Claim c) {
  auto h = std::make_shared<Held>();
  h->claim = std::move(c);
  engine::JobRequest req;
  req.circuit = h->claim.circuit_id;
  req.priority = to_engine(v1::Priority(h->claim.priority));
  // Its errors read "job J: ..." (the queue puts the client's partition number before them).
  const std::string name = "job " + h->claim.job_id;
  std::string w = std::move(h->claim.witness);
  h->bytes = w.size();
  h->claim.witness.clear();
  req.partitions.push_back(engine::Witness::bytes(name, std::vector<uint8_t>(w.begin(), w.end())));
  h->engine_id = ctx_.engine.submit(std::move(req), h->claim.job_id + "/" + std::to_string(h->claim.index));
  std::lock_guard lk(mu_);
  held_[h->claim.token] = h;
  ctx_.budget.hold(h->bytes);
  last_witness_ = std::max<size_t>(1, h->bytes);
  reapers_[h->claim.token] = std::thread([this, h] { reap(h); });
}

// A claim's reaper: waits for the engine, writes the outcome, lets the claim go.
void FarmStore::reap(std::shared_ptr<Held> h) {
  engine::JobResult r = ctx_.engine.await(h->engine_id);
  const double offset = double(unix_ms()) - ctx_.engine.now_ms();
  ctx_.engine.forget(h->engine_id);
  if (r.state == engine::JobState::Done)
    for (auto& rec : r.records) ctx_.stats.proved(rec);
  bool quitting, lost;  // (lost is written by the heartbeat, under mu_)
  {
    std::lock_guard lk(mu_);
    quitting = quit_, lost = h->lost;
  }
  const Written w = write_outcome(*h, r, offset, quitting, lost);
  std::lock_guard lk(mu_);
  completed_ += w.completed;
  refused_ += w.refused;
  released_ += w.released;
  failed_ += w.failed;
  held_.erase(h->claim.token);
  ctx_.budget.release(h->bytes);
  reaped_.push_back(h->claim.token);
  cv_.notify_all();
}

// Writes a claim's outcome, retrying while the database is away (about 20 s; after that the
// lease has run out and another host proves the partition again): the proof with the claim's
// token, or the partition given back (a failure here counts towards max_attempts, a stop with
// the daemon does not). A lost claim writes nothing.
FarmStore::Written FarmStore::write_outcome(const Held& h, const engine::JobResult& r, double offset_ms, bool quitting,
                                            bool lost) {
  Written w;
  for (int attempt = 0; attempt < 40; ++attempt) {
    try {
      auto q = pool_.get();
      if (r.state == engine::JobState::Done) {
        PgQueue::Proof p;
        const auto& rec = r.records.at(0);
        p.device = host_ + "/" + rec.device;
        p.timings_json = encode_record(rec, p.device, offset_ms);
        p.proof_json = r.proofs[0].proof_json;
        p.public_json = r.proofs[0].public_json;
        p.compressed.assign(r.proofs[0].compressed.begin(), r.proofs[0].compressed.end());
        (q->complete(h.claim, p) ? w.completed : w.refused) = true;
      } else if (!lost) {
        // The failure as the queue records it, after "partition <the client's index>: ": the host
        // and device, and the engine's error without its own (one-partition) numbering.
        const engine::PartitionRecord* rec = r.records.empty() ? nullptr : &r.records[0];
        const std::string where = host_ + (rec && !rec->device.empty() ? "/" + rec->device : "");
        const std::string why = rec && !rec->error.empty() ? rec->error : r.error;
        if (quitting)
          w.released = q->release(h.claim, "host " + host_ + " stopped", ctx_.cfg.max_attempts, false);
        else if (r.state == engine::JobState::Failed && r.failure == engine::FailureKind::BadInput)
          w.failed = q->fail(h.claim, where + ": " + why);  // the input: no other host can prove it
        else
          w.released = q->release(h.claim, where + ": " + why, ctx_.cfg.max_attempts, true);
      }
      break;
    } catch (const PgError& e) {
      if (attempt == 0) ctx_.warn(std::string("farm: writing a result: ") + e.what() + "; retrying");
      bool give_up;
      {
        std::lock_guard lk(mu_);
        give_up = quit_ && attempt > 3;
      }
      if (give_up) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
  return w;
}

void FarmStore::join_reaped() {
  for (auto t : reaped_) {
    auto it = reapers_.find(t);
    if (it != reapers_.end()) {
      it->second.join();
      reapers_.erase(it);
    }
  }
  reaped_.clear();
}

// Renews the leases of what this daemon holds (stopping the work of claims found lost), says it
// is alive, and now and then removes the results older than keep_results.
void FarmStore::heartbeat_loop() {
  const auto period = std::chrono::duration<double>(ctx_.cfg.lease_s / 3);
  auto last_prune = std::chrono::steady_clock::now() - std::chrono::hours(1);
  for (;;) {
    std::vector<int64_t> tokens;
    {
      std::unique_lock lk(mu_);
      cv_.wait_for(lk, period, [&] { return quit_; });
      if (quit_) return;
      for (auto& [t, h] : held_) tokens.push_back(t);
    }
    try {
      auto q = pool_.get();
      const auto lost = q->renew(tokens, ctx_.cfg.lease_s);
      std::vector<uint64_t> stop_ids;
      {
        std::lock_guard lk(mu_);
        for (auto t : lost)
          if (auto it = held_.find(t); it != held_.end() && !it->second->lost) {
            it->second->lost = true;
            stop_ids.push_back(it->second->engine_id);
          }
      }
      for (auto id : stop_ids) ctx_.engine.cancel(id);  // cancelled, or proved again elsewhere
      q->heartbeat(host_, devices_json_, circuits_, keys_);
      // Any daemon may prune; SKIP LOCKED shares the work.
      if (std::chrono::steady_clock::now() - last_prune > std::chrono::seconds(60)) {
        last_prune = std::chrono::steady_clock::now();
        if (int n = q->prune(ctx_.cfg.keep_results_s); n > 0)
          ctx_.say("farm: removed " + std::to_string(n) + " job(s) ended more than keep_results ago");
      }
    } catch (const PgError& e) {
      ctx_.warn(std::string("farm: heartbeat: ") + e.what());
    }
  }
}

// No new claims; the grace for those held; then what still runs is given back to the queue by
// its reaper once the engine stops it.
void FarmStore::stop(double grace_s) {
  {
    std::unique_lock lk(mu_);
    if (stopped_) return;
    stopping_ = true;
    cv_.notify_all();
    if (grace_s > 0 && !held_.empty()) {
      ctx_.say("stopping: waiting up to " + std::to_string(int(grace_s)) + " s for " + std::to_string(held_.size()) +
               " partition(s)");
      cv_.wait_for(lk, std::chrono::duration<double>(grace_s), [&] { return held_.empty(); });
    }
    quit_ = true;
    cv_.notify_all();
  }
  if (claimer_.joinable()) claimer_.join();
  std::vector<uint64_t> ids;
  {
    std::lock_guard lk(mu_);
    for (auto& [t, h] : held_) ids.push_back(h->engine_id);
  }
  for (auto id : ids) ctx_.engine.cancel(id);
  std::map<int64_t, std::thread> rs;
  {
    std::lock_guard lk(mu_);
    rs.swap(reapers_);
  }
  for (auto& [t, th] : rs) th.join();
  if (beater_.joinable()) beater_.join();
  if (viewer_.joinable()) viewer_.join();
  std::lock_guard lk(mu_);
  stopped_ = true;
}

// The job, its witnesses and its key digest in one transaction; a request_id the database
// already has answers with that job.
v1::SubmitProofResponse FarmStore::accept(Submission s) {
  PgQueue::NewJob j;
  j.job_id = new_job_id();
  j.request_id = s.req.request_id();
  j.circuit_id = s.req.circuit_id();
  j.priority = s.req.priority() == v1::PRIORITY_UNSPECIFIED ? int(v1::NORMAL) : int(s.req.priority());
  j.request_digest = s.digest;
  j.circuit_key = ctx_.circuits.at(s.req.circuit_id())->key_digest();
  switch (s.kind) {
    case Submission::Bytes:
      for (auto& w : s.req.partitions()) j.witnesses.push_back(w);
      break;
    case Submission::Files:
      for (auto& fb : s.mapped) {
        auto b = fb->bytes();
        j.witnesses.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
      }
      break;
    case Submission::Paths:  // the service does not offer them (takes_paths)
      throw Rejected(Rejected::InvalidArgument, "a farm takes no witness paths");
  }
  PgQueue::Submitted sub;
  try {
    sub = pool_.get()->submit(j);  // committed before the answer
  } catch (const PgError& e) {
    throw Rejected(Rejected::Unavailable, std::string("the job queue is unavailable: ") + e.what());
  }
  v1::SubmitProofResponse r;
  if (sub.existing) {
    r = same_request(s.req, s.digest, sub.job_id, sub.digest);
    // The job's proofs are made with the key it was accepted for: under another key (a daemon
    // mid-upgrade, or another key registered under the same circuit id) they would not verify.
    if (sub.circuit_key != j.circuit_key)
      throw Rejected(Rejected::FailedPrecondition, "request_id '" + j.request_id + "' has job " + sub.job_id +
                                                       ", accepted for circuit '" + j.circuit_id + "' with key " +
                                                       (sub.circuit_key.empty() ? "(none)" : sub.circuit_key) +
                                                       "; this daemon's key for '" + j.circuit_id + "' is " +
                                                       j.circuit_key + ": await it through a daemon with that key");
  } else {
    r.set_job_id(sub.job_id);
  }
  cv_.notify_all();  // the claimer looks at once
  return r;
}

// A read of the job from the database; a connection that broke since its last use (the server
// restarted) is re-established and the read tried once more.
std::optional<PgQueue::JobView> FarmStore::read_job(const std::string& job_id, const std::string& request_id,
                                                    bool with_results) {
  for (int attempt = 0;; ++attempt) {
    try {
      return pool_.get()->job(job_id, request_id, with_results);
    } catch (const PgError& e) {
      if (attempt == 1) throw Rejected(Rejected::Unavailable, std::string("the job queue is unavailable: ") + e.what());
    }
  }
}

// Polls the job's row until it ends, the timeout passes or the daemon stops.
v1::JobResult FarmStore::await(const v1::AwaitProofRequest& req) {
  const uint64_t timeout = std::min<uint64_t>(req.timeout_ms(), uint64_t(24) * 3600 * 1000);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
  for (;;) {
    std::optional<PgQueue::JobView> v = read_job(req.job_id(), req.request_id(), false);
    if (!v)
      throw Rejected(Rejected::NotFound, req.job_id().empty() ? "unknown request_id '" + req.request_id() + "'"
                                                              : "unknown job '" + req.job_id() + "'");
    const v1::JobState st = state_of(v->state);
    const bool ended = st == v1::DONE || st == v1::FAILED || st == v1::CANCELLED;
    if (ended || std::chrono::steady_clock::now() >= end || stopped()) {
      if (ended && st == v1::DONE) v = read_job(v->job_id, "", true);
      if (!v) throw Rejected(Rejected::NotFound, "job " + req.job_id() + req.request_id() + " was removed");
      return result_of(*v, st);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

v1::CancelProofResponse FarmStore::cancel(const v1::CancelProofRequest& req) {
  auto v = read_job(req.job_id(), req.request_id(), false);
  if (!v) throw Rejected(Rejected::NotFound, "unknown job '" + req.job_id() + req.request_id() + "'");
  v1::CancelProofResponse r;
  try {
    r.set_cancelled(pool_.get()->cancel(v->job_id));
  } catch (const PgError& e) {
    throw Rejected(Rejected::Unavailable, std::string("the job queue is unavailable: ") + e.what());
  }
  r.set_state(r.cancelled() ? v1::CANCELLED : state_of(v->state));
  // Partitions of it running here stop; elsewhere their results are refused (the job ended).
  std::vector<uint64_t> ids;
  {
    std::lock_guard lk(mu_);
    for (auto& [t, h] : held_)
      if (h->claim.job_id == v->job_id) ids.push_back(h->engine_id);
  }
  for (auto id : ids) ctx_.engine.cancel(id);
  if (r.cancelled()) ctx_.stats.ended(v1::CANCELLED);
  return r;
}

// Reads the farm's view (hosts, depths) into view_; false when the database did not answer.
bool FarmStore::read_view() {
  try {
    auto q = pool_.get();
    View v;
    v.hosts = q->hosts();
    v.depths = q->depths(3 * ctx_.cfg.lease_s);  // hosts heard from within three leases run
    v.at = std::chrono::steady_clock::now();
    v.read = true;
    std::lock_guard lk(view_mu_);
    view_ = std::move(v);
    return true;
  } catch (const PgError&) {
    return false;  // the view ages; status says so
  }
}

// Refreshes the farm's view every kViewPeriodS until the store quits.
void FarmStore::view_loop() {
  for (;;) {
    {
      std::unique_lock lk(mu_);
      cv_.wait_for(lk, std::chrono::duration<double>(kViewPeriodS), [&] { return quit_; });
      if (quit_) return;
    }
    read_view();
  }
}

// The farm's part of the status: this host's results, and the farm's view as last read (stale
// when that read is old: the database is unreachable or frozen).
void FarmStore::status(v1::GetStatusResponse& s) {
  auto* fm = s.mutable_farm();
  fm->set_host_id(host_);
  {
    std::lock_guard lk(mu_);
    fm->set_completed_here(completed_);
    fm->set_refused_here(refused_);
    fm->set_released_here(released_);
    fm->set_failed_here(failed_);
  }
  View v;
  {
    std::lock_guard lk(view_mu_);
    v = view_;
  }
  const double age = v.read ? std::chrono::duration<double>(std::chrono::steady_clock::now() - v.at).count() : -1;
  fm->set_stale(!v.read || age > kViewStaleS);
  fm->set_age_s(age);
  for (auto& h : v.hosts) {
    auto* x = fm->add_hosts();
    x->set_host_id(h.host);
    x->set_devices(h.devices_json);
    x->set_circuits(h.circuits);
    x->set_heartbeat_age_s(h.heartbeat_age_s + (age > 0 ? age : 0));  // as of now
    x->set_claims(uint32_t(h.claims));
  }
  const auto& d = v.depths;
  fm->set_jobs_queued(uint32_t(d.jobs_queued));
  fm->set_jobs_running(uint32_t(d.jobs_running));
  fm->set_partitions_queued(uint32_t(d.partitions_queued));
  fm->set_partitions_claimed(uint32_t(d.partitions_claimed));
  fm->set_partitions_expired(uint32_t(d.partitions_expired));
  fm->set_jobs_unplaceable(uint32_t(d.jobs_unplaceable));
  fm->set_unplaceable_oldest_s(d.jobs_unplaceable > 0 ? d.unplaceable_oldest_s + (age > 0 ? age : 0) : 0);
}

void FarmStore::metrics(const v1::GetStatusResponse& s, MetricsText& m) {
  const auto& f = s.farm();
  m.family("cuzk_farm_status_stale", "gauge",
           "1 when the farm's figures below are older than a few seconds (the database did not answer).");
  m.sample("cuzk_farm_status_stale", "", f.stale() ? 1 : 0);
  m.family("cuzk_farm_status_age_seconds", "gauge", "Age of the last read of the farm's figures from the database.");
  m.sample("cuzk_farm_status_age_seconds", "", f.age_s());
  m.family("cuzk_farm_hosts", "gauge", "Daemons of the farm that have sent a heartbeat, by age of the last one.");
  int fresh = 0, stale = 0;
  for (auto& h : f.hosts()) (h.heartbeat_age_s() < 3 * ctx_.cfg.lease_s ? fresh : stale) += 1;
  m.sample("cuzk_farm_hosts", "heartbeat=\"recent\"", fresh);
  m.sample("cuzk_farm_hosts", "heartbeat=\"old\"", stale);
  m.family("cuzk_farm_partitions", "gauge", "Partitions of unfinished jobs in the shared queue, by state.");
  m.sample("cuzk_farm_partitions", "state=\"queued\"", f.partitions_queued());
  m.sample("cuzk_farm_partitions", "state=\"claimed\"", f.partitions_claimed());
  m.sample("cuzk_farm_partitions", "state=\"expired\"", f.partitions_expired());
  m.family("cuzk_farm_jobs_unplaceable", "gauge",
           "Unfinished jobs with partitions that no running daemon serves (their circuit with their key).");
  m.sample("cuzk_farm_jobs_unplaceable", "", f.jobs_unplaceable());
  m.family("cuzk_farm_jobs_unplaceable_oldest_seconds", "gauge",
           "Age of the oldest job that no running daemon can hold (0: none).");
  m.sample("cuzk_farm_jobs_unplaceable_oldest_seconds", "", f.unplaceable_oldest_s());
  m.family("cuzk_farm_results_total", "counter",
           "Partitions this daemon finished, by what the queue made of the result.");
  m.sample("cuzk_farm_results_total", "outcome=\"completed\"", double(f.completed_here()));
  m.sample("cuzk_farm_results_total", "outcome=\"refused\"", double(f.refused_here()));
  m.sample("cuzk_farm_results_total", "outcome=\"released\"", double(f.released_here()));
  m.sample("cuzk_farm_results_total", "outcome=\"failed\"", double(f.failed_here()));
}

}  // namespace

std::unique_ptr<JobStore> make_farm_store(const StoreContext& ctx) { return std::make_unique<FarmStore>(ctx); }

#else  // without libpq

std::unique_ptr<JobStore> make_farm_store(const StoreContext&) {
  throw InvalidArgument("queue.backend = \"postgres\": this cuzk was built without libpq (libpq-dev)");
}

#endif

}  // namespace cuzk::daemon
