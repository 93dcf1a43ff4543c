// SPDX-License-Identifier: MIT OR Apache-2.0
// GPU multi-scalar multiplication, generic over the point field F (Fp for G1, Fp2 for G2).
// Instantiated per curve in msm_bn254.cu / msm_bls12_381.cu; bench/MSM-NOTES.md has the design
// and the cost reasoning. In short:
//
//  1. prepare: scalars to standard form; each classified 0 (skipped), 1 (compacted into an
//     index list, cub::DeviceSelect, whose bases are summed apart by a parallel reduction when
//     there are any) or general (compacted into a list of their own); the windows stop at the
//     longest general scalar's bits;
//  2. per group of windows: Booth signed c-bit digits (the CPU's cpu::signed_digit), one
//     (bucket, index | sign) pair per general scalar and window, sorted per window by bucket
//     (cub::DeviceRadixSort on c bits, 32-bit keys, c up to 24; digit 0 gets a key above every
//     bucket so the non-zero pairs form a prefix). With K tables of a resident key's bases
//     (table k = [2^(k c)] P, msm_make_tables), windows w of one set (w / K) read table w mod K
//     and share one set of buckets: their pairs are sorted as one list (a unit), and the
//     reduction runs once per set instead of once per window, so wide windows pay;
//  3. accumulation, load-balanced: the group's non-zero pairs, all windows concatenated, are
//     cut into equal runs, one a thread (BLS12-381's G2: a pair of lanes, fp2_pair.cuh), each
//     summed in XYZZ with mixed additions. A bucket
//     whose pairs lie inside one run is stored there; the partial sums at run edges go to a
//     list of (key, partial), sorted by construction, which is reduced the same way, 8 entries a
//     thread, until one run is left (see accumulate_* below);
//  4. bucket reduction: sum_d d * B_d per bucket set from running sums over segments of L
//     buckets (each segment's own weighted sum), plus the same weighted sum over the segments'
//     totals times L, which is the next level (bucket_level_kernel), until at most 4096 points
//     are left; each of those is multiplied by its weight (bucket_tail_kernel); one tree sums
//     all a set's shares. L is 16 where the level's segments fill a wave, else 4 (a level of
//     fewer threads takes the time of one thread's 2 L additions). Once, after every group,
//     when all the sets' buckets fit in the model's bound (CostModel::held_sets); else a batch
//     of groups' sets at a time, the buckets then reused (at 2^27, one 22-bit window a batch);
//  5. the host combines the set sums by Horner (c doublings a window) and adds the ones.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstring>
#include <cuda_runtime.h>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/cuda/common.cuh"
#include "backend/cuda/device_alloc.hpp"
#include "backend/cuda/fp2_pair.cuh"
#include "backend/cuda/msm.hpp"
#include "backend/cuda/msm_sort.hpp"
#include "backend/cuda/scalar_digits.cuh"
#include "ec/curve.hpp"

namespace cuzk::gpu::msm_impl {

using ec::Affine;
using ec::XYZZ;

using digits::limb_sel;
using digits::load16;
using digits::Scalar4;
using digits::scalar_bits_at;
using digits::signed_digit;

using msm_model::CostModel;
using msm_model::kFreeC;
using msm_model::kMaxC;  // buckets 2^(c-1); a bucket key and its unit fit 32 bits
using msm_model::kMinC;
using msm_model::sets_for;
using msm_model::windows_for;
constexpr unsigned kMaxWindows = 128;               // windows at c = 2 (255 / 2 + 1)
constexpr size_t kEntryCap = msm_model::kMaxPairs;  // (key, value) pairs held at once: 1 GiB
constexpr uint32_t kRunsCap = 1u << 17;             // level-0 accumulation runs at most
constexpr unsigned kRunLen = 8;                     // entries per thread at levels >= 1
constexpr unsigned kSegLen = 16;                    // buckets per thread in the bucket reduction ...
constexpr unsigned kSegLenNarrow = 4;               // ... at a level of fewer segments than a wave
constexpr unsigned kFan = 8;                        // points per thread in tree reductions over many points
constexpr uint32_t kWaveThreads = 1u << 15;         // about one wave of the point kernels (H200, G1)
constexpr uint32_t kTailLen = 4096;                 // bucket reduction: points a set left to the tail
constexpr uint32_t kOnesThreads = 1u << 16;         // threads summing the bases of scalars 1
constexpr unsigned kBlock = 128;
static_assert(kBlock % 32 == 0, "the pairs of lanes (fp2_pair.cuh) never straddle a block's warps");
using msm_sort::kNone;                    // "no key" beyond either end of a list; a scalar 0's class
using msm_sort::kOneBit;                  // a candidate that is a scalar 1 (indices are < 2^31)
constexpr uint32_t kEmpty = 0xfffffffeu;  // key of an empty run's slots (sorts last)
constexpr uint32_t kNeg = 0x80000000u;    // sign bit of a sorted value

// ------------------------------------------------------------------ kernels: preparation

// Standard form (written to out unless out is null: standard-form input is read in place; in
// and out may alias), and the class of each scalar in cand[i]: i for a general scalar, i |
// kOneBit for a scalar 1, kNone for 0 (both classes are compacted from it by DeviceSelect);
// *ones counts the scalars equal to 1; *max_bits gets the bit length of the longest general scalar (the
// windows above it hold only zero digits and are not planned at all).
template <class Fr>
__global__ void classify_kernel(const Scalar4* in, Scalar4* out, uint32_t* cand, size_t n, bool montgomery,
                                uint32_t* ones, uint32_t* max_bits) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool live = i < n;  // every lane of a warp takes part in the warp's votes below
  uint8_t t = 0;
  unsigned len = 0;
  if (live) {
    Scalar4 k = in[i];
    if (montgomery) {
      Fr x = Fr::from_raw(k.v);
      auto s = x.to_std();
#pragma unroll
      for (int j = 0; j < 4; ++j) k.v[j] = s.v[j];
    }
    if (out && (montgomery || out != in)) out[i] = k;
    bool hi_zero = (k.v[1] | k.v[2] | k.v[3]) == 0;
    t = (hi_zero && k.v[0] == 0) ? 0 : (hi_zero && k.v[0] == 1) ? 1 : 2;
    cand[i] = t == 2 ? uint32_t(i) : t == 1 ? uint32_t(i) | kOneBit : kNone;
    if (t == 2)
      len = k.v[3]   ? 256 - __clzll(k.v[3])
            : k.v[2] ? 192 - __clzll(k.v[2])
            : k.v[1] ? 128 - __clzll(k.v[1])
                     : 64 - __clzll(k.v[0]);
  }
  const unsigned one_lanes = __ballot_sync(0xffffffffu, t == 1);
  for (int off = 16; off > 0; off >>= 1) len = max(len, __shfl_xor_sync(0xffffffffu, len, off));
  if ((threadIdx.x & 31) == 0) {
    if (one_lanes) atomicAdd(ones, unsigned(__popc(one_lanes)));
    if (len) atomicMax(max_bits, len);
  }
}

// Thread t sums the bases of the compacted ones list idx[j], j = t, t + T, ... < *count: no
// lane of a warp waits for another's addition (a typical witness is half bits: summing in
// place, over every scalar, left half the lanes idle), and neighbouring lanes read
// neighbouring bases.
template <class F>
__global__ void __launch_bounds__(kBlock)
    ones_kernel(const Affine<F>* bases, const uint32_t* idx, const uint32_t* count, uint32_t threads, XYZZ<F>* out) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const uint32_t m = *count;
  XYZZ<F> acc = XYZZ<F>::infinity();
  for (uint32_t j = t; j < m; j += threads) acc = acc.add_affine(load16(bases + (idx[j] & ~kOneBit)));
  out[t] = acc;
}

// out[g * out_len + o] = sum of in[g * len + o * fan ...] (fan points or fewer).
template <class F>
__global__ void __launch_bounds__(kBlock)
    reduce_kernel(const XYZZ<F>* in, XYZZ<F>* out, uint32_t groups, uint32_t len, uint32_t out_len, uint32_t fan) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= groups * out_len) return;
  uint32_t g = t / out_len, o = t % out_len;
  uint32_t beg = o * fan, end = min(beg + fan, len);
  const XYZZ<F>* p = in + size_t(g) * len;
  XYZZ<F> acc = p[beg];
  for (uint32_t j = beg + 1; j < end; ++j) acc += p[j];
  out[t] = acc;
}

// ------------------------------------------------------------------ kernels: digits

