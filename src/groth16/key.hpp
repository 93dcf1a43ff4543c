// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 proving key in cuzk's layout (templated on the curve), read from a snarkjs .zkey,
// and the blinding and assembly of a proof from its five MSMs. The algorithm is snarkjs's and
// rapidsnark's: a, b from the key's constraint coefficients, c = a.b, H on the odd coset of the
// doubled domain, five MSMs, blinding with r and s; the sequence that runs it on a device is
// sequence.hpp.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
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
//
// Coded values (code_values): a matrix whose entries take few distinct values (a real circuit's
// are mostly 1, -1, powers of two and a few constants) keeps each entry's value as a 16-bit code
// into `dict` instead, `val` then empty: 6 bytes an entry instead of 36 to hold, to copy to a
// device and to read there.
template <class Fr>
struct Csr {
  std::vector<uint32_t> row_ptr;
  std::vector<uint32_t> col;
  std::vector<Fr> val;         // entry k's value, unless coded
  std::vector<uint16_t> code;  // coded: entry k's value is dict[code[k]]
  std::vector<Fr> dict;        // coded: the distinct values, in increasing order of their limbs
  bool coded() const { return !dict.empty(); }
  const Fr& value(size_t k) const { return coded() ? dict[code[k]] : val[k]; }
  backend::CsrView view() const {
    if (coded()) return {row_ptr.data(), col.data(), nullptr, code.data(), dict.data()};
    return {row_ptr.data(), col.data(), val.data()};
  }
};

// Codes the values of M (see Csr) when it has entries, at most 2^16 distinct values and at most
// half as many as entries; otherwise leaves it as it is. Deterministic: the dictionary is
// sorted, so the same matrix always gets the same codes. Returns whether M is coded.
template <class Fr>
bool code_values(Csr<Fr>& M, ThreadPool& pool) {
  constexpr size_t kMaxCodes = size_t(1) << 16;
  const size_t nnz = M.val.size();
  if (M.coded()) return true;
  if (nnz == 0) return false;
  struct Hash {
    size_t operator()(const Fr& x) const {
      uint64_t h = 0x9e3779b97f4a7c15ull;
      for (uint64_t w : x.l) h = (h ^ w) * 0xff51afd7ed558ccdull, h ^= h >> 29;
      return size_t(h);
    }
  };
  // The distinct values, chunk by chunk (giving up once one chunk alone has too many); at most
  // 64 chunks, so that the sets held until they are merged stay bounded on a large host.
  const size_t chunks = std::min<size_t>({nnz, 4 * size_t(pool.size()), 64});
  std::vector<std::unordered_set<Fr, Hash>> seen(chunks);
  std::atomic<bool> too_many{false};
  auto range = [&](size_t c) { return std::pair{c * nnz / chunks, (c + 1) * nnz / chunks}; };
  pool.parallel_for(chunks, [&](size_t lo, size_t hi) {
    for (size_t c = lo; c < hi && !too_many; ++c) {
      const auto [b, e] = range(c);
      const Fr* last = nullptr;
      for (size_t k = b; k < e; ++k) {
        if (last && M.val[k] == *last) continue;
        last = &M.val[k];
        seen[c].insert(M.val[k]);
        if (seen[c].size() > kMaxCodes) {
          too_many = true;
          break;
        }
      }
    }
  });
  if (too_many) return false;
  std::unordered_map<Fr, uint16_t, Hash> index;
  for (auto& s : seen)
    for (const Fr& x : s) {
      if (index.size() == kMaxCodes && !index.count(x)) return false;
      index.emplace(x, 0);
    }
  seen.clear();
  if (2 * index.size() > nnz) return false;
  std::vector<Fr> dict;
  dict.reserve(index.size());
  for (auto& [x, c] : index) dict.push_back(x);
  std::sort(dict.begin(), dict.end(), [](const Fr& x, const Fr& y) {
    return std::lexicographical_compare(std::rbegin(x.l), std::rend(x.l), std::rbegin(y.l), std::rend(y.l));
  });
  for (size_t i = 0; i < dict.size(); ++i) index[dict[i]] = uint16_t(i);
  std::vector<uint16_t> code(nnz);
  pool.parallel_for(chunks, [&](size_t lo, size_t hi) {
    for (size_t c = lo; c < hi; ++c) {
      const auto [b, e] = range(c);
      const Fr* last = nullptr;
      uint16_t last_code = 0;
      for (size_t k = b; k < e; ++k) {
        if (!last || !(M.val[k] == *last)) last = &M.val[k], last_code = index.at(M.val[k]);
        code[k] = last_code;
      }
    }
  });
  M.code = std::move(code);
  M.dict = std::move(dict);
  std::vector<Fr>().swap(M.val);
  return true;
}

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
  const size_t ra = pk.A.row_ptr.size(), rb = pk.B.row_ptr.size();
  need(ra == rb && (ra == 0 || ra == n + 1), "the A and B rows have " + std::to_string(ra) + " and " +
                                                 std::to_string(rb) + " row pointers, the domain needs " +
                                                 std::to_string(n + 1) + " each (or none)");
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
