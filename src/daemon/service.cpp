// SPDX-License-Identifier: MIT OR Apache-2.0
#include "daemon/service.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "api/keys.hpp"
#include "cuzk/prove.hpp"
#include "daemon/curio_service.hpp"
#include "daemon/service_util.hpp"
#include "io/binfile.hpp"
#include "io/json.hpp"
#include "io/wtns.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"
#include "util/time.hpp"

namespace cuzk::daemon {

using namespace detail;

Service::Service(Config cfg, Log log, const std::function<void(const std::string&)>& progress)
    : cfg_(std::move(cfg)),
      log_(std::move(log)),
      budget_(cfg_.host_budget),
      space_(cfg_.journal, cfg_.journal_reserve) {
  auto say = [&](const std::string& s) { log_(s); };
  auto step = [&](const std::string& s) {
    if (progress) progress(s);
  };
  if (cfg_.circuits.empty() && !cfg_.filecoin.configured())
    throw InvalidArgument(cfg_.source +
                          ": no circuits ([[circuits]] with an id and a zkey) and no [filecoin] params_dir: the "
                          "daemon would serve nothing");
  witness_dirs_ = std::make_unique<WitnessDirs>(cfg_.witness_dirs);
  // Devices: the config's names and sizes through the one parser (errors name the config keys).
  engine::EngineConfig ec;
  std::string list;
  for (auto& d : cfg_.devices) list += (list.empty() ? "" : ",") + d;
  ec.devices = engine::parse_device_specs(list, "devices.list");
  if (!cfg_.memory.empty()) engine::apply_memory(ec.devices, cfg_.memory, "devices.memory");
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  for (auto& d : ec.devices) {
    d.threads = std::max(1u, hw / unsigned(ec.devices.size()));
    d.sim_kernel_ms = cfg_.sim_kernel_ms;
  }
  ec.workers_per_device = cfg_.workers_per_device;
  ec.key_tables_share = cfg_.key_tables;
  ec.page_locked_witness_bytes = cfg_.page_locked;
  ec.synthesis_threads = cfg_.synthesis_threads;
  ec.verify = cfg_.verify;
  // Circuits.
  ThreadPool pool(cfg_.synthesis_threads);
  size_t nth = 0;
  for (auto& c : cfg_.circuits) {
    step("circuit '" + c.id + "' (" + std::to_string(++nth) + " of " + std::to_string(cfg_.circuits.size()) +
         "): reading " + c.zkey + (c.r1cs.empty() ? "" : " and " + c.r1cs));
    auto t0 = std::chrono::steady_clock::now();
    try {
      // The key's own lines (the insecure-setup warning, a .params's load figures) to the log.
      const auto say = [&](const std::string& line) {
        if (line.rfind("warning: ", 0) == 0)
          log_.warning("circuit '" + c.id + "': " + line.substr(9));
        else
          log_("circuit '" + c.id + "': " + line);
      };
      circuits_[c.id] = api::load_key(c.zkey, c.r1cs, pool, say, ec.devices);
    } catch (const std::exception& e) {
      throw InvalidArgument("circuit '" + c.id + "': " + e.what());
    }
    const double ms = ms_since(t0);
    auto& ci = *circuits_[c.id];
    say("circuit " + c.id + ": " + curve_name(ci.curve()) + ", 2^" + std::to_string(ci.log_n()) + " domain, " +
        std::to_string(ci.n_vars()) + " wires, key " + std::to_string(ci.key_host_bytes() >> 20) + " MiB (" + c.zkey +
        ", read in " + std::to_string(int(ms)) + " ms)");
  }
  step("starting the engine on " + list);
  engine_ = std::make_unique<engine::Engine>(ec);
  for (auto& [id, c] : circuits_) engine_->register_circuit(id, c);
  for (auto& d : engine_->device_records())
    say("device " + d.name + ": " + d.description + ", budget " + std::to_string(d.budget_bytes >> 20) + " MiB, " +
        std::to_string(d.workers) + " workers");
  for (auto& [id, c] : circuits_)
    if (std::string why = engine_->cannot_hold(id); !why.empty()) log_.warning(why + "; its jobs are refused");
  // Where the jobs live: the local journal, or a farm's database.
  const StoreContext ctx{cfg_, log_, *engine_, circuits_, *witness_dirs_, stats_, budget_, space_};
  const bool farm = cfg_.queue_backend == "postgres";
  store_ = farm ? make_farm_store(ctx) : make_journal_store(ctx);
  curio_ = std::make_unique<CurioService>(cfg_, *engine_, log_);
  step(farm ? "connecting to the farm's PostgreSQL queue (queue.dsn)"
            : "reading the journal " + cfg_.journal + " (its unfinished jobs run again)");
  store_->start();
}

Service::~Service() {
  shutdown(0);
  curio_.reset();  // cancels its jobs still running
  engine_.reset();
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
    throw Rejected(Rejected::InvalidArgument,
                   "unknown circuit '" + req.circuit_id() + "' (this daemon has: " + known + ")");
  }
  // A circuit that none of this daemon's devices can hold: refused before anything is journaled.
  if (std::string why = engine_->cannot_hold(req.circuit_id()); !why.empty())
    throw Rejected(Rejected::InvalidArgument, why);
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
    check_witness(
        "partition " + std::to_string(i),
        io::FileBytes::from_buffer("partition " + std::to_string(i), std::vector<uint8_t>(w.begin(), w.end())),
        req.circuit_id());
  }
  return bytes;
}

