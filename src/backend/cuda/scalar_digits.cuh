// SPDX-License-Identifier: MIT OR Apache-2.0
// Device helpers shared by the kernels that walk scalars window by window (msm.cuh,
// fixed_base.cuh): the 32-byte scalar as four limbs, 16-byte vector loads and stores, bit
// windows, and the Booth-signed digit the CPU uses (cpu::signed_digit).
#pragma once
#include <cstdint>
#include <cuda_runtime.h>

namespace cuzk::gpu::digits {

struct Scalar4 {
  uint64_t v[4];
};
static_assert(sizeof(Scalar4) == 32);

template <class T>
__device__ __forceinline__ T load16(const T* p) {
  static_assert(sizeof(T) % 16 == 0, "16-byte vector loads");
  T r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 16); ++i) d[i] = __ldg(s + i);
  return r;
}

template <class T>
__device__ __forceinline__ void store16(T* p, const T& v) {
  static_assert(sizeof(T) % 16 == 0, "16-byte vector stores");
  uint4* d = reinterpret_cast<uint4*>(p);
  const uint4* s = reinterpret_cast<const uint4*>(&v);
#pragma unroll
  for (int i = 0; i < int(sizeof(T) / 16); ++i) d[i] = s[i];
}

__device__ __forceinline__ uint64_t limb_sel(const Scalar4& k, unsigned i) {
  return i == 0 ? k.v[0] : i == 1 ? k.v[1] : i == 2 ? k.v[2] : k.v[3];
}
// Bits [pos, pos + c) of k (zero beyond bit 255), c <= 32.
__device__ __forceinline__ uint32_t scalar_bits_at(const Scalar4& k, unsigned pos, unsigned c) {
  unsigned limb = pos >> 6, off = pos & 63;
  if (limb >= 4) return 0;
  uint64_t w = limb_sel(k, limb) >> off;
  if (off != 0 && limb + 1 < 4) w |= limb_sel(k, limb + 1) << (64 - off);
  return uint32_t(w) & uint32_t((uint64_t(1) << c) - 1);
}
// Booth digit of window w (c bits): bits + bit below - 2^c * top bit, in [-2^(c-1), 2^(c-1)].
__device__ __forceinline__ int32_t signed_digit(const Scalar4& k, unsigned w, unsigned c) {
  unsigned pos = w * c;
  int32_t bits = int32_t(scalar_bits_at(k, pos, c));
  int32_t below = pos == 0 ? 0 : int32_t(scalar_bits_at(k, pos - 1, 1));
  int32_t top = bits >> (c - 1);
  return bits + below - (top << c);
}

}  // namespace cuzk::gpu::digits
