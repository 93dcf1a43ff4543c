// SPDX-License-Identifier: MIT OR Apache-2.0
// The constraint system layer and its gadgets: bellpepper's linear-combination semantics, the
// published constraint counts of the SHA-256 gadgets and create_label, values against the plain
// SHA-256, every gadget's witness satisfying its rows (and a changed value breaking them), the
// back ends agreeing with each other, and the fingerprint.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "circuit/catalog.hpp"
#include "circuit/fingerprint.hpp"
#include "ff/bls12_381.hpp"
#include "filecoin/sha256.hpp"
#include "r1cs/rows.hpp"
#include "testing.hpp"
#include "util/rng.hpp"
#include "util/small_vector.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using Fr = ff::Bls12381Fr;
constexpr size_t kNone = std::numeric_limits<size_t>::max();

namespace {

template <class Build>
Shape shape_of(Build&& build) {
  ShapeCs<Fr> cs;
  build(cs);
  return cs.shape();
}

std::vector<uint8_t> random_bytes(SeededRng& rng, size_t n) {
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = uint8_t(rng.next());
  return b;
}

std::vector<Boolean> alloc_bytes_be(RecordCs<Fr>& cs, const std::vector<uint8_t>& bytes) {
  return bytes_into_boolean_vec_be(cs, std::span<const uint8_t>(bytes), bytes.size() * 8);
}

std::vector<uint8_t> bits_be_to_bytes(const std::vector<Boolean>& bits) {
  std::vector<uint8_t> out(bits.size() / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i)
    if (bits[i].value()) out[i / 8] |= uint8_t(1u << (7 - i % 8));
  return out;
}

Fr fr_of_le_bytes(const std::array<uint8_t, 32>& b) {
  Fr::Limbs l{};
  for (int i = 0; i < 32; ++i) l.v[i / 8] |= uint64_t(b[i]) << (8 * (i % 8));
  return Fr::from_std(l);
}

// A changed value must break some row: each sampled aux value gets one bit of its standard form
// flipped, then put back.
void check_flips_break(RecordCs<Fr>& cs, uint64_t seed, size_t samples) {
  CHECK_MSG(cs.is_satisfied(), "unsatisfied before any change, row " + std::to_string(cs.first_unsatisfied()));
  SeededRng rng(seed);
  const size_t n = cs.aux.size();
  CHECK(n > 0);
  for (size_t s = 0; s < std::min(samples, n); ++s) {
    const size_t j = samples >= n ? s : size_t(rng.next() % n);
    const Fr keep = cs.aux[j];
    auto l = keep.to_std();
    const int bit = int(rng.next() % 250);
    l.v[bit / 64] ^= 1ull << (bit % 64);
    cs.aux[j] = Fr::from_std(l);
    CHECK_MSG(!cs.is_satisfied(),
              "aux " + std::to_string(j) + " changed at bit " + std::to_string(bit) + " and every row still holds");
    cs.aux[j] = keep;
  }
  CHECK(cs.is_satisfied());
}

}  // namespace

// ---------------------------------------------------------------- linear combinations

CUZK_TEST(lc_merges_and_orders_like_bellpepper) {
  Lc<Fr> lc;
  lc.add(Var::aux(5)).add(Var::input(2)).add(Var::aux(1), Fr::from_u64(3)).add(Var::aux(5)).add(kOne);
  lc.sub(Var::aux(1), Fr::from_u64(3));
  const auto& t = lc.terms();
  CHECK_EQ(t.size(), size_t(4));  // ONE, input 2, aux 1 (zero, kept), aux 5
  CHECK(t[0].var == kOne && t[1].var == Var::input(2) && t[2].var == Var::aux(1) && t[3].var == Var::aux(5));
  CHECK(t[2].coeff.is_zero());
  CHECK(t[3].coeff == Fr::from_u64(2));
  Lc<Fr> m(Var::aux(3));
  m.add(lc, Fr::from_u64(7));
  CHECK_EQ(m.size(), size_t(5));
  CHECK(m.terms()[4].coeff == Fr::from_u64(14));
  CHECK(m.terms()[3].var == Var::aux(3));
}

