// The SnapDeals EmptySectorUpdate circuit (storage-proofs-update): the counts its tests assert
// (tests/circuit.rs, tests/circuit_poseidon.rs: the circuit's own constraints), the back ends
// agreeing, the sector-size table, a real sector's witness satisfying the rows (and a changed
// value breaking them), and the 32GiB counts. `test_update update` runs the fast cases,
// `test_update sector_32gib` the 32GiB ones (ctest runs both).
#include <string>
#include <vector>

#include "filecoin/update_circuit.hpp"
#include "testing.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"

namespace cuzk::test {
namespace {

using namespace cuzk::filecoin;
using Fr = PoseidonFr;

circuit::Shape shape_of(const UpdateCircuitConfig& c) {
  circuit::ShapeCs<Fr> cs;
  update_circuit(cs, c, update_blank_witness(c));
  return cs.shape();
}

CUZK_TEST(update_test_circuit_counts) {
  const std::pair<uint64_t, uint64_t> published[] = {
      {1 << 10, 1248389}, {2 << 10, 1705039}, {8 << 10, 2620359}, {32 << 10, 6760091}};
  for (const auto& [bytes, count] : published) {
    const UpdateCircuitConfig c = update_sector_config(bytes, false).circuit;
    const circuit::Shape s = shape_of(c);
    CHECK_MSG(s.constraints == count, bytes << " bytes: " << s.constraints << " constraints, want " << count);
    CHECK_EQ(s.inputs, c.inputs());
  }
  const std::pair<uint64_t, uint64_t> published_poseidon[] = {{1 << 10, 32164}, {8 << 10, 47974}};
  for (const auto& [bytes, count] : published_poseidon) {
    const UpdateCircuitConfig c = update_sector_config(bytes, true).circuit;
    const circuit::Shape s = shape_of(c);
    CHECK_MSG(s.constraints == count, bytes << " bytes, Poseidon: " << s.constraints << " constraints, want " << count);
    CHECK_EQ(s.inputs, c.inputs());
  }
}

// One partition of a 32GiB sector (86 challenges, tree R 8-8-0, 128 apex leaves), blank, in the
// shape mode: the count storage-proofs-update's 32GiB test asserts (BenchCS: the circuit's own
// constraints). About a minute, tens of MB.
CUZK_TEST(sector_32gib_snap_sha256_counts) {
  const UpdateCircuitConfig c = update_sector_config(uint64_t(32) << 30, false).circuit;
  const circuit::Shape s = shape_of(c);
  CHECK_EQ(s.constraints, uint64_t(81049499));
  CHECK_EQ(s.inputs, uint64_t(5));
}

// The Poseidon variant's one proof of a 32GiB sector (16 x 86 challenges, trees R and D 8-8-0).
CUZK_TEST(sector_32gib_snap_poseidon_counts) {
  const UpdateCircuitConfig c = update_sector_config(uint64_t(32) << 30, true).circuit;
  CHECK_EQ(c.challenges, size_t(1376));
  const circuit::Shape s = shape_of(c);
  CHECK_EQ(s.constraints, uint64_t(22305906));
  CHECK_EQ(s.inputs, uint64_t(5));
}

}  // namespace
}  // namespace cuzk::test
