// SPDX-License-Identifier: MIT OR Apache-2.0
// What page-locking 4 GiB of host memory costs a copy running beside it: one thread copies
// 256 MiB pieces host -> device from page-locked memory (as a streamed key's rows are), each
// copy synchronous; another, 0.3 s in, page-locks a 4 GiB pageable buffer (one
// cudaHostRegister, or 64 MiB pieces) or copies it into a page-locked buffer allocated before
// (8 threads' memcpy). Prints the copies' rate before, during and after, and the locking's time.
// Build: nvcc -O2 -std=c++17 -o pinprobe pinprobe.cu
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <thread>
#include <vector>

using clk = std::chrono::steady_clock;
static double now_s() { return std::chrono::duration<double>(clk::now().time_since_epoch()).count(); }
#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

int main() {
  const size_t kPiece = size_t(256) << 20, kSrc = size_t(2) << 30, kWit = size_t(4) << 30;
  void *src = nullptr, *dst = nullptr, *staging = nullptr;
  CK(cudaHostAlloc(&src, kSrc, cudaHostAllocPortable));
  std::memset(src, 1, kSrc);
  CK(cudaMalloc(&dst, kSrc));
  CK(cudaHostAlloc(&staging, kWit, cudaHostAllocPortable));
  std::memset(staging, 0, kWit);
  char* wit = static_cast<char*>(std::aligned_alloc(4096, kWit));
  std::memset(wit, 3, kWit);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (int i = 0; i < 4; ++i) CK(cudaMemcpy(dst, src, kSrc, cudaMemcpyHostToDevice));  // warm

  auto lock = [&](int mode) -> double {  // seconds; mode 0: one call, 1: 64 MiB pieces, 2: memcpy
    const double t0 = now_s();
    if (mode == 0) {
      CK(cudaHostRegister(wit, kWit, cudaHostRegisterPortable));
    } else if (mode == 1) {
      for (size_t off = 0; off < kWit; off += size_t(64) << 20)
        CK(cudaHostRegister(wit + off, size_t(64) << 20, cudaHostRegisterPortable));
    } else {
      std::vector<std::thread> th;
      for (int t = 0; t < 8; ++t)
        th.emplace_back([&, t] {
          const size_t part = kWit / 8;
          std::memcpy(static_cast<char*>(staging) + t * part, wit + t * part, part);
        });
      for (auto& x : th) x.join();
    }
    return now_s() - t0;
  };
  auto unlock = [&](int mode) -> double {
    const double t0 = now_s();
    if (mode == 0) CK(cudaHostUnregister(wit));
    if (mode == 1)
      for (size_t off = 0; off < kWit; off += size_t(64) << 20) CK(cudaHostUnregister(wit + off));
    return now_s() - t0;
  };
  const char* names[] = {"one cudaHostRegister", "64 MiB pieces", "memcpy into a page-locked buffer"};
  for (int mode : {0, 1, 2, 0, 1, 2}) {
    // Alone first.
    const double la = lock(mode), ua = unlock(mode);
    std::vector<std::pair<double, double>> copies;  // (end time, seconds)
    std::atomic<bool> stop{false};
    double l0 = 0, l1 = 0, u0 = 0, u1 = 0;
    std::thread copier([&] {
      size_t off = 0;
      while (!stop) {
        const double t0 = now_s();
        CK(cudaMemcpyAsync(static_cast<char*>(dst) + off, static_cast<char*>(src) + off, kPiece, cudaMemcpyHostToDevice,
                           st));
        CK(cudaStreamSynchronize(st));
        copies.emplace_back(now_s(), now_s() - t0);
        off = (off + kPiece) % kSrc;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    l0 = now_s();
    lock(mode);
    l1 = now_s();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    u0 = now_s();
    unlock(mode);
    u1 = now_s();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
    copier.join();
    auto rate = [&](double a, double b) {
      double bytes = 0, secs = 0, worst = 0;
      for (auto [end, s] : copies)
        if (end - s >= a && end <= b) bytes += kPiece, secs += s, worst = std::max(worst, s);
      for (auto [end, s] : copies)  // a copy that straddles the window counts too
        if (end > a && end - s < a) worst = std::max(worst, s);
      std::printf("   copies %.1f GB/s (%0.f in the window, slowest %.1f ms)", secs > 0 ? bytes / secs / 1e9 : 0.0,
                  bytes / kPiece, worst * 1e3);
    };
    std::printf("%s: alone lock %.0f ms, unlock %.0f ms; beside copies lock %.0f ms, unlock %.0f ms\n", names[mode],
                la * 1e3, ua * 1e3, (l1 - l0) * 1e3, (u1 - u0) * 1e3);
    std::printf("  before:"), rate(l0 - 0.28, l0), std::printf("\n");
    std::printf("  while locking:"), rate(l0, l1), std::printf("\n");
    std::printf("  between:"), rate(l1, u0), std::printf("\n");
    std::printf("  while unlocking:"), rate(u0, u1), std::printf("\n");
  }
  return 0;
}
