#include "daemon/service.hpp"
#include "daemon/service_util.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "backend/cuda/probe.hpp"
#include "cuzk/prove.hpp"
#include "engine/report.hpp"
#include "io/binfile.hpp"
#include "io/json.hpp"
#include "groth16/prover.hpp"
#include "io/wtns.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::daemon {

struct Service::Job {
  v1::JournalJob job;  // witnesses dropped once the job ends
  uint32_t partitions = 0;
  size_t witness_bytes = 0;
  uint64_t engine_id = 0;
  bool ended = false;
  bool client_cancelled = false;  // a CancelProof, not a shutdown, stopped it
  v1::JobResult result;  // when ended
  uint64_t ended_unix_ms = 0;
};

using namespace detail;

Service::Service(Config cfg, Log log) : cfg_(std::move(cfg)), log_(std::move(log)), budget_(cfg_.host_budget) {
  auto say = [&](const std::string& s) {
    if (log_) log_(s);
  };
  witness_dirs_ = std::make_unique<WitnessDirs>(cfg_.witness_dirs);
  // Devices.
  engine::EngineConfig ec;
  std::string list;
  for (auto& d : cfg_.devices) list += (list.empty() ? "" : ",") + d;
  if (list == "auto") list = !cuda::list_devices().empty() ? "all" : "cpu";
  ec.devices = engine::parse_devices(list);
  if (!cfg_.memory.empty()) {
    std::string m;
    for (auto& x : cfg_.memory) m += (m.empty() ? "" : ",") + x;
    engine::apply_memory_budgets(ec.devices, m);
  }
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  for (auto& d : ec.devices) {
    d.sim_threads = std::max(1u, hw / unsigned(ec.devices.size()));
    d.sim_kernel_ms = cfg_.sim_kernel_ms;
  }
  ec.workers_per_device = cfg_.workers_per_device;
  ec.synthesis_threads = cfg_.synthesis_threads;
  ec.verify = cfg_.verify;
  // Circuits.
  ThreadPool pool(cfg_.synthesis_threads);
  for (auto& c : cfg_.circuits) {
    auto t0 = std::chrono::steady_clock::now();
    try {
      circuits_[c.id] = engine::load_circuit(c.zkey, c.r1cs, pool);
    } catch (const std::exception& e) {
      throw InvalidArgument("circuit '" + c.id + "': " + e.what());
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    auto& ci = *circuits_[c.id];
    say("circuit " + c.id + ": " + curve_name(ci.curve()) + ", 2^" + std::to_string(ci.log_n()) + " domain, " +
        std::to_string(ci.n_vars()) + " wires, key " + std::to_string(ci.key_bytes() >> 20) + " MiB on a device (" +
        c.zkey + ", read in " + std::to_string(int(ms)) + " ms)");
  }
  engine_ = std::make_unique<engine::Engine>(ec);
  for (auto& [id, c] : circuits_) engine_->register_circuit(id, c);
  for (auto& d : engine_->device_records())
    say("device " + d.name + ": " + d.description + ", budget " + std::to_string(d.budget_bytes >> 20) + " MiB, " +
        std::to_string(d.workers) + " workers");
  if (cfg_.queue_backend == "postgres") {  // a farm: the jobs live in the database (farm.cpp)
    farm_start();
    return;
  }
  // Journal: results back in memory, unfinished jobs run again.
  journal_ = std::make_unique<Journal>(cfg_.journal);
  const uint64_t now = unix_ms();
  size_t kept = 0, expired = 0, recovered = 0;
  auto entries = journal_->load(log_);
  std::stable_sort(entries.begin(), entries.end(), [](const Journal::Entry& a, const Journal::Entry& b) {
    return a.job.accepted_unix_ms() < b.job.accepted_unix_ms();  // the order they were accepted in
  });
  for (auto& e : entries) {
    auto j = std::make_shared<Job>();
    j->job = std::move(e.job);
    j->partitions =
        uint32_t(j->job.partitions_size() + j->job.partition_files_size() + j->job.partition_paths_size());
    if (e.outcome) {
      if (e.outcome->ended_unix_ms() + uint64_t(cfg_.keep_results_s * 1000) < now) {
        journal_->remove(j->job.job_id());
        ++expired;
        continue;
      }
      j->ended = true;
      j->result = e.outcome->result();
      j->partitions = j->result.partitions();
      j->ended_unix_ms = e.outcome->ended_unix_ms();
      j->job.clear_partitions();  // a crash between the two journal writes may have left them
      jobs_[j->job.job_id()] = j;
      if (!j->job.request_id().empty()) by_request_[j->job.request_id()] = j->job.job_id();
      ++kept;
      continue;
    }
    jobs_[j->job.job_id()] = j;
    if (!j->job.request_id().empty()) by_request_[j->job.request_id()] = j->job.job_id();
    stats_.recovered();
    ++recovered;
    start(j);
  }
  say("journal " + cfg_.journal + ": " + std::to_string(recovered) + " unfinished job(s) running again, " +
      std::to_string(kept) + " result(s) kept, " + std::to_string(expired) + " expired");
  pruner_ = std::thread([this] { prune_loop(); });
}



namespace {
FileIdentity identity_of(const v1::WitnessPath& p) {
  return {p.dev(), p.ino(), p.size(), p.mtime_ns(), p.ctime_ns()};
}

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
}  // namespace

// Hands a journaled job to the engine and starts its reaper. Not under mu_.
void Service::start(std::shared_ptr<Job> j) {
  auto cit = circuits_.find(j->job.circuit_id());
  engine::JobRequest req;
  req.circuit = j->job.circuit_id();
  req.priority = to_engine(j->job.priority());
  size_t bytes = 0;
  for (int i = 0; i < j->job.partition_files_size(); ++i)
    req.partitions.push_back(engine::Witness::file(journal_->dir() + "/" + j->job.partition_files(i)));
  for (auto& p : j->job.partition_paths()) req.partitions.push_back(witness_in_place(p, witness_dirs_.get()));
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
    budget_.hold(bytes);
  }
  if (cit == circuits_.end() || req.partitions.empty()) {
    // Recovered from a journal whose circuit is no longer configured: it fails, with the reason.
    engine::JobResult r;
    r.state = engine::JobState::Failed;
    r.error = cit == circuits_.end() ? "circuit '" + j->job.circuit_id() + "' is not configured any more"
                                     : "the job has no witnesses";
    std::lock_guard lk0(mu_);
    join_reaped();
    reapers_[j->job.job_id()] = std::thread([this, j, r] {
      v1::JournalOutcome o;
      *o.mutable_result() = result_of(*j, r);
      o.set_ended_unix_ms(unix_ms());
      try {
        journal_->finish(j->job, o);  // durable before anyone sees it ended
      } catch (const std::exception& e) {
        if (log_) log_(e.what());
      }
      std::unique_lock lk(mu_);
      j->result = o.result();
      j->ended = true;
      j->ended_unix_ms = o.ended_unix_ms();
      j->job.clear_partitions();
      --active_;
      budget_.release(j->witness_bytes);
      stats_.ended(v1::FAILED);
      reaped_.push_back(j->job.job_id());
      cv_.notify_all();
    });
    return;
  }
  const uint64_t eid = engine_->submit(std::move(req), j->job.job_id());
  std::lock_guard lk(mu_);
  j->engine_id = eid;
  j->job.clear_partitions();  // the engine holds them now; the journal has them on disk
  join_reaped();
  reapers_[j->job.job_id()] = std::thread([this, j] { reap(j); });
}