// Adding a whole combination (one merge of two sorted lists) gives exactly what adding its terms
// one by one gives: the same variables in the same order, the same coefficients (zeros kept),
// for scaled, negated and self additions, overlapping or disjoint or interleaved lists.
CUZK_TEST(lc_merge_equals_term_by_term_addition) {
  RandomSource rs(20261205);
  auto random_lc = [&](size_t terms, uint32_t span) {
    Lc<Fr> lc;
    for (size_t i = 0; i < terms; ++i) {
      const uint32_t k = uint32_t(rs.next() % span);
      const Var v = rs.next() % 4 == 0 ? Var::input(k % 8) : Var::aux(k);
      // Small coefficients: sums cancel to zero now and then.
      lc.add(v, rs.next() % 3 == 0 ? -Fr::from_u64(rs.next() % 3) : Fr::from_u64(rs.next() % 3));
    }
    return lc;
  };
  auto same = [](const Lc<Fr>& a, const Lc<Fr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a.terms()[i].var == b.terms()[i].var) || !(a.terms()[i].coeff == b.terms()[i].coeff)) return false;
    return true;
  };
  size_t checked = 0, grew = 0, zeros = 0;
  for (int round = 0; round < 3000; ++round) {
    const uint32_t span = 1 + uint32_t(rs.next() % 64);
    const Lc<Fr> a = random_lc(rs.next() % 12, span), o = random_lc(rs.next() % 12, span);
    const Fr c = rs.next() % 2 ? random_field<Fr>(rs) : -Fr::from_u64(rs.next() % 3);
    const int op = int(rs.next() % 5);
    Lc<Fr> merged = a, one_by_one = a;
    if (op == 4) {  // the combination added to itself
      merged.add(merged);
      for (const auto& t : a.terms()) one_by_one.add(t.var, t.coeff);
    } else {
      if (op == 0) merged.add(o, c);
      if (op == 1) merged.add(o);
      if (op == 2) merged.sub(o, c);
      if (op == 3) merged.sub(o);
      for (const auto& t : o.terms()) {
        const Fr x = op == 0 ? t.coeff * c : op == 1 ? t.coeff : op == 2 ? -(t.coeff * c) : -t.coeff;
        one_by_one.add(t.var, x);
      }
    }
    CHECK_MSG(same(merged, one_by_one), "round " << round << ", op " << op << ": " << a.size() << " + " << o.size()
                                                 << " terms gave " << merged.size() << ", term by term "
                                                 << one_by_one.size());
    for (size_t i = 1; i < merged.size(); ++i) CHECK(merged.terms()[i - 1].var.key < merged.terms()[i].var.key);
    ++checked;
    grew += merged.size() > a.size();
    for (const auto& t : merged.terms()) zeros += t.coeff.is_zero();
  }
  // The cases were all reached: lists that grew (fresh variables) and coefficients that cancelled.
  CHECK(grew > 500 && zeros > 100);
  CHECK_EQ(checked, size_t(3000));
}

CUZK_TEST(small_vector_behaves_as_std_vector) {
  // Random operations on a SmallVector of 3 in place and a std::vector side by side: pushes
  // (of its own elements too), inserts anywhere, resizes, assigns, copies and moves both ways
  // across the in-place/allocated boundary.
  struct E {
    uint64_t a;
    uint32_t b;
    bool operator==(const E&) const = default;
  };
  using SV = SmallVector<E, 3>;
  RandomSource rs(20261207);
  auto same = [](const SV& x, const std::vector<E>& y) {
    if (x.size() != y.size() || x.empty() != y.empty()) return false;
    for (size_t i = 0; i < y.size(); ++i)
      if (!(x[i] == y[i])) return false;
    return std::distance(x.begin(), x.end()) == std::ptrdiff_t(y.size());
  };
  size_t spilled = 0, back_in_place = 0;
  for (int round = 0; round < 300; ++round) {
    SV v;
    std::vector<E> w;
    for (int step = 0; step < 60; ++step) {
      const E e{rs.next(), uint32_t(rs.next())};
      const int op = int(rs.next() % 9);
      if (op <= 2) {
        v.push_back(e), w.push_back(e);
      } else if (op == 3 && !w.empty()) {  // an element of its own, pushed back
        const size_t i = rs.next() % w.size();
        v.push_back(v[i]), w.push_back(w[i]);
      } else if (op == 4) {
        const size_t at = w.empty() ? 0 : rs.next() % (w.size() + 1);
        const E* p = v.insert(v.begin() + at, e);
        w.insert(w.begin() + std::ptrdiff_t(at), e);
        CHECK(p == v.begin() + at);
      } else if (op == 5) {
        const size_t n = rs.next() % 9;
        v.resize(n), w.resize(n);
      } else if (op == 6) {  // copy out and back, and assign a range
        SV c = v;
        CHECK(same(c, w));
        std::vector<E> src(rs.next() % 8);
        for (auto& x : src) x = E{rs.next(), uint32_t(rs.next())};
        c.assign(src.data(), src.data() + src.size());
        CHECK(same(c, src));
        c = v;
        v = c;
      } else if (op == 7) {  // moved out and back: the source is left empty
        SV m = std::move(v);
        CHECK(v.empty());
        CHECK(same(m, w));
        v = std::move(m);
        CHECK(m.empty());
      } else if (op == 8 && rs.next() % 4 == 0) {
        v.clear(), w.clear();
        back_in_place += v.capacity() == 3;
      }
      CHECK_MSG(same(v, w), "round " << round << ", step " << step << ", op " << op);
      spilled += v.capacity() > 3;
    }
  }
  CHECK(spilled > 1000 && back_in_place > 10);
}

