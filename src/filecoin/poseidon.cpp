// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/poseidon.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::filecoin {

namespace {

using Fr = PoseidonFr;
using Matrix = PoseidonMatrix;
using Limbs = Fr::Limbs;

// ------------------------------------------------------------------ round numbers

// The inequalities of the Poseidon paper (statistical, interpolation and two Groebner-basis bounds)
// for a 256-bit field and 128-bit security, evaluated in single precision exactly as neptune does:
// a bound's value decides a round number, so the arithmetic must not differ.
bool rounds_are_secure(size_t t, size_t rf, size_t rp) {
  const float rpf = float(rp), tf = float(t), n = 256.0f, m = 128.0f;
  const float bounds[4] = {
      m <= (n - 3.0f) * (tf + 1.0f) ? 6.0f : 10.0f,
      0.43f * m + std::log2(tf) - rpf,
      0.21f * n - rpf,
      (0.14f * n - 1.0f - rpf) / (tf - 1.0f),
  };
  size_t need = 0;
  for (float b : bounds) {
    float c = std::ceil(b);
    need = std::max(need, c > 0.0f ? size_t(c) : size_t(0));  // a negative bound asks for nothing
  }
  return rf >= need;
}

// ------------------------------------------------------------------ Grain LFSR

// The 80-bit Grain LFSR of the Poseidon reference scripts, as a ring of bits: bit(0) is the
// oldest. Each step appends b0 ^ b13 ^ b23 ^ b38 ^ b51 ^ b62 and drops b0.
class Grain {
 public:
  Grain(size_t width, size_t full_rounds, size_t partial_rounds) {
    size_t k = 0;
    auto put = [&](uint64_t value, int bits) {
      for (int i = bits - 1; i >= 0; --i) s_[k++] = uint8_t((value >> i) & 1);
    };
    put(1, 2);       // field: a prime field
    put(1, 4);       // S-box: x^5
    put(255, 12);    // field size in bits
    put(width, 12);  // t
    put(full_rounds, 10);
    put(partial_rounds, 10);
    put((uint64_t(1) << 30) - 1, 30);
    for (int i = 0; i < 160; ++i) step();  // the first 160 bits are discarded
  }

  // Self-shrinking output: bits in pairs; a pair starting with 1 yields its second bit, a pair
  // starting with 0 yields nothing.
  uint8_t next() {
    for (;;) {
      uint8_t a = step(), b = step();
      if (a) return b;
    }
  }

 private:
  uint8_t bit(size_t i) const { return s_[(head_ + i) % 80]; }
  uint8_t step() {
    uint8_t nb = bit(62) ^ bit(51) ^ bit(38) ^ bit(23) ^ bit(13) ^ bit(0);
    s_[head_] = nb;  // the slot of the dropped oldest bit becomes the newest
    head_ = (head_ + 1) % 80;
    return nb;
  }
  std::array<uint8_t, 80> s_{};
  size_t head_ = 0;
};

bool below_modulus(const Limbs& x) {
  for (int i = Fr::N - 1; i >= 0; --i)
    if (x.v[i] != Fr::mod(i)) return x.v[i] < Fr::mod(i);
  return false;
}

// ------------------------------------------------------------------ matrices

Matrix zeros(size_t n) { return Matrix(n, std::vector<Fr>(n, Fr::zero())); }

Matrix transpose(const Matrix& m) {
  Matrix r = zeros(m.size());
  for (size_t i = 0; i < m.size(); ++i)
    for (size_t j = 0; j < m.size(); ++j) r[j][i] = m[i][j];
  return r;
}

Matrix mat_mul(const Matrix& a, const Matrix& b) {
  const size_t n = a.size();
  Matrix r = zeros(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < n; ++k) {
      if (a[i][k].is_zero()) continue;
      for (size_t j = 0; j < n; ++j) r[i][j] += a[i][k] * b[k][j];
    }
  return r;
}

// r[i] = sum_j m[i][j] v[j]
std::vector<Fr> apply_rows(const Matrix& m, std::span<const Fr> v) {
  std::vector<Fr> r(v.size(), Fr::zero());
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = 0; j < v.size(); ++j) r[i] += m[i][j] * v[j];
  return r;
}

