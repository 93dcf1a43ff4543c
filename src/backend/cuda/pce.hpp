// SPDX-License-Identifier: MIT OR Apache-2.0
// The pre-compiled constraint evaluator on the GPU: a = A.w, b = B.w, c = a.b over the domain,
// from the key's CSR rows (values R^2-scaled, as in the .zkey) and standard-form witness values,
// all on the device. Host API, no CUDA headers; rules of gpu.hpp apply (no allocation at all).
#pragma once
#include <cstddef>
#include <cstdint>

#include "backend/cuda/gpu.hpp"
#include "backend/device.hpp"
#include "ff/curve_id.hpp"

namespace cuzk::gpu {

using backend::CsrView;  // row_ptr[n_rows + 1], col[nnz], val[nnz] on the device

// Writes a, b, c (Montgomery form, n_rows elements each). With a null stream the call makes its
// own and waits; errors name the device, the kernel and n_rows.
void evaluate_abc(DeviceId dev, CurveId curve, size_t n_rows, CsrView A, CsrView B, const void* d_witness, void* d_a,
                  void* d_b, void* d_c, StreamHandle stream = {});

// d_dst[i] = d_src[d_index[i]], i < count, for 32-byte scalars (a density-compacted MSM's
// witness values), all on the device.
void gather_scalars(DeviceId dev, const void* d_src, const uint32_t* d_index, size_t count, void* d_dst,
                    StreamHandle stream = {});

}  // namespace cuzk::gpu
