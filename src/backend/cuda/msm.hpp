// Multi-scalar multiplication on one GPU: sum_i k_i * P_i for G1 or G2 of BN254 / BLS12-381.
// Host-side API, free of CUDA headers. The kernels are in msm.cuh, instantiated once per curve
// (msm_bn254.cu, msm_bls12_381.cu).
//
// Inputs are cuzk's in-memory layouts: a base is ec::Affine<F> (x then y, Montgomery limbs,
// all-zero = infinity; the bytes of a snarkjs .zkey point section), a scalar is 4 x u64 < r,
// little-endian, in standard or Montgomery form. Either array may live on the host or already
// on `dev`. The result is written to host memory as ec::Jacobian<F> (F = Fq for G1, Fq2 for G2).
//
// Memory: msm_workspace_bytes() is every byte of device memory msm() uses; msm() takes it all
// from `workspace` (an Arena) and never allocates. Errors are GpuError naming the device, the
// kernel or call, and n.
#pragma once
#include <cstddef>
#include <cstdint>

#include "backend/cuda/gpu.hpp"
#include "ff/curve_id.hpp"

namespace cuzk::gpu {

enum class Group { G1, G2 };
enum class ScalarForm { Standard, Montgomery };

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
  size_t general = 0;        // scalars that went through the buckets (neither 0 nor 1)
  size_t ones = 0;           // scalars equal to 1
};

// Device memory msm() needs for these arguments. The radix sort's scratch size is asked of CUB
// on `dev` (an sm_90 build gives the same answer on any device it runs on).
size_t msm_workspace_bytes(DeviceId dev, CurveId curve, Group group, size_t n, bool bases_on_device,
                           bool scalars_on_device);
// The same, asked of the caller's current device.
size_t msm_workspace_bytes(CurveId curve, Group group, size_t n, bool bases_on_device, bool scalars_on_device);

// result: host memory for one ec::Jacobian<F> (the point in affine coordinates with Z = 1, or
// the infinity (1, 1, 0)). With a null stream the call makes its own; either way it returns
// after the work is done (the result is on the host).
void msm(DeviceId dev, CurveId curve, Group group, size_t n, const void* bases, bool bases_on_device,
         const void* scalars, bool scalars_on_device, ScalarForm form, DeviceMemory workspace, void* result,
         StreamHandle stream = {}, MsmTimings* timings = nullptr);

// Convenience for tests and tools: bases and scalars in host memory; allocates (cudaMalloc) a
// workspace of exactly msm_workspace_bytes() on `dev` for the call.
void msm_host(DeviceId dev, CurveId curve, Group group, size_t n, const void* bases, const void* scalars,
              ScalarForm form, void* result, MsmTimings* timings = nullptr);

// ------------------------------------------------------------------ per-curve entry points
// (defined in msm_bn254.cu / msm_bls12_381.cu; the functions above dispatch to them)
namespace detail {
size_t msm_workspace_bytes_bn254(DeviceId dev, Group group, size_t n, bool bases_on_device, bool scalars_on_device);
size_t msm_workspace_bytes_bls12_381(DeviceId dev, Group group, size_t n, bool bases_on_device,
                                     bool scalars_on_device);
void msm_bn254(DeviceId dev, Group group, size_t n, const void* bases, bool bases_on_device, const void* scalars,
               bool scalars_on_device, ScalarForm form, DeviceMemory workspace, void* result, StreamHandle stream,
               MsmTimings* timings);
void msm_bls12_381(DeviceId dev, Group group, size_t n, const void* bases, bool bases_on_device,
                   const void* scalars, bool scalars_on_device, ScalarForm form, DeviceMemory workspace,
                   void* result, StreamHandle stream, MsmTimings* timings);
// The caller's current device (what msm_workspace_bytes without a DeviceId asks).
DeviceId current_device();
}  // namespace detail

inline size_t msm_workspace_bytes(DeviceId dev, CurveId curve, Group group, size_t n, bool bases_on_device,
                                  bool scalars_on_device) {
  return curve == CurveId::bn254
             ? detail::msm_workspace_bytes_bn254(dev, group, n, bases_on_device, scalars_on_device)
             : detail::msm_workspace_bytes_bls12_381(dev, group, n, bases_on_device, scalars_on_device);
}
inline size_t msm_workspace_bytes(CurveId curve, Group group, size_t n, bool bases_on_device,
                                  bool scalars_on_device) {
  return msm_workspace_bytes(detail::current_device(), curve, group, n, bases_on_device, scalars_on_device);
}

inline void msm(DeviceId dev, CurveId curve, Group group, size_t n, const void* bases, bool bases_on_device,
                const void* scalars, bool scalars_on_device, ScalarForm form, DeviceMemory workspace, void* result,
                StreamHandle stream, MsmTimings* timings) {
  if (curve == CurveId::bn254)
    detail::msm_bn254(dev, group, n, bases, bases_on_device, scalars, scalars_on_device, form, workspace, result,
                      stream, timings);
  else
    detail::msm_bls12_381(dev, group, n, bases, bases_on_device, scalars, scalars_on_device, form, workspace,
                          result, stream, timings);
}

inline void msm_host(DeviceId dev, CurveId curve, Group group, size_t n, const void* bases, const void* scalars,
                     ScalarForm form, void* result, MsmTimings* timings) {
  size_t bytes = msm_workspace_bytes(dev, curve, group, n, false, false);
  DeviceBuffer ws(dev, bytes);
  msm(dev, curve, group, n, bases, false, scalars, false, form, ws.memory(), result, {}, timings);
}

}  // namespace cuzk::gpu
