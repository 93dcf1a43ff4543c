// The Groth16 prover (CPU backend), templated on the curve. The algorithm is snarkjs's and
// rapidsnark's (see NOTES in the repository docs): a, b from the key's constraint coefficients,
// c = a.b, H on the odd coset of the doubled domain, five MSMs, blinding with r and s.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "backend/cpu/ntt.hpp"
#include "ec/curves.hpp"
#include "io/zkey.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::groth16 {

using cpu::Scalar;

// Sparse rows of the key's A and B matrices over the base domain (the pre-compiled constraint
// evaluator): value[k] * w[col[k]] summed over row_ptr[i]..row_ptr[i+1] gives a_i (or b_i).
// Values are Fr in Montgomery form scaled by R (as stored in the .zkey), so a Montgomery product
// with a standard-form witness value lands in Montgomery form directly.
template <class Fr>
struct Csr {
  std::vector<uint32_t> row_ptr;
  std::vector<uint32_t> col;
  std::vector<Fr> val;
};

template <class E>
struct ProvingKey {
  using Fr = typename E::Fr;
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  int log_n = 0;
  typename E::G1Affine alpha1, beta1, delta1;
  typename E::G2Affine beta2, gamma2, delta2;
  std::vector<typename E::G1Affine> ic, a, b1, c, h;
  std::vector<typename E::G2Affine> b2;
  Csr<Fr> A, B;
};

template <class E>
struct Proof {
  typename E::G1Affine a;
  typename E::G2Affine b;
  typename E::G1Affine c;
};

// Milliseconds per phase of one proof.
struct ProveTimings {
  double abc_ms = 0, ntt_h_ms = 0, msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_c_ms = 0,
         msm_h_ms = 0, finish_ms = 0, total_ms = 0;
};

namespace detail {

template <class F>
F read_fq(const uint8_t* p) {
  F x;
  std::memcpy(x.l, p, sizeof x.l);
  return x;
}

// Affine points from .zkey bytes (x, y little-endian Montgomery; all-zero = infinity). Each
// coordinate must be reduced and each point on the curve; the error names section and index.
template <class Curve, class Aff>
std::vector<Aff> load_points(const std::string& path, const char* what, std::span<const uint8_t> bytes,
                             size_t count, ThreadPool& pool) {
  using F = typename Curve::F;
  constexpr size_t fb = sizeof(F);
  std::vector<Aff> out(count);
  std::vector<size_t> bad(pool.size() * 4 + 1, SIZE_MAX);
  std::vector<std::string> why(bad.size());
  const size_t chunks = bad.size();
  pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
    for (size_t ch = cb; ch < ce; ++ch) {
      size_t b = count * ch / chunks, e = count * (ch + 1) / chunks;
      for (size_t i = b; i < e; ++i) {
        Aff p;
        std::memcpy(&p.x, bytes.data() + i * 2 * fb, fb);
        std::memcpy(&p.y, bytes.data() + i * 2 * fb + fb, fb);
        if (!p.x.is_reduced() || !p.y.is_reduced()) {
          bad[ch] = i;
          why[ch] = "a coordinate is not reduced modulo q";
          break;
        }
        if (!Curve::on_curve(p)) {
          bad[ch] = i;
          why[ch] = "is not on the curve";
          break;
        }
        out[i] = p;
      }
    }
  });
  for (size_t ch = 0; ch < chunks; ++ch)
    if (bad[ch] != SIZE_MAX)
      throw FormatError(path, std::string(what) + " point " + std::to_string(bad[ch]) + " " + why[ch]);
  return out;
}

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace detail