// For the general scalars j < m and the windows w0 .. w0 + G - 1: key = |digit| (digit 0 gets
// `skip`, above every bucket), value = base index | sign, the base of scalar i in window w being
// point (w mod K) n + i of the K tables. cnt[wl / wpu] counts the non-zero digits of each unit
// (wpu windows sorted as one list).
static __global__ void digits_kernel(const Scalar4* scalars, const uint32_t* idx, uint32_t m, unsigned w0, unsigned G,
                                     unsigned c, unsigned K, uint32_t n, unsigned wpu, uint32_t* keys, uint32_t* vals,
                                     uint32_t* cnt) {
  uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  bool active = j < m;
  uint32_t i = 0;
  Scalar4 k{};
  if (active) {
    i = idx[j];
    k = scalars[i];
  }
  const uint32_t skip = (1u << c) - 1;
  for (unsigned wl = 0; wl < G; ++wl) {
    int32_t d = active ? signed_digit(k, w0 + wl, c) : 0;
    if (active) {
      keys[size_t(wl) * m + j] = d == 0 ? skip : uint32_t(d < 0 ? -d : d);
      vals[size_t(wl) * m + j] = (((w0 + wl) % K) * n + i) | (d < 0 ? kNeg : 0u);
    }
    unsigned nz = __ballot_sync(0xffffffffu, d != 0);
    if ((threadIdx.x & 31) == 0 && nz) atomicAdd(&cnt[wl / wpu], unsigned(__popc(nz)));
  }
}

// ------------------------------------------------------------------ kernels: accumulation
//
// A level's input is a list sorted by key. Thread t takes the run [t R, (t+1) R) and sums each
// maximal segment of equal keys. A segment is complete when the run shows both its ends (the
// key before it and the key after it differ from its own): it holds every entry of its key,
// and its sum is the bucket, stored at once. Thread t also fills two slots of the next level's
// list: slot 2t gets the first segment's key, slot 2t+1 the last segment's, each with the
// partial sum when that segment is incomplete and infinity when it is complete (or when the
// first segment is the last too). The slot list is sorted again, so the next level is the same
// problem, R/2 times shorter. A bucket is stored exactly once: at the one level where all its
// non-infinity entries lie in one run; sums of infinity are never stored (buckets start at
// infinity), so the infinity slots left by complete segments write nothing.
//
// Keys at level >= 1 are global within the group: unit << c | bucket (1 .. 2^(c-1)).

template <class F>
struct Slots {
  uint32_t* keys;  // null at the final level
  XYZZ<F>* pts;
};

// Where a group's buckets go: unit u's bucket b (1 .. nb) at buckets[u nb + b - 1]. (Stores
// only: an addition here, inlined into the accumulation kernels, costs them registers and
// occupancy.)
template <class F>
struct BucketStore {
  XYZZ<F>* buckets;
  unsigned c;
  uint32_t nb, units;
};

// How the level-0 accumulation holds a point. Whole: one thread a point. Paired (Fp2, G2): two
// neighbouring lanes a point, one component each (fp2_pair.cuh): half the registers a thread,
// where a whole XYZZ<Fp2> and the addition's temporaries do not fit in 255 and spill.
template <class F>
struct Whole {
  static constexpr unsigned kLanes = 1;
  using Acc = XYZZ<F>;
  using Base = Affine<F>;
  __device__ __forceinline__ static Base load(const Affine<F>* p) { return load16(p); }
  __device__ __forceinline__ static void put(XYZZ<F>* d, const Acc& s) { *d = s; }
  __device__ __forceinline__ static bool leader() { return true; }  // writes what the pair shares
};

template <class B>
struct Paired {
  using F = ff::Fp2<B>;
  using P = Fp2Pair<B>;
  static constexpr unsigned kLanes = 2;
  using Acc = XYZZ<P>;
  using Base = Affine<P>;
  __device__ __forceinline__ static Base load(const Affine<F>* p) {
    return {{load16(P::component(&p->x))}, {load16(P::component(&p->y))}};
  }
  __device__ __forceinline__ static void put(XYZZ<F>* d, const Acc& s) {
    *P::component(&d->X) = s.X.v;
    *P::component(&d->Y) = s.Y.v;
    *P::component(&d->ZZ) = s.ZZ.v;
    *P::component(&d->ZZZ) = s.ZZZ.v;
  }
  __device__ __forceinline__ static bool leader() { return !P::odd(); }
};

// Pairs where a whole point does not fit a thread's registers: BLS12-381's G2 (a whole
// XYZZ<Fp2> 96 registers; the hot kernel held 255 and spilled ~1 KB a thread, pairs 248 and
// none: 2^22 over tables 97.8 -> 92.2 ms). BN254's G2 fits whole (255 registers, a few spills;
// as pairs 168 and three blocks an SM, but the shuffles and selects cost more: 45.2 -> 50.0 ms).
template <class F>
struct LanesOf {
  using type = Whole<F>;
};
template <class B>
struct LanesOf<ff::Fp2<B>> {
  using type = std::conditional_t<(B::N >= 6), Paired<B>, Whole<ff::Fp2<B>>>;
};

template <class F, class L>
__device__ __forceinline__ void store_bucket(const BucketStore<F>& st, uint32_t key, const typename L::Acc& s) {
  uint32_t u = key >> st.c, b = key & ((1u << st.c) - 1);
  if (u < st.units && b >= 1 && b <= st.nb && !s.is_inf()) L::put(st.buckets + (size_t(u) * st.nb + (b - 1)), s);
}

// One finished segment of key `key`: `first`/`last` say whether it touches the run's start/end.
template <class F, class L = Whole<F>>
__device__ __forceinline__ void finish_segment(uint32_t key, const typename L::Acc& s, bool first, bool last,
                                               uint32_t prev, uint32_t next, uint32_t t, bool final,
                                               const BucketStore<F>& st, Slots<F> out) {
  using Acc = typename L::Acc;
  bool complete = final || ((!first || prev != key) && (!last || next != key));
  if (complete) store_bucket<F, L>(st, key, s);
  if (final) return;
  const Acc inf = Acc::infinity();
  if constexpr (L::kLanes == 1) {
    if (first) {
      out.keys[2 * size_t(t)] = key;
      out.pts[2 * size_t(t)] = complete ? inf : s;
    }
    if (last) {
      out.keys[2 * size_t(t) + 1] = key;
      out.pts[2 * size_t(t) + 1] = (complete || first) ? inf : s;
    }
  } else {
    // Two stores rather than one of `complete ? inf : s`: over pairs, that reference chosen at
    // run time put both points in local memory.
    if (first) {
      if (L::leader()) out.keys[2 * size_t(t)] = key;
      if (complete)
        L::put(out.pts + 2 * size_t(t), inf);
      else
        L::put(out.pts + 2 * size_t(t), s);
    }
    if (last) {
      if (L::leader()) out.keys[2 * size_t(t) + 1] = key;
      if (complete || first)
        L::put(out.pts + (2 * size_t(t) + 1), inf);
      else
        L::put(out.pts + (2 * size_t(t) + 1), s);
    }
  }
}

template <class F, class L>
__device__ __forceinline__ void empty_run(uint32_t t, Slots<F> out) {
  const typename L::Acc inf = L::Acc::infinity();
  if (L::leader()) {
    out.keys[2 * size_t(t)] = kEmpty;
    out.keys[2 * size_t(t) + 1] = kEmpty;
  }
  L::put(out.pts + 2 * size_t(t), inf);
  L::put(out.pts + (2 * size_t(t) + 1), inf);
}

// Per-unit sorted arrays of a group (the sort leaves each unit in one of two buffers).
struct WindowPtrs {
  const uint32_t* keys[kMaxWindows];
  const uint32_t* vals[kMaxWindows];
};

