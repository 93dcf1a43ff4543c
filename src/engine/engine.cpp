// SPDX-License-Identifier: MIT OR Apache-2.0
#include "engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <thread>

#include "backend/open.hpp"
#include "ec/curves.hpp"
#include "engine/circuit_impl.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "util/error.hpp"
#include "util/host.hpp"
#include "util/strings.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::engine {

// ------------------------------------------------------------------ names
Priority parse_priority(const std::string& s0) {
  const std::string s = to_lower(s0);
  if (s == "low") return Priority::Low;
  if (s == "normal") return Priority::Normal;
  if (s == "high") return Priority::High;
  if (s == "critical") return Priority::Critical;
  throw InvalidArgument("unknown priority '" + s0 + "' (low, normal, high, critical)");
}
const char* priority_name(Priority p) {
  switch (p) {
    case Priority::Low:
      return "low";
    case Priority::Normal:
      return "normal";
    case Priority::High:
      return "high";
    default:
      return "critical";
  }
}
const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::Queued:
      return "queued";
    case JobState::Running:
      return "running";
    case JobState::Done:
      return "done";
    case JobState::Failed:
      return "failed";
    default:
      return "cancelled";
  }
}

// ------------------------------------------------------------------ witnesses and circuits
Witness Witness::file(const std::string& path) {
  return Witness{path, [path] {
                   io::Wtns w = io::read_wtns(path);
                   return groth16::witness_scalars(w.values, w.n_witness);
                 }};
}
Witness Witness::values(std::string name, std::vector<cpu::Scalar> v) {
  auto shared = std::make_shared<std::vector<cpu::Scalar>>(std::move(v));
  return Witness{std::move(name), [shared] { return *shared; }};
}
Witness Witness::bytes(std::string name, std::vector<uint8_t> b) {
  auto shared = std::make_shared<std::vector<uint8_t>>(std::move(b));
  return Witness{name, [shared, name] {
                   auto fb = io::FileBytes::from_buffer(name, *shared);
                   io::Wtns w = io::parse_wtns(fb);
                   return groth16::witness_scalars(w.values, w.n_witness);
                 }};
}

std::shared_ptr<Circuit> make_circuit(const std::string& name, const io::ZkeyGroth16& z, std::optional<io::R1cs> cs,
                                      ThreadPool& pool) {
  if (z.curve == CurveId::bn254)
    return std::make_shared<CircuitT<ec::Bn254>>(name, groth16::load_proving_key<ec::Bn254>(z, pool), std::move(cs));
  return std::make_shared<CircuitT<ec::Bls12381>>(name, groth16::load_proving_key<ec::Bls12381>(z, pool),
                                                  std::move(cs));
}

std::shared_ptr<Circuit> make_circuit(const std::string& name, groth16::ProvingKey<ec::Bls12381> pk,
                                      std::optional<io::R1cs> cs) {
  groth16::check_key_shape(pk);
  return std::make_shared<CircuitT<ec::Bls12381>>(name, std::move(pk), std::move(cs));
}

// ------------------------------------------------------------------ the engine's state
namespace {

struct Job;

struct Part {
  std::shared_ptr<Job> job;
  uint32_t index = 0;
  int attempt = 0;
  std::string excluded;  // a device that failed it
  std::unique_ptr<PartitionWork> work;
};

struct Job {
  uint64_t id = 0, seq = 0;
  std::string circuit_id, label;
  std::shared_ptr<CircuitOps> circuit;
  Priority priority = Priority::Normal;
  std::vector<Witness> witnesses;
  JobState state = JobState::Queued;
  std::atomic<bool> stop{false};  // set when the job ends: its partitions stop between phases
  std::string error;
  FailureKind failure = FailureKind::None;  // of the partition that failed it
  std::vector<std::optional<ProofData>> proofs;
  std::vector<PartitionRecord> records;
  size_t finished = 0;
  double submitted_ms = 0, ended_ms = 0;
  bool ended() const { return state == JobState::Done || state == JobState::Failed || state == JobState::Cancelled; }
};

// Order: the higher priority (CRITICAL, HIGH, NORMAL, LOW), then the oldest job, then the lowest
// partition.
bool before(const Part& a, const Part& b) {
  if (a.job->priority != b.job->priority) return int(a.job->priority) > int(b.job->priority);
  if (a.job->seq != b.job->seq) return a.job->seq < b.job->seq;
  return a.index < b.index;
}

std::string bytes_text(size_t b) { return std::to_string(b) + " bytes"; }

}  // namespace

struct Engine::Impl {
  // A key made resident on a device: uploaded once (outside `mu`) by the first stage that needs it.
  struct KeySlot {
    std::mutex m;
    std::shared_ptr<void> handle;
    groth16::KeyTables tables;  // how its MSMs run, fixed when the slot is made
  };
  struct Resident {
    size_t bytes = 0;
    int users = 0;  // partitions (and preloads) between their reservation and its release
    std::shared_ptr<KeySlot> slot;
  };

  struct Device {
    std::shared_ptr<backend::Device> dev;
    std::string name;
    int workers = 1;
    std::mutex lock;  // the kernel lock: one partition's kernels at a time, this device only
    // Guarded by Impl::mu:
    size_t budget = 0, reserved = 0;
    std::list<std::string> lru;  // resident keys, most recent first
    std::map<std::string, Resident> keys;
    std::map<std::string, Footprint> footprints;       // by circuit
    std::map<std::string, groth16::KeyTables> tables;  // by circuit: the MSM tables of its resident key
    std::string current;
    double busy_ms = 0;
    double device_ms = -1;  // the partitions' kernel phases on the device's clock; -1: none yet
    size_t partitions = 0;
    size_t active = 0;  // partitions its workers took and have not ended
    std::condition_variable budget_cv;
  };

