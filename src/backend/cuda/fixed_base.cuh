// SPDX-License-Identifier: MIT OR Apache-2.0
// GPU fixed-base scalar multiplication, generic over the point field F (Fp for G1, Fp2 for G2).
// Instantiated per curve in fixed_base_bn254.cu / fixed_base_bls12_381.cu; the API and the
// method are described in fixed_base.hpp. In short, per call:
//
//  1. table_kernel: thread (w, d) computes [d * 2^(c w)] B by double-and-add on d and c w
//     doublings (XYZZ), converts to affine (one Fermat inversion) and stores T[w][d - 1];
//     W * 2^(c-1) threads, once per call;
//  2. per chunk of scalars: copy in, mul_kernel (thread i: Booth digits d_w of k_i, acc +=
//     sign(d_w) T[w][|d_w| - 1] with XYZZ mixed additions, then affine by one inversion;
//     infinity comes out as (0, 0)), copy out.
//
// Booth digits: d_w = bits[c w, c w + c) + bit (c w - 1) - 2^c * bit (c w + c - 1), in
// [-2^(c-1), 2^(c-1)]; sum_w d_w 2^(c w) = k exactly when the top bit of the last window is
// zero, which holds for every 256-bit k since c W = 264 > 256.
#pragma once
#include <algorithm>
#include <cstring>
#include <cuda_runtime.h>
#include <string>

#include "backend/cuda/common.cuh"
#include "backend/cuda/fixed_base.hpp"
#include "backend/cuda/scalar_digits.cuh"
#include "ec/curve.hpp"

namespace cuzk::gpu::fixed_base_impl {

using ec::Affine;
using ec::XYZZ;

using digits::load16;
using digits::Scalar4;
using digits::signed_digit;
using digits::store16;

constexpr unsigned kC = kFixedBaseC;
constexpr unsigned kW = kFixedBaseWindows;
constexpr uint32_t kH = 1u << (kC - 1);  // table entries per window: digits 1 .. 2^(c-1)
constexpr unsigned kBlock = 128;
constexpr size_t kMaxChunk = size_t(1) << 30;  // scalars per launch at most (grid and index sizes)
static_assert(kC * kW > 256, "the signed expansion of a 256-bit scalar needs a zero top bit");
static_assert(kFixedBaseTableEntries == size_t(kW) * kH);

// ------------------------------------------------------------------ kernels

// table[w * kH + d - 1] = [d * 2^(c w)] base, affine ((0, 0) for infinity).
template <class F>
__global__ void __launch_bounds__(kBlock) table_kernel(Affine<F> base, Affine<F>* table) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kW * kH) return;
  const uint32_t w = t / kH, d = t % kH + 1;
  XYZZ<F> acc = XYZZ<F>::infinity();
#pragma unroll 1
  for (int bit = kC - 1; bit >= 0; --bit) {  // d <= 2^(c-1): c bits
    acc = acc.dbl();
    if ((d >> bit) & 1) acc = acc.add_affine(base);
  }
#pragma unroll 1
  for (uint32_t j = 0; j < kC * w; ++j) acc = acc.dbl();
  store16(table + t, acc.to_affine());
}

// out[i] = [k_i] base for i < m, from the table.
template <class F>
__global__ void __launch_bounds__(kBlock)
    mul_kernel(const Affine<F>* __restrict__ table, const Scalar4* __restrict__ scalars, uint32_t m,
               Affine<F>* __restrict__ out) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const Scalar4 k = load16(scalars + i);
  XYZZ<F> acc = XYZZ<F>::infinity();
#pragma unroll 1
  for (unsigned w = 0; w < kW; ++w) {
    int32_t d = signed_digit(k, w, kC);
    if (d == 0) continue;
    Affine<F> q = load16(table + size_t(w) * kH + uint32_t((d < 0 ? -d : d) - 1));
    if (d < 0) q.y = -q.y;
    acc = acc.add_affine(q);
  }
  store16(out + i, acc.to_affine());
}

// ------------------------------------------------------------------ host side

inline unsigned blocks_for(size_t threads) { return unsigned((threads + kBlock - 1) / kBlock); }

