// SPDX-License-Identifier: MIT OR Apache-2.0
// An insecure Groth16 setup for tests and benchmarks: the toxic waste (tau, alpha, beta, gamma,
// delta) is drawn from a known seed or the OS, used, and forgotten; anyone who knows the seed can
// forge proofs. The key is the one snarkjs's `groth16 setup` + contributions would give for the
// same toxic waste (same rows, same domain, same public-input rows, same H points on the odd
// coset), so snarkjs proves and verifies with it.
//
//   L_i(tau)  Lagrange basis of the domain (n = 2^log_n >= rows + n_public + 1)
//   u_j, v_j, w_j = sum_i A_ij L_i(tau), B.., C..   (+ L_{rows+j}(tau) in u_j for j <= n_public)
//   A_j = [u_j]G1, B1_j = [v_j]G1, B2_j = [v_j]G2
//   IC_j = [(beta u_j + alpha v_j + w_j) / gamma]G1 (j <= n_public), C_j = [... / delta]G1 (others)
//   H_i = [L^coset_i(tau) Z(tau) / (g^n - 1) / delta]G1, g the coset the prover uses
//
// In bellperson's convention (HForm::Coefficients) the same key differs in three ways: the
// domain's roots of unity are the powers of the field's generator's (7 on BLS12-381), H is on
// the coefficient basis (H_i = [tau^i Z(tau) / delta]G1, i < n - 1), and A, B1, B2 hold only
// the wires whose column is not empty (every input in A, through its input row): the layout
// bellperson's generator writes to a .params file.
//
// The fixed-base multiplications go to a FixedBase callback: the CPU version here (windowed
// table, all threads of the pool), or the GPU's.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "backend/cpu/fixed_base.hpp"
#include "backend/cpu/h.hpp"
#include "backend/cpu/ntt.hpp"
#include "groth16/key.hpp"
#include "r1cs/rows.hpp"
#include "util/rng.hpp"
#include "util/time.hpp"

namespace cuzk::setup {

template <class Fr>
struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  static ToxicWaste draw(RandomSource& rs) {
    ToxicWaste t;
    for (Fr* x : {&t.tau, &t.alpha, &t.beta, &t.gamma, &t.delta}) do
        *x = random_field<Fr>(rs);
      while (x->is_zero());
    return t;
  }
};

struct SetupTimings {
  double lagrange_ms = 0, columns_ms = 0, scalars_ms = 0, g1_ms = 0, g2_ms = 0, total_ms = 0;
  size_t g1_points = 0, g2_points = 0;
};

enum class FixedGroup { G1, G2 };
// out[i] = [k_i] generator of the group (affine, (0,0) = infinity), scalars standard form.
using FixedBase = std::function<void(FixedGroup, const cpu::Scalar* k, size_t n, void* out)>;

template <class E>
FixedBase cpu_fixed_base(ThreadPool& pool) {
  return [&pool](FixedGroup g, const cpu::Scalar* k, size_t n, void* out) {
    if (n == 0) return;
    if (g == FixedGroup::G1) {
      cpu::FixedBaseTable<typename E::G1> t(cpu::generator<typename E::G1>(), n, pool);
      t.mul(k, n, static_cast<typename E::G1Affine*>(out), pool);
    } else {
      cpu::FixedBaseTable<typename E::G2> t(cpu::generator<typename E::G2>(), n, pool);
      t.mul(k, n, static_cast<typename E::G2Affine*>(out), pool);
    }
  };
}

// ------------------------------------------------------------------ the steps of the setup