  // What a partition holds of a device between its reservation and the release.
  struct Reservation {
    size_t bytes = 0;
    bool streamed = false;
    std::string key;                 // the resident key it uses ("" when streamed, or for device work)
    groth16::KeyTables tables = {};  // that key's MSM tables
    size_t chunk = 0;                // streamed: points of each MSM piece
  };

  EngineConfig cfg;
  SteadyClock::time_point epoch = SteadyClock::now();
  mutable std::mutex mu;
  std::condition_variable cv;         // queues and job state changes
  std::atomic<bool> stopping{false};  // read without mu by partitions between their phases
  std::map<std::string, std::shared_ptr<CircuitOps>> circuits;
  std::map<uint64_t, std::shared_ptr<Job>> jobs;
  uint64_t next_id = 1;
  std::vector<std::unique_ptr<Part>> synth_queue;
  std::vector<std::unique_ptr<Part>> ready;
  size_t synth_running = 0, running = 0;
  // The page-locked witness buffers asked of the devices (Device::keep_page_locked): the
  // largest witness of the circuits given room, as many as the most any needs, within the bound.
  size_t keep_bytes = 0, keep_count = 0;
  size_t synth_direct = 0;  // of synth_running: those that will find a worker free (page-locked memory)
  size_t jobs_done = 0, jobs_failed = 0, partitions_done = 0, partitions_retried = 0;
  std::vector<std::unique_ptr<Device>> devices;
  std::unique_ptr<ThreadPool> synth_pool;
  std::vector<std::thread> threads;

  double now() const { return ms_since(epoch); }
  PhaseTimer timer(PartitionRecord& rec) const {
    return PhaseTimer{[this] { return now(); }, &rec.spans};
  }

  Device* find_device(const std::string& name) const {
    for (auto& d : devices)
      if (d->name == name) return d.get();
    return nullptr;
  }
  Device& device(const std::string& name) const {
    if (Device* d = find_device(name)) return *d;
    throw InvalidArgument("unknown device '" + name + "'");
  }

  void fault(Phase ph, const std::string& dev, const Part& p) {
    if (cfg.fault) cfg.fault(ph, dev, p.job->id, p.index, p.attempt);
  }

  // ---------------------------------------------------------------- jobs (under mu)
  void end_job(Job& j, JobState s, const std::string& err) {
    if (j.ended()) return;
    j.state = s;
    j.error = err;
    j.ended_ms = now();
    j.stop = true;
    if (s == JobState::Done) ++jobs_done;
    if (s == JobState::Failed) ++jobs_failed;
    j.witnesses.clear();
    auto drop = [&](std::vector<std::unique_ptr<Part>>& q) {
      q.erase(std::remove_if(q.begin(), q.end(), [&](const auto& p) { return p->job.get() == &j; }), q.end());
    };
    drop(synth_queue);
    drop(ready);
    for (auto& d : devices) d->budget_cv.notify_all();  // a partition of it may wait for a budget
    cv.notify_all();
  }

  // Whether some device other than `excluded` can run partitions of `cid`.
  bool another_can_hold(const std::string& cid, const std::string& excluded) const {
    for (auto& d : devices)
      if (d->name != excluded && d->footprints.at(cid).fits()) return true;
    return false;
  }

  std::string cannot_hold(const std::string& cid) const {
    std::string why;
    for (auto& d : devices) {
      const Footprint& f = d->footprints.at(cid);
      if (f.fits()) return "";
      why += (why.empty() ? "" : "; ") + d->name + " needs " + bytes_text(f.working_set_streamed) +
             " with the key streamed (" + bytes_text(f.key + f.working_set) + " with it resident), its budget is " +
             bytes_text(f.budget);
    }
    return "no device can hold a partition of " + cid + ": " + why;
  }

  // A device fault is retried once on another device; anything else (or a second fault) fails the
  // job with `kind`.
  void fail_partition(Part& p, const std::string& err, bool device_fault, FailureKind kind, const std::string& dev) {
    std::unique_lock lk(mu);
    Job& j = *p.job;
    PartitionRecord& rec = j.records[p.index];
    rec.ok = false;
    rec.error = err;
    rec.failure = kind;
    if (j.ended()) return;
    if (device_fault && p.attempt < 2 && another_can_hold(j.circuit_id, dev)) {
      // Retry once on another device: back to synthesis (its work was consumed).
      ++partitions_retried;
      auto again = std::make_unique<Part>();
      again->job = p.job;
      again->index = p.index;
      again->attempt = p.attempt + 1;
      again->excluded = dev;
      rec.error.clear();
      rec.failure = FailureKind::None;
      synth_queue.push_back(std::move(again));
      cv.notify_all();
      return;
    }
    j.failure = kind;
    end_job(j, JobState::Failed,
            "partition " + std::to_string(p.index) + (dev.empty() ? "" : " on " + dev) + ": " + err);
  }

