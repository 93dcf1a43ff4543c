// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthetic Groth16 circuits at any size, generated row by row from a seed (nothing is stored),
// with satisfying witnesses for as many partitions as wanted.
//
// Shape "porep" imitates a Filecoin PoRep partition: private inputs are bits (each constrained
// boolean), and every internal wire is a bit made from earlier bits (XOR, AND, choose) or a small
// packed integer of 8 bits, so most witness values are 0 or 1; about 5.5 non-zeros per constraint
// (PoRep: 722 M over 130 M). Shape "dense": every wire a random-looking field element,
// x = (r1 x1 + r2 x2) (r3 x3 + r4), 6 non-zeros per constraint.
//
// Layout: wire 0 = ONE; wires 1..n_public = public inputs; then n_inputs private inputs; then
// one wire per remaining constraint. Internal constraints form independent lanes of kLane rows
// whose operands are earlier wires of the same lane (up to 64 back) or private inputs, so a
// witness is computed lane by lane in parallel. The constraint count fills the domain 2^log_n
// exactly (with the n_public + 1 rows the key adds).
#pragma once
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cpu/msm.hpp"
#include "r1cs/rows.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::setup {

enum class Shape { Porep, Dense };

inline const char* shape_name(Shape s) { return s == Shape::Porep ? "porep" : "dense"; }
inline Shape parse_shape(const std::string& s) {
  if (s == "porep") return Shape::Porep;
  if (s == "dense") return Shape::Dense;
  throw InvalidArgument("unknown circuit shape '" + s + "' (expected porep or dense)");
}

struct SyntheticSpec {
  Shape shape = Shape::Porep;
  int log_n = 10;           // the domain 2^log_n the key will have
  uint64_t seed = 1;        // the circuit's structure
  uint32_t n_public = 2;    // public inputs (like PoRep's comm_r / comm_d)
  uint32_t n_inputs = 256;  // private inputs
};

namespace synth_detail {
inline uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
inline uint64_t h3(uint64_t a, uint64_t b, uint64_t c) { return mix(mix(mix(a) ^ b) ^ c); }
}  // namespace synth_detail

template <class Fr>
class SyntheticCircuit {
 public:
  static constexpr size_t kLane = 4096;
  static constexpr uint32_t kWindow = 64;
  enum Kind : uint8_t { Xor, And, Choose, Pack, Dense };

  explicit SyntheticCircuit(const SyntheticSpec& spec) : spec_(spec) {
    if (spec.log_n < 2 || spec.log_n > 30)
      throw InvalidArgument("--log-n " + std::to_string(spec.log_n) + " is out of range (2..30)");
    const size_t domain = size_t(1) << spec.log_n;
    if (spec.n_inputs == 0) throw InvalidArgument("a synthetic circuit needs at least one private input");
    if (size_t(spec.n_public) + 1 + spec.n_inputs + 1 > domain)
      throw InvalidArgument("2^" + std::to_string(spec.log_n) + " is too small for " + std::to_string(spec.n_public) +
                            " public and " + std::to_string(spec.n_inputs) + " private inputs");
    n_rows_ = domain - spec.n_public - 1;
    n_checks_ = spec.shape == Shape::Porep ? spec.n_inputs : 0;
    if (n_rows_ <= n_checks_) throw InvalidArgument("the domain leaves no room for internal constraints");
    n_internal_ = n_rows_ - n_checks_;
    first_input_ = 1 + spec.n_public;
    first_internal_ = first_input_ + spec.n_inputs;
    const size_t wires = size_t(first_internal_) + n_internal_;
    if (wires > UINT32_MAX) throw InvalidArgument("too many wires for a .r1cs file");
    n_wires_ = uint32_t(wires);
    one_ = Fr::one();
    two_ = Fr::from_u64(2);
    minus_one_ = -one_;
  }

  const SyntheticSpec& spec() const { return spec_; }
  uint32_t n_wires() const { return n_wires_; }
  uint32_t n_public() const { return spec_.n_public; }
  size_t n_rows() const { return n_rows_; }

