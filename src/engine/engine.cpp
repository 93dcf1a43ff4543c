#include "engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "backend/cuda/probe.hpp"
#if defined(CUZK_WITH_CUDA)
#include "backend/cuda/device_alloc.hpp"
#endif
#include "cuzk/prove.hpp"
#include "ec/curves.hpp"
#include "engine/circuit_impl.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::engine {

// ------------------------------------------------------------------ parsing helpers
Priority parse_priority(const std::string& s0) {
  std::string s;
  for (char c : s0) s += char(std::tolower(static_cast<unsigned char>(c)));
  if (s == "low") return Priority::Low;
  if (s == "normal") return Priority::Normal;
  if (s == "high") return Priority::High;
  if (s == "critical") return Priority::Critical;
  throw InvalidArgument("unknown priority '" + s0 + "' (low, normal, high, critical)");
}
const char* priority_name(Priority p) {
  switch (p) {
    case Priority::Low: return "low";
    case Priority::Normal: return "normal";
    case Priority::High: return "high";
    default: return "critical";
  }
}
const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::Queued: return "queued";
    case JobState::Running: return "running";
    case JobState::Done: return "done";
    case JobState::Failed: return "failed";
    default: return "cancelled";
  }
}

size_t parse_size(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) throw InvalidArgument("not a size: '" + s + "' (e.g. 20GiB, 512MiB, 1.5GB)");
  double v = std::strtod(s.substr(0, i).c_str(), nullptr);
  std::string unit = s.substr(i);
  double mul = 1;
  if (unit.empty() || unit == "B") mul = 1;
  else if (unit == "KiB" || unit == "K") mul = 1024.0;
  else if (unit == "MiB" || unit == "M") mul = 1024.0 * 1024;
  else if (unit == "GiB" || unit == "G") mul = 1024.0 * 1024 * 1024;
  else if (unit == "TiB" || unit == "T") mul = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "KB") mul = 1e3;
  else if (unit == "MB") mul = 1e6;
  else if (unit == "GB") mul = 1e9;
  else if (unit == "TB") mul = 1e12;
  else throw InvalidArgument("unknown size unit in '" + s + "' (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
  double b = v * mul;
  if (!(b >= 1) || b > 1e18) throw InvalidArgument("size out of range: '" + s + "'");
  return size_t(b);
}

