// The engine on real GPUs (skipped without one): jobs on every visible GPU give the CPU's proofs
// for the same r, s; the streamed mode (key larger than the budget) gives them too; a budget too
// small is refused naming the bytes; device memory beyond the card fails with a clear error;
// the simulated devices' working-set estimate is at least what the GPU backend asks for.
#include <memory>
#include <set>
#include <string>

#include "backend/cuda/device_alloc.hpp"
#include "ec/curves.hpp"
#include "engine/circuit_impl.hpp"
#include "engine/engine.hpp"
#include "gpu_testing.hpp"
#include "setup/setup.hpp"
#include "setup/synthetic.hpp"
#include "testing.hpp"

using namespace cuzk;
using namespace cuzk::engine;

namespace {

template <class E>
struct Fixture {
  using Fr = typename E::Fr;
  ThreadPool pool{0};
  std::unique_ptr<setup::SyntheticCircuit<Fr>> circ;
  std::shared_ptr<CircuitT<E>> circuit;
  explicit Fixture(int log_n) {
    setup::SyntheticSpec spec;
    spec.log_n = log_n;
    spec.seed = test::seed();
    circ = std::make_unique<setup::SyntheticCircuit<Fr>>(spec);
    RandomSource rs(test::seed() + 1);
    auto pk = setup::setup<E>(circ->source(), setup::ToxicWaste<Fr>::draw(rs), setup::cpu_fixed_base<E>(pool), pool);
    circuit = std::make_shared<CircuitT<E>>("gpu-synthetic", std::move(pk), circ->source());
  }
  std::vector<Witness> witnesses(uint32_t k, uint64_t first = 0) {
    std::vector<Witness> out;
    for (uint32_t p = 0; p < k; ++p) out.push_back(Witness::values("w" + std::to_string(p), circ->witness(first + p, pool)));
    return out;
  }
  // The CPU backend's proof of witness `wid` with the r, s the engine gives (job, index).
  std::string cpu_proof(uint64_t wid, uint64_t seed, uint64_t job, uint32_t index) {
    auto work = circuit->synthesize(Witness::values("cpu", circ->witness(wid, pool)), true, pool);
    PartitionRecord rec;
    circuit->kernels_cpu(*work, 0, pool, rec);
    RandomSource rs(partition_seed(seed, job, index));
    return circuit->finish(*work, true, rs).proof_json;
  }
};

std::vector<DeviceConfig> all_gpus(size_t budget = 0) {
  std::vector<DeviceConfig> out;
  for (auto& g : test::gpus_or_skip()) {
    DeviceConfig d;
    d.kind = DeviceConfig::Gpu;
    d.ordinal = g.ordinal;
    d.memory_budget = budget;
    out.push_back(d);
  }
  return out;
}

template <class E>
void gpu_jobs_equal_cpu() {
  auto devs = all_gpus();
  Fixture<E> f(12);
  EngineConfig cfg;
  cfg.devices = devs;
  cfg.seed = 77;
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  auto id = eng.submit({"c", Priority::Normal, f.witnesses(10)});
  auto r = eng.await(id, 120000.0);
  CHECK_MSG(r.state == JobState::Done, r.error);
  std::set<std::string> used;
  for (uint32_t i = 0; i < 10; ++i) {
    used.insert(r.records[i].device);
    CHECK_MSG(r.records[i].device.rfind("gpu:", 0) == 0 && !r.records[i].streamed, r.records[i].device);
    CHECK_MSG(r.proofs[i].proof_json == f.cpu_proof(i, 77, id, i), "partition " << i << " on " << r.records[i].device);
  }
  CHECK_EQ(used.size(), devs.size());
  auto st = eng.status();
  for (auto& d : st.devices) CHECK(d.resident_keys.size() == 1);
}
CUZK_TEST(gpu_engine_proofs_equal_cpu_bn254) { gpu_jobs_equal_cpu<ec::Bn254>(); }
CUZK_TEST(gpu_engine_proofs_equal_cpu_bls12_381) { gpu_jobs_equal_cpu<ec::Bls12381>(); }

CUZK_TEST(gpu_engine_streamed_key_equals_cpu) {
  auto devs = all_gpus();
  Fixture<ec::Bls12381> f(12);
  constexpr size_t kChunk = 1000;  // several chunks per MSM, the last one short
  const size_t ws = f.circuit->working_set_on(devs[0], kChunk);
  const size_t resident = f.circuit->key_bytes() + f.circuit->working_set_on(devs[0], 0);
  CHECK_MSG(ws < resident, ws << " >= " << resident);
  EngineConfig cfg;
  cfg.devices = {devs[0]};
  cfg.devices[0].memory_budget = ws;
  cfg.stream_chunk_points = kChunk;
  cfg.seed = 5;
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  auto id = eng.submit({"c", Priority::Normal, f.witnesses(3, 20)});
  auto r = eng.await(id, 120000.0);
  CHECK_MSG(r.state == JobState::Done, r.error);
  for (uint32_t i = 0; i < 3; ++i) {
    CHECK(r.records[i].streamed && r.records[i].reserved_bytes == ws);
    CHECK_MSG(r.proofs[i].proof_json == f.cpu_proof(20 + i, 5, id, i), "partition " << i);
  }
}

CUZK_TEST(gpu_engine_refuses_a_budget_too_small) {
  auto devs = all_gpus();
  Fixture<ec::Bn254> f(11);
  EngineConfig cfg;
  cfg.devices = {devs[0]};
  const size_t need = f.circuit->working_set_on(devs[0], cfg.stream_chunk_points);
  cfg.devices[0].memory_budget = need - 1;
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(1)}), 60000.0);
  CHECK(r.state == JobState::Failed);
  CHECK_MSG(r.error.find(std::to_string(need)) != std::string::npos &&
                r.error.find(std::to_string(need - 1)) != std::string::npos,
            r.error);
}

CUZK_TEST(gpu_memory_beyond_the_card_is_a_clear_error) {
  auto devs = all_gpus();
  const size_t huge = size_t(1) << 50;
  CHECK_THROWS_WITH(gpu::PoolBuffer(gpu::DeviceId{devs[0].ordinal}, huge, "test"), gpu::GpuError,
                    std::to_string(huge));
  // The device still works afterwards.
  gpu::PoolBuffer ok(gpu::DeviceId{devs[0].ordinal}, size_t(1) << 20, "test");
  CHECK(ok.memory().ptr != nullptr);
}

template <class E>
void estimate_covers_the_gpu(int log_n) {
  auto devs = all_gpus();
  Fixture<E> f(log_n);
  DeviceConfig sim;
  for (size_t chunk : {size_t(0), size_t(1) << 10, size_t(1) << 20}) {
    const size_t est = f.circuit->working_set_on(sim, chunk), real = f.circuit->working_set_on(devs[0], chunk);
    CHECK_MSG(est >= real, "2^" << log_n << " chunk " << chunk << ": estimate " << est << " < GPU " << real);
  }
}
CUZK_TEST(sim_working_set_estimate_covers_the_gpu) {
  estimate_covers_the_gpu<ec::Bn254>(12);
  estimate_covers_the_gpu<ec::Bls12381>(14);
}

}  // namespace
