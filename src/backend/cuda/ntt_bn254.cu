// SPDX-License-Identifier: MIT OR Apache-2.0
// GPU NTT and H for the bn254 scalar field (the kernels are in ntt.cuh).
#include "backend/cuda/ntt.cuh"
#include "ff/bn254.hpp"

namespace cuzk::gpu::detail {

using Fr = ff::Bn254Fr;

size_t ntt_workspace_bytes_bn254(int log_n) { return ntt_impl::ntt_workspace_bytes<Fr>(log_n); }
size_t h_workspace_bytes_bn254(int log_n, bool coefficients) {
  return ntt_impl::h_workspace_bytes<Fr>(log_n, coefficients);
}
void ntt_bn254(DeviceId dev, const void* d_in, void* d_out, int log_n, bool inverse, DeviceMemory ws, StreamHandle s,
               NttTimings* t, bool made) {
  ntt_impl::ntt<Fr>(dev, d_in, d_out, log_n, inverse, ws, s, t, made);
}
void make_ntt_twiddles_bn254(DeviceId dev, int log_n, DeviceMemory ws, StreamHandle s) {
  ntt_impl::make_twiddles<Fr>(dev, log_n, ws, s);
}
void compute_h_bn254(DeviceId dev, int log_n, bool coefficients, void* a, void* b, void* c, void* h, DeviceMemory ws,
                     StreamHandle s, HTimings* t) {
  ntt_impl::compute_h<Fr>(dev, log_n, coefficients, a, b, c, h, ws, s, t);
}

}  // namespace cuzk::gpu::detail
