// SPDX-License-Identifier: MIT OR Apache-2.0
// Poseidon as neptune computes it for Filecoin: round numbers, Grain constants, the MDS matrix, the
// preprocessing of the optimized hash (checked by the optimized permutation agreeing with the
// textbook one), domain tags, neptune's published hash values, and the Merkle tree roots.
#include <set>
#include <thread>

#include "filecoin/poseidon.hpp"
#include "testing.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::test {
namespace {

using namespace cuzk::filecoin;
using Fr = PoseidonFr;

const size_t kArities[] = {2, 4, 8, 11, 16, 24, 36};

// A field element from four limbs of its canonical value, least significant first (neptune's
// scalar_from_u64s).
Fr from_limbs(uint64_t a, uint64_t b, uint64_t c, uint64_t d) { return Fr::from_std({{a, b, c, d}}); }

std::vector<Fr> counting(size_t n, size_t from = 0) {
  std::vector<Fr> v;
  for (size_t i = 0; i < n; ++i) v.push_back(Fr::from_u64(from + i));
  return v;
}

std::string hex(const Fr& x) { return poseidon_fr_to_hex(x); }

CUZK_TEST(poseidon_round_numbers_as_neptune) {
  // neptune's test_round_numbers_against_known_values: (t, R_P), R_F = 8 throughout.
  const size_t cases[][2] = {{2, 55},  {3, 55},  {4, 56},  {5, 56},  {6, 56},  {7, 56},  {8, 57},
                             {9, 57},  {10, 57}, {11, 57}, {12, 57}, {13, 57}, {14, 57}, {15, 57},
                             {16, 59}, {17, 59}, {25, 59}, {37, 60}, {65, 61}};
  for (auto& c : cases) {
    PoseidonRounds r = poseidon_round_numbers(c[0]);
    CHECK_MSG(r.full == 8 && r.partial == c[1], "t " << c[0] << ": " << r.full << "/" << r.partial);
  }
  CHECK_THROWS_WITH(poseidon_round_numbers(1), InvalidArgument, "width 1");
}

CUZK_TEST(poseidon_grain_first_constant) {
  std::vector<Fr> rc = poseidon_grain_constants(9, 8, 57);
  CHECK_EQ(rc.size(), size_t(9 * 65));
  CHECK_EQ(hex(rc[0]), std::string("0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9"));
  // The parameters seed the LFSR: another R_P, another stream.
  CHECK(poseidon_grain_constants(9, 8, 56)[0] != rc[0]);
  // Constants are distinct (a stuck stream would repeat).
  std::set<std::string> seen;
  for (const Fr& x : rc) seen.insert(hex(x));
  CHECK_EQ(seen.size(), rc.size());
  // The cached constants are these.
  const PoseidonConstants& c = poseidon_constants(8);
  CHECK_EQ(c.round_constants.size(), rc.size());
  for (size_t i = 0; i < rc.size(); ++i) CHECK(c.round_constants[i] == rc[i]);
}

CUZK_TEST(poseidon_mds_and_inverse) {
  for (size_t t : {3, 9, 37}) {
    PoseidonMatrix m = poseidon_mds(t);
    for (size_t i = 0; i < t; ++i)
      for (size_t j = 0; j < t; ++j) {
        CHECK(m[i][j] == m[j][i]);
        CHECK(m[i][j] * Fr::from_u64(i + j + t) == Fr::one());
      }
    PoseidonMatrix inv = poseidon_matrix_inverse(m);
    for (size_t i = 0; i < t; ++i)
      for (size_t j = 0; j < t; ++j) {
        Fr s = Fr::zero();
        for (size_t k = 0; k < t; ++k) s += m[i][k] * inv[k][j];
        CHECK(s == (i == j ? Fr::one() : Fr::zero()));
      }
  }
  PoseidonMatrix singular = poseidon_mds(3);
  singular[2] = singular[1];
  CHECK_THROWS_WITH(poseidon_matrix_inverse(singular), InvalidArgument, "singular");
}

CUZK_TEST(poseidon_preprocessed_shapes) {
  for (size_t a : kArities) {
    const PoseidonConstants& c = poseidon_constants(a);
    const size_t t = a + 1;
    CHECK_EQ(c.width, t);
    CHECK_EQ(c.full_rounds, size_t(8));
    CHECK_EQ(c.half_full_rounds, size_t(4));
    CHECK_EQ(c.compressed_round_constants.size(), t * c.full_rounds + c.partial_rounds);
    CHECK_EQ(c.sparse_matrices.size(), c.partial_rounds);
    CHECK_EQ(c.pre_sparse_matrix.size(), t);
    for (const auto& s : c.sparse_matrices) {
      CHECK_EQ(s.w_hat.size(), t);
      CHECK_EQ(s.v_rest.size(), t - 1);
    }
    // The first constants are the first round's as generated; the rest are transformed.
    for (size_t i = 0; i < t; ++i) CHECK(c.compressed_round_constants[i] == c.round_constants[i]);
    CHECK(c.compressed_round_constants[t] != c.round_constants[t]);
    // The same object on every call.
    CHECK(&poseidon_constants(a) == &c);
  }
  // The factorisation is exact as linear algebra: with the S-boxes left out, the pre-sparse matrix
  // followed by the R_P sparse matrices is M applied R_P + 1 times.
  const PoseidonConstants& c = poseidon_constants(4);
  const size_t t = c.width;
  RandomSource rs(seed());
  std::vector<Fr> v(t), w(t);
  for (auto& x : v) x = random_field<Fr>(rs);
  w = v;
  // Reference: R_P + 1 products with M.
  for (size_t r = 0; r <= c.partial_rounds; ++r) {
    std::vector<Fr> n(t, Fr::zero());
    for (size_t i = 0; i < t; ++i)
      for (size_t j = 0; j < t; ++j) n[i] += c.mds[i][j] * w[j];
    w = n;
  }
  // Factored: columns of the pre-sparse matrix, then the sparse matrices.
  std::vector<Fr> n(t, Fr::zero());
  for (size_t j = 0; j < t; ++j)
    for (size_t i = 0; i < t; ++i) n[j] += c.pre_sparse_matrix[i][j] * v[i];
  for (const auto& s : c.sparse_matrices) {
    Fr s0 = n[0], acc = Fr::zero();
    for (size_t i = 0; i < t; ++i) acc += s.w_hat[i] * n[i];
    for (size_t j = 1; j < t; ++j) n[j] += s.v_rest[j - 1] * s0;
    n[0] = acc;
  }
  for (size_t i = 0; i < t; ++i) CHECK(n[i] == w[i]);
}

CUZK_TEST(poseidon_domain_tags) {
  CHECK_EQ(hex(poseidon_domain_tag(8, PoseidonHashType::merkle_tree())), hex(Fr::from_u64(0xff)));
  CHECK_EQ(hex(poseidon_domain_tag(2, PoseidonHashType::merkle_tree())), hex(Fr::from_u64(3)));
  CHECK_EQ(hex(poseidon_domain_tag(36, PoseidonHashType::merkle_tree())), hex(Fr::from_u64((1ull << 36) - 1)));
  CHECK(poseidon_domain_tag(8, PoseidonHashType::constant_length_of(3)) == from_limbs(0, 3, 0, 0));
  CHECK(poseidon_domain_tag(8, PoseidonHashType::custom_id(1)) == from_limbs(uint64_t(1) << 40, 0, 0, 0));
  CHECK(poseidon_domain_tag(8, PoseidonHashType::custom_id(256)) == from_limbs(uint64_t(256) << 40, 0, 0, 0));
  CHECK_THROWS_WITH(poseidon_domain_tag(8, PoseidonHashType::constant_length_of(9)), InvalidArgument,
                    "constant length 9");
  CHECK_THROWS_WITH(poseidon_domain_tag(8, PoseidonHashType::constant_length_of(0)), InvalidArgument,
                    "constant length 0");
  CHECK_THROWS_WITH(poseidon_domain_tag(8, PoseidonHashType::custom_id(0)), InvalidArgument, "id 0");
  CHECK_THROWS_WITH(poseidon_domain_tag(8, PoseidonHashType::custom_id(257)), InvalidArgument, "id 257");
  CHECK_THROWS_WITH(poseidon_constants(37), InvalidArgument, "arity 37");
  CHECK_THROWS_WITH(poseidon_constants(0), InvalidArgument, "arity 0");
  // Other tags share the arity's constants but not the tag.
  const PoseidonConstants& m = poseidon_constants(4);
  const PoseidonConstants& k = poseidon_constants(4, PoseidonHashType::custom_id(1));
  CHECK(&m != &k);
  CHECK(k.domain_tag != m.domain_tag);
  CHECK(k.compressed_round_constants[5] == m.compressed_round_constants[5]);
}

// neptune's hash_values test (Strength::Standard): the Merkle-tagged hash of (0, 1, ..., arity-1).
CUZK_TEST(poseidon_merkle_known_answers) {
  const std::pair<size_t, Fr> expect[] = {
      {2, from_limbs(0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b)},
      {4, from_limbs(0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a)},
      {8, from_limbs(0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55)},
      {11, from_limbs(0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28)},
      {16, from_limbs(0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a)},
      {24, from_limbs(0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15)},
      {36, from_limbs(0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f)},
  };
  for (const auto& [arity, want] : expect) {
    const PoseidonConstants& c = poseidon_constants(arity);
    std::vector<Fr> in = counting(arity);
    CHECK_MSG(poseidon_hash(c, in) == want, "arity " << arity << ": " << hex(poseidon_hash(c, in)));
    CHECK_MSG(poseidon_hash_reference(c, in) == want, "arity " << arity << " (reference)");
    in[arity - 1] += Fr::one();
    CHECK(poseidon_hash(c, in) != want);
    CHECK(poseidon_hash_reference(c, in) != want);
    CHECK_THROWS_WITH(poseidon_hash(c, std::vector<Fr>(arity - 1, Fr::zero())), InvalidArgument, "got");
  }
}

// neptune's constant-length digests of (0, 1, 2, 3) (its sponge agrees with the simple hash for
// arities of at least 4): the tag 4 * 2^64 and zeros after the inputs.
CUZK_TEST(poseidon_constant_length_known_answers) {
  const std::pair<size_t, Fr> expect[] = {
      {4, from_limbs(0x8935b00a07909d45, 0x4984de08542c9977, 0x39443980077d7593, 0x3a21a6ae86754a29)},
      {8, from_limbs(0x370a94532f818897, 0x203e3c7c4a85c1f9, 0xcad8b9f8aeb1578f, 0x5c6de4b69de9d792)},
      {11, from_limbs(0xe9b0cb7d6496f73b, 0x7d2807d793af9582, 0xef841b6bf51a5a39, 0x02550c3a2113c7ca)},
      {16, from_limbs(0x6a1e563d359c1bdd, 0x6b4493d5d40be9d3, 0x275a6eb04a0ecb37, 0x30ec6fa0fec08504)},
      {24, from_limbs(0xc540772c5968a299, 0xe2e556352af20f97, 0x15ed0a6b8faba5aa, 0x327bdee6fa2b22b6)},
      {36, from_limbs(0x7d89cddb70217dcd, 0x02ae71d3d04f0b32, 0xfe52151f29c50f99, 0x626bdae6cad79307)},
  };
  for (const auto& [arity, want] : expect) {
    const PoseidonConstants& c = poseidon_constants(arity, PoseidonHashType::constant_length_of(4));
    std::vector<Fr> in = counting(4);
    CHECK_MSG(poseidon_hash(c, in) == want, "arity " << arity << ": " << hex(poseidon_hash(c, in)));
    CHECK(poseidon_hash_reference(c, in) == want);
    CHECK_THROWS_WITH(poseidon_hash(c, counting(3)), InvalidArgument, "takes 4 inputs");
    CHECK_THROWS_WITH(poseidon_hash(c, counting(5)), InvalidArgument, "takes 4 inputs");
  }
  // Explicit zeros under the Merkle tag are another hash: the tag differs.
  std::vector<Fr> padded = counting(4);
  padded.resize(8, Fr::zero());
  CHECK(poseidon_hash(8, padded) != expect[1].second);
}

CUZK_TEST(poseidon2_and_binary_tree_known_answers) {
  const Fr h10 = from_limbs(0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3);
  CHECK(poseidon_hash(2, std::vector<Fr>{Fr::one(), Fr::zero()}) == h10);
  CHECK(poseidon_hash(2, std::vector<Fr>{Fr::zero(), Fr::one()}) != h10);
  const Fr root = from_limbs(0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb);
  ThreadPool pool(2);
  std::vector<Fr> leaves = {Fr::one(), Fr::zero(), Fr::zero(), Fr::one()};
  CHECK(poseidon_tree_root(leaves, 2, 0, 0, pool) == root);
  leaves[2] = Fr::one();
  CHECK(poseidon_tree_root(leaves, 2, 0, 0, pool) != root);
}

// The optimized permutation (compressed constants, sparse matrices) against the textbook one on
// random states, every arity neptune defines and several tags: the whole state must agree.
CUZK_TEST(poseidon_optimized_equals_reference) {
  RandomSource rs(seed());
  for (size_t a = 1; a <= kPoseidonMaxArity; ++a) {
    const PoseidonConstants& c = poseidon_constants(a);
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<Fr> s(c.width);
      for (auto& x : s) x = random_field<Fr>(rs);
      std::vector<Fr> r = s;
      poseidon_permute(c, s);
      poseidon_permute_reference(c, r);
      for (size_t i = 0; i < c.width; ++i) CHECK_MSG(s[i] == r[i], "arity " << a << " element " << i);
    }
    std::vector<Fr> in(a);
    for (auto& x : in) x = random_field<Fr>(rs);
    CHECK(poseidon_hash(c, in) == poseidon_hash_reference(c, in));
    const PoseidonConstants& k = poseidon_constants(a, PoseidonHashType::custom_id(1 + rs.next() % 256));
    CHECK(poseidon_hash(k, in) == poseidon_hash_reference(k, in));
    CHECK(poseidon_hash(k, in) != poseidon_hash(c, in));
    size_t len = 1 + rs.next() % a;
    const PoseidonConstants& l = poseidon_constants(a, PoseidonHashType::constant_length_of(len));
    std::vector<Fr> part(in.begin(), in.begin() + long(len));
    CHECK(poseidon_hash(l, part) == poseidon_hash_reference(l, part));
  }
  // A wrong-sized state is refused.
  std::vector<Fr> s(5);
  CHECK_THROWS_WITH(poseidon_permute(poseidon_constants(8), s), InvalidArgument, "width 9");
}

