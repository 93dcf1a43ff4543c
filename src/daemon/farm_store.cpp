// The daemon's farm mode ([queue] backend = "postgres"): the jobs live in PostgreSQL (PgQueue),
// every daemon of the farm accepts them, claims partitions of its circuits while its engine has
// room, holds each claim as a lease renewed by heartbeat, and writes each result with the claim's
// token. AwaitProof on any daemon reads the job from the database.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "daemon/service.hpp"
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

// One connection per user at a time; connections are reused.
class ConnPool {
 public:
  explicit ConnPool(std::string dsn) : dsn_(std::move(dsn)) {}
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
    return Lease(this, std::make_unique<PgQueue>(dsn_));
  }
  void put(std::unique_ptr<PgQueue> q) {
    std::lock_guard lk(m_);
    if (free_.size() < 16) free_.push_back(std::move(q));
  }

 private:
  std::string dsn_;
  std::mutex m_;
  std::vector<std::unique_ptr<PgQueue>> free_;
};

// A partition's record as text in the database: absolute unix milliseconds, so that the spans of
// partitions proved on different hosts share one time axis.
std::string encode_record(const engine::PartitionRecord& r, const std::string& device, double offset_ms) {
  std::ostringstream o;
  o.precision(15);
  auto span = [&](const engine::Span& s) {
    o << '|' << (s.happened() ? s.start_ms + offset_ms : -1) << ',' << (s.happened() ? s.end_ms + offset_ms : -1);
  };
  o << "r1|" << device << '|' << r.worker << '|' << r.attempts << '|' << (r.streamed ? 1 : 0) << '|' << r.reserved_bytes;
  span(r.queued), span(r.synth), span(r.stage), span(r.lock_wait), span(r.kernels), span(r.finish);
  o << '|' << r.ntt_h_ms << '|' << r.msm_a_ms << '|' << r.msm_b1_ms << '|' << r.msm_b2_ms << '|' << r.msm_c_ms << '|'
    << r.msm_h_ms << '|' << r.budget_wait_ms;
  return o.str();
}

bool decode_record(const std::string& text, engine::PartitionRecord& r) {
  std::vector<std::string> f;
  std::stringstream ss(text);
  std::string x;
  while (std::getline(ss, x, '|')) f.push_back(x);
  // 18 fields, 19 with the budget wait; fields added later are appended, so a record with more
  // is read as far as this daemon knows (a farm may run daemons of several versions).
  if (f.size() < 18 || f[0] != "r1") return false;
  r.device = f[1];
  r.worker = std::atoi(f[2].c_str());
  r.attempts = std::atoi(f[3].c_str());
  r.streamed = f[4] == "1";
  r.reserved_bytes = size_t(std::strtoull(f[5].c_str(), nullptr, 10));
  engine::Span* spans[] = {&r.queued, &r.synth, &r.stage, &r.lock_wait, &r.kernels, &r.finish};
  for (int i = 0; i < 6; ++i) {
    const std::string& s = f[6 + i];
    const auto comma = s.find(',');
    spans[i]->start_ms = std::strtod(s.substr(0, comma).c_str(), nullptr);
    spans[i]->end_ms = std::strtod(s.substr(comma + 1).c_str(), nullptr);
  }
  double* ms[] = {&r.ntt_h_ms, &r.msm_a_ms, &r.msm_b1_ms, &r.msm_b2_ms, &r.msm_c_ms, &r.msm_h_ms};
  for (int i = 0; i < 6; ++i) *ms[i] = std::strtod(f[12 + i].c_str(), nullptr);
  r.budget_wait_ms = f.size() >= 19 ? std::strtod(f[18].c_str(), nullptr) : 0;
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

}  // namespace

struct Service::Farm {
  std::string host;
  std::unique_ptr<ConnPool> pool;
  std::mutex mu;
  std::condition_variable cv;
  struct Held {
    PgQueue::Claim claim;
    uint64_t engine_id = 0;
    bool lost = false;  // its claim was taken over or its job ended: the work stopped
    size_t bytes = 0;   // its witness
  };
  std::map<int64_t, std::shared_ptr<Held>> held;  // by claim token
  std::map<int64_t, std::thread> reapers;
  std::vector<int64_t> reaped;
  std::thread claimer, beater;
  bool stop = false, draining = false;
  uint64_t completed = 0, refused = 0, released = 0;
  std::vector<std::string> circuits, keys;  // what this daemon serves, and its key digests
  std::string devices_json;
  int target = 2;                      // claims held at once (keeps every worker fed)
  size_t last_witness = 0;             // size of the last witness claimed (the next one's estimate)
  std::string last_error;
  void join_reaped() {
    for (auto t : reaped) {
      auto it = reapers.find(t);
      if (it != reapers.end()) {
        it->second.join();
        reapers.erase(it);
      }
    }
    reaped.clear();
  }
};

