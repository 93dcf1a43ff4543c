// SPDX-License-Identifier: MIT OR Apache-2.0
// GPU multi-scalar multiplication, generic over the point field F (Fp for G1, Fp2 for G2).
// Instantiated per curve in msm_bn254.cu / msm_bls12_381.cu; bench/MSM-NOTES.md has the design
// and the cost reasoning. In short:
//
//  1. prepare: scalars to standard form; each classified 0 (skipped), 1 (compacted into an
//     index list, cub::DeviceSelect, whose bases are summed apart by a parallel reduction) or
//     general (compacted into the same list afterwards); the windows stop at the longest
//     general scalar's bits;
//  2. per group of windows: Booth signed c-bit digits (the CPU's cpu::signed_digit), one
//     (bucket, index | sign) pair per general scalar and window, sorted per window by bucket
//     (cub::DeviceRadixSort on c bits; digit 0 gets a key above every bucket so the non-zero
//     pairs form a prefix);
//  3. accumulation, load-balanced: the group's non-zero pairs, all windows concatenated, are
//     cut into equal runs, one per thread, each summed in XYZZ with mixed additions. A bucket
//     whose pairs lie inside one run is stored there; the partial sums at run edges go to a
//     list of (key, partial) which is sorted too and is reduced the same way, 16 entries a
//     thread, until one run is left (see accumulate_* below);
//  4. bucket reduction: sum_d d * B_d per window by running sums over segments of 16 buckets,
//     each segment weighted by its offset, then a tree reduction per window;
//  5. the host combines the window sums by Horner (c doublings per window) and adds the ones.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/common.cuh"
#include "backend/cuda/msm.hpp"
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

constexpr unsigned kMinC = 2;
constexpr unsigned kMaxC = 16;                 // keys are 16-bit
constexpr unsigned kMaxWindows = 128;          // windows at c = 2 (255 / 2 + 1)
constexpr size_t kEntryCap = size_t(1) << 27;  // (key, value) pairs held at once: 768 MiB
constexpr uint32_t kRunsCap = 1u << 17;        // level-0 accumulation threads at most
constexpr unsigned kRunLen = 16;               // entries per thread at levels >= 1
constexpr unsigned kSegLen = 16;               // buckets per thread in the bucket reduction
constexpr unsigned kFan = 8;                   // points per thread in tree reductions
constexpr uint32_t kOnesThreads = 1u << 16;    // threads summing the bases of scalars 1
constexpr unsigned kBlock = 128;
constexpr uint32_t kNone = 0xffffffffu;    // "no key" beyond either end of a list
constexpr uint32_t kEmpty = 0xfffffffeu;   // key of an empty run's slots (sorts last)
constexpr uint32_t kNeg = 0x80000000u;     // sign bit of a sorted value
constexpr uint32_t kOneBit = 0x80000000u;  // a candidate that is a scalar 1 (indices are < 2^31)

inline unsigned windows_for(unsigned c, unsigned scalar_bits) { return scalar_bits / c + 1; }

