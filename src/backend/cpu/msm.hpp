// SPDX-License-Identifier: MIT OR Apache-2.0
// Multi-scalar multiplication on the CPU: sum_i k_i * P_i (the reference backend).
//
// Pippenger's bucket method with signed c-bit digits (buckets for 1..2^(c-1), a negative digit
// adds the negated point), affine buckets filled a batch of additions at a time (one inversion
// per batch), and the work split into (group of windows, chunk of points) tasks: a group's
// windows share the batches, and chunks keep every thread busy when windows are fewer than
// threads.
// Scalars equal to 0 are skipped and those equal to 1 are summed apart: circuits are full of
// bits, and neither needs a bucket.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ec/curve.hpp"
#include "ff/field.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cpu {

using Scalar = ff::Limbs<4>;  // standard form, little-endian, < r

inline bool scalar_is_zero(const Scalar& k) { return (k.v[0] | k.v[1] | k.v[2] | k.v[3]) == 0; }
inline bool scalar_is_one(const Scalar& k) { return k.v[0] == 1 && (k.v[1] | k.v[2] | k.v[3]) == 0; }
// The number of bits of k (0 for k = 0): the windows of an MSM need cover only its scalars'.
inline unsigned scalar_bit_length(const Scalar& k) {
  for (int i = 3; i >= 0; --i)
    if (k.v[i]) return unsigned(64 * i + 64 - std::countl_zero(k.v[i]));
  return 0;
}

// Bits [pos, pos + c) of k (c <= 32).
inline uint32_t scalar_bits(const Scalar& k, unsigned pos, unsigned c) {
  unsigned limb = pos / 64, off = pos % 64;
  if (limb >= 4) return 0;
  unsigned __int128 w = k.v[limb];
  if (limb + 1 < 4) w |= (unsigned __int128)k.v[limb + 1] << 64;
  return uint32_t(w >> off) & ((1u << c) - 1);
}

// Booth recoding: d_w = bits[wc, wc+c) + bit(wc-1) - 2^c * bit(wc+c-1), in [-2^(c-1), 2^(c-1)].
// The sum over w of d_w 2^(wc) telescopes to k when c*W > 255 (k < 2^255), and each digit
// depends on its own window and one bit below it only.
inline int32_t signed_digit(const Scalar& k, unsigned w, unsigned c) {
  unsigned pos = w * c;
  int32_t bits = int32_t(scalar_bits(k, pos, c));
  int32_t below = pos == 0 ? 0 : int32_t(scalar_bits(k, pos - 1, 1));
  int32_t top = bits >> (c - 1);
  return bits + below - (top << c);
}

struct MsmPlan {
  unsigned c = 1;        // window bits
  unsigned windows = 1;  // signed digits per scalar
  unsigned chunks = 1;   // point chunks per window
};

// Picks c minimising the busiest thread's work for `m` general scalars: tasks (a window's chunk
// of points) are spread over the threads, ceil(tasks / threads) per thread, and a task costs its
// points plus 2.5 per bucket (a point's batch-affine addition costs about 6 products and its
// share of the batch's bookkeeping, a bucket's two XYZZ additions of the running sums about 24;
// 2.5, not 4, is what the timings of cuzk_bench_cpu --window at 2^14 and 2^18 fit).
// Windows of c bits for scalars of `bits` bits: c * windows > bits, so the last Booth digit's
// top bit is 0 (its carry has a window).
inline unsigned msm_windows(unsigned bits, unsigned c) { return (bits + c) / c; }

