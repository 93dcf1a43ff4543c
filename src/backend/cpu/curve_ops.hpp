// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend's kernels for one curve behind untyped pointers, so that the CPU device
// (device.cpp) can serve the Device interface, which names curves by CurveId. One instance
// per curve (curve_ops_<curve>.cpp), compiled apart.
#pragma once
#include <cstddef>

#include "backend/device.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cpu {

struct CurveOps {
  size_t g1_bytes = 0, g2_bytes = 0;  // affine point sizes
  size_t (*h_scratch_bytes)(int log_n);
  void (*evaluate_abc)(size_t n, backend::CsrView A, backend::CsrView B, const void* w, void* a, void* b, void* c,
                       ThreadPool& pool);
  void (*compute_h)(int log_n, backend::HForm form, void* a, void* b, void* c, void* h_out, ThreadPool& pool);
  // Scalars standard form; writes one ec::Jacobian of the group to `result`.
  void (*msm)(backend::Group g, const void* bases, const void* scalars, size_t n, void* result, ThreadPool& pool);
  void (*to_standard)(const void* in, void* out, size_t n, ThreadPool& pool);  // Montgomery -> standard
  size_t (*fixed_base_table_bytes)(backend::Group g, size_t n);                // for n scalars
  void (*fixed_base_mul)(backend::Group g, const void* base, const void* scalars, size_t n, void* out,
                         ThreadPool& pool);
};

const CurveOps& curve_ops(CurveId c);
const CurveOps& curve_ops_bn254();
const CurveOps& curve_ops_bls12_381();

}  // namespace cuzk::cpu
