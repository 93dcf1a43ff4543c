// SPDX-License-Identifier: MIT OR Apache-2.0
// CUB's selection and radix sort for the MSM (msm_sort.hpp): one instantiation for all curves.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "backend/cuda/msm_sort.hpp"

namespace cuzk::gpu::msm_sort {

namespace {
struct IsGeneral {
  __host__ __device__ bool operator()(uint32_t x) const { return (x & kOneBit) == 0; }
};
struct IsOne {
  __host__ __device__ bool operator()(uint32_t x) const { return x != kNone && (x & kOneBit) != 0; }
};
}  // namespace

cudaError_t select(void* temp, size_t& bytes, const uint32_t* cand, uint32_t* out, uint32_t* count, int64_t n,
                   Select which, cudaStream_t s) {
  return which == Select::general ? cub::DeviceSelect::If(temp, bytes, cand, out, count, n, IsGeneral{}, s)
                                  : cub::DeviceSelect::If(temp, bytes, cand, out, count, n, IsOne{}, s);
}

cudaError_t sort_pairs(void* temp, size_t& bytes, Pairs& p, uint32_t n, int bits, cudaStream_t s) {
  cub::DoubleBuffer<uint32_t> k(p.keys[p.current], p.keys[p.current ^ 1]);
  cub::DoubleBuffer<uint32_t> v(p.vals[p.current], p.vals[p.current ^ 1]);
  const cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n, 0, bits, s);
  if (temp && e == cudaSuccess) {
    // CUB's selector counts from the buffers it was given: ours were (current, other).
    p.current ^= k.selector;
  }
  return e;
}

}  // namespace cuzk::gpu::msm_sort
