// SPDX-License-Identifier: MIT OR Apache-2.0
// GPU NTT over Fr: kernels and the host drivers, instantiated per curve by ntt_<curve>.cu.
//
// Design (bench/NTT-NOTES.md has the numbers):
//  - Radix-2 Cooley-Tukey over the global index space, several stages per kernel ("pass"): a
//    block loads a tile of 2^10 elements into shared memory, runs up to 10 stages on it, and
//    writes it back. Pass 0 takes the low index bits (contiguous tiles, up to 10 stages); the
//    other passes take up to 9 higher bits each, a tile being 2^k elements 2^b0 apart times
//    2^(10-k) neighbouring columns (runs of >= 2 elements = 64 bytes). 2^24: 3 passes (10 +
//    7 + 7 stages), 2^27: 3 (10 + 9 + 8). Stages
//    go two at a time through shared memory (radix 4: a thread's four elements in registers).
//  - Decimation in frequency (DIF) takes natural order to bit-reversed order; decimation in
//    time (DIT) takes bit-reversed order back to natural. compute_h runs the inverse NTT as DIF
//    and the coset NTT as DIT, so no permutation is ever done there, and their two pass-0
//    halves (same contiguous tiles) are one kernel with the coset scaling in between. The
//    standalone ntt() in place bit-reverses (16 x 16 tiles transposed in shared memory, each
//    tile swapped with its mirror), then runs DIT; out of place, pass 0 loads its tiles from
//    the input's bit-reversed positions (one memory pass fewer).
//  - Twiddles: one table tw[t] = w_n^t, t < n/2, built per call in the workspace (one product
//    of two small power tables per entry). The stage of half-size h uses tw[j * n/(2h)].
//    Inverse twiddles are w^-t = -tw[n/2 - t]: the sign is folded into the butterfly.
//  - Coset factor of coefficient j: f_j = g^j / n (times R^-1 for a and c, so that a.b - c
//    comes out of the Montgomery product already in standard form), from two small tables:
//    f_j = hi[j >> kc] * lo[j & (2^kc - 1)].
#pragma once
#include <array>
#include <cstdint>
#include <cuda_runtime.h>
#include <optional>
#include <string>

#include "backend/cpu/ntt.hpp"
#include "backend/cuda/common.cuh"
#include "backend/cuda/ntt.hpp"
#include "ff/field.hpp"

namespace cuzk::gpu::ntt_impl {

constexpr int kTileLog = 10;   // 2^10 elements = 32 KiB of shared memory per block
constexpr int kMinBlocks = 4;  // blocks an SM (four tiles' shared memory; 64 registers a thread)
constexpr int kThreads = 256;
constexpr int kMaxStridedBits = 9;  // butterfly bits of a strided pass (>= 2 column bits)
constexpr int kMaxPasses = 4;

struct Pass {
  int b0 = 0, k = 0, c = 0;  // butterfly bits [b0, b0 + k) of the index; c column bits
};

// Passes in DIT order (ascending bits); DIF runs them in reverse.
struct Plan {
  int count = 0;
  Pass pass[kMaxPasses];
};

inline Plan make_plan(int log_n) {
  Plan p;
  const int k0 = log_n < kTileLog ? log_n : kTileLog;
  p.pass[p.count++] = {0, k0, 0};
  const int rest = log_n - k0;
  if (rest > 0) {
    const int m = (rest + kMaxStridedBits - 1) / kMaxStridedBits;
    int b0 = k0;
    for (int i = 0; i < m; ++i) {
      const int k = rest / m + (i < rest % m ? 1 : 0);
      p.pass[p.count++] = {b0, k, kTileLog - k};  // b0 >= kTileLog > c: the columns fit below b0
      b0 += k;
    }
  }
  return p;
}

enum PostOp : int { kPostNone = 0, kPostScale = 1, kPostH = 2 };

template <class F>
struct PassArgs {
  int log_n = 0;
  Pass pass;
  bool dif = false, dif_inverse = false;  // DIF stages (high bit to low) first, ...
  bool dit = false, dit_inverse = false;  // ... then DIT stages (low bit to high)
  // Between the two: x_i *= coset_hi[j >> coset_bits] * coset_lo[j & mask], j = bitrev(i).
  const F* coset_lo = nullptr;
  const F* coset_hi = nullptr;
  int coset_bits = 0;
  int post = kPostNone;
  F scale;               // kPostScale: x *= scale
  const F* a = nullptr;  // kPostH: h = a * b - x, written to h instead of the tile
  const F* b = nullptr;
  F* h = nullptr;
  // Pass 0 of an out-of-place DIT transform: the tile at bit-reversed positions is loaded from
  // gather[bitrev(i)] (the input in natural order) instead of data[i]; block u takes the tile
  // bitrev(u), so that blocks running together read neighbouring elements of the input.
  const F* gather = nullptr;
};

// ------------------------------------------------------------------ device helpers

template <class F>
__device__ __forceinline__ F from_halves(uint4 lo, uint4 hi) {
  static_assert(F::N == 4, "Fr elements are 4 limbs");
  F x;
  x.l[0] = uint64_t(lo.x) | (uint64_t(lo.y) << 32);
  x.l[1] = uint64_t(lo.z) | (uint64_t(lo.w) << 32);
  x.l[2] = uint64_t(hi.x) | (uint64_t(hi.y) << 32);
  x.l[3] = uint64_t(hi.z) | (uint64_t(hi.w) << 32);
  return x;
}
template <class F>
__device__ __forceinline__ uint4 lo_half(const F& x) {
  return make_uint4(uint32_t(x.l[0]), uint32_t(x.l[0] >> 32), uint32_t(x.l[1]), uint32_t(x.l[1] >> 32));
}
template <class F>
__device__ __forceinline__ uint4 hi_half(const F& x) {
  return make_uint4(uint32_t(x.l[2]), uint32_t(x.l[2] >> 32), uint32_t(x.l[3]), uint32_t(x.l[3] >> 32));
}
template <class F>
__device__ __forceinline__ F load_global(const F* p) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
  return from_halves<F>(__ldg(q), __ldg(q + 1));
}
template <class F>
__device__ __forceinline__ void store_global(F* p, const F& x) {
  uint4* q = reinterpret_cast<uint4*>(p);
  q[0] = lo_half(x);
  q[1] = hi_half(x);
}