// Converts a parsed .zkey into the prover's layout once (points checked on the curve).
template <class E>
ProvingKey<E> load_proving_key(const io::ZkeyGroth16& z, ThreadPool& pool) {
  using Fr = typename E::Fr;
  if (z.curve != E::id) throw FormatError(z.path(), "key is for another curve");
  ProvingKey<E> pk;
  pk.n_vars = z.n_vars;
  pk.n_public = z.n_public;
  pk.domain_size = z.domain_size;
  while ((size_t(1) << pk.log_n) < z.domain_size) ++pk.log_n;
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using A1 = typename E::G1Affine;
  using A2 = typename E::G2Affine;
  const std::string& path = z.path();
  auto one1 = [&](const char* what, std::span<const uint8_t> s) {
    return detail::load_points<G1, A1>(path, what, s, 1, pool)[0];
  };
  auto one2 = [&](const char* what, std::span<const uint8_t> s) {
    return detail::load_points<G2, A2>(path, what, s, 1, pool)[0];
  };
  pk.alpha1 = one1("alpha1", z.alpha1);
  pk.beta1 = one1("beta1", z.beta1);
  pk.delta1 = one1("delta1", z.delta1);
  pk.beta2 = one2("beta2", z.beta2);
  pk.gamma2 = one2("gamma2", z.gamma2);
  pk.delta2 = one2("delta2", z.delta2);
  pk.ic = detail::load_points<G1, A1>(path, "IC (section 3)", z.ic, z.n_public + 1, pool);
  pk.a = detail::load_points<G1, A1>(path, "A (section 5)", z.a, z.n_vars, pool);
  pk.b1 = detail::load_points<G1, A1>(path, "B1 (section 6)", z.b1, z.n_vars, pool);
  pk.b2 = detail::load_points<G2, A2>(path, "B2 (section 7)", z.b2, z.n_vars, pool);
  pk.c = detail::load_points<G1, A1>(path, "C (section 8)", z.c, z.n_vars - z.n_public - 1, pool);
  pk.h = detail::load_points<G1, A1>(path, "H (section 9)", z.h, z.domain_size, pool);

  // Section 4 into CSR by row (counting sort: entries are usually row-ordered, not always).
  const size_t eb = z.coef_bytes();
  for (int m = 0; m < 2; ++m) {
    Csr<Fr>& M = m == 0 ? pk.A : pk.B;
    M.row_ptr.assign(size_t(z.domain_size) + 1, 0);
    for (uint32_t k = 0; k < z.n_coefs; ++k) {
      const uint8_t* e = z.coefs.data() + size_t(k) * eb;
      uint32_t mat, row;
      std::memcpy(&mat, e, 4);
      std::memcpy(&row, e + 4, 4);
      if (mat == uint32_t(m)) M.row_ptr[size_t(row) + 1]++;
    }
    for (size_t i = 0; i < z.domain_size; ++i) M.row_ptr[i + 1] += M.row_ptr[i];
    M.col.resize(M.row_ptr.back());
    M.val.resize(M.row_ptr.back());
    std::vector<uint32_t> fill(M.row_ptr.begin(), M.row_ptr.end() - 1);
    for (uint32_t k = 0; k < z.n_coefs; ++k) {
      const uint8_t* e = z.coefs.data() + size_t(k) * eb;
      uint32_t mat, row, sig;
      std::memcpy(&mat, e, 4);
      std::memcpy(&row, e + 4, 4);
      std::memcpy(&sig, e + 8, 4);
      if (mat != uint32_t(m)) continue;
      uint32_t at = fill[row]++;
      M.col[at] = sig;
      std::memcpy(M.val[at].l, e + 12, 32);
    }
  }
  return pk;
}

// Witness values (standard form) as MSM scalars.
inline std::vector<Scalar> witness_scalars(std::span<const uint8_t> bytes, size_t n) {
  std::vector<Scalar> w(n);
  std::memcpy(w.data(), bytes.data(), n * 32);
  return w;
}

// H evaluations on the coset: for each of a, b, c: iNTT, multiply coefficient j by g^j, NTT;
// then h = a.b - c, out of Montgomery form (MSM scalars). g = w_{2n} (odd powers of the doubled
// domain), or snarkjs's shift 25 when n is the largest power of two of the field.
// The coset H is evaluated on: w_{2n} (the odd powers of the doubled domain), or snarkjs's
// shift 25 when n is the largest power of two of the field. The setup's H points use the same.
template <class Fr>
Fr h_coset(int log_n) {
  constexpr int s = Fr::Params::two_adicity;
  return log_n < s ? cpu::root_of_unity<Fr>(log_n + 1) : Fr::from_u64(Fr::Params::nqr * Fr::Params::nqr);
}

template <class Fr>
std::vector<Scalar> compute_h(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c, int log_n,
                              ThreadPool& pool) {
  auto dom = cpu::Domain<Fr>::make(log_n);
  const Fr g = h_coset<Fr>(log_n);
  for (auto* v : {&a, &b, &c}) {
    cpu::ntt(v->data(), dom, true, pool);
    cpu::scale_by_powers(v->data(), dom.n, g, pool);
    cpu::ntt(v->data(), dom, false, pool);
  }
  std::vector<Scalar> h(dom.n);
  pool.parallel_for(dom.n, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) h[i] = (a[i] * b[i] - c[i]).to_std();
  }, 4096);
  return h;
}

