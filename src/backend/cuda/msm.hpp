// SPDX-License-Identifier: MIT OR Apache-2.0
// Multi-scalar multiplication on one GPU: sum_i k_i * P_i for G1 or G2 of BN254 / BLS12-381.
// Host-side API, free of CUDA headers. The kernels are in msm.cuh, instantiated once per curve
// and group (msm_<curve>[_g2].cu).
//
// The call is described by backend::MsmConfig (device.hpp): curve, group, count, where the bases
// and scalars are (host or this device) and the scalars' form. The result is written to host
// memory as ec::Jacobian<F> (F = Fq for G1, Fq2 for G2).
//
// Memory: msm_workspace_bytes() is every byte of device memory msm() uses; msm() takes it all
// from `workspace` (an Arena) and never allocates. Errors are GpuError naming the device, the
// kernel or call, and n.
#pragma once
#include <cstddef>
#include <cstdint>

#include "backend/cuda/gpu.hpp"
#include "backend/device.hpp"
#include "ff/curve_id.hpp"

namespace cuzk::gpu {

using backend::Group;
using backend::MsmConfig;
using backend::ScalarForm;
using backend::Where;

// Where the time went (milliseconds, measured with CUDA events on the call's stream), and the
// plan the call chose.
struct MsmTimings {
  double copy_in_ms = 0;     // host-to-device copies of bases/scalars (0 when already on device)
  double prepare_ms = 0;     // scalar conversion, classification (0 / 1 / general), compaction, sum of the ones
  double sort_ms = 0;        // signed digits and the per-window radix sorts
  double accumulate_ms = 0;  // bucket accumulation (all levels)
  // Bucket reduction and the copy of the window sums, on the call's stream: when batches reduce
  // beside the next one, only its waits for them and the last batch's reduction.
  double reduce_ms = 0;
  double reduce_beside_ms = 0;  // wall time of the reductions on a second stream, beside the next batch (stretched by
                                // sharing the GPU with it: an upper bound of their cost)
  double total_ms = 0;          // whole call, host wall time (includes the final combination on the host)
  unsigned c = 0;               // window bits
  unsigned windows = 0;
  unsigned window_groups = 0;  // windows are sorted and accumulated in this many groups
  unsigned reductions = 0;     // bucket reductions: one, or one per batch of groups whose buckets fit at once
  size_t general = 0;          // scalars that went through the buckets (neither 0 nor 1)
  size_t ones = 0;             // scalars equal to 1
};

// Device memory msm() needs for this call. The radix sort's scratch size is asked of CUB on `dev`.
size_t msm_workspace_bytes(DeviceId dev, const MsmConfig& cfg);

// ------------------------------------------------------------------ the window plan's cost model
// How a call of m general scalars of `bits` bits weighs a window width c, in mixed additions. Per
// window: m additions; the radix sort of m pairs, ceil(c / 8) passes, each `sort_w` of an
// addition per pair; per bucket set (one a window, or one per K windows with K tables) the bucket
// reduction, `red_w` additions per bucket. The buckets a call holds stay within `cap_bytes`: a
// quarter of the bases' size, or 2 GiB (a prover holds the largest MSM's scratch beside its key
// for every partition in flight). Every bucket set at once when they fit, one reduction at the
// end; else a group's sets at a time (`held_sets`), reduced before the next group reuses them,
// so that windows wider than 16 bits are allowed while one set fits (at 2^27, 22-bit windows
// hold one 2^21-bucket set instead of thirteen of 2^19). Batched, the buckets are two rooms
// where two fit (`rooms_for`): a batch's reduction runs beside the next batch.
namespace msm_model {
constexpr unsigned kMinC = 2, kMaxC = 24, kFreeC = 16;
constexpr size_t kMaxPairs = size_t(1) << 27;  // (digit, base) pairs held at once by default: 1 GiB
inline unsigned windows_for(unsigned c, unsigned scalar_bits) { return scalar_bits / c + 1; }
// Bytes of a point's coordinate (Fq, or Fq2 for G2) and bits of the scalar field's modulus.
inline size_t field_bytes(CurveId curve, Group group) {
  return (curve == CurveId::bn254 ? 32 : 48) * (group == Group::G2 ? 2 : 1);
}
inline unsigned scalar_bits(CurveId curve) { return curve == CurveId::bn254 ? 254 : 255; }
inline unsigned sets_for(unsigned W, unsigned K) {
  const unsigned k = K < W ? K : W;
  return (W + k - 1) / k;
}

struct CostModel {
  double sort_w = 0, red_w = 0;
  size_t bucket_bytes = 0, cap_bytes = 0;
  size_t group_windows = 1;  // windows one group sorts at once: kMaxPairs / n, at least one
  size_t n = 0;