CUZK_TEST(lc_add_terms_equals_term_by_term_addition) {
  RandomSource rs(20261206);
  size_t repeated = 0, zeros = 0, onto_empty = 0;
  for (int round = 0; round < 2000; ++round) {
    const uint32_t span = 1 + uint32_t(rs.next() % 48);
    auto random_term = [&] {
      const uint32_t k = uint32_t(rs.next() % span);
      const Var v = rs.next() % 4 == 0 ? Var::input(k % 8) : Var::aux(k);
      return Term<Fr>{v, rs.next() % 3 == 0 ? -Fr::from_u64(rs.next() % 3) : Fr::from_u64(rs.next() % 3)};
    };
    Lc<Fr> base;
    const size_t n0 = rs.next() % 3 == 0 ? 0 : rs.next() % 16;
    for (size_t i = 0; i < n0; ++i) {
      const Term<Fr> t = random_term();
      base.add(t.var, t.coeff);
    }
    std::vector<Term<Fr>> terms(rs.next() % 40);
    for (auto& t : terms) t = random_term();
    Lc<Fr> one_by_one = base, gathered = base;
    for (const auto& t : terms) one_by_one.add(t.var, t.coeff);
    std::vector<Term<Fr>> copy = terms;
    gathered.add_terms(std::move(copy));
    CHECK_MSG(one_by_one.size() == gathered.size(),
              "round " << round << ": " << gathered.size() << " terms, term by term " << one_by_one.size());
    for (size_t i = 0; i < gathered.size(); ++i) {
      CHECK_MSG(gathered.terms()[i].var == one_by_one.terms()[i].var, "round " << round << ", term " << i);
      CHECK_MSG(gathered.terms()[i].coeff == one_by_one.terms()[i].coeff, "round " << round << ", term " << i);
      zeros += gathered.terms()[i].coeff.is_zero();
    }
    for (size_t i = 0; i < terms.size(); ++i)
      for (size_t j = i + 1; j < terms.size(); ++j) repeated += terms[i].var == terms[j].var;
    onto_empty += base.empty() && !terms.empty();
  }
  // Reached: variables given twice, sums that cancel, terms gathered onto an empty combination.
  CHECK(repeated > 1000 && zeros > 100 && onto_empty > 100);
}

CUZK_TEST(shape_counts_nonzeros_and_densities) {
  ShapeCs<Fr> cs;
  const Var a = cs.alloc([] { return Fr::one(); }), b = cs.alloc([] { return Fr::one(); });
  const Var in = cs.alloc_input([] { return Fr::one(); });
  cs.enforce(Lc<Fr>(a).add(b).sub(b), Lc<Fr>(in).add(a), Lc<Fr>(kOne));
  const Shape s = cs.shape();
  CHECK_EQ(s.inputs, uint64_t(2));
  CHECK_EQ(s.aux, uint64_t(2));
  CHECK_EQ(s.constraints, uint64_t(1));
  CHECK_EQ(s.nnz_a, uint64_t(1));  // b's merged zero is not a non-zero
  CHECK_EQ(s.zero_terms, uint64_t(1));
  CHECK_EQ(s.nnz_b, uint64_t(2));
  CHECK_EQ(s.nnz_c, uint64_t(1));
  CHECK_EQ(s.a_aux_density, uint64_t(1));
  CHECK_EQ(s.b_input_density, uint64_t(1));
  CHECK_EQ(s.b_aux_density, uint64_t(1));
}