template <class F>
struct FixedBase {
  using Aff = Affine<F>;
  static_assert(sizeof(Aff) % 16 == 0, "points are moved 16 bytes at a time");

  struct Buffers {
    Aff* table = nullptr;
    Scalar4* scalars = nullptr;
    Aff* out = nullptr;
  };

  static Buffers carve(Carver& cv, size_t chunk) {
    Buffers b;
    b.table = cv.take<Aff>(kFixedBaseTableEntries, "fixed-base table");
    b.scalars = cv.take<Scalar4>(chunk, "fixed-base scalars");
    b.out = cv.take<Aff>(chunk, "fixed-base outputs");
    return b;
  }

  static size_t workspace_bytes(size_t chunk) {
    if (chunk > kMaxChunk)
      throw GpuError("fixed_base_workspace_bytes: chunk = " + std::to_string(chunk) + " exceeds 2^30 scalars");
    Carver cv;
    carve(cv, chunk);
    return cv.used();
  }

  // The largest chunk (<= cap) whose workspace fits in `bytes`, or 0.
  static size_t chunk_for(size_t bytes, size_t cap) {
    const size_t fixed = workspace_bytes(0);
    if (bytes < fixed) return 0;
    size_t chunk = std::min(cap, (bytes - fixed) / (sizeof(Scalar4) + sizeof(Aff)));  // >= the answer
    while (chunk > 0 && workspace_bytes(chunk) > bytes) --chunk;                      // a few steps: rounding only
    return chunk;
  }

  static void run(DeviceId dev, const void* base, const void* scalars_in, size_t n, void* out_host,
                  DeviceMemory workspace) {
    const std::string nstr = "n = " + std::to_string(n);
    if (n == 0) return;
    if (workspace.device.ordinal != dev.ordinal)
      throw GpuError(dev.name() + ": fixed_base_mul: workspace belongs to " + workspace.device.name() + " (" + nstr +
                     ")");
    const size_t chunk = chunk_for(workspace.bytes, std::min(n, kMaxChunk));
    if (chunk == 0)
      throw GpuError(dev.name() + ": fixed_base_mul: workspace too small: needs " + std::to_string(workspace_bytes(1)) +
                     " bytes (table of " + std::to_string(kFixedBaseTableEntries) + " points and one scalar), " +
                     std::to_string(workspace.bytes) + " available (" + nstr + ")");
    DeviceScope scope(dev);
    (void)cudaGetLastError();  // a failed call before this one is not this call's error
    Stream stream(dev);
    cudaStream_t s = stream.get();
    Arena arena(workspace);
    Carver& cv = arena;
    Buffers b = carve(cv, chunk);

    Aff B;
    std::memcpy(&B, base, sizeof(Aff));
    table_kernel<F><<<blocks_for(kFixedBaseTableEntries), kBlock, 0, s>>>(B, b.table);
    check_launch(dev, "fixed_base table_kernel", n);
    check(cudaStreamSynchronize(s), dev, "fixed_base table_kernel", nstr);

    const Scalar4* scal = static_cast<const Scalar4*>(scalars_in);
    Aff* out = static_cast<Aff*>(out_host);
    for (size_t off = 0; off < n; off += chunk) {
      const size_t m = std::min(chunk, n - off);
      const std::string what = nstr + ", scalars " + std::to_string(off) + " .. " + std::to_string(off + m - 1);
      check(cudaMemcpyAsync(b.scalars, scal + off, m * sizeof(Scalar4), cudaMemcpyHostToDevice, s), dev,
            "cudaMemcpyAsync (fixed_base scalars to device)", what);
      mul_kernel<F><<<blocks_for(m), kBlock, 0, s>>>(b.table, b.scalars, uint32_t(m), b.out);
      check_launch(dev, "fixed_base mul_kernel", n);
      check(cudaStreamSynchronize(s), dev, "fixed_base mul_kernel", what);
      check(cudaMemcpyAsync(out + off, b.out, m * sizeof(Aff), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (fixed_base outputs to host)", what);
    }
    check(cudaStreamSynchronize(s), dev, "fixed_base_mul (outputs to host)", nstr);
  }
};

}  // namespace cuzk::gpu::fixed_base_impl