// a_i, b_i over the base domain from the key's coefficients; c_i = a_i * b_i.
template <class Fr>
void evaluate_abc(const Csr<Fr>& A, const Csr<Fr>& B, const std::vector<Scalar>& w, size_t n,
                  std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c, ThreadPool& pool) {
  a.assign(n, Fr::zero());
  b.assign(n, Fr::zero());
  c.assign(n, Fr::zero());
  pool.parallel_for(n, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      Fr sa = Fr::zero(), sb = Fr::zero();
      for (uint32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) sa += A.val[k] * Fr::from_raw(w[A.col[k]].v);
      for (uint32_t k = B.row_ptr[i]; k < B.row_ptr[i + 1]; ++k) sb += B.val[k] * Fr::from_raw(w[B.col[k]].v);
      a[i] = sa;
      b[i] = sb;
      c[i] = sa * sb;
    }
  }, 1024);
}

// Blinding and assembly from the five MSM results:
// A = alpha1 + piA + r delta1; B = beta2 + piB + s delta2; B1 = beta1 + piB1 + s delta1;
// C = piC + piH + s A + r B1 - r s delta1.
template <class E>
Proof<E> finish_proof(const ProvingKey<E>& pk, const typename E::G1Jac& pa, const typename E::G1Jac& pb1,
                      const typename E::G2Jac& pb2, const typename E::G1Jac& pc, const typename E::G1Jac& ph,
                      const typename E::Fr& r, const typename E::Fr& s) {
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using J1 = typename E::G1Jac;
  using J2 = typename E::G2Jac;
  J1 d1 = J1::from_affine(pk.delta1);
  J1 A = pa.add_affine(pk.alpha1) + G1::mul(d1, r);
  J2 B = pb2.add_affine(pk.beta2) + G2::mul(J2::from_affine(pk.delta2), s);
  J1 B1 = pb1.add_affine(pk.beta1) + G1::mul(d1, s);
  J1 C = pc + ph + G1::mul(A, s) + G1::mul(B1, r) + G1::mul(d1, r * s).neg();
  return Proof<E>{A.to_affine(), B.to_affine(), C.to_affine()};
}

// One proof. r and s are the blinding scalars (Montgomery form).
template <class E>
Proof<E> prove(const ProvingKey<E>& pk, const std::vector<Scalar>& w, const typename E::Fr& r,
               const typename E::Fr& s, ThreadPool& pool, ProveTimings* timings = nullptr) {
  using Fr = typename E::Fr;
  using J1 = typename E::G1Jac;
  using J2 = typename E::G2Jac;
  if (w.size() != pk.n_vars)
    throw InvalidArgument("witness has " + std::to_string(w.size()) + " values, the key expects " +
                          std::to_string(pk.n_vars));
  ProveTimings t;
  auto t_all = std::chrono::steady_clock::now();
  auto t0 = t_all;

  std::vector<Fr> a, b, c;
  evaluate_abc(pk.A, pk.B, w, pk.domain_size, a, b, c, pool);
  t.abc_ms = detail::ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  std::vector<Scalar> h = compute_h(a, b, c, pk.log_n, pool);
  t.ntt_h_ms = detail::ms_since(t0);
  std::vector<Fr>().swap(a), std::vector<Fr>().swap(b), std::vector<Fr>().swap(c);

  t0 = std::chrono::steady_clock::now();
  J1 pa = cpu::msm(pk.a.data(), w.data(), pk.n_vars, pool);
  t.msm_a_ms = detail::ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  J1 pb1 = cpu::msm(pk.b1.data(), w.data(), pk.n_vars, pool);
  t.msm_b1_ms = detail::ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  J2 pb2 = cpu::msm(pk.b2.data(), w.data(), pk.n_vars, pool);
  t.msm_b2_ms = detail::ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  const size_t nc = pk.n_vars - pk.n_public - 1;
  J1 pc = cpu::msm(pk.c.data(), w.data() + pk.n_public + 1, nc, pool);
  t.msm_c_ms = detail::ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  J1 ph = cpu::msm(pk.h.data(), h.data(), pk.domain_size, pool);
  t.msm_h_ms = detail::ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  Proof<E> proof = finish_proof<E>(pk, pa, pb1, pb2, pc, ph, r, s);
  t.finish_ms = detail::ms_since(t0);
  t.total_ms = detail::ms_since(t_all);
  if (timings) *timings = t;
  return proof;
}

}  // namespace cuzk::groth16