// ---------------------------------------------------------------- published counts

CUZK_TEST(sha256_compression_is_25840_constraints) {
  const Shape s = shape_of([](auto& cs) { synthesize_gadget(cs, {"sha256-compress"}); });
  CHECK_EQ(s.constraints - 512, uint64_t(25840));
}

CUZK_TEST(sha256_of_512_bits_is_44874_constraints) {
  const Shape s = shape_of([](auto& cs) { synthesize_gadget(cs, {"sha256", 512}); });
  CHECK_EQ(s.constraints - 512, uint64_t(44874));
}

CUZK_TEST(hash_leaf_bits_circuit_is_45387_constraints) {
  const Shape s = shape_of([](auto& cs) { synthesize_gadget(cs, {"sha254-leaf"}); });
  CHECK_EQ(s.constraints, uint64_t(45387));
}

CUZK_TEST(create_label_is_532025_constraints) {
  const Shape s = shape_of([](auto& cs) { synthesize_gadget(cs, {"create-label"}); });
  CHECK_EQ(s.constraints, uint64_t(532025));
  CHECK_EQ(s.inputs, uint64_t(1));
}

CUZK_TEST(unknown_gadget_is_refused) {
  ShapeCs<Fr> cs;
  CHECK_THROWS_WITH(synthesize_gadget(cs, {"poseidon-9"}), std::invalid_argument, "unknown gadget 'poseidon-9'");
}

// ---------------------------------------------------------------- back ends agree

CUZK_TEST(back_ends_agree_on_counts) {
  for (const char* name : {"sha256-compress", "sha254-leaf", "sha256"}) {
    const GadgetSpec g{name, 136, 9};
    ShapeCs<Fr> sh;
    synthesize_gadget(sh, g);
    RecordCs<Fr> rec;
    synthesize_gadget(rec, g);
    WitnessCs<Fr> wit;
    synthesize_gadget(wit, g);
    CHECK(sh.shape() == rec.shape());
    CHECK_EQ(wit.num_constraints(), rec.num_constraints());
    CHECK_EQ(wit.num_aux(), rec.num_aux());
    CHECK_EQ(wit.num_inputs(), rec.num_inputs());
    // The witness back end computes the same values as the recording one.
    CHECK(std::ranges::equal(wit.aux, rec.aux));
    CHECK_MSG(rec.is_satisfied(), std::string(name) + ": row " + std::to_string(rec.first_unsatisfied()));
  }
}

CUZK_TEST(recorded_rows_feed_the_r1cs_code) {
  RecordCs<Fr> rec;
  synthesize_gadget(rec, {"sha254-leaf", 0, 4});
  const r1cs::RowSource<Fr> src = rec.row_source();
  CHECK_EQ(src.n_rows, size_t(45387));
  CHECK_EQ(src.n_wires, uint32_t(rec.n_inputs + rec.n_aux));
  auto w = rec.witness_std();
  ThreadPool pool(2);
  size_t nnz = 0;
  CHECK_EQ(r1cs::first_unsatisfied(src, w.data(), pool, &nnz), kNone);
  const Shape s = rec.shape();
  CHECK_EQ(nnz, size_t(s.nnz_a + s.nnz_b + s.nnz_c));
  w[rec.n_inputs + 700].v[0] ^= 1;
  CHECK(r1cs::first_unsatisfied(src, w.data(), pool) != kNone);
}

// ---------------------------------------------------------------- values