// The tile in shared memory as two planes of 16-byte halves; the second plane starts 64 bytes
// past a bank-aligned offset so that a thread pair loading one element's halves, and 8
// consecutive elements of one plane, hit distinct banks.
template <class F>
struct Tile {
  uint4* lo;
  uint4* hi;
  __device__ __forceinline__ F get(uint32_t e) const { return from_halves<F>(lo[e], hi[e]); }
  __device__ __forceinline__ void put(uint32_t e, const F& x) const {
    lo[e] = lo_half(x);
    hi[e] = hi_half(x);
  }
};
constexpr size_t tile_smem_bytes(int tile_log) { return (2 * (size_t(1) << tile_log) + 4) * 16; }

__device__ __forceinline__ uint32_t bit_reverse(uint32_t x, int bits) { return bits ? __brev(x) >> (32 - bits) : 0; }

// The twiddle of a stage-q pair whose lower element is tile element e: global half-size
// 2^(b0 + q), exponent t = (i mod 2^(b0+q)) * 2^(log_n - 1 - b0 - q); for the inverse, w^-t =
// -w^(n/2 - t), the sign returned in `neg`.
template <class F, bool kInverse>
__device__ __forceinline__ uint32_t twiddle_of(const PassArgs<F>& p, uint32_t col0, uint32_t e, int q, bool& neg) {
  const int c = p.pass.c, b0 = p.pass.b0;
  const uint32_t mid = e >> c;
  const uint32_t j = ((mid & ((1u << q) - 1)) << b0) | col0 | (e & ((1u << c) - 1));
  uint32_t t = j << (p.log_n - 1 - b0 - q);
  neg = false;
  if (kInverse && t != 0) {
    t = (1u << (p.log_n - 1)) - t;
    neg = true;
  }
  return t;
}

// One radix-2 butterfly with twiddle t (t = 0: w = 1, no product). DIF: (x + y, (x - y) w);
// DIT: (x + y w, x - y w). With `neg` (an inverse twiddle's sign) DIF subtracts the other way
// and DIT swaps its outputs; a forward transform (kInverse false) has no sign to apply.
template <class F, bool kDif, bool kInverse>
__device__ __forceinline__ void butterfly(F& x, F& y, const F* __restrict__ tw, uint32_t t, bool neg) {
  if (kDif) {
    const F s = x + y;
    F d;
    if (kInverse) {
      F u, v;  // (u, v) = neg ? (y, x) : (x, y), limb by limb (a selected reference would live in memory)
      for (int i = 0; i < F::N; ++i) {
        u.l[i] = neg ? y.l[i] : x.l[i];
        v.l[i] = neg ? x.l[i] : y.l[i];
      }
      d = u - v;
    } else {
      d = x - y;
    }
    if (t != 0) d = d * load_global(tw + t);
    x = s;
    y = d;
  } else {
    if (t != 0) y = y * load_global(tw + t);
    const F s = x + y, d = x - y;
    if (kInverse) {
      for (int i = 0; i < F::N; ++i) {
        x.l[i] = neg ? d.l[i] : s.l[i];
        y.l[i] = neg ? s.l[i] : d.l[i];
      }
    } else {
      x = s;
      y = d;
    }
  }
}

// One radix-2 stage on the tile: pairs differ in tile bit (q + c).
template <class F, bool kDif, bool kInverse>
__device__ __forceinline__ void stage(const Tile<F>& tile, const F* __restrict__ tw, const PassArgs<F>& p,
                                      uint32_t col0, int q) {
  const int sb = q + p.pass.c;
  const uint32_t half_pairs = 1u << (p.pass.k + p.pass.c - 1);
  for (uint32_t u = threadIdx.x; u < half_pairs; u += blockDim.x) {
    const uint32_t e0 = ((u >> sb) << (sb + 1)) | (u & ((1u << sb) - 1));
    const uint32_t e1 = e0 | (1u << sb);
    bool neg;
    const uint32_t t = twiddle_of<F, kInverse>(p, col0, e0, q, neg);
    F x = tile.get(e0), y = tile.get(e1);
    butterfly<F, kDif, kInverse>(x, y, tw, t, neg);
    tile.put(e0, x);
    tile.put(e1, y);
  }
}

