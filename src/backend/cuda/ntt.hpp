// SPDX-License-Identifier: MIT OR Apache-2.0
// Number-theoretic transforms over Fr on the GPU, and the Groth16 H evaluation built on them.
// Host-side API, free of CUDA headers.
//
// Results are bit-identical to the CPU backend (cpu::ntt, groth16::compute_h): the same roots of
// unity (snarkjs's: nqr 5), natural order in and out, fully reduced Montgomery arithmetic.
// Every call follows the rules in gpu.hpp: explicit device, memory only from the caller's
// workspace (ask *_workspace_bytes first), caller's device restored, CUDA errors as GpuError.
// Data pointers are device pointers on `dev`, 16-byte aligned, n = 2^log_n elements of 32 bytes
// (4 little-endian 64-bit limbs, Montgomery form unless said otherwise).
#pragma once
#include <cstddef>

#include "backend/cuda/gpu.hpp"
#include "backend/device.hpp"
#include "ff/curve_id.hpp"

namespace cuzk::gpu {

// Largest supported transform: 2^28 elements (and never beyond the field's two-adicity).
inline constexpr int kNttMaxLogN = 28;

// Device time of one call, from CUDA events on its stream (filled only when asked for; the call
// then waits for its stream before returning).
struct NttTimings {
  float twiddles_ms = 0;   // building the twiddle table in the workspace
  float transform_ms = 0;  // the passes (and the bit reversal in place)
  float total_ms = 0;
};

struct HTimings {
  float twiddles_ms = 0;  // twiddle and coset tables
  float a_ms = 0, b_ms = 0;
  float c_ms = 0;  // includes h = a.b - c and the conversion out of Montgomery form
  float total_ms = 0;
};

// Workspace of ntt(): the twiddle table (n/2 elements) and two small tables.
size_t ntt_workspace_bytes(CurveId curve, int log_n);

// In-place transform of d_data[0..2^log_n): forward evaluates at w^i; inverse interpolates and
// scales by 1/n. With a null stream the call makes its own and waits for it; with the caller's
// stream it only enqueues (workspace and data must outlive the work).
void ntt(DeviceId dev, CurveId curve, void* d_data, int log_n, bool inverse, DeviceMemory workspace,
         StreamHandle stream = {}, NttTimings* timings = nullptr);

// One domain's twiddle tables, made once by make_ntt_twiddles in memory the caller keeps
// (ntt_workspace_bytes of it): ntt() calls given them make none of their own. The memory must
// not be written while they are in use.
struct NttTwiddles {
  DeviceMemory memory;
  CurveId curve = CurveId::bn254;
  int log_n = 0;
};
// Makes them (on `stream`, or on a stream of its own that it waits for).
NttTwiddles make_ntt_twiddles(DeviceId dev, CurveId curve, int log_n, DeviceMemory memory, StreamHandle stream = {});
// ntt() over tables made before: the domain is theirs (tw.log_n).
void ntt(DeviceId dev, void* d_data, bool inverse, const NttTwiddles& tw, StreamHandle stream = {},
         NttTimings* timings = nullptr);
// Out of place: d_out = NTT(d_in), both 2^tw.log_n elements, d_in only read (d_in == d_out is
// the in-place call above; a partial overlap is refused). The bit reversal is folded into the
// first pass's loads: one pass over memory fewer than in place.
void ntt(DeviceId dev, const void* d_in, void* d_out, bool inverse, const NttTwiddles& tw, StreamHandle stream = {},
         NttTimings* timings = nullptr);

using backend::HForm;

// Workspace of compute_h(): the twiddle table and the small coset tables (no n-sized scratch).
size_t h_workspace_bytes(CurveId curve, int log_n, HForm form = HForm::OddCoset);

// H on the odd coset, as groth16::compute_h: for each of a, b, c (Montgomery form, natural
// order): inverse NTT, scale coefficient j by g^j (g = w_{2n}, or 25 when log_n is the field's
// two-adicity), forward NTT; then h_i = a_i.b_i - c_i in standard form (the MSM's scalars).
// a, b and c are overwritten (scratch); d_h_out may alias d_a (or be a fourth buffer).
// With HForm::Coefficients, bellperson's H as cpu::compute_h_coefficients: the generator's roots
// and coset, h divided by Z on the coset and transformed back to its n coefficients (standard
// form, natural order, the last one zero).
void compute_h(DeviceId dev, CurveId curve, int log_n, void* d_a, void* d_b, void* d_c, void* d_h_out,
               DeviceMemory workspace, StreamHandle stream = {}, HTimings* timings = nullptr,
               HForm form = HForm::OddCoset);

namespace detail {
// One set per curve, defined in ntt_<curve>.cu.
size_t ntt_workspace_bytes_bn254(int log_n);
size_t h_workspace_bytes_bn254(int log_n, bool coefficients);
void ntt_bn254(DeviceId, const void* in, void* out, int, bool, DeviceMemory, StreamHandle, NttTimings*, bool made);
void make_ntt_twiddles_bn254(DeviceId, int, DeviceMemory, StreamHandle);
void compute_h_bn254(DeviceId, int, bool, void*, void*, void*, void*, DeviceMemory, StreamHandle, HTimings*);
size_t ntt_workspace_bytes_bls12_381(int log_n);
size_t h_workspace_bytes_bls12_381(int log_n, bool coefficients);
void ntt_bls12_381(DeviceId, const void* in, void* out, int, bool, DeviceMemory, StreamHandle, NttTimings*, bool made);
void make_ntt_twiddles_bls12_381(DeviceId, int, DeviceMemory, StreamHandle);
void compute_h_bls12_381(DeviceId, int, bool, void*, void*, void*, void*, DeviceMemory, StreamHandle, HTimings*);
}  // namespace detail

inline size_t ntt_workspace_bytes(CurveId curve, int log_n) {
  return curve == CurveId::bn254 ? detail::ntt_workspace_bytes_bn254(log_n)
                                 : detail::ntt_workspace_bytes_bls12_381(log_n);
}
inline void ntt(DeviceId dev, CurveId curve, void* d_data, int log_n, bool inverse, DeviceMemory workspace,
                StreamHandle stream, NttTimings* timings) {
  if (curve == CurveId::bn254)
    detail::ntt_bn254(dev, d_data, d_data, log_n, inverse, workspace, stream, timings, false);
  else
    detail::ntt_bls12_381(dev, d_data, d_data, log_n, inverse, workspace, stream, timings, false);
}
inline NttTwiddles make_ntt_twiddles(DeviceId dev, CurveId curve, int log_n, DeviceMemory memory, StreamHandle stream) {
  if (curve == CurveId::bn254)
    detail::make_ntt_twiddles_bn254(dev, log_n, memory, stream);
  else
    detail::make_ntt_twiddles_bls12_381(dev, log_n, memory, stream);
  return NttTwiddles{memory, curve, log_n};
}
inline void ntt(DeviceId dev, const void* d_in, void* d_out, bool inverse, const NttTwiddles& tw, StreamHandle stream,
                NttTimings* timings) {
  if (!(tw.memory.device == dev))
    throw InvalidArgument(dev.name() + ": NTT twiddles made on " + tw.memory.device.name());
  if (tw.curve == CurveId::bn254)
    detail::ntt_bn254(dev, d_in, d_out, tw.log_n, inverse, tw.memory, stream, timings, true);
  else
    detail::ntt_bls12_381(dev, d_in, d_out, tw.log_n, inverse, tw.memory, stream, timings, true);
}
inline void ntt(DeviceId dev, void* d_data, bool inverse, const NttTwiddles& tw, StreamHandle stream,
                NttTimings* timings) {
  ntt(dev, d_data, d_data, inverse, tw, stream, timings);
}
inline size_t h_workspace_bytes(CurveId curve, int log_n, HForm form) {
  const bool k = form == HForm::Coefficients;
  return curve == CurveId::bn254 ? detail::h_workspace_bytes_bn254(log_n, k)
                                 : detail::h_workspace_bytes_bls12_381(log_n, k);
}
inline void compute_h(DeviceId dev, CurveId curve, int log_n, void* d_a, void* d_b, void* d_c, void* d_h_out,
                      DeviceMemory workspace, StreamHandle stream, HTimings* timings, HForm form) {
  const bool k = form == HForm::Coefficients;
  if (curve == CurveId::bn254)
    detail::compute_h_bn254(dev, log_n, k, d_a, d_b, d_c, d_h_out, workspace, stream, timings);
  else
    detail::compute_h_bls12_381(dev, log_n, k, d_a, d_b, d_c, d_h_out, workspace, stream, timings);
}

}  // namespace cuzk::gpu
