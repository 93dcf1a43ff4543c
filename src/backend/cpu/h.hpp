// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend's Groth16 kernels: a, b, c from the key's compiled rows (the pre-compiled
// constraint evaluator), and H on the odd coset (snarkjs) or as coefficients (bellperson). Bit-identical to the CUDA backend's
// (cuda/pce.cu, cuda/ntt.cuh): the same roots (snarkjs's: nqr 5), the same coset, the same forms.
#pragma once
#include <cstdint>

#include "backend/cpu/ntt.hpp"
#include "backend/device.hpp"
#include "ff/field.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cpu {

// The coset H is evaluated on: w_{2n} (the odd powers of the doubled domain), or snarkjs's shift
// 25 when n is the largest power of two of the field. The setup's H points use the same.
template <class Fr>
Fr h_coset(int log_n) {
  constexpr int s = Fr::Params::two_adicity;
  return log_n < s ? root_of_unity<Fr>(log_n + 1) : Fr::from_u64(Fr::Params::nqr * Fr::Params::nqr);
}

// Scratch of compute_h: the domain's twiddle tables (n elements each way).
template <class Fr>
size_t h_scratch_bytes(int log_n) {
  return 2 * (size_t(1) << log_n) * sizeof(Fr);
}

// For each of a, b, c: iNTT, coefficient j times g^j, NTT; then out_i = a_i b_i - c_i in
// standard form (the MSM's scalars). out may alias a.
template <class Fr>
void compute_h(Fr* a, Fr* b, Fr* c, int log_n, ff::Limbs<4>* out, ThreadPool& pool) {
  auto dom = Domain<Fr>::make(log_n, Fr::Params::nqr, &pool);
  const Fr g = h_coset<Fr>(log_n);
  for (Fr* v : {a, b, c}) {
    ntt(v, dom, true, pool, false);
    scale_by_powers(v, dom.n, g, pool, dom.n_inv);
    ntt(v, dom, false, pool);
  }
  pool.parallel_for(
      dom.n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) out[i] = (a[i] * b[i] - c[i]).to_std();
      },
      4096);
}

// bellperson's H: for each of a, b, c: iNTT, coefficient j times g^j, NTT (g the field's
// generator, the roots of unity its powers too); t_i = (a_i b_i - c_i) / (g^n - 1), Z on the
// coset; iNTT of t, coefficient j times g^-j: the n coefficients of h (the last one zero), in
// standard form. out may alias a.
template <class Fr>
void compute_h_coefficients(Fr* a, Fr* b, Fr* c, int log_n, ff::Limbs<4>* out, ThreadPool& pool) {
  auto dom = Domain<Fr>::make(log_n, Fr::Params::generator, &pool);
  const Fr g = Fr::from_u64(Fr::Params::generator);
  for (Fr* v : {a, b, c}) {
    ntt(v, dom, true, pool, false);
    scale_by_powers(v, dom.n, g, pool, dom.n_inv);
    ntt(v, dom, false, pool);
  }
  const Fr z_inv = (g.pow_u64(dom.n) - Fr::one()).inv();
  pool.parallel_for(
      dom.n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) a[i] = (a[i] * b[i] - c[i]) * z_inv;
      },
      4096);
  ntt(a, dom, true, pool, false);
  scale_by_powers(a, dom.n, g.inv(), pool, dom.n_inv);
  pool.parallel_for(
      dom.n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) out[i] = a[i].to_std();
      },
      4096);
}

// a_i = A_i.w, b_i = B_i.w over n rows (a backend::CsrView, coded or not: entries counted from
// row_ptr[0]; values R^2-scaled, so a Montgomery product with a standard-form witness value lands
// in Montgomery form); c_i = a_i b_i.
template <class Fr>
void evaluate_abc(size_t n, backend::CsrView A, backend::CsrView B, const ff::Limbs<4>* w, Fr* a, Fr* b, Fr* c,
                  ThreadPool& pool) {
  if (n == 0) return;
  // entry k's value, coded or not
  auto values = [](const backend::CsrView& m) {
    return [val = static_cast<const Fr*>(m.val), code = m.code, dict = static_cast<const Fr*>(m.dict)](uint32_t k) {
      return code ? dict[code[k]] : val[k];
    };
  };
  const auto va = values(A), vb = values(B);
  const uint32_t a0 = A.row_ptr[0], b0 = B.row_ptr[0];  // entries counted from the first row's
  pool.parallel_for(
      n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
          Fr sa = Fr::zero(), sb = Fr::zero();
          for (uint32_t k = A.row_ptr[i] - a0; k < A.row_ptr[i + 1] - a0; ++k)
            sa += va(k) * Fr::from_raw(w[A.col[k]].v);
          for (uint32_t k = B.row_ptr[i] - b0; k < B.row_ptr[i + 1] - b0; ++k)
            sb += vb(k) * Fr::from_raw(w[B.col[k]].v);
          a[i] = sa;
          b[i] = sb;
          c[i] = sa * sb;
        }
      },
      1024);
}

}  // namespace cuzk::cpu