// Stages q and q + 1 in one round trip through shared memory (radix 4): each thread takes the
// four elements that differ in tile bits q + c and q + c + 1, runs both stages on them in
// registers (DIT: q first; DIF: q + 1 first) and writes them back: half the shared-memory traffic
// and half the barriers of two radix-2 stages, the same products.
template <class F, bool kDif, bool kInverse>
__device__ __forceinline__ void stage_pair(const Tile<F>& tile, const F* __restrict__ tw, const PassArgs<F>& p,
                                           uint32_t col0, int q) {
  const int sb = q + p.pass.c;
  const uint32_t quads = 1u << (p.pass.k + p.pass.c - 2);
  const uint32_t b_lo = 1u << sb, b_hi = 2u << sb;
  for (uint32_t u = threadIdx.x; u < quads; u += blockDim.x) {
    const uint32_t e00 = ((u >> sb) << (sb + 2)) | (u & (b_lo - 1));
    const uint32_t e01 = e00 | b_lo, e10 = e00 | b_hi, e11 = e00 | b_lo | b_hi;
    F x00 = tile.get(e00), x01 = tile.get(e01), x10 = tile.get(e10), x11 = tile.get(e11);
    bool n_q, n_a, n_b;
    const uint32_t t_q = twiddle_of<F, kInverse>(p, col0, e00, q, n_q);  // both stage-q pairs
    const uint32_t t_a = twiddle_of<F, kInverse>(p, col0, e00, q + 1, n_a);
    const uint32_t t_b = twiddle_of<F, kInverse>(p, col0, e01, q + 1, n_b);
    if (kDif) {
      butterfly<F, true, kInverse>(x00, x10, tw, t_a, n_a);
      butterfly<F, true, kInverse>(x01, x11, tw, t_b, n_b);
      butterfly<F, true, kInverse>(x00, x01, tw, t_q, n_q);
      butterfly<F, true, kInverse>(x10, x11, tw, t_q, n_q);
    } else {
      butterfly<F, false, kInverse>(x00, x01, tw, t_q, n_q);
      butterfly<F, false, kInverse>(x10, x11, tw, t_q, n_q);
      butterfly<F, false, kInverse>(x00, x10, tw, t_a, n_a);
      butterfly<F, false, kInverse>(x01, x11, tw, t_b, n_b);
    }
    tile.put(e00, x00);
    tile.put(e01, x01);
    tile.put(e10, x10);
    tile.put(e11, x11);
  }
}

// A pass's DIF stages (high bit to low) and DIT stages (low bit to high) on the tile, two at a
// time, a barrier after each round trip.
template <class F, bool kInverse>
__device__ __forceinline__ void dif_stages(const Tile<F>& tile, const F* __restrict__ tw, const PassArgs<F>& p,
                                           uint32_t col0) {
  int q = p.pass.k - 1;
  for (; q >= 1; q -= 2) {
    stage_pair<F, true, kInverse>(tile, tw, p, col0, q - 1);
    __syncthreads();
  }
  if (q == 0) {
    stage<F, true, kInverse>(tile, tw, p, col0, 0);
    __syncthreads();
  }
}
template <class F, bool kInverse>
__device__ __forceinline__ void dit_stages(const Tile<F>& tile, const F* __restrict__ tw, const PassArgs<F>& p,
                                           uint32_t col0) {
  int q = 0;
  for (; q + 1 < p.pass.k; q += 2) {
    stage_pair<F, false, kInverse>(tile, tw, p, col0, q);
    __syncthreads();
  }
  if (q < p.pass.k) {
    stage<F, false, kInverse>(tile, tw, p, col0, q);
    __syncthreads();
  }
}

// ------------------------------------------------------------------ kernels

