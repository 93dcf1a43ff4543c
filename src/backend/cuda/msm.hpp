// SPDX-License-Identifier: MIT OR Apache-2.0
// Multi-scalar multiplication on one GPU: sum_i k_i * P_i for G1 or G2 of BN254 / BLS12-381.
// Host-side API, free of CUDA headers. The kernels are in msm.cuh, instantiated once per curve
// and group (msm_<curve>[_g2].cu).
//
// The call is described by backend::MsmConfig (device.hpp): curve, group, count, where the bases
// and scalars are (host or this device) and the scalars' form. The result is written to host
// memory as ec::Jacobian<F> (F = Fq for G1, Fq2 for G2).
//
// Memory: msm_workspace_bytes() is every byte of device memory msm() uses; msm() takes it all
// from `workspace` (an Arena) and never allocates. Errors are GpuError naming the device, the
// kernel or call, and n.
#pragma once
#include <cstddef>
#include <cstdint>

#include "backend/cuda/gpu.hpp"
#include "backend/device.hpp"
#include "ff/curve_id.hpp"

namespace cuzk::gpu {

using backend::Group;
using backend::MsmConfig;
using backend::ScalarForm;
using backend::Where;

// Where the time went (milliseconds, measured with CUDA events on the call's stream), and the
// plan the call chose.
struct MsmTimings {
  double copy_in_ms = 0;     // host-to-device copies of bases/scalars (0 when already on device)
  double prepare_ms = 0;     // scalar conversion, classification (0 / 1 / general), compaction, sum of the ones
  double sort_ms = 0;        // signed digits and the per-window radix sorts
  double accumulate_ms = 0;  // bucket accumulation (all levels)
  double reduce_ms = 0;      // bucket reduction per window and the copy of the window sums
  double total_ms = 0;       // whole call, host wall time (includes the final combination on the host)
  unsigned c = 0;            // window bits
  unsigned windows = 0;
  unsigned window_groups = 0;  // windows are sorted and accumulated in this many groups
  size_t general = 0;          // scalars that went through the buckets (neither 0 nor 1)
  size_t ones = 0;             // scalars equal to 1
};

// Device memory msm() needs for this call. The radix sort's scratch size is asked of CUB on `dev`.
size_t msm_workspace_bytes(DeviceId dev, const MsmConfig& cfg);

// result: host memory for one ec::Jacobian<F> (the point in affine coordinates with Z = 1, or
// the infinity (1, 1, 0)). With a null stream the call makes its own; either way it returns
// after the work is done (the result is on the host).
void msm(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream = {},
         MsmTimings* timings = nullptr);

// Convenience for tests and tools: bases and scalars in host memory; allocates (cudaMalloc) a
// workspace of exactly msm_workspace_bytes() on `dev` for the call.
void msm_host(DeviceId dev, CurveId curve, Group group, size_t n, const void* bases, const void* scalars,
              ScalarForm form, void* result, MsmTimings* timings = nullptr);

// ------------------------------------------------------------------ per-curve entry points
// (defined in msm_<curve>[_g2].cu; the functions above dispatch to them)
namespace detail {
size_t msm_workspace_bytes_bn254(DeviceId dev, const MsmConfig& cfg);
size_t msm_workspace_bytes_bls12_381(DeviceId dev, const MsmConfig& cfg);
void msm_bn254(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
               MsmTimings* timings);
void msm_bls12_381(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
                   MsmTimings* timings);
}  // namespace detail

inline size_t msm_workspace_bytes(DeviceId dev, const MsmConfig& cfg) {
  return cfg.curve == CurveId::bn254 ? detail::msm_workspace_bytes_bn254(dev, cfg)
                                     : detail::msm_workspace_bytes_bls12_381(dev, cfg);
}

inline void msm(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
                MsmTimings* timings) {
  if (cfg.curve == CurveId::bn254)
    detail::msm_bn254(dev, cfg, workspace, result, stream, timings);
  else
    detail::msm_bls12_381(dev, cfg, workspace, result, stream, timings);
}

inline void msm_host(DeviceId dev, CurveId curve, Group group, size_t n, const void* bases, const void* scalars,
                     ScalarForm form, void* result, MsmTimings* timings) {
  MsmConfig cfg;
  cfg.curve = curve, cfg.group = group, cfg.count = n;
  cfg.bases = bases, cfg.bases_at = Where::Host;
  cfg.scalars = scalars, cfg.scalars_at = Where::Host;
  cfg.scalar_form = form;
  DeviceBuffer ws(dev, msm_workspace_bytes(dev, cfg));
  msm(dev, cfg, ws.memory(), result, {}, timings);
}

}  // namespace cuzk::gpu