// Window bits minimising windows * (m mixed additions + ~3 additions per bucket for the
// reduction): 13 at 2^16, 16 from about 2^19 up (capped by the 16-bit keys).
inline unsigned choose_c(size_t m, unsigned scalar_bits) {
  unsigned best = kMinC;
  double best_cost = 1e300;
  for (unsigned c = kMinC; c <= kMaxC; ++c) {
    double cost = double(windows_for(c, scalar_bits)) * (double(m) + 3.0 * double(1u << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

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

struct IsCandidate {  // a general scalar
  __host__ __device__ bool operator()(uint32_t x) const { return (x & kOneBit) == 0; }
};
struct IsOne {
  __host__ __device__ bool operator()(uint32_t x) const { return x != kNone && (x & kOneBit) != 0; }
};

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

// out[g * out_len + o] = sum of in[g * len + o * kFan ...] (kFan points or fewer).
template <class F>
__global__ void __launch_bounds__(kBlock)
    reduce_kernel(const XYZZ<F>* in, XYZZ<F>* out, uint32_t groups, uint32_t len, uint32_t out_len) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= groups * out_len) return;
  uint32_t g = t / out_len, o = t % out_len;
  uint32_t beg = o * kFan, end = min(beg + kFan, len);
  const XYZZ<F>* p = in + size_t(g) * len;
  XYZZ<F> acc = p[beg];
  for (uint32_t j = beg + 1; j < end; ++j) acc += p[j];
  out[t] = acc;
}

// ------------------------------------------------------------------ kernels: digits

// For the general scalars j < m and the windows w0 .. w0 + G - 1: key = |digit| (digit 0 gets
// `skip`, above every bucket), value = base index | sign. cnt[wl] counts the non-zero digits.
static __global__ void digits_kernel(const Scalar4* scalars, const uint32_t* idx, uint32_t m, unsigned w0, unsigned G,
                                     unsigned c, uint16_t* keys, uint32_t* vals, uint32_t* cnt) {
  uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  bool active = j < m;
  uint32_t i = 0;
  Scalar4 k{};
  if (active) {
    i = idx[j];
    k = scalars[i];
  }
  const uint16_t skip = uint16_t((1u << c) - 1);
  for (unsigned wl = 0; wl < G; ++wl) {
    int32_t d = active ? signed_digit(k, w0 + wl, c) : 0;
    if (active) {
      keys[size_t(wl) * m + j] = d == 0 ? skip : uint16_t(d < 0 ? -d : d);
      vals[size_t(wl) * m + j] = i | (d < 0 ? kNeg : 0u);
    }
    unsigned nz = __ballot_sync(0xffffffffu, d != 0);
    if ((threadIdx.x & 31) == 0 && nz) atomicAdd(&cnt[wl], unsigned(__popc(nz)));
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
// Keys at level >= 1 are global within the group: window << c | bucket (1 .. 2^(c-1)).

template <class F>
struct Slots {
  uint32_t* keys;  // null at the final level
  XYZZ<F>* pts;
};

template <class F>
__device__ __forceinline__ void store_bucket(XYZZ<F>* buckets, uint32_t key, unsigned c, uint32_t nb, uint32_t G,
                                             const XYZZ<F>& s) {
  uint32_t w = key >> c, b = key & ((1u << c) - 1);
  if (w < G && b >= 1 && b <= nb && !s.is_inf()) buckets[size_t(w) * nb + (b - 1)] = s;
}

// One finished segment of key `key`: `first`/`last` say whether it touches the run's start/end.
template <class F>
__device__ __forceinline__ void finish_segment(uint32_t key, const XYZZ<F>& s, bool first, bool last, uint32_t prev,
                                               uint32_t next, uint32_t t, bool final, XYZZ<F>* buckets, unsigned c,
                                               uint32_t nb, uint32_t G, Slots<F> out) {
  bool complete = final || ((!first || prev != key) && (!last || next != key));
  if (complete) store_bucket(buckets, key, c, nb, G, s);
  if (final) return;
  const XYZZ<F> inf = XYZZ<F>::infinity();
  if (first) {
    out.keys[2 * size_t(t)] = key;
    out.pts[2 * size_t(t)] = complete ? inf : s;
  }
  if (last) {
    out.keys[2 * size_t(t) + 1] = key;
    out.pts[2 * size_t(t) + 1] = (complete || first) ? inf : s;
  }
}

template <class F>
__device__ __forceinline__ void empty_run(uint32_t t, Slots<F> out) {
  const XYZZ<F> inf = XYZZ<F>::infinity();
  out.keys[2 * size_t(t)] = kEmpty;
  out.keys[2 * size_t(t) + 1] = kEmpty;
  out.pts[2 * size_t(t)] = inf;
  out.pts[2 * size_t(t) + 1] = inf;
}

// Per-window sorted arrays of a group (the sort leaves each window in one of two buffers).
struct WindowPtrs {
  const uint16_t* keys[kMaxWindows];
  const uint32_t* vals[kMaxWindows];
};

// Level 0: the non-zero prefixes of the group's G sorted windows, concatenated (positions
// pre[w] .. pre[w+1]), cut into `runs` equal runs; mixed additions of the (signed) bases.
template <class F>
__global__ void __launch_bounds__(kBlock)
    accumulate_bases_kernel(WindowPtrs win, const uint32_t* cnt, unsigned G, uint32_t runs, const Affine<F>* bases,
                            unsigned c, uint32_t nb, bool final, XYZZ<F>* buckets, Slots<F> out) {
  __shared__ uint32_t pre[kMaxWindows + 1];
  __shared__ const uint16_t* wkeys[kMaxWindows];
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
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= runs) return;
  const uint32_t total = pre[G];
  const uint32_t R = (total + runs - 1) / runs;
  const uint32_t beg = min(t * R, total), end = min(beg + R, total);
  if (beg >= end) {
    if (!final) empty_run(t, out);
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
  const uint16_t* kw = wkeys[w];
  const uint32_t* vw = wvals[w];
  uint32_t cur = (uint32_t(w) << c) | kw[beg - pre[w]];
  XYZZ<F> acc = XYZZ<F>::infinity();
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
      finish_segment(cur, acc, first, false, prev, next, t, final, buckets, c, nb, G, out);
      first = false;
      acc = XYZZ<F>::infinity();
      cur = key;
    }
    uint32_t v = vw[off];
    Affine<F> q = load16(bases + (v & ~kNeg));
    if (v & kNeg) q.y = -q.y;
    acc = acc.add_affine(q);
  }
  finish_segment(cur, acc, first, true, prev, next, t, final, buckets, c, nb, G, out);
}

// Levels >= 1: the slot list of the level before, kRunLen entries a thread.
template <class F>
__global__ void __launch_bounds__(kBlock)
    accumulate_partials_kernel(const uint32_t* in_keys, const XYZZ<F>* in_pts, uint32_t len, unsigned c, uint32_t nb,
                               unsigned G, bool final, XYZZ<F>* buckets, Slots<F> out) {
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
      finish_segment(cur, acc, first, false, prev, next, t, final, buckets, c, nb, G, out);
      first = false;
      acc = XYZZ<F>::infinity();
      cur = key;
    }
    acc += in_pts[p];
  }
  finish_segment(cur, acc, first, true, prev, next, t, final, buckets, c, nb, G, out);
}