inline MsmPlan plan_msm(size_t m, unsigned threads, unsigned scalar_bits_count = 255) {
  MsmPlan best;
  double best_cost = 1e300;
  for (unsigned c = 2; c <= 20; ++c) {
    const unsigned windows = msm_windows(scalar_bits_count, c);
    unsigned chunks = std::max(1u, (2 * threads + windows - 1) / windows);
    chunks = unsigned(std::min<size_t>(chunks, std::max<size_t>(1, m / 64)));
    const double tasks = double(windows) * chunks;
    const double per_thread = std::ceil(tasks / threads);
    const double cost = per_thread * (double(m) / chunks + 2.5 * double(size_t(1) << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = {c, windows, chunks};
    }
  }
  return best;
}

template <class F>
ec::Jacobian<F> msm_naive(const ec::Affine<F>* bases, const Scalar* scalars, size_t n) {
  ec::Jacobian<F> acc = ec::Jacobian<F>::infinity();
  for (size_t i = 0; i < n; ++i) {
    ec::Jacobian<F> p = ec::Jacobian<F>::from_affine(bases[i]), r = ec::Jacobian<F>::infinity();
    for (int l = 3; l >= 0; --l)
      for (int b = 63; b >= 0; --b) {
        r = r.dbl();
        if ((scalars[i].v[l] >> b) & 1) r = r + p;
      }
    acc = acc + r;
  }
  return acc;
}

// An affine addition q += p a batch at a time (Montgomery's trick): affine_denominator(q, p) is
// what the batch inverts, then affine_add_inverted(q, p, inv) completes the sum with its inverse.
// x equal is exact: p = q doubles (denominator 2y), p = -q is the infinity (denominator 0, no
// inverse: affine_add_inverted returns false and leaves q for the caller to mark empty; the
// groups have odd order, so no point of order 2 meets this).
template <class F>
F affine_denominator(const ec::Affine<F>& q, const ec::Affine<F>& p) {
  return p.x != q.x ? p.x - q.x : (p.y == q.y ? q.y.dbl() : F::zero());
}
template <class F>
bool affine_add_inverted(ec::Affine<F>& q, const ec::Affine<F>& p, const F& inv) {
  if (inv.is_zero()) return false;
  F lambda;
  if (p.x != q.x) {
    lambda = (p.y - q.y) * inv;
  } else {  // p = q
    const F xx = q.x.sqr();
    lambda = (xx.dbl() + xx) * inv;
  }
  const F x3 = lambda.sqr() - q.x - p.x;
  q.y = lambda * (q.x - x3) - q.y;
  q.x = x3;
  return true;
}

// Batch-affine bucket accumulation: buckets hold affine points, and the additions into them
// are done a batch at a time, the batch's denominators inverted together (Montgomery's trick:
// one inversion and three products per addition). An affine sum then costs about 6 products
// where a mixed XYZZ addition costs 10. A point whose bucket already has an addition pending in
// the batch goes into that bucket's XYZZ accumulator instead (as it would without batching), so
// that witnesses full of one repeated value cost no more than before. Special cases (an empty
// bucket, P + P, P + (-P)) are exact.
template <class F>
class AffineBuckets {
 public:
  using X = ec::XYZZ<F>;
  AffineBuckets(size_t buckets, size_t batch)
      : b_(buckets), full_(buckets, 0), stamp_(buckets, 0), side_at_(buckets, 0), batch_(batch) {
    pend_.reserve(batch);
    den_.resize(batch);
    scratch_.resize(batch);
  }
  void clear() {
    std::fill(full_.begin(), full_.end(), uint8_t(0));
    pend_.clear();
    for (uint32_t k : sided_) side_at_[k] = 0;
    sided_.clear();
    side_.clear();
  }
  // Adds p to bucket k.
  void add(uint32_t k, const ec::Affine<F>& p) {
    if (stamp_[k] == now_) {  // an addition into k is pending in this batch
      if (side_at_[k] == 0) {
        side_.push_back(X::from_affine(p));
        side_at_[k] = uint32_t(side_.size());
        sided_.push_back(k);
      } else {
        X& x = side_[side_at_[k] - 1];
        x = x.add_affine(p);
      }
      return;
    }
    if (!full_[k]) {
      b_[k] = p;
      full_[k] = 1;
      return;
    }
    stamp_[k] = now_;
    pend_.push_back({k, p});
    if (pend_.size() == batch_) flush();
  }
  // Every addition done; then the buckets are final.
  void finish() {
    if (!pend_.empty()) flush();
  }
  // run += bucket k.
  void add_to(X& run, size_t k) const {
    if (full_[k]) run = run.add_affine(b_[k]);
    if (side_at_[k]) run += side_[side_at_[k] - 1];
  }

 private:
  struct Pending {
    uint32_t k;
    ec::Affine<F> p;
  };
  void flush() {
    const size_t n = pend_.size();
    for (size_t i = 0; i < n; ++i) den_[i] = affine_denominator(b_[pend_[i].k], pend_[i].p);
    ff::batch_inverse(den_.data(), n, scratch_.data());
    for (size_t i = 0; i < n; ++i)
      if (!affine_add_inverted(b_[pend_[i].k], pend_[i].p, den_[i])) full_[pend_[i].k] = 0;
    pend_.clear();
    if (++now_ == 0) {  // the stamps wrapped: none may look current
      std::fill(stamp_.begin(), stamp_.end(), 0u);
      now_ = 1;
    }
  }

  std::vector<ec::Affine<F>> b_;
  std::vector<uint8_t> full_;      // b_ holds a point
  std::vector<uint32_t> stamp_;    // == now_: an addition into the bucket is pending
  std::vector<uint32_t> side_at_;  // 1 + the index in side_ of the bucket's XYZZ part; 0: none
  std::vector<X> side_;            // the additions that met a pending one, per bucket
  std::vector<uint32_t> sided_;    // the buckets with an XYZZ part
  uint32_t now_ = 1;
  size_t batch_;
  std::vector<Pending> pend_;
  std::vector<F> den_, scratch_;
};

// The batch of AffineBuckets over `buckets` buckets: large enough to share one inversion among
// many additions, small against the buckets so that few points meet a pending addition.
inline size_t affine_batch(size_t buckets) { return std::clamp<size_t>(buckets / 4, 16, 1024); }

// Windows one task fills together: their buckets share the batches, so one inversion serves
// more additions (at 2^14 points an inversion would otherwise cost as much as 60 additions'
// worth of products spread over a batch of 128), and each point is read once for all of them.
// As many as keep the buckets within a core's cache, the windows split evenly over the threads.
inline unsigned windows_per_task(unsigned windows, size_t buckets_per_window, size_t point_bytes, unsigned threads) {
  constexpr size_t kBucketBytes = size_t(512) << 10;
  for (unsigned groups = std::max(1u, threads);; groups += std::max(1u, threads)) {
    const unsigned g = (windows + groups - 1) / groups;
    if (g <= 1 || size_t(g) * buckets_per_window * point_bytes <= kBucketBytes) return std::max(1u, g);
  }
}

template <class F>
ec::Jacobian<F> msm(const ec::Affine<F>* bases, const Scalar* scalars, size_t n, ThreadPool& pool,
                    unsigned force_c = 0) {
  using X = ec::XYZZ<F>;
  if (n == 0) return ec::Jacobian<F>::infinity();
  const unsigned threads = pool.size();

  // 1. Split: ones are summed directly, zeros skipped, the rest go through buckets.
  const size_t parts = std::min<size_t>(n, size_t(threads) * 4);
  std::vector<std::vector<uint32_t>> general(parts);
  std::vector<X> ones(parts, X::infinity());
  std::vector<unsigned> bits_of(parts, 0);  // the longest general scalar of each part
  pool.parallel_for(parts, [&](size_t pb, size_t pe) {
    for (size_t p = pb; p < pe; ++p) {
      size_t b = n * p / parts, e = n * (p + 1) / parts;
      X acc = X::infinity();
      auto& g = general[p];
      unsigned bits = 0;
      for (size_t i = b; i < e; ++i) {
        const Scalar& k = scalars[i];
        if (scalar_is_zero(k) || bases[i].is_inf()) continue;
        if (scalar_is_one(k)) {
          acc = acc.add_affine(bases[i]);
        } else {
          g.push_back(uint32_t(i));
          bits = std::max(bits, scalar_bit_length(k));
        }
      }
      ones[p] = acc;
      bits_of[p] = bits;
    }
  });
  // Windows above the longest scalar hold only zero digits: they are not walked at all.
  const unsigned bits = *std::max_element(bits_of.begin(), bits_of.end());
  std::vector<uint32_t> idx;
  {
    size_t total = 0;
    for (auto& g : general) total += g.size();
    idx.reserve(total);
    for (auto& g : general) idx.insert(idx.end(), g.begin(), g.end());
  }
  X ones_sum = X::infinity();
  for (auto& o : ones) ones_sum += o;

  const size_t m = idx.size();
  X total = X::infinity();
  if (m > 0) {
    MsmPlan plan = plan_msm(m, threads, bits);
    if (force_c) {  // tests: a given window (small ones make every batch conflict)
      plan.c = force_c;
      plan.windows = msm_windows(bits, force_c);
      plan.chunks = std::max(1u, (2 * threads + plan.windows - 1) / plan.windows);
    }
    const unsigned c = plan.c, W = plan.windows;
    const size_t nb = size_t(1) << (c - 1);
    // Tasks: (group of G windows, chunk of points).
    const unsigned G = windows_per_task(W, nb, sizeof(ec::Affine<F>), threads);
    const unsigned groups = (W + G - 1) / G;
    unsigned C = G > 1 ? (threads + groups - 1) / groups : plan.chunks;
    C = unsigned(std::clamp<size_t>(C, 1, std::max<size_t>(1, m / 64)));
    std::vector<X> partial(size_t(W) * C, X::infinity());
    pool.parallel_for(
        size_t(groups) * C,
        [&](size_t tb, size_t te) {
          AffineBuckets<F> buckets(G * nb, affine_batch(G * nb));
          for (size_t t = tb; t < te; ++t) {
            const unsigned w0 = unsigned(t / C) * G, w1 = std::min(W, w0 + G), ch = unsigned(t % C);
            const size_t b = m * ch / C, e = m * (ch + 1) / C;
            buckets.clear();
            for (size_t j = b; j < e; ++j) {
              const uint32_t i = idx[j];
              for (unsigned w = w0; w < w1; ++w) {
                const int32_t d = signed_digit(scalars[i], w, c);
                const uint32_t at = uint32_t((w - w0) * nb);
                if (d > 0)
                  buckets.add(at + uint32_t(d - 1), bases[i]);
                else if (d < 0)
                  buckets.add(at + uint32_t(-d - 1), bases[i].neg());
              }
            }
            buckets.finish();
            // Per window, sum_d d * B_d by running sums from the top bucket down.
            for (unsigned w = w0; w < w1; ++w) {
              X run = X::infinity(), acc = X::infinity();
              for (size_t d = nb; d-- > 0;) {
                buckets.add_to(run, (w - w0) * nb + d);
                acc += run;
              }
              partial[size_t(w) * C + ch] = acc;
            }
          }
        },
        1);
    for (unsigned w = W; w-- > 0;) {
      for (unsigned i = 0; i < c; ++i) total = total.dbl();
      for (unsigned ch = 0; ch < C; ++ch) total += partial[size_t(w) * C + ch];
    }
  }
  total += ones_sum;
  return ec::Jacobian<F>::from_affine(total.to_affine());
}

}  // namespace cuzk::cpu
