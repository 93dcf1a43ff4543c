// SPDX-License-Identifier: MIT OR Apache-2.0
#include "backend/cpu/device.hpp"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <thread>

#include "backend/cpu/curve_ops.hpp"
#include "util/carver.hpp"
#include "util/error.hpp"
#include "util/host.hpp"
#include "util/time.hpp"

namespace cuzk::cpu {

const CurveOps& curve_ops(CurveId c) { return c == CurveId::bn254 ? curve_ops_bn254() : curve_ops_bls12_381(); }

namespace {

void sleep_ms(double ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

}  // namespace

// Work queued on a stream runs on the stream's thread, in order. The first error of queued work
// is kept and thrown by the next synchronize (as a GPU stream's error is).
struct CpuDevice::Stream final : backend::Stream {
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool running = false, stop = false;
  std::exception_ptr error;
  std::thread thread;

  Stream() : thread([this] { loop(); }) {}
  ~Stream() override {
    wait_idle();
    {
      std::lock_guard lk(m);
      stop = true;
    }
    cv.notify_all();
    thread.join();
  }
  void loop() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lk(m);
        cv.wait(lk, [&] { return stop || !queue.empty(); });
        if (queue.empty()) return;
        fn = std::move(queue.front());
        queue.pop_front();
        running = true;
      }
      try {
        fn();
      } catch (...) {
        std::lock_guard lk(m);
        if (!error) error = std::current_exception();
      }
      {
        std::lock_guard lk(m);
        running = false;
      }
      cv.notify_all();
    }
  }
  void enqueue(std::function<void()> fn) {
    {
      std::lock_guard lk(m);
      queue.push_back(std::move(fn));
    }
    cv.notify_all();
  }
  void wait_idle() {
    std::unique_lock lk(m);
    cv.wait(lk, [&] { return queue.empty() && !running; });
  }
  void sync() {
    wait_idle();
    std::exception_ptr e;
    {
      std::lock_guard lk(m);
      std::swap(e, error);
    }
    if (e) std::rethrow_exception(e);
  }
};

struct CpuDevice::Buffer final : backend::Buffer {
  CpuDevice* dev;
  std::shared_ptr<backend::Stream> bound;
  std::unique_ptr<std::byte[]> block;
  Buffer(CpuDevice* d, size_t bytes, std::shared_ptr<backend::Stream> b)
      : dev(d), bound(std::move(b)), block(new std::byte[bytes ? bytes : 1]) {
    mem_ = {block.get(), bytes};
  }
  ~Buffer() override {
    if (bound) static_cast<Stream&>(*bound).wait_idle();  // work that uses this memory is done
    sleep_ms(dev->opt_.free_ms / dev->opt_.speed);
    dev->release(block.get(), mem_.bytes);
  }
};

namespace {
CpuDevice::Stream& st(backend::Stream& s) { return static_cast<CpuDevice::Stream&>(s); }
}  // namespace

CpuDevice::CpuDevice(CpuDeviceOptions o) : Device(o.name), opt_(std::move(o)), pool_(opt_.threads) {
  if (!(opt_.speed > 0)) opt_.speed = 1;
  if (opt_.simulated && opt_.capacity == 0) opt_.capacity = size_t(16) << 30;
}

CpuDevice::~CpuDevice() = default;

std::string CpuDevice::description() const {
  if (!opt_.simulated) return "CPU, " + std::to_string(pool_.size()) + " threads";
  std::string speed = std::to_string(opt_.speed);
  return "simulated (CPU backend), speed " + speed.substr(0, 4);
}

size_t CpuDevice::default_budget() const { return opt_.simulated ? opt_.capacity : physical_memory(); }