static std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  for (;;) {
    size_t e = s.find(',', b);
    std::string part = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (part.empty()) throw InvalidArgument("empty item in list '" + s + "'");
    out.push_back(part);
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

std::vector<DeviceConfig> parse_devices(const std::string& spec) {
  std::vector<DeviceConfig> out;
  auto gpus = cuda::list_devices();
  auto visible = [&](int o) {
    for (auto& g : gpus)
      if (g.ordinal == o) return true;
    return false;
  };
  for (const std::string& item : split_commas(spec)) {
    if (item == "all") {
      if (gpus.empty())
        throw InvalidArgument(cuda::built_with_cuda() ? "--devices all: no GPU is visible"
                                                      : "--devices all: this cuzk was built without CUDA");
      for (auto& g : gpus) out.push_back(DeviceConfig{DeviceConfig::Gpu, g.ordinal});
    } else if (item == "cpu") {
      out.push_back(DeviceConfig{DeviceConfig::Sim, int(out.size())});
    } else if (item.rfind("sim:", 0) == 0) {
      const std::string k = item.substr(4);
      if (k.empty() || k.size() > 3 || !std::all_of(k.begin(), k.end(), ::isdigit) || std::stoi(k) < 1)
        throw InvalidArgument("'" + item + "': expected sim:K with K >= 1 simulated devices");
      for (int i = 0, n = std::stoi(k); i < n; ++i) out.push_back(DeviceConfig{DeviceConfig::Sim, i});
    } else if (item.rfind("gpu:", 0) == 0) {
      const std::string k = item.substr(4);
      if (k.empty() || k.size() > 4 || !std::all_of(k.begin(), k.end(), ::isdigit))
        throw InvalidArgument("'" + item + "': expected gpu:N");
      const int o = std::stoi(k);
      if (!visible(o))
        throw InvalidArgument("device " + item + " is not available (" +
                              (cuda::built_with_cuda() ? std::to_string(gpus.size()) + " GPU(s) visible"
                                                       : std::string("this cuzk was built without CUDA")) + ")");
      out.push_back(DeviceConfig{DeviceConfig::Gpu, o});
    } else {
      throw InvalidArgument("unknown device '" + item + "' (gpu:N, all, sim:K, cpu)");
    }
  }
  std::set<std::string> names;
  for (auto& d : out)
    if (!names.insert(d.name()).second) throw InvalidArgument("device " + d.name() + " is listed twice");
  return out;
}

void apply_memory_budgets(std::vector<DeviceConfig>& devs, const std::string& spec) {
  auto parts = split_commas(spec);
  if (parts.size() != 1 && parts.size() != devs.size())
    throw InvalidArgument("--device-memory has " + std::to_string(parts.size()) + " sizes for " +
                          std::to_string(devs.size()) + " devices (give one, or one per device)");
  for (size_t i = 0; i < devs.size(); ++i) devs[i].memory_budget = parse_size(parts.size() == 1 ? parts[0] : parts[i]);
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

std::shared_ptr<Circuit> load_circuit(const std::string& zkey_path, const std::string& r1cs_path, ThreadPool& pool) {
  io::ZkeyGroth16 z = io::read_zkey(zkey_path);
  std::optional<io::R1cs> cs;
  if (!r1cs_path.empty()) {
    cs = io::read_r1cs(r1cs_path);
    if (cs->curve != z.curve || cs->n_wires != z.n_vars || cs->n_public() != z.n_public)
      throw InvalidArgument(r1cs_path + " does not match " + zkey_path + " (curve, wires or public inputs differ)");
  }
  return make_circuit(zkey_path, z, std::move(cs), pool);
}

std::shared_ptr<Circuit> make_circuit(const std::string& name, const io::ZkeyGroth16& z, std::optional<io::R1cs> cs,
                                      ThreadPool& pool) {
  if (z.curve == CurveId::bn254)
    return std::make_shared<CircuitT<ec::Bn254>>(name, groth16::load_proving_key<ec::Bn254>(z, pool), std::move(cs));
  return std::make_shared<CircuitT<ec::Bls12381>>(name, groth16::load_proving_key<ec::Bls12381>(z, pool),
                                                  std::move(cs));
}

// ------------------------------------------------------------------ the engine
namespace {

using Clock = std::chrono::steady_clock;

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
  std::string error;
  std::vector<std::optional<ProofData>> proofs;
  std::vector<PartitionRecord> records;
  size_t finished = 0;
  double submitted_ms = 0, ended_ms = 0;
  bool ended() const { return state == JobState::Done || state == JobState::Failed || state == JobState::Cancelled; }
};

// Order: the higher priority (CRITICAL, HIGH, NORMAL, LOW), then the oldest job, then the lowest
// partition.
struct PartOrder {
  bool operator()(const Part* a, const Part* b) const {
    bool ca = a->job->priority == Priority::Critical, cb = b->job->priority == Priority::Critical;
    if (ca != cb) return ca;
    if (a->job->priority != b->job->priority) return int(a->job->priority) > int(b->job->priority);
    if (a->job->seq != b->job->seq) return a->job->seq < b->job->seq;
    return a->index < b->index;
  }
};

}  // namespace

struct Engine::Impl {
  struct Device {
    DeviceConfig cfg;
    std::string name;
    std::mutex lock;  // the kernel lock: one partition's kernels at a time, this device only
    // Budget and residency (guarded by Impl::mu).
    size_t budget = 0, reserved = 0;
    std::list<std::string> resident;  // circuit ids, most recent first
    std::map<std::string, size_t> resident_bytes;
    std::map<std::string, int> key_users;
    std::string current;
    double busy_ms = 0;
    size_t partitions = 0;
    std::unique_ptr<ThreadPool> pool;  // sim: its kernels' CPU threads
    // GPU: keys uploaded to this device (created when a key becomes resident, dropped on
    // eviction); the upload itself happens in the first stage that needs it, outside `mu`.
    struct KeySlot {
      std::mutex m;
      std::shared_ptr<void> handle;
    };
    std::map<std::string, std::shared_ptr<KeySlot>> keys;
    std::condition_variable budget_cv;
    std::string description;
  };

  EngineConfig cfg;
  Clock::time_point epoch = Clock::now();
  mutable std::mutex mu;
  std::condition_variable cv;  // queues and job state changes
  bool stopping = false;
  std::map<std::string, std::shared_ptr<CircuitOps>> circuits;
  std::map<uint64_t, std::shared_ptr<Job>> jobs;
  uint64_t next_id = 1;
  std::vector<std::unique_ptr<Part>> synth_queue;  // kept sorted lazily (small)
  std::vector<std::unique_ptr<Part>> ready;
  size_t synth_running = 0, running = 0;
  size_t jobs_done = 0, jobs_failed = 0, partitions_done = 0, partitions_retried = 0;
  std::vector<std::unique_ptr<Device>> devices;
  std::unique_ptr<ThreadPool> synth_pool;
  std::vector<std::thread> threads;

  double now() const { return std::chrono::duration<double, std::milli>(Clock::now() - epoch).count(); }

  template <class Q>
  static typename Q::iterator best(Q& q) {
    return std::min_element(q.begin(), q.end(), [](const auto& a, const auto& b) { return PartOrder()(a.get(), b.get()); });
  }

  void fault(Phase ph, const std::string& dev, const Part& p) {
    if (cfg.fault) cfg.fault(ph, dev, p.job->id, p.index, p.attempt);
  }

  // Ends a job (under mu).
  void end_job(Job& j, JobState s, const std::string& err) {
    if (j.ended()) return;
    j.state = s;
    j.error = err;
    j.ended_ms = now();
    if (s == JobState::Done) ++jobs_done;
    if (s == JobState::Failed) ++jobs_failed;
    j.witnesses.clear();
    // Drop what is still queued of it.
    auto drop = [&](std::vector<std::unique_ptr<Part>>& q) {
      q.erase(std::remove_if(q.begin(), q.end(), [&](const auto& p) { return p->job.get() == &j; }), q.end());
    };
    drop(synth_queue);
    drop(ready);
    cv.notify_all();
  }

  void fail_partition(Part& p, const std::string& err, bool device_fault, const std::string& dev) {
    std::unique_lock lk(mu);
    Job& j = *p.job;
    PartitionRecord& rec = j.records[p.index];
    rec.ok = false;
    rec.error = err;
    if (j.ended()) return;
    if (device_fault && p.attempt < 2 && devices.size() > 1) {
      // Retry once on another device: back to synthesis (its work was consumed).
      ++partitions_retried;
      auto again = std::make_unique<Part>();
      again->job = p.job;
      again->index = p.index;
      again->attempt = p.attempt + 1;
      again->excluded = dev;
      rec.error.clear();
      synth_queue.push_back(std::move(again));
      cv.notify_all();
      return;
    }
    end_job(j, JobState::Failed,
            "partition " + std::to_string(p.index) + (dev.empty() ? "" : " on " + dev) + ": " + err);
  }

  // ---------------------------------------------------------------- synthesis
  void synth_loop() {
    for (;;) {
      std::unique_ptr<Part> p;
      Witness wit;  // a copy: cancelling the job clears its witnesses while this one loads
      {
        std::unique_lock lk(mu);
        const size_t cap = cfg.max_synthesized ? cfg.max_synthesized : 2 * devices.size() * size_t(cfg.workers_per_device);
        cv.wait(lk, [&] { return stopping || (!synth_queue.empty() && ready.size() + synth_running < cap); });
        if (stopping) return;
        auto it = best(synth_queue);
        p = std::move(*it);
        synth_queue.erase(it);
        ++synth_running;
        if (p->job->state == JobState::Queued) p->job->state = JobState::Running;
        p->job->records[p->index].synth.start_ms = now();
        p->job->records[p->index].queued.end_ms = now();
        wit = p->job->witnesses.at(p->index);
      }
      std::string err;
      try {
        fault(Phase::Synthesis, "", *p);
        p->work = p->job->circuit->synthesize(wit, cfg.use_pce, *synth_pool);
      } catch (const std::exception& e) {
        err = e.what();
      }
      std::unique_lock lk(mu);
      --synth_running;
      p->job->records[p->index].synth.end_ms = now();
      if (!err.empty()) {
        lk.unlock();
        fail_partition(*p, err, false, "");
        continue;
      }
      if (p->job->ended()) continue;
      ready.push_back(std::move(p));
      cv.notify_all();
    }
  }

  // ---------------------------------------------------------------- budgets
  // Reserves a partition's working set on d, waiting while other partitions hold it. Decides
  // whether the key is resident or streamed. Throws DeviceFault-free errors when it can never fit.
  struct Reservation {
    size_t bytes = 0;
    bool streamed = false;
  };
  Reservation reserve(Device& d, const std::string& cid, const CircuitOps& c, std::unique_lock<std::mutex>& lk) {
    const size_t key = c.key_bytes(), ws = c.working_set_on(d.cfg, 0),
                 ws_stream = c.working_set_on(d.cfg, cfg.stream_chunk_points);
    for (;;) {
      if (stopping) throw Error("engine stopping");
      const bool resident = d.resident_bytes.count(cid) != 0;
      // Keys not in use may be evicted, least recently used first.
      size_t evictable = 0;
      for (auto& [id, b] : d.resident_bytes)
        if (id != cid && d.key_users[id] == 0) evictable += b;
      // Resident mode possible at all on this device?
      const bool fits_resident = key + ws <= d.budget;
      if (resident || fits_resident) {
        size_t need = ws + (resident ? 0 : key);
        if (d.budget - d.reserved + (resident ? 0 : evictable) >= need) {
          if (!resident) {
            while (d.budget - d.reserved < need) evict_lru(d, cid);
            d.resident.push_front(cid);
            d.resident_bytes[cid] = key;
            d.keys[cid] = std::make_shared<Device::KeySlot>();
            d.reserved += key;
          } else {
            d.resident.remove(cid);
            d.resident.push_front(cid);
          }
          ++d.key_users[cid];
          d.reserved += ws;
          return {ws, false};
        }
      } else if (ws_stream <= d.budget) {
        if (d.budget - d.reserved >= ws_stream) {
          d.reserved += ws_stream;
          return {ws_stream, true};
        }
        if (evictable > 0) {
          evict_lru(d, cid);
          continue;
        }
      } else {
        throw InvalidArgument("does not fit on " + d.name + ": the partition needs " + std::to_string(ws_stream) +
                              " bytes of device memory even with the key streamed (" + std::to_string(key + ws) +
                              " with the key resident), the device's budget is " + std::to_string(d.budget) + " bytes");
      }
      d.budget_cv.wait(lk);
    }
  }
  // Drops a resident key that no partition uses (its device memory goes with the last handle).
  void drop_key(Device& d, const std::string cid) {
    d.reserved -= d.resident_bytes[cid];
    d.resident_bytes.erase(cid);
    d.keys.erase(cid);
    d.key_users.erase(cid);
    d.resident.remove(cid);
    d.budget_cv.notify_all();
  }
  void evict_lru(Device& d, const std::string& keep) {
    for (auto it = d.resident.rbegin(); it != d.resident.rend(); ++it)
      if (*it != keep && d.key_users[*it] == 0) return drop_key(d, *it);
  }
  // Reserves `bytes` on d for work that is not a partition (no key of its own).
  void reserve_bytes(Device& d, size_t bytes, const std::string& what, std::unique_lock<std::mutex>& lk) {
    if (bytes > d.budget)
      throw InvalidArgument("does not fit on " + d.name + ": " + what + " needs " + std::to_string(bytes) +
                            " bytes of device memory, the device's budget is " + std::to_string(d.budget) + " bytes");
    for (;;) {
      if (stopping) throw Error("engine stopping");
      if (d.budget - d.reserved >= bytes) {
        d.reserved += bytes;
        return;
      }
      bool evictable = false;
      for (auto& [id, b] : d.resident_bytes) evictable |= d.key_users[id] == 0;
      if (evictable) {
        evict_lru(d, "");
        continue;
      }
      d.budget_cv.wait(lk);
    }
  }
  void release(Device& d, const std::string& cid, const Reservation& r) {
    d.reserved -= r.bytes;
    if (!r.streamed) --d.key_users[cid];
    d.budget_cv.notify_all();
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
  void worker_loop(Device& d, int worker) {
    for (;;) {
      std::unique_ptr<Part> p;
      {
        std::unique_lock lk(mu);
        auto eligible = [&] {
          auto it = ready.end();
          for (auto i = ready.begin(); i != ready.end(); ++i)
            if ((*i)->excluded != d.name && (it == ready.end() || PartOrder()(i->get(), it->get()))) it = i;
          return it;
        };
        cv.wait(lk, [&] { return stopping || eligible() != ready.end(); });
        if (stopping) return;
        auto it = eligible();
        p = std::move(*it);
        ready.erase(it);
        ++running;
        cv.notify_all();  // synthesis may refill
      }
      run_partition(d, worker, *p);
      std::unique_lock lk(mu);
      --running;
    }
  }

  void run_partition(Device& d, int worker, Part& p) {
    Job& j = *p.job;
    const std::string cid = j.circuit_id;
    const CircuitOps& c = *j.circuit;
    PartitionRecord rec;
    {
      std::unique_lock lk(mu);
      rec = j.records[p.index];
    }
    rec.device = d.name;
    rec.worker = worker;
    rec.attempts = p.attempt;
    rec.stage = Span{now(), -1};
    Reservation res;
    bool reserved = false;
    std::string err;
    bool device_fault = false;
    ProofData proof;
    try {
      {
        std::unique_lock lk(mu);
        res = reserve(d, cid, c, lk);
        reserved = true;
      }
      rec.budget_wait_ms = now() - rec.stage.start_ms;
      rec.reserved_bytes = res.bytes;
      rec.streamed = res.streamed;
      fault(Phase::Stage, d.name, p);
      const size_t chunk = res.streamed ? cfg.stream_chunk_points : 0;
      std::shared_ptr<void> key;  // GPU, resident mode: the uploaded key
      if (d.cfg.kind == DeviceConfig::Gpu) {
        if (!res.streamed) {
          std::shared_ptr<Device::KeySlot> slot;
          {
            std::lock_guard lk(mu);
            slot = d.keys.at(cid);
          }
          std::lock_guard kl(slot->m);  // one upload per device, while other circuits run on
          if (!slot->handle) slot->handle = c.upload_key(d.cfg.ordinal);
          key = slot->handle;
        }
        c.stage_gpu(*p.work, d.cfg.ordinal, res.bytes, chunk, *synth_pool);
      } else {
        // What a GPU's staging does: copy the partition's inputs into the reserved region.
        c.stage_copy(*p.work);
        const double left = d.cfg.sim_stage_ms / std::max(1e-3, d.cfg.speed) - (now() - rec.stage.start_ms);
        if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(left));
      }
      rec.stage.end_ms = now();
      rec.lock_wait.start_ms = now();
      {
        std::lock_guard kl(d.lock);
        rec.lock_wait.end_ms = now();
        busy(d, "job " + j.label + " partition " + std::to_string(p.index), rec.kernels, [&] {
          fault(Phase::Kernels, d.name, p);
          if (d.cfg.kind == DeviceConfig::Gpu) c.kernels_gpu(*p.work, key.get(), chunk, rec);
          else c.kernels_cpu(*p.work, chunk, *d.pool, rec);
          if (d.cfg.kind == DeviceConfig::Sim && d.cfg.sim_kernel_ms > 0) {
            const double floor_ms = d.cfg.sim_kernel_ms / std::max(1e-3, d.cfg.speed);
            const double left = floor_ms - (now() - rec.kernels.start_ms);
            if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(left));
          }
        });
        std::lock_guard lk(mu);
        ++d.partitions;
      }
      key.reset();  // before the release: once released, the key may be evicted and its memory reused
      {
        std::unique_lock lk(mu);
        release(d, cid, res);
        reserved = false;
      }
      rec.finish.start_ms = now();
      fault(Phase::Finish, d.name, p);
      RandomSource rs = cfg.seed ? RandomSource(partition_seed(*cfg.seed, j.id, p.index)) : RandomSource();
      proof = c.finish(*p.work, cfg.verify, rs);
      rec.finish.end_ms = now();
    } catch (const DeviceFault& e) {
      err = e.what(), device_fault = true;
    } catch (const InvalidArgument& e) {
      err = e.what();
    } catch (const std::exception& e) {
      err = e.what(), device_fault = true;  // CUDA errors, out of memory: the device's
    }
    if (reserved) {
      std::unique_lock lk(mu);
      release(d, cid, res);
    }
    p.work.reset();
    if (!err.empty()) {
      {
        std::lock_guard lk(mu);
        j.records[p.index] = rec;
      }
      fail_partition(p, err, device_fault, d.name);
      return;
    }
    std::lock_guard lk(mu);
    rec.ok = true;
    rec.error.clear();
    j.records[p.index] = rec;
    if (j.ended()) return;
    j.proofs[p.index] = std::move(proof);
    ++partitions_done;
    if (++j.finished == j.proofs.size()) end_job(j, JobState::Done, "");
  }
};

