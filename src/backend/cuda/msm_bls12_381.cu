// SPDX-License-Identifier: MIT OR Apache-2.0
// MSM kernels for BLS12-381 (G1 over Fq, G2 over Fq2); r < 2^255.
#include "backend/cuda/msm.cuh"
#include "ec/curves.hpp"

namespace cuzk::gpu::detail {

namespace {
using E = ec::Bls12381;
using G1 = msm_impl::Msm<E::Fq, E::Fr, 255>;
}  // namespace

// G2 is in msm_bls12_381_g2.cu: a translation unit of its own, so the two compile in parallel.
size_t msm_workspace_bytes_bls12_381_g2(DeviceId dev, const MsmConfig& cfg);
void msm_make_tables_bls12_381_g2(DeviceId dev, const MsmConfig& cfg, void* out, StreamHandle stream);
void msm_bls12_381_g2(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
                      MsmTimings* timings);

size_t msm_workspace_bytes_bls12_381(DeviceId dev, const MsmConfig& cfg) {
  return cfg.group == Group::G1 ? G1::workspace_bytes(dev, cfg) : msm_workspace_bytes_bls12_381_g2(dev, cfg);
}

void msm_bls12_381(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
                   MsmTimings* timings) {
  if (cfg.group == Group::G1)
    G1::run(dev, cfg, workspace, result, stream, timings);
  else
    msm_bls12_381_g2(dev, cfg, workspace, result, stream, timings);
}

void msm_make_tables_bls12_381(DeviceId dev, const MsmConfig& cfg, void* out, StreamHandle stream) {
  if (cfg.group == Group::G1)
    G1::make_tables(dev, cfg, out, stream);
  else
    msm_make_tables_bls12_381_g2(dev, cfg, out, stream);
}

}  // namespace cuzk::gpu::detail