CUZK_TEST(poseidon_constants_cached_across_threads) {
  std::vector<const PoseidonConstants*> got(4);
  std::vector<std::thread> ts;
  for (size_t i = 0; i < got.size(); ++i) ts.emplace_back([&, i] { got[i] = &poseidon_constants(24); });
  for (auto& t : ts) t.join();
  for (auto* p : got) CHECK(p == got[0]);
  CHECK(got[0]->partial_rounds == 59);
}

// Trees, from hashes computed here by hand.
CUZK_TEST(poseidon_tree_roots) {
  ThreadPool pool(2), one(1);
  RandomSource rs(seed());
  auto leaves = [&](size_t n) {
    std::vector<Fr> v(n);
    for (auto& x : v) x = random_field<Fr>(rs);
    return v;
  };
  auto octree = [&](std::span<const Fr> l) {  // 64 leaves, two levels
    std::vector<Fr> mid;
    for (size_t i = 0; i < 8; ++i) mid.push_back(poseidon_hash(8, l.subspan(i * 8, 8)));
    return poseidon_hash(8, mid);
  };
  // 8-0-0 over 64 leaves.
  std::vector<Fr> l64 = leaves(64);
  Fr r800 = poseidon_tree_root(l64, 8, 0, 0, pool);
  CHECK(r800 == octree(l64));
  CHECK(poseidon_tree_root(l64, 8, 0, 0, one) == r800);
  l64[63] += Fr::one();
  CHECK(poseidon_tree_root(l64, 8, 0, 0, pool) != r800);
  // 8-8-0: eight base trees of 64 leaves, their roots hashed by arity 8.
  std::vector<Fr> l512 = leaves(512);
  std::vector<Fr> roots;
  for (size_t i = 0; i < 8; ++i) roots.push_back(octree(std::span<const Fr>(l512).subspan(i * 64, 64)));
  Fr r880 = poseidon_tree_root(l512, 8, 8, 0, pool);
  CHECK(r880 == poseidon_hash(8, roots));
  CHECK(r880 == poseidon_tree_root(l512, 8, 0, 0, pool));  // an 8-8-0 tree is an octree of 512 leaves
  CHECK(r880 != poseidon_tree_root(l512, 8, 4, 2, pool));  // 8 octrees of 64 leaves, hashed 4 then 2
  CHECK_THROWS_WITH(poseidon_tree_root(l512, 8, 2, 0, pool), InvalidArgument, "8-2-0");  // 256: not 8^k
  // 8-8-2: two such sub-trees hashed by arity 2.
  std::vector<Fr> l1024 = leaves(1024);
  std::vector<Fr> subs;
  for (size_t h = 0; h < 2; ++h) {
    std::vector<Fr> r;
    for (size_t i = 0; i < 8; ++i) r.push_back(octree(std::span<const Fr>(l1024).subspan(h * 512 + i * 64, 64)));
    subs.push_back(poseidon_hash(8, r));
  }
  CHECK(poseidon_tree_root(l1024, 8, 8, 2, pool) == poseidon_hash(2, subs));
  // 8-4-0 over 4 base trees of 8 leaves.
  std::vector<Fr> l32 = leaves(32), r4;
  for (size_t i = 0; i < 4; ++i) r4.push_back(poseidon_hash(8, std::span<const Fr>(l32).subspan(i * 8, 8)));
  CHECK(poseidon_tree_root(l32, 8, 4, 0, pool) == poseidon_hash(4, r4));
  // Shapes that are not trees.
  CHECK_THROWS_WITH(poseidon_tree_root(leaves(48), 8, 0, 0, pool), InvalidArgument, "48 leaves");
  CHECK_THROWS_WITH(poseidon_tree_root(leaves(8), 8, 8, 0, pool), InvalidArgument, "8-8-0");
  CHECK_THROWS_WITH(poseidon_tree_root(leaves(128), 8, 0, 2, pool), InvalidArgument, "needs a sub layer");
  CHECK_THROWS_WITH(poseidon_tree_root(leaves(64), 1, 0, 0, pool), InvalidArgument, "2 to 36");
}