  r1cs::RowSource<Fr> source() const {
    r1cs::RowSource<Fr> s;
    s.n_wires = n_wires_;
    s.n_pub_out = 0;
    s.n_pub_in = spec_.n_public;
    s.n_prv_in = spec_.n_inputs;
    s.n_rows = n_rows_;
    s.row = [this](size_t i, r1cs::Row<Fr>& out) { row(i, out); };
    return s;
  }

  void row(size_t i, r1cs::Row<Fr>& out) const {
    out.clear();
    if (i < n_checks_) {  // b (b - 1) = 0
      const uint32_t b = first_input_ + uint32_t(i);
      out.a.add(b, one_);
      out.b.add(b, one_);
      out.b.add(0, minus_one_);
      out.b.normalize();
      return;
    }
    const size_t t = i - n_checks_;
    const uint32_t self = first_internal_ + uint32_t(t);
    uint32_t op[8];
    switch (kind(t)) {
      case Xor:  // (2a) b = a + b - c
        op[0] = operand(t, 0), op[1] = operand(t, 1);
        out.a.add(op[0], two_);
        out.b.add(op[1], one_);
        out.c.add(op[0], one_), out.c.add(op[1], one_), out.c.add(self, minus_one_);
        break;
      case And:  // a b = c
        op[0] = operand(t, 0), op[1] = operand(t, 1);
        out.a.add(op[0], one_);
        out.b.add(op[1], one_);
        out.c.add(self, one_);
        break;
      case Choose:  // a (b - d) = c - d
        op[0] = operand(t, 0), op[1] = operand(t, 1), op[2] = operand(t, 2);
        out.a.add(op[0], one_);
        out.b.add(op[1], one_), out.b.add(op[2], minus_one_);
        out.c.add(self, one_), out.c.add(op[2], minus_one_);
        break;
      case Pack: {  // (sum 2^k b_k) 1 = c
        for (int k = 0; k < 8; ++k) out.a.add(operand(t, k), Fr::from_u64(uint64_t(1) << k));
        out.b.add(0, one_);
        out.c.add(self, one_);
        break;
      }
      case Dense: {  // (r1 x1 + r2 x2) (r3 x3 + r4) = c
        out.a.add(operand(t, 0), coef(t, 0)), out.a.add(operand(t, 1), coef(t, 1));
        out.b.add(operand(t, 2), coef(t, 2)), out.b.add(0, coef(t, 3));
        out.c.add(self, one_);
        break;
      }
    }
    out.a.normalize(), out.b.normalize(), out.c.normalize();
  }