// Level 0: the non-zero prefixes of the group's G sorted units, concatenated (positions
// pre[w] .. pre[w+1]), cut into `runs` equal runs; mixed additions of the (signed) bases. A run
// takes L::kLanes neighbouring threads (see Whole, Paired).
template <class F, class L = typename LanesOf<F>::type>
__global__ void __launch_bounds__(kBlock)
    accumulate_bases_kernel(WindowPtrs win, const uint32_t* cnt, unsigned G, uint32_t runs, const Affine<F>* bases,
                            bool final, BucketStore<F> st, Slots<F> out) {
  using Acc = typename L::Acc;
  const unsigned c = st.c;
  __shared__ uint32_t pre[kMaxWindows + 1];
  __shared__ const uint32_t* wkeys[kMaxWindows];
  __shared__ const uint32_t* wvals[kMaxWindows];
  if (threadIdx.x == 0) {
    uint32_t s = 0;
    // Constant indices into the parameter block (a run-time index would copy it to the stack).
#pragma unroll
    for (unsigned w = 0; w < kMaxWindows; ++w) {
      if (w < G) {
        wkeys[w] = win.keys[w];
        wvals[w] = win.vals[w];
        pre[w] = s;
        s += cnt[w];
      }
    }
    pre[G] = s;
  }
  __syncthreads();
  uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / L::kLanes;
  if (t >= runs) return;
  const uint32_t total = pre[G];
  const uint32_t R = (total + runs - 1) / runs;
  const uint32_t beg = min(t * R, total), end = min(beg + R, total);
  if (beg >= end) {
    if (!final) empty_run<F, L>(t, out);
    return;
  }
  // window holding position p (the last w with pre[w] <= p; empty windows are skipped)
  auto window_of = [&](uint32_t p) {
    unsigned lo = 0, hi = G;  // pre[lo] <= p < pre[hi]
    while (hi - lo > 1) {
      unsigned mid = (lo + hi) / 2;
      if (pre[mid] <= p)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  };
  auto key_at = [&](uint32_t p) {
    unsigned w = window_of(p);
    return (uint32_t(w) << c) | wkeys[w][p - pre[w]];
  };
  const uint32_t prev = beg > 0 ? key_at(beg - 1) : kNone;
  const uint32_t next = end < total ? key_at(end) : kNone;
  unsigned w = window_of(beg);
  const uint32_t* kw = wkeys[w];
  const uint32_t* vw = wvals[w];
  uint32_t cur = (uint32_t(w) << c) | kw[beg - pre[w]];
  Acc acc = Acc::infinity();
  bool first = true;
  for (uint32_t p = beg; p < end; ++p) {
    while (p >= pre[w + 1]) {
      ++w;
      kw = wkeys[w];
      vw = wvals[w];
    }
    uint32_t off = p - pre[w];
    uint32_t key = (uint32_t(w) << c) | kw[off];
    if (key != cur) {
      finish_segment<F, L>(cur, acc, first, false, prev, next, t, final, st, out);
      first = false;
      acc = Acc::infinity();
      cur = key;
    }
    uint32_t v = vw[off];
    typename L::Base q = L::load(bases + (v & ~kNeg));
    if (v & kNeg) q.y = -q.y;
    acc = acc.add_affine(q);
  }
  finish_segment<F, L>(cur, acc, first, true, prev, next, t, final, st, out);
}

// Levels >= 1: the slot list of the level before, kRunLen entries a thread.
template <class F>
__global__ void __launch_bounds__(kBlock)
    accumulate_partials_kernel(const uint32_t* in_keys, const XYZZ<F>* in_pts, uint32_t len, bool final,
                               BucketStore<F> st, Slots<F> out) {
  uint32_t runs = (len + kRunLen - 1) / kRunLen;
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= runs) return;
  const uint32_t beg = t * kRunLen, end = min(beg + kRunLen, len);
  const uint32_t prev = beg > 0 ? in_keys[beg - 1] : kNone;
  const uint32_t next = end < len ? in_keys[end] : kNone;
  uint32_t cur = in_keys[beg];
  XYZZ<F> acc = XYZZ<F>::infinity();
  bool first = true;
  for (uint32_t p = beg; p < end; ++p) {
    uint32_t key = in_keys[p];
    if (key != cur) {
      finish_segment(cur, acc, first, false, prev, next, t, final, st, out);
      first = false;
      acc = XYZZ<F>::infinity();
      cur = key;
    }
    acc += in_pts[p];
  }
  finish_segment(cur, acc, first, true, prev, next, t, final, st, out);
}

// ------------------------------------------------------------------ kernels: bucket reduction

// One level of the bucket reduction. A set's `len` points at level k lie at stride L_0 ... L_(k-1)
// (the segment lengths of the levels below) in its nb slots (level 0: the buckets themselves,
// point j weighing j + 1; above: point j weighing j).
// Thread (r, s) takes segment s of set r, points s L .. s L + L - 1 (fewer in the last segment),
// and writes its share of the weighted sum, A_s = sum_i (i + one) P_(sL+i), to a[r T + s], and
// [L] S_s, S_s = sum_i P_(sL+i), over its first point: the next level's point s. Since
//   sum_j (j + one) P_j = sum_s A_s + sum_s s [L] S_s,
// a set's weighted sum is the sum of every level's A_s and of the tail's weighted points: one
// tree reduction per set over them side by side (T apart). The suffix sums R_i = sum_(i' >= i)
// P_i' are written over the points (two points live rather than three: G2 would spill);
// A_s = sum_(i >= 1 - one) R_i, S_s = R_0.
template <class F>
__global__ void __launch_bounds__(kBlock)
    bucket_level_kernel(XYZZ<F>* buckets, uint32_t sets, uint32_t nb, uint32_t len, uint32_t stride, uint32_t L,
                        bool one, XYZZ<F>* a, uint32_t T) {
  const uint32_t segs = (len + L - 1) / L;
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= sets * segs) return;
  uint32_t r = t / segs, s = t % segs;
  const uint32_t cnt = min(L, len - s * L);
  XYZZ<F>* b = buckets + size_t(r) * nb + size_t(s) * L * stride;
  XYZZ<F> run = XYZZ<F>::infinity();
  for (uint32_t j = cnt; j-- > 0;) {
    run += b[size_t(j) * stride];
    b[size_t(j) * stride] = run;
  }
  XYZZ<F> acc = one ? run : XYZZ<F>::infinity();
  for (uint32_t j = 1; j < cnt; ++j) acc += b[size_t(j) * stride];
  a[size_t(r) * T + s] = acc;
  for (uint32_t m = L; m > 1; m >>= 1) run = run.dbl();
  b[0] = run;
}

// The last step of the bucket reduction: thread (r, j) writes [j + one] P_j (double-and-add)
// for the `len` points of set r left at stride `stride`, to a[r T + j]. Its depth is 2 log2 len
// additions at most, where a level of segments would add 2 L more for each further level.
template <class F>
__global__ void __launch_bounds__(kBlock)
    bucket_tail_kernel(const XYZZ<F>* buckets, uint32_t sets, uint32_t nb, uint32_t len, uint32_t stride, bool one,
                       XYZZ<F>* a, uint32_t T) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= sets * len) return;
  const uint32_t r = t / len, j = t % len, e = j + (one ? 1u : 0u);
  const XYZZ<F> p = buckets[size_t(r) * nb + size_t(j) * stride];
  XYZZ<F> acc = XYZZ<F>::infinity();
  if (e != 0 && !p.is_inf())
    for (int bit = 31 - __clz(e); bit >= 0; --bit) {
      acc = acc.dbl();
      if ((e >> bit) & 1) acc += p;
    }
  a[size_t(r) * T + j] = acc;
}

// ------------------------------------------------------------------ kernels: tables

constexpr unsigned kTableBatch = 8;  // points a thread converts to affine with one inversion

// next[i] = [2^c] prev[i] in affine, kTableBatch points a thread sharing one inversion
// (Montgomery's trick on ZZ * ZZZ); infinity stays infinity (all-zero).
template <class F>
__global__ void __launch_bounds__(kBlock) table_kernel(const Affine<F>* prev, Affine<F>* next, size_t n, unsigned c) {
  const size_t i0 = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * kTableBatch;
  if (i0 >= n) return;
  const unsigned cnt = unsigned(n - i0 < kTableBatch ? n - i0 : kTableBatch);
  XYZZ<F> q[kTableBatch];
  F before[kTableBatch];  // product of the factors of the points before j
  F acc = F::one();
  for (unsigned j = 0; j < cnt; ++j) {
    XYZZ<F> x = XYZZ<F>::from_affine(load16(prev + i0 + j));
    for (unsigned d = 0; d < c; ++d) x = x.dbl();
    q[j] = x;
    before[j] = acc;
    if (!x.is_inf()) acc = acc * (x.ZZ * x.ZZZ);
  }
  F inv = acc.inv();  // 1 / (product of every factor)
  for (unsigned j = cnt; j-- > 0;) {
    const XYZZ<F>& x = q[j];
    if (x.is_inf()) {
      next[i0 + j] = Affine<F>::infinity();
      continue;
    }
    const F t = inv * before[j];  // 1 / (ZZ ZZZ) of point j
    inv = inv * (x.ZZ * x.ZZZ);
    next[i0 + j] = Affine<F>{x.X * t * x.ZZZ, x.Y * t * x.ZZ};
  }
}

// ------------------------------------------------------------------ host side