namespace detail {

// The key's sizes: n_pub public inputs, m wires, a domain of n = 2^log_n rows.
struct Sizes {
  uint32_t n_pub = 0, m = 0;
  int log_n = 0;
  size_t n = 0;
};

template <class Fr>
Sizes sizes_of(const r1cs::RowSource<Fr>& src) {
  constexpr int s = Fr::Params::two_adicity;
  Sizes sh;
  sh.n_pub = src.n_public();
  sh.m = src.n_wires;
  if (sh.m < sh.n_pub + 1) throw InvalidArgument("the circuit has fewer wires than public inputs + 1");
  const size_t rows_total = src.n_rows + sh.n_pub + 1;
  while ((size_t(1) << sh.log_n) < rows_total) ++sh.log_n;
  if (sh.log_n > s)
    throw InvalidArgument("the circuit needs a domain of 2^" + std::to_string(sh.log_n) +
                          ", more than this field's 2^" + std::to_string(s));
  sh.n = size_t(1) << sh.log_n;
  return sh;
}

// Points of the domain (or of its coset) are taken kChunk at a time, one batch inversion each.
constexpr size_t kChunk = 1 << 14;
inline size_t chunks_of(size_t n) { return (n + kChunk - 1) / kChunk; }

template <class Fr>
struct LagrangeAtTau {
  Fr omega;  // the domain's generator
  Fr tau_n;  // tau^n
  Fr zt;     // Z(tau) = tau^n - 1
  std::vector<Fr> L;
};

// L_i = (tau^n - 1)/n * w^i / (tau - w^i); each chunk starts at w^lo, computed by a power.
template <class Fr>
LagrangeAtTau<Fr> lagrange_at_tau(const Fr& tau, const Sizes& sh, uint64_t root_base, ThreadPool& pool) {
  const size_t n = sh.n;
  LagrangeAtTau<Fr> r;
  r.omega = cpu::root_of_unity<Fr>(sh.log_n, root_base);
  r.tau_n = tau.pow_u64(n);
  r.zt = r.tau_n - Fr::one();
  if (r.zt.is_zero()) throw InvalidArgument("tau lies in the domain; draw another");
  const Fr zn = r.zt * Fr::from_u64(n).inv();
  const Fr& omega = r.omega;
  std::vector<Fr>& L = r.L;
  L.resize(n);
  pool.parallel_for(chunks_of(n), [&](size_t cb, size_t ce) {
    std::vector<Fr> d(kChunk), scratch(kChunk);
    for (size_t ch = cb; ch < ce; ++ch) {
      const size_t lo = ch * kChunk, hi = std::min(n, lo + kChunk);
      Fr wi = omega.pow_u64(lo);
      for (size_t i = lo; i < hi; ++i) {
        d[i - lo] = tau - wi;
        L[i] = wi;
        wi = wi * omega;
      }
      ff::batch_inverse(d.data(), hi - lo, scratch.data());
      for (size_t i = lo; i < hi; ++i) L[i] = zn * L[i] * d[i - lo];
    }
  });
  return r;
}

// The value R mod r: a .zkey's matrix values are scaled by it.
template <class Fr>
Fr montgomery_r() {
  typename Fr::Limbs one_raw;
  Fr o = Fr::one();
  std::memcpy(one_raw.v, o.l, sizeof one_raw.v);
  return Fr::from_std(one_raw);
}

// The columns at tau: u_j, v_j, w_j.
template <class Fr>
struct Columns {
  std::vector<Fr> u, v, w;
};

// How one pass over a matrix is cut: row chunks (one task each) and wire ranges (one
// accumulator task each).
struct ColumnCut {
  size_t row_chunks, ranges;
  uint32_t m;
  ColumnCut(size_t n_rows, uint32_t m_)
      : row_chunks(std::max<size_t>(1, std::min<size_t>(4096, n_rows / 4096))),
        ranges(std::max<size_t>(1, std::min<size_t>(256, m_ / 4096))),
        m(m_) {}
  size_t range_of(uint32_t j) const { return size_t(j) * ranges / m; }
};

// What the row chunks of one matrix emit: (wire, coef * L_i) into buckets by wire range and,
// for A and B, the rows of the prover's CSR.
template <class Fr>
struct MatrixTerms {
  struct Entry {
    uint32_t wire;
    Fr value;
  };
  std::vector<std::vector<std::vector<Entry>>> buckets;  // [chunk][range]
  std::vector<std::vector<uint32_t>> cols;
  std::vector<std::vector<Fr>> vals;
  std::vector<std::vector<uint32_t>> row_len;
  MatrixTerms(const ColumnCut& cut, bool csr)
      : buckets(cut.row_chunks, std::vector<std::vector<Entry>>(cut.ranges)),
        cols(csr ? cut.row_chunks : 0),
        vals(csr ? cut.row_chunks : 0),
        row_len(csr ? cut.row_chunks : 0) {}
};

// Matrix `mat` (0: A, 1: B, 2: C) row chunk by row chunk; rows are generated once per matrix.
// Without L (a key read from a file, no toxic waste), the CSR rows alone.
template <class Fr>
void emit_terms(const r1cs::RowSource<Fr>& src, int mat, const std::vector<Fr>* L, const ColumnCut& cut, bool csr,
                const Fr& rscale, MatrixTerms<Fr>& t, std::vector<std::string>& bad, ThreadPool& pool) {
  const uint32_t m = cut.m;
  pool.parallel_for(cut.row_chunks, [&](size_t cb, size_t ce) {
    r1cs::Row<Fr> row;
    for (size_t ch = cb; ch < ce; ++ch) {
      const size_t lo = src.n_rows * ch / cut.row_chunks, hi = src.n_rows * (ch + 1) / cut.row_chunks;
      for (size_t i = lo; i < hi; ++i) {
        src.row(i, row);
        const r1cs::LinComb<Fr>& lc = mat == 0 ? row.a : mat == 1 ? row.b : row.c;
        for (size_t k = 0; k < lc.size(); ++k) {
          const uint32_t j = lc.wire[k];
          if (j >= m) {
            if (bad[ch].empty())
              bad[ch] =
                  "constraint " + std::to_string(i) + " uses wire " + std::to_string(j) + " of " + std::to_string(m);
            continue;
          }
          if (L) t.buckets[ch][cut.range_of(j)].push_back({j, lc.coef[k] * (*L)[i]});
          if (csr) {
            t.cols[ch].push_back(j);
            t.vals[ch].push_back(lc.coef[k] * rscale);
          }
        }
        if (csr) t.row_len[ch].push_back(uint32_t(lc.size()));
      }
    }
  });
}

// Each wire range summed by one task, so no two tasks write the same accumulator; the buckets
// are freed as they are read.
template <class Fr>
void sum_terms(MatrixTerms<Fr>& t, const ColumnCut& cut, std::vector<Fr>& acc, ThreadPool& pool) {
  using Entry = typename MatrixTerms<Fr>::Entry;
  pool.parallel_for(cut.ranges, [&](size_t rb, size_t re) {
    for (size_t r = rb; r < re; ++r)
      for (size_t ch = 0; ch < cut.row_chunks; ++ch) {
        for (const Entry& e : t.buckets[ch][r]) acc[e.wire] += e.value;
        std::vector<Entry>().swap(t.buckets[ch][r]);
      }
  });
}

// The chunks' CSR rows joined into the key's (freed as they are copied); A gets the
// public-input rows A[rows + j][j] = 1 (value R, as every value); empty rows up to n.
template <class Fr>
void join_csr(MatrixTerms<Fr>& t, const ColumnCut& cut, bool public_rows, size_t n_rows, uint32_t n_pub, size_t n,
              const Fr& rscale, groth16::Csr<Fr>& csr) {
  size_t total = 0;
  for (auto& c : t.cols) total += c.size();
  if (total + n_pub + 1 >= UINT32_MAX)
    throw InvalidArgument("more than 2^32 terms in one matrix: too many for the key's 32-bit rows");
  csr.row_ptr.assign(n + 1, 0);
  csr.col.reserve(total + (public_rows ? n_pub + 1 : 0));
  csr.val.reserve(total + (public_rows ? n_pub + 1 : 0));
  size_t i = 0;
  for (size_t ch = 0; ch < cut.row_chunks; ++ch) {
    for (uint32_t len : t.row_len[ch]) {
      csr.row_ptr[i + 1] = csr.row_ptr[i] + len;
      ++i;
    }
    csr.col.insert(csr.col.end(), t.cols[ch].begin(), t.cols[ch].end());
    csr.val.insert(csr.val.end(), t.vals[ch].begin(), t.vals[ch].end());
    std::vector<uint32_t>().swap(t.cols[ch]);
    std::vector<Fr>().swap(t.vals[ch]);
  }
  if (public_rows)
    for (uint32_t j = 0; j <= n_pub; ++j) {
      csr.col.push_back(j);
      csr.val.push_back(rscale);
      csr.row_ptr[n_rows + j + 1] = uint32_t(csr.col.size());
    }
  for (size_t r = 1; r <= n; ++r) csr.row_ptr[r] = std::max(csr.row_ptr[r], csr.row_ptr[r - 1]);
}

// u, v, w at tau, one parallel pass per matrix, and the prover's CSR of A and B (values scaled
// by R as in a .zkey).
template <class Fr>
Columns<Fr> columns_at_tau(const r1cs::RowSource<Fr>& src, const std::vector<Fr>& L, const Sizes& sh,
                           groth16::Csr<Fr>& A, groth16::Csr<Fr>& B, ThreadPool& pool) {
  const uint32_t m = sh.m, n_pub = sh.n_pub;
  Columns<Fr> cols{std::vector<Fr>(m, Fr::zero()), std::vector<Fr>(m, Fr::zero()), std::vector<Fr>(m, Fr::zero())};
  const Fr rscale = montgomery_r<Fr>();
  const ColumnCut cut(src.n_rows, m);
  std::vector<std::string> bad(cut.row_chunks);
  for (int mat = 0; mat < 3; ++mat) {
    std::vector<Fr>& acc = mat == 0 ? cols.u : mat == 1 ? cols.v : cols.w;
    groth16::Csr<Fr>* csr = mat == 0 ? &A : mat == 1 ? &B : nullptr;
    MatrixTerms<Fr> t(cut, csr != nullptr);
    emit_terms(src, mat, &L, cut, csr != nullptr, rscale, t, bad, pool);
    for (auto& b : bad)
      if (!b.empty()) throw InvalidArgument(b);
    sum_terms(t, cut, acc, pool);
    if (mat == 0)  // the public-input rows: A[rows + j][j] = 1
      for (uint32_t j = 0; j <= n_pub; ++j) acc[j] += L[src.n_rows + j];
    if (csr) join_csr(t, cut, mat == 0, src.n_rows, n_pub, sh.n, rscale, *csr);
  }
  return cols;
}

// The prover's CSR of A and B alone, exactly as columns_at_tau compiles them: for a key whose
// file carries no constraint rows (bellperson's .params), from the circuit's rows.
template <class Fr>
void prover_rows(const r1cs::RowSource<Fr>& src, groth16::Csr<Fr>& A, groth16::Csr<Fr>& B, ThreadPool& pool) {
  const Sizes sh = sizes_of(src);
  const Fr rscale = montgomery_r<Fr>();
  const ColumnCut cut(src.n_rows, sh.m);
  std::vector<std::string> bad(cut.row_chunks);
  for (int mat = 0; mat < 2; ++mat) {
    MatrixTerms<Fr> t(cut, true);
    emit_terms<Fr>(src, mat, nullptr, cut, true, rscale, t, bad, pool);
    for (auto& b : bad)
      if (!b.empty()) throw InvalidArgument(b);
    join_csr(t, cut, mat == 0, src.n_rows, sh.n_pub, sh.n, rscale, mat == 0 ? A : B);
  }
}

// The scalars of the key's points, standard form: a_j = u_j, b_j = v_j, l_j (IC then C), h_i.
struct KeyScalars {
  std::vector<cpu::Scalar> a, b, l, h;
};

// a, b and l from the columns, which are freed.
template <class Fr>
void wire_scalars(const ToxicWaste<Fr>& tw, Columns<Fr>& cols, uint32_t m, uint32_t n_pub, const Fr& gamma_inv,
                  const Fr& delta_inv, KeyScalars& ks, ThreadPool& pool) {
  const std::vector<Fr>&u = cols.u, &v = cols.v, &w = cols.w;
  ks.a.resize(m), ks.b.resize(m), ks.l.resize(m);
  pool.parallel_for(
      m,
      [&](size_t lo, size_t hi) {
        for (size_t j = lo; j < hi; ++j) {
          ks.a[j] = u[j].to_std();
          ks.b[j] = v[j].to_std();
          ks.l[j] = ((tw.beta * u[j] + tw.alpha * v[j] + w[j]) * (j <= n_pub ? gamma_inv : delta_inv)).to_std();
        }
      },
      4096);
  std::vector<Fr>().swap(cols.u), std::vector<Fr>().swap(cols.v), std::vector<Fr>().swap(cols.w);
}

// H_i = L^coset_i(tau) Z(tau) / (g^n - 1) / delta, L^coset_i(tau) = (tau^n - g^n) p_i / (n g^n (tau - p_i)),
// p_i = g w^i.
template <class Fr>
std::vector<cpu::Scalar> h_scalars(const ToxicWaste<Fr>& tw, const LagrangeAtTau<Fr>& lag, const Sizes& sh,
                                   const Fr& delta_inv, ThreadPool& pool) {
  const size_t n = sh.n;
  const Fr& omega = lag.omega;
  // The factor common to all i:
  const Fr g = cpu::h_coset<Fr>(sh.log_n);
  const Fr gn = g.pow_u64(n);
  const Fr common = (lag.tau_n - gn) * (Fr::from_u64(n) * gn).inv() * lag.zt * (gn - Fr::one()).inv() * delta_inv;
  std::vector<cpu::Scalar> kh(n);
  pool.parallel_for(chunks_of(n), [&](size_t cb, size_t ce) {
    std::vector<Fr> d(kChunk), p(kChunk), scratch(kChunk);
    for (size_t ch = cb; ch < ce; ++ch) {
      const size_t lo = ch * kChunk, hi = std::min(n, lo + kChunk);
      Fr pi = g * omega.pow_u64(lo);
      for (size_t i = lo; i < hi; ++i) {
        p[i - lo] = pi;
        d[i - lo] = tw.tau - pi;
        pi = pi * omega;
      }
      ff::batch_inverse(d.data(), hi - lo, scratch.data());
      for (size_t i = lo; i < hi; ++i) kh[i] = (common * p[i - lo] * d[i - lo]).to_std();
    }
  });
  return kh;
}

// bellperson's H scalars: tau^i Z(tau) / delta, i < n - 1.
template <class Fr>
std::vector<cpu::Scalar> h_coefficient_scalars(const ToxicWaste<Fr>& tw, const LagrangeAtTau<Fr>& lag, const Sizes& sh,
                                               const Fr& delta_inv, ThreadPool& pool) {
  const size_t count = sh.n - 1;
  const Fr common = lag.zt * delta_inv;
  std::vector<cpu::Scalar> kh(count);
  pool.parallel_for(chunks_of(count), [&](size_t cb, size_t ce) {
    for (size_t ch = cb; ch < ce; ++ch) {
      const size_t lo = ch * kChunk, hi = std::min(count, lo + kChunk);
      Fr x = common * tw.tau.pow_u64(lo);
      for (size_t i = lo; i < hi; ++i) {
        kh[i] = x.to_std();
        x = x * tw.tau;
      }
    }
  });
  return kh;
}

// The wires whose column of `M` has a non-zero value, ascending: the density of bellperson's
// compacted A and B queries.
template <class Fr>
std::vector<uint32_t> dense_wires(const groth16::Csr<Fr>& M, uint32_t m) {
  std::vector<uint8_t> used(m, 0);
  for (size_t k = 0; k < M.col.size(); ++k)
    if (!M.value(k).is_zero()) used[M.col[k]] = 1;
  std::vector<uint32_t> wires;
  for (uint32_t j = 0; j < m; ++j)
    if (used[j]) wires.push_back(j);
  return wires;
}

// Keeps the scalars of `wires` only. A wire whose column is not empty but sums to 0 at tau
// would get the point at infinity, which bellperson's generator drops: refused (another tau).
inline void compact(std::vector<cpu::Scalar>& k, const std::vector<uint32_t>& wires, const char* what) {
  std::vector<cpu::Scalar> out(wires.size());
  for (size_t i = 0; i < wires.size(); ++i) {
    out[i] = k[wires[i]];
    bool zero = true;
    for (uint64_t x : out[i].v) zero = zero && x == 0;
    if (zero)
      throw InvalidArgument(std::string("the ") + what + " column of wire " + std::to_string(wires[i]) +
                            " vanishes at tau; draw other toxic waste");
  }
  k.swap(out);
}

// The fixed-base multiplications of the key, each scalar list freed once its points are made.
template <class E>
struct KeyPoints {
  using Fr = typename E::Fr;
  const FixedBase& fixed;
  groth16::ProvingKey<E>& pk;
  size_t g1_points = 0;

