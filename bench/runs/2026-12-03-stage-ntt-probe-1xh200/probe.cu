// SPDX-License-Identifier: MIT OR Apache-2.0
// Where a proof's stage goes: host copy rates, pageable and page-locked transfers, the staged
// copy with 1..16 filling threads, and the memory pool's allocation of a working set.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
#define CK(x)                                              \
  do {                                                     \
    cudaError_t e_ = (x);                                  \
    if (e_ != cudaSuccess) {                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); \
      return 1;                                            \
    }                                                      \
  } while (0)

static void par_copy(char* dst, const char* src, size_t len, int threads) {
  std::vector<std::thread> t;
  const size_t per = (len + threads - 1) / threads;
  for (int i = 0; i < threads; ++i) {
    const size_t a = std::min(len, i * per), b = std::min(len, a + per);
    t.emplace_back([=] { std::memcpy(dst + a, src + a, b - a); });
  }
  for (auto& x : t) x.join();
}

int main() {
  const size_t bytes = size_t(512) << 20;
  std::vector<char> src(bytes), dst(bytes);
  for (size_t i = 0; i < bytes; i += 4096) src[i] = char(i), dst[i] = 1;
  std::printf("host cores %u\n", std::thread::hardware_concurrency());
  for (int th : {1, 2, 4, 8, 12, 16}) {
    double best = 1e9;
    for (int r = 0; r < 3; ++r) {
      auto t0 = Clock::now();
      par_copy(dst.data(), src.data(), bytes, th);
      best = std::min(best, ms_since(t0));
    }
    std::printf("host memcpy 512 MiB, %2d threads: %.1f ms (%.1f GB/s)\n", th, best, bytes / best / 1e6);
  }
  char* dev = nullptr;
  CK(cudaMalloc(&dev, bytes));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int r = 0; r < 3; ++r) {
    auto t0 = Clock::now();
    CK(cudaMemcpy(dev, src.data(), bytes, cudaMemcpyHostToDevice));
    std::printf("cudaMemcpy pageable 512 MiB: %.1f ms\n", ms_since(t0));
  }
  char* pinned = nullptr;
  {
    auto t0 = Clock::now();
    CK(cudaHostAlloc(&pinned, bytes, cudaHostAllocPortable));
    std::printf("cudaHostAlloc 512 MiB: %.1f ms\n", ms_since(t0));
  }
  std::memcpy(pinned, src.data(), bytes);
  for (int r = 0; r < 3; ++r) {
    auto t0 = Clock::now();
    CK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, s));
    CK(cudaStreamSynchronize(s));
    std::printf("DMA page-locked 512 MiB: %.1f ms\n", ms_since(t0));
  }
  for (int r = 0; r < 2; ++r) {
    auto t0 = Clock::now();
    CK(cudaHostRegister(dst.data(), bytes, cudaHostRegisterPortable));
    const double reg = ms_since(t0);
    t0 = Clock::now();
    CK(cudaHostUnregister(dst.data()));
    std::printf("cudaHostRegister 512 MiB: %.1f ms, unregister %.1f ms\n", reg, ms_since(t0));
  }
  // The staged copy: chunks through `nb` pinned buffers, each filled by `th` threads.
  for (size_t chunk : {size_t(8) << 20, size_t(32) << 20})
    for (int nb : {2, 4})
      for (int th : {1, 4, 8, 12, 16}) {
        std::vector<char*> buf(nb);
        std::vector<cudaEvent_t> ev(nb);
        for (int i = 0; i < nb; ++i) {
          CK(cudaHostAlloc(&buf[i], chunk, cudaHostAllocPortable));
          CK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
        }
        double best = 1e9;
        for (int r = 0; r < 3; ++r) {
          std::vector<bool> pend(nb, false);
          auto t0 = Clock::now();
          int i = 0;
          for (size_t off = 0; off < bytes; off += chunk, i = (i + 1) % nb) {
            if (pend[i]) CK(cudaEventSynchronize(ev[i]));
            par_copy(buf[i], src.data() + off, chunk, th);
            CK(cudaMemcpyAsync(dev + off, buf[i], chunk, cudaMemcpyHostToDevice, s));
            CK(cudaEventRecord(ev[i], s));
            pend[i] = true;
          }
          CK(cudaStreamSynchronize(s));
          best = std::min(best, ms_since(t0));
        }
        std::printf("staged 512 MiB, chunk %zu MiB x %d, %2d threads: %.1f ms (%.1f GB/s)\n", chunk >> 20, nb, th, best,
                    bytes / best / 1e6);
        for (int k = 0; k < nb; ++k) cudaFreeHost(buf[k]), cudaEventDestroy(ev[k]);
      }
  // The pool: a 3 GiB working set allocated and freed per proof.
  for (int keep = 0; keep < 2; ++keep) {
    cudaMemPool_t pool;
    CK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t thr = keep ? UINT64_MAX : 0;
    CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
    for (int r = 0; r < 4; ++r) {
      void* p = nullptr;
      auto t0 = Clock::now();
      CK(cudaMallocAsync(&p, size_t(3) << 30, s));
      CK(cudaStreamSynchronize(s));
      const double a = ms_since(t0);
      t0 = Clock::now();
      CK(cudaFreeAsync(p, s));
      CK(cudaStreamSynchronize(s));
      std::printf("pool (release threshold %s): 3 GiB malloc+sync %.2f ms, free+sync %.2f ms\n", keep ? "max" : "0", a,
                  ms_since(t0));
    }
    CK(cudaMemPoolTrimTo(pool, 0));
  }
  return 0;
}