  // ---------------------------------------------------------------- synthesis
  // Whether a partition of `circuit` whose synthesis starts now will find a worker free: more
  // free workers of devices that can hold the circuit than partitions ready or being
  // synthesized for one (under mu). That happens when a burst of work begins (or the queue ran
  // dry): its stage then lies on the device's critical path, not beside another partition's
  // kernels.
  bool finds_free_worker(const std::string& circuit) const {
    size_t free = 0;
    for (auto& d : devices) {
      auto it = d->footprints.find(circuit);
      if (it != d->footprints.end() && it->second.fits())
        free += size_t(d->workers) - std::min(d->active, size_t(d->workers));
    }
    return free > ready.size() + synth_direct;
  }
  // Whether `c`'s witnesses may go to page-locked memory at all (EngineConfig::page_locked_witness_bytes).
  bool page_locked_witnesses(const CircuitOps& c) const {
    return page_locked_witness_room(cfg, size_t(c.n_vars()) * sizeof(cpu::Scalar)) > 0;
  }
  // A free page-locked buffer of any device's (they serve every device of their backend).
  CircuitOps::WitnessMemory page_locked_memory() const {
    return [this](size_t bytes) {
      for (auto& d : devices)
        if (auto m = d->dev->page_locked_buffer(bytes)) return m;
      return std::shared_ptr<void>();
    };
  }

  void synth_loop() {
    for (;;) {
      std::unique_ptr<Part> p;
      Witness wit;          // a copy: cancelling the job clears its witnesses while this one loads
      bool direct = false;  // into page-locked memory where some is free
      {
        std::unique_lock lk(mu);
        size_t workers = 0;
        for (auto& d : devices) workers += size_t(d->workers);
        const size_t cap = cfg.max_synthesized ? cfg.max_synthesized : 2 * workers;
        cv.wait(lk, [&] { return stopping || (!synth_queue.empty() && ready.size() + synth_running < cap); });
        if (stopping) return;
        auto it = std::min_element(synth_queue.begin(), synth_queue.end(),
                                   [](const auto& a, const auto& b) { return before(*a, *b); });
        p = std::move(*it);
        synth_queue.erase(it);
        ++synth_running;
        if (p->job->state == JobState::Queued) p->job->state = JobState::Running;
        PartitionRecord& rec = p->job->records[p->index];
        rec.spans[Phase::Queue].end_ms = now();
        rec.spans[Phase::Synthesis] = Span{now(), -1};
        wit = p->job->witnesses.at(p->index);
        direct = page_locked_witnesses(*p->job->circuit) && finds_free_worker(p->job->circuit_id);
        synth_direct += direct;
      }
      std::string err;
      FailureKind kind = FailureKind::BadInput;
      try {
        fault(Phase::Synthesis, "", *p);
        p->work = p->job->circuit->synthesize(wit, cfg.use_pce, *synth_pool,
                                              direct ? page_locked_memory() : CircuitOps::WitnessMemory{});
      } catch (const Error& e) {  // the witness: unreadable, malformed, not a solution
        err = e.what();
      } catch (const std::exception& e) {  // the host's (out of memory): not retried here, but transient
        err = e.what(), kind = FailureKind::Transient;
      }
      std::unique_lock lk(mu);
      --synth_running;
      synth_direct -= direct;
      p->job->records[p->index].spans[Phase::Synthesis].end_ms = now();
      if (!err.empty()) {
        lk.unlock();
        fail_partition(*p, err, false, kind, "");
        continue;
      }
      if (p->job->ended()) continue;
      ready.push_back(std::move(p));
      cv.notify_all();
    }
  }

  // ---------------------------------------------------------------- budgets
  // The least recently used resident key that no partition uses, other than `keep`; "" if none.
  static std::string idle_key(const Device& d, const std::string& keep) {
    for (auto it = d.lru.rbegin(); it != d.lru.rend(); ++it)
      if (*it != keep && d.keys.at(*it).users == 0) return *it;
    return "";
  }

  // Evicts `cid` from d. The key's memory is freed (which may wait for the device) with `mu`
  // released, and its bytes go back to the budget only once it is free; then waiters are woken.
  void evict(Device& d, const std::string& cid, std::unique_lock<std::mutex>& lk) {
    Resident r = std::move(d.keys.at(cid));
    d.keys.erase(cid);
    d.lru.remove(cid);
    lk.unlock();
    r.slot.reset();  // the last handle: the device memory goes (no partition uses it)
    lk.lock();
    d.reserved -= r.bytes;
    d.budget_cv.notify_all();
  }

  // Reserves a partition's working set on d (and its key's memory when the key becomes
  // resident), evicting idle keys of any circuit when that makes room, waiting while other
  // partitions hold the rest. Resident mode when key and working set fit the budget together,
  // else streamed; InvalidArgument when neither can ever fit. `must_be_resident`: a preload.
  // `before_waiting` runs once (with `lk` released), the first time the reservation must wait.
  Reservation reserve(Device& d, const std::string& cid, std::unique_lock<std::mutex>& lk, const Job* job,
                      bool must_be_resident = false, const std::function<void()>& before_waiting = {}) {
    const Footprint f = d.footprints.at(cid);
    if (!f.fits() || (must_be_resident && !f.resident()))
      throw InvalidArgument("does not fit on " + d.name + ": the partition needs " +
                            bytes_text(f.working_set_streamed) + " of device memory with the key streamed (" +
                            bytes_text(f.key + f.working_set) + " with the key resident), the device's budget is " +
                            bytes_text(d.budget));
    const bool resident_mode = f.resident();
    bool asked = !before_waiting;
    for (;;) {
      if (stopping) throw Cancelled("the engine is stopping");
      if (job && job->stop) throw Cancelled("cancelled");
      const bool has_key = d.keys.count(cid) != 0;
      const size_t need = resident_mode ? f.working_set + (has_key ? 0 : f.key) : f.working_set_streamed;
      if (d.budget - d.reserved >= need) {
        d.reserved += need;
        if (!resident_mode) return {f.working_set_streamed, true, "", {}, f.stream_chunk};
        if (!has_key) {
          auto slot = std::make_shared<KeySlot>();
          slot->tables = d.tables.at(cid);
          d.keys[cid] = Resident{f.key, 0, std::move(slot)};
        }
        d.lru.remove(cid);
        d.lru.push_front(cid);
        Resident& r = d.keys.at(cid);
        ++r.users;
        return {f.working_set, false, cid, r.slot->tables};
      }
      if (std::string victim = idle_key(d, cid); !victim.empty()) {
        evict(d, victim, lk);
        continue;
      }
      if (!asked) {  // then look again: the memory may have come back meanwhile
        asked = true;
        lk.unlock();
        before_waiting();
        lk.lock();
        continue;
      }
      d.budget_cv.wait(lk);
    }
  }