// ------------------------------------------------------------------ kernels: bucket reduction

// Thread (w, s): segment s of window w, buckets s L .. s L + L - 1 holding digits s L + 1 ..
// s L + L. The suffix sums R_j = sum_{i >= j} B_i (written over the buckets, to keep two points
// live rather than three: G2 would spill) give A = sum_j R_j = sum_j (j + 1) B_j and S = R_0;
// the segment's share of sum_d d B_d is A + (s L) S (double-and-add on s L).
template <class F>
__global__ void __launch_bounds__(kBlock)
    bucket_reduce_kernel(XYZZ<F>* buckets, uint32_t windows, uint32_t nb, uint32_t L, XYZZ<F>* out) {
  uint32_t segs = nb / L;
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= windows * segs) return;
  uint32_t w = t / segs, s = t % segs;
  XYZZ<F>* b = buckets + size_t(w) * nb + size_t(s) * L;
  XYZZ<F> run = XYZZ<F>::infinity();
  for (uint32_t j = L; j-- > 0;) {
    run += b[j];
    b[j] = run;
  }
  XYZZ<F> acc = b[0];
  for (uint32_t j = 1; j < L; ++j) acc += b[j];
  out[t] = acc;
  uint32_t e = s * L;
  if (e == 0 || run.is_inf()) return;
  XYZZ<F> m = XYZZ<F>::infinity();
  for (int bit = 31 - __clz(e); bit >= 0; --bit) {
    m = m.dbl();
    if ((e >> bit) & 1) m += run;
  }
  out[t] = out[t] + m;
}

