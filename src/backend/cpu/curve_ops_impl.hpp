// SPDX-License-Identifier: MIT OR Apache-2.0
// CurveOps of one curve from the CPU backend's templates (included by curve_ops_<curve>.cpp).
#pragma once
#include "backend/cpu/curve_ops.hpp"
#include "backend/cpu/fixed_base.hpp"
#include "backend/cpu/h.hpp"
#include "backend/cpu/msm.hpp"
#include "ec/curves.hpp"

namespace cuzk::cpu {

template <class E>
CurveOps make_curve_ops() {
  using Fr = typename E::Fr;
  using A1 = typename E::G1Affine;
  using A2 = typename E::G2Affine;
  CurveOps o;
  o.g1_bytes = sizeof(A1);
  o.g2_bytes = sizeof(A2);
  o.h_scratch_bytes = [](int log_n) { return h_scratch_bytes<Fr>(log_n); };
  o.evaluate_abc = [](size_t n, backend::CsrView A, backend::CsrView B, const void* w, void* a, void* b, void* c,
                      ThreadPool& pool) {
    cpu::evaluate_abc<Fr>(n, A, B, static_cast<const Scalar*>(w), static_cast<Fr*>(a), static_cast<Fr*>(b),
                          static_cast<Fr*>(c), pool);
  };
  o.compute_h = [](int log_n, backend::HForm form, void* a, void* b, void* c, void* h_out, ThreadPool& pool) {
    auto* fa = static_cast<Fr*>(a);
    auto* fb = static_cast<Fr*>(b);
    auto* fc = static_cast<Fr*>(c);
    if (form == backend::HForm::OddCoset)
      cpu::compute_h<Fr>(fa, fb, fc, log_n, static_cast<Scalar*>(h_out), pool);
    else
      cpu::compute_h_coefficients<Fr>(fa, fb, fc, log_n, static_cast<Scalar*>(h_out), pool);
  };
  o.msm = [](backend::Group g, const void* bases, const void* scalars, size_t n, void* result, ThreadPool& pool) {
    const Scalar* k = static_cast<const Scalar*>(scalars);
    if (g == backend::Group::G1)
      *static_cast<typename E::G1Jac*>(result) = cpu::msm(static_cast<const A1*>(bases), k, n, pool);
    else
      *static_cast<typename E::G2Jac*>(result) = cpu::msm(static_cast<const A2*>(bases), k, n, pool);
  };
  o.to_standard = [](const void* in, void* out, size_t n, ThreadPool& pool) {
    const Fr* x = static_cast<const Fr*>(in);
    Scalar* y = static_cast<Scalar*>(out);
    pool.parallel_for(
        n,
        [&](size_t lo, size_t hi) {
          for (size_t i = lo; i < hi; ++i) y[i] = x[i].to_std();
        },
        4096);
  };
  o.fixed_base_table_bytes = [](backend::Group g, size_t n) {
    return g == backend::Group::G1 ? FixedBaseTable<typename E::G1>::table_bytes(n)
                                   : FixedBaseTable<typename E::G2>::table_bytes(n);
  };
  o.fixed_base_mul = [](backend::Group g, const void* base, const void* scalars, size_t n, void* out,
                        ThreadPool& pool) {
    const Scalar* k = static_cast<const Scalar*>(scalars);
    if (g == backend::Group::G1) {
      FixedBaseTable<typename E::G1> t(*static_cast<const A1*>(base), n, pool);
      t.mul(k, n, static_cast<A1*>(out), pool);
    } else {
      FixedBaseTable<typename E::G2> t(*static_cast<const A2*>(base), n, pool);
      t.mul(k, n, static_cast<A2*>(out), pool);
    }
  };
  return o;
}

}  // namespace cuzk::cpu