  // Reserves `bytes` on d for work that is not a partition (no key of its own).
  void reserve_bytes(Device& d, size_t bytes, const std::string& what, std::unique_lock<std::mutex>& lk) {
    if (bytes > d.budget)
      throw InvalidArgument("does not fit on " + d.name + ": " + what + " needs " + bytes_text(bytes) +
                            " of device memory, the device's budget is " + bytes_text(d.budget));
    for (;;) {
      if (stopping) throw Cancelled("the engine is stopping");
      if (d.budget - d.reserved >= bytes) {
        d.reserved += bytes;
        return;
      }
      if (std::string victim = idle_key(d, ""); !victim.empty()) {
        evict(d, victim, lk);
        continue;
      }
      d.budget_cv.wait(lk);
    }
  }

  // Gives a reservation back (under mu). Whatever device memory it covered must be free already.
  void release(Device& d, const Reservation& r) {
    d.reserved -= r.bytes;
    if (!r.key.empty()) --d.keys.at(r.key).users;
    d.budget_cv.notify_all();
  }

  // The key of `cid` on d, uploading it if this is its first use (one upload per device, outside
  // `mu`, while other circuits run on). The caller holds a reservation that uses the key.
  std::shared_ptr<void> resident_key(Device& d, const std::string& cid, const CircuitOps& c) {
    std::shared_ptr<KeySlot> slot;
    {
      std::lock_guard lk(mu);
      slot = d.keys.at(cid).slot;
    }
    std::lock_guard kl(slot->m);
    if (!slot->handle) slot->handle = c.upload_key(*d.dev, slot->tables);
    return slot->handle;
  }

  // With d's kernel lock held: runs `fn` as d's current work ("what"), spanning `span`; the
  // time counts in d's busy time whether fn returns or throws.
  void busy(Device& d, std::string what, Span& span, const std::function<void()>& fn) {
    span.start_ms = now();
    {
      std::lock_guard lk(mu);
      d.current = std::move(what);
    }
    auto end = [&] {
      span.end_ms = now();
      std::lock_guard lk(mu);
      d.current.clear();
      d.busy_ms += span.ms();
    };
    try {
      fn();
    } catch (...) {
      end();
      throw;
    }
    end();
  }

  // ---------------------------------------------------------------- workers
  // The best ready partition that d can run (and has not failed on d), or ready.end().
  std::vector<std::unique_ptr<Part>>::iterator eligible(const Device& d) {
    auto best = ready.end();
    for (auto i = ready.begin(); i != ready.end(); ++i)
      if ((*i)->excluded != d.name && d.footprints.at((*i)->job->circuit_id).fits() &&
          (best == ready.end() || before(**i, **best)))
        best = i;
    return best;
  }

  void worker_loop(Device& d, int worker) {
    for (;;) {
      std::unique_ptr<Part> p;
      {
        std::unique_lock lk(mu);
        cv.wait(lk, [&] { return stopping || eligible(d) != ready.end(); });
        if (stopping) return;
        auto it = eligible(d);
        p = std::move(*it);
        ready.erase(it);
        ++running, ++d.active;
        cv.notify_all();  // synthesis may refill
      }
      run_partition(d, worker, *p);  // its outcome gives the worker back
    }
  }

  // One partition on one device, step by step. Every path that gives device memory back waits for
  // the work that used it first (release_staged), and the budget goes back only after that.
  struct PartitionRun {
    Impl& I;
    Device& d;
    Part& p;
    Job& j;
    const CircuitOps& c;
    PartitionRecord rec;
    PhaseTimer timer;
    std::optional<Reservation> res;
    std::shared_ptr<void> key;
    size_t chunk = 0;