// A streamed submission: the witnesses are files (written by the server under incoming_dir());
// the store takes them (the journal moves them in, the farm copies them into its database).
v1::SubmitProofResponse Service::submit_files(const v1::SubmitProofRequest& head, const std::vector<std::string>& files,
                                              uint64_t req_digest) {
  store_->refuse_if_stopping();
  validate_head(head, files.size());
  Submission s{head, req_digest, Submission::Files};
  s.files = files;
  for (size_t i = 0; i < files.size(); ++i) {
    try {
      s.mapped.push_back(io::FileBytes::map(files[i]));
    } catch (const Error& e) {  // the daemon's own file: its path is for the log, not the client
      log_.warning(std::string("stream: ") + e.what());
      throw Rejected(Rejected::Unavailable, "cannot read back streamed witness " + std::to_string(i) +
                                                " (the daemon's log says why); retry later");
    }
    check_witness("partition " + std::to_string(i), s.mapped.back(), head.circuit_id());
  }
  return accepted(head, files.size(), store_->accept(std::move(s)));
}

std::string Service::incoming_dir() const { return cfg_.journal + "/incoming"; }

JournalSpace::Reservation Service::reserve_journal_space(size_t bytes) { return space_.reserve(bytes); }

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
  if (!store_->takes_paths())
    throw Rejected(Rejected::InvalidArgument,
                   "a farm takes no witness paths (another host may prove the partition): send the witnesses");
  if (witness_dirs_->empty())
    throw Rejected(Rejected::InvalidArgument, "this daemon takes no witness paths (daemon.witness_dirs is empty)");
  validate_head(req, size_t(req.partition_paths_size()));
  Submission s{req, req_digest, Submission::Paths};
  for (int i = 0; i < req.partition_paths_size(); ++i)
    s.paths.push_back(witness_path(size_t(i), req.partition_paths(i), req.circuit_id()));
  return accepted(req, size_t(req.partition_paths_size()), store_->accept(std::move(s)));
}

v1::SubmitProofResponse Service::submit(const v1::SubmitProofRequest& req) {
  const uint64_t req_digest = digest(req);  // hashed outside any lock (witnesses may be large)
  store_->refuse_if_stopping();
  // A request_id the store knows: its job, before anything is checked again.
  if (auto known = store_->existing(req, req_digest)) return *known;
  if (req.partition_paths_size() > 0) return submit_paths(req, req_digest);
  Submission s{req, req_digest, Submission::Bytes};
  s.bytes = validate(req);
  return accepted(req, size_t(req.partitions_size()), store_->accept(std::move(s)));
}