  FillVector<typename E::G1Affine> g1(const cpu::Scalar* k, size_t cnt) {
    FillVector<typename E::G1Affine> out(cnt);
    fixed(FixedGroup::G1, k, cnt, out.data());
    g1_points += cnt;
    return out;
  }
  typename E::G1Affine single1(const Fr& x) {
    cpu::Scalar k = x.to_std();
    return g1(&k, 1)[0];
  }
  typename E::G2Affine single2(const Fr& x) {
    cpu::Scalar k = x.to_std();
    std::vector<typename E::G2Affine> out(1);
    fixed(FixedGroup::G2, &k, 1, out.data());
    return out[0];
  }

  // alpha, beta, delta, A, B1, IC, C, H; keeps ks.b for G2.
  void g1_all(const ToxicWaste<Fr>& tw, KeyScalars& ks, const Sizes& sh) {
    pk.alpha1 = single1(tw.alpha);
    pk.beta1 = single1(tw.beta);
    pk.delta1 = single1(tw.delta);
    pk.a = g1(ks.a.data(), ks.a.size());
    std::vector<cpu::Scalar>().swap(ks.a);
    pk.b1 = g1(ks.b.data(), ks.b.size());
    const auto ic = g1(ks.l.data(), sh.n_pub + 1);
    pk.ic.assign(ic.begin(), ic.end());
    pk.c = g1(ks.l.data() + sh.n_pub + 1, sh.m - sh.n_pub - 1);
    std::vector<cpu::Scalar>().swap(ks.l);
    pk.h = g1(ks.h.data(), ks.h.size());
    std::vector<cpu::Scalar>().swap(ks.h);
  }
  // beta, gamma, delta, B2; returns the number of points.
  size_t g2_all(const ToxicWaste<Fr>& tw, KeyScalars& ks, const Sizes& sh) {
    pk.beta2 = single2(tw.beta);
    pk.gamma2 = single2(tw.gamma);
    pk.delta2 = single2(tw.delta);
    const size_t nb = ks.b.size();
    pk.b2.resize(nb);
    fixed(FixedGroup::G2, ks.b.data(), nb, pk.b2.data());
    std::vector<cpu::Scalar>().swap(ks.b);
    return nb + 3;
  }
};

}  // namespace detail