size_t CpuDevice::msm_workspace_bytes(const backend::MsmConfig& cfg) const {
  // A simulated device copies host inputs into its own memory first, as a GPU does; the CPU uses
  // them in place. Montgomery-form scalars are converted into the workspace. (The buckets of the
  // CPU's Pippenger, a few MiB per thread, come from the heap.)
  const auto& ops = curve_ops(cfg.curve);
  const size_t point = cfg.group == backend::Group::G1 ? ops.g1_bytes : ops.g2_bytes;
  size_t b = 0;
  if (opt_.simulated && cfg.bases_at == backend::Where::Host) b += Carver::round(cfg.count * point);
  if ((opt_.simulated && cfg.scalars_at == backend::Where::Host) || cfg.scalar_form == backend::ScalarForm::Montgomery)
    b += Carver::round(cfg.count * 32);
  return b;
}

size_t CpuDevice::h_workspace_bytes(CurveId curve, int log_n, backend::HForm) const {
  return curve_ops(curve).h_scratch_bytes(log_n);  // the twiddle tables, allocated by the transform
}

size_t CpuDevice::fixed_base_workspace_bytes(CurveId curve, backend::Group g, size_t chunk) const {
  return curve_ops(curve).fixed_base_table_bytes(g, chunk);  // the table, allocated by the multiplication
}

std::shared_ptr<backend::Stream> CpuDevice::make_stream() { return std::make_shared<Stream>(); }

std::unique_ptr<backend::Buffer> CpuDevice::allocate(size_t bytes, std::shared_ptr<backend::Stream> bound,
                                                     const char* what) {
  std::unique_lock lk(mu_);
  if (opt_.simulated && live_bytes_ + bytes > opt_.capacity)
    throw Error(name() + ": out of memory allocating " + what + " (" + std::to_string(bytes) + " bytes; " +
                std::to_string(live_bytes_) + " of " + std::to_string(opt_.capacity) + " in use)");
  const bool staging = bound != nullptr;
  auto b = std::make_unique<Buffer>(this, bytes, std::move(bound));
  live_[reinterpret_cast<uintptr_t>(b->data())] = bytes;
  live_bytes_ += bytes;
  lk.unlock();
  // Memory bound to a stream is a partition's working set (or a tool's workspace): the floor of
  // staging one partition is taken here, once, while a key's upload (memory of its own) has none.
  if (staging) sleep_ms(opt_.stage_ms / opt_.speed);
  return b;
}

void CpuDevice::release(void* p, size_t bytes) {
  std::lock_guard lk(mu_);
  live_.erase(reinterpret_cast<uintptr_t>(p));
  live_bytes_ -= bytes;
}

size_t CpuDevice::allocated_bytes() const {
  std::lock_guard lk(mu_);
  return live_bytes_;
}

void CpuDevice::require_live(const void* p, size_t bytes, const char* what) {
  if (!opt_.simulated || bytes == 0) return;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard lk(mu_);
  auto it = live_.upper_bound(a);
  if (it != live_.begin()) {
    --it;
    if (a >= it->first && a + bytes <= it->first + it->second) return;
  }
  ++hazards_;
  throw Error(name() + ": " + what + " touches memory that is not allocated (freed while work on it was queued?)");
}

void CpuDevice::kernel_floor(double share, std::chrono::steady_clock::time_point t0) const {
  const double spent = ms_since(t0);
  sleep_ms(opt_.kernel_ms * share / opt_.speed - spent);
}

void CpuDevice::copy_to_device(void* dst, const void* src, size_t bytes, backend::Stream& s, const char* what) {
  // The source may be reused once this returns: the copy is done here.
  if (opt_.copy_seen) opt_.copy_seen(what, dst, src, bytes);
  require_live(dst, bytes, what);
  std::memcpy(dst, src, bytes);
  (void)s;
}

std::shared_ptr<void> CpuDevice::pin_host(const void* p, size_t bytes) const {
  if (!opt_.pin_seen) return nullptr;
  opt_.pin_seen(p, bytes);
  return std::shared_ptr<void>(const_cast<void*>(p), [](void*) {});
}

namespace {
// Plain memory (from new uint64_t[]) standing in for a page-locked buffer: `dropped` sees its end.
std::shared_ptr<void> stand_in(uint64_t* q, const std::function<void(const void*)>& dropped) {
  return std::shared_ptr<void>(q, [dropped](void* x) {
    if (dropped) dropped(x);
    delete[] static_cast<uint64_t*>(x);
  });
}
}  // namespace

