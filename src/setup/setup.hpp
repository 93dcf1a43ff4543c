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
    for (Fr* x : {&t.tau, &t.alpha, &t.beta, &t.gamma, &t.delta})
      do *x = random_field<Fr>(rs);
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
      cpu::FixedBaseTable<typename E::G1> t(cpu::generator<typename E::G1>(), pool);
      t.mul(k, n, static_cast<typename E::G1Affine*>(out), pool);
    } else {
      cpu::FixedBaseTable<typename E::G2> t(cpu::generator<typename E::G2>(), pool);
      t.mul(k, n, static_cast<typename E::G2Affine*>(out), pool);
    }
  };
}

// ------------------------------------------------------------------ the setup

template <class E>
groth16::ProvingKey<E> setup(const r1cs::RowSource<typename E::Fr>& src, const ToxicWaste<typename E::Fr>& tw,
                             const FixedBase& fixed, ThreadPool& pool, SetupTimings* timings = nullptr,
                             const std::function<void(const std::string&)>& log = {}) {
  using Fr = typename E::Fr;
  using Scalar = cpu::Scalar;
  constexpr int s = Fr::Params::two_adicity;
  const auto t_all = std::chrono::steady_clock::now();
  SetupTimings tm;
  const uint32_t n_pub = src.n_public();
  const uint32_t m = src.n_wires;
  if (m < n_pub + 1) throw InvalidArgument("the circuit has fewer wires than public inputs + 1");
  const size_t rows_total = src.n_rows + n_pub + 1;
  int log_n = 0;
  while ((size_t(1) << log_n) < rows_total) ++log_n;
  if (log_n > s)
    throw InvalidArgument("the circuit needs a domain of 2^" + std::to_string(log_n) + ", more than this field's 2^" +
                          std::to_string(s));
  const size_t n = size_t(1) << log_n;
  auto say = [&](const std::string& x) {
    if (log) log(x);
  };

  groth16::ProvingKey<E> pk;
  pk.n_vars = m;
  pk.n_public = n_pub;
  pk.domain_size = uint32_t(n);
  pk.log_n = log_n;

  // ---- Lagrange basis at tau: L_i = (tau^n - 1)/n * w^i / (tau - w^i)
  auto t0 = std::chrono::steady_clock::now();
  const Fr omega = cpu::root_of_unity<Fr>(log_n);
  const Fr tau_n = tw.tau.pow_u64(n);
  const Fr zt = tau_n - Fr::one();
  if (zt.is_zero()) throw InvalidArgument("tau lies in the domain; draw another");
  const Fr zn = zt * Fr::from_u64(n).inv();
  std::vector<Fr> L(n);
  constexpr size_t kChunk = 1 << 14;
  const size_t chunks = (n + kChunk - 1) / kChunk;
  // Each chunk starts at w^lo, computed by a power.
  pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
    std::vector<Fr> d(kChunk), scratch(kChunk);
    for (size_t ch = cb; ch < ce; ++ch) {
      const size_t lo = ch * kChunk, hi = std::min(n, lo + kChunk);
      Fr wi = omega.pow_u64(lo);
      for (size_t i = lo; i < hi; ++i) {
        d[i - lo] = tw.tau - wi;
        L[i] = wi;
        wi = wi * omega;
      }
      ff::batch_inverse(d.data(), hi - lo, scratch.data());
      for (size_t i = lo; i < hi; ++i) L[i] = zn * L[i] * d[i - lo];
    }
  });
  tm.lagrange_ms = ms_since(t0);
  say("Lagrange basis at tau over 2^" + std::to_string(log_n) + ": " + std::to_string(int(tm.lagrange_ms)) + " ms");

  // ---- columns u, v, w (and the prover's CSR of A and B, values scaled by R as in a .zkey)
  t0 = std::chrono::steady_clock::now();
  std::vector<Fr> u(m, Fr::zero()), v(m, Fr::zero()), w(m, Fr::zero());
  Fr rscale;
  {
    typename Fr::Limbs one_raw;
    Fr o = Fr::one();
    std::memcpy(one_raw.v, o.l, sizeof one_raw.v);
    rscale = Fr::from_std(one_raw);  // the value R mod r
  }
  // One parallel pass per matrix: row chunks emit (wire, coef * L_i) into buckets by wire range
  // (and, for A and B, their CSR rows); then each wire range is summed by one task. No two tasks
  // write the same accumulator, and the rows are generated once per matrix.
  const size_t row_chunks = std::max<size_t>(1, std::min<size_t>(4096, src.n_rows / 4096));
  const size_t ranges = std::max<size_t>(1, std::min<size_t>(256, m / 4096));
  auto range_of = [&](uint32_t j) { return size_t(j) * ranges / m; };
  struct Entry {
    uint32_t wire;
    Fr value;
  };
  std::vector<std::string> bad(row_chunks);
  for (int mat = 0; mat < 3; ++mat) {
    std::vector<Fr>& acc = mat == 0 ? u : mat == 1 ? v : w;
    groth16::Csr<Fr>* csr = mat == 0 ? &pk.A : mat == 1 ? &pk.B : nullptr;
    // buckets[chunk][range]
    std::vector<std::vector<std::vector<Entry>>> buckets(row_chunks, std::vector<std::vector<Entry>>(ranges));
    std::vector<std::vector<uint32_t>> cols(csr ? row_chunks : 0);
    std::vector<std::vector<Fr>> vals(csr ? row_chunks : 0);
    std::vector<std::vector<uint32_t>> row_len(csr ? row_chunks : 0);
    pool.parallel_for(row_chunks, [&](size_t cb, size_t ce) {
      r1cs::Row<Fr> row;
      for (size_t ch = cb; ch < ce; ++ch) {
        const size_t lo = src.n_rows * ch / row_chunks, hi = src.n_rows * (ch + 1) / row_chunks;
        for (size_t i = lo; i < hi; ++i) {
          src.row(i, row);
          const r1cs::LinComb<Fr>& lc = mat == 0 ? row.a : mat == 1 ? row.b : row.c;
          for (size_t k = 0; k < lc.size(); ++k) {
            const uint32_t j = lc.wire[k];
            if (j >= m) {
              if (bad[ch].empty())
                bad[ch] = "constraint " + std::to_string(i) + " uses wire " + std::to_string(j) + " of " + std::to_string(m);
              continue;
            }
            buckets[ch][range_of(j)].push_back({j, lc.coef[k] * L[i]});
            if (csr) {
              cols[ch].push_back(j);
              vals[ch].push_back(lc.coef[k] * rscale);
            }
          }
          if (csr) row_len[ch].push_back(uint32_t(lc.size()));
        }
      }
    });
    for (auto& b : bad)
      if (!b.empty()) throw InvalidArgument(b);
    pool.parallel_for(ranges, [&](size_t rb, size_t re) {
      for (size_t r = rb; r < re; ++r)
        for (size_t ch = 0; ch < row_chunks; ++ch) {
          for (const Entry& e : buckets[ch][r]) acc[e.wire] += e.value;
          std::vector<Entry>().swap(buckets[ch][r]);
        }
    });
    if (mat == 0)  // the public-input rows: A[rows + j][j] = 1
      for (uint32_t j = 0; j <= n_pub; ++j) acc[j] += L[src.n_rows + j];
    if (csr) {
      size_t total = 0;
      for (auto& c : cols) total += c.size();
      if (total + n_pub + 1 >= UINT32_MAX)
        throw InvalidArgument("more than 2^32 terms in one matrix: too many for the key's 32-bit rows");
      csr->row_ptr.assign(n + 1, 0);
      csr->col.reserve(total + (mat == 0 ? n_pub + 1 : 0));
      csr->val.reserve(total + (mat == 0 ? n_pub + 1 : 0));
      size_t i = 0;
      for (size_t ch = 0; ch < row_chunks; ++ch) {
        for (uint32_t len : row_len[ch]) {
          csr->row_ptr[i + 1] = csr->row_ptr[i] + len;
          ++i;
        }
        csr->col.insert(csr->col.end(), cols[ch].begin(), cols[ch].end());
        csr->val.insert(csr->val.end(), vals[ch].begin(), vals[ch].end());
        std::vector<uint32_t>().swap(cols[ch]);
        std::vector<Fr>().swap(vals[ch]);
      }
      if (mat == 0)
        for (uint32_t j = 0; j <= n_pub; ++j) {
          csr->col.push_back(j);
          csr->val.push_back(rscale);
          csr->row_ptr[src.n_rows + j + 1] = uint32_t(csr->col.size());
        }
      for (size_t r = 1; r <= n; ++r) csr->row_ptr[r] = std::max(csr->row_ptr[r], csr->row_ptr[r - 1]);
    }
  }
  tm.columns_ms = ms_since(t0);
  say("columns A, B, C at tau: " + std::to_string(int(tm.columns_ms)) + " ms");

  // ---- scalars
  t0 = std::chrono::steady_clock::now();
  const Fr gamma_inv = tw.gamma.inv(), delta_inv = tw.delta.inv();
  std::vector<Scalar> ka(m), kb(m), kl(m);
  pool.parallel_for(m, [&](size_t lo, size_t hi) {
    for (size_t j = lo; j < hi; ++j) {
      ka[j] = u[j].to_std();
      kb[j] = v[j].to_std();
      kl[j] = ((tw.beta * u[j] + tw.alpha * v[j] + w[j]) * (j <= n_pub ? gamma_inv : delta_inv)).to_std();
    }
  }, 4096);
  std::vector<Fr>().swap(u), std::vector<Fr>().swap(v), std::vector<Fr>().swap(w);
  // H_i = L^coset_i(tau) Z(tau) / (g^n - 1) / delta, L^coset_i(tau) = (tau^n - g^n) p_i / (n g^n (tau - p_i)),
  // p_i = g w^i. The factor common to all i:
  const Fr g = cpu::h_coset<Fr>(log_n);
  const Fr gn = g.pow_u64(n);
  const Fr common = (tau_n - gn) * (Fr::from_u64(n) * gn).inv() * zt * (gn - Fr::one()).inv() * delta_inv;
  std::vector<Scalar> kh(n);
  pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
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
  std::vector<Fr>().swap(L);
  tm.scalars_ms = ms_since(t0);

  // ---- fixed-base multiplications
  auto g1 = [&](const Scalar* k, size_t cnt) {
    std::vector<typename E::G1Affine> out(cnt);
    fixed(FixedGroup::G1, k, cnt, out.data());
    tm.g1_points += cnt;
    return out;
  };
  auto single1 = [&](const Fr& x) {
    Scalar k = x.to_std();
    return g1(&k, 1)[0];
  };
  auto single2 = [&](const Fr& x) {
    Scalar k = x.to_std();
    std::vector<typename E::G2Affine> out(1);
    fixed(FixedGroup::G2, &k, 1, out.data());
    return out[0];
  };
  t0 = std::chrono::steady_clock::now();
  pk.alpha1 = single1(tw.alpha);
  pk.beta1 = single1(tw.beta);
  pk.delta1 = single1(tw.delta);
  pk.a = g1(ka.data(), m);
  std::vector<Scalar>().swap(ka);
  pk.b1 = g1(kb.data(), m);
  pk.ic = g1(kl.data(), n_pub + 1);
  pk.c = g1(kl.data() + n_pub + 1, m - n_pub - 1);
  std::vector<Scalar>().swap(kl);
  pk.h = g1(kh.data(), n);
  std::vector<Scalar>().swap(kh);
  tm.g1_ms = ms_since(t0);
  say("G1 points (" + std::to_string(tm.g1_points) + "): " + std::to_string(int(tm.g1_ms)) + " ms");
  t0 = std::chrono::steady_clock::now();
  pk.beta2 = single2(tw.beta);
  pk.gamma2 = single2(tw.gamma);
  pk.delta2 = single2(tw.delta);
  pk.b2.resize(m);
  fixed(FixedGroup::G2, kb.data(), m, pk.b2.data());
  std::vector<Scalar>().swap(kb);
  tm.g2_points = m + 3;
  tm.g2_ms = ms_since(t0);
  say("G2 points (" + std::to_string(tm.g2_points) + "): " + std::to_string(int(tm.g2_ms)) + " ms");
  tm.total_ms = ms_since(t_all);
  if (timings) *timings = tm;
  return pk;
}

}  // namespace cuzk::setup