// Records CUDA events between phases; elapsed times are added to the phase each span belongs to.
class PhaseClock {
 public:
  enum Phase { copy_in, prepare, sort, accumulate, reduce, count };
  PhaseClock(bool on, cudaStream_t s, DeviceId dev) : on_(on), s_(s), dev_(dev) {}
  bool on() const { return on_; }
  ~PhaseClock() {
    for (auto& m : marks_) cudaEventDestroy(m.ev);
  }
  // Marks the start of `p` (and the end of the phase before).
  void mark(Phase p) {
    if (!on_) return;
    cudaEvent_t e;
    check(cudaEventCreate(&e), dev_, "cudaEventCreate (msm timings)");
    marks_.push_back({e, p});
    check(cudaEventRecord(e, s_), dev_, "cudaEventRecord (msm timings)");
  }
  // After the stream is synchronised: milliseconds per phase.
  void read(double (&ms)[count]) {
    for (auto& x : ms) x = 0;
    for (size_t i = 0; i + 1 < marks_.size(); ++i) {
      float t = 0;
      check(cudaEventElapsedTime(&t, marks_[i].ev, marks_[i + 1].ev), dev_, "cudaEventElapsedTime (msm timings)");
      if (marks_[i].phase < count) ms[marks_[i].phase] += t;
    }
  }

 private:
  struct Mark {
    cudaEvent_t ev;
    int phase;
  };
  bool on_;
  cudaStream_t s_;
  DeviceId dev_;
  std::vector<Mark> marks_;
};

// A second stream for a batched call's bucket reductions: each waits for the call's stream to
// have filled its room, a room is cleared again only after its reduction, and the call's stream
// finally waits for the last. Started by the first reduction beside (a call of one batch has
// none); timed (their wall time beside the next batch) when the call is.
class SideStream {
 public:
  SideStream() = default;
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  ~SideStream() {
    stream_.reset();  // waits for the reductions queued (a call that threw may have left some)
    for (cudaEvent_t e : ev_)
      if (e) cudaEventDestroy(e);
    for (auto& t : spans_)
      for (cudaEvent_t e : {t.first, t.second})
        if (e) cudaEventDestroy(e);
  }
  bool started() const { return stream_.has_value(); }
  void start(DeviceId dev, bool timed) {
    dev_ = dev, timed_ = timed;
    stream_.emplace(dev);
    for (cudaEvent_t& e : ev_)
      check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), dev, "cudaEventCreate (msm reductions)");
  }
  // The side stream, after the work queued on `s` so far (a room's batch accumulated).
  cudaStream_t after(cudaStream_t s) {
    check(cudaEventRecord(ev_[2], s), dev_, "cudaEventRecord (msm batch filled)");
    check(cudaStreamWaitEvent(stream_->get(), ev_[2], 0), dev_, "cudaStreamWaitEvent (msm reduction)");
    if (timed_) {
      spans_.push_back({nullptr, nullptr});
      spans_.back().first = timing_event();
      spans_.back().second = timing_event();
      check(cudaEventRecord(spans_.back().first, stream_->get()), dev_, "cudaEventRecord (msm reduction)");
    }
    return stream_->get();
  }
  // After `room`'s reduction was queued on the side stream.
  void reduced(unsigned room) {
    if (timed_) check(cudaEventRecord(spans_.back().second, stream_->get()), dev_, "cudaEventRecord (msm reduction)");
    check(cudaEventRecord(ev_[room], stream_->get()), dev_, "cudaEventRecord (msm room reduced)");
    pending_[room] = true;
  }
  // `s` waits for `room`'s last reduction before clearing it again.
  void before_reuse(cudaStream_t s, unsigned room) {
    if (pending_[room]) check(cudaStreamWaitEvent(s, ev_[room], 0), dev_, "cudaStreamWaitEvent (msm room reuse)");
  }
  // `s` waits for every reduction queued.
  void join(cudaStream_t s) {
    check(cudaEventRecord(ev_[2], stream_->get()), dev_, "cudaEventRecord (msm reductions done)");
    check(cudaStreamWaitEvent(s, ev_[2], 0), dev_, "cudaStreamWaitEvent (msm reductions done)");
  }
  // After the work is done: the reductions' own time (a span that cannot be read counts 0).
  double ms() const noexcept {
    double t = 0;
    for (auto& sp : spans_) {
      float x = 0;
      if (cudaEventElapsedTime(&x, sp.first, sp.second) == cudaSuccess) t += x;
    }
    (void)cudaGetLastError();
    return t;
  }

 private:
  cudaEvent_t timing_event() {
    cudaEvent_t e;
    check(cudaEventCreate(&e), dev_, "cudaEventCreate (msm reduction timing)");
    return e;
  }
  DeviceId dev_;
  bool timed_ = false;
  std::optional<Stream> stream_;
  cudaEvent_t ev_[3] = {nullptr, nullptr, nullptr};  // room 0 and 1 reduced; a one-off mark
  bool pending_[2] = {false, false};
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> spans_;
};

inline unsigned blocks_for(size_t threads) { return unsigned((threads + kBlock - 1) / kBlock); }

// F: the point field; Fr: the scalar field (for Montgomery scalars); kScalarBits: bits of r.
template <class F, class Fr, unsigned kScalarBits>
struct Msm {
  using Aff = Affine<F>;
  using X = XYZZ<F>;
  static_assert(sizeof(Aff) % 16 == 0 && sizeof(X) % 16 == 0, "points are loaded 16 bytes at a time");

  // Device memory of one call, in carving order.
  struct Buffers {
    Aff* bases_copy = nullptr;
    Scalar4* scalars_copy = nullptr;  // host scalars copied here, then converted in place
    Scalar4* scalars_std = nullptr;   // device scalars converted here (when not copied)
    uint32_t* cand = nullptr;
    uint32_t* gen_idx = nullptr;
    // [0]: general count; [1 .. kMaxWindows]: non-zero digits per unit of a group; then the
    // ones' count, the longest general scalar's bits and the compacted ones' count
    uint32_t* counters = nullptr;
    void* select_temp = nullptr;
    size_t select_bytes = 0;
    void* sort_temp = nullptr;
    size_t sort_bytes = 0;
    uint32_t* keys = nullptr;  // E entries
    uint32_t* vals = nullptr;
    uint32_t* keys_alt = nullptr;  // the largest unit's entries
    uint32_t* vals_alt = nullptr;
    X* buckets = nullptr;
    X* buckets_more[2] = {nullptr, nullptr};  // the further arrays of bases' (MsmConfig::bases2, bases3)
    size_t bucket_total = 0;                  // buckets an array (CostModel::buckets_for)
    uint32_t* slot_keys[2] = {nullptr, nullptr};
    X* slot_pts[2] = {nullptr, nullptr};
    X* red[2] = {nullptr, nullptr};
    X* results = nullptr;                     // the ones' sum, then one sum per bucket set
    X* results_more[2] = {nullptr, nullptr};  // the same for bases2, bases3
    size_t entries = 0;                       // E
    // Array k's (0: bases, 1: bases2, 2: bases3) buckets and sums.
    X* buckets_of(int k) const { return k ? buckets_more[k - 1] : buckets; }
    X* results_of(int k) const { return k ? results_more[k - 1] : results; }
  };

  static CostModel model(size_t n) { return CostModel::for_field(sizeof(F), n); }
  // The widest window a call of n scalars may use: the one asked for, else the model's choice for
  // n full-length scalars (a call with fewer general scalars or shorter ones chooses no wider).
  static unsigned max_c(size_t n, unsigned forced) { return forced ? forced : model(n).choose(n, kScalarBits); }
  // The bucket reduction of nb buckets a set: levels of segments while more than kTailLen points
  // are left, then the tail (one thread a point); `levels` counts the levels of segments,
  // `values` what they and the tail write per set.
  struct Reduction {
    unsigned levels = 0;
    uint32_t values = 0;
  };
  // Buckets a thread sums at a level of `len` points a set: kSegLen while that keeps a wave of
  // threads busy (the level is bound by its additions), else kSegLenNarrow (bound by one
  // thread's chain of 2 L additions, G2's ~30-60 us each).
  static uint32_t seg_len(size_t sets, uint32_t len) {
    return sets * ((len + kSegLen - 1) / kSegLen) >= kWaveThreads ? kSegLen : kSegLenNarrow;
  }
  static Reduction reduction_for(uint32_t nb, size_t sets) {
    Reduction r;
    uint32_t len = nb;
    while (len > kTailLen) {
      const uint32_t L = seg_len(sets, len);
      len = (len + L - 1) / L;
      ++r.levels;
      r.values += len;
    }
    r.values += len;
    return r;
  }
  static size_t entry_cap(const MsmConfig& cfg) { return cfg.max_pairs ? cfg.max_pairs : kEntryCap; }
  static size_t entries_for(size_t n, unsigned forced, size_t cap) {
    size_t want = size_t(windows_for(max_c(n, forced), kScalarBits)) * n;
    return std::max(n, std::min(cap, want));
  }

