// SPDX-License-Identifier: MIT OR Apache-2.0
// G2 MSM kernels for BLS12-381 (over Fq2); see msm_bls12_381.cu for the dispatch.
#include "backend/cuda/msm.cuh"
#include "ec/curves.hpp"

namespace cuzk::gpu::detail {

namespace {
using E = ec::Bls12381;
using G2 = msm_impl::Msm<E::Fq2, E::Fr, 255>;
}  // namespace

size_t msm_workspace_bytes_bls12_381_g2(DeviceId dev, const MsmConfig& cfg) { return G2::workspace_bytes(dev, cfg); }

void msm_bls12_381_g2(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
                      MsmTimings* timings) {
  G2::run(dev, cfg, workspace, result, stream, timings);
}

void msm_make_tables_bls12_381_g2(DeviceId dev, const MsmConfig& cfg, void* out, StreamHandle stream) {
  G2::make_tables(dev, cfg, out, stream);
}

}  // namespace cuzk::gpu::detail