    PartitionRun(Impl& impl, Device& dev, int worker, Part& part)
        : I(impl), d(dev), p(part), j(*part.job), c(*part.job->circuit) {
      {
        std::lock_guard lk(I.mu);
        rec = j.records[p.index];
      }
      rec.device = d.name;
      rec.worker = worker;
      rec.attempts = p.attempt;
      rec.device_ms = -1;  // this attempt's, when its kernels run
      timer = I.timer(rec);
    }
    // Before each phase: the fault hook, then cancellation.
    void checkpoint(Phase next) const {
      I.fault(next, d.name, p);
      if (j.stop) throw Cancelled("cancelled");
      if (I.stopping) throw Cancelled("the engine is stopping");
    }
    // Outside the lock: the reservation (waiting for the budget), the key, the working set.
    void stage() {
      timer.begin(Phase::Stage);
      timer.begin(Phase::BudgetWait);
      {
        std::unique_lock lk(I.mu);
        // While it waits for device memory, its witness moves into page-locked memory (a copy
        // by the host, no time of the device's, no driver call), and its stage copies it from
        // there by DMA instead of through the staging buffers.
        res = I.reserve(d, j.circuit_id, lk, &j, false, [&] {
          if (!I.page_locked_witnesses(c)) return;
          try {
            c.lock_witness(*d.dev, *p.work);
          } catch (const std::exception&) {  // a copy through the staging buffers then
          }
        });
      }
      timer.end(Phase::BudgetWait);
      rec.reserved_bytes = res->bytes;
      rec.streamed = res->streamed;
      checkpoint(Phase::Stage);
      chunk = res->streamed ? res->chunk : 0;
      if (!res->streamed) key = I.resident_key(d, j.circuit_id, c);
      c.stage(*d.dev, *p.work, chunk, res->bytes, res->tables);
      timer.end(Phase::Stage);
    }
    // Under d's lock; the working set is freed (after its stream's work) inside the busy time.
    void kernels() {
      timer.begin(Phase::LockWait);
      std::lock_guard kl(d.lock);
      timer.end(Phase::LockWait);
      const groth16::Checkpoint cp = [this](Phase next) { checkpoint(next); };
      I.busy(d, "job " + j.label + " partition " + std::to_string(p.index), rec.spans[Phase::Kernels], [&] {
        checkpoint(Phase::Kernels);
        rec.device_ms = c.kernels(*d.dev, *p.work, key.get(), chunk, timer, cp);
        c.release_staged(*p.work);
      });
      std::lock_guard lk(I.mu);
      ++d.partitions;
      add_device_ms(d.device_ms, rec.device_ms);
    }
    // Device memory first, then the budget; idempotent.
    void give_back() {
      if (p.work) c.release_staged(*p.work);
      key.reset();
      if (res) {
        std::lock_guard lk(I.mu);
        I.release(d, *res);
        res.reset();
      }
    }
    ProofData finish() {
      checkpoint(Phase::Finish);
      timer.begin(Phase::Finish);
      RandomSource rs = I.cfg.seed ? RandomSource(partition_seed(*I.cfg.seed, j.id, p.index)) : RandomSource();
      ProofData proof = c.finish(*p.work, I.cfg.verify, rs, timer);
      timer.end(Phase::Finish);
      return proof;
    }
  };

  void run_partition(Device& d, int worker, Part& p) {
    PartitionRun run(*this, d, worker, p);
    std::string err;
    bool device_fault = false, cancelled = false;
    ProofData proof;
    try {
      run.stage();
      run.kernels();
      run.give_back();
      proof = run.finish();
    } catch (const Cancelled& e) {
      err = e.what(), cancelled = true;
    } catch (const DeviceFault& e) {
      err = e.what(), device_fault = true;
    } catch (const InvalidArgument& e) {
      err = e.what();
    } catch (const std::exception& e) {
      err = e.what(), device_fault = true;  // device errors, out of memory: the device's
    }
    run.give_back();
    p.work.reset();
    record_outcome(d, p, run.rec, err, device_fault, cancelled, std::move(proof));
  }

  // The partition's record and proof into its job (which may end with it), or its failure; d's
  // worker is free again first (before anyone waiting for the job sees it end).
  void record_outcome(Device& d, Part& p, PartitionRecord& rec, const std::string& err, bool device_fault,
                      bool cancelled, ProofData proof) {
    Job& j = *p.job;
    std::unique_lock lk(mu);
    --running, --d.active;
    rec.ok = err.empty();
    rec.error = err;
    j.records[p.index] = rec;
    if (cancelled) return;  // the job has ended already (or the engine stops)
    if (!err.empty()) {
      lk.unlock();
      fail_partition(p, err, device_fault, device_fault ? FailureKind::Transient : FailureKind::BadInput, d.name);
      return;
    }
    if (j.ended()) return;
    j.proofs[p.index] = std::move(proof);
    ++partitions_done;
    if (++j.finished == j.proofs.size()) end_job(j, JobState::Done, "");
  }

  // ---------------------------------------------------------------- devices
  void add_device(std::shared_ptr<backend::Device> dev, const DeviceSpec& spec) {
    auto d = std::make_unique<Device>();
    d->dev = std::move(dev);
    d->name = d->dev->name();
    d->workers = spec.workers > 0 ? spec.workers : cfg.workers_per_device;
    if (d->workers < 1 || d->workers > 16)
      throw InvalidArgument("workers per device must be 1..16, got " + std::to_string(d->workers));
    d->budget = spec.memory ? spec.memory : d->dev->default_budget();
    if (find_device(d->name)) throw InvalidArgument("device " + d->name + " is listed twice");
    devices.push_back(std::move(d));
  }

  void start_threads() {
    synth_pool = std::make_unique<ThreadPool>(cfg.synthesis_threads);
    size_t workers = 0;
    for (auto& d : devices) workers += size_t(d->workers);
    const unsigned synth_workers = cfg.synthesis_workers ? cfg.synthesis_workers : std::max(2u, unsigned(workers));
    for (unsigned i = 0; i < synth_workers; ++i) threads.emplace_back([this] { synth_loop(); });
    for (auto& d : devices)
      for (int w = 0; w < d->workers; ++w) threads.emplace_back([this, dp = d.get(), w] { worker_loop(*dp, w); });
  }
};

// ------------------------------------------------------------------ the engine
static EngineConfig checked(EngineConfig cfg, size_t devices) {
  if (devices == 0) throw InvalidArgument("the engine needs at least one device");
  if (const char* e = std::getenv("CUZK_DISABLE_PCE"); e && std::string(e) == "1") cfg.use_pce = false;
  return cfg;
}

Engine::Engine(EngineConfig cfg) : impl_(std::make_unique<Impl>()) {
  const size_t n = cfg.devices.size();
  impl_->cfg = checked(std::move(cfg), n);
  for (auto& spec : impl_->cfg.devices) impl_->add_device(backend::open_device(spec), spec);
  impl_->start_threads();
}