  // CUB's scratch sizes (asked on the current device).
  static size_t sort_temp_bytes(unsigned K, size_t n, size_t cap, DeviceId dev) {
    n = std::min(size_t(K) * n, std::max(n, cap));  // the largest list one sort sees
    size_t bytes = 0;
    msm_sort::Pairs none;
    check(msm_sort::sort_pairs(nullptr, bytes, none, uint32_t(n), int(kMaxC)), dev,
          "cub::DeviceRadixSort::SortPairs (scratch query)", "n = " + std::to_string(n));
    return bytes;
  }
  static size_t select_temp_bytes(size_t n, DeviceId dev) {
    size_t general = 0, ones = 0;
    check(msm_sort::select(nullptr, general, nullptr, nullptr, nullptr, int64_t(n), msm_sort::Select::general), dev,
          "cub::DeviceSelect::If (scratch query)", "n = " + std::to_string(n));
    check(msm_sort::select(nullptr, ones, nullptr, nullptr, nullptr, int64_t(n), msm_sort::Select::ones), dev,
          "cub::DeviceSelect::If (scratch query)", "n = " + std::to_string(n));
    return std::max(general, ones);
  }

  static Buffers carve(Carver& cv, size_t n, bool bases_on_device, bool scalars_on_device, unsigned forced, unsigned K,
                       size_t cap, size_t select_bytes, size_t sort_bytes, int more_bases) {
    Buffers b;
    if (!bases_on_device) b.bases_copy = cv.take<Aff>(n, "msm bases");
    if (!scalars_on_device)
      b.scalars_copy = cv.take<Scalar4>(n, "msm scalars");
    else
      b.scalars_std = cv.take<Scalar4>(n, "msm scalars (standard form)");
    b.cand = cv.take<uint32_t>(n, "msm candidates");
    b.gen_idx = cv.take<uint32_t>(n, "msm general indices");
    b.counters = cv.take<uint32_t>(4 + kMaxWindows, "msm counters");
    b.select_bytes = select_bytes;
    b.select_temp = cv.take<uint8_t>(select_bytes, "cub select scratch");
    b.sort_bytes = sort_bytes;
    b.sort_temp = cv.take<uint8_t>(sort_bytes, "cub radix sort scratch");
    b.entries = entries_for(n, forced, cap);
    b.keys = cv.take<uint32_t>(b.entries, "msm sort keys");
    b.vals = cv.take<uint32_t>(b.entries, "msm sort values");
    const size_t alt = std::min(b.entries, size_t(K) * n);  // the largest unit a sort sees
    b.keys_alt = cv.take<uint32_t>(alt, "msm sort keys (alternate)");
    b.vals_alt = cv.take<uint32_t>(alt, "msm sort values (alternate)");
    // Buckets: the sets the widest window a call of this n may choose holds at once (all of
    // them when they fit, else a group's); a narrower plan fills as many sets of its own as that
    // room holds (all of them, as the narrower sets are smaller, unless the widest held one
    // group's), reducing them before the next group. Bucket-reduction outputs for every c.
    const unsigned cmax = max_c(n, forced);
    const CostModel cm = model(n);
    const size_t fit = std::max<size_t>(1, b.entries / n);
    b.bucket_total = cm.buckets_for(cmax, kScalarBits, K, fit, forced != 0);
    size_t segs = 0;
    for (unsigned c = kMinC; c <= cmax; ++c) {
      if (c != forced && !cm.fits(c, kScalarBits)) continue;
      const size_t nb = size_t(1) << (c - 1);
      // The most sets a plan of c may hold at once (its layout in these buckets, or every set
      // of a plan with fewer parts).
      const size_t sets = std::min(CostModel::all_sets(windows_for(c, kScalarBits), K, fit), b.bucket_total / nb);
      for (size_t k = 1; k <= sets; ++k)  // a plan may fill fewer sets, each reduced by narrower levels
        segs = std::max(segs, k * reduction_for(uint32_t(nb), k).values);
    }
    b.buckets = cv.take<X>(b.bucket_total, "msm buckets");
    for (int k = 0; k < more_bases; ++k) b.buckets_more[k] = cv.take<X>(b.bucket_total, "msm buckets (further bases)");
    size_t slots = 2 * std::min<size_t>(kRunsCap, b.entries);  // level-0 runs at most
    for (int i = 0; i < 2; ++i) {
      b.slot_keys[i] = cv.take<uint32_t>(slots, "msm partial-sum keys");
      b.slot_pts[i] = cv.take<X>(slots, "msm partial sums");
    }
    size_t red0 = std::max<size_t>(segs, std::min<size_t>(kOnesThreads, n));
    b.red[0] = cv.take<X>(red0, "msm reduction");
    b.red[1] = cv.take<X>(red0, "msm reduction");
    b.results = cv.take<X>(1 + size_t(kMaxWindows), "msm window sums");
    for (int k = 0; k < more_bases; ++k)
      b.results_more[k] = cv.take<X>(1 + size_t(kMaxWindows), "msm window sums (further bases)");
    return b;
  }

  // The window width the call asks for (0: the plan chooses), checked with the tables' count
  // and the pairs' bound.
  static unsigned forced_c(const MsmConfig& cfg, DeviceId dev) {
    if (cfg.max_pairs > (size_t(1) << 31))  // a group's pairs are counted in 32 bits
      throw GpuError(dev.name() + ": msm: max_pairs = " + std::to_string(cfg.max_pairs) + " exceeds 2^31");
    if (cfg.window_bits != 0 && (cfg.window_bits < kMinC || cfg.window_bits > kMaxC))
      throw GpuError(dev.name() + ": msm: window_bits = " + std::to_string(cfg.window_bits) + " is outside " +
                     std::to_string(kMinC) + ".." + std::to_string(kMaxC));
    if (cfg.tables == 0) throw GpuError(dev.name() + ": msm: tables = 0 (one table is the bases themselves)");
    if (cfg.bases2 && cfg.bases_at != Where::Device)
      throw GpuError(dev.name() + ": msm: a second array of bases (bases2) must be on the device, as the first");
    if (cfg.bases3 && !cfg.bases2)
      throw GpuError(dev.name() + ": msm: a third array of bases (bases3) needs a second (bases2)");
    if (cfg.tables > 1) {
      if (cfg.window_bits == 0)
        throw GpuError(dev.name() + ": msm: " + std::to_string(cfg.tables) +
                       " tables need the window_bits they were made for");
      if (cfg.bases_at != Where::Device)
        throw GpuError(dev.name() + ": msm: tables are a resident key's: bases must be on the device");
      if (size_t(cfg.tables) * cfg.count >= (size_t(1) << 31))
        throw GpuError(dev.name() + ": msm: " + std::to_string(cfg.tables) + " tables of " + std::to_string(cfg.count) +
                       " points exceed 2^31 - 1 points");
    }
    return cfg.window_bits;
  }

  // Arrays of bases beyond the first (MsmConfig::bases2, bases3).
  static int more_bases(const MsmConfig& cfg) { return (cfg.bases2 ? 1 : 0) + (cfg.bases3 ? 1 : 0); }

  static size_t workspace_bytes(DeviceId dev, const MsmConfig& cfg) {
    const size_t n = cfg.count;
    const bool bases_on_device = cfg.bases_at == Where::Device, scalars_on_device = cfg.scalars_at == Where::Device;
    if (n == 0) return 0;
    DeviceScope scope(dev);
    Carver cv;
    const unsigned forced = forced_c(cfg, dev);
    carve(cv, n, bases_on_device, scalars_on_device, forced, cfg.tables, entry_cap(cfg), select_temp_bytes(n, dev),
          sort_temp_bytes(cfg.tables, n, entry_cap(cfg), dev), more_bases(cfg));
    return cv.used();
  }

  // Sums `groups` arrays of `len` points each (in red[0]); returns where the sums are (groups
  // consecutive points, in red[0] or red[1]). kFan points a thread while that fills the GPU;
  // below a wave the kernels are bound by the latency of one thread's additions, so two.
  static X* reduce_groups(Buffers& b, uint32_t groups, uint32_t len, cudaStream_t s, DeviceId dev, size_t n) {
    X* in = b.red[0];
    X* out = b.red[1];
    while (len > 1) {
      const uint32_t fan = size_t(groups) * len / kFan >= kWaveThreads ? kFan : 2;
      uint32_t out_len = (len + fan - 1) / fan;
      reduce_kernel<F><<<blocks_for(size_t(groups) * out_len), kBlock, 0, s>>>(in, out, groups, len, out_len, fan);
      check_launch(dev, "msm reduce_kernel", n);
      std::swap(in, out);
      len = out_len;
    }
    return in;
  }

