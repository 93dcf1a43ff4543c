// SPDX-License-Identifier: MIT OR Apache-2.0
// Self-check of the shared field templates compiled for the device: the same expression is
// computed by the CPU in tests and compared limb for limb, over the base and scalar fields and
// the quadratic extensions (Fp2) of both curves, whole on a thread and held by pairs of lanes.
#include <cuda_runtime.h>
#include <string>

#include "backend/cuda/fp2_pair.cuh"
#include "backend/cuda/probe.hpp"
#include "ff/bls12_381.hpp"
#include "ff/bn254.hpp"
#include "ff/fp2.hpp"

namespace cuzk::cuda {
namespace {

template <class F>
__global__ void field_check_kernel(const F* a, const F* b, F* out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * b[i] + a[i] - b[i] - mul_sub(a[i], b[i], a[i] + b[i], a[i] - b[i]);
}

// Over Fp2 held by pairs of lanes (fp2_pair.cuh): the same expression, plus the pair's square
// against its product, a negation, and its zero test (one where a is zero on both components).
template <class B>
__global__ void field_check_pair_kernel(const ff::Fp2<B>* a, const ff::Fp2<B>* b, ff::Fp2<B>* out, size_t n) {
  using P = gpu::Fp2Pair<B>;
  size_t i = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 2;
  if (i >= n) return;
  const P x{*P::component(&a[i])}, y{*P::component(&b[i])};
  P r = x * y + x - y - mul_sub(x, y, x + y, x - y);
  r = r + (x.sqr() - x * x) + (-y + y) + (x.is_zero() ? P::one() : P::zero());
  *P::component(&out[i]) = r.v;
}

std::string cuda_err(int ordinal, const char* what, size_t n, cudaError_t e) {
  return std::string("gpu:") + std::to_string(ordinal) + ": " + what + " (n = " + std::to_string(n) +
         "): " + cudaGetErrorString(e);
}

template <class F, bool kPairs = false>
std::string run(int ordinal, const uint64_t* a, const uint64_t* b, uint64_t* out, size_t n) {
  int prev = -1;
  cudaGetDevice(&prev);
  cudaError_t e = cudaSetDevice(ordinal);
  if (e != cudaSuccess) return cuda_err(ordinal, "cudaSetDevice", n, e);
  std::string err;
  size_t bytes = n * sizeof(F);
  F *da = nullptr, *db = nullptr, *dout = nullptr;
  cudaStream_t s = nullptr;
  do {
    if ((e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) != cudaSuccess) {
      err = cuda_err(ordinal, "stream create", n, e);
      break;
    }
    if ((e = cudaMallocAsync(&da, bytes, s)) != cudaSuccess || (e = cudaMallocAsync(&db, bytes, s)) != cudaSuccess ||
        (e = cudaMallocAsync(&dout, bytes, s)) != cudaSuccess) {
      err = cuda_err(ordinal, "cudaMallocAsync", n, e);
      break;
    }
    cudaMemcpyAsync(da, a, bytes, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(db, b, bytes, cudaMemcpyHostToDevice, s);
    if constexpr (kPairs)
      field_check_pair_kernel<typename F::Base><<<unsigned((2 * n + 255) / 256), 256, 0, s>>>(da, db, dout, n);
    else
      field_check_kernel<F><<<unsigned((n + 255) / 256), 256, 0, s>>>(da, db, dout, n);
    if ((e = cudaGetLastError()) != cudaSuccess) {
      err = cuda_err(ordinal, "field_check_kernel launch", n, e);
      break;
    }
    cudaMemcpyAsync(out, dout, bytes, cudaMemcpyDeviceToHost, s);
    if ((e = cudaStreamSynchronize(s)) != cudaSuccess) {
      err = cuda_err(ordinal, "field_check_kernel", n, e);
      break;
    }
  } while (false);
  if (s) {
    if (da) cudaFreeAsync(da, s);
    if (db) cudaFreeAsync(db, s);
    if (dout) cudaFreeAsync(dout, s);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }
  if (prev >= 0) cudaSetDevice(prev);
  return err;
}

}  // namespace

std::string field_check(int ordinal, const std::string& field, const uint64_t* a, const uint64_t* b, uint64_t* out,
                        size_t n) {
  if (field == "bn254.fq") return run<ff::Bn254Fq>(ordinal, a, b, out, n);
  if (field == "bn254.fr") return run<ff::Bn254Fr>(ordinal, a, b, out, n);
  if (field == "bls12-381.fq") return run<ff::Bls12381Fq>(ordinal, a, b, out, n);
  if (field == "bls12-381.fr") return run<ff::Bls12381Fr>(ordinal, a, b, out, n);
  if (field == "bn254.fq2") return run<ff::Fp2<ff::Bn254Fq>>(ordinal, a, b, out, n);
  if (field == "bls12-381.fq2") return run<ff::Fp2<ff::Bls12381Fq>>(ordinal, a, b, out, n);
  if (field == "bn254.fq2-pair") return run<ff::Fp2<ff::Bn254Fq>, true>(ordinal, a, b, out, n);
  if (field == "bls12-381.fq2-pair") return run<ff::Fp2<ff::Bls12381Fq>, true>(ordinal, a, b, out, n);
  return "unknown field '" + field + "'";
}

}  // namespace cuzk::cuda