Engine::Engine(EngineConfig cfg, std::vector<std::shared_ptr<backend::Device>> devices)
    : impl_(std::make_unique<Impl>()) {
  impl_->cfg = checked(std::move(cfg), devices.size());
  for (size_t i = 0; i < devices.size(); ++i)
    impl_->add_device(devices[i], i < impl_->cfg.devices.size() ? impl_->cfg.devices[i] : DeviceSpec{});
  impl_->start_threads();
}

Engine::~Engine() {
  {
    std::lock_guard lk(impl_->mu);
    impl_->stopping = true;
    for (auto& [id, j] : impl_->jobs)
      if (!j->ended()) impl_->end_job(*j, JobState::Cancelled, "the engine stopped");
    for (auto& d : impl_->devices) d->budget_cv.notify_all();
    impl_->cv.notify_all();
  }
  for (auto& t : impl_->threads) t.join();
  // The resident keys go now, and with them what the devices' allocators keep.
  for (auto& d : impl_->devices) {
    d->keys.clear();
    d->dev->keep_page_locked(0, 0);  // no room for witness copies asked any more
    d->dev->release_idle_memory();
  }
}

size_t page_locked_witness_room(const EngineConfig& cfg, size_t witness_bytes) {
  static const size_t quarter = physical_memory() / 4;
  const size_t allowed = cfg.page_locked_witness_bytes.value_or(quarter);
  return witness_bytes == 0 ? 0 : allowed / witness_bytes;
}

size_t automatic_stream_chunk(size_t largest, size_t budget, size_t workers,
                              const std::function<size_t(size_t)>& working_set) {
  workers = std::max<size_t>(1, workers);
  size_t all = 0, one = 0;
  for (size_t chunk = EngineConfig::kMinStreamChunk;; chunk *= 2) {
    const size_t ws = working_set(chunk);
    if (ws <= budget) one = chunk;
    if (ws <= budget / workers) all = chunk;
    if (chunk >= largest) break;
  }
  return all ? all : one ? one : EngineConfig::kMinStreamChunk;
}

void Engine::register_circuit(const std::string& id, std::shared_ptr<Circuit> c) {
  auto ops = std::dynamic_pointer_cast<CircuitOps>(c);
  if (!ops) throw InvalidArgument("circuit " + id + " was not made by load_circuit");
  if (!impl_->cfg.use_pce && !ops->has_r1cs())
    throw InvalidArgument("circuit " + id + ": constraint evaluation without the PCE needs its r1cs");
  // Each device's memory queries, asked once (outside the lock: a GPU's query asks its driver).
  // How the resident key's MSMs run: with tables where the device plans them in its share of
  // the memory left beside the key and a working set per worker, A, B1 and C in one call where
  // the key allows it; the first plan whose key and working sets (one a worker) fit the budget is
  // kept: tables and the shared call, tables alone (the offer halved up to three times), the
  // shared call alone, neither. Each circuit plans as if alone on the device: with several,
  // keys with tables evict one another sooner (and a key uploaded again makes its tables again).
  std::vector<Footprint> f;
  std::vector<groth16::KeyTables> tables;
  std::vector<std::pair<const backend::Device*, size_t>> copies;  // page-locked buffers a device needs
  for (auto& d : impl_->devices) {
    const backend::Device& dev = *d->dev;
    const size_t key = ops->key_bytes(dev), ws = ops->working_set_bytes(dev, 0);
    const size_t workers = size_t(std::max(1, d->workers));
    Footprint fp{key, ws, 0, d->budget};
    fp.stream_chunk = impl_->cfg.stream_chunk_points;
    if (!fp.stream_chunk)
      fp.stream_chunk = automatic_stream_chunk(std::max<size_t>(size_t(1) << ops->log_n(), ops->n_vars()), d->budget,
                                               workers, [&](size_t c) { return ops->working_set_bytes(dev, c); });
    fp.working_set_streamed = ops->working_set_bytes(dev, fp.stream_chunk);
    auto fits = [&](const groth16::KeyTables& t) {
      const size_t key_t = ops->key_bytes(dev, t), ws_t = ops->working_set_bytes(dev, 0, t);
      if (key_t + workers * ws_t > d->budget) return false;
      // The tables alone: the same plan without them keeps the one-call layout (C's padding).
      groth16::KeyTables plain;
      plain.share = t.share;
      fp.key = key_t, fp.working_set = ws_t, fp.key_tables = key_t - ops->key_bytes(dev, plain);
      return true;
    };
    std::optional<groth16::KeyTables> chosen;
    const double share = std::clamp(impl_->cfg.key_tables_share, 0.0, 1.0);
    if (share > 0 && key + workers * ws < d->budget) {
      size_t offer = size_t(double(d->budget - key - workers * ws) * share);
      for (int i = 0; i < 4 && offer > 0 && !chosen; ++i, offer /= 2) {
        groth16::KeyTables t = ops->plan_tables(dev, offer);
        if (!t.any()) break;
        if (fits(t)) {
          chosen = t;
        } else if (t.share) {
          t.share = false;
          if (fits(t)) chosen = t;
        }
      }
    }
    if (!chosen) {
      const groth16::KeyTables t = ops->plan_tables(dev, 0);
      if (t.share && fits(t)) chosen = t;
    }
    // A device that streams the key reads it from the host on every partition: page-locked
    // once, it goes by DMA straight from the key. A witness that will find a worker free is
    // synthesized into page-locked memory, and where the workers' working sets (beside the
    // resident key, or streamed) do not all fit, a partition that waits for memory moves its
    // witness into a page-locked copy meanwhile: either is a partition a worker took (or will
    // take at once), so one buffer a worker serves both. They are made now, not beside kernels.
    if (!fp.resident() && fp.fits()) ops->pin_host(dev);
    if (fp.fits()) copies.emplace_back(&dev, workers);
    f.push_back(fp);
    tables.push_back(chosen.value_or(groth16::KeyTables{}));
  }
  // The copies serve every device of a backend: each is asked for the room all of them need,
  // within the host memory the configuration allows: buffers of the largest witness of the
  // circuits that have room, as many as the most any of them needs and the bound allows.
  const size_t witness_bytes = size_t(ops->n_vars()) * sizeof(cpu::Scalar);
  size_t room = 0;
  for (auto [dev, n] : copies) room += n;
  room = std::min(room, page_locked_witness_room(impl_->cfg, witness_bytes));
  size_t keep_bytes = 0, keep_count = 0;
  if (room > 0) {
    std::lock_guard lk(impl_->mu);
    impl_->keep_bytes = std::max(impl_->keep_bytes, witness_bytes);
    impl_->keep_count =
        std::min(std::max(impl_->keep_count, room), page_locked_witness_room(impl_->cfg, impl_->keep_bytes));
    keep_bytes = impl_->keep_bytes, keep_count = impl_->keep_count;
  }
  if (keep_count > 0)
    for (auto [dev, n] : copies) dev->keep_page_locked(keep_bytes, keep_count);
  std::lock_guard lk(impl_->mu);
  impl_->circuits[id] = ops;
  for (size_t i = 0; i < f.size(); ++i) {
    impl_->devices[i]->footprints[id] = f[i];
    impl_->devices[i]->tables[id] = tables[i];
  }
}