// ------------------------------------------------------------------ host side

// Records CUDA events between phases; elapsed times are added to the phase each span belongs to.
class PhaseClock {
 public:
  enum Phase { copy_in, prepare, sort, accumulate, reduce, count };
  PhaseClock(bool on, cudaStream_t s, DeviceId dev) : on_(on), s_(s), dev_(dev) {}
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
    // [0]: general count; [1 .. kMaxWindows]: non-zero digits per window of a group; then the
    // ones' count, the longest general scalar's bits and the compacted ones' count
    uint32_t* counters = nullptr;
    void* select_temp = nullptr;
    size_t select_bytes = 0;
    void* sort_temp = nullptr;
    size_t sort_bytes = 0;
    uint16_t* keys = nullptr;  // E entries
    uint32_t* vals = nullptr;
    uint16_t* keys_alt = nullptr;  // n entries
    uint32_t* vals_alt = nullptr;
    X* buckets = nullptr;
    uint32_t* slot_keys[2] = {nullptr, nullptr};
    X* slot_pts[2] = {nullptr, nullptr};
    X* red[2] = {nullptr, nullptr};
    X* results = nullptr;  // kMaxWindows window sums + the ones sum
    size_t entries = 0;    // E
  };

  static size_t entries_for(size_t n) {
    unsigned c = choose_c(n, kScalarBits);
    size_t want = size_t(windows_for(c, kScalarBits)) * n;
    return std::max(n, std::min(kEntryCap, want));
  }

  // CUB's scratch sizes (asked on the current device).
  static size_t sort_temp_bytes(size_t n, DeviceId dev) {
    size_t bytes = 0;
    cub::DoubleBuffer<uint16_t> k(nullptr, nullptr);
    cub::DoubleBuffer<uint32_t> v(nullptr, nullptr);
    check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, uint32_t(n), 0, int(kMaxC)), dev,
          "cub::DeviceRadixSort::SortPairs (scratch query)", "n = " + std::to_string(n));
    return bytes;
  }
  static size_t select_temp_bytes(size_t n, DeviceId dev) {
    size_t general = 0, ones = 0;
    check(
        cub::DeviceSelect::If(nullptr, general, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                              static_cast<uint32_t*>(nullptr), int64_t(n), IsCandidate{}),
        dev, "cub::DeviceSelect::If (scratch query)", "n = " + std::to_string(n));
    check(cub::DeviceSelect::If(nullptr, ones, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                static_cast<uint32_t*>(nullptr), int64_t(n), IsOne{}),
          dev, "cub::DeviceSelect::If (scratch query)", "n = " + std::to_string(n));
    return std::max(general, ones);
  }

  static Buffers carve(Carver& cv, size_t n, bool bases_on_device, bool scalars_on_device, size_t select_bytes,
                       size_t sort_bytes) {
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
    b.entries = entries_for(n);
    b.keys = cv.take<uint16_t>(b.entries, "msm sort keys");
    b.vals = cv.take<uint32_t>(b.entries, "msm sort values");
    b.keys_alt = cv.take<uint16_t>(n, "msm sort keys (alternate)");
    b.vals_alt = cv.take<uint32_t>(n, "msm sort values (alternate)");
    // Buckets and bucket-reduction outputs for the largest c a call of this n can choose.
    unsigned cmax = choose_c(n, kScalarBits);
    size_t nbk = 0, segs = 0;
    for (unsigned c = kMinC; c <= cmax; ++c) {
      size_t nb = size_t(1) << (c - 1), W = windows_for(c, kScalarBits);
      nbk = std::max(nbk, W * nb);
      segs = std::max(segs, W * (nb / std::min<size_t>(kSegLen, nb)));
    }
    b.buckets = cv.take<X>(nbk, "msm buckets");
    size_t slots = 2 * std::min<size_t>(kRunsCap, b.entries);
    for (int i = 0; i < 2; ++i) {
      b.slot_keys[i] = cv.take<uint32_t>(slots, "msm partial-sum keys");
      b.slot_pts[i] = cv.take<X>(slots, "msm partial sums");
    }
    size_t red0 = std::max<size_t>(segs, std::min<size_t>(kOnesThreads, n));
    b.red[0] = cv.take<X>(red0, "msm reduction");
    b.red[1] = cv.take<X>(red0, "msm reduction");
    b.results = cv.take<X>(kMaxWindows + 1, "msm window sums");
    return b;
  }

  static size_t workspace_bytes(DeviceId dev, const MsmConfig& cfg) {
    const size_t n = cfg.count;
    const bool bases_on_device = cfg.bases_at == Where::Device, scalars_on_device = cfg.scalars_at == Where::Device;
    if (n == 0) return 0;
    DeviceScope scope(dev);
    Carver cv;
    carve(cv, n, bases_on_device, scalars_on_device, select_temp_bytes(n, dev), sort_temp_bytes(n, dev));
    return cv.used();
  }

  // Sums `groups` arrays of `len` points each (in red[0]); returns where the sums are (groups
  // consecutive points, in red[0] or red[1]).
  static X* reduce_groups(Buffers& b, uint32_t groups, uint32_t len, cudaStream_t s, DeviceId dev, size_t n) {
    X* in = b.red[0];
    X* out = b.red[1];
    while (len > 1) {
      uint32_t out_len = (len + kFan - 1) / kFan;
      reduce_kernel<F><<<blocks_for(size_t(groups) * out_len), kBlock, 0, s>>>(in, out, groups, len, out_len);
      check_launch(dev, "msm reduce_kernel", n);
      std::swap(in, out);
      len = out_len;
    }
    return in;
  }

  // The window plan of a call with m general scalars: c-bit windows, W of them, sorted and
  // accumulated G at a time in `groups` groups; nb buckets a window; runs_target level-0 threads.
  struct Plan {
    unsigned c = 0, W = 0, G = 0, groups = 0;
    uint32_t nb = 0, runs_target = 0;
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
    const Scalar4* scal_in = nullptr;
    Scalar4* scal_out = nullptr;
    const Scalar4* scal = nullptr;

    Call(DeviceId dev_, cudaStream_t s_, size_t n_, const std::string& nstr_, Buffers& b_, PhaseClock& clock_)
        : dev(dev_), s(s_), n(n_), nstr(nstr_), b(b_), clock(clock_) {}

    // Host bases and scalars to the device; copied scalars are converted in place, and so are
    // standard-form scalars already on the device.
    void copy_in(const MsmConfig& cfg) {
      clock.mark(PhaseClock::copy_in);
      bases = static_cast<const Aff*>(cfg.bases);
      if (cfg.bases_at != Where::Device) {
        check(cudaMemcpyAsync(b.bases_copy, cfg.bases, n * sizeof(Aff), cudaMemcpyHostToDevice, s), dev,
              "cudaMemcpyAsync (msm bases to device)", nstr);
        bases = b.bases_copy;
      }
      scal_in = static_cast<const Scalar4*>(cfg.scalars);
      scal_out = cfg.scalar_form == ScalarForm::Montgomery ? b.scalars_std : nullptr;
      if (cfg.scalars_at != Where::Device) {
        check(cudaMemcpyAsync(b.scalars_copy, cfg.scalars, n * sizeof(Scalar4), cudaMemcpyHostToDevice, s), dev,
              "cudaMemcpyAsync (msm scalars to device)", nstr);
        scal_in = b.scalars_copy;
        scal_out = b.scalars_copy;
      }
      scal = scal_out ? scal_out : scal_in;
    }

    // Classify; compact the ones into gen_idx and sum their bases into results[kMaxWindows];
    // then compact the general scalars into gen_idx; then waits for the counts (m general
    // scalars, `ones` ones, the longest general scalar's `bits`).
    void prepare(bool montgomery, uint32_t& m, uint32_t& ones, uint32_t& bits) {
      clock.mark(PhaseClock::prepare);
      uint32_t* ones_count = b.counters + 1 + kMaxWindows;
      uint32_t* max_bits = ones_count + 1;
      uint32_t* ones_listed = ones_count + 2;
      check(cudaMemsetAsync(ones_count, 0, 2 * sizeof(uint32_t), s), dev, "cudaMemsetAsync (msm ones count)", nstr);
      classify_kernel<Fr>
          <<<blocks_for(n), kBlock, 0, s>>>(scal_in, scal_out, b.cand, n, montgomery, ones_count, max_bits);
      check_launch(dev, "msm classify_kernel", n);
      size_t sel_bytes = b.select_bytes;
      check(cub::DeviceSelect::If(b.select_temp, sel_bytes, static_cast<const uint32_t*>(b.cand), b.gen_idx,
                                  ones_listed, int64_t(n), IsOne{}, s),
            dev, "cub::DeviceSelect::If (msm scalars 1)", nstr);
      const uint32_t ones_threads = uint32_t(std::min<size_t>(kOnesThreads, n));
      ones_kernel<F><<<blocks_for(ones_threads), kBlock, 0, s>>>(bases, b.gen_idx, ones_listed, ones_threads, b.red[0]);
      check_launch(dev, "msm ones_kernel", n);
      X* ones_sum = reduce_groups(b, 1, ones_threads, s, dev, n);
      check(cudaMemcpyAsync(b.results + kMaxWindows, ones_sum, sizeof(X), cudaMemcpyDeviceToDevice, s), dev,
            "cudaMemcpyAsync (msm ones sum)", nstr);
      sel_bytes = b.select_bytes;  // the ones' list is summed (same stream): gen_idx is free again
      check(cub::DeviceSelect::If(b.select_temp, sel_bytes, static_cast<const uint32_t*>(b.cand), b.gen_idx, b.counters,
                                  int64_t(n), IsCandidate{}, s),
            dev, "cub::DeviceSelect::If (msm general scalars)", nstr);
      check(cudaMemcpyAsync(&m, b.counters, sizeof(m), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (msm general count)", nstr);
      check(cudaMemcpyAsync(&ones, ones_count, sizeof(ones), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (msm ones count)", nstr);
      check(cudaMemcpyAsync(&bits, max_bits, sizeof(bits), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (msm scalar bits)", nstr);
      check(cudaStreamSynchronize(s), dev, "msm prepare (classify, select, ones)", nstr);
    }

    // Windows cover the longest general scalar's bits only: a witness of small values (a
    // synthetic one, counters, indices) walks few windows; one full-size scalar means all.
    Plan plan(uint32_t m, uint32_t bits) const {
      Plan p;
      bits = std::clamp<uint32_t>(bits, 1, kScalarBits);
      p.c = std::min(choose_c(m, bits), choose_c(n, kScalarBits));  // the buckets are carved for the latter
      p.W = windows_for(p.c, bits);
      p.nb = 1u << (p.c - 1);
      p.G = unsigned(std::max<size_t>(1, std::min<size_t>(p.W, b.entries / m)));
      p.groups = (p.W + p.G - 1) / p.G;
      // Level-0 threads: whole waves of the accumulation kernel, at most kRunsCap.
      int sms = 0, per_sm = 0;
      check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev.ordinal), dev,
            "cudaDeviceGetAttribute (multiprocessors)");
      check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, accumulate_bases_kernel<F>, kBlock, 0), dev,
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor (msm accumulate)");
      const uint32_t wave = uint32_t(std::max(1, sms * per_sm)) * kBlock;
      p.runs_target = wave >= kRunsCap ? kRunsCap : wave * (kRunsCap / wave);
      return p;
    }

    // The group's windows w0 .. w0 + gw - 1: digits (non-zero counts in cnt), then one radix
    // sort per window; win gets where each sorted window lies.
    void sort_group(const Plan& p, uint32_t m, unsigned w0, unsigned gw, uint32_t* cnt, WindowPtrs& win) {
      clock.mark(PhaseClock::sort);
      check(cudaMemsetAsync(cnt, 0, gw * sizeof(uint32_t), s), dev, "cudaMemsetAsync (msm digit counts)", nstr);
      digits_kernel<<<blocks_for(m), kBlock, 0, s>>>(scal, b.gen_idx, m, w0, gw, p.c, b.keys, b.vals, cnt);
      check_launch(dev, "msm digits_kernel", n);
      uint16_t* spare_k = b.keys_alt;
      uint32_t* spare_v = b.vals_alt;
      for (unsigned wl = 0; wl < gw; ++wl) {
        cub::DoubleBuffer<uint16_t> kb(b.keys + size_t(wl) * m, spare_k);
        cub::DoubleBuffer<uint32_t> vb(b.vals + size_t(wl) * m, spare_v);
        size_t tb = b.sort_bytes;
        check(cub::DeviceRadixSort::SortPairs(b.sort_temp, tb, kb, vb, m, 0, int(p.c), s), dev,
              "cub::DeviceRadixSort::SortPairs (msm window)", nstr + ", window " + std::to_string(w0 + wl));
        win.keys[wl] = kb.Current();
        win.vals[wl] = vb.Current();
        spare_k = kb.Alternate();  // the buffer the sort left free serves the next window
        spare_v = vb.Alternate();
      }
    }

    // The group's buckets: level 0 over the sorted windows, then the partial-sum levels until one
    // run is left.
    void accumulate_group(const Plan& p, uint32_t m, unsigned gw, const WindowPtrs& win, const uint32_t* cnt,
                          X* gbuckets) {
      clock.mark(PhaseClock::accumulate);
      uint32_t runs = std::min<uint32_t>(p.runs_target, uint32_t(std::min<size_t>(kRunsCap, size_t(gw) * m)));
      bool final = runs == 1;
      accumulate_bases_kernel<F><<<blocks_for(runs), kBlock, 0, s>>>(win, cnt, gw, runs, bases, p.c, p.nb, final,
                                                                     gbuckets, Slots<F>{b.slot_keys[0], b.slot_pts[0]});
      check_launch(dev, "msm accumulate_bases_kernel", n);
      int cur = 0;
      uint32_t len = 2 * runs;
      while (!final) {
        uint32_t next_runs = (len + kRunLen - 1) / kRunLen;
        final = next_runs == 1;
        accumulate_partials_kernel<F>
            <<<blocks_for(next_runs), kBlock, 0, s>>>(b.slot_keys[cur], b.slot_pts[cur], len, p.c, p.nb, gw, final,
                                                      gbuckets, Slots<F>{b.slot_keys[cur ^ 1], b.slot_pts[cur ^ 1]});
        check_launch(dev, "msm accumulate_partials_kernel", n);
        cur ^= 1;
        len = 2 * next_runs;
      }
    }

    // Bucket reduction per window: the W window sums into results[0 .. W).
    void reduce_windows(const Plan& p) {
      clock.mark(PhaseClock::reduce);
      const uint32_t L = std::min<uint32_t>(kSegLen, p.nb), segs = p.nb / L;
      bucket_reduce_kernel<F><<<blocks_for(size_t(p.W) * segs), kBlock, 0, s>>>(b.buckets, p.W, p.nb, L, b.red[0]);
      check_launch(dev, "msm bucket_reduce_kernel", n);
      X* sums = reduce_groups(b, p.W, segs, s, dev, n);
      check(cudaMemcpyAsync(b.results, sums, p.W * sizeof(X), cudaMemcpyDeviceToDevice, s), dev,
            "cudaMemcpyAsync (msm window sums)", nstr);
    }

    // The m general scalars through the buckets, group of windows by group.
    void window_sums(const Plan& p, uint32_t m) {
      check(cudaMemsetAsync(b.buckets, 0, size_t(p.W) * p.nb * sizeof(X), s), dev, "cudaMemsetAsync (msm buckets)",
            nstr);
      for (unsigned g = 0; g < p.groups; ++g) {
        const unsigned w0 = g * p.G, gw = std::min(p.G, p.W - w0);
        uint32_t* cnt = b.counters + 1;
        WindowPtrs win{};
        sort_group(p, m, w0, gw, cnt, win);
        accumulate_group(p, m, gw, win, cnt, b.buckets + size_t(w0) * p.nb);
      }
      reduce_windows(p);
    }

    // Waits for the window sums and the ones' sum; Horner over the windows, then the ones.
    X finish(const Plan& p) {
      std::vector<X> host(kMaxWindows + 1);
      check(cudaMemcpyAsync(host.data(), b.results, host.size() * sizeof(X), cudaMemcpyDeviceToHost, s), dev,
            "cudaMemcpyAsync (msm results to host)", nstr);
      clock.mark(PhaseClock::count);
      check(cudaStreamSynchronize(s), dev, "msm kernels", nstr);
      X total = X::infinity();
      for (unsigned w = p.W; w-- > 0;) {
        for (unsigned i = 0; i < p.c; ++i) total = total.dbl();
        total += host[w];
      }
      total += host[kMaxWindows];
      return total;
    }
  };

  static void report_timings(PhaseClock& clock, const Plan& p, std::chrono::steady_clock::time_point t_start,
                             MsmTimings& tm) {
    double ms[PhaseClock::count];
    clock.read(ms);
    tm.copy_in_ms = ms[PhaseClock::copy_in];
    tm.prepare_ms = ms[PhaseClock::prepare];
    tm.sort_ms = ms[PhaseClock::sort];
    tm.accumulate_ms = ms[PhaseClock::accumulate];
    tm.reduce_ms = ms[PhaseClock::reduce];
    tm.c = p.c;
    tm.windows = p.W;
    tm.window_groups = p.groups;
    tm.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_start).count();
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
    if (n == 0) {
      std::memcpy(result, &res, sizeof(res));
      if (timings) *timings = tm;
      return;
    }
    if (bases_on_device && (reinterpret_cast<uintptr_t>(cfg.bases) & 15) != 0)
      throw GpuError(dev.name() + ": msm: device bases must be 16-byte aligned (" + nstr + ")");

    std::optional<Stream> own;
    const cudaStream_t s = handle.stream ? static_cast<cudaStream_t>(handle.stream) : own.emplace(dev).get();
    Arena arena(workspace);
    Carver& cv = arena;
    Buffers b = carve(cv, n, bases_on_device, scalars_on_device, select_temp_bytes(n, dev), sort_temp_bytes(n, dev));
    PhaseClock clock(timings != nullptr, s, dev);
    Call call(dev, s, n, nstr, b, clock);

    call.copy_in(cfg);
    uint32_t m = 0, ones = 0, bits = 0;
    call.prepare(cfg.scalar_form == ScalarForm::Montgomery, m, ones, bits);
    tm.general = m;
    tm.ones = ones;
    Plan p;
    if (m > 0) {
      p = call.plan(m, bits);
      call.window_sums(p, m);
    } else {
      clock.mark(PhaseClock::reduce);
    }
    res = ec::Jacobian<F>::from_affine(call.finish(p).to_affine());
    std::memcpy(result, &res, sizeof(res));
    if (timings) {
      report_timings(clock, p, t_start, tm);
      *timings = tm;
    }
  }
};

}  // namespace cuzk::gpu::msm_impl