CUZK_TEST(sha256_of_the_empty_input) {
  WitnessCs<Fr> cs;
  const auto out = sha256(cs, std::span<const Boolean>());
  CHECK_EQ(cs.num_constraints(), uint64_t(0));
  CHECK_EQ(filecoin::to_hex(bits_be_to_bytes(out)),
           std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
}

CUZK_TEST(sha256_values_match_the_plain_hash) {
  SeededRng rng(test::seed());
  for (size_t len : {0, 1, 3, 31, 55, 56, 64, 100, 119, 128}) {
    const auto data = random_bytes(rng, len);
    RecordCs<Fr> cs;
    const auto in = alloc_bytes_be(cs, data);
    const auto out = sha256(cs, std::span<const Boolean>(in));
    filecoin::Sha256 h;
    h.update(std::span<const uint8_t>(data));
    CHECK_EQ(filecoin::to_hex(bits_be_to_bytes(out)), filecoin::to_hex(h.finish()));
    CHECK_MSG(cs.is_satisfied(), "length " + std::to_string(len));
    // The witness back end gives the same output bits.
    WitnessCs<Fr> w;
    std::vector<Boolean> win;
    for (size_t i = 0; i < len * 8; ++i) win.push_back(alloc_boolean(w, (data[i / 8] >> (7 - i % 8)) & 1));
    CHECK_EQ(filecoin::to_hex(bits_be_to_bytes(sha256(w, std::span<const Boolean>(win)))),
             filecoin::to_hex(bits_be_to_bytes(out)));
  }
}

CUZK_TEST(sha254_leaf_matches_the_plain_hash) {
  SeededRng rng(test::seed() + 1);
  RandomSource rs(rng.next());
  std::vector<uint8_t> l(32), r(32);
  for (auto* b : {&l, &r}) {
    const auto s = random_field<Fr>(rs).to_std();
    for (int i = 0; i < 32; ++i) (*b)[i] = uint8_t(s.v[i / 8] >> (8 * (i % 8)));
  }
  RecordCs<Fr> cs;
  const auto lb = bytes_into_boolean_vec(cs, std::span<const uint8_t>(l), 256);
  const auto rb = bytes_into_boolean_vec(cs, std::span<const uint8_t>(r), 256);
  const auto out = hash_leaf_bits_circuit(cs, std::span<const Boolean>(lb), std::span<const Boolean>(rb));
  filecoin::Sha256 h;
  h.update(std::span<const uint8_t>(l));
  h.update(std::span<const uint8_t>(r));
  auto d = h.finish();
  d[31] &= 0x3f;  // trimmed to 254 bits
  CHECK(out.value == fr_of_le_bytes(d));
  CHECK_EQ(cs.num_constraints(), uint64_t(45387));
  check_flips_break(cs, test::seed(), 64);
}

CUZK_TEST(create_label_matches_the_plain_hash) {
  SeededRng rng(test::seed() + 2);
  const auto id = random_bytes(rng, 32);
  std::vector<std::vector<uint8_t>> parents;
  for (size_t i = 0; i < kTotalParents; ++i) parents.push_back(random_bytes(rng, 32));
  RecordCs<Fr> cs;
  std::vector<std::vector<Boolean>> pb;
  for (const auto& p : parents) pb.push_back(alloc_bytes_be(cs, p));
  const auto idb = alloc_bytes_be(cs, id);
  const uint32_t layer = 3;
  const uint64_t node = 22 + (rng.next() % 1000);
  const auto out =
      create_label_circuit(cs, std::span<const Boolean>(idb), pb, UInt32::constant(layer), UInt64::constant(node));
  filecoin::Sha256 h;
  h.update(std::span<const uint8_t>(id));
  uint8_t ln[32] = {};
  for (int i = 0; i < 4; ++i) ln[i] = uint8_t(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) ln[4 + i] = uint8_t(node >> (56 - 8 * i));
  h.update(std::span<const uint8_t>(ln, 32));
  for (const auto& p : parents) h.update(std::span<const uint8_t>(p));
  auto d = h.finish();
  d[31] &= 0x3f;
  CHECK(out.value == fr_of_le_bytes(d));
  CHECK_EQ(cs.num_constraints(), uint64_t(532025));
  check_flips_break(cs, test::seed() + 3, 6);
}

// ---------------------------------------------------------------- the smaller gadgets

CUZK_TEST(boolean_gadgets_satisfy_and_break) {
  // Every operation on every mix of allocated, negated and constant operands.
  for (int va = 0; va < 2; ++va)
    for (int vb = 0; vb < 2; ++vb)
      for (int vc = 0; vc < 2; ++vc) {
        RecordCs<Fr> cs;
        std::vector<Boolean> xs;
        for (bool v : {bool(va), bool(vb), bool(vc)}) {
          const Bit b = alloc_bit(cs, v);
          xs.push_back(Boolean::is(b));
          xs.push_back(Boolean::negated(alloc_bit(cs, !v)));
          xs.push_back(Boolean::constant_of(v));
        }
        size_t ops = 0;
        for (const auto& a : xs)
          for (const auto& b : xs) {
            CHECK_EQ(boolean_xor(cs, a, b).value(), a.value() ^ b.value());
            CHECK_EQ(boolean_and(cs, a, b).value(), a.value() && b.value());
            CHECK_EQ(boolean_or(cs, a, b).value(), a.value() || b.value());
            ++ops;
            for (const auto& c : xs) {
              CHECK_EQ(sha256_ch(cs, a, b, c).value(), (a.value() && b.value()) ^ (!a.value() && c.value()));
              CHECK_EQ(sha256_maj(cs, a, b, c).value(),
                       (a.value() && b.value()) ^ (a.value() && c.value()) ^ (b.value() && c.value()));
            }
            if (a.value() == b.value()) CHECK(enforce_equal(cs, a, b));
          }
        CHECK(ops == 81);
        // A constant-false lc is empty, a negation's is ONE - x.
        CHECK(Boolean::constant_of(false).lc<Fr>().empty());
        CHECK_EQ(xs[1].lc<Fr>().size(), size_t(2));
        check_flips_break(cs, test::seed() + va * 4 + vb * 2 + vc, 200);
      }
  // Two constants that differ cannot be made equal.
  RecordCs<Fr> cs;
  CHECK(!enforce_equal(cs, Boolean::constant_of(true), Boolean::constant_of(false)));
  // Equal booleans of different values are unsatisfiable.
  const Boolean x = alloc_boolean(cs, true), y = alloc_boolean(cs, false);
  enforce_equal(cs, x, y);
  CHECK(!cs.is_satisfied());
}

CUZK_TEST(num_gadgets_satisfy_and_break) {
  RandomSource rs(test::seed());
  RecordCs<Fr> cs;
  const Fr va = random_field<Fr>(rs), vb = random_field<Fr>(rs);
  const auto a = alloc_num(cs, [&] { return va; });
  const auto b = alloc_num(cs, [&] { return vb; });
  inputize(cs, a);
  CHECK(cs.inputs.back() == va);
  CHECK(num_mul(cs, a, b).value == va * vb);
  CHECK(num_square(cs, a).value == va.sqr());
  CHECK(num_add(cs, a, b).value == va + vb);
  CHECK(encode(cs, a, b).value == va + vb);
  CHECK(decode(cs, a, b).value == vb - va);
  assert_nonzero(cs, a);
  const auto a2 = alloc_num(cs, [&] { return va; });
  enforce_num_equal(cs, a, a2);
  for (bool cond : {false, true}) {
    const Boolean c = alloc_boolean(cs, cond);
    const auto [x, y] = conditionally_reverse(cs, a, b, c);
    CHECK(x.value == (cond ? vb : va));
    CHECK(y.value == (cond ? va : vb));
  }
  const auto bits = to_bits_le(cs, a);
  const auto sbits = to_bits_le_strict(cs, b);
  CHECK_EQ(bits.size(), size_t(255));
  CHECK_EQ(sbits.size(), size_t(255));
  const auto la = va.to_std(), lb = vb.to_std();
  for (int i = 0; i < 255; ++i) {
    CHECK_EQ(bits[i].value(), bool((la.v[i / 64] >> (i % 64)) & 1));
    CHECK_EQ(sbits[i].value(), bool((lb.v[i / 64] >> (i % 64)) & 1));
  }
  check_flips_break(cs, test::seed(), 400);
  // Why the strict form exists: the plain form also takes the bits of p + 1 for the value 1.
  {
    RecordCs<Fr> c2;
    const auto one = alloc_num(c2, [] { return Fr::one(); });
    to_bits_le(c2, one);
    CHECK(c2.is_satisfied());
    auto p1 = Fr::K.p;
    p1.v[0] += 1;
    for (int i = 0; i < 255; ++i) c2.aux[1 + i] = (p1.v[i / 64] >> (i % 64)) & 1 ? Fr::one() : Fr::zero();
    CHECK(c2.is_satisfied());
  }
  // Shape: 255 booleans + 1 for to_bits_le; to_bits_le_strict as bellperson's count.
  const Shape s = shape_of([](auto& c) {
    const auto x = alloc_num(c, [] { return Fr::one(); });
    to_bits_le(c, x);
  });
  CHECK_EQ(s.constraints, uint64_t(256));
}

CUZK_TEST(multipack_and_uint_gadgets) {
  SeededRng rng(test::seed());
  for (size_t n : {0, 1, 253, 254, 255, 600}) {
    RecordCs<Fr> cs;
    std::vector<bool> vals;
    std::vector<Boolean> bits;
    for (size_t i = 0; i < n; ++i) {
      vals.push_back(rng.next() & 1);
      bits.push_back(alloc_boolean(cs, vals.back()));
    }
    pack_into_inputs(cs, std::span<const Boolean>(bits));
    const auto expect = compute_multipacking<Fr>(vals);
    CHECK_EQ(cs.inputs.size(), expect.size() + 1);
    for (size_t i = 0; i < expect.size(); ++i) CHECK(cs.inputs[1 + i] == expect[i]);
    if (n) check_flips_break(cs, rng.next(), 16);
  }
  CHECK(bytes_to_bits(std::vector<uint8_t>{0x81, 0x02}) ==
        std::vector<bool>({1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0}));
  CHECK(bytes_to_bits_le(std::vector<uint8_t>{0x81}) == std::vector<bool>({1, 0, 0, 0, 0, 0, 0, 1}));

  RecordCs<Fr> cs;
  {
    MultiEq<RecordCs<Fr>> me(cs);
    for (int t = 0; t < 20; ++t) {
      std::vector<UInt32> ops;
      uint32_t sum = 0;
      const size_t k = 2 + rng.next() % 9;
      for (size_t i = 0; i < k; ++i) {
        const uint32_t v = uint32_t(rng.next());
        sum += v;
        ops.push_back(i % 3 == 2 ? UInt32::constant(v) : uint32_alloc(me, v));
      }
      const UInt32 r = uint32_addmany(me, std::span<const UInt32>(ops));
      CHECK_EQ(r.value, sum);
      uint32_t from_bits = 0;
      for (int i = 0; i < 32; ++i) from_bits |= uint32_t(r.bits[i].value()) << i;
      CHECK_EQ(from_bits, sum);
      const UInt32 x = uint32_xor(me, ops[0].rotr(7), ops[1].shr(3));
      CHECK_EQ(x.value, ((ops[0].value >> 7) | (ops[0].value << 25)) ^ (ops[1].value >> 3));
      const UInt32 ch = uint32_sha256_ch(me, ops[0], ops[1], r);
      CHECK_EQ(ch.value, (ops[0].value & ops[1].value) ^ (~ops[0].value & r.value));
      const UInt32 mj = uint32_sha256_maj(me, ops[0], ops[1], r);
      CHECK_EQ(mj.value, (ops[0].value & ops[1].value) ^ (ops[0].value & r.value) ^ (ops[1].value & r.value));
    }
    // Constants add up to a constant, with no constraint.
    const uint64_t before = cs.num_constraints();
    const UInt32 cst[2] = {UInt32::constant(5), UInt32::constant(0xffffffff)};
    CHECK_EQ(uint32_addmany(me, std::span<const UInt32>(cst)).value, uint32_t(4));
    CHECK_EQ(cs.num_constraints(), before);
  }
  const UInt64 u = uint64_alloc(cs, 0x0123456789abcdefull);
  uint64_pack_into_input(cs, u);
  CHECK(cs.inputs.back() == Fr::from_u64(0x0123456789abcdefull));
  CHECK(UInt64::from_bits_be(std::span<const Boolean>(u.to_bits_be())).value == u.value);
  check_flips_break(cs, rng.next(), 300);
}

// ---------------------------------------------------------------- fingerprint

CUZK_TEST(fingerprint_sees_a_changed_row) {
  auto fp = [](int k, bool twist) {
    FingerprintCs<Fr, filecoin::Sha256> cs(k, true);
    synthesize_gadget(cs, {"sha256", 64});
    if (twist) {
      const Var v = cs.alloc([] { return Fr::zero(); });
      cs.enforce(Lc<Fr>(v), Lc<Fr>(kOne), Lc<Fr>(v, Fr::from_u64(2)));
    }
    return cs.finish();
  };
  const Fingerprint a = fp(10, false), b = fp(8, false), c = fp(10, true);
  CHECK(a.whole == b.whole);        // the whole digest does not depend on the block size
  CHECK_EQ(a.inputs, uint64_t(1));  // ONE
  const Shape sh = shape_of([](auto& cs) { synthesize_gadget(cs, {"sha256", 64}); });
  CHECK_EQ(a.constraints, sh.constraints);
  CHECK_EQ(a.aux, sh.aux);
  CHECK_EQ(a.rows.size(), size_t(a.constraints));
  CHECK_EQ(a.blocks.size(), size_t((a.constraints + 1023) / 1024));
  CHECK(a.whole != c.whole);
  CHECK(a.blocks.front() == c.blocks.front());
  // A coefficient changed by one: the row's digest changes, so do its block's and the whole.
  FingerprintCs<Fr, filecoin::Sha256> x(4), y(4);
  for (auto* cs : {&x, &y}) {
    const Var v = cs->alloc([] { return Fr::zero(); });
    cs->enforce(Lc<Fr>(v), Lc<Fr>(kOne), Lc<Fr>(v, cs == &x ? Fr::from_u64(2) : Fr::from_u64(3)));
  }
  const Fingerprint fx = x.finish(), fy = y.finish();
  CHECK(fx.blocks[0] != fy.blocks[0]);
  CHECK(fx.whole != fy.whole);
  const std::string text = format_fingerprint(a);
  CHECK(text.find("whole " + digest_hex(a.whole)) != std::string::npos);
}

// Blocks filled in parallel (for_each_block on the values back end) give the sequential values
// in order and the same variables (indices from the bases the first block's shape sets); a block
// of another shape is refused.
CUZK_TEST(blocks_in_parallel_are_the_sequential_witness) {
  using F = ff::Bls12381Fr;
  constexpr size_t kBlocks = 7;
  auto run = [](circuit::WitnessCs<F>& cs, ThreadPool* pool, std::vector<std::vector<circuit::Var>>& vars,
                size_t odd_block, uint64_t odd_aux = 4) {
    cs.alloc([] { return F::from_u64(99); });  // a prologue
    circuit::for_each_block(cs, kBlocks, pool, [&](auto& b, size_t k) {
      for (uint64_t j = 0; j < (k == odd_block ? odd_aux : 3); ++j)
        vars[k].push_back(b.alloc([&] { return F::from_u64(10 * k + j); }));
      vars[k].push_back(b.alloc_input([&] { return F::from_u64(1000 + k); }));
      b.enforce(circuit::Lc<F>(), circuit::Lc<F>(), circuit::Lc<F>());
    });
  };
  std::vector<std::vector<circuit::Var>> seq_vars(kBlocks), par_vars(kBlocks);
  circuit::WitnessCs<F> seq, par;
  run(seq, nullptr, seq_vars, SIZE_MAX);
  ThreadPool pool(3);
  run(par, &pool, par_vars, SIZE_MAX);
  CHECK(par.inputs == seq.inputs && par.aux == seq.aux);
  CHECK_EQ(par.num_constraints(), uint64_t(kBlocks));
  CHECK(par_vars == seq_vars);
  for (size_t k = 0; k < kBlocks; ++k) CHECK(par.value(par_vars[k][1]) == F::from_u64(10 * k + 1));
  circuit::WitnessCs<F> odd;
  std::vector<std::vector<circuit::Var>> odd_vars(kBlocks);
  CHECK_THROWS_WITH(run(odd, &pool, odd_vars, 4), Error, "block 4 differs in shape from block 0");
  circuit::WitnessCs<F> fewer;  // a block with fewer aux variables than block 0
  std::vector<std::vector<circuit::Var>> fewer_vars(kBlocks);
  CHECK_THROWS_WITH(run(fewer, &pool, fewer_vars, 5, 2), Error, "block 5 differs in shape from block 0");
}