Engine::Footprint Engine::footprint(const std::string& circuit, const std::string& device) const {
  std::lock_guard lk(impl_->mu);
  Impl::Device& d = impl_->device(device);
  auto it = d.footprints.find(circuit);
  if (it == d.footprints.end()) throw InvalidArgument("unknown circuit '" + circuit + "'");
  return it->second;
}

std::string Engine::cannot_hold(const std::string& circuit) const {
  std::lock_guard lk(impl_->mu);
  if (!impl_->circuits.count(circuit)) throw InvalidArgument("unknown circuit '" + circuit + "'");
  return impl_->cannot_hold(circuit);
}

uint64_t Engine::submit(JobRequest req, std::string label) {
  Impl& I = *impl_;
  std::lock_guard lk(I.mu);
  if (I.stopping) throw Error("the engine is stopping");
  auto it = I.circuits.find(req.circuit);
  if (it == I.circuits.end()) throw InvalidArgument("unknown circuit '" + req.circuit + "'");
  if (req.partitions.empty()) throw InvalidArgument("a job needs at least one partition");
  auto j = std::make_shared<Job>();
  j->id = I.next_id++;
  j->seq = j->id;
  j->circuit_id = req.circuit;
  j->label = label.empty() ? std::to_string(j->id) : std::move(label);
  j->circuit = it->second;
  j->priority = req.priority;
  j->witnesses = std::move(req.partitions);
  j->proofs.resize(j->witnesses.size());
  j->records.resize(j->witnesses.size());
  j->submitted_ms = I.now();
  I.jobs[j->id] = j;
  if (std::string why = I.cannot_hold(req.circuit); !why.empty()) {
    I.end_job(*j, JobState::Failed, why);
    return j->id;
  }
  for (uint32_t i = 0; i < j->witnesses.size(); ++i) {
    j->records[i].job = j->id;
    j->records[i].index = i;
    j->records[i].spans[Phase::Queue].start_ms = j->submitted_ms;
    auto p = std::make_unique<Part>();
    p->job = j;
    p->index = i;
    p->attempt = 1;
    I.synth_queue.push_back(std::move(p));
  }
  I.cv.notify_all();
  return j->id;
}

JobResult Engine::await(uint64_t id, std::optional<double> timeout_ms) {
  Impl& I = *impl_;
  std::unique_lock lk(I.mu);
  auto it = I.jobs.find(id);
  if (it == I.jobs.end()) throw InvalidArgument("unknown job " + std::to_string(id));
  std::shared_ptr<Job> j = it->second;
  auto done = [&] { return j->ended(); };
  if (timeout_ms)
    I.cv.wait_for(lk, std::chrono::duration<double, std::milli>(*timeout_ms), done);
  else
    I.cv.wait(lk, done);
  JobResult r;
  r.id = j->id;
  r.state = j->state;
  r.error = j->error;
  r.failure = j->failure;
  r.records = j->records;
  if (j->state == JobState::Done)
    for (auto& p : j->proofs) r.proofs.push_back(*p);
  r.wall_ms = (j->ended() ? j->ended_ms : I.now()) - j->submitted_ms;
  return r;
}

bool Engine::cancel(uint64_t id) {
  Impl& I = *impl_;
  std::lock_guard lk(I.mu);
  auto it = I.jobs.find(id);
  if (it == I.jobs.end() || it->second->ended()) return false;
  I.end_job(*it->second, JobState::Cancelled, "cancelled");
  return true;
}

bool Engine::forget(uint64_t id) {
  Impl& I = *impl_;
  std::lock_guard lk(I.mu);
  auto it = I.jobs.find(id);
  if (it == I.jobs.end() || !it->second->ended()) return false;
  I.jobs.erase(it);
  return true;
}