// m without row 0 and column 0.
Matrix minor00(const Matrix& m) {
  const size_t n = m.size() - 1;
  Matrix r = zeros(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) r[i][j] = m[i + 1][j + 1];
  return r;
}

// ------------------------------------------------------------------ preprocessing

// neptune's constant compression: every constant is moved backwards through the linear layers
// (by M^-1) so that the hash adds constants only right after S-boxes; across the partial rounds
// only the first element passes an S-box, so all but one constant of each partial round travel
// further back, and what is left of them lands after the last S-box layer of the first half.
std::vector<Fr> compress_constants(const PoseidonConstants& c) {
  const size_t t = c.width, half = c.half_full_rounds, rp = c.partial_rounds;
  auto keys = [&](size_t round) { return std::span<const Fr>(c.round_constants).subspan(round * t, t); };
  auto append = [](std::vector<Fr>& out, std::span<const Fr> v) { out.insert(out.end(), v.begin(), v.end()); };
  std::vector<Fr> out;
  append(out, keys(0));  // before the first S-boxes, unchanged
  for (size_t r = 1; r < half; ++r) append(out, apply_rows(c.mds_inverse, keys(r)));

  // From the first round of the second half back to the first partial round: each partial round
  // keeps element 0 of the inverted accumulator and passes the rest to the round before.
  std::vector<Fr> acc(keys(half + rp).begin(), keys(half + rp).end());
  std::vector<Fr> partial_keys;  // last partial round first
  for (size_t i = 0; i < rp; ++i) {
    std::vector<Fr> inv = apply_rows(c.mds_inverse, acc);
    partial_keys.push_back(inv[0]);
    inv[0] = Fr::zero();
    std::span<const Fr> prev = keys(half + rp - i - 1);
    for (size_t j = 0; j < t; ++j) acc[j] = prev[j] + inv[j];
  }
  append(out, apply_rows(c.mds_inverse, acc));  // after the last S-box layer of the first half
  for (size_t i = partial_keys.size(); i-- > 0;) out.push_back(partial_keys[i]);
  for (size_t r = 1; r < half; ++r) append(out, apply_rows(c.mds_inverse, keys(half + rp + r)));
  return out;
}

// neptune's factorisation of the partial rounds' matrix: starting from C_0 = M^T, each step splits
// the current matrix C into M' (row 0 = e0, below it C's rows with column 0 zeroed) and a sparse
// M'' (C's row 0; column 0 below it C_hat^-1 w, where C_hat is C's minor at (0,0) and w C's column 0
// below row 0), and continues with C_(k+1) = M^T * M'. After R_P steps C is the pre-sparse matrix;
// the sparse matrices apply in the reverse order of their making.
//
// The iteration has a closed form, used here instead of one matrix inverse and one matrix product
// per step: write M^T = [[b00, b0^T], [w, H]]. M' keeps column 0 at e0, so every C_k has the same
// b00 and the same w, its minor is H^(k+1), and its row 0 is [b00, b0^T H^k]. So step k's sparse
// matrix has w_hat = [b00, H^-(k+1) w] and v_rest = b0^T H^k, and the pre-sparse matrix is
// [[b00, b0^T H^R_P], [w, H^(R_P+1)]].
void factor_sparse(PoseidonConstants& c) {
  const size_t t = c.width, n = t - 1;
  const Matrix base = transpose(c.mds);
  const Matrix h = minor00(base);
  const Matrix h_inv = poseidon_matrix_inverse(h);
  std::vector<Fr> w(n), v(base[0].begin() + 1, base[0].end());
  for (size_t i = 0; i < n; ++i) w[i] = base[i + 1][0];
  std::vector<Fr> u = w;  // H^-(k+1) w
  std::vector<PoseidonSparseMatrix> made;
  for (size_t k = 0; k < c.partial_rounds; ++k) {
    u = apply_rows(h_inv, u);
    PoseidonSparseMatrix sm;
    sm.w_hat.push_back(base[0][0]);
    sm.w_hat.insert(sm.w_hat.end(), u.begin(), u.end());
    sm.v_rest = v;
    made.push_back(std::move(sm));
    std::vector<Fr> next(n, Fr::zero());  // v <- v^T H
    for (size_t j = 0; j < n; ++j)
      for (size_t m = 0; m < n; ++m) next[j] += v[m] * h[m][j];
    v = std::move(next);
  }
  // H^(R_P+1) by squaring and multiplying.
  Matrix power = zeros(n), sq = h;
  for (size_t i = 0; i < n; ++i) power[i][i] = Fr::one();
  for (size_t e = c.partial_rounds + 1; e; e >>= 1) {
    if (e & 1) power = mat_mul(power, sq);
    if (e > 1) sq = mat_mul(sq, sq);
  }
  Matrix pre = zeros(t);
  pre[0][0] = base[0][0];
  for (size_t i = 0; i < n; ++i) {
    pre[0][i + 1] = v[i];
    pre[i + 1][0] = w[i];
    for (size_t j = 0; j < n; ++j) pre[i + 1][j + 1] = power[i][j];
  }
  std::reverse(made.begin(), made.end());
  c.pre_sparse_matrix = std::move(pre);
  c.sparse_matrices = std::move(made);
}