  // A satisfying witness (standard form, n_wires values) for partition `p`: its inputs are
  // drawn from (spec seed, p), so every partition differs. Every value is written, so V may be
  // a FillVector (no zeroing before the lanes fill it in parallel).
  template <class V = std::vector<cpu::Scalar>>
  V witness(uint64_t p, ThreadPool& pool) const {
    V w(n_wires_);
    witness_into(p, w, pool);
    return w;
  }
  // The same values written into `w` (n_wires of them; any memory: every value is written).
  void witness_into(uint64_t p, std::span<cpu::Scalar> w, ThreadPool& pool) const {
    if (w.size() != n_wires_)
      throw InvalidArgument("synthetic witness: " + std::to_string(w.size()) + " values asked, the circuit has " +
                            std::to_string(n_wires_));
    std::vector<Fr> v;  // field values (dense shape only)
    const bool dense = spec_.shape == Shape::Dense;
    auto field_of = [&](uint64_t a, uint64_t b) {
      typename Fr::Limbs x;
      for (int k = 0; k < 4; ++k) x.v[k] = synth_detail::h3(a, b, 0x5eed0000ull + k);
      x.v[3] &= 0x0fffffffffffffffull;  // < 2^252 < r
      return Fr::from_std(x);
    };
    w[0] = cpu::Scalar{{1, 0, 0, 0}};
    for (uint32_t k = 0; k < spec_.n_public; ++k) w[1 + k] = field_of(spec_.seed ^ p, 0x9000 + k).to_std();
    if (dense) v.resize(n_wires_);
    if (dense) v[0] = one_;
    for (uint32_t k = 0; k < spec_.n_inputs; ++k) {
      const uint32_t wi = first_input_ + k;
      if (dense) {
        v[wi] = field_of(spec_.seed ^ p, 0xa0000 + k);
        w[wi] = v[wi].to_std();
      } else {
        w[wi] = cpu::Scalar{{synth_detail::h3(spec_.seed, p, k) & 1, 0, 0, 0}};
      }
    }
    const size_t lanes = (n_internal_ + kLane - 1) / kLane;
    const uint64_t mixed_seed = synth_detail::mix(spec_.seed);
    pool.parallel_for(lanes, [&](size_t lb, size_t le) {
      Kind kinds[kLane];
      for (size_t lane = lb; lane < le; ++lane) {
        const size_t t0 = lane * kLane, t1 = std::min(n_internal_, t0 + kLane);
        for (size_t t = t0; t < t1; ++t) {
          const uint32_t self = first_internal_ + uint32_t(t);
          if (dense) {
            Fr x = coef(t, 0) * v[operand(t, 0)] + coef(t, 1) * v[operand(t, 1)];
            Fr y = coef(t, 2) * v[operand(t, 2)] + coef(t, 3);
            v[self] = x * y;
            w[self] = v[self].to_std();
            continue;
          }
          // kind(t) and operand(t, k) as row() has them, with the hashes' common prefix
          // h3(seed, t, .) = mix(mix(mix(seed) ^ t) ^ .) made once a row and the lane's kinds
          // kept (an operand d rows back is a bit unless that row packs).
          const size_t pos = t - t0;
          const uint64_t pre = synth_detail::mix(mixed_seed ^ t);
          const Kind kt = kinds[pos] = porep_kind(synth_detail::mix(pre ^ 0xc0de));
          auto bit = [&](int k) {
            const uint64_t h = synth_detail::mix(pre ^ (0x0be0 + uint64_t(k)));
            const size_t d = 1 + h % kWindow;
            const uint32_t wire = d <= pos && kinds[pos - d] != Pack
                                      ? first_internal_ + uint32_t(t - d)
                                      : first_input_ + uint32_t((h >> 16) % spec_.n_inputs);
            return w[wire].v[0];
          };
          uint64_t val = 0;
          switch (kt) {
            case Xor:
              val = bit(0) ^ bit(1);
              break;
            case And:
              val = bit(0) & bit(1);
              break;
            case Choose:
              val = bit(0) ? bit(1) : bit(2);
              break;
            case Pack:
              for (int k = 0; k < 8; ++k) val += bit(k) << k;
              break;
            default:
              break;
          }
          w[self] = cpu::Scalar{{val, 0, 0, 0}};
        }
      }
    });
  }

 private:
  Kind kind(size_t t) const {
    if (spec_.shape == Shape::Dense) return Dense;
    return porep_kind(synth_detail::h3(spec_.seed, t, 0xc0de));
  }
  static Kind porep_kind(uint64_t h) {
    const uint64_t u = h % 100;
    return u < 35 ? Xor : u < 55 ? And : u < 80 ? Choose : Pack;
  }
  // The k-th operand of internal row t: a wire up to kWindow back in the same lane (a bit, for
  // porep: never a packed wire), else a private input.
  uint32_t operand(size_t t, int k) const {
    const uint64_t h = synth_detail::h3(spec_.seed, t, 0x0be0 + k);
    const size_t pos = t % kLane;
    const size_t d = 1 + h % kWindow;
    if (d <= pos && (spec_.shape == Shape::Dense || kind(t - d) != Pack)) return first_internal_ + uint32_t(t - d);
    return first_input_ + uint32_t((h >> 16) % spec_.n_inputs);
  }
  Fr coef(size_t t, int k) const {
    typename Fr::Limbs x;
    for (int j = 0; j < 4; ++j) x.v[j] = synth_detail::h3(spec_.seed ^ 0xc0ef, t, 4 * k + j);
    x.v[3] &= 0x0fffffffffffffffull;
    return Fr::from_std(x);
  }

  SyntheticSpec spec_;
  size_t n_rows_ = 0, n_checks_ = 0, n_internal_ = 0;
  uint32_t first_input_ = 0, first_internal_ = 0, n_wires_ = 0;
  Fr one_, two_, minus_one_;
};

}  // namespace cuzk::setup
