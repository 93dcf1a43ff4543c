// SPDX-License-Identifier: MIT OR Apache-2.0
// Fixed-base scalar multiplication on one GPU: out[i] = [k_i] B for one base point B and n
// scalars, G1 or G2 of BN254 / BLS12-381 (the insecure trusted setup's bulk work). Host-side
// API, free of CUDA headers; the kernels are in fixed_base.cuh, instantiated once per curve
// (fixed_base_bn254.cu, fixed_base_bls12_381.cu).
//
// Method: signed (Booth) windows of kFixedBaseC = 12 bits, kFixedBaseWindows = 22 of them
// (12 * 22 = 264 bits, so every 256-bit integer has an exact signed expansion with digits in
// [-2048, 2048]). A table T[w][d - 1] = [d * 2^(12 w)] B, d = 1 .. 2048, in affine form, is
// built on the device once per call (22 * 2048 points: 2.75 / 4.1 MiB for BN254 / BLS12-381 G1,
// 5.5 / 8.25 MiB for G2). Each thread then sums its scalar's 22 (signed) table entries with XYZZ
// mixed additions and converts to affine itself (one Fermat inversion), writing infinity as
// (0, 0).
//
// Layouts are cuzk's in-memory ones: a point is ec::Affine<F> (x then y, Montgomery limbs,
// all-zero = infinity; the bytes of a snarkjs .zkey point), F = Fq for G1, Fq2 for G2; a scalar
// is 4 x u64, little-endian, standard form (not Montgomery). Scalars are meant to be < r; any
// 256-bit value is multiplied as the integer it is.
//
// Memory: fixed_base_workspace_bytes(chunk) is every byte of device memory a call needs to
// handle `chunk` scalars per launch (the table, then one chunk's scalars and outputs);
// fixed_base_mul() takes it all from `workspace` (an Arena), never allocates, and walks n in
// chunks as large as the workspace allows. Errors are GpuError naming the device, the kernel or
// call, and n.
#pragma once
#include <cstddef>
#include <cstdint>

#include "backend/cuda/gpu.hpp"
#include "backend/cuda/msm.hpp"
#include "ff/curve_id.hpp"

namespace cuzk::gpu {

constexpr unsigned kFixedBaseC = 12;                           // window bits
constexpr unsigned kFixedBaseWindows = 256 / kFixedBaseC + 1;  // 22: covers 264 > 256 bits
constexpr size_t kFixedBaseTableEntries = size_t(kFixedBaseWindows) << (kFixedBaseC - 1);

// Device bytes fixed_base_mul needs to process `chunk` scalars per launch (table + scalars +
// outputs of one chunk).
size_t fixed_base_workspace_bytes(CurveId curve, Group group, size_t chunk);

// out[i] = [k_i] base for i < n. base: one affine point in host memory. scalars: n x 4 u64,
// standard form, in host memory. out: n affine points in host memory (Montgomery coordinates;
// infinity written as all-zero bytes). All device memory comes from `workspace`, which must
// hold at least fixed_base_workspace_bytes(curve, group, 1) bytes on `dev` (else GpuError
// "workspace too small", saying bytes needed and available). Runs on `dev` and leaves the
// caller's current device alone; returns when `out` is written.
void fixed_base_mul(DeviceId dev, CurveId curve, Group group, const void* base, const void* scalars, size_t n,
                    void* out, DeviceMemory workspace);

// ------------------------------------------------------------------ per-curve entry points
// (defined in fixed_base_bn254.cu / fixed_base_bls12_381.cu; the functions above dispatch to them)
namespace detail {
size_t fixed_base_workspace_bytes_bn254(Group group, size_t chunk);
size_t fixed_base_workspace_bytes_bls12_381(Group group, size_t chunk);
void fixed_base_mul_bn254(DeviceId dev, Group group, const void* base, const void* scalars, size_t n, void* out,
                          DeviceMemory workspace);
void fixed_base_mul_bls12_381(DeviceId dev, Group group, const void* base, const void* scalars, size_t n, void* out,
                              DeviceMemory workspace);
}  // namespace detail

inline size_t fixed_base_workspace_bytes(CurveId curve, Group group, size_t chunk) {
  return curve == CurveId::bn254 ? detail::fixed_base_workspace_bytes_bn254(group, chunk)
                                 : detail::fixed_base_workspace_bytes_bls12_381(group, chunk);
}

inline void fixed_base_mul(DeviceId dev, CurveId curve, Group group, const void* base, const void* scalars, size_t n,
                           void* out, DeviceMemory workspace) {
  if (curve == CurveId::bn254)
    detail::fixed_base_mul_bn254(dev, group, base, scalars, n, out, workspace);
  else
    detail::fixed_base_mul_bls12_381(dev, group, base, scalars, n, out, workspace);
}

}  // namespace cuzk::gpu