std::shared_ptr<void> CpuDevice::copy_page_locked(const void* p, size_t bytes) const {
  if (!opt_.copy_locked_seen) return nullptr;
  auto copy = stand_in(new uint64_t[(bytes + 7) / 8], opt_.copy_dropped);
  std::memcpy(copy.get(), p, bytes);
  opt_.copy_locked_seen(p, copy.get(), bytes);
  return copy;
}

std::shared_ptr<void> CpuDevice::page_locked_buffer(size_t bytes) const {
  if (!opt_.locked_buffer_seen) return nullptr;
  auto* q = new uint64_t[(bytes + 7) / 8];
  if (!opt_.locked_buffer_seen(q, bytes)) {  // none free
    delete[] q;
    return nullptr;
  }
  return stand_in(q, opt_.copy_dropped);
}

void CpuDevice::evaluate_abc(CurveId curve, size_t n, backend::CsrView A, backend::CsrView B, const void* w, void* a,
                             void* b, void* c, backend::Stream& s) {
  st(s).enqueue([=, this] {
    if (opt_.abc_starts) opt_.abc_starts();
    const auto t0 = std::chrono::steady_clock::now();
    for (void* p : {a, b, c}) require_live(p, n * 32, "evaluate_abc");
    curve_ops(curve).evaluate_abc(n, A, B, w, a, b, c, pool_);
    kernel_floor(1.0 / 7, t0);
    for (void* p : {a, b, c}) require_live(p, n * 32, "evaluate_abc (its writes)");
  });
  if (opt_.after_enqueue) opt_.after_enqueue("evaluate_abc");
}

void CpuDevice::compute_h(CurveId curve, int log_n, backend::HForm form, void* a, void* b, void* c, void* h_out,
                          backend::Memory, backend::Stream& s) {
  st(s).enqueue([=, this] {
    const auto t0 = std::chrono::steady_clock::now();
    const size_t n = size_t(1) << log_n;
    for (void* p : {a, b, c, h_out}) require_live(p, n * 32, "compute_h");
    curve_ops(curve).compute_h(log_n, form, a, b, c, h_out, pool_);
    kernel_floor(1.0 / 7, t0);
    require_live(h_out, n * 32, "compute_h (its writes)");
  });
  if (opt_.after_enqueue) opt_.after_enqueue("compute_h");
}

void CpuDevice::gather(const void* src, const uint32_t* index, size_t count, void* dst, backend::Stream& s) {
  st(s).enqueue([=, this] {
    require_live(index, count * sizeof(uint32_t), "gather (its index)");
    require_live(dst, count * 32, "gather");
    struct Scalar32 {
      uint64_t v[4];
    };
    const auto* in = static_cast<const Scalar32*>(src);
    auto* out = static_cast<Scalar32*>(dst);
    pool_.parallel_for(
        count,
        [&](size_t lo, size_t hi) {
          for (size_t i = lo; i < hi; ++i) out[i] = in[index[i]];
        },
        4096);
    require_live(dst, count * 32, "gather (its writes)");
  });
  if (opt_.after_enqueue) opt_.after_enqueue("gather");
}

backend::TablePlan CpuDevice::msm_table_plan(CurveId curve, backend::Group g, size_t n, size_t max_bytes) const {
  if (!opt_.simulated || !opt_.table_plan) return {};
  return opt_.table_plan(curve, g, n, max_bytes);
}

void CpuDevice::make_msm_tables(const backend::MsmConfig& cfg, void* out, backend::Stream& s) {
  if (!opt_.simulated || !opt_.table_plan) Device::make_msm_tables(cfg, out, s);
  if (cfg.tables < 2 || cfg.window_bits == 0)
    throw InvalidArgument(name() + ": msm tables: " + std::to_string(cfg.tables) + " tables of " +
                          std::to_string(cfg.window_bits) + "-bit windows");
  const auto& ops = curve_ops(cfg.curve);
  const size_t point = cfg.group == backend::Group::G1 ? ops.g1_bytes : ops.g2_bytes, bytes = cfg.count * point;
  require_live(out, bytes * cfg.tables, "msm tables");
  require_live(cfg.bases, bytes, "msm tables (bases)");
  st(s).enqueue([=] {
    if (out != cfg.bases) std::memcpy(out, cfg.bases, bytes);
    for (unsigned k = 1; k < cfg.tables; ++k) std::memcpy(static_cast<char*>(out) + k * bytes, cfg.bases, bytes);
  });
  st(s).sync();
}

