// SPDX-License-Identifier: MIT OR Apache-2.0
// Fixed-base scalar multiplication kernels for BN254: G1 over Fq, G2 over Fq2.
#include "backend/cuda/fixed_base.cuh"
#include "ec/curves.hpp"

namespace cuzk::gpu::detail {

namespace {
using E = ec::Bn254;
using G1 = fixed_base_impl::FixedBase<E::Fq>;
using G2 = fixed_base_impl::FixedBase<E::Fq2>;
}  // namespace

size_t fixed_base_workspace_bytes_bn254(Group group, size_t chunk) {
  return group == Group::G1 ? G1::workspace_bytes(chunk) : G2::workspace_bytes(chunk);
}

void fixed_base_mul_bn254(DeviceId dev, Group group, const void* base, const void* scalars, size_t n, void* out,
                          DeviceMemory workspace) {
  if (group == Group::G1)
    G1::run(dev, base, scalars, n, out, workspace);
  else
    G2::run(dev, base, scalars, n, out, workspace);
}

}  // namespace cuzk::gpu::detail