void Service::farm_start() {
  farm_.reset(new Farm());
  Farm& f = *farm_;
  f.host = cfg_.host_id.empty() ? default_host_id() : cfg_.host_id;
  f.pool = std::make_unique<ConnPool>(cfg_.queue_dsn);
  int version = 0;
  try {
    version = f.pool->get()->migrate();
  } catch (const PgError& e) {
    throw Error(std::string("queue: ") + e.what());
  }
  auto devs = engine_->device_records();
  // Only circuits that one of this daemon's devices can hold (at worst with the key streamed).
  for (auto& [id, c] : circuits_) {
    const size_t need = c->working_set_bytes(engine::EngineConfig().stream_chunk_points);
    bool fits = false;
    for (auto& d : devs) fits |= need <= d.budget_bytes;
    if (fits) f.circuits.push_back(id), f.keys.push_back(c->key_digest());
    else if (log_)
      log_("farm: not claiming circuit " + id + ": it needs " + std::to_string(need >> 20) +
           " MiB of device memory even streamed, more than any device here has");
  }
  f.devices_json = "[";
  for (size_t i = 0; i < devs.size(); ++i) f.devices_json += (i ? ",\"" : "\"") + devs[i].name + "\"";
  f.devices_json += "]";
  f.target = std::max(2, int(devs.size()) * cfg_.workers_per_device * 2);
  f.pool->get()->heartbeat(f.host, f.devices_json, f.circuits);
  if (log_)
    log_("farm: host " + f.host + " on the PostgreSQL queue (schema version " + std::to_string(version) + "), " +
         std::to_string(f.target) + " claims at most, leases of " + std::to_string(cfg_.lease_s) + " s");

  // Claims partitions while the engine has room; hands each to the engine with its reaper.
  f.claimer = std::thread([this] {
    Farm& f = *farm_;
    for (;;) {
      int want = 0;
      {
        std::unique_lock lk(f.mu);
        if (f.stop || f.draining) return;
        f.join_reaped();
        want = f.target - int(f.held.size());
        // Within the host budget: as many more as witnesses of the last size fit (always one
        // when nothing is held, so a witness larger than the budget still runs, alone).
        // (budget_ changes under f.mu only.)
        const size_t limit = budget_.limit(), held = budget_.held();
        if (f.last_witness > 0 && !f.held.empty()) {
          const size_t room = limit > held ? limit - held : 0;
          want = std::min(want, int(std::min<size_t>(room / f.last_witness, size_t(1) << 20)));
        } else if (f.held.empty()) {
          want = std::min(want, f.last_witness > 0 ? std::max(1, int(std::min<size_t>(limit / f.last_witness, size_t(1) << 20))) : 1);
        }
      }
      std::vector<PgQueue::Claim> got;
      if (want > 0) {
        try {
          got = f.pool->get()->claim(f.host, f.circuits, want, cfg_.lease_s, f.keys);
          std::lock_guard lk(f.mu);
          f.last_error.clear();
        } catch (const PgError& e) {
          std::lock_guard lk(f.mu);
          if (f.last_error != e.what() && log_) log_(std::string("farm: claiming: ") + e.what());
          f.last_error = e.what();
        }
      }
      for (auto& c : got) {
        auto h = std::make_shared<Farm::Held>();
        h->claim = std::move(c);
        engine::JobRequest req;
        req.circuit = h->claim.circuit_id;
        req.priority = to_engine(v1::Priority(h->claim.priority));
        const std::string name = h->claim.job_id + " partition " + std::to_string(h->claim.index);
        std::string w = std::move(h->claim.witness);
        h->bytes = w.size();
        h->claim.witness.clear();
        req.partitions.push_back(engine::Witness::bytes(name, std::vector<uint8_t>(w.begin(), w.end())));
        h->engine_id = engine_->submit(std::move(req), h->claim.job_id + "/" + std::to_string(h->claim.index));
        std::lock_guard lk(f.mu);
        f.held[h->claim.token] = h;
        budget_.hold(h->bytes);
        f.last_witness = std::max<size_t>(1, h->bytes);
        f.reapers[h->claim.token] = std::thread([this, h] {
          Farm& f = *farm_;
          engine::JobResult r = engine_->await(h->engine_id);
          const double offset = double(unix_ms()) - engine_->now_ms();
          engine_->forget(h->engine_id);
          if (r.state == engine::JobState::Done)
            for (auto& rec : r.records) stats_.proved(rec);
          bool stopping, lost;  // (lost is written by the heartbeat, under f.mu)
          {
            std::lock_guard lk(f.mu);
            stopping = f.stop, lost = h->lost;
          }
          // Writes the outcome, retrying while the database is away (about 20 s; after that the
          // lease has run out and another host proves the partition again).
          bool completed = false, refused = false, released = false;
          for (int attempt = 0; attempt < 40; ++attempt) {
            try {
              auto q = f.pool->get();
              if (r.state == engine::JobState::Done) {
                PgQueue::Proof p;
                const auto& rec = r.records.at(0);
                p.device = f.host + "/" + rec.device;
                p.timings_json = encode_record(rec, p.device, offset);
                p.proof_json = r.proofs[0].proof_json;
                p.public_json = r.proofs[0].public_json;
                p.compressed.assign(r.proofs[0].compressed.begin(), r.proofs[0].compressed.end());
                (q->complete(h->claim, p) ? completed : refused) = true;
              } else if (!lost) {
                // Failed here (counts towards max_attempts), or stopped with the daemon (does not).
                const std::string why = stopping ? "host " + f.host + " stopped" : f.host + ": " + r.error;
                released = q->release(h->claim, why, cfg_.max_attempts, !stopping);
              }
              break;
            } catch (const PgError& e) {
              if (attempt == 0 && log_) log_(std::string("farm: writing a result: ") + e.what() + "; retrying");
              bool quit;
              {
                std::lock_guard lk(f.mu);
                quit = f.stop && attempt > 3;
              }
              if (quit) break;
              std::this_thread::sleep_for(std::chrono::milliseconds(500));
            }
          }
          std::lock_guard lk(f.mu);
          f.completed += completed;
          f.refused += refused;
          f.released += released;
          f.held.erase(h->claim.token);
          budget_.release(h->bytes);
          f.reaped.push_back(h->claim.token);
          f.cv.notify_all();
        });
      }
      std::unique_lock lk(f.mu);
      if (f.stop || f.draining) return;
      // Poll again soon; at once when a claim ended.
      f.cv.wait_for(lk, std::chrono::milliseconds(got.empty() ? 100 : 5));
    }
  });

  // Renews the leases of what this daemon holds, and says it is alive.
  f.beater = std::thread([this] {
    Farm& f = *farm_;
    const auto period = std::chrono::duration<double>(cfg_.lease_s / 3);
    auto last_prune = std::chrono::steady_clock::now() - std::chrono::hours(1);
    for (;;) {
      std::vector<int64_t> tokens;
      {
        std::unique_lock lk(f.mu);
        f.cv.wait_for(lk, period, [&] { return f.stop; });
        if (f.stop) return;
        for (auto& [t, h] : f.held) tokens.push_back(t);
      }
      try {
        auto q = f.pool->get();
        const auto lost = q->renew(tokens, cfg_.lease_s);
        std::vector<uint64_t> stop_ids;
        {
          std::lock_guard lk(f.mu);
          for (auto t : lost)
            if (auto it = f.held.find(t); it != f.held.end() && !it->second->lost) {
              it->second->lost = true;
              stop_ids.push_back(it->second->engine_id);
            }
        }
        for (auto id : stop_ids) engine_->cancel(id);  // cancelled, or proved again elsewhere
        q->heartbeat(f.host, f.devices_json, f.circuits);
        // Results older than keep_results go (any daemon may do it; SKIP LOCKED shares the work).
        if (std::chrono::steady_clock::now() - last_prune > std::chrono::seconds(60)) {
          last_prune = std::chrono::steady_clock::now();
          if (int n = q->prune(cfg_.keep_results_s); n > 0 && log_)
            log_("farm: removed " + std::to_string(n) + " job(s) ended more than keep_results ago");
        }
      } catch (const PgError& e) {
        if (log_) log_(std::string("farm: heartbeat: ") + e.what());
      }
    }
  });
}