void CpuDevice::msm(const backend::MsmConfig& cfg, backend::Memory ws, void* result, backend::Stream& s) {
  if (cfg.tables == 0 || (cfg.tables > 1 && (cfg.window_bits == 0 || cfg.bases_at != backend::Where::Device)))
    throw InvalidArgument(name() + ": msm: " + std::to_string(cfg.tables) +
                          " tables need their window_bits and "
                          "device bases");
  if (cfg.bases2 && cfg.bases_at != backend::Where::Device)
    throw InvalidArgument(name() + ": msm: a second array of bases must be on the device, as the first");
  if (cfg.bases3 && !cfg.bases2) throw InvalidArgument(name() + ": msm: a third array of bases needs a second");
  if (opt_.msm_seen) opt_.msm_seen(cfg);
  st(s).enqueue([=, this] {
    const auto t0 = std::chrono::steady_clock::now();
    const auto& ops = curve_ops(cfg.curve);
    const size_t point = cfg.group == backend::Group::G1 ? ops.g1_bytes : ops.g2_bytes;
    Carver carve(ws.ptr, ws.bytes, name());
    const void* bases = cfg.bases;
    const void* scalars = cfg.scalars;
    if (opt_.simulated && cfg.bases_at == backend::Where::Host) {
      void* copy = carve.take(cfg.count * point, "msm bases");
      std::memcpy(copy, bases, cfg.count * point);
      bases = copy;
    } else {
      require_live(bases, cfg.count * point * cfg.tables, "msm bases (and tables)");
    }
    if ((opt_.simulated && cfg.scalars_at == backend::Where::Host) ||
        cfg.scalar_form == backend::ScalarForm::Montgomery) {
      void* copy = carve.take(cfg.count * 32, "msm scalars");
      if (cfg.scalars_at == backend::Where::Device) require_live(scalars, cfg.count * 32, "msm scalars");
      if (cfg.scalar_form == backend::ScalarForm::Montgomery)
        ops.to_standard(scalars, copy, cfg.count, pool_);
      else
        std::memcpy(copy, scalars, cfg.count * 32);
      scalars = copy;
    } else {
      require_live(scalars, cfg.count * 32, "msm scalars");
    }
    if (opt_.simulated && carve.used() > 0) require_live(ws.ptr, carve.used(), "msm workspace");
    ops.msm(cfg.group, bases, scalars, cfg.count, result, pool_);
    // Each further sum lands after the one before (a Jacobian point: 3 coordinates).
    const void* more[2] = {cfg.bases2, cfg.bases3};
    for (int k = 0; k < 2 && more[k]; ++k) {
      require_live(more[k], cfg.count * point * cfg.tables, "msm further bases (and tables)");
      ops.msm(cfg.group, more[k], scalars, cfg.count, static_cast<char*>(result) + (k + 1) * (point / 2 * 3), pool_);
    }
    kernel_floor(1.0 / 7, t0);
  });
  if (opt_.after_enqueue) opt_.after_enqueue("msm");
  st(s).sync();
  if (opt_.msm_done) opt_.msm_done(cfg);
}

void CpuDevice::fixed_base_mul(CurveId curve, backend::Group g, const void* base, const void* scalars, size_t n,
                               void* out, backend::Memory, backend::Stream& s) {
  st(s).enqueue([=, this] { curve_ops(curve).fixed_base_mul(g, base, scalars, n, out, pool_); });
  st(s).sync();
}

void CpuDevice::synchronize(backend::Stream& s) { st(s).sync(); }

}  // namespace cuzk::cpu