PoseidonConstants make_constants(size_t arity) {
  PoseidonConstants c;
  c.arity = arity;
  c.width = arity + 1;
  PoseidonRounds r = poseidon_round_numbers(c.width);
  c.full_rounds = r.full;
  c.half_full_rounds = r.full / 2;
  c.partial_rounds = r.partial;
  c.hash_type = PoseidonHashType::merkle_tree();
  c.domain_tag = poseidon_domain_tag(arity, c.hash_type);
  c.mds = poseidon_mds(c.width);
  c.mds_inverse = poseidon_matrix_inverse(c.mds);
  c.round_constants = poseidon_grain_constants(c.width, c.full_rounds, c.partial_rounds);
  c.compressed_round_constants = compress_constants(c);
  factor_sparse(c);
  if (c.compressed_round_constants.size() != c.width * c.full_rounds + c.partial_rounds)
    throw Error("poseidon: compressed round constants of the wrong count");
  return c;
}

// ------------------------------------------------------------------ the permutation

inline Fr pow5(const Fr& x) {
  Fr x2 = x.sqr();
  return x2.sqr() * x;
}

constexpr size_t kMaxWidth = kPoseidonMaxArity + 1;

// s = M s
void mix_dense(const Matrix& m, std::span<Fr> s) {
  std::array<Fr, kMaxWidth> r;
  const size_t t = s.size();
  for (size_t i = 0; i < t; ++i) {
    const Fr* row = m[i].data();
    Fr acc = row[0] * s[0];
    for (size_t j = 1; j < t; ++j) acc += row[j] * s[j];
    r[i] = acc;
  }
  std::copy(r.begin(), r.begin() + t, s.begin());
}

// s'[j] = sum_i m[i][j] s[i]
void mix_columns(const Matrix& m, std::span<Fr> s) {
  std::array<Fr, kMaxWidth> r;
  const size_t t = s.size();
  for (size_t j = 0; j < t; ++j) {
    Fr acc = m[0][j] * s[0];
    for (size_t i = 1; i < t; ++i) acc += m[i][j] * s[i];
    r[j] = acc;
  }
  std::copy(r.begin(), r.begin() + t, s.begin());
}

void mix_sparse(const PoseidonSparseMatrix& m, std::span<Fr> s) {
  const size_t t = s.size();
  Fr s0 = s[0];
  Fr acc = m.w_hat[0] * s0;
  for (size_t i = 1; i < t; ++i) acc += m.w_hat[i] * s[i];
  for (size_t j = 1; j < t; ++j) s[j] += m.v_rest[j - 1] * s0;
  s[0] = acc;
}

void check_state(const PoseidonConstants& c, std::span<Fr> state) {
  if (state.size() != c.width || c.width > kMaxWidth)
    throw InvalidArgument("poseidon: a state of " + std::to_string(state.size()) + " elements for width " +
                          std::to_string(c.width));
}

