// SPDX-License-Identifier: MIT OR Apache-2.0
// The Fallback PoSt circuit: the counts storage-proofs-post's tests assert (fallback_circuit.rs: 64
// leaves per base tree, 5 challenges per sector; the 32GiB blank circuit of 5 sectors; WindowPoSt
// 32GiB's 2349 sectors from constants.rs), the three back ends agreeing, a witness from real
// Poseidon trees that satisfies the rows and gives generate_public_inputs' inputs, and one changed
// value failing it. `test_post post_` runs the fast cases, `test_post window_32gib` the
// 125 M-constraint one (ctest runs both).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "filecoin/post_circuit.hpp"
#include "filecoin/post_vanilla.hpp"
#include "testing.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::test {
namespace {

using namespace cuzk::filecoin;
using Fr = PoseidonFr;

// The Rust test's configuration: leaves = 64 per base tree.
PostCircuitConfig test_config(const std::string& tree, size_t sectors, size_t challenges = 5) {
  PostCircuitConfig c;
  c.tree = TreeShape::parse("poseidon-" + tree);
  c.leaves = 64 * c.tree.base_tree_count();
  c.sectors = sectors;
  c.challenges = challenges;
  return c;
}

circuit::Shape shape_of(const PostCircuitConfig& c) {
  circuit::ShapeCs<Fr> cs;
  post_circuit(cs, c, post_blank_witness(c));
  return cs.shape();
}

CUZK_TEST(post_fallback_test_circuit_counts) {
  struct Case {
    const char* tree;
    size_t sectors;
    uint64_t inputs, constraints;
  };
  const Case published[] = {
      {"8-0-0", 3, 19, 16869}, {"8-4-0", 3, 19, 22674}, {"8-4-2", 3, 19, 27384}, {"8-0-0", 2, 13, 11246}};
  for (const Case& p : published) {
    const PostCircuitConfig c = test_config(p.tree, p.sectors);
    const circuit::Shape s = shape_of(c);
    CHECK_MSG(s.constraints == p.constraints, p.tree << " x" << p.sectors << ": " << s.constraints << " constraints");
    CHECK_MSG(s.inputs == p.inputs, p.tree << " x" << p.sectors << ": " << s.inputs << " inputs");
    CHECK_EQ(c.inputs(), s.inputs);
    CHECK_EQ(s.b_input_density, uint64_t(1));  // B touches ONE and no other input
  }
}

// test_fallback_post_circuit_poseidon_base_8_bench_cs: 32GiB, 10 challenges, 5 sectors, 8-0-0.
CUZK_TEST(post_blank_32gib_five_sectors) {
  PostCircuitConfig c;
  c.tree = TreeShape::parse("poseidon-8");
  c.leaves = uint64_t(1) << 30;
  c.sectors = 5;
  c.challenges = 10;
  const circuit::Shape s = shape_of(c);
  CHECK_MSG(s.constraints == 266665, s.constraints << " constraints");
  CHECK_EQ(s.inputs, uint64_t(1 + 5 * 11));
}

// The sector-size table: WindowPoSt 10 challenges per sector, 2349 sectors at 32GiB, 2300 at
// 64GiB; WinningPoSt 66 sectors of one challenge; trees by size.
CUZK_TEST(post_sector_sizes) {
  const PostCircuitConfig w32 = post_sector_config(PostKind::window, uint64_t(1) << 35);
  CHECK_EQ(w32.sectors, size_t(2349));
  CHECK_EQ(w32.challenges, size_t(10));
  CHECK_EQ(w32.tree.name(), std::string("poseidon-8-8"));
  CHECK_EQ(w32.leaves, uint64_t(1) << 30);
  const PostCircuitConfig w64 = post_sector_config(PostKind::window, uint64_t(1) << 36);
  CHECK_EQ(w64.sectors, size_t(2300));
  CHECK_EQ(w64.tree.name(), std::string("poseidon-8-8-2"));
  const PostCircuitConfig w2k = post_sector_config(PostKind::window, uint64_t(1) << 11);
  CHECK_EQ(w2k.sectors, size_t(2));
  CHECK_EQ(w2k.tree.name(), std::string("poseidon-8"));
  const PostCircuitConfig win = post_sector_config(PostKind::winning, uint64_t(1) << 35);
  CHECK_EQ(win.sectors, size_t(66));
  CHECK_EQ(win.challenges, size_t(1));
  // One sector of the 32GiB circuit is 53,333 constraints: 2349 of them the 125,279,217 of
  // constants.rs (test_post window_post_32gib synthesizes them all).
  PostCircuitConfig one = w32;
  one.sectors = 1;
  CHECK_EQ(shape_of(one).constraints, uint64_t(53333));
  // Likewise one 64GiB sector (8-8-2) is 56,473: 2300 of them the 129,887,900 of constants.rs.
  PostCircuitConfig one64 = w64;
  one64.sectors = 1;
  CHECK_EQ(shape_of(one64).constraints, uint64_t(56473));
  CHECK_EQ(uint64_t(w64.sectors) * shape_of(one64).constraints, uint64_t(129887900));
  CHECK_THROWS_WITH(post_sector_config(PostKind::window, 12345), InvalidArgument, "not one rust-fil-proofs supports");
  PostCircuitConfig bad = w32;
  bad.sectors = 0;
  CHECK_THROWS_WITH(bad.validate(), InvalidArgument, "no sectors");
}

// The rows kept (RecordCs) give the counts ShapeCs computes without keeping them, and the values
// back end, sequential or over a pool, allocates the same variables.
CUZK_TEST(post_back_ends_agree) {
  const PostCircuitConfig c = test_config("8-4-0", 3);
  const PostWitness w = post_blank_witness(c);
  circuit::RecordCs<Fr, false> rec;
  post_circuit(rec, c, w);
  CHECK(rec.shape() == shape_of(c));
  ThreadPool pool(2);
  circuit::WitnessCs<Fr> wit;
  post_circuit(wit, c, w, &pool);
  CHECK_EQ(wit.num_inputs(), rec.num_inputs());
  CHECK_EQ(wit.num_aux(), rec.num_aux());
  CHECK_EQ(wit.num_constraints(), rec.num_constraints());
  // The counting back end over a pool (blocks counted apart, then added) counts as it does alone.
  circuit::ShapeCs<Fr> par;
  post_circuit(par, c, w, &pool);
  CHECK(par.shape() == shape_of(c));
}

// The same for blocks that share variables allocated before them: a PoRep partition's
// challenges all use replica_id's bits, comm_d, comm_c and comm_r_last.
CUZK_TEST(post_parallel_shape_with_shared_variables) {
  PorepCircuitConfig c;
  c.tree = TreeShape::parse("poseidon-8");
  c.nodes = 8;
  c.layers = 2;
  c.challenges = 2;
  const PorepWitness w = porep_blank_witness(c);
  circuit::ShapeCs<Fr> seq, par;
  porep_circuit(seq, c, w);
  ThreadPool pool(2);
  porep_circuit(par, c, w, &pool);
  CHECK(par.shape() == seq.shape());
  CHECK(par.shape().a_aux_density > 0 && par.shape().b_aux_density > 0);
}

// Real trees: per sector random leaves, tree R's root comm_r_last, a random comm_c, comm_r =
// Poseidon2(comm_c, comm_r_last), and the paths of challenges derived as the vanilla proofs derive them.
struct RealPost {
  PostCircuitConfig c;
  PostWitness w;
  std::vector<Fr> comm_r;
  std::vector<std::vector<uint64_t>> challenges;
};

RealPost real_post(const std::string& tree, size_t sectors, RandomSource& rs) {
  RealPost p;
  p.c = test_config(tree, sectors);
  std::array<uint8_t, 32> randomness{};
  for (auto& b : randomness) b = uint8_t(rs.next());
  randomness[31] &= 0x3f;
  for (size_t s = 0; s < sectors; ++s) {
    std::vector<Fr> leaves;
    for (uint64_t i = 0; i < p.c.leaves; ++i) leaves.push_back(random_field<Fr>(rs));
    PostSectorWitness sw;
    sw.comm_c = random_field<Fr>(rs);
    std::vector<uint64_t> chs;
    for (size_t n = 0; n < p.c.challenges; ++n) {
      const uint64_t ch = post_leaf_challenge(randomness, 100 + s, n, p.c.leaves);
      const PorWitness pw = por_witness(p.c.tree, leaves, ch);
      sw.comm_r_last = pw.root;
      sw.challenges.push_back({pw.leaf, pw.path});
      chs.push_back(ch);
    }
    const Fr pair[2] = {sw.comm_c, sw.comm_r_last};
    sw.comm_r = poseidon_hash(2, pair);
    p.comm_r.push_back(sw.comm_r);
    p.challenges.push_back(chs);
    p.w.sectors.push_back(sw);
  }
  return p;
}

CUZK_TEST(post_witness_satisfies_and_breaks) {
  RandomSource rs(seed());
  for (const char* tree : {"8-0-0", "8-4-0", "8-4-2"}) {
    const RealPost p = real_post(tree, 3, rs);
    circuit::RecordCs<Fr> cs;
    post_circuit(cs, p.c, p.w);
    CHECK_MSG(cs.is_satisfied(), tree << ": row " << cs.first_unsatisfied() << " unsatisfied");
    // generate_public_inputs: per sector comm_r, then each challenged leaf's index.
    const std::vector<Fr> want = post_public_inputs(p.c, p.comm_r, p.challenges);
    CHECK_EQ(cs.inputs.size(), want.size() + 1);
    for (size_t i = 0; i < want.size() && i + 1 < cs.inputs.size(); ++i)
      CHECK_MSG(cs.inputs[i + 1] == want[i], tree << ": input " << i + 1);
    // The paths encode the challenges.
    for (size_t s = 0; s < p.w.sectors.size(); ++s)
      for (size_t n = 0; n < p.c.challenges; ++n)
        CHECK_EQ(post_path_index(p.c.tree, p.c.leaves, p.w.sectors[s].challenges[n].path), p.challenges[s][n]);
    // A test of the test: any one value changed breaks a row. comm_r_last, comm_c and comm_r are
    // the first three aux of each sector; a leaf, a sibling and the last aux too.
    const size_t per_sector = cs.aux.size() / 3;
    for (size_t i :
         {size_t(0), size_t(1), size_t(2), size_t(3), size_t(5), per_sector, per_sector + 2, cs.aux.size() - 1}) {
      circuit::RecordCs<Fr> bad = cs;
      bad.aux.at(i) += Fr::one();
      CHECK_MSG(!bad.is_satisfied(), tree << ": aux " << i << " changed, still satisfied");
    }
    // A wrong comm_r (the public input) fails the comm_r row; a wrong leaf fails its path.
    RealPost q = p;
    q.w.sectors[1].comm_r += Fr::one();
    circuit::RecordCs<Fr> bad_r;
    post_circuit(bad_r, q.c, q.w);
    CHECK(!bad_r.is_satisfied());
    q = p;
    q.w.sectors[2].challenges[4].leaf += Fr::one();
    circuit::RecordCs<Fr> bad_leaf;
    post_circuit(bad_leaf, q.c, q.w);
    CHECK(!bad_leaf.is_satisfied());
    // The values back end, sequential and over a pool, gives RecordCs's values.
    ThreadPool pool(3);
    for (ThreadPool* tp : {static_cast<ThreadPool*>(nullptr), &pool}) {
      circuit::WitnessCs<Fr> wit;
      post_circuit(wit, p.c, p.w, tp);
      CHECK(wit.inputs.size() == cs.inputs.size() &&
            std::equal(wit.inputs.begin(), wit.inputs.end(), cs.inputs.begin()));
      CHECK(wit.aux.size() == cs.aux.size() && std::equal(wit.aux.begin(), wit.aux.end(), cs.aux.begin()));
      CHECK_EQ(wit.num_constraints(), cs.num_constraints());
    }
  }
}

// The public inputs repeat the last sector when the partition has more room than sectors.
CUZK_TEST(post_public_inputs_repeat_the_last_sector) {
  const PostCircuitConfig c = test_config("8-0-0", 3, 2);
  const Fr comm_r[2] = {Fr::from_u64(7), Fr::from_u64(8)};
  const std::vector<uint64_t> chs[2] = {{1, 2}, {3, 4}};
  const std::vector<Fr> in = post_public_inputs(c, comm_r, chs);
  const uint64_t want[] = {7, 1, 2, 8, 3, 4, 8, 3, 4};
  CHECK_EQ(in.size(), size_t(9));
  for (size_t i = 0; i < 9 && i < in.size(); ++i) CHECK_MSG(in[i] == Fr::from_u64(want[i]), "input " << i);
  CHECK_THROWS_WITH(post_public_inputs(c, comm_r, std::span<const std::vector<uint64_t>>(chs, 1)), InvalidArgument,
                    "each with its challenges");
}

std::string vectors_dir() {
  const char* d = std::getenv("CUZK_FILECOIN_VECTORS");
  return d ? std::string(d) : std::filesystem::path(fixtures_dir()).parent_path().string() + "/filecoin/vectors";
}

// The real WindowPoSt vanilla proof (Curio's golden, 32GiB, 8-8-0) parses to its layout, holds
// against its public data, and every cut of it is refused with an error, never a crash.
CUZK_TEST(post_vanilla_proof_reads_and_checks) {
  const std::string dir = vectors_dir();
  const std::vector<uint8_t> bytes = read_post_vproof_bytes(dir + "/windowpost-32gib.vproof");
  const FallbackPostSectorProof p = parse_fallback_post_sector_proof(bytes, "vproof");
  CHECK_EQ(p.sector_id, uint64_t(1));
  CHECK_EQ(p.sectors.size(), size_t(1));
  if (p.sectors.size() != 1) return;
  CHECK_EQ(p.sectors[0].inclusion_proofs.size(), size_t(10));
  for (const PostMerkleProof& m : p.sectors[0].inclusion_proofs) {
    CHECK(m.kind == PostMerkleProof::sub);
    CHECK_EQ(m.base_levels, size_t(9));
    CHECK_EQ(m.sub_levels, size_t(1));
    CHECK(m.root == p.sectors[0].comm_r_last);
  }
  const PostPublicData pub = parse_post_public_json(dir + "/windowpost-32gib.pub.json");
  CHECK_EQ(pub.prover, uint64_t(1000));
  CHECK(pub.sectors.size() == 1 && pub.sectors[0].comm_r == p.comm_r);
  const PostCheckResult r = check_fallback_post(p, pub);
  CHECK_MSG(r.failure.empty(), r.failure);
  CHECK_EQ(r.passed.size(), size_t(5));
  // With one sector, both api numberings give its challenges 0..9.
  CHECK_EQ(post_challenge_index(PostApiVersion::v1_1, 0, 10, 7), uint64_t(7));
  CHECK_EQ(post_challenge_index(PostApiVersion::v1_2, 3, 10, 7), uint64_t(7));
  CHECK_EQ(post_challenge_index(PostApiVersion::v1_1, 3, 10, 7), uint64_t(37));
  // Every prefix is refused (a FormatError naming a field and offset); so are trailing bytes.
  size_t refused = 0;
  for (size_t n = 0; n < bytes.size(); n += (n < 200 ? 1 : 97)) {
    try {
      (void)parse_fallback_post_sector_proof(std::span<const uint8_t>(bytes.data(), n), "vproof");
    } catch (const FormatError& e) {
      refused += std::string(e.what()).find(" at offset ") != std::string::npos;
    }
  }
  CHECK_EQ(refused, size_t(200 + (bytes.size() - 200 + 96) / 97));
  std::vector<uint8_t> more = bytes;
  more.push_back(0);
  CHECK_THROWS_WITH(parse_fallback_post_sector_proof(more, "vproof"), FormatError, "1 bytes after");
  // A length beyond what the bytes can hold is refused before any allocation.
  std::vector<uint8_t> huge = bytes;
  huge[40 + 7] = 0x7f;  // vanilla_proof.sectors length
  CHECK_THROWS_WITH(parse_fallback_post_sector_proof(huge, "vproof"), FormatError, "vanilla_proof.sectors length");
  std::vector<uint8_t> tag = bytes;
  tag[56] = 3;  // the first MerkleProof's variant
  CHECK_THROWS_WITH(parse_fallback_post_sector_proof(tag, "vproof"), FormatError, "tag 3");
}

CUZK_TEST(post_sealed_cid_and_proof_types) {
  const Fr c = sealed_cid_comm_r("bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl");
  CHECK_EQ(poseidon_fr_to_hex(c), std::string("0x6b329f1c186ebcd98b881bf243ed5c8e93c5d4138790455ac973c6e3861069df"));
  CHECK_THROWS_WITH(sealed_cid_comm_r("zagboea4b5abc"), InvalidArgument, "multibase 'b'");
  CHECK_THROWS_WITH(sealed_cid_comm_r("bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mt"),
                    InvalidArgument, "sealed CID");
  CHECK_THROWS_WITH(sealed_cid_comm_r("baga6ea4seaqaaaicamcakbqhbaequcymbuha6earcijrifiwc4mbsgq3dqor4hy"),
                    InvalidArgument,
                    "codec");  // an unsealed CID (fil-commitment-unsealed)
  CHECK_EQ(seal_proof_info(8).name, std::string("StackedDrg32GiBV1_1"));
  CHECK_EQ(seal_proof_info(8).sector_bytes, uint64_t(1) << 35);
  CHECK_EQ(post_proof_info(8).name, std::string("StackedDrgWindow32GiBV1"));
  CHECK(post_proof_info(13).api == PostApiVersion::v1_2);
  CHECK(post_proof_info(3).winning);
  CHECK_THROWS_WITH(seal_proof_info(20), InvalidArgument, "not a registered seal proof");
  CHECK_THROWS_WITH(post_proof_info(15), InvalidArgument, "not a registered PoSt proof");
}

// WindowPoSt 32GiB: 2349 sectors of 10 challenges, 125,279,217 constraints (constants.rs), in
// shape mode (counts and densities only: bitmaps of a few tens of MB), the sectors over all cores.
CUZK_TEST(window_32gib_2349_sectors) {
  const PostCircuitConfig c = post_sector_config(PostKind::window, uint64_t(1) << 35);
  ThreadPool pool;  // the sectors counted in parallel (for_each_block)
  circuit::ShapeCs<Fr> cs;
  post_circuit(cs, c, post_blank_witness(c), &pool);
  const circuit::Shape s = cs.shape();
  CHECK_MSG(s.constraints == 125279217, s.constraints << " constraints");
  CHECK_EQ(s.inputs, uint64_t(1 + 2349 * 11));
  CHECK_EQ(s.constraints, uint64_t(2349) * 53333);
  // Every count is 2349 times one sector's (synthesized alone, on one core), ONE aside.
  PostCircuitConfig one = c;
  one.sectors = 1;
  const circuit::Shape x = shape_of(one);
  const uint64_t n = 2349;
  CHECK_EQ(s.aux, n * x.aux);
  CHECK_EQ(s.nnz_a, n * x.nnz_a);
  CHECK_EQ(s.nnz_b, n * x.nnz_b);
  CHECK_EQ(s.nnz_c, n * x.nnz_c);
  CHECK_EQ(s.a_aux_density, n * x.a_aux_density);
  CHECK_EQ(s.b_aux_density, n * x.b_aux_density);
  CHECK_EQ(s.b_input_density, uint64_t(1));
  // As `cuzk filecoin shape window-post --sector-size 32GiB` prints them.
  CHECK_EQ(s.aux, uint64_t(126902376));
  CHECK_EQ(s.nnz_a, uint64_t(862390719));
  CHECK_EQ(s.nnz_b, uint64_t(127398015));
  CHECK_EQ(s.nnz_c, uint64_t(157401792));
  CHECK_EQ(s.a_aux_density, uint64_t(96179805));
  CHECK_EQ(s.b_aux_density, uint64_t(91925766));
}

}  // namespace
}  // namespace cuzk::test