CUZK_TEST(poseidon_field_text) {
  const std::string r = "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
  const std::string r_minus_1 = "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000";
  CHECK_EQ(hex(poseidon_fr_from_string(r_minus_1, "x")), r_minus_1);
  CHECK(poseidon_fr_from_string(r_minus_1, "x") == -Fr::one());
  CHECK_THROWS_WITH(poseidon_fr_from_string(r, "input X3"), InvalidArgument, "input X3");
  CHECK_THROWS_WITH(poseidon_fr_from_string(r, "x"), InvalidArgument, "not below");
  CHECK(poseidon_fr_from_string("0x000000000000000000000000000000000000000000000000000000000000000000000000000005",
                                "x") == Fr::from_u64(5));
  CHECK(poseidon_fr_from_string("0x5", "x") == Fr::from_u64(5));
  CHECK(poseidon_fr_from_string("18446744073709551616", "x") == from_limbs(0, 1, 0, 0));  // 2^64
  // r in decimal, and r - 1.
  const std::string r_dec = "52435875175126190479447740508185965837690552500527637822603658699938581184513";
  CHECK_THROWS_WITH(poseidon_fr_from_string(r_dec, "x"), InvalidArgument, "not below");
  CHECK(poseidon_fr_from_string("52435875175126190479447740508185965837690552500527637822603658699938581184512", "x") ==
        -Fr::one());
  CHECK_THROWS_WITH(poseidon_fr_from_string("0x1" + std::string(64, '0'), "x"), InvalidArgument, "2^256");
  CHECK_THROWS_WITH(poseidon_fr_from_string("12a", "x"), InvalidArgument, "unexpected 'a'");
  CHECK_THROWS_WITH(poseidon_fr_from_string("0x", "x"), InvalidArgument, "not a number");
  CHECK_THROWS_WITH(poseidon_fr_from_string("", "x"), InvalidArgument, "not a number");
  CHECK_THROWS_WITH(poseidon_fr_from_string("-1", "x"), InvalidArgument, "unexpected '-'");
  CHECK_EQ(hex(Fr::from_u64(255)), std::string("0x00000000000000000000000000000000000000000000000000000000000000ff"));
}

}  // namespace
}  // namespace cuzk::test
