// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend as a backend::Device: one GPU by ordinal. Every call names its DeviceId, so
// nothing here depends on (or changes) the calling thread's current device.
#include <algorithm>

#include "backend/cuda/decode_points.hpp"
#include "backend/cuda/device_alloc.hpp"
#include "backend/cuda/fixed_base.hpp"
#include "backend/cuda/msm.hpp"
#include "backend/cuda/ntt.hpp"
#include "backend/cuda/pce.hpp"
#include "backend/cuda/probe.hpp"
#include "backend/spec.hpp"

namespace cuzk::cuda {

namespace {

using backend::Buffer;
using backend::CsrView;
using backend::Memory;
using backend::MsmConfig;
using backend::Stream;

struct CudaStream final : Stream {
  gpu::DeviceId dev;
  gpu::StreamHandle h;
  explicit CudaStream(gpu::DeviceId d) : dev(d), h(gpu::create_stream(d)) {}
  ~CudaStream() override { gpu::destroy_stream(dev, h); }
};

gpu::StreamHandle handle(Stream& s) { return static_cast<CudaStream&>(s).h; }

struct CudaClock final : backend::DeviceClock {
  gpu::StreamClock clock;
  CudaClock(gpu::DeviceId dev, gpu::StreamHandle s) : clock(dev, s) {}
  void start() override { clock.start(); }
  double stop_ms() override { return clock.stop_ms(); }
};

struct CudaBuffer final : Buffer {
  std::shared_ptr<Stream> bound;  // kept alive until the memory is free
  gpu::PoolBuffer mem;
  CudaBuffer(gpu::DeviceId dev, size_t bytes, const char* what, std::shared_ptr<Stream> b)
      : bound(std::move(b)), mem(dev, bytes, what, bound ? static_cast<CudaStream&>(*bound).h : gpu::StreamHandle{}) {
    mem_ = Memory{mem.memory().ptr, bytes};
  }
};

class CudaDevice final : public backend::Device {
 public:
  CudaDevice(int ordinal, std::string description, size_t total)
      : Device("gpu:" + std::to_string(ordinal)), dev_{ordinal}, description_(std::move(description)), total_(total) {}

  std::string description() const override { return description_; }
  // Free memory now less a margin: 1 GiB, or 3% of the card if that is more.
  size_t default_budget() const override {
    size_t free_b = 0, total = 0;
    gpu::memory_info(dev_, &free_b, &total);
    const size_t margin = std::max(size_t(1) << 30, total / 33);
    return free_b > margin ? free_b - margin : 0;
  }
  bool shares_host_memory() const override { return false; }

  size_t msm_workspace_bytes(const MsmConfig& cfg) const override { return gpu::msm_workspace_bytes(dev_, cfg); }
  size_t h_workspace_bytes(CurveId curve, int log_n, backend::HForm form) const override {
    return gpu::h_workspace_bytes(curve, log_n, form);
  }
  size_t fixed_base_workspace_bytes(CurveId curve, backend::Group g, size_t chunk) const override {
    return gpu::fixed_base_workspace_bytes(curve, g, chunk);
  }

  std::shared_ptr<Stream> make_stream() override { return std::make_shared<CudaStream>(dev_); }
  std::unique_ptr<Buffer> allocate(size_t bytes, std::shared_ptr<Stream> bound, const char* what) override {
    return std::make_unique<CudaBuffer>(dev_, bytes, what, std::move(bound));
  }
  void copy_to_device(void* dst, const void* src, size_t bytes, Stream&, const char* what) override {
    gpu::copy_to_device_staged(dev_, dst, src, bytes, what);  // returns when the data is there
  }
  std::shared_ptr<void> pin_host(const void* p, size_t bytes) const override { return gpu::pin_host(dev_, p, bytes); }
  std::shared_ptr<void> copy_page_locked(const void* p, size_t bytes) const override {
    return gpu::copy_page_locked(p, bytes);
  }
  std::shared_ptr<void> page_locked_buffer(size_t bytes) const override { return gpu::page_locked_buffer(bytes); }
  void keep_page_locked(size_t bytes, size_t count) const override { gpu::keep_page_locked_copies(dev_, bytes, count); }
  void release_idle_memory() override {
    gpu::trim_pool(dev_);
    gpu::free_page_locked_copies();
  }
  void evaluate_abc(CurveId curve, size_t n_rows, CsrView A, CsrView B, const void* w, void* a, void* b, void* c,
                    Stream& s) override {
    gpu::evaluate_abc(dev_, curve, n_rows, A, B, w, a, b, c, handle(s));
  }
  void compute_h(CurveId curve, int log_n, backend::HForm form, void* a, void* b, void* c, void* h_out, Memory scratch,
                 Stream& s) override {
    gpu::compute_h(dev_, curve, log_n, a, b, c, h_out, mem(scratch), handle(s), nullptr, form);
  }
  void gather(const void* src, const uint32_t* index, size_t count, void* dst, Stream& s) override {
    gpu::gather_scalars(dev_, src, index, count, dst, handle(s));
  }
  void msm(const MsmConfig& cfg, Memory workspace, void* result, Stream& s) override {
    gpu::msm(dev_, cfg, mem(workspace), result, handle(s));
  }
  backend::TablePlan msm_table_plan(CurveId curve, backend::Group g, size_t n, size_t max_bytes) const override {
    constexpr unsigned kMaxTables = 24;  // as many as the widest plan's windows could want (c = 11)
    const auto p = gpu::msm_table_plan(curve, g, n, kMaxTables, std::min(max_bytes, gpu::kMsmTablesReach));
    return {p.window_bits, p.tables};
  }
  void make_msm_tables(const MsmConfig& cfg, void* out, Stream& s) override {
    gpu::msm_make_tables(dev_, cfg, out, handle(s));
  }
  void fixed_base_mul(CurveId curve, backend::Group g, const void* base, const void* scalars, size_t n, void* out,
                      Memory workspace, Stream&) override {
    gpu::fixed_base_mul(dev_, curve, g, base, scalars, n, out, mem(workspace));
  }
  void synchronize(Stream& s) override { gpu::synchronize(dev_, handle(s), "stream synchronize"); }
  std::unique_ptr<backend::DeviceClock> clock(Stream& s) override {
    return std::make_unique<CudaClock>(dev_, handle(s));
  }
  size_t decode_workspace_bytes() const override { return gpu::decode_points_workspace_bytes(); }
  std::optional<DecodeFailure> decode_points(backend::Group g, const void* raw, size_t n, void* out,
                                             bool refuse_identity, Memory workspace, const HostCopy& copy) override {
    uint8_t code = 0;
    const size_t bad =
        gpu::decode_points(dev_, g == backend::Group::G2, raw, n, out, refuse_identity, mem(workspace), copy, code);
    if (bad == n) return std::nullopt;
    return DecodeFailure{bad, code};
  }

 private:
  gpu::DeviceMemory mem(Memory m) const { return gpu::DeviceMemory{dev_, m.ptr, m.bytes}; }
  gpu::DeviceId dev_;
  std::string description_;
  size_t total_;
};

}  // namespace

std::unique_ptr<backend::Device> open_gpu(int ordinal) {
  for (auto& g : list_devices())
    if (g.ordinal == ordinal) return std::make_unique<CudaDevice>(ordinal, g.name, g.total_memory);
  throw InvalidArgument("gpu:" + std::to_string(ordinal) + " is not available (" +
                        std::to_string(list_devices().size()) + " GPU(s) visible)");
}

}  // namespace cuzk::cuda
