// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend as a backend::Device. Two forms:
//  - `cpu`: proves on the host's memory in place (a key needs no copy and no budget); its
//    default budget is the host's physical memory;
//  - `sim:K`: a simulated device for tests and load figures: memory of its own (allocations are
//    counted against a declared capacity and fail beyond it, as a GPU's do; keys are copied in),
//    streams that run their work asynchronously, and floors on the time of kernels, staging
//    copies and frees (at a given speed), so that the scheduler meets what it meets on a GPU.
// Work on a stream runs on that stream's own thread, in order, using the device's thread pool.
// A simulated device also checks that no work touches memory that was freed: such an access is
// refused and counted (hazards()), where a GPU would corrupt whoever holds that memory now.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backend/device.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cpu {

struct CpuDeviceOptions {
  std::string name = "cpu";
  bool simulated = false;  // sim:K: memory of its own, capacity enforced
  size_t capacity = 0;     // simulated: bytes it can allocate (0 = 16 GiB)
  unsigned threads = 0;    // threads of its kernels (0 = hardware threads)
  double speed = 1.0;      // floors below are divided by it
  double kernel_ms = 0;    // floor of one partition's kernels (a, b, c; H; five MSMs: 1/7 each)
  double stage_ms = 0;     // floor of staging one partition (taken when its working set is allocated)
  double free_ms = 0;      // floor of each free (a GPU's free waits for its work)
  // Tests: called on the calling thread once an operation's work is queued ("evaluate_abc",
  // "compute_h", "msm"); if it throws, the call throws with that work still queued, as a device
  // error reported after a launch does.
  std::function<void(const char* op)> after_enqueue;
  // Tests: a device clock for the sequence's device-time path (the CPU has none of its own).
  std::function<std::unique_ptr<backend::DeviceClock>()> clock;
  // Tests, simulated devices: MSM tables planned as this says (null: none). The device "makes"
  // them by copying table 0 (its MSM reads table 0, the bases, whatever the tables) and shows
  // every MSM's configuration to `msm_seen`.
  std::function<backend::TablePlan(CurveId, backend::Group, size_t n, size_t max_bytes)> table_plan;
  std::function<void(const backend::MsmConfig&)> msm_seen;
  // Tests: called once an MSM's sums are done, as its call returns.
  std::function<void(const backend::MsmConfig&)> msm_done;
  // Tests: shown every copy_to_device before it copies (what it names, where to, where from, how
  // many bytes); if it throws, so does the copy, having copied nothing.
  std::function<void(const char* what, const void* dst, const void* src, size_t bytes)> copy_seen;
  // Tests: shown every pin_host call, which then returns a handle (else null: nothing to gain).
  std::function<void(const void* p, size_t bytes)> pin_seen;
  // Tests: shown every copy_page_locked call with the copy it returns (plain memory), whose end
  // calls `copy_dropped` with it (else the call returns null).
  std::function<void(const void* p, const void* copy, size_t bytes)> copy_locked_seen;
  std::function<void(const void* p)> copy_dropped;
  // Tests: shown every page_locked_buffer call with the buffer it would return (plain memory,
  // whose end calls `copy_dropped` with it), which it returns if this says true (else null: none
  // free); no hook: always null.
  std::function<bool(const void* buffer, size_t bytes)> locked_buffer_seen;
  // Tests: shown every keep_page_locked call.
  std::function<void(size_t bytes, size_t count)> keep_seen;
  // Tests: called on a stream's thread as an evaluate_abc begins (before it reads anything).
  std::function<void()> abc_starts;
  // Tests: called by release_idle_memory (this device keeps no idle memory).
  std::function<void()> idle_released;
};

class CpuDevice final : public backend::Device {
 public:
  explicit CpuDevice(CpuDeviceOptions o);
  ~CpuDevice() override;

  std::string description() const override;
  size_t default_budget() const override;
  bool shares_host_memory() const override { return !opt_.simulated; }

  size_t msm_workspace_bytes(const backend::MsmConfig& cfg) const override;
  size_t h_workspace_bytes(CurveId curve, int log_n, backend::HForm form) const override;
  size_t fixed_base_workspace_bytes(CurveId curve, backend::Group g, size_t chunk) const override;

  std::shared_ptr<backend::Stream> make_stream() override;
  std::unique_ptr<backend::Buffer> allocate(size_t bytes, std::shared_ptr<backend::Stream> bound,
                                            const char* what) override;
  void copy_to_device(void* dst, const void* src, size_t bytes, backend::Stream& s, const char* what) override;
  std::shared_ptr<void> pin_host(const void* p, size_t bytes) const override;
  std::shared_ptr<void> copy_page_locked(const void* p, size_t bytes) const override;
  std::shared_ptr<void> page_locked_buffer(size_t bytes) const override;
  void keep_page_locked(size_t bytes, size_t count) const override {
    if (opt_.keep_seen) opt_.keep_seen(bytes, count);
  }
  void evaluate_abc(CurveId curve, size_t n_rows, backend::CsrView A, backend::CsrView B, const void* w, void* a,
                    void* b, void* c, backend::Stream& s) override;
  void compute_h(CurveId curve, int log_n, backend::HForm form, void* a, void* b, void* c, void* h_out,
                 backend::Memory scratch, backend::Stream& s) override;
  void gather(const void* src, const uint32_t* index, size_t count, void* dst, backend::Stream& s) override;
  void msm(const backend::MsmConfig& cfg, backend::Memory workspace, void* result, backend::Stream& s) override;
  backend::TablePlan msm_table_plan(CurveId curve, backend::Group g, size_t n, size_t max_bytes) const override;
  void make_msm_tables(const backend::MsmConfig& cfg, void* out, backend::Stream& s) override;
  void fixed_base_mul(CurveId curve, backend::Group g, const void* base, const void* scalars, size_t n, void* out,
                      backend::Memory workspace, backend::Stream& s) override;
  void release_idle_memory() override {
    if (opt_.idle_released) opt_.idle_released();
  }
  void synchronize(backend::Stream& s) override;
  std::unique_ptr<backend::DeviceClock> clock(backend::Stream&) override { return opt_.clock ? opt_.clock() : nullptr; }

  // Simulated devices: accesses refused because the memory had been freed (0 on a correct engine).
  size_t hazards() const { return hazards_.load(); }
  size_t allocated_bytes() const;

  struct Buffer;
  struct Stream;

 private:
  void release(void* p, size_t bytes);
  // Throws (and counts a hazard) unless [p, p + bytes) lies in memory allocated here. Host
  // memory of a `cpu` device is not tracked.
  void require_live(const void* p, size_t bytes, const char* what);
  // Sleeps out what is left of `share` of the kernels' floor since t0.
  void kernel_floor(double share, std::chrono::steady_clock::time_point t0) const;

  CpuDeviceOptions opt_;
  ThreadPool pool_;
  mutable std::mutex mu_;
  std::map<uintptr_t, size_t> live_;  // simulated: allocations by address
  size_t live_bytes_ = 0;
  std::atomic<size_t> hazards_{0};
};

}  // namespace cuzk::cpu