void Engine::preload(const std::string& circuit, const std::string& device) {
  Impl& I = *impl_;
  std::unique_lock lk(I.mu);
  auto c = I.circuits.find(circuit);
  if (c == I.circuits.end()) throw InvalidArgument("unknown circuit '" + circuit + "'");
  Impl::Device& d = I.device(device);
  Impl::Reservation r;
  try {
    r = I.reserve(d, circuit, lk, nullptr, true);
  } catch (const InvalidArgument&) {
    throw InvalidArgument(circuit + " does not fit on " + device + " with a partition beside it");
  }
  lk.unlock();
  std::string err;
  try {
    I.resident_key(d, circuit, *c->second);  // upload now, holding the key in use meanwhile
  } catch (const std::exception& e) {
    err = e.what();
  }
  lk.lock();
  I.release(d, r);
  if (!err.empty()) {
    if (d.keys.count(circuit) && d.keys.at(circuit).users == 0) I.evict(d, circuit, lk);
    throw Error("preloading " + circuit + " on " + device + ": " + err);
  }
}

std::vector<Engine::PreloadOutcome> Engine::preload_all(const std::string& circuit) {
  std::vector<PreloadOutcome> out;
  for (auto& d : device_records()) out.push_back({d.name, "", false});
  std::vector<std::thread> ts;
  for (auto& o : out)
    ts.emplace_back([this, &circuit, &o] {
      try {
        preload(circuit, o.device);
      } catch (const InvalidArgument& e) {
        o.error = e.what(), o.invalid_argument = true;
      } catch (const std::exception& e) {
        o.error = e.what();
      }
    });
  for (auto& t : ts) t.join();
  return out;
}

bool Engine::evict(const std::string& circuit, const std::string& device) {
  Impl& I = *impl_;
  std::unique_lock lk(I.mu);
  Impl::Device* d = I.find_device(device);
  if (!d || !d->keys.count(circuit) || d->keys.at(circuit).users != 0) return false;
  I.evict(*d, circuit, lk);
  lk.unlock();
  d->dev->release_idle_memory();  // an eviction asked for: the memory back to the system
  return true;
}

void Engine::run_on_device(const std::string& device, size_t bytes, const std::string& what, const DeviceWork& fn) {
  Impl& I = *impl_;
  Impl::Device& d = I.device(device);
  {
    std::unique_lock lk(I.mu);
    I.reserve_bytes(d, bytes, what, lk);
  }
  auto release = [&] {
    std::lock_guard lk(I.mu);
    I.release(d, Impl::Reservation{bytes, true, ""});
  };
  try {
    auto stream = d.dev->make_stream();
    std::unique_ptr<backend::Buffer> mem;
    if (bytes > 0) mem = d.dev->allocate(bytes, stream, what.c_str());
    std::lock_guard kl(d.lock);
    Span span;
    I.busy(d, what, span, [&] {
      fn(*d.dev, mem ? mem->memory() : backend::Memory{}, *stream);
      d.dev->synchronize(*stream);
    });
  } catch (...) {
    release();  // the memory and the stream are gone (and waited for) by now
    throw;
  }
  release();
}

size_t Engine::ask_device(const std::string& device, const std::function<size_t(const backend::Device&)>& query) const {
  return query(*impl_->device(device).dev);
}

std::vector<DeviceRecord> Engine::device_records() const {
  std::lock_guard lk(impl_->mu);
  std::vector<DeviceRecord> out;
  for (auto& d : impl_->devices) {
    DeviceRecord r;
    r.name = d->name;
    r.description = d->dev->description();
    r.workers = d->workers;
    r.budget_bytes = d->budget;
    r.busy_ms = d->busy_ms;
    r.device_ms = d->device_ms;
    r.partitions = d->partitions;
    out.push_back(r);
  }
  return out;
}

EngineStatus Engine::status() const {
  EngineStatus s;
  auto recs = device_records();
  std::lock_guard lk(impl_->mu);
  for (size_t i = 0; i < impl_->devices.size(); ++i) {
    auto& d = *impl_->devices[i];
    DeviceStatus ds;
    ds.record = recs[i];
    ds.reserved_bytes = d.reserved;
    ds.free_bytes = d.budget - d.reserved;
    for (auto& id : d.lru) ds.resident_keys.push_back({id, d.keys.at(id).bytes});
    ds.current = d.current;
    s.devices.push_back(ds);
  }
  s.queued_synthesis = impl_->synth_queue.size();
  s.queued_ready = impl_->ready.size();
  s.running = impl_->running;
  s.jobs_done = impl_->jobs_done;
  s.jobs_failed = impl_->jobs_failed;
  s.partitions_done = impl_->partitions_done;
  s.partitions_retried = impl_->partitions_retried;
  return s;
}

double Engine::now_ms() const { return impl_->now(); }

// ------------------------------------------------------------------ engines of one device
DeviceSpec one_device(const std::string& spec, const std::string& what) {
  auto devs = backend::parse_device_specs(spec, what);
  const std::string s = to_lower(spec);
  if ((s == "auto" || s == "all") && !devs.empty()) devs.resize(1);
  if (devs.size() != 1)
    throw backend::BadDeviceSpec(what + ": '" + spec + "' names " + std::to_string(devs.size()) +
                                 " devices, expected one");
  return devs[0];
}

std::unique_ptr<Engine> tool_engine(const std::string& device, unsigned threads) {
  EngineConfig cfg;
  cfg.devices = {one_device(device, "--device")};
  cfg.devices[0].threads = threads;
  cfg.workers_per_device = 1;
  cfg.synthesis_workers = 1;
  cfg.synthesis_threads = 1;
  return std::make_unique<Engine>(cfg);
}

}  // namespace cuzk::engine