void Service::farm_stop(double grace_s) {
  Farm& f = *farm_;
  {
    std::unique_lock lk(mu_);
    if (stopped_) return;
    stopping_ = true;
  }
  {
    std::unique_lock lk(f.mu);
    f.draining = true;  // no new claims
    f.cv.notify_all();
    if (grace_s > 0 && !f.held.empty()) {
      if (log_) log_("stopping: waiting up to " + std::to_string(int(grace_s)) + " s for " + std::to_string(f.held.size()) + " partition(s)");
      f.cv.wait_for(lk, std::chrono::duration<double>(grace_s), [&] { return f.held.empty(); });
    }
    f.stop = true;
    f.cv.notify_all();
  }
  if (f.claimer.joinable()) f.claimer.join();
  // What still runs is given back to the queue by its reaper once the engine stops it.
  std::vector<uint64_t> ids;
  {
    std::lock_guard lk(f.mu);
    for (auto& [t, h] : f.held) ids.push_back(h->engine_id);
  }
  for (auto id : ids) engine_->cancel(id);
  std::map<int64_t, std::thread> rs;
  {
    std::lock_guard lk(f.mu);
    rs.swap(f.reapers);
  }
  for (auto& [t, th] : rs) th.join();
  if (f.beater.joinable()) f.beater.join();
  {
    std::lock_guard lk(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  // The engine goes with the Service, after the servers stopped calling into it.
}

v1::SubmitProofResponse Service::farm_submit(const v1::SubmitProofRequest& req, uint64_t d) {
  PgQueue::NewJob j;
  j.job_id = new_job_id();
  j.request_id = req.request_id();
  j.circuit_id = req.circuit_id();
  j.priority = req.priority() == v1::PRIORITY_UNSPECIFIED ? int(v1::NORMAL) : int(req.priority());
  j.request_digest = d;
  j.circuit_key = circuits_.at(req.circuit_id())->key_digest();
  for (auto& w : req.partitions()) j.witnesses.push_back(w);
  PgQueue::Submitted s;
  try {
    s = farm_->pool->get()->submit(j);  // committed before the answer
  } catch (const PgError& e) {
    throw Rejected(Rejected::Unavailable, std::string("the job queue is unavailable: ") + e.what());
  }
  v1::SubmitProofResponse r;
  if (s.existing) {
    r = same_request(req, d, s.job_id, s.digest);
  } else {
    r.set_job_id(s.job_id);
    stats_.submitted();
  }
  farm_->cv.notify_all();
  return r;
}

// A read of the job from the database; a connection that broke since its last use (the server
// restarted) is re-established and the read tried once more.
static std::optional<PgQueue::JobView> read_job(ConnPool& pool, const std::string& job_id, const std::string& request_id,
                                                bool with_results) {
  for (int attempt = 0;; ++attempt) {
    try {
      return pool.get()->job(job_id, request_id, with_results);
    } catch (const PgError& e) {
      if (attempt == 1) throw Rejected(Rejected::Unavailable, std::string("the job queue is unavailable: ") + e.what());
    }
  }
}

v1::JobResult Service::farm_await(const v1::AwaitProofRequest& req) {
  if (req.job_id().empty() && req.request_id().empty())
    throw Rejected(Rejected::InvalidArgument, "give a job_id or a request_id");
  const uint64_t timeout = std::min<uint64_t>(req.timeout_ms(), uint64_t(24) * 3600 * 1000);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
  for (;;) {
    std::optional<PgQueue::JobView> v = read_job(*farm_->pool, req.job_id(), req.request_id(), false);
    if (!v)
      throw Rejected(Rejected::NotFound, req.job_id().empty() ? "unknown request_id '" + req.request_id() + "'"
                                                               : "unknown job '" + req.job_id() + "'");
    const v1::JobState st = state_of(v->state);
    const bool ended = st == v1::DONE || st == v1::FAILED || st == v1::CANCELLED;
    if (ended || std::chrono::steady_clock::now() >= end || stopped()) {
      if (ended && st == v1::DONE) v = read_job(*farm_->pool, v->job_id, "", true);
      if (!v) throw Rejected(Rejected::NotFound, "job " + req.job_id() + req.request_id() + " was removed");
      v1::JobResult out;
      out.set_job_id(v->job_id);
      out.set_request_id(v->request_id);
      out.set_circuit_id(v->circuit_id);
      out.set_state(st);
      out.set_error(v->error);
      out.set_partitions(uint32_t(v->partitions));
      out.set_partitions_done(uint32_t(v->partitions_done));
      out.set_wall_ms(v->wall_ms);
      if (st != v1::DONE) return out;
      std::vector<engine::PartitionRecord> recs;
      std::map<std::string, engine::DeviceRecord> devs;
      double t0 = 1e300;
      for (auto& p : v->results) {
        engine::PartitionRecord rec;
        if (!decode_record(p.timings_json, rec)) rec.device = p.device;
        rec.job = 0;
        rec.index = uint32_t(p.index);
        rec.ok = true;
        rec.attempts = p.attempts;
        if (rec.queued.start_ms >= 0) t0 = std::min(t0, rec.queued.start_ms);
        recs.push_back(rec);
        fill_partition_result(out.add_results(), rec, uint32_t(p.index), p.attempts, p.proof_json, p.public_json,
                              p.compressed);
      }
      // One time axis from the job's first partition; a device per host and device.
      for (auto& rec : recs) {
        for (engine::Span* s : {&rec.queued, &rec.synth, &rec.stage, &rec.lock_wait, &rec.kernels, &rec.finish})
          if (s->happened() && t0 < 1e300) s->start_ms -= t0, s->end_ms -= t0;
        auto& d = devs[rec.device];
        d.name = rec.device;
        d.description = "farm host " + rec.device.substr(0, rec.device.rfind('/'));
        d.workers = std::max(d.workers, rec.worker + 1);
        d.busy_ms += rec.kernels.ms();
        ++d.partitions;
      }
      std::vector<engine::DeviceRecord> dl;
      for (auto& [n, d] : devs) dl.push_back(d);
      out.set_summary_json(engine::summary_json(version_line(), v->wall_ms, recs, dl));
      out.set_timeline_svg(engine::timeline_svg(recs, dl, "cuzk farm: job " + v->job_id + ", " +
                                                              std::to_string(v->partitions) + " partitions of " +
                                                              v->circuit_id));
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

v1::CancelProofResponse Service::farm_cancel(const v1::CancelProofRequest& req) {
  auto v = read_job(*farm_->pool, req.job_id(), req.request_id(), false);
  if (!v) throw Rejected(Rejected::NotFound, "unknown job '" + req.job_id() + req.request_id() + "'");
  v1::CancelProofResponse r;
  try {
    r.set_cancelled(farm_->pool->get()->cancel(v->job_id));
  } catch (const PgError& e) {
    throw Rejected(Rejected::Unavailable, std::string("the job queue is unavailable: ") + e.what());
  }
  r.set_state(r.cancelled() ? v1::CANCELLED : state_of(v->state));
  // Partitions of it running here stop; elsewhere their results are refused (the job ended).
  std::vector<uint64_t> ids;
  {
    std::lock_guard lk(farm_->mu);
    for (auto& [t, h] : farm_->held)
      if (h->claim.job_id == v->job_id) ids.push_back(h->engine_id);
  }
  for (auto id : ids) engine_->cancel(id);
  if (r.cancelled()) stats_.ended(v1::CANCELLED);
  return r;
}

void Service::farm_status(v1::GetStatusResponse& s) {
  Farm& f = *farm_;
  auto* fm = s.mutable_farm();
  fm->set_host_id(f.host);
  {
    std::lock_guard lk(f.mu);
    fm->set_completed_here(f.completed);
    fm->set_refused_here(f.refused);
    fm->set_released_here(f.released);
  }
  try {
    auto q = f.pool->get();
    for (auto& h : q->hosts()) {
      auto* x = fm->add_hosts();
      x->set_host_id(h.host);
      x->set_devices(h.devices_json);
      x->set_circuits(h.circuits);
      x->set_heartbeat_age_s(h.heartbeat_age_s);
      x->set_claims(uint32_t(h.claims));
    }
    auto d = q->depths();
    fm->set_jobs_queued(uint32_t(d.jobs_queued));
    fm->set_jobs_running(uint32_t(d.jobs_running));
    fm->set_partitions_queued(uint32_t(d.partitions_queued));
    fm->set_partitions_claimed(uint32_t(d.partitions_claimed));
    fm->set_partitions_expired(uint32_t(d.partitions_expired));
  } catch (const PgError&) {
    // The database is away: the farm's part stays empty; the local part is still useful.
  }
}

#else  // without libpq

struct Service::Farm {};
void Service::farm_start() {
  throw InvalidArgument("queue.backend = \"postgres\": this cuzk was built without libpq (libpq-dev)");
}
void Service::farm_stop(double) {}
v1::SubmitProofResponse Service::farm_submit(const v1::SubmitProofRequest&, uint64_t) { return {}; }
v1::JobResult Service::farm_await(const v1::AwaitProofRequest&) { return {}; }
v1::CancelProofResponse Service::farm_cancel(const v1::CancelProofRequest&) { return {}; }
void Service::farm_status(v1::GetStatusResponse&) {}

#endif

void Service::FarmDeleter::operator()(Farm* f) const { delete f; }

Service::~Service() {
  shutdown(0);
  engine_.reset();
}

}  // namespace cuzk::daemon
