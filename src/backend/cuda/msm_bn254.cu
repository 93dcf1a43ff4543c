// MSM kernels for BN254 (G1 over Fq, G2 over Fq2); r < 2^254.
#include "backend/cuda/msm.cuh"
#include "ec/curves.hpp"

namespace cuzk::gpu::detail {

namespace {
using E = ec::Bn254;
using G1 = msm_impl::Msm<E::Fq, E::Fr, 254>;
}  // namespace

// G2 is in msm_bn254_g2.cu: a translation unit of its own, so the two compile in parallel.
size_t msm_workspace_bytes_bn254_g2(DeviceId dev, size_t n, bool bases_on_device, bool scalars_on_device);
void msm_bn254_g2(DeviceId dev, size_t n, const void* bases, bool bases_on_device, const void* scalars,
                 bool scalars_on_device, ScalarForm form, DeviceMemory workspace, void* result, StreamHandle stream,
                 MsmTimings* timings);

size_t msm_workspace_bytes_bn254(DeviceId dev, Group group, size_t n, bool bases_on_device, bool scalars_on_device) {
  return group == Group::G1 ? G1::workspace_bytes(dev, n, bases_on_device, scalars_on_device)
                            : msm_workspace_bytes_bn254_g2(dev, n, bases_on_device, scalars_on_device);
}

void msm_bn254(DeviceId dev, Group group, size_t n, const void* bases, bool bases_on_device, const void* scalars,
               bool scalars_on_device, ScalarForm form, DeviceMemory workspace, void* result, StreamHandle stream,
               MsmTimings* timings) {
  if (group == Group::G1)
    G1::run(dev, n, bases, bases_on_device, scalars, scalars_on_device, form, workspace, result, stream, timings);
  else
    msm_bn254_g2(dev, n, bases, bases_on_device, scalars, scalars_on_device, form, workspace, result, stream, timings);
}

// Shared by both curves (it has to live in one translation unit).
DeviceId current_device() {
  int d = -1;
  cudaError_t e = cudaGetDevice(&d);
  if (e != cudaSuccess) throw GpuError(std::string("msm_workspace_bytes: no current CUDA device: ") + cudaGetErrorString(e));
  return DeviceId{d};
}

}  // namespace cuzk::gpu::detail