Fr hash_with(const PoseidonConstants& c, std::span<const Fr> inputs, bool reference) {
  size_t want = c.hash_type.kind == PoseidonHashType::constant_length ? size_t(c.hash_type.value) : c.arity;
  if (inputs.size() != want)
    throw InvalidArgument("poseidon: arity " + std::to_string(c.arity) + (want != c.arity ? " constant length" : "") +
                          " takes " + std::to_string(want) + " inputs, got " + std::to_string(inputs.size()));
  std::array<Fr, kMaxWidth> st;
  st[0] = c.domain_tag;
  for (size_t i = 1; i < c.width; ++i) st[i] = i <= inputs.size() ? inputs[i - 1] : Fr::zero();
  std::span<Fr> s(st.data(), c.width);
  if (reference)
    poseidon_permute_reference(c, s);
  else
    poseidon_permute(c, s);
  return st[1];
}

bool is_pow(size_t n, size_t base, size_t& k) {
  k = 0;
  if (n == 0) return false;
  while (n % base == 0) n /= base, ++k;
  return n == 1;
}

}  // namespace

// ------------------------------------------------------------------ public functions

PoseidonRounds poseidon_round_numbers(size_t t) {
  if (t < 2) throw InvalidArgument("poseidon: width " + std::to_string(t) + " (at least 2)");
  // neptune's search: for each even R_F, the first secure R_P raises R_F by 2 for the rest of that
  // R_F's search (a quirk of the reference port that its numbers depend on), and R_P gets 7.5% more;
  // the cheapest t * R_F + R_P wins, ties going to the smaller R_F.
  size_t best_rf = 0, best_rp = 0, best_cost = SIZE_MAX;
  for (size_t rf0 = 2; rf0 <= 1000; rf0 += 2) {
    size_t rf = rf0;
    for (size_t rp0 = 4; rp0 < 200; ++rp0) {
      if (!rounds_are_secure(t, rf, rp0)) continue;
      rf += 2;
      size_t rp = size_t(std::ceil(1.075f * float(rp0)));
      size_t cost = t * rf + rp;
      if (cost < best_cost || (cost == best_cost && rf < best_rf)) best_rf = rf, best_rp = rp, best_cost = cost;
    }
  }
  return {best_rf, best_rp};
}

std::vector<PoseidonFr> poseidon_grain_constants(size_t width, size_t full_rounds, size_t partial_rounds) {
  Grain g(width, full_rounds, partial_rounds);
  std::vector<Fr> out;
  out.reserve((full_rounds + partial_rounds) * width);
  while (out.size() < (full_rounds + partial_rounds) * width) {
    Limbs x{};  // 255 bits, the first generated the most significant
    for (int b = 0; b < 255; ++b) {
      for (int i = Fr::N - 1; i > 0; --i) x.v[i] = (x.v[i] << 1) | (x.v[i - 1] >> 63);
      x.v[0] = (x.v[0] << 1) | g.next();
    }
    if (below_modulus(x)) out.push_back(Fr::from_std(x));  // a candidate >= r is skipped
  }
  return out;
}

PoseidonMatrix poseidon_mds(size_t t) {
  Matrix m = zeros(t);
  for (size_t i = 0; i < t; ++i)
    for (size_t j = 0; j < t; ++j) m[i][j] = Fr::from_u64(uint64_t(i + t + j)).inv();  // 1 / (x_i + y_j)
  return m;
}

PoseidonMatrix poseidon_matrix_inverse(const PoseidonMatrix& m) {
  const size_t n = m.size();
  Matrix a = m, r = zeros(n);
  for (size_t i = 0; i < n; ++i) {
    if (a[i].size() != n) throw InvalidArgument("poseidon: matrix inverse of a non-square matrix");
    r[i][i] = Fr::one();
  }
  for (size_t col = 0; col < n; ++col) {
    size_t p = col;
    while (p < n && a[p][col].is_zero()) ++p;
    if (p == n) throw InvalidArgument("poseidon: singular matrix");
    std::swap(a[p], a[col]);
    std::swap(r[p], r[col]);
    Fr inv = a[col][col].inv();
    for (size_t j = 0; j < n; ++j) a[col][j] *= inv, r[col][j] *= inv;
    for (size_t i = 0; i < n; ++i) {
      if (i == col || a[i][col].is_zero()) continue;
      Fr f = a[i][col];
      for (size_t j = 0; j < n; ++j) a[i][j] -= f * a[col][j], r[i][j] -= f * r[col][j];
    }
  }
  return r;
}

