// SPDX-License-Identifier: MIT OR Apache-2.0
#include <optional>

#include "backend/cuda/common.cuh"
#include "backend/cuda/pce.hpp"
#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"

namespace cuzk::gpu {
namespace {

// One thread per row: rows have a handful of terms in real circuits (PoRep: ~2.4 in A, ~1 in B).
// Witness values are standard form; (value R^2) (x) w = Montgomery(value w), as on the CPU.
template <class Fr>
__global__ void abc_kernel(size_t n, const uint32_t* ra, const uint32_t* ca, const Fr* va, const uint32_t* rb,
                           const uint32_t* cb, const Fr* vb, const Fr* w, Fr* a, Fr* b, Fr* c) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Fr sa = Fr::zero(), sb = Fr::zero();
  const uint32_t a0 = ra[0], b0 = rb[0];  // entries counted from the first row's (backend::CsrView)
  for (uint32_t k = ra[i] - a0, e = ra[i + 1] - a0; k < e; ++k) sa += va[k] * w[ca[k]];
  for (uint32_t k = rb[i] - b0, e = rb[i + 1] - b0; k < e; ++k) sb += vb[k] * w[cb[k]];
  a[i] = sa;
  b[i] = sb;
  c[i] = sa * sb;
}

template <class Fr>
void run(DeviceId dev, size_t n, CsrView A, CsrView B, const void* w, void* a, void* b, void* c, StreamHandle sh) {
  DeviceScope scope(dev);
  cudaGetLastError();
  std::optional<Stream> own;
  cudaStream_t s = static_cast<cudaStream_t>(sh.stream);
  if (!s) {
    own.emplace(dev);
    s = own->get();
  }
  if (n > 0) {
    unsigned blocks = unsigned((n + 255) / 256);
    abc_kernel<Fr><<<blocks, 256, 0, s>>>(n, A.row_ptr, A.col, static_cast<const Fr*>(A.val), B.row_ptr, B.col,
                                          static_cast<const Fr*>(B.val), static_cast<const Fr*>(w), static_cast<Fr*>(a),
                                          static_cast<Fr*>(b), static_cast<Fr*>(c));
    check_launch(dev, "abc_kernel", n);
  }
  if (own) check(cudaStreamSynchronize(s), dev, "abc_kernel", "n = " + std::to_string(n));
}

// dst[i] = src[index[i]] for 32-byte scalars, as two 16-byte loads and stores.
__global__ void gather_kernel(size_t n, const uint4* src, const uint32_t* index, uint4* dst) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t j = index[i];
    dst[2 * i] = src[2 * j];
    dst[2 * i + 1] = src[2 * j + 1];
  }
}

}  // namespace

void gather_scalars(DeviceId dev, const void* d_src, const uint32_t* d_index, size_t count, void* d_dst,
                    StreamHandle sh) {
  DeviceScope scope(dev);
  cudaGetLastError();
  std::optional<Stream> own;
  cudaStream_t s = static_cast<cudaStream_t>(sh.stream);
  if (!s) {
    own.emplace(dev);
    s = own->get();
  }
  if (count > 0) {
    const size_t want = (count + 255) / 256;
    const unsigned blocks = unsigned(want < 65536 ? want : 65536);
    gather_kernel<<<blocks, 256, 0, s>>>(count, static_cast<const uint4*>(d_src), d_index, static_cast<uint4*>(d_dst));
    check_launch(dev, "gather_kernel", count);
  }
  if (own) check(cudaStreamSynchronize(s), dev, "gather_kernel", "count = " + std::to_string(count));
}

void evaluate_abc(DeviceId dev, CurveId curve, size_t n_rows, CsrView A, CsrView B, const void* d_witness, void* d_a,
                  void* d_b, void* d_c, StreamHandle stream) {
  if (curve == CurveId::bn254)
    run<ff::Bn254Fr>(dev, n_rows, A, B, d_witness, d_a, d_b, d_c, stream);
  else
    run<ff::Bls12381Fr>(dev, n_rows, A, B, d_witness, d_a, d_b, d_c, stream);
}

}  // namespace cuzk::gpu