  // Windows w0 .. w0 + gw - 1, digits written and accumulated together, sorted as `units` lists
  // of wpu windows (the last may be shorter); unit u fills bucket set set0 + u.
  struct WindowGroup {
    unsigned w0 = 0, gw = 0, wpu = 1, units = 0, set0 = 0;
  };
  // c-bit windows, W of them; K tables: window w reads table w mod K, and the K windows of a
  // table set share one bucket set (one a window without tables; a table set too large for one
  // group has one bucket set per group). Bucket set r's weighted sum counts 2^shift[r] times
  // in the result. nb buckets a set; runs_target level-0 runs.
  struct Plan {
    unsigned c = 0, W = 0, K = 1, sets = 0;
    unsigned held = 0;   // bucket sets the workspace holds at once (a group's at least)
    unsigned rooms = 1;  // the buckets in one room, or two (a batch reduced beside the next)
    size_t room_buckets = 0;
    uint32_t top = 0;  // buckets the last window's digits reach (no tables): 2^(bits - (W - 1) c), at most nb
    uint32_t nb = 0, runs_target = 0;
    std::vector<WindowGroup> groups;
    std::vector<unsigned> shift;
  };

  // One call on its stream: the steps of run(), in order. Each enqueues its copies and kernels on
  // `s`; the host waits only at the end of prepare() and in finish().
  struct Call {
    DeviceId dev;
    cudaStream_t s;
    size_t n;
    const std::string& nstr;
    Buffers& b;
    PhaseClock& clock;
    // On the device: the bases; the scalars classify_kernel reads (scal_in) and writes (scal_out,
    // null: standard-form input read in place); scal, the standard-form scalars digits come from.
    const Aff* bases = nullptr;
    const Aff* more[2] = {nullptr, nullptr};  // MsmConfig::bases2, bases3, or nulls
    unsigned reductions = 0;                  // batches of bucket sets reduced
    SideStream side;                          // their stream, when they overlap the next batch
    int arrays = 1;                           // of bases, `bases` and `more`
    const Aff* bases_of(int k) const { return k ? more[k - 1] : bases; }
    const Scalar4* scal_in = nullptr;
    Scalar4* scal_out = nullptr;
    const Scalar4* scal = nullptr;

    Call(DeviceId dev_, cudaStream_t s_, size_t n_, const std::string& nstr_, Buffers& b_, PhaseClock& clock_)
        : dev(dev_), s(s_), n(n_), nstr(nstr_), b(b_), clock(clock_) {}

    // Host bases and scalars to the device; copied scalars are converted in place, and so are
    // standard-form scalars already on the device. Host arrays go through the staging copies
    // (pinned buffers filled by the copy pool: the driver's own path from pageable memory runs at
    // a few GB/s, a streamed key's chunks are most of its MSMs), after the stream's earlier work,
    // which may still use this workspace.
    void copy_in(const MsmConfig& cfg) {
      clock.mark(PhaseClock::copy_in);
      bases = static_cast<const Aff*>(cfg.bases);
      more[0] = static_cast<const Aff*>(cfg.bases2);
      more[1] = static_cast<const Aff*>(cfg.bases3);
      arrays = 1 + more_bases(cfg);
      if (cfg.bases_at != Where::Device || cfg.scalars_at != Where::Device)
        check(cudaStreamSynchronize(s), dev, "msm (work queued before its copies)", nstr);
      if (cfg.bases_at != Where::Device) {
        copy_to_device_staged(dev, b.bases_copy, cfg.bases, n * sizeof(Aff), "msm bases");
        bases = b.bases_copy;
      }
      scal_in = static_cast<const Scalar4*>(cfg.scalars);
      scal_out = cfg.scalar_form == ScalarForm::Montgomery ? b.scalars_std : nullptr;
      if (cfg.scalars_at != Where::Device) {
        copy_to_device_staged(dev, b.scalars_copy, cfg.scalars, n * sizeof(Scalar4), "msm scalars");
        scal_in = b.scalars_copy;
        scal_out = b.scalars_copy;
      }
      scal = scal_out ? scal_out : scal_in;
    }