PoseidonFr poseidon_domain_tag(size_t arity, PoseidonHashType type) {
  if (arity < 1 || arity > kPoseidonMaxArity)
    throw InvalidArgument("poseidon: arity " + std::to_string(arity) + " (neptune defines 1 to 36)");
  Limbs x{};
  switch (type.kind) {
    case PoseidonHashType::merkle:
      x.v[0] = (uint64_t(1) << arity) - 1;
      break;
    case PoseidonHashType::constant_length:
      if (type.value < 1 || type.value > arity)
        throw InvalidArgument("poseidon: constant length " + std::to_string(type.value) + " for arity " +
                              std::to_string(arity) + " (1 to the arity)");
      x.v[1] = type.value;  // L * 2^64
      break;
    case PoseidonHashType::custom:
      if (type.value < 1 || type.value > 256)
        throw InvalidArgument("poseidon: custom domain tag id " + std::to_string(type.value) + " (1 to 256)");
      x.v[0] = type.value << 40;
      break;
  }
  return Fr::from_std(x);
}

const PoseidonConstants& poseidon_constants(size_t arity, PoseidonHashType type) {
  Fr tag = poseidon_domain_tag(arity, type);  // validates arity and tag
  static std::mutex mu;
  static std::map<size_t, std::unique_ptr<const PoseidonConstants>> per_arity;
  static std::map<std::tuple<size_t, int, uint64_t>, std::unique_ptr<const PoseidonConstants>> per_type;
  std::lock_guard<std::mutex> lock(mu);
  auto& base = per_arity[arity];
  if (!base) base = std::make_unique<const PoseidonConstants>(make_constants(arity));
  if (type == PoseidonHashType::merkle_tree()) return *base;
  auto& slot = per_type[{arity, int(type.kind), type.value}];
  if (!slot) {
    auto c = std::make_unique<PoseidonConstants>(*base);
    c->hash_type = type;
    c->domain_tag = tag;
    slot = std::move(c);
  }
  return *slot;
}

void poseidon_permute_reference(const PoseidonConstants& c, std::span<PoseidonFr> s) {
  check_state(c, s);
  const size_t t = c.width;
  const Fr* rc = c.round_constants.data();
  auto full = [&] {
    for (size_t i = 0; i < t; ++i) s[i] = pow5(s[i] + rc[i]);
    rc += t;
    mix_dense(c.mds, s);
  };
  for (size_t r = 0; r < c.half_full_rounds; ++r) full();
  for (size_t r = 0; r < c.partial_rounds; ++r) {
    for (size_t i = 0; i < t; ++i) s[i] += rc[i];
    rc += t;
    s[0] = pow5(s[0]);
    mix_dense(c.mds, s);
  }
  for (size_t r = 0; r < c.half_full_rounds; ++r) full();
}

void poseidon_permute(const PoseidonConstants& c, std::span<PoseidonFr> s) {
  check_state(c, s);
  const size_t t = c.width, half = c.half_full_rounds;
  const Fr* k = c.compressed_round_constants.data();
  for (size_t i = 0; i < t; ++i) s[i] += k[i];
  k += t;
  // Full rounds of the first half: S-boxes then the constants moved after them; the last of them
  // mixes with the pre-sparse matrix.
  for (size_t r = 0; r < half; ++r) {
    for (size_t i = 0; i < t; ++i) s[i] = pow5(s[i]) + k[i];
    k += t;
    if (r + 1 == half)
      mix_columns(c.pre_sparse_matrix, s);
    else
      mix_dense(c.mds, s);
  }
  for (size_t r = 0; r < c.partial_rounds; ++r) {
    s[0] = pow5(s[0]) + *k++;
    mix_sparse(c.sparse_matrices[r], s);
  }
  for (size_t r = 1; r < half; ++r) {
    for (size_t i = 0; i < t; ++i) s[i] = pow5(s[i]) + k[i];
    k += t;
    mix_dense(c.mds, s);
  }
  for (size_t i = 0; i < t; ++i) s[i] = pow5(s[i]);  // the last S-boxes have no constant after them
  mix_dense(c.mds, s);
}

PoseidonFr poseidon_hash(const PoseidonConstants& c, std::span<const PoseidonFr> inputs) {
  return hash_with(c, inputs, false);
}