// Four blocks an SM (sm_90: 4 x 32 KiB tiles; 64 registers a thread). The stage pairs' four
// elements a thread would take ~116 registers; the passes are bound by latency, not by a pipe
// (issue slots ~40% busy), so more warps win over fewer spills: 2^11 tiles at three blocks (80
// registers, 24 warps) took 4.62 ms for the 2^24 BN254 NTT, 2^10 tiles at four (32 warps) 4.56.
template <class F>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    ntt_pass_kernel(F* data, const F* __restrict__ tw, PassArgs<F> p) {
  extern __shared__ uint4 smem[];
  const int tile_log = p.pass.k + p.pass.c;
  const uint32_t T = 1u << tile_log;
  const Tile<F> tile{smem, smem + T + 4};
  // Block -> (column group, top bits); element e of the tile -> global index.
  const int group_bits = p.pass.b0 - p.pass.c;
  const uint32_t col0 = (blockIdx.x & ((1u << group_bits) - 1)) << p.pass.c;
  const uint32_t top = (p.gather ? bit_reverse(blockIdx.x, p.log_n - tile_log) : blockIdx.x >> group_bits)
                       << (p.pass.b0 + p.pass.k);
  const uint32_t col_mask = (1u << p.pass.c) - 1;
  auto global = [&](uint32_t e) { return top + ((e >> p.pass.c) << p.pass.b0) + col0 + (e & col_mask); };

  // Load: consecutive threads take consecutive 16-byte halves (runs of 2^c elements; when
  // gathering, single elements 2^(log_n - tile_log) apart, the neighbouring blocks taking the
  // elements in between).
  if (p.gather) {
    for (uint32_t v = threadIdx.x; v < 2 * T; v += blockDim.x) {
      const uint32_t e = v >> 1;
      const uint4 x = __ldg(reinterpret_cast<const uint4*>(p.gather + bit_reverse(top + e, p.log_n)) + (v & 1));
      ((v & 1) ? tile.hi : tile.lo)[e] = x;
    }
  } else {
    for (uint32_t v = threadIdx.x; v < 2 * T; v += blockDim.x) {
      const uint32_t e = v >> 1;
      const uint4 x = __ldg(reinterpret_cast<const uint4*>(data + global(e)) + (v & 1));
      ((v & 1) ? tile.hi : tile.lo)[e] = x;
    }
  }
  __syncthreads();

  if (p.dif) {
    if (p.dif_inverse)
      dif_stages<F, true>(tile, tw, p, col0);
    else
      dif_stages<F, false>(tile, tw, p, col0);
  }
  if (p.coset_lo) {
    const uint32_t mask = (1u << p.coset_bits) - 1;
    for (uint32_t e = threadIdx.x; e < T; e += blockDim.x) {
      const uint32_t j = bit_reverse(global(e), p.log_n);
      const F f = load_global(p.coset_hi + (j >> p.coset_bits)) * load_global(p.coset_lo + (j & mask));
      tile.put(e, tile.get(e) * f);
    }
    __syncthreads();
  }
  if (p.dit) {
    if (p.dit_inverse)
      dit_stages<F, true>(tile, tw, p, col0);
    else
      dit_stages<F, false>(tile, tw, p, col0);
  }

  if (p.post == kPostH) {
    // h = a.b - x. For the odd coset a carries an extra R^-1, x = c too, so this is a.b - c in
    // standard form; bellperson's a and c carry 1/Z instead, and h stays in Montgomery form.
    for (uint32_t e = threadIdx.x; e < T; e += blockDim.x) {
      const uint32_t i = global(e);
      const F h = load_global(p.a + i) * load_global(p.b + i) - tile.get(e);
      store_global(p.h + i, h);
    }
    return;
  }
  if (p.post == kPostScale) {
    for (uint32_t e = threadIdx.x; e < T; e += blockDim.x) tile.put(e, tile.get(e) * p.scale);
    __syncthreads();
  }
  for (uint32_t v = threadIdx.x; v < 2 * T; v += blockDim.x) {
    const uint32_t e = v >> 1;
    reinterpret_cast<uint4*>(data + global(e))[v & 1] = ((v & 1) ? tile.hi : tile.lo)[e];
  }
}

// bellperson's last step: data holds h's coefficients in bit-reversed order, unscaled (from the
// DIF inverse passes); coefficient k becomes k-th in natural order, times g^-k / n, out of
// Montgomery form: f_k = hi[k >> bits] * lo[k & mask], hi carrying 1/n and R^-1.
template <class F>
__global__ void coefficients_kernel(F* data, int log_n, const F* __restrict__ lo, const F* __restrict__ hi, int bits) {
  const uint32_t n = 1u << log_n, mask = (1u << bits) - 1;
  auto f = [&](uint32_t k) { return load_global(hi + (k >> bits)) * load_global(lo + (k & mask)); };
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t j = bit_reverse(i, log_n);
    if (i > j) continue;
    // Plain loads: data is written here, so the read-only path (__ldg), which the compiler may
    // move past the stores, must not read it.
    const F x = data[i], y = data[j];
    data[j] = x * f(j);  // position i held coefficient j
    if (i != j) data[i] = y * f(i);
  }
}

// In-place bit-reversal permutation (an involution: each pair swapped once).
template <class F>
__global__ void bit_reverse_kernel(F* data, int log_n) {
  const uint32_t n = 1u << log_n;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t j = bit_reverse(i, log_n);
    if (i < j) {
      uint4* x = reinterpret_cast<uint4*>(data + i);
      uint4* y = reinterpret_cast<uint4*>(data + j);
      const uint4 x0 = x[0], x1 = x[1], y0 = y[0], y1 = y[1];
      x[0] = y0;
      x[1] = y1;
      y[0] = x0;
      y[1] = x1;
    }
  }
}

