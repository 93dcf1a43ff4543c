// SPDX-License-Identifier: MIT OR Apache-2.0
#include <optional>

#include "backend/cuda/common.cuh"
#include "backend/cuda/pce.hpp"
#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"

namespace cuzk::gpu {
namespace {

// A matrix's rows on the device (a CsrView): entry k's value is val[k], or dict[code[k]] when
// coded (the dictionary is small and read through the caches).
template <class Fr>
struct Rows {
  const uint32_t *row_ptr, *col;
  const Fr* val;
  const uint16_t* code;
  const Fr* dict;
  explicit Rows(const CsrView& m)
      : row_ptr(m.row_ptr),
        col(m.col),
        val(static_cast<const Fr*>(m.val)),
        code(m.code),
        dict(static_cast<const Fr*>(m.dict)) {}
  __device__ __forceinline__ Fr dot(size_t i, const Fr* w) const {
    Fr s = Fr::zero();
    const uint32_t base = row_ptr[0];  // entries counted from the first row's (backend::CsrView)
    const uint32_t b = row_ptr[i] - base, e = row_ptr[i + 1] - base;
    if (code)
      for (uint32_t k = b; k < e; ++k) s += dict[code[k]] * w[col[k]];
    else
      for (uint32_t k = b; k < e; ++k) s += val[k] * w[col[k]];
    return s;
  }
};

// One thread per row: rows have a handful of terms in real circuits (PoRep: ~2.4 in A, ~1 in B).
// Witness values are standard form; (value R^2) (x) w = Montgomery(value w), as on the CPU.
template <class Fr>
__global__ void abc_kernel(size_t n, Rows<Fr> A, Rows<Fr> B, const Fr* w, Fr* a, Fr* b, Fr* c) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Fr sa = A.dot(i, w), sb = B.dot(i, w);
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
    abc_kernel<Fr><<<blocks, 256, 0, s>>>(n, Rows<Fr>(A), Rows<Fr>(B), static_cast<const Fr*>(w), static_cast<Fr*>(a),
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