// ------------------------------------------------------------------ a key from a file

// What a bellperson-convention key's file does not carry, from the circuit's rows, exactly as
// setup() derives it: the prover's A and B rows (the input rows appended to A) and the wires
// whose A / B columns are not empty (the order of the compacted a, b_g1 and b_g2 points).
template <class E>
void bellperson_rows(const r1cs::RowSource<typename E::Fr>& src, groth16::ProvingKey<E>& pk, ThreadPool& pool) {
  detail::prover_rows(src, pk.A, pk.B, pool);
  pk.a_wires = detail::dense_wires(pk.A, src.n_wires);
  pk.b_wires = detail::dense_wires(pk.B, src.n_wires);
  pk.compact = true;
  pk.h_form = backend::HForm::Coefficients;
}

// ------------------------------------------------------------------ the setup

// `form`: HForm::OddCoset for snarkjs's key, HForm::Coefficients for bellperson's.
template <class E>
groth16::ProvingKey<E> setup(const r1cs::RowSource<typename E::Fr>& src, const ToxicWaste<typename E::Fr>& tw,
                             const FixedBase& fixed, ThreadPool& pool, SetupTimings* timings = nullptr,
                             const std::function<void(const std::string&)>& log = {},
                             backend::HForm form = backend::HForm::OddCoset) {
  using Fr = typename E::Fr;
  const auto t_all = std::chrono::steady_clock::now();
  SetupTimings tm;
  const detail::Sizes sh = detail::sizes_of(src);
  auto say = [&](const std::string& x) {
    if (log) log(x);
  };
  groth16::ProvingKey<E> pk;
  pk.n_vars = sh.m;
  pk.n_public = sh.n_pub;
  pk.domain_size = uint32_t(sh.n);
  pk.log_n = sh.log_n;
  pk.h_form = form;
  const bool bellperson = form == backend::HForm::Coefficients;

  auto t0 = std::chrono::steady_clock::now();
  detail::LagrangeAtTau<Fr> lag =
      detail::lagrange_at_tau(tw.tau, sh, bellperson ? Fr::Params::generator : Fr::Params::nqr, pool);
  tm.lagrange_ms = ms_since(t0);
  say("Lagrange basis at tau over 2^" + std::to_string(sh.log_n) + ": " + std::to_string(int(tm.lagrange_ms)) + " ms");

  t0 = std::chrono::steady_clock::now();
  detail::Columns<Fr> cols = detail::columns_at_tau(src, lag.L, sh, pk.A, pk.B, pool);
  tm.columns_ms = ms_since(t0);
  say("columns A, B, C at tau: " + std::to_string(int(tm.columns_ms)) + " ms");

  t0 = std::chrono::steady_clock::now();
  const Fr gamma_inv = tw.gamma.inv(), delta_inv = tw.delta.inv();
  detail::KeyScalars ks;
  detail::wire_scalars(tw, cols, sh.m, sh.n_pub, gamma_inv, delta_inv, ks, pool);
  if (bellperson) {
    pk.compact = true;
    pk.a_wires = detail::dense_wires(pk.A, sh.m);
    pk.b_wires = detail::dense_wires(pk.B, sh.m);
    detail::compact(ks.a, pk.a_wires, "A");
    detail::compact(ks.b, pk.b_wires, "B");
    ks.h = detail::h_coefficient_scalars(tw, lag, sh, delta_inv, pool);
  } else {
    ks.h = detail::h_scalars(tw, lag, sh, delta_inv, pool);
  }
  std::vector<Fr>().swap(lag.L);
  tm.scalars_ms = ms_since(t0);

  detail::KeyPoints<E> points{fixed, pk};
  t0 = std::chrono::steady_clock::now();
  points.g1_all(tw, ks, sh);
  tm.g1_points = points.g1_points;
  tm.g1_ms = ms_since(t0);
  say("G1 points (" + std::to_string(tm.g1_points) + "): " + std::to_string(int(tm.g1_ms)) + " ms");
  t0 = std::chrono::steady_clock::now();
  tm.g2_points = points.g2_all(tw, ks, sh);
  tm.g2_ms = ms_since(t0);
  say("G2 points (" + std::to_string(tm.g2_points) + "): " + std::to_string(int(tm.g2_ms)) + " ms");
  tm.total_ms = ms_since(t_all);
  if (timings) *timings = tm;
  return pk;
}

}  // namespace cuzk::setup
