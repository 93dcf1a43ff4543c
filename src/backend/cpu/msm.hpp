// SPDX-License-Identifier: MIT OR Apache-2.0
// Multi-scalar multiplication on the CPU: sum_i k_i * P_i (the reference backend).
//
// Pippenger's bucket method with signed c-bit digits (buckets for 1..2^(c-1), a negative digit
// adds the negated point), XYZZ bucket accumulators, and the work split into (window, chunk of
// points) tasks so every thread is busy even when windows are fewer than threads.
// Scalars equal to 0 are skipped and those equal to 1 are summed apart: circuits are full of
// bits, and neither needs a bucket.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ec/curve.hpp"
#include "ff/field.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cpu {

using Scalar = ff::Limbs<4>;  // standard form, little-endian, < r

inline bool scalar_is_zero(const Scalar& k) { return (k.v[0] | k.v[1] | k.v[2] | k.v[3]) == 0; }
inline bool scalar_is_one(const Scalar& k) { return k.v[0] == 1 && (k.v[1] | k.v[2] | k.v[3]) == 0; }

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

// Picks c minimising windows * (points + chunks * 2^c) additions for `m` general scalars.
inline MsmPlan plan_msm(size_t m, unsigned threads, unsigned scalar_bits_count = 255) {
  MsmPlan best;
  double best_cost = 1e300;
  for (unsigned c = 2; c <= 20; ++c) {
    unsigned windows = (scalar_bits_count + c) / c;  // c * windows > bits: last digit's top bit is 0
    unsigned chunks = std::max(1u, (2 * threads + windows - 1) / windows);
    chunks = unsigned(std::min<size_t>(chunks, std::max<size_t>(1, m / 64)));
    double cost = double(windows) * (double(m) / 1.0 + double(chunks) * double(1u << c) * 2.0);
    // Tasks are spread over threads: the wall cost is the per-thread share.
    double tasks = double(windows) * chunks;
    cost *= std::max(1.0, double(threads) / tasks) / double(threads);
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

template <class F>
ec::Jacobian<F> msm(const ec::Affine<F>* bases, const Scalar* scalars, size_t n, ThreadPool& pool) {
  using X = ec::XYZZ<F>;
  if (n == 0) return ec::Jacobian<F>::infinity();
  const unsigned threads = pool.size();

  // 1. Split: ones are summed directly, zeros skipped, the rest go through buckets.
  const size_t parts = std::min<size_t>(n, size_t(threads) * 4);
  std::vector<std::vector<uint32_t>> general(parts);
  std::vector<X> ones(parts, X::infinity());
  pool.parallel_for(parts, [&](size_t pb, size_t pe) {
    for (size_t p = pb; p < pe; ++p) {
      size_t b = n * p / parts, e = n * (p + 1) / parts;
      X acc = X::infinity();
      auto& g = general[p];
      for (size_t i = b; i < e; ++i) {
        const Scalar& k = scalars[i];
        if (scalar_is_zero(k) || bases[i].is_inf()) continue;
        if (scalar_is_one(k))
          acc = acc.add_affine(bases[i]);
        else
          g.push_back(uint32_t(i));
      }
      ones[p] = acc;
    }
  });
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
    const MsmPlan plan = plan_msm(m, threads);
    const unsigned c = plan.c, W = plan.windows, C = plan.chunks;
    const size_t nb = size_t(1) << (c - 1);
    std::vector<X> partial(size_t(W) * C, X::infinity());
    pool.parallel_for(
        size_t(W) * C,
        [&](size_t tb, size_t te) {
          std::vector<X> buckets(nb);
          for (size_t t = tb; t < te; ++t) {
            const unsigned w = unsigned(t / C), ch = unsigned(t % C);
            const size_t b = m * ch / C, e = m * (ch + 1) / C;
            std::fill(buckets.begin(), buckets.end(), X::infinity());
            for (size_t j = b; j < e; ++j) {
              const uint32_t i = idx[j];
              const int32_t d = signed_digit(scalars[i], w, c);
              if (d > 0)
                buckets[d - 1] = buckets[d - 1].add_affine(bases[i]);
              else if (d < 0)
                buckets[-d - 1] = buckets[-d - 1].sub_affine(bases[i]);
            }
            // sum_d d * B_d by running sums from the top bucket down.
            X run = X::infinity(), acc = X::infinity();
            for (size_t d = nb; d-- > 0;) {
              run += buckets[d];
              acc += run;
            }
            partial[t] = acc;
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
