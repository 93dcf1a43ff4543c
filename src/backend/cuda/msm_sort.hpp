// SPDX-License-Identifier: MIT OR Apache-2.0
// The MSM's selection and radix sort (CUB's), compiled once in msm_sort.cu for every MSM unit
// (msm.cuh is instantiated in four): CUB's kernels are a large part of a unit's compile time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

namespace cuzk::gpu::msm_sort {

// A scalar's class as classify_kernel writes it (msm.cuh): its index for a general scalar,
// index | kOneBit for a scalar 1, kNone for 0.
constexpr uint32_t kNone = 0xffffffffu;
constexpr uint32_t kOneBit = 0x80000000u;  // indices are < 2^31

enum class Select { general, ones };

// cub::DeviceSelect::If: the candidates of class `which` among cand[0 .. n), in order, into out,
// and their count into *count (on the device). With temp null, the scratch size into bytes.
cudaError_t select(void* temp, size_t& bytes, const uint32_t* cand, uint32_t* out, uint32_t* count, int64_t n,
                   Select which, cudaStream_t s = nullptr);

// (key, value) pairs in keys[current], vals[current], sorted on key bits [0, bits) with the other
// buffers as scratch (cub::DeviceRadixSort::SortPairs over cub::DoubleBuffer): `current` says
// where the sorted pairs are afterwards. With temp null, the scratch size into bytes.
struct Pairs {
  uint32_t* keys[2] = {nullptr, nullptr};
  uint32_t* vals[2] = {nullptr, nullptr};
  int current = 0;
};
cudaError_t sort_pairs(void* temp, size_t& bytes, Pairs& p, uint32_t n, int bits, cudaStream_t s = nullptr);

}  // namespace cuzk::gpu::msm_sort