v1::SubmitProofResponse Service::accepted(const v1::SubmitProofRequest& req, size_t partitions,
                                          v1::SubmitProofResponse resp) {
  if (!resp.existing()) stats_.submitted();
  log_.debug("job " + resp.job_id() + ": " + (resp.existing() ? "already known" : "accepted") + " (circuit " +
             req.circuit_id() + ", " + std::to_string(partitions) + " partition(s)" +
             (req.request_id().empty() ? "" : ", request_id " + req.request_id()) + ")");
  return resp;
}

v1::JobResult Service::await(const v1::AwaitProofRequest& req) {
  if (req.job_id().empty() && req.request_id().empty())
    throw Rejected(Rejected::InvalidArgument, "give a job_id or a request_id");
  return store_->await(req);
}

v1::CancelProofResponse Service::cancel(const v1::CancelProofRequest& req) { return store_->cancel(req); }

bool Service::stopped() { return store_->stopped(); }

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
    for (auto& k : d.resident_keys) o->add_resident_keys(k.circuit);
  }
  for (auto& [id, c] : circuits_) {
    auto* k = s.add_keys();
    k->set_circuit_id(id);
    k->set_tier("host");
    k->set_bytes(c->key_host_bytes());
    for (auto& d : es.devices)
      for (auto& rk : d.resident_keys)
        if (rk.circuit == id) {
          auto* g = s.add_keys();
          g->set_circuit_id(id);
          g->set_tier("device:" + d.record.name);
          g->set_bytes(rk.bytes);
        }
  }
  s.set_queued_synthesis(es.queued_synthesis);
  s.set_queued_ready(es.queued_ready);
  s.set_running_partitions(es.running);
  store_->status(s);  // the farm's reads the database
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
  o.add("state", JsonValue::string("serving"));
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
  if (s.has_journal()) {
    const auto& j = s.journal();
    JsonValue jj = JsonValue::object();
    jj.add("results_kept", jint(j.results_kept()));
    jj.add("results_cached", jint(j.results_cached()));
    jj.add("quarantined", jint(j.records_quarantined()));
    jj.add("upload_bytes_reserved", jint(j.upload_bytes_reserved()));
    o.add("journal", jj);
  }
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
    fj.add("failed_here", jint(f.failed_here()));
    fj.add("stale", JsonValue::boolean(f.stale()));
    fj.add("age_s", jnum(f.age_s()));
    fj.add("jobs_unplaceable", jint(f.jobs_unplaceable()));
    fj.add("unplaceable_oldest_s", jnum(f.unplaceable_oldest_s()));
    o.add("farm", fj);
  }
  return io::to_json(o);
}

