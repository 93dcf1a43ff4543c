// SPDX-License-Identifier: MIT OR Apache-2.0
// An Fp2 element held by two neighbouring lanes of a warp, one component each: c0 on the even
// lane, c1 on the odd one. The curve formulas (ec/curve.hpp) are generic over the field, so an
// XYZZ<Fp2Pair<B>> is a G2 point whose arithmetic the pair shares: a thread holds half the
// registers of a whole XYZZ<Fp2<B>> (48 words for BLS12-381 against 96), which is what bounds
// the G2 accumulation (bench/MSM-NOTES.md).
//
// A product takes the partner's components by one shuffle a word and computes, on both lanes
// with no divergence, one a*b - c*d with a single reduction (ff::mul_sub):
//   even: c0 = a0 b0 - a1 b1        odd: c1 = a1 b0 - (-a0) b1
// Two double-width products and one reduction a lane: four and two for the pair, against the
// three and three of a Karatsuba product on one thread. A square is one product a lane:
//   even: (a0 + a1)(a0 - a1)        odd: (2 a1) a0
// Both lanes of a pair must run the same code on the same values (they do: every decision in
// the formulas is taken on a value that is_zero makes common to both); the shuffles name only
// the pair, so pairs of one warp may diverge.
#pragma once
#include <cstddef>
#include <cuda_runtime.h>

#include "ff/fp2.hpp"

namespace cuzk::gpu {

template <class B>
struct Fp2Pair {
  static_assert(sizeof(ff::Fp2<B>) == 2 * sizeof(B) && offsetof(ff::Fp2<B>, c1) == sizeof(B),
                "an Fp2 element is its two components, c0 first");
  using Base = B;
  B v;  // this lane's component

  __device__ __forceinline__ static bool odd() { return (threadIdx.x & 1u) != 0; }
  __device__ __forceinline__ static unsigned pair_mask() { return 3u << (threadIdx.x & 30u); }
  // The partner's value of x.
  __device__ __forceinline__ static B partner(const B& x) {
    B r;
#pragma unroll
    for (int i = 0; i < B::N; ++i) r.l[i] = __shfl_xor_sync(pair_mask(), x.l[i], 1);
    return r;
  }
  __device__ __forceinline__ static B pick(bool c, const B& a, const B& b) {
    B r;
#pragma unroll
    for (int i = 0; i < B::N; ++i) r.l[i] = c ? a.l[i] : b.l[i];
    return r;
  }

  __device__ __forceinline__ static Fp2Pair zero() { return {B::zero()}; }
  __device__ __forceinline__ static Fp2Pair one() { return {pick(odd(), B::zero(), B::one())}; }
  // Zero on both lanes (the answer is the pair's, the same on both).
  __device__ __forceinline__ bool is_zero() const { return __all_sync(pair_mask(), v.is_zero()); }

  __device__ __forceinline__ friend Fp2Pair operator+(const Fp2Pair& a, const Fp2Pair& b) { return {a.v + b.v}; }
  __device__ __forceinline__ friend Fp2Pair operator-(const Fp2Pair& a, const Fp2Pair& b) { return {a.v - b.v}; }
  __device__ __forceinline__ Fp2Pair operator-() const { return {B::zero() - v}; }  // 0 - 0 = 0
  __device__ __forceinline__ Fp2Pair dbl() const { return {v + v}; }

  __device__ __forceinline__ friend Fp2Pair operator*(const Fp2Pair& a, const Fp2Pair& b) {
    const bool o = odd();
    const B ao = partner(a.v), bo = partner(b.v);
    const B b0 = pick(o, bo, b.v), b1 = pick(o, b.v, bo);
    const B z = pick(o, B::zero() - ao, ao);
    return {ff::mul_sub(a.v, b0, z, b1)};
  }
  __device__ __forceinline__ Fp2Pair sqr() const {
    const bool o = odd();
    const B ao = partner(v);
    const B x = pick(o, v + v, v + ao);
    const B y = pick(o, ao, v - ao);
    return {x * y};
  }
  // For the curve formulas' Y3 (found by argument-dependent lookup).
  __device__ __forceinline__ friend Fp2Pair mul_sub(const Fp2Pair& a, const Fp2Pair& b, const Fp2Pair& c,
                                                    const Fp2Pair& d) {
    return a * b - c * d;
  }

  // This lane's component of a whole element in memory, and back.
  __device__ __forceinline__ static const B* component(const ff::Fp2<B>* p) {
    return reinterpret_cast<const B*>(p) + (odd() ? 1 : 0);
  }
  __device__ __forceinline__ static B* component(ff::Fp2<B>* p) { return reinterpret_cast<B*>(p) + (odd() ? 1 : 0); }
};

}  // namespace cuzk::gpu
