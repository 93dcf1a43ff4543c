// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 proving key in cuzk's layout (templated on the curve), read from a snarkjs .zkey,
// and the blinding and assembly of a proof from its five MSMs. The algorithm is snarkjs's and
// rapidsnark's: a, b from the key's constraint coefficients, c = a.b, H on the odd coset of the
// doubled domain, five MSMs, blinding with r and s; the sequence that runs it on a device is
// sequence.hpp.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "backend/device.hpp"
#include "ec/curves.hpp"
#include "io/zkey.hpp"
#include "util/error.hpp"
#include "util/fill_vector.hpp"
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
  backend::CsrView view() const { return {row_ptr.data(), col.data(), val.data()}; }
};

template <class E>
struct ProvingKey {
  using Fr = typename E::Fr;
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  int log_n = 0;
  typename E::G1Affine alpha1, beta1, delta1;
  typename E::G2Affine beta2, gamma2, delta2;
  std::vector<typename E::G1Affine> ic;
  // The large sections are filled in parallel (util/fill_vector.hpp: no zeroing first).
  FillVector<typename E::G1Affine> a, b1, c, h;
  FillVector<typename E::G2Affine> b2;
  Csr<Fr> A, B;
  // The convention (backend::HForm): snarkjs's (the default), or bellperson's, whose h has
  // domain_size - 1 points on the coefficient basis and whose A, B1 and B2 points are density-
  // compacted (`compact`): a[i] is wire a_wires[i]'s (every input, then the private wires whose
  // A column is not empty), b1[i] and b2[i] wire b_wires[i]'s. Otherwise a point per wire.
  backend::HForm h_form = backend::HForm::OddCoset;
  bool compact = false;
  std::vector<uint32_t> a_wires, b_wires;
};

// The key's sections agree with each other (sizes only, constant time; the points were checked
// when read).
template <class E>
void check_key_shape(const ProvingKey<E>& pk) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw InvalidArgument("proving key: " + what);
  };
  const size_t m = pk.n_vars, n = pk.domain_size;
  need(size_t(1) << pk.log_n == n, "the domain is not 2^log_n");
  need(m > pk.n_public, "fewer wires than public inputs + 1");
  need(pk.ic.size() == size_t(pk.n_public) + 1,
       "IC has " + std::to_string(pk.ic.size()) + " points for " + std::to_string(pk.n_public) + " public inputs");
  need(pk.c.size() == m - pk.n_public - 1, "C/L has " + std::to_string(pk.c.size()) + " points for " +
                                               std::to_string(m - pk.n_public - 1) + " private wires");
  const size_t nh = pk.h_form == backend::HForm::Coefficients ? n - 1 : n;
  need(pk.h.size() == nh, "H has " + std::to_string(pk.h.size()) + " points, the domain needs " + std::to_string(nh));
  const size_t na = pk.compact ? pk.a_wires.size() : m, nb = pk.compact ? pk.b_wires.size() : m;
  need(pk.a.size() == na, "A has " + std::to_string(pk.a.size()) + " points for " + std::to_string(na) + " wires");
  need(pk.b1.size() == nb && pk.b2.size() == nb, "B1/B2 have " + std::to_string(pk.b1.size()) + "/" +
                                                     std::to_string(pk.b2.size()) + " points for " +
                                                     std::to_string(nb) + " wires");
}

template <class E>
struct Proof {
  typename E::G1Affine a;
  typename E::G2Affine b;
  typename E::G1Affine c;
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
FillVector<Aff> load_points(const std::string& path, const char* what, std::span<const uint8_t> bytes, size_t count,
                            ThreadPool& pool) {
  using F = typename Curve::F;
  constexpr size_t fb = sizeof(F);
  FillVector<Aff> out(count);
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
  const auto ic = detail::load_points<G1, A1>(path, "IC (section 3)", z.ic, z.n_public + 1, pool);
  pk.ic.assign(ic.begin(), ic.end());
  // Each section's mapped pages are let go once copied: the key is not held twice at the peak.
  auto release = [&](std::span<const uint8_t> s) {
    if (z.file) z.file->release(s);
  };
  pk.a = detail::load_points<G1, A1>(path, "A (section 5)", z.a, z.n_vars, pool);
  release(z.a);
  pk.b1 = detail::load_points<G1, A1>(path, "B1 (section 6)", z.b1, z.n_vars, pool);
  release(z.b1);
  pk.b2 = detail::load_points<G2, A2>(path, "B2 (section 7)", z.b2, z.n_vars, pool);
  release(z.b2);
  pk.c = detail::load_points<G1, A1>(path, "C (section 8)", z.c, z.n_vars - z.n_public - 1, pool);
  release(z.c);
  pk.h = detail::load_points<G1, A1>(path, "H (section 9)", z.h, z.domain_size, pool);
  release(z.h);

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
  release(z.coefs);
  return pk;
}

// Witness values (standard form) as MSM scalars.
inline std::vector<Scalar> witness_scalars(std::span<const uint8_t> bytes, size_t n) {
  std::vector<Scalar> w(n);
  std::memcpy(w.data(), bytes.data(), n * 32);
  return w;
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

}  // namespace cuzk::groth16