// The same permutation by tiles, for log_n >= 2 kRevBits: index i = (hi, mid, lo) with hi and
// lo kRevBits bits each; bitrev(i) = (rev lo, rev mid, rev hi). Block `mid` (with mid <=
// rev mid; the others return) loads the 2^kRevBits x 2^kRevBits elements of its mid (rows hi,
// runs of contiguous lo) and those of rev mid, and writes each transposed and bit-reversed into
// the other's place: every access a run of 2^kRevBits elements, no pair read twice.
constexpr int kRevBits = 4;
constexpr int kRevSide = 1 << kRevBits;
constexpr int kRevPitch = kRevSide + 1;  // uint4s a row: rows land 16 bytes apart in the banks
template <class F>
__global__ void __launch_bounds__(256) bit_reverse_tiles_kernel(F* data, int log_n) {
  __shared__ uint4 tile[2][2][kRevSide * kRevPitch];  // [region][half][row * pitch + col]
  const int mid_bits = log_n - 2 * kRevBits;
  const uint32_t mid = blockIdx.x, rmid = mid_bits ? __brev(mid) >> (32 - mid_bits) : 0;
  if (mid > rmid) return;
  const int regions = mid == rmid ? 1 : 2;
  auto at = [&](uint32_t m, uint32_t row, uint32_t col) {
    return reinterpret_cast<uint4*>(data + ((row << (log_n - kRevBits)) | (m << kRevBits) | col));
  };
  constexpr uint32_t kHalves = 2 * kRevSide * kRevSide;
  for (int r = 0; r < regions; ++r)
    for (uint32_t v = threadIdx.x; v < kHalves; v += blockDim.x) {
      const uint32_t e = v >> 1, row = e >> kRevBits, col = e & (kRevSide - 1);
      tile[r][v & 1][row * kRevPitch + col] = at(r ? rmid : mid, row, col)[v & 1];
    }
  __syncthreads();
  // Region r's elements go to the other region's place (to their own when mid is a palindrome):
  // place (row, col) there takes (rev col, rev row) here.
  for (int r = 0; r < regions; ++r)
    for (uint32_t v = threadIdx.x; v < kHalves; v += blockDim.x) {
      const uint32_t e = v >> 1, row = e >> kRevBits, col = e & (kRevSide - 1);
      const uint32_t src_row = __brev(col) >> (32 - kRevBits), src_col = __brev(row) >> (32 - kRevBits);
      const int src = regions == 1 ? 0 : 1 - r;
      at(r ? rmid : mid, row, col)[v & 1] = tile[src][v & 1][src_row * kRevPitch + src_col];
    }
}

// out[i] = scale * base^i, i < count (square-and-multiply per entry; small tables only).
template <class F>
__global__ void powers_kernel(F* out, uint32_t count, F base, F scale) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  F r = scale, b = base;
  for (uint32_t e = i; e; e >>= 1) {
    if (e & 1) r = r * b;
    if (e > 1) b = b * b;
  }
  store_global(out + i, r);
}

// tw[t] = hi[t >> lo_bits] * lo[t & mask]: w^t for t < count.
template <class F>
__global__ void expand_kernel(F* tw, uint32_t count, const F* __restrict__ lo, const F* __restrict__ hi, int lo_bits) {
  const uint32_t mask = (1u << lo_bits) - 1;
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < count; t += gridDim.x * blockDim.x)
    store_global(tw + t, load_global(hi + (t >> lo_bits)) * load_global(lo + (t & mask)));
}

// ------------------------------------------------------------------ host side

// Workspace pieces (element counts, 0 = absent), taken from the Arena in this order.
struct Layout {
  static constexpr int kPieces = 8;
  // tw, tw_lo, tw_hi, coset_lo, coset_hi_b, coset_hi_ac, then for bellperson's H the inverse
  // coset's lo and hi
  std::array<size_t, kPieces> count{};
  int tw_bits = 0, coset_bits = 0;
};

inline Layout make_layout(int log_n, bool coset, bool inverse_coset = false) {
  Layout l;
  const size_t half = size_t(1) << (log_n - 1);
  l.tw_bits = log_n / 2;  // (log_n - 1 + 1) / 2: splits the n/2 exponents in two
  l.count[0] = half;
  l.count[1] = size_t(1) << l.tw_bits;
  l.count[2] = (half + l.count[1] - 1) >> l.tw_bits;
  if (coset) {
    l.coset_bits = (log_n + 1) / 2;
    l.count[3] = size_t(1) << l.coset_bits;
    l.count[4] = l.count[5] = (size_t(1) << log_n) >> l.coset_bits;
    if (inverse_coset) {
      l.count[6] = l.count[3];
      l.count[7] = l.count[4];
    }
  }
  return l;
}

template <class F>
size_t layout_bytes(const Layout& l) {
  size_t b = 0;
  for (size_t c : l.count)
    if (c) b += Arena::round(c * sizeof(F));
  return b;
}

template <class F>
void check_log_n(int log_n) {
  constexpr int s = F::Params::two_adicity;
  const int max = s < kNttMaxLogN ? s : kNttMaxLogN;
  if (log_n < 1 || log_n > max)
    throw InvalidArgument(std::string(F::Params::name) + " NTT: log_n = " + std::to_string(log_n) + " is outside 1.." +
                          std::to_string(max));
}

template <class F>
size_t ntt_workspace_bytes(int log_n) {
  check_log_n<F>(log_n);
  return layout_bytes<F>(make_layout(log_n, false));
}
template <class F>
size_t h_workspace_bytes(int log_n, bool coefficients) {
  check_log_n<F>(log_n);
  return layout_bytes<F>(make_layout(log_n, true, coefficients));
}