    // Classify; compact the ones (into the keys buffer) and the general scalars (into gen_idx);
    // wait for the counts (m general scalars, `ones` ones, the longest general scalar's `bits`);
    // then sum the ones' bases into results[0] (infinity when there are none).
    void prepare(bool montgomery, uint32_t& m, uint32_t& ones, uint32_t& bits) {
      clock.mark(PhaseClock::prepare);
      uint32_t* ones_count = b.counters + 1 + kMaxWindows;
      uint32_t* max_bits = ones_count + 1;
      uint32_t* ones_listed = ones_count + 2;
      check(cudaMemsetAsync(ones_count, 0, 2 * sizeof(uint32_t), s), dev, "cudaMemsetAsync (msm ones count)", nstr);
      classify_kernel<Fr>
          <<<blocks_for(n), kBlock, 0, s>>>(scal_in, scal_out, b.cand, n, montgomery, ones_count, max_bits);
      check_launch(dev, "msm classify_kernel", n);
      // The ones' list goes to the keys buffer (at least n entries, unused until the digits), the
      // general scalars' to gen_idx; the ones are summed only when there are any (random scalars
      // have none: a kernel and a dozen tree launches saved).
      uint32_t* ones_idx = b.keys;
      size_t sel_bytes = b.select_bytes;
      check(msm_sort::select(b.select_temp, sel_bytes, b.cand, ones_idx, ones_listed, int64_t(n),
                             msm_sort::Select::ones, s),
            dev, "cub::DeviceSelect::If (msm scalars 1)", nstr);
      sel_bytes = b.select_bytes;
      check(msm_sort::select(b.select_temp, sel_bytes, b.cand, b.gen_idx, b.counters, int64_t(n),
                             msm_sort::Select::general, s),
            dev, "cub::DeviceSelect::If (msm general scalars)", nstr);
      check(cudaMemcpyAsync(&m, b.counters, sizeof(m), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (msm general count)", nstr);
      check(cudaMemcpyAsync(&ones, ones_count, sizeof(ones), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (msm ones count)", nstr);
      check(cudaMemcpyAsync(&bits, max_bits, sizeof(bits), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (msm scalar bits)", nstr);
      check(cudaStreamSynchronize(s), dev, "msm prepare (classify, select)", nstr);
      const uint32_t ones_threads = uint32_t(std::min<size_t>(kOnesThreads, n));
      for (int k = 0; k < arrays; ++k) {
        if (ones == 0) {  // the sum of no points: infinity (all-zero XYZZ)
          check(cudaMemsetAsync(b.results_of(k), 0, sizeof(X), s), dev, "cudaMemsetAsync (msm ones sum)", nstr);
          continue;
        }
        ones_kernel<F>
            <<<blocks_for(ones_threads), kBlock, 0, s>>>(bases_of(k), ones_idx, ones_listed, ones_threads, b.red[0]);
        check_launch(dev, "msm ones_kernel", n);
        X* ones_sum = reduce_groups(b, 1, ones_threads, s, dev, n);
        check(cudaMemcpyAsync(b.results_of(k), ones_sum, sizeof(X), cudaMemcpyDeviceToDevice, s), dev,
              "cudaMemcpyAsync (msm ones sum)", nstr);
      }
    }

    // Windows cover the longest general scalar's bits only: a witness of small values (a
    // synthetic one, counters, indices) walks few windows; one full-size scalar means all.
    Plan plan(uint32_t m, uint32_t bits, unsigned forced, unsigned K) const {
      Plan p;
      bits = std::clamp<uint32_t>(bits, 1, kScalarBits);
      // The cheapest width for these m scalars of `bits` bits among those the buckets are carved
      // for (up to max_c, fitting for full-length scalars).
      p.c = forced ? forced : model(n).choose(m, bits, max_c(n, 0), kScalarBits);
      p.W = windows_for(p.c, bits);
      // The last window holds bits - (W - 1) c < c bits, so its Booth digit is at most 2^that.
      p.top = std::min<uint32_t>(1u << (p.c - 1), 1u << (bits - (p.W - 1) * p.c));
      p.K = K;
      p.nb = 1u << (p.c - 1);
      // Groups as large as the (key, value) buffer and the buckets hold: whole table sets, or
      // one in parts.
      const unsigned k = std::min(K, p.W);  // windows a table set
      const unsigned tsets = sets_for(p.W, K);
      const unsigned fit = unsigned(std::max<size_t>(1, std::min<size_t>(p.W, b.entries / m)));
      const CostModel::Rooms lay = model(n).layout(p.c, bits, K, fit, b.bucket_total);
      p.rooms = lay.rooms;
      p.room_buckets = b.bucket_total / lay.rooms;
      p.held = unsigned(std::min<size_t>(lay.sets, kMaxWindows));
      if (p.held == 0)
        throw GpuError(dev.name() + ": msm: " + std::to_string(p.c) + "-bit windows' buckets exceed the workspace's (" +
                       nstr + ")");
      if (k <= fit) {
        const unsigned per = std::min({tsets, fit / k, p.held});
        for (unsigned s0 = 0; s0 < tsets; s0 += per) {
          WindowGroup g;
          g.w0 = s0 * k, g.gw = std::min(p.W, (s0 + per) * k) - g.w0, g.wpu = k;
          g.units = std::min(per, tsets - s0), g.set0 = s0;
          p.groups.push_back(g);
        }
        for (unsigned t = 0; t < tsets; ++t) p.shift.push_back(p.c * k * t);
      } else {
        for (unsigned t = 0; t < tsets; ++t) {
          const unsigned ws = t * k, we = std::min(p.W, ws + k);
          for (unsigned w0 = ws; w0 < we; w0 += fit) {
            WindowGroup g;
            g.w0 = w0, g.gw = std::min(fit, we - w0), g.wpu = g.gw, g.units = 1, g.set0 = unsigned(p.shift.size());
            p.groups.push_back(g);
            p.shift.push_back(p.c * ws);
          }
        }
      }
      p.sets = unsigned(p.shift.size());
      // Level-0 runs: whole waves of the accumulation kernel, at most kRunsCap.
      int sms = 0, per_sm = 0;
      check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev.ordinal), dev,
            "cudaDeviceGetAttribute (multiprocessors)");
      check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, accumulate_bases_kernel<F>, kBlock, 0), dev,
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor (msm accumulate)");
      const uint32_t wave = uint32_t(std::max(1, sms * per_sm)) * kBlock / kLanes;
      p.runs_target = wave >= kRunsCap ? kRunsCap : wave * (kRunsCap / wave);
      return p;
    }

    static constexpr unsigned kLanes = LanesOf<F>::type::kLanes;  // threads a level-0 run

    // The group's digits (non-zero counts per unit in cnt), then one radix sort per unit; win
    // gets where each sorted unit lies.
    void sort_group(const Plan& p, const WindowGroup& g, uint32_t m, uint32_t* cnt, WindowPtrs& win) {
      clock.mark(PhaseClock::sort);
      check(cudaMemsetAsync(cnt, 0, g.units * sizeof(uint32_t), s), dev, "cudaMemsetAsync (msm digit counts)", nstr);
      digits_kernel<<<blocks_for(m), kBlock, 0, s>>>(scal, b.gen_idx, m, g.w0, g.gw, p.c, p.K, uint32_t(n), g.wpu,
                                                     b.keys, b.vals, cnt);
      check_launch(dev, "msm digits_kernel", n);
      uint32_t* spare_k = b.keys_alt;
      uint32_t* spare_v = b.vals_alt;
      for (unsigned u = 0; u < g.units; ++u) {
        const size_t at = size_t(u) * g.wpu * m, items = size_t(std::min(g.wpu, g.gw - u * g.wpu)) * m;
        msm_sort::Pairs pairs;
        pairs.keys[0] = b.keys + at, pairs.keys[1] = spare_k;
        pairs.vals[0] = b.vals + at, pairs.vals[1] = spare_v;
        size_t tb = b.sort_bytes;
        check(msm_sort::sort_pairs(b.sort_temp, tb, pairs, uint32_t(items), int(p.c), s), dev,
              "cub::DeviceRadixSort::SortPairs (msm window)", nstr + ", window " + std::to_string(g.w0 + u * g.wpu));
        win.keys[u] = pairs.keys[pairs.current];
        win.vals[u] = pairs.vals[pairs.current];
        spare_k = pairs.keys[pairs.current ^ 1];  // the buffer the sort left free serves the next unit (no larger)
        spare_v = pairs.vals[pairs.current ^ 1];
      }
    }

    // The group's buckets (of `pts`, into `buckets`, its first set's): level 0 over the sorted
    // units, then the partial-sum levels until one run is left.
    void accumulate_group(const Plan& p, const WindowGroup& g, uint32_t m, const WindowPtrs& win, const uint32_t* cnt,
                          const Aff* pts, X* buckets) {
      clock.mark(PhaseClock::accumulate);
      const BucketStore<F> st{buckets, p.c, p.nb, g.units};
      uint32_t runs = std::min<uint32_t>(p.runs_target, uint32_t(std::min<size_t>(kRunsCap, size_t(g.gw) * m)));
      bool final = runs == 1;
      accumulate_bases_kernel<F><<<blocks_for(size_t(runs) * kLanes), kBlock, 0, s>>>(
          win, cnt, g.units, runs, pts, final, st, Slots<F>{b.slot_keys[0], b.slot_pts[0]});
      check_launch(dev, "msm accumulate_bases_kernel", n);
      int cur = 0;
      uint32_t len = 2 * runs;
      while (!final) {
        uint32_t next_runs = (len + kRunLen - 1) / kRunLen;
        final = next_runs == 1;
        accumulate_partials_kernel<F><<<blocks_for(next_runs), kBlock, 0, s>>>(
            b.slot_keys[cur], b.slot_pts[cur], len, final, st, Slots<F>{b.slot_keys[cur ^ 1], b.slot_pts[cur ^ 1]});
        check_launch(dev, "msm accumulate_partials_kernel", n);
        cur ^= 1;
        len = 2 * next_runs;
      }
    }

    // Bucket reduction of `sets` sets of buckets: levels of segments (bucket_level_kernel), the
    // tail (bucket_tail_kernel), then one tree reduction per set over everything they wrote: the
    // set sums into sums[0 .. sets). A set's first nbr buckets (of nb): those its digits reach.
    void reduce_windows(const Plan& p, unsigned sets, uint32_t nbr, X* buckets, X* sums_out, cudaStream_t st) {
      const Reduction red = reduction_for(nbr, sets);
      const uint32_t T = red.values;
      uint32_t len = nbr, off = 0;
      size_t stride = 1;
      for (unsigned level = 0; level < red.levels; ++level) {
        const uint32_t L = seg_len(sets, len), segs = (len + L - 1) / L;
        bucket_level_kernel<F><<<blocks_for(size_t(sets) * segs), kBlock, 0, st>>>(
            buckets, sets, p.nb, len, uint32_t(stride), L, level == 0, b.red[0] + off, T);
        check_launch(dev, "msm bucket_level_kernel", n);
        off += segs;
        len = segs;
        stride *= L;
      }
      bucket_tail_kernel<F><<<blocks_for(size_t(sets) * len), kBlock, 0, st>>>(
          buckets, sets, p.nb, len, uint32_t(stride), red.levels == 0, b.red[0] + off, T);
      check_launch(dev, "msm bucket_tail_kernel", n);
      X* sums = reduce_groups(b, sets, T, st, dev, n);
      check(cudaMemcpyAsync(sums_out, sums, sets * sizeof(X), cudaMemcpyDeviceToDevice, st), dev,
            "cudaMemcpyAsync (msm window sums)", nstr);
    }

    // The m general scalars through the buckets, group of windows by group (each group's sort
    // serves every array of bases). The buckets hold p.held sets: groups fill them in order
    // (sets base .. base + filled), reduced when the next group would not fit and after the last.
    // With two rooms and more than one batch, every batch but the last is reduced on a second
    // stream (in order: they share the reduction scratch) beside the next batch's sort and
    // accumulation in the other room; a room is cleared again, after the next batch's first
    // sort, only once its last reduction is done (that wait is the reduce phase's), and the last
    // batch is reduced on the call's stream after all of them.
    void window_sums(const Plan& p, uint32_t m) {
      const bool overlap = p.rooms == 2;  // a batch reduced before the last is reduced beside
      const auto room_of = [&](int k, unsigned r) { return b.buckets_of(k) + size_t(r) * p.room_buckets; };
      unsigned base = 0, filled = 0, room = 0;
      const auto reduce_held = [&](bool beside) {
        ++reductions;
        // A batch of the last window alone (no tables) reduces only the buckets it can reach.
        const uint32_t nbr = p.K == 1 && filled == 1 && base + 1 == p.sets ? p.top : p.nb;
        cudaStream_t st = s;
        if (beside) {
          if (!side.started()) side.start(dev, clock.on());
          st = side.after(s);
        } else
          clock.mark(PhaseClock::reduce);
        for (int k = 0; k < arrays; ++k)
          reduce_windows(p, filled, nbr, room_of(k, room), b.results_of(k) + 1 + base, st);
        if (beside) side.reduced(room);
      };
      for (const WindowGroup& g : p.groups) {
        if (filled + g.units > p.held) {
          reduce_held(overlap);
          base = g.set0, filled = 0;
          if (overlap) room ^= 1;
        }
        uint32_t* cnt = b.counters + 1;
        WindowPtrs win{};
        sort_group(p, g, m, cnt, win);  // touches no bucket: runs beside a reduction
        if (filled == 0 && side.started()) {
          clock.mark(PhaseClock::reduce);
          side.before_reuse(s, room);
        }
        for (int k = 0; k < arrays; ++k)
          check(cudaMemsetAsync(room_of(k, room) + size_t(filled) * p.nb, 0, size_t(g.units) * p.nb * sizeof(X), s),
                dev, "cudaMemsetAsync (msm buckets)", nstr);
        for (int k = 0; k < arrays; ++k)
          accumulate_group(p, g, m, win, cnt, bases_of(k), room_of(k, room) + size_t(filled) * p.nb);
        filled += g.units;
      }
      if (side.started()) {
        clock.mark(PhaseClock::reduce);
        side.join(s);
      }
      reduce_held(false);
    }

    // Waits for the set sums and the ones' sum; the total is the sets' by Horner in 2^shift
    // (set 0 starts at window 0: shift 0), plus the ones. Array k's (0: bases, 1: bases2, ...).
    X finish(const Plan& p, int k = 0) {
      const size_t count = 1 + size_t(p.sets);
      std::vector<X> host(count);
      check(cudaMemcpyAsync(host.data(), b.results_of(k), count * sizeof(X), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (msm results to host)", nstr);
      if (k == 0) clock.mark(PhaseClock::count);
      check(cudaStreamSynchronize(s), dev, "msm kernels", nstr);
      X total = X::infinity();
      for (unsigned r = p.sets; r-- > 0;) {
        const unsigned up = r + 1 < p.sets ? p.shift[r + 1] - p.shift[r] : 0;
        for (unsigned i = 0; i < up; ++i) total = total.dbl();
        total += host[1 + r];
      }
      total += host[0];
      return total;
    }
  };

  static void report_timings(PhaseClock& clock, const Plan& p, unsigned reductions, double beside_ms,
                             std::chrono::steady_clock::time_point t_start, MsmTimings& tm) {
    double ms[PhaseClock::count];
    clock.read(ms);
    tm.copy_in_ms = ms[PhaseClock::copy_in];
    tm.prepare_ms = ms[PhaseClock::prepare];
    tm.sort_ms = ms[PhaseClock::sort];
    tm.accumulate_ms = ms[PhaseClock::accumulate];
    tm.reduce_ms = ms[PhaseClock::reduce];
    tm.c = p.c;
    tm.windows = p.W;
    tm.window_groups = unsigned(p.groups.size());
    tm.reductions = reductions;
    tm.reduce_beside_ms = beside_ms;
    tm.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_start).count();
  }

  // cfg.tables tables of the device bases for cfg.window_bits-bit windows into out (see msm.hpp).
  static void make_tables(DeviceId dev, const MsmConfig& cfg, void* out, StreamHandle handle) {
    const size_t n = cfg.count;
    const std::string nstr = "n = " + std::to_string(n);
    if (cfg.window_bits < kMinC || cfg.window_bits > kMaxC)
      throw GpuError(dev.name() + ": msm tables: window_bits = " + std::to_string(cfg.window_bits) + " is outside " +
                     std::to_string(kMinC) + ".." + std::to_string(kMaxC));
    if (cfg.tables == 0 || size_t(cfg.tables) * n >= (size_t(1) << 31))
      throw GpuError(dev.name() + ": msm tables: " + std::to_string(cfg.tables) + " tables of " + nstr +
                     " points (1 .. 2^31 - 1 points in all)");
    if (cfg.bases_at != Where::Device ||
        ((reinterpret_cast<uintptr_t>(cfg.bases) | reinterpret_cast<uintptr_t>(out)) & 15))
      throw GpuError(dev.name() + ": msm tables: bases and tables must be 16-byte aligned device memory (" + nstr +
                     ")");
    if (n == 0) return;
    DeviceScope scope(dev);
    (void)cudaGetLastError();
    std::optional<Stream> own;
    const cudaStream_t s = handle.stream ? static_cast<cudaStream_t>(handle.stream) : own.emplace(dev).get();
    Aff* t = static_cast<Aff*>(out);
    if (out != cfg.bases)
      check(cudaMemcpyAsync(t, cfg.bases, n * sizeof(Aff), cudaMemcpyDeviceToDevice, s), dev,
            "cudaMemcpyAsync (msm table 0)", nstr);
    for (unsigned k = 1; k < cfg.tables; ++k) {
      table_kernel<F><<<blocks_for((n + kTableBatch - 1) / kTableBatch), kBlock, 0, s>>>(
          t + size_t(k - 1) * n, t + size_t(k) * n, n, cfg.window_bits);
      check_launch(dev, "msm table_kernel", n);
    }
    check(cudaStreamSynchronize(s), dev, "msm tables", nstr);
  }

  static void run(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle handle,
                  MsmTimings* timings) {
    const size_t n = cfg.count;
    const bool bases_on_device = cfg.bases_at == Where::Device, scalars_on_device = cfg.scalars_at == Where::Device;
    auto t_start = std::chrono::steady_clock::now();
    const std::string nstr = "n = " + std::to_string(n);
    if (n >= (size_t(1) << 31)) throw GpuError(dev.name() + ": msm: n = " + std::to_string(n) + " exceeds 2^31 - 1");
    if (workspace.device.ordinal != dev.ordinal && n > 0)
      throw GpuError(dev.name() + ": msm: workspace belongs to " + workspace.device.name() + " (" + nstr + ")");
    DeviceScope scope(dev);
    (void)cudaGetLastError();  // a failed call before this one (e.g. cudaSetDevice) is not this call's error
    ec::Jacobian<F> res = ec::Jacobian<F>::infinity();
    MsmTimings tm;
    auto* out = static_cast<ec::Jacobian<F>*>(result);  // one per array of bases
    if (n == 0) {
      for (int k = 0; k < 1 + more_bases(cfg); ++k) std::memcpy(out + k, &res, sizeof(res));
      if (timings) *timings = tm;
      return;
    }
    if (bases_on_device && ((reinterpret_cast<uintptr_t>(cfg.bases) | reinterpret_cast<uintptr_t>(cfg.bases2) |
                             reinterpret_cast<uintptr_t>(cfg.bases3)) &
                            15))
      throw GpuError(dev.name() + ": msm: device bases must be 16-byte aligned (" + nstr + ")");

    std::optional<Stream> own;
    const cudaStream_t s = handle.stream ? static_cast<cudaStream_t>(handle.stream) : own.emplace(dev).get();
    Arena arena(workspace);
    Carver& cv = arena;
    const unsigned forced = forced_c(cfg, dev);
    Buffers b = carve(cv, n, bases_on_device, scalars_on_device, forced, cfg.tables, entry_cap(cfg),
                      select_temp_bytes(n, dev), sort_temp_bytes(cfg.tables, n, entry_cap(cfg), dev), more_bases(cfg));
    PhaseClock clock(timings != nullptr, s, dev);
    Call call(dev, s, n, nstr, b, clock);

    call.copy_in(cfg);
    uint32_t m = 0, ones = 0, bits = 0;
    call.prepare(cfg.scalar_form == ScalarForm::Montgomery, m, ones, bits);
    tm.general = m;
    tm.ones = ones;
    Plan p;
    if (m > 0) {
      p = call.plan(m, bits, forced, cfg.tables);
      call.window_sums(p, m);
    } else {
      clock.mark(PhaseClock::reduce);
    }
    for (int k = 0; k < call.arrays; ++k) {
      res = ec::Jacobian<F>::from_affine(call.finish(p, k).to_affine());
      std::memcpy(out + k, &res, sizeof(res));
    }
    if (timings) {
      report_timings(clock, p, call.reductions, call.side.ms(), t_start, tm);
      *timings = tm;
    }
  }
};

}  // namespace cuzk::gpu::msm_impl