void Service::join_reaped() {
  for (auto& id : reaped_) {
    auto it = reapers_.find(id);
    if (it == reapers_.end()) continue;
    it->second.join();
    reapers_.erase(it);
  }
  reaped_.clear();
}

void Service::reap(std::shared_ptr<Job> j) {
  engine::JobResult r = engine_->await(j->engine_id);
  {
    std::lock_guard lk(mu_);
    if (stopping_ && r.state == engine::JobState::Cancelled && stopped_ && !j->client_cancelled) {
      // Stopped by the shutdown, not by a client: no result; it runs again after a restart.
      --active_;
      budget_.release(j->witness_bytes);
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
    journal_->finish(j->job, o);
  } catch (const std::exception& e) {
    if (log_) log_(std::string("job ") + j->job.job_id() + ": " + e.what() + " (the result is kept in memory)");
  }
  std::lock_guard lk(mu_);
  j->result = std::move(res);
  j->ended = true;
  j->ended_unix_ms = o.ended_unix_ms();
  j->job.clear_partitions();
  --active_;
  budget_.release(j->witness_bytes);
  stats_.ended(j->result.state());
  for (auto& rec : r.records)
    if (rec.ok) stats_.proved(rec);
  engine_->forget(j->engine_id);
  reaped_.push_back(j->job.job_id());
  if (log_)
    log_("job " + j->job.job_id() + ": " + state_name(j->result.state()) + " (" + std::to_string(j->partitions) +
         " partitions, " + std::to_string(int(r.wall_ms)) + " ms)" + (r.error.empty() ? "" : ": " + r.error));
  cv_.notify_all();
}

v1::JobResult Service::result_of(const Job& j, const engine::JobResult& r) {
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
  auto devs = engine_->device_records();
  for (auto& d : devs) {
    d.busy_ms = 0;
    d.partitions = 0;
    for (auto& rec : r.records)
      if (rec.device == d.name) d.busy_ms += rec.kernels.ms(), ++d.partitions;
  }
  out.set_summary_json(engine::summary_json(version_line(), r.wall_ms, r.records, devs));
  out.set_timeline_svg(engine::timeline_svg(r.records, devs,
                                            "cuzk: job " + j.job.job_id() + ", " + std::to_string(j.partitions) +
                                                " partitions of " + j.job.circuit_id()));
  return out;
}

// What can be checked of a request but its witnesses: kind, priority, circuit, count.
void Service::validate_head(const v1::SubmitProofRequest& req, size_t partitions) {
  if (req.kind() != v1::PROOF_KIND_UNSPECIFIED && req.kind() != v1::GROTH16)
    throw Rejected(Rejected::InvalidArgument, "unknown proof kind " + std::to_string(int(req.kind())));
  if (!v1::Priority_IsValid(req.priority()))
    throw Rejected(Rejected::InvalidArgument, "unknown priority " + std::to_string(int(req.priority())));
  if (circuits_.find(req.circuit_id()) == circuits_.end()) {
    std::string known;
    for (auto& [id, c] : circuits_) known += (known.empty() ? "" : ", ") + id;
    throw Rejected(Rejected::InvalidArgument, "unknown circuit '" + req.circuit_id() + "' (this daemon has: " + known + ")");
  }
  if (partitions == 0) throw Rejected(Rejected::InvalidArgument, "a job needs at least one partition");
  if (partitions > cfg_.max_partitions)
    throw Rejected(Rejected::InvalidArgument, std::to_string(partitions) + " partitions, more than max_partitions (" +
                                                  std::to_string(cfg_.max_partitions) + ")");
}

// One witness against the circuit: its format, curve and number of values.
void Service::check_witness_shape(const std::string& name, CurveId curve, uint64_t n_witness,
                                  const std::string& circuit) {
  const engine::Circuit& c = *circuits_.at(circuit);
  if (curve != c.curve())
    throw Rejected(Rejected::InvalidArgument, name + ": the witness is for " + curve_name(curve) + ", circuit '" +
                                                  circuit + "' is " + curve_name(c.curve()));
  if (n_witness != c.n_vars())
    throw Rejected(Rejected::InvalidArgument, name + ": the witness has " + std::to_string(n_witness) +
                                                  " values, circuit '" + circuit + "' has " +
                                                  std::to_string(c.n_vars()) + " wires");
}

void Service::check_witness(const std::string& name, std::shared_ptr<io::FileBytes> fb, const std::string& circuit) {
  io::Wtns wt;
  try {
    wt = io::parse_wtns(fb);
  } catch (const Error& e) {
    const std::string m = e.what();
    throw Rejected(Rejected::InvalidArgument, m.rfind(name, 0) == 0 ? m : name + ": " + m);
  }
  check_witness_shape(name, wt.curve, wt.n_witness, circuit);
}

// Everything that can be checked of a request before it is accepted. Returns its witness bytes.
size_t Service::validate(const v1::SubmitProofRequest& req) {
  const size_t size = req.ByteSizeLong();
  if (size > cfg_.max_request_bytes)
    throw Rejected(Rejected::InvalidArgument, "the request is " + std::to_string(size) +
                                                  " bytes, more than max_request_bytes (" +
                                                  std::to_string(cfg_.max_request_bytes) + ")");
  validate_head(req, size_t(req.partitions_size()));
  size_t bytes = 0;
  for (int i = 0; i < req.partitions_size(); ++i) {
    const std::string& w = req.partitions(i);
    bytes += w.size();
    check_witness("partition " + std::to_string(i),
                  io::FileBytes::from_buffer("partition " + std::to_string(i), std::vector<uint8_t>(w.begin(), w.end())),
                  req.circuit_id());
  }
  return bytes;
}

// A streamed submission: the witnesses are files (written by the server under incoming_dir());
// they move into the journal, and the engine reads them from there.
v1::SubmitProofResponse Service::submit_files(const v1::SubmitProofRequest& head, const std::vector<std::string>& files,
                                              uint64_t req_digest) {
  {
    std::lock_guard lk(mu_);
    if (stopping_) throw Rejected(Rejected::Unavailable, "the daemon is stopping");
  }
  validate_head(head, files.size());
  std::vector<std::shared_ptr<io::FileBytes>> mapped;
  for (size_t i = 0; i < files.size(); ++i) {
    try {
      mapped.push_back(io::FileBytes::map(files[i]));
    } catch (const Error& e) {
      throw Rejected(Rejected::Unavailable, e.what());
    }
    check_witness("partition " + std::to_string(i), mapped.back(), head.circuit_id());
  }
  if (farm_) {  // the farm keeps witnesses in the database
    v1::SubmitProofRequest req = head;
    req.clear_partitions();
    for (auto& fb : mapped) {
      auto b = fb->bytes();
      req.add_partitions(std::string(reinterpret_cast<const char*>(b.data()), b.size()));
    }
    return farm_submit(req, req_digest);
  }
  mapped.clear();
  std::lock_guard accept(submit_mu_);
  if (auto known = existing(head, req_digest)) return *known;
  auto j = new_job(head, req_digest, uint32_t(files.size()));
  try {
    for (auto& name : journal_->adopt(j->job.job_id(), files)) j->job.add_partition_files(name);
    journal_->accept(j->job);  // durable before the answer
  } catch (const std::exception& e) {
    journal_->remove(j->job.job_id());
    throw Rejected(Rejected::Unavailable, std::string("cannot journal the job: ") + e.what());
  }
  return run_accepted(j);
}

std::string Service::incoming_dir() const { return cfg_.journal + "/incoming"; }

void Service::check_journal_space(size_t more) { daemon::check_journal_space(cfg_, more); }

// One witness named by path: a regular file opened beneath one of witness_dirs (see
// witness_files.hpp) whose headers fit the circuit (its values are checked when it is read to be
// proved). Returns its path as the journal keeps it, and its identity.
v1::WitnessPath Service::witness_path(size_t index, const std::string& path, const std::string& circuit) {
  const std::string name = "partition " + std::to_string(index);
  try {
    auto f = witness_dirs_->open(path);
    const auto h = f->header();
    check_witness_shape(name, h.curve, h.n_witness, circuit);
    const FileIdentity& id = f->identity();
    v1::WitnessPath w;
    w.set_path(f->path());
    w.set_size(id.size);
    w.set_mtime_ns(id.mtime_ns);
    w.set_dev(id.dev);
    w.set_ino(id.ino);
    w.set_ctime_ns(id.ctime_ns);
    return w;
  } catch (const Rejected&) {
    throw;
  } catch (const Error& e) {
    throw Rejected(Rejected::InvalidArgument, name + ": " + e.what());
  }
}

// Witnesses named by path (daemon.witness_dirs): nothing of them is copied; the journal keeps
// their names and identities, and the engine reads each in place when it proves it.
v1::SubmitProofResponse Service::submit_paths(const v1::SubmitProofRequest& req, uint64_t req_digest) {
  if (req.partitions_size() > 0)
    throw Rejected(Rejected::InvalidArgument, "a request gives partitions or partition_paths, not both");
  if (farm_)
    throw Rejected(Rejected::InvalidArgument,
                   "a farm takes no witness paths (another host may prove the partition): send the witnesses");
  if (witness_dirs_->empty())
    throw Rejected(Rejected::InvalidArgument, "this daemon takes no witness paths (daemon.witness_dirs is empty)");
  validate_head(req, size_t(req.partition_paths_size()));
  std::vector<v1::WitnessPath> paths;
  for (int i = 0; i < req.partition_paths_size(); ++i)
    paths.push_back(witness_path(size_t(i), req.partition_paths(i), req.circuit_id()));
  std::lock_guard accept(submit_mu_);
  if (auto known = existing(req, req_digest)) return *known;  // raced with the same request_id
  auto j = new_job(req, req_digest, uint32_t(paths.size()));
  for (auto& p : paths) *j->job.add_partition_paths() = p;
  return journal_and_run(j);
}

// Refuses when the daemon is stopping; the job that the request's request_id already has (the
// farm's request ids live in the database: look_up false), if any.
std::optional<v1::SubmitProofResponse> Service::existing(const v1::SubmitProofRequest& req, uint64_t req_digest,
                                                         bool look_up) {
  std::lock_guard lk(mu_);
  if (stopping_) throw Rejected(Rejected::Unavailable, "the daemon is stopping");
  if (!look_up || req.request_id().empty()) return std::nullopt;
  auto it = by_request_.find(req.request_id());
  if (it == by_request_.end()) return std::nullopt;
  const Job& j = *jobs_.at(it->second);
  return same_request(req, req_digest, j.job.job_id(), j.job.request_digest(),
                      ", circuit '" + j.job.circuit_id() + "', " + std::to_string(j.partitions) + " partitions");
}

v1::SubmitProofResponse Service::submit(const v1::SubmitProofRequest& req) {
  const uint64_t req_digest = digest(req);  // hashed outside the lock (witnesses may be large)
  if (auto known = existing(req, req_digest, !farm_)) return *known;
  if (req.partition_paths_size() > 0) return submit_paths(req, req_digest);
  const size_t bytes = validate(req);
  if (farm_) return farm_submit(req, req_digest);
  std::lock_guard accept(submit_mu_);
  if (auto known = existing(req, req_digest)) return *known;  // raced with the same request_id
  budget_.check(bytes);
  check_journal_space(bytes);
  auto j = new_job(req, req_digest, uint32_t(req.partitions_size()));
  for (auto& w : req.partitions()) j->job.add_partitions(w);
  return journal_and_run(j);
}

// A job of this request, not yet journaled.
std::shared_ptr<Service::Job> Service::new_job(const v1::SubmitProofRequest& head, uint64_t req_digest,
                                               uint32_t partitions) {
  auto j = std::make_shared<Job>();
  j->job.set_job_id(new_job_id());
  j->job.set_request_id(head.request_id());
  j->job.set_circuit_id(head.circuit_id());
  j->job.set_priority(head.priority());
  j->job.set_accepted_unix_ms(unix_ms());
  j->job.set_request_digest(req_digest);
  j->partitions = partitions;
  return j;
}

// Journals an accepted job (durable before the answer), then runs it.
v1::SubmitProofResponse Service::journal_and_run(std::shared_ptr<Job> j) {
  try {
    journal_->accept(j->job);
  } catch (const std::exception& e) {
    throw Rejected(Rejected::Unavailable, std::string("cannot journal the job: ") + e.what());
  }
  return run_accepted(j);
}

// A journaled job: known by its ids from now on, and handed to the engine.
v1::SubmitProofResponse Service::run_accepted(std::shared_ptr<Job> j) {
  {
    std::lock_guard lk(mu_);
    jobs_[j->job.job_id()] = j;
    if (!j->job.request_id().empty()) by_request_[j->job.request_id()] = j->job.job_id();
  }
  stats_.submitted();
  start(j);
  v1::SubmitProofResponse resp;
  resp.set_job_id(j->job.job_id());
  return resp;
}

std::shared_ptr<Service::Job> Service::find(const std::string& job_id, const std::string& request_id) {
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

v1::JobResult Service::await(const v1::AwaitProofRequest& req) {
  if (farm_) return farm_await(req);
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
      r = engine_->await(eid, 0.0);
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

v1::CancelProofResponse Service::cancel(const v1::CancelProofRequest& req) {
  if (farm_) return farm_cancel(req);
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
  resp.set_cancelled(engine_->cancel(eid));
  lk.lock();
  cv_.wait_for(lk, std::chrono::seconds(10), [&] { return j->ended; });
  resp.set_state(j->ended ? j->result.state() : v1::CANCELLED);
  return resp;
}

bool Service::stopped() {
  std::lock_guard lk(mu_);
  return stopped_;
}

void Service::count_rejected() { stats_.rejected(); }

v1::GetStatusResponse Service::status() {
  v1::GetStatusResponse s;
  s.set_version(version_string());
  s.set_commit(git_commit());
  const double up = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  s.set_uptime_s(up);
  auto es = engine_->status();
  for (auto& d : es.devices) {
    auto* o = s.add_devices();
    o->set_name(d.record.name);
    o->set_description(d.record.description);
    o->set_memory_total(d.record.budget_bytes);
    o->set_memory_free(d.free_bytes);
    o->set_memory_reserved(d.reserved_bytes);
    o->set_current(d.current);
    o->set_busy_fraction(up > 0 ? d.record.busy_ms / (up * 1000) : 0);
    o->set_partitions(d.record.partitions);
    for (auto& k : d.resident_keys) o->add_resident_keys(k);
  }
  for (auto& [id, c] : circuits_) {
    auto* k = s.add_keys();
    k->set_circuit_id(id);
    k->set_tier("host");
    k->set_bytes(c->key_bytes());
    for (auto& d : es.devices)
      for (auto& rk : d.resident_keys)
        if (rk == id) {
          auto* g = s.add_keys();
          g->set_circuit_id(id);
          g->set_tier("device:" + d.record.name);
          g->set_bytes(c->key_bytes());
        }
  }
  s.set_queued_synthesis(es.queued_synthesis);
  s.set_queued_ready(es.queued_ready);
  s.set_running_partitions(es.running);
  if (farm_) farm_status(s);  // database reads: never under mu_
  std::lock_guard lk(mu_);
  s.set_jobs_active(active_);
  *s.mutable_counters() = stats_.counters();
  s.mutable_counters()->set_partitions_retried(es.partitions_retried);
  s.mutable_counters()->set_partitions_done(es.partitions_done);  // as each partition ends
  s.set_queue_backend(cfg_.queue_backend);
  return s;
}

std::string Service::status_json() { return status_json(status()); }

std::string Service::status_json(const v1::GetStatusResponse& s) {
  using io::JsonValue;
  auto jint = [](uint64_t v) { return JsonValue::number(std::to_string(v)); };
  auto jnum = [](double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", std::isfinite(v) ? v : 0.0);
    return JsonValue::number(b);
  };
  JsonValue o = JsonValue::object();
  o.add("version", JsonValue::string(s.version()));
  o.add("commit", JsonValue::string(s.commit()));
  o.add("uptime_s", jnum(s.uptime_s()));
  JsonValue devs = JsonValue::array();
  for (auto& d : s.devices()) {
    JsonValue x = JsonValue::object();
    x.add("name", JsonValue::string(d.name()));
    x.add("description", JsonValue::string(d.description()));
    x.add("memory_total", jint(d.memory_total()));
    x.add("memory_free", jint(d.memory_free()));
    x.add("memory_reserved", jint(d.memory_reserved()));
    x.add("current", JsonValue::string(d.current()));
    x.add("busy_fraction", jnum(d.busy_fraction()));
    x.add("partitions", jint(d.partitions()));
    JsonValue rk = JsonValue::array();
    for (auto& k : d.resident_keys()) rk.items.push_back(JsonValue::string(k));
    x.add("resident_keys", rk);
    devs.items.push_back(x);
  }
  o.add("devices", devs);
  JsonValue keys = JsonValue::array();
  for (auto& k : s.keys()) {
    JsonValue x = JsonValue::object();
    x.add("circuit_id", JsonValue::string(k.circuit_id()));
    x.add("tier", JsonValue::string(k.tier()));
    x.add("bytes", jint(k.bytes()));
    keys.items.push_back(x);
  }
  o.add("keys", keys);
  JsonValue q = JsonValue::object();
  q.add("synthesis", jint(s.queued_synthesis()));
  q.add("ready", jint(s.queued_ready()));
  q.add("running_partitions", jint(s.running_partitions()));
  q.add("jobs_active", jint(s.jobs_active()));
  o.add("queues", q);
  JsonValue c = JsonValue::object();
  const auto& k = s.counters();
  c.add("jobs_submitted", jint(k.jobs_submitted()));
  c.add("jobs_done", jint(k.jobs_done()));
  c.add("jobs_failed", jint(k.jobs_failed()));
  c.add("jobs_cancelled", jint(k.jobs_cancelled()));
  c.add("jobs_recovered", jint(k.jobs_recovered()));
  c.add("partitions_done", jint(k.partitions_done()));
  c.add("partitions_retried", jint(k.partitions_retried()));
  c.add("requests_rejected", jint(k.requests_rejected()));
  o.add("counters", c);
  o.add("queue_backend", JsonValue::string(s.queue_backend()));
  if (s.has_farm()) {
    const auto& f = s.farm();
    JsonValue fj = JsonValue::object();
    fj.add("host_id", JsonValue::string(f.host_id()));
    JsonValue hosts = JsonValue::array();
    for (auto& h : f.hosts()) {
      JsonValue x = JsonValue::object();
      x.add("host_id", JsonValue::string(h.host_id()));
      x.add("devices", JsonValue::string(h.devices()));
      x.add("circuits", JsonValue::string(h.circuits()));
      x.add("heartbeat_age_s", jnum(h.heartbeat_age_s()));
      x.add("claims", jint(h.claims()));
      hosts.items.push_back(x);
    }
    fj.add("hosts", hosts);
    fj.add("jobs_queued", jint(f.jobs_queued()));
    fj.add("jobs_running", jint(f.jobs_running()));
    fj.add("partitions_queued", jint(f.partitions_queued()));
    fj.add("partitions_claimed", jint(f.partitions_claimed()));
    fj.add("partitions_expired", jint(f.partitions_expired()));
    fj.add("completed_here", jint(f.completed_here()));
    fj.add("refused_here", jint(f.refused_here()));
    fj.add("released_here", jint(f.released_here()));
    o.add("farm", fj);
  }
  return io::to_json(o);
}

std::string Service::metrics_text() {
  v1::GetStatusResponse s = status();
  MetricsText m;
  auto family = [&](const char* name, const char* type, const char* help) { m.family(name, type, help); };
  auto sample = [&](const char* name, const std::string& labels, double v) { m.sample(name, labels, v); };
  auto esc = MetricsText::escape;
  family("cuzk_build_info", "gauge", "Version and commit of the running cuzk.");
  sample("cuzk_build_info", "version=\"" + esc(s.version()) + "\",commit=\"" + esc(s.commit()) + "\"", 1);
  family("cuzk_uptime_seconds", "gauge", "Seconds since the daemon started.");
  sample("cuzk_uptime_seconds", "", s.uptime_s());
  const auto& k = s.counters();
  family("cuzk_jobs_total", "counter", "Jobs by how they ended (submitted counts acceptances).");
  sample("cuzk_jobs_total", "state=\"submitted\"", double(k.jobs_submitted()));
  sample("cuzk_jobs_total", "state=\"done\"", double(k.jobs_done()));
  sample("cuzk_jobs_total", "state=\"failed\"", double(k.jobs_failed()));
  sample("cuzk_jobs_total", "state=\"cancelled\"", double(k.jobs_cancelled()));
  sample("cuzk_jobs_total", "state=\"recovered\"", double(k.jobs_recovered()));
  family("cuzk_partitions_total", "counter", "Partitions proved, and retried on another device.");
  sample("cuzk_partitions_total", "outcome=\"done\"", double(k.partitions_done()));
  sample("cuzk_partitions_total", "outcome=\"retried\"", double(k.partitions_retried()));
  family("cuzk_requests_rejected_total", "counter", "Requests refused (bad input, unauthenticated, stopping).");
  sample("cuzk_requests_rejected_total", "", double(k.requests_rejected()));
  family("cuzk_jobs_active", "gauge", "Jobs accepted and not ended.");
  sample("cuzk_jobs_active", "", double(s.jobs_active()));
  family("cuzk_queue_depth", "gauge", "Partitions waiting, by queue.");
  sample("cuzk_queue_depth", "queue=\"synthesis\"", double(s.queued_synthesis()));
  sample("cuzk_queue_depth", "queue=\"ready\"", double(s.queued_ready()));
  sample("cuzk_queue_depth", "queue=\"running\"", double(s.running_partitions()));
  const Stats::Phases ph = stats_.phases();
  family("cuzk_partition_phase_seconds", "histogram",
         "Phases of the partitions proved here: queue, synthesis, stage (budget_wait is part of it), lock_wait, "
         "kernels, finish.");
  for (int p = 0; p < Stats::kPhases; ++p) {
    const std::string l = std::string("phase=\"") + Stats::kPhaseNames[p] + "\"";
    uint64_t cum = 0;
    for (int b = 0; b < Stats::kBuckets; ++b) {
      cum += ph.buckets[p][b];
      char le[32];
      if (b < Stats::kBuckets - 1) std::snprintf(le, sizeof le, "%g", Stats::kPhaseBounds[b]);
      else std::snprintf(le, sizeof le, "+Inf");
      sample("cuzk_partition_phase_seconds_bucket", l + ",le=\"" + le + "\"", double(cum));
    }
    sample("cuzk_partition_phase_seconds_sum", l, ph.sum[p]);
    sample("cuzk_partition_phase_seconds_count", l, double(ph.count));
  }
  family("cuzk_device_memory_bytes", "gauge", "Device memory budget, free and reserved, bytes.");
  for (auto& d : s.devices()) {
    const std::string l = "device=\"" + esc(d.name()) + "\",kind=";
    sample("cuzk_device_memory_bytes", l + "\"budget\"", double(d.memory_total()));
    sample("cuzk_device_memory_bytes", l + "\"free\"", double(d.memory_free()));
    sample("cuzk_device_memory_bytes", l + "\"reserved\"", double(d.memory_reserved()));
  }
  family("cuzk_device_busy_ratio", "gauge", "Share of the uptime the device's kernel lock was held.");
  for (auto& d : s.devices()) sample("cuzk_device_busy_ratio", "device=\"" + esc(d.name()) + "\"", d.busy_fraction());
  family("cuzk_device_partitions_total", "counter", "Partitions whose kernels ran on the device.");
  for (auto& d : s.devices())
    sample("cuzk_device_partitions_total", "device=\"" + esc(d.name()) + "\"", double(d.partitions()));
  family("cuzk_device_resident_keys", "gauge", "Proving keys resident on the device.");
  for (auto& d : s.devices())
    sample("cuzk_device_resident_keys", "device=\"" + esc(d.name()) + "\"", double(d.resident_keys_size()));
  if (s.has_farm()) {
    const auto& f = s.farm();
    family("cuzk_farm_hosts", "gauge", "Daemons of the farm that have sent a heartbeat, by age of the last one.");
    int fresh = 0, stale = 0;
    for (auto& h : f.hosts()) (h.heartbeat_age_s() < 3 * cfg_.lease_s ? fresh : stale) += 1;
    sample("cuzk_farm_hosts", "heartbeat=\"recent\"", fresh);
    sample("cuzk_farm_hosts", "heartbeat=\"old\"", stale);
    family("cuzk_farm_partitions", "gauge", "Partitions of unfinished jobs in the shared queue, by state.");
    sample("cuzk_farm_partitions", "state=\"queued\"", f.partitions_queued());
    sample("cuzk_farm_partitions", "state=\"claimed\"", f.partitions_claimed());
    sample("cuzk_farm_partitions", "state=\"expired\"", f.partitions_expired());
    family("cuzk_farm_results_total", "counter", "Partitions this daemon finished, by what the queue made of the result.");
    sample("cuzk_farm_results_total", "outcome=\"completed\"", double(f.completed_here()));
    sample("cuzk_farm_results_total", "outcome=\"refused\"", double(f.refused_here()));
    sample("cuzk_farm_results_total", "outcome=\"released\"", double(f.released_here()));
  }
  return m.text();
}

v1::SrsResponse Service::preload(const v1::SrsRequest& req) {
  if (!circuits_.count(req.circuit_id())) throw Rejected(Rejected::InvalidArgument, "unknown circuit '" + req.circuit_id() + "'");
  v1::SrsResponse r;
  if (req.device().empty()) {  // every device at once
    const auto out = engine_->preload_all(req.circuit_id());
    std::string loaded;
    for (auto& o : out)
      if (o.error.empty()) loaded += (loaded.empty() ? "" : ", ") + o.device;
    for (auto& o : out) {
      if (o.error.empty()) continue;
      const std::string m = o.error + " (loaded on: " + (loaded.empty() ? "no device" : loaded) + ")";
      if (o.invalid_argument) throw Rejected(Rejected::InvalidArgument, m);
      throw Error(m);
    }
    for (auto& o : out) r.add_devices(o.device);
    return r;
  }
  for (auto& d : engine_->device_records()) {
    if (d.name != req.device()) continue;
    try {
      engine_->preload(req.circuit_id(), d.name);
    } catch (const InvalidArgument& e) {
      throw Rejected(Rejected::InvalidArgument, e.what());
    }
    r.add_devices(d.name);
  }
  if (r.devices_size() == 0) throw Rejected(Rejected::InvalidArgument, "unknown device '" + req.device() + "'");
  return r;
}

v1::SrsResponse Service::evict(const v1::SrsRequest& req) {
  if (!circuits_.count(req.circuit_id())) throw Rejected(Rejected::InvalidArgument, "unknown circuit '" + req.circuit_id() + "'");
  v1::SrsResponse r;
  bool known_device = req.device().empty();
  for (auto& d : engine_->device_records()) {
    if (!req.device().empty() && d.name != req.device()) continue;
    known_device = true;
    if (engine_->evict(req.circuit_id(), d.name)) r.add_devices(d.name);
  }
  if (!known_device) throw Rejected(Rejected::InvalidArgument, "unknown device '" + req.device() + "'");
  return r;
}

void Service::prune_loop() {
  std::unique_lock lk(mu_);
  const double period = std::clamp(cfg_.keep_results_s / 4, 0.05, 60.0);
  while (!stopping_) {
    cv_.wait_for(lk, std::chrono::duration<double>(period), [&] { return stopping_; });
    if (stopping_) return;
    const uint64_t now = unix_ms(), keep = uint64_t(cfg_.keep_results_s * 1000);
    std::vector<std::string> gone;
    for (auto& [id, j] : jobs_)
      if (j->ended && j->ended_unix_ms + keep < now) gone.push_back(id);
    for (auto& id : gone) {
      auto j = jobs_[id];
      if (!j->job.request_id().empty()) by_request_.erase(j->job.request_id());
      jobs_.erase(id);
      journal_->remove(id);
    }
  }
}

void Service::shutdown(double grace_s) {
  if (farm_) {
    farm_stop(grace_s);
    return;
  }
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
      if (log_) log_("stopping: waiting up to " + std::to_string(int(grace_s)) + " s for " + std::to_string(active_) + " job(s)");
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
  if (log_ && !running.empty()) log_("stopping: " + std::to_string(running.size()) + " job(s) stay journaled for the next start");
  for (uint64_t id : running) engine_->cancel(id);
  std::map<std::string, std::thread> rs;
  {
    std::lock_guard lk(mu_);
    rs.swap(reapers_);
  }
  for (auto& [id, t] : rs) t.join();
  if (pruner_.joinable()) pruner_.join();
  // The engine itself goes with the Service, after the servers stopped calling into it.
}

}  // namespace cuzk::daemon