std::string Service::metrics_text() {
  v1::GetStatusResponse s = status();
  MetricsText m;
  auto esc = MetricsText::escape;
  m.family("cuzk_build_info", "gauge", "Version and commit of the running cuzk.");
  m.sample("cuzk_build_info", "version=\"" + esc(s.version()) + "\",commit=\"" + esc(s.commit()) + "\"", 1);
  m.family("cuzk_uptime_seconds", "gauge", "Seconds since the daemon started.");
  m.sample("cuzk_uptime_seconds", "", s.uptime_s());
  const auto& k = s.counters();
  m.family("cuzk_jobs_accepted_total", "counter", "Jobs accepted (SubmitProof answered with a job id).");
  m.sample("cuzk_jobs_accepted_total", "", double(k.jobs_submitted()));
  m.family("cuzk_jobs_ended_total", "counter", "Jobs ended, by outcome.");
  m.sample("cuzk_jobs_ended_total", "outcome=\"done\"", double(k.jobs_done()));
  m.sample("cuzk_jobs_ended_total", "outcome=\"failed\"", double(k.jobs_failed()));
  m.sample("cuzk_jobs_ended_total", "outcome=\"cancelled\"", double(k.jobs_cancelled()));
  m.family("cuzk_jobs_recovered_total", "counter", "Jobs taken up again from the journal after a restart.");
  m.sample("cuzk_jobs_recovered_total", "", double(k.jobs_recovered()));
  m.family("cuzk_partitions_total", "counter", "Partitions proved, and retried on another device.");
  m.sample("cuzk_partitions_total", "outcome=\"done\"", double(k.partitions_done()));
  m.sample("cuzk_partitions_total", "outcome=\"retried\"", double(k.partitions_retried()));
  m.family("cuzk_requests_rejected_total", "counter", "Requests refused (bad input, unauthenticated, stopping).");
  m.sample("cuzk_requests_rejected_total", "", double(k.requests_rejected()));
  m.family("cuzk_jobs_active", "gauge", "Jobs accepted and not ended.");
  m.sample("cuzk_jobs_active", "", double(s.jobs_active()));
  m.family("cuzk_queue_depth", "gauge", "Partitions waiting, by queue.");
  m.sample("cuzk_queue_depth", "queue=\"synthesis\"", double(s.queued_synthesis()));
  m.sample("cuzk_queue_depth", "queue=\"ready\"", double(s.queued_ready()));
  m.sample("cuzk_queue_depth", "queue=\"running\"", double(s.running_partitions()));
  const Stats::Phases ph = stats_.phases();
  m.family("cuzk_partition_phase_seconds", "histogram",
           "Phases of the partitions proved here: queue, synthesis, stage (budget_wait is part of it), lock_wait, "
           "kernels (abc, ntt_h and msm_* are parts of it), finish (verify is part of it).");
  for (int p = 0; p < Stats::kPhases; ++p) {
    const std::string l = "phase=\"" + std::string(kPhaseNames[size_t(p)]) + "\"";
    uint64_t cum = 0;
    for (int b = 0; b < Stats::kBuckets; ++b) {
      cum += ph.buckets[p][b];
      char le[32];
      if (b < Stats::kBuckets - 1)
        std::snprintf(le, sizeof le, "%g", Stats::kPhaseBounds[b]);
      else
        std::snprintf(le, sizeof le, "+Inf");
      m.sample("cuzk_partition_phase_seconds_bucket", l + ",le=\"" + le + "\"", double(cum));
    }
    m.sample("cuzk_partition_phase_seconds_sum", l, ph.sum[p]);
    m.sample("cuzk_partition_phase_seconds_count", l, double(ph.count));
  }
  m.family("cuzk_device_memory_bytes", "gauge", "Device memory budget, free and reserved, bytes.");
  for (auto& d : s.devices()) {
    const std::string l = "device=\"" + esc(d.name()) + "\",kind=";
    m.sample("cuzk_device_memory_bytes", l + "\"budget\"", double(d.memory_total()));
    m.sample("cuzk_device_memory_bytes", l + "\"free\"", double(d.memory_free()));
    m.sample("cuzk_device_memory_bytes", l + "\"reserved\"", double(d.memory_reserved()));
  }
  // Busy time as a counter: a rate() of it is the share of the time the device was busy.
  m.family("cuzk_device_busy_seconds_total", "counter", "Seconds the device's kernel lock was held (its kernels).");
  for (auto& d : s.devices())
    m.sample("cuzk_device_busy_seconds_total", "device=\"" + esc(d.name()) + "\"", d.busy_fraction() * s.uptime_s());
  m.family("cuzk_device_partitions_total", "counter", "Partitions whose kernels ran on the device.");
  for (auto& d : s.devices())
    m.sample("cuzk_device_partitions_total", "device=\"" + esc(d.name()) + "\"", double(d.partitions()));
  m.family("cuzk_device_resident_keys", "gauge", "Proving keys resident on the device.");
  for (auto& d : s.devices())
    m.sample("cuzk_device_resident_keys", "device=\"" + esc(d.name()) + "\"", double(d.resident_keys_size()));
  store_->metrics(s, m);
  curio_->metrics(m);
  process_metrics(m, started_wall_s_);
  return m.text();
}

v1::SrsResponse Service::preload(const v1::SrsRequest& req) {
  if (!circuits_.count(req.circuit_id()))
    throw Rejected(Rejected::InvalidArgument, "unknown circuit '" + req.circuit_id() + "'");
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
  if (!circuits_.count(req.circuit_id()))
    throw Rejected(Rejected::InvalidArgument, "unknown circuit '" + req.circuit_id() + "'");
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

void Service::shutdown(double grace_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  curio_->stop_accepting();
  store_->stop(grace_s);
  // Filecoin jobs are not journaled: those still running at the deadline are cancelled (Curio
  // submits them again).
  curio_->wait_idle(std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline));
}

}  // namespace cuzk::daemon