PoseidonFr poseidon_hash_reference(const PoseidonConstants& c, std::span<const PoseidonFr> inputs) {
  return hash_with(c, inputs, true);
}

PoseidonFr poseidon_tree_root(std::span<const PoseidonFr> leaves, size_t base_arity, size_t sub_arity, size_t top_arity,
                              ThreadPool& pool) {
  auto shape = [&] {
    return std::to_string(base_arity) + "-" + std::to_string(sub_arity) + "-" + std::to_string(top_arity);
  };
  auto arity_ok = [](size_t a) { return a >= 2 && a <= kPoseidonMaxArity; };
  if (!arity_ok(base_arity) || (sub_arity && !arity_ok(sub_arity)) || (top_arity && !arity_ok(top_arity)))
    throw InvalidArgument("poseidon tree " + shape() + ": each arity must be 2 to 36 (0 for no sub or top layer)");
  if (top_arity && !sub_arity) throw InvalidArgument("poseidon tree " + shape() + ": a top layer needs a sub layer");
  const size_t trees = std::max<size_t>(sub_arity, 1) * std::max<size_t>(top_arity, 1);
  size_t levels = 0;
  if (leaves.size() % trees != 0 || !is_pow(leaves.size() / trees, base_arity, levels) || levels == 0)
    throw InvalidArgument("poseidon tree " + shape() + ": " + std::to_string(leaves.size()) + " leaves, not " +
                          std::to_string(trees) + " base trees of " + std::to_string(base_arity) +
                          "^k leaves (k >= 1)");

  // The base trees are contiguous and alike, so hashing the whole row level by level makes all
  // their roots at once; the sub and top layers are one more level each.
  std::vector<size_t> arities(levels, base_arity);
  if (sub_arity) arities.push_back(sub_arity);
  if (top_arity) arities.push_back(top_arity);
  std::vector<Fr> cur, next;
  const Fr* src = leaves.data();
  size_t n = leaves.size();
  for (size_t a : arities) {
    const PoseidonConstants& c = poseidon_constants(a);
    next.resize(n / a);
    pool.parallel_for(
        next.size(),
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) next[i] = poseidon_hash(c, std::span<const Fr>(src + i * a, a));
        },
        16);
    std::swap(cur, next);
    src = cur.data();
    n = cur.size();
  }
  return cur[0];
}

PoseidonFr poseidon_fr_from_string(const std::string& text, const std::string& what) {
  auto fail = [&](const std::string& why) -> InvalidArgument {
    return InvalidArgument(what + " ('" + text + "'): " + why);
  };
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (text.empty() || text == "0x" || text == "0X") throw fail("not a number (0x-hex or decimal digits)");
  Limbs x{};
  const unsigned base = hex ? 16 : 10;
  for (size_t i = hex ? 2 : 0; i < text.size(); ++i) {
    char ch = text[i];
    unsigned d;
    if (ch >= '0' && ch <= '9')
      d = unsigned(ch - '0');
    else if (hex && ch >= 'a' && ch <= 'f')
      d = unsigned(ch - 'a' + 10);
    else if (hex && ch >= 'A' && ch <= 'F')
      d = unsigned(ch - 'A' + 10);
    else
      throw fail(std::string("not a number: unexpected '") + ch + "' (0x-hex or decimal digits)");
    unsigned __int128 carry = d;
    for (int j = 0; j < Fr::N; ++j) {
      unsigned __int128 v = (unsigned __int128)x.v[j] * base + carry;
      x.v[j] = uint64_t(v);
      carry = v >> 64;
    }
    if (carry) throw fail("not a field element: at least 2^256, and BLS12-381's r is below 2^255");
  }
  if (!below_modulus(x))
    throw fail(std::string("not a field element: not below BLS12-381's r = ") + Fr::Params::modulus);
  return Fr::from_std(x);
}

std::string poseidon_fr_to_hex(const PoseidonFr& x) {
  Limbs v = x.to_std();
  char buf[2 + 64 + 1];
  std::snprintf(buf, sizeof buf, "0x%016llx%016llx%016llx%016llx", (unsigned long long)v.v[3],
                (unsigned long long)v.v[2], (unsigned long long)v.v[1], (unsigned long long)v.v[0]);
  return buf;
}

}  // namespace cuzk::filecoin