// Events on one stream for the timing hook; no-ops when nobody asked.
class Timer {
 public:
  Timer(DeviceId dev, cudaStream_t s, bool on) : dev_(dev), s_(s), on_(on) {}
  ~Timer() {
    for (int i = 0; i < n_; ++i) cudaEventDestroy(ev_[i]);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  // Records a mark; returns its index.
  int mark() {
    if (!on_) return 0;
    if (n_ == kMax) throw GpuError(dev_.name() + ": NTT timer: too many marks");
    check(cudaEventCreate(&ev_[n_]), dev_, "cudaEventCreate");
    check(cudaEventRecord(ev_[n_], s_), dev_, "cudaEventRecord");
    return n_++;
  }
  float ms(int from, int to) const {
    if (!on_) return 0;
    float m = 0;
    check(cudaEventElapsedTime(&m, ev_[from], ev_[to]), dev_, "cudaEventElapsedTime");
    return m;
  }

 private:
  static constexpr int kMax = 8;
  DeviceId dev_;
  cudaStream_t s_;
  bool on_;
  cudaEvent_t ev_[kMax] = {};
  int n_ = 0;
};

inline void check_pointer(DeviceId dev, const void* p, const char* what) {
  if (!p) throw InvalidArgument(dev.name() + ": NTT: " + what + " is null");
  if (reinterpret_cast<uintptr_t>(p) % 16)
    throw InvalidArgument(dev.name() + ": NTT: " + what + " is not 16-byte aligned");
}
inline void check_workspace(DeviceId dev, const DeviceMemory& ws) {
  if (!(ws.device == dev)) throw GpuError(dev.name() + ": NTT workspace is on " + ws.device.name());
}

template <class F>
struct Tables {
  F* tw = nullptr;
  F* tw_lo = nullptr;
  F* tw_hi = nullptr;
  F* coset_lo = nullptr;
  F* coset_hi_b = nullptr;
  F* coset_hi_ac = nullptr;
  F* coset_inv_lo = nullptr;
  F* coset_inv_hi = nullptr;
};

template <class F>
F pow2k(F x, int k) {
  for (int i = 0; i < k; ++i) x = x * x;
  return x;
}

template <class F>
void launch_powers(DeviceId dev, cudaStream_t s, F* out, size_t count, const F& base, const F& scale) {
  const unsigned blocks = unsigned((count + 255) / 256);
  powers_kernel<F><<<blocks, 256, 0, s>>>(out, uint32_t(count), base, scale);
  check_launch(dev, "ntt powers_kernel", count);
}

// Carves the tables out of the workspace and fills them (all on stream s). With `bellperson`,
// the roots and the coset are the generator's, a's and c's coset factors carry 1/(g^n - 1)
// instead of R^-1, and the inverse coset's tables are made too.
template <class F>
Tables<F> build_tables(DeviceId dev, cudaStream_t s, int log_n, bool coset, const DeviceMemory& ws,
                       bool bellperson = false, bool fill = true) {
  const Layout l = make_layout(log_n, coset, bellperson);
  Arena arena(ws);
  static constexpr const char* names[Layout::kPieces] = {"NTT twiddles",
                                                         "NTT twiddles (low)",
                                                         "NTT twiddles (high)",
                                                         "coset powers (low)",
                                                         "coset powers (high, b)",
                                                         "coset powers (high, a and c)",
                                                         "inverse coset powers (low)",
                                                         "inverse coset powers (high)"};
  F* piece[Layout::kPieces] = {};
  for (int i = 0; i < Layout::kPieces; ++i)
    if (l.count[i]) piece[i] = arena.take_n<F>(l.count[i], names[i]);
  Tables<F> t{piece[0], piece[1], piece[2], piece[3], piece[4], piece[5], piece[6], piece[7]};
  if (!fill) return t;  // made before, in this memory (make_twiddles)

  const F one = F::one();
  const F w = cpu::root_of_unity<F>(log_n, bellperson ? F::Params::generator : F::Params::nqr);
  launch_powers(dev, s, t.tw_lo, l.count[1], w, one);
  launch_powers(dev, s, t.tw_hi, l.count[2], pow2k(w, l.tw_bits), one);
  const size_t half = l.count[0];
  const unsigned blocks = unsigned((half + 255) / 256 < 65536 ? (half + 255) / 256 : 65536);
  expand_kernel<F><<<blocks, 256, 0, s>>>(t.tw, uint32_t(half), t.tw_lo, t.tw_hi, l.tw_bits);
  check_launch(dev, "ntt expand_kernel", half);
  if (coset) {
    constexpr int sadic = F::Params::two_adicity;
    const F g = bellperson      ? F::from_u64(F::Params::generator)
                : log_n < sadic ? cpu::root_of_unity<F>(log_n + 1)
                                : F::from_u64(F::Params::nqr * F::Params::nqr);
    const F n_inv = F::from_u64(uint64_t(1) << log_n).inv();
    const F n_inv_rinv = F::from_raw(n_inv.to_std().v);  // 1/n * R^-1 (Montgomery form)
    const F g_hi = pow2k(g, l.coset_bits);
    launch_powers(dev, s, t.coset_lo, l.count[3], g, one);
    launch_powers(dev, s, t.coset_hi_b, l.count[4], g_hi, n_inv);
    if (bellperson) {
      const F z_inv = (pow2k(g, log_n) - one).inv();  // 1/Z on the coset: Z(g w^i) = g^n - 1
      launch_powers(dev, s, t.coset_hi_ac, l.count[5], g_hi, n_inv * z_inv);
      const F g_inv = g.inv();
      launch_powers(dev, s, t.coset_inv_lo, l.count[6], g_inv, one);
      launch_powers(dev, s, t.coset_inv_hi, l.count[7], pow2k(g_inv, l.coset_bits), n_inv_rinv);
    } else {
      launch_powers(dev, s, t.coset_hi_ac, l.count[5], g_hi, n_inv_rinv);
    }
  }
  return t;
}

template <class F>
void launch_pass(DeviceId dev, cudaStream_t s, F* data, const F* tw, const PassArgs<F>& a, const char* what) {
  const int tile_log = a.pass.k + a.pass.c;
  const size_t smem = tile_smem_bytes(tile_log);
  const unsigned blocks = unsigned((size_t(1) << a.log_n) >> tile_log);
  check(cudaFuncSetAttribute(ntt_pass_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), dev,
        "cudaFuncSetAttribute(ntt_pass_kernel)");
  ntt_pass_kernel<F><<<blocks, kThreads, smem, s>>>(data, tw, a);
  check_launch(dev, what, size_t(1) << a.log_n);
}

// The caller's stream, or one of our own that is waited for before returning.
struct CallStream {
  DeviceId dev;
  std::optional<Stream> own;
  cudaStream_t s;
  CallStream(DeviceId d, StreamHandle h) : dev(d) {
    if (h.stream) {
      s = static_cast<cudaStream_t>(h.stream);
    } else {
      own.emplace(d);
      s = own->get();
    }
  }
  void finish(const char* what, int log_n, bool timed) {
    if (own || timed) check(cudaStreamSynchronize(s), dev, what, "n = 2^" + std::to_string(log_n));
  }
};

// The twiddle tables of ntt() made once in `ws` (see gpu::make_ntt_twiddles).
template <class F>
void make_twiddles(DeviceId dev, int log_n, DeviceMemory ws, StreamHandle sh) {
  check_log_n<F>(log_n);
  DeviceScope scope(dev);
  (void)cudaGetLastError();
  check_workspace(dev, ws);
  if (ws.bytes < ntt_workspace_bytes<F>(log_n))
    throw InvalidArgument(dev.name() + ": NTT twiddles of 2^" + std::to_string(log_n) + " need " +
                          std::to_string(ntt_workspace_bytes<F>(log_n)) + " bytes, given " + std::to_string(ws.bytes));
  CallStream cs(dev, sh);
  build_tables<F>(dev, cs.s, log_n, false, ws);
  cs.finish("ntt twiddles", log_n, false);
}

// d_out = NTT(d_in): in place when they are equal (a bit-reversal pass, then DIT), else the
// bit reversal is pass 0's gather and d_in is only read. With `made`, ws holds the tables
// already (make_twiddles for this log_n): none are built.
template <class F>
void ntt(DeviceId dev, const void* d_in, void* d_out, int log_n, bool inverse, DeviceMemory ws, StreamHandle sh,
         NttTimings* timings, bool made = false) {
  check_log_n<F>(log_n);
  DeviceScope scope(dev);
  (void)cudaGetLastError();  // a stale error of an earlier failed call is not this call's
  check_pointer(dev, d_in, "input");
  check_pointer(dev, d_out, "output");
  const uint32_t n = 1u << log_n;
  const bool in_place = d_in == d_out;
  {
    const auto in = reinterpret_cast<uintptr_t>(d_in), out = reinterpret_cast<uintptr_t>(d_out);
    const uintptr_t bytes = uintptr_t(n) * sizeof(F);
    if (!in_place && in < out + bytes && out < in + bytes)
      throw InvalidArgument(dev.name() + ": NTT: input and output overlap without being the same array");
  }
  check_workspace(dev, ws);
  CallStream cs(dev, sh);
  Timer timer(dev, cs.s, timings != nullptr);
  F* data = static_cast<F*>(d_out);

  const int m0 = timer.mark();
  const Tables<F> t = build_tables<F>(dev, cs.s, log_n, false, ws, false, !made);
  const int m1 = timer.mark();
  if (in_place) {  // out of place, pass 0 gathers instead
    if (log_n >= 2 * kRevBits) {
      bit_reverse_tiles_kernel<F><<<1u << (log_n - 2 * kRevBits), 256, 0, cs.s>>>(data, log_n);
      check_launch(dev, "ntt bit_reverse_tiles_kernel", n);
    } else {
      const unsigned blocks = (n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536;
      bit_reverse_kernel<F><<<blocks, 256, 0, cs.s>>>(data, log_n);
      check_launch(dev, "ntt bit_reverse_kernel", n);
    }
  }
  const Plan plan = make_plan(log_n);
  for (int i = 0; i < plan.count; ++i) {
    PassArgs<F> a;
    a.log_n = log_n;
    a.pass = plan.pass[i];
    a.dit = true;
    a.dit_inverse = inverse;
    if (i == 0 && !in_place) a.gather = static_cast<const F*>(d_in);
    if (inverse && i == plan.count - 1) {
      a.post = kPostScale;
      a.scale = F::from_u64(n).inv();
    }
    launch_pass(dev, cs.s, data, t.tw, a, inverse ? "ntt_pass_kernel (inverse)" : "ntt_pass_kernel");
  }
  const int m2 = timer.mark();
  cs.finish(inverse ? "inverse ntt" : "ntt", log_n, timings != nullptr);
  if (timings) {
    timings->twiddles_ms = timer.ms(m0, m1);
    timings->transform_ms = timer.ms(m1, m2);
    timings->total_ms = timer.ms(m0, m2);
  }
}

// H (see gpu::compute_h): with `coefficients` bellperson's form, whose h = a.b - c leaves the
// fused passes in Montgomery form, already divided by Z, and is then transformed back: DIF
// inverse passes, and coefficients_kernel into natural order, off the coset, standard form.
template <class F>
void compute_h(DeviceId dev, int log_n, bool coefficients, void* d_a, void* d_b, void* d_c, void* d_h, DeviceMemory ws,
               StreamHandle sh, HTimings* timings) {
  check_log_n<F>(log_n);
  DeviceScope scope(dev);
  (void)cudaGetLastError();  // a stale error of an earlier failed call is not this call's
  check_pointer(dev, d_a, "a");
  check_pointer(dev, d_b, "b");
  check_pointer(dev, d_c, "c");
  check_pointer(dev, d_h, "h");
  check_workspace(dev, ws);
  CallStream cs(dev, sh);
  Timer timer(dev, cs.s, timings != nullptr);

  const int m0 = timer.mark();
  const Tables<F> t = build_tables<F>(dev, cs.s, log_n, true, ws, coefficients);
  const Layout l = make_layout(log_n, true, coefficients);
  int marks[4];
  marks[0] = timer.mark();
  const Plan plan = make_plan(log_n);
  F* vec[3] = {static_cast<F*>(d_a), static_cast<F*>(d_b), static_cast<F*>(d_c)};
  for (int v = 0; v < 3; ++v) {
    F* data = vec[v];
    // Inverse NTT as DIF, high passes first (natural -> bit-reversed coefficients) ...
    for (int i = plan.count - 1; i >= 1; --i) {
      PassArgs<F> a;
      a.log_n = log_n;
      a.pass = plan.pass[i];
      a.dif = a.dif_inverse = true;
      launch_pass(dev, cs.s, data, t.tw, a, "compute_h inverse pass");
    }
    // ... the last inverse pass, coset scaling (with 1/n) and the first forward pass in one ...
    for (int i = 0; i < plan.count; ++i) {
      PassArgs<F> a;
      a.log_n = log_n;
      a.pass = plan.pass[i];
      a.dit = true;
      if (i == 0) {
        a.dif = a.dif_inverse = true;
        a.coset_lo = t.coset_lo;
        a.coset_hi = v == 1 ? t.coset_hi_b : t.coset_hi_ac;
        a.coset_bits = l.coset_bits;
      }
      // ... then the forward DIT passes (bit-reversed -> natural); c's last one emits h.
      if (v == 2 && i == plan.count - 1) {
        a.post = kPostH;
        a.a = vec[0];
        a.b = vec[1];
        a.h = static_cast<F*>(d_h);
      }
      launch_pass(dev, cs.s, data, t.tw, a, i == 0 ? "compute_h middle pass" : "compute_h forward pass");
    }
    marks[v + 1] = timer.mark();
  }
  if (coefficients) {
    F* h = static_cast<F*>(d_h);
    for (int i = plan.count - 1; i >= 0; --i) {
      PassArgs<F> a;
      a.log_n = log_n;
      a.pass = plan.pass[i];
      a.dif = a.dif_inverse = true;
      launch_pass(dev, cs.s, h, t.tw, a, "compute_h inverse pass of h");
    }
    const uint32_t n = 1u << log_n;
    const unsigned blocks = (n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536;
    coefficients_kernel<F><<<blocks, 256, 0, cs.s>>>(h, log_n, t.coset_inv_lo, t.coset_inv_hi, l.coset_bits);
    check_launch(dev, "compute_h coefficients_kernel", n);
    marks[3] = timer.mark();
  }
  cs.finish("compute_h", log_n, timings != nullptr);
  if (timings) {
    timings->twiddles_ms = timer.ms(m0, marks[0]);
    timings->a_ms = timer.ms(marks[0], marks[1]);
    timings->b_ms = timer.ms(marks[1], marks[2]);
    timings->c_ms = timer.ms(marks[2], marks[3]);
    timings->total_ms = timer.ms(m0, marks[3]);
  }
}

}  // namespace cuzk::gpu::ntt_impl