// Free memory less a margin (1 GiB, or 3% of the card if more) for a GPU; 16 GiB for a
// simulated device.
static size_t default_budget(const DeviceConfig& d) {
  if (d.kind == DeviceConfig::Sim) return size_t(16) << 30;
#if defined(CUZK_WITH_CUDA)
  size_t free_b = 0, total = 0;
  gpu::memory_info(gpu::DeviceId{d.ordinal}, &free_b, &total);
  const size_t margin = std::max(size_t(1) << 30, total / 33);
  return free_b > margin ? free_b - margin : 0;
#else
  throw InvalidArgument(d.name() + ": this cuzk was built without CUDA");
#endif
}

Engine::Engine(EngineConfig cfg) : impl_(std::make_unique<Impl>()) {
  Impl& I = *impl_;
  if (cfg.devices.empty()) throw InvalidArgument("the engine needs at least one device");
  if (cfg.workers_per_device < 1 || cfg.workers_per_device > 16)
    throw InvalidArgument("workers per device must be 1..16, got " + std::to_string(cfg.workers_per_device));
  if (const char* e = std::getenv("CUZK_DISABLE_PCE"); e && std::string(e) == "1") cfg.use_pce = false;
  I.cfg = std::move(cfg);
  for (auto& dc : I.cfg.devices) {
    auto d = std::make_unique<Impl::Device>();
    d->cfg = dc;
    d->name = dc.name();
    d->budget = dc.memory_budget ? dc.memory_budget : default_budget(dc);
    d->pool = std::make_unique<ThreadPool>(std::max(1u, dc.sim_threads));
    d->description = "simulated (CPU backend), speed " + std::to_string(dc.speed).substr(0, 4);
    if (dc.kind == DeviceConfig::Gpu)
      for (auto& g : cuda::list_devices())
        if (g.ordinal == dc.ordinal) d->description = g.name;
    I.devices.push_back(std::move(d));
  }
  I.synth_pool = std::make_unique<ThreadPool>(I.cfg.synthesis_threads);
  const unsigned synth_workers =
      I.cfg.synthesis_workers ? I.cfg.synthesis_workers
                              : std::max(2u, unsigned(I.devices.size()) * unsigned(I.cfg.workers_per_device));
  for (unsigned i = 0; i < synth_workers; ++i) I.threads.emplace_back([&I] { I.synth_loop(); });
  for (auto& d : I.devices)
    for (int w = 0; w < I.cfg.workers_per_device; ++w)
      I.threads.emplace_back([&I, dp = d.get(), w] { I.worker_loop(*dp, w); });
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
}