  // field_bytes: 32 (BN254 Fq), 48 (BLS12-381 Fq), twice that for G2. Fitted on the H200: a sort
  // pass over 2^24 pairs ~0.35 ms; a BN254 G1 mixed addition ~0.2 ns a point, BLS12-381 G1 ~0.44
  // ns; a bucket ~3.5 ns to reduce in G1, ~17 ns in G2 (whose reduction spills registers).
  static CostModel for_field(size_t field_bytes, size_t n) {
    CostModel cm;
    const double r = 32.0 / double(field_bytes);
    cm.sort_w = 0.13 * r * r;
    cm.red_w = field_bytes > 48 ? 10.0 : 4.0;
    cm.bucket_bytes = 4 * field_bytes;                                        // XYZZ
    const size_t quarter = n * 2 * field_bytes / 4, floor = size_t(2) << 30;  // of the affine bases
    cm.cap_bytes = quarter > floor ? quarter : floor;
    cm.group_windows = n >= kMaxPairs ? 1 : kMaxPairs / (n ? n : 1);
    cm.n = n;
    return cm;
  }
  // Bucket sets of c-bit windows over K tables (a set a window, or a table set's K windows), a
  // set too large for one group of `fit` windows split into a set per group: every set a call
  // fills, and the most one group fills.
  static size_t all_sets(unsigned W, unsigned K, size_t fit) {
    const size_t k = K < W ? K : W;
    return size_t(sets_for(W, K)) * (k <= fit ? 1 : (k + fit - 1) / fit);
  }
  static size_t group_sets(unsigned W, unsigned K, size_t fit) {
    const size_t k = K < W ? K : W, t = sets_for(W, K);
    return k <= fit ? (fit / k < t ? fit / k : t) : 1;
  }
  // The sets a call of c-bit windows holds at once, groups of `fit` windows (0: this model's):
  // all of them when they fit in cap_bytes, else one group's, or as many of them as fit (0: not
  // one set fits).
  size_t held_sets(unsigned c, unsigned bits, unsigned K = 1, size_t fit = 0) const {
    if (fit == 0) fit = group_windows;
    const unsigned W = windows_for(c, bits);
    const double per_set = double(size_t(1) << (c - 1)) * double(bucket_bytes);
    const size_t all = all_sets(W, K, fit);
    if (c <= kFreeC || double(all) * per_set <= double(cap_bytes)) return all;
    const size_t room = size_t(double(cap_bytes) / per_set), group = group_sets(W, K, fit);
    return group < room ? group : room;
  }
  double cost(size_t m, unsigned bits, unsigned c, unsigned K = 1) const {
    const unsigned W = windows_for(c, bits);
    return double(W) * double(m) * (1.0 + sort_w * double((c + 7) / 8)) +
           double(sets_for(W, K)) * red_w * double(size_t(1) << (c - 1));
  }
  // The buckets a call of c-bit windows carves: `rooms` of `sets` sets each. Every set in one
  // room when they fit; batched, two rooms of half the bound each (a batch's reduction beside the
  // next batch's accumulation) where a set fits in half, else one; a set above the bound (a width
  // asked for) alone in one.
  struct Rooms {
    size_t sets = 0;
    unsigned rooms = 1;
  };
  Rooms rooms_for(unsigned c, unsigned bits, unsigned K = 1, size_t fit = 0) const {
    if (fit == 0) fit = group_windows;
    const size_t held = held_sets(c, bits, K, fit), all = all_sets(windows_for(c, bits), K, fit);
    if (held == 0) return {1, 1};
    if (held >= all) return {all, 1};
    const size_t half = size_t(double(cap_bytes) / (2.0 * double(size_t(1) << (c - 1)) * double(bucket_bytes)));
    if (half == 0) return {held, 1};
    return {held < half ? held : half, 2};
  }
  // Buckets (of the widest width's size, 2^(c-1) each) a call carves for each array of bases,
  // for widths up to cmax: cmax's rooms, and every set of the width the model takes for n
  // full-length scalars with every set held (the plan of a call with fewer general scalars,
  // which chooses narrower: it need not batch where every set fitting would have been held).
  size_t buckets_for(unsigned cmax, unsigned bits, unsigned K, size_t fit, bool asked) const {
    const Rooms r = rooms_for(cmax, bits, K, fit);
    size_t total = (r.rooms * r.sets) << (cmax - 1);
    if (!asked) {
      const unsigned c = choose(n, bits, cmax, 0, true);
      const size_t all = all_sets(windows_for(c, bits), K, fit) << (c - 1);
      if (all > total) total = all;
    }
    return total;
  }
  // How a plan of c-bit windows lays its sets in `total` buckets: every set in one room when
  // they fit; else two rooms of half, where a set fits in half (a batch's reduction beside the
  // next batch); else one room.
  Rooms layout(unsigned c, unsigned bits, unsigned K, size_t fit, size_t total) const {
    const size_t nb = size_t(1) << (c - 1), all = all_sets(windows_for(c, bits), K, fit);
    if (all * nb <= total) return {all, 1};
    if (total / 2 >= nb) return {total / 2 / nb, 2};
    return {total / nb, 1};
  }
  // Whether c-bit windows' buckets fit, a set at a time at the most.
  bool fits(unsigned c, unsigned bits, unsigned K = 1) const { return held_sets(c, bits, K) > 0; }
  // Whether every bucket set fits at once (the table plans: a table set's windows share one set,
  // and its plans were measured with every set held).
  bool fits_all(unsigned c, unsigned bits, unsigned K = 1) const {
    return c <= kFreeC || double(all_sets(windows_for(c, bits), K, group_windows)) * double(size_t(1) << (c - 1)) *
                                  double(bucket_bytes) <=
                              double(cap_bytes);
  }
  // The cheapest width up to c_max for m scalars of `bits` bits, among those whose buckets fit
  // for scalars of `fit_bits` (0: bits). Without tables: 12-13 at 2^16, 15-16 at 2^20, 20 from
  // 2^24 for G1.
  // (all: among those whose every set fits at once.)
  unsigned choose(size_t m, unsigned bits, unsigned c_max = kMaxC, unsigned fit_bits = 0, bool all = false) const {
    unsigned best = kMinC;
    double best_cost = 1e300;
    for (unsigned c = kMinC; c <= c_max; ++c) {
      if (all ? !fits_all(c, fit_bits ? fit_bits : bits) : !fits(c, fit_bits ? fit_bits : bits)) continue;
      const double v = cost(m, bits, c);
      if (v < best_cost) best_cost = v, best = c;
    }
    return best;
  }
};
}  // namespace msm_model

// Tables for a resident key (MsmConfig::tables): K arrays of the n bases, array k holding
// [2^(k c)] P_i, let each group of K windows share one set of buckets, so that wider windows
// (fewer windows, fewer additions) pay one bucket reduction instead of K. The plan for at most
// `max_tables` tables of at most `max_bytes` in all: the window width and the count (tables = 1:
// none pays). The accumulation reads the tables at random; on an H200, 21 GB of them (13 tables
// of 2^24 BLS12-381 points) read as fast as the 1.6 GB of the bases alone.
struct MsmTablePlan {
  unsigned window_bits = 0, tables = 1;
};
constexpr size_t kMsmTablesReach = size_t(24) << 30;
inline MsmTablePlan msm_table_plan(CurveId curve, Group group, size_t n, unsigned max_tables,
                                   size_t max_bytes = kMsmTablesReach) {
  const size_t field = msm_model::field_bytes(curve, group);
  const unsigned bits = msm_model::scalar_bits(curve);
  const auto cm = msm_model::CostModel::for_field(field, n);
  MsmTablePlan best;
  double best_cost = 1e300;
  for (unsigned c = msm_model::kMinC; c <= msm_model::kMaxC; ++c) {
    const unsigned W = msm_model::windows_for(c, bits);
    unsigned K = max_tables == 0 ? 1 : max_tables;
    if (K > W) K = W;
    // A table set's windows are sorted in one group (kMaxPairs pairs): more tables than that
    // would only split the set into bucket sets of their own again.
    const size_t fit = n >= msm_model::kMaxPairs ? 1 : msm_model::kMaxPairs / n;
    if (K > fit) K = unsigned(fit);
    const size_t per_table = n * 2 * field;  // affine points: two coordinates
    while (K > 1 && size_t(K) * per_table > max_bytes) --K;
    if (!cm.fits_all(c, bits, K) || double(K) * double(n) >= 2147483648.0) continue;
    const double v = cm.cost(n, bits, c, K);
    if (v < best_cost) best_cost = v, best = {c, K};
  }
  if (best.tables < 2) best = {0, 1};
  return best;
}

// Bytes of `tables` tables of n bases (affine points of the group).
inline size_t msm_tables_bytes(CurveId curve, Group group, size_t n, unsigned tables) {
  return size_t(tables) * n * 2 * msm_model::field_bytes(curve, group);
}

// Makes cfg.tables tables of the cfg.count device bases cfg.bases for cfg.window_bits-bit windows
// into `out` (device memory of msm_tables_bytes; out == bases leaves table 0 in place). Runs on
// `stream` (or its own) and returns when the tables are written. An MSM then takes out as its
// bases with the same window_bits and tables.
void msm_make_tables(DeviceId dev, const MsmConfig& cfg, void* out, StreamHandle stream = {});

// result: host memory for one ec::Jacobian<F> (the point in affine coordinates with Z = 1, or
// the infinity (1, 1, 0)); one per array of bases with cfg.bases2 and bases3 (the sums over
// bases, bases2, bases3, sharing the scalars' classification and sorts). With a null stream the
// call makes its own; either way it returns after the work is done (the result is on the host).
void msm(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream = {},
         MsmTimings* timings = nullptr);

// Convenience for tests and tools: bases and scalars in host memory; allocates (cudaMalloc) a
// workspace of exactly msm_workspace_bytes() on `dev` for the call.
void msm_host(DeviceId dev, CurveId curve, Group group, size_t n, const void* bases, const void* scalars,
              ScalarForm form, void* result, MsmTimings* timings = nullptr);

// ------------------------------------------------------------------ per-curve entry points
// (defined in msm_<curve>[_g2].cu; the functions above dispatch to them)
namespace detail {
size_t msm_workspace_bytes_bn254(DeviceId dev, const MsmConfig& cfg);
size_t msm_workspace_bytes_bls12_381(DeviceId dev, const MsmConfig& cfg);
void msm_bn254(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
               MsmTimings* timings);
void msm_bls12_381(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
                   MsmTimings* timings);
void msm_make_tables_bn254(DeviceId dev, const MsmConfig& cfg, void* out, StreamHandle stream);
void msm_make_tables_bls12_381(DeviceId dev, const MsmConfig& cfg, void* out, StreamHandle stream);
}  // namespace detail

inline void msm_make_tables(DeviceId dev, const MsmConfig& cfg, void* out, StreamHandle stream) {
  if (cfg.curve == CurveId::bn254)
    detail::msm_make_tables_bn254(dev, cfg, out, stream);
  else
    detail::msm_make_tables_bls12_381(dev, cfg, out, stream);
}

inline size_t msm_workspace_bytes(DeviceId dev, const MsmConfig& cfg) {
  return cfg.curve == CurveId::bn254 ? detail::msm_workspace_bytes_bn254(dev, cfg)
                                     : detail::msm_workspace_bytes_bls12_381(dev, cfg);
}

inline void msm(DeviceId dev, const MsmConfig& cfg, DeviceMemory workspace, void* result, StreamHandle stream,
                MsmTimings* timings) {
  if (cfg.curve == CurveId::bn254)
    detail::msm_bn254(dev, cfg, workspace, result, stream, timings);
  else
    detail::msm_bls12_381(dev, cfg, workspace, result, stream, timings);
}

inline void msm_host(DeviceId dev, CurveId curve, Group group, size_t n, const void* bases, const void* scalars,
                     ScalarForm form, void* result, MsmTimings* timings) {
  MsmConfig cfg;
  cfg.curve = curve, cfg.group = group, cfg.count = n;
  cfg.bases = bases, cfg.bases_at = Where::Host;
  cfg.scalars = scalars, cfg.scalars_at = Where::Host;
  cfg.scalar_form = form;
  DeviceBuffer ws(dev, msm_workspace_bytes(dev, cfg));
  msm(dev, cfg, ws.memory(), result, {}, timings);
}

}  // namespace cuzk::gpu