void Engine::register_circuit(const std::string& id, std::shared_ptr<Circuit> c) {
  auto ops = std::dynamic_pointer_cast<CircuitOps>(c);
  if (!ops) throw InvalidArgument("circuit " + id + " was not made by load_circuit");
  if (!impl_->cfg.use_pce && !ops->has_r1cs())
    throw InvalidArgument("circuit " + id + ": constraint evaluation without the PCE needs its r1cs");
  std::lock_guard lk(impl_->mu);
  impl_->circuits[id] = ops;
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
  for (uint32_t i = 0; i < j->witnesses.size(); ++i) {
    j->records[i].job = j->id;
    j->records[i].index = i;
    j->records[i].queued.start_ms = j->submitted_ms;
    auto p = std::make_unique<Part>();
    p->job = j;
    p->index = i;
    p->attempt = 1;
    I.synth_queue.push_back(std::move(p));
  }
  I.jobs[j->id] = j;
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
  if (timeout_ms) I.cv.wait_for(lk, std::chrono::duration<double, std::milli>(*timeout_ms), done);
  else I.cv.wait(lk, done);
  JobResult r;
  r.id = j->id;
  r.state = j->state;
  r.error = j->error;
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
  for (auto& d : I.devices) {
    if (d->name != device) continue;
    auto r = I.reserve(*d, circuit, *c->second, lk);
    if (r.streamed) {
      I.release(*d, circuit, r);
      throw InvalidArgument(circuit + " does not fit on " + device + " with a partition beside it");
    }
    if (d->cfg.kind == DeviceConfig::Gpu) {  // upload now, holding the key in use meanwhile
      auto slot = d->keys.at(circuit);
      lk.unlock();
      std::string err;
      try {
        std::lock_guard kl(slot->m);
        if (!slot->handle) slot->handle = c->second->upload_key(d->cfg.ordinal);
      } catch (const std::exception& e) {
        err = e.what();
      }
      lk.lock();
      I.release(*d, circuit, r);
      if (!err.empty()) {
        if (d->key_users[circuit] == 0) I.drop_key(*d, circuit);
        throw Error("preloading " + circuit + " on " + device + ": " + err);
      }
      return;
    }
    I.release(*d, circuit, r);
    return;
  }
  throw InvalidArgument("unknown device '" + device + "'");
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

void Engine::run_on_device(const std::string& device, size_t bytes, const std::string& what,
                           const std::function<void()>& fn) {
  Impl& I = *impl_;
  Impl::Device* d = nullptr;
  for (auto& x : I.devices)
    if (x->name == device) d = x.get();
  if (!d) throw InvalidArgument("unknown device '" + device + "'");
  {
    std::unique_lock lk(I.mu);
    I.reserve_bytes(*d, bytes, what, lk);
  }
  auto release = [&] {
    std::lock_guard lk(I.mu);
    I.release(*d, "", {bytes, true});  // a reservation of bytes alone: no key in use
  };
  try {
    std::lock_guard kl(d->lock);
    Span span;
    I.busy(*d, what, span, fn);
  } catch (...) {
    release();
    throw;
  }
  release();
}

DeviceRunner Engine::runner(const std::string& device) {
  return [this, device](size_t bytes, const std::string& what, const std::function<void()>& fn) {
    run_on_device(device, bytes, what, fn);
  };
}

bool Engine::evict(const std::string& circuit, const std::string& device) {
  Impl& I = *impl_;
  std::lock_guard lk(I.mu);
  for (auto& d : I.devices) {
    if (d->name != device || !d->resident_bytes.count(circuit)) continue;
    if (d->key_users[circuit] != 0) return false;
    I.drop_key(*d, circuit);
    return true;
  }
  return false;
}

std::vector<DeviceRecord> Engine::device_records() const {
  std::lock_guard lk(impl_->mu);
  std::vector<DeviceRecord> out;
  for (auto& d : impl_->devices) {
    DeviceRecord r;
    r.name = d->name;
    r.description = d->description;
    r.workers = impl_->cfg.workers_per_device;
    r.budget_bytes = d->budget;
    r.busy_ms = d->busy_ms;
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
    ds.resident_keys.assign(d.resident.begin(), d.resident.end());
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

}  // namespace cuzk::engine
