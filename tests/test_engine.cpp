// SPDX-License-Identifier: MIT OR Apache-2.0
// The proving engine on simulated devices: jobs of many partitions complete with proofs that
// verify (checked here again from the JSON the engine returns), work spreads over devices by
// their speed, each device's kernels run one at a time while devices run at once and staging
// overlaps kernels, budgets are kept (resident, streamed, refused), PCE and row-by-row evaluation
// agree, priorities and job age order the work, cancellation, retries after a device fault,
// failures from bad witnesses, and the parsing helpers.
//
// Circuits are synthetic (setup/synthetic.hpp) with an insecure in-memory key (setup/setup.hpp),
// made once per (curve, size) and shared by the tests; a fixture outlives every engine that uses
// it (its RowSource captures the SyntheticCircuit).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "backend/cpu/device.hpp"
#include "backend/cpu/h.hpp"
#include "backend/cuda/probe.hpp"
#include "ec/curves.hpp"
#include "engine/circuit_impl.hpp"
#include "engine/engine.hpp"
#include "groth16/encode.hpp"
#include "groth16/self_verify.hpp"
#include "groth16/sequence.hpp"
#include "groth16/verifier.hpp"
#include "io/json_parse.hpp"
#include "setup/setup.hpp"
#include "setup/synthetic.hpp"
#include "testing.hpp"
#include "util/carver.hpp"
#include "util/error.hpp"
#include "util/host.hpp"
#include "util/ranges.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"
#include "util/time.hpp"

using namespace cuzk;
using namespace cuzk::engine;

namespace {

// ------------------------------------------------------------------ fixtures
template <class E>
struct Fixture {
  using Fr = typename E::Fr;
  ThreadPool pool{2};
  setup::SyntheticCircuit<Fr> circ;
  std::shared_ptr<CircuitT<E>> circuit;
  groth16::VerifyingKey<E> vk;

  explicit Fixture(int log_n, backend::HForm form = backend::HForm::OddCoset)
      : circ([&] {
          setup::SyntheticSpec s;
          s.shape = setup::Shape::Porep;
          s.log_n = log_n;
          s.seed = test::seed() ^ (0xe7u + log_n);
          s.n_inputs = 16;
          s.n_public = 2;
          return s;
        }()) {
    RandomSource rs(test::seed() + uint64_t(log_n));
    auto pk = setup::setup<E>(circ.source(), setup::ToxicWaste<Fr>::draw(rs), setup::cpu_fixed_base<E>(pool), pool,
                              nullptr, {}, form);
    vk = groth16::verifying_key_of<E>(pk);
    circuit =
        std::make_shared<CircuitT<E>>(std::string("synthetic-") + std::to_string(log_n), std::move(pk), circ.source());
  }

  std::vector<cpu::Scalar> witness(uint64_t p) { return circ.witness(p, pool); }
  std::vector<Witness> witnesses(size_t n, uint64_t first = 0) {
    std::vector<Witness> out;
    for (size_t i = 0; i < n; ++i)
      out.push_back(Witness::values("partition " + std::to_string(first + i), witness(first + i)));
    return out;
  }
  // The same witnesses written where the engine says (Witness::fill) when it synthesizes them.
  std::vector<Witness> fill_witnesses(size_t n, uint64_t first = 0) {
    std::vector<Witness> out;
    for (size_t i = 0; i < n; ++i) {
      Witness w;
      w.name = "partition " + std::to_string(first + i);
      w.fill = [this, p = first + i](std::span<cpu::Scalar> values) { circ.witness_into(p, values, pool); };
      out.push_back(std::move(w));
    }
    return out;
  }

  // Independent of the engine: parse the returned JSON and check the pairing equation against
  // the public inputs of `w`.
  bool verifies(const ProofData& pd, const std::vector<cpu::Scalar>& w) const {
    auto proof = groth16::proof_from_json<E>(io::parse_json(pd.proof_json), "proof.json");
    auto pub =
        groth16::public_from_json<E>(io::parse_json(groth16::public_json(w, vk.n_public)), "public.json", vk.n_public);
    return groth16::verify_proof<E>(vk, pub, proof);
  }
};

// Made once per (curve, log_n); alive until the binary exits (after every engine).
template <class E>
Fixture<E>& fixture(int log_n, backend::HForm form = backend::HForm::OddCoset) {
  static std::map<std::pair<int, backend::HForm>, std::unique_ptr<Fixture<E>>> made;
  auto& f = made[{log_n, form}];
  if (!f) f = std::make_unique<Fixture<E>>(log_n, form);
  return *f;
}

DeviceSpec sim(int k, double kernel_ms = 0, double stage_ms = 0, double speed = 1, size_t budget = 0) {
  DeviceSpec d;
  d.kind = DeviceSpec::Kind::Sim;
  d.index = k;
  d.sim_kernel_ms = kernel_ms;
  d.sim_stage_ms = stage_ms;
  d.speed = speed;
  d.memory = budget;
  d.threads = 1;
  return d;
}

EngineConfig config(std::vector<DeviceSpec> devs, int workers = 2) {
  EngineConfig c;
  c.devices = std::move(devs);
  c.workers_per_device = workers;
  c.synthesis_threads = 2;
  c.seed = test::seed();
  return c;
}

// What a partition of f's circuit takes on a simulated device (the engine charges the same).
struct Sizes {
  size_t key = 0, ws = 0, ws_s = 0;
  size_t key_plain = 0;  // the key without A, B1 and C in one call (C's section unpadded)
};
template <class E>
Sizes sizes(Fixture<E>& f, size_t chunk = EngineConfig::kMinStreamChunk) {
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true;
  cpu::CpuDevice d(o);
  // The plan the engine takes on a device without tables: A, B1 and C in one call.
  const auto t = f.circuit->plan_tables(d, 0);
  return {f.circuit->key_bytes(d, t), f.circuit->working_set_bytes(d, 0, t), f.circuit->working_set_bytes(d, chunk),
          f.circuit->key_bytes(d)};
}

std::vector<std::string> resident(const DeviceStatus& d) {
  std::vector<std::string> v;
  for (auto& k : d.resident_keys) v.push_back(k.circuit);
  return v;
}

bool overlap(const Span& x, const Span& y) {
  return x.happened() && y.happened() && std::max(x.start_ms, y.start_ms) < std::min(x.end_ms, y.end_ms);
}

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

std::map<std::string, size_t> per_device(const JobResult& r) {
  std::map<std::string, size_t> m;
  for (auto& rec : r.records) ++m[rec.device];
  return m;
}

// Every proof of a Done job verifies against its own witness and its public.json is that
// witness's; proof i does not verify against witness i+1 (so the check can fail).
template <class E>
void check_proofs(Fixture<E>& f, const JobResult& r, uint64_t first, size_t n) {
  CHECK_MSG(r.state == JobState::Done, job_state_name(r.state) << ": " << r.error);
  CHECK_EQ(r.proofs.size(), n);
  CHECK_EQ(r.records.size(), n);
  std::set<std::string> distinct;
  for (size_t i = 0; i < n; ++i) {
    auto w = f.witness(first + i);
    CHECK_MSG(r.proofs[i].public_json == groth16::public_json(w, f.vk.n_public), "partition " << i);
    CHECK_MSG(f.verifies(r.proofs[i], w), "partition " << i << " does not verify");
    CHECK_MSG(!r.proofs[i].compressed.empty(), "partition " << i);
    distinct.insert(r.proofs[i].proof_json);
    CHECK_MSG(r.records[i].ok && r.records[i].index == i && r.records[i].job == r.id, "record " << i);
  }
  CHECK_EQ(distinct.size(), n);
  if (n > 1) CHECK(!f.verifies(r.proofs[0], f.witness(first + 1)));
}

// A thread that stops and joins when its scope ends (also when a CHECK throws).
struct Poller {
  std::atomic<bool> stop{false};
  std::thread t;
  template <class F>
  explicit Poller(F fn)
      : t([this, fn] {
          while (!stop.load()) {
            fn();
            std::this_thread::sleep_for(std::chrono::microseconds(500));
          }
        }) {}
  ~Poller() { halt(); }
  void halt() {
    stop = true;
    if (t.joinable()) t.join();
  }
};

}  // namespace

// ------------------------------------------------------------------ 1. a job on two devices
template <class E>
void ten_partitions_on_two_devices() {
  auto& f = fixture<E>(9);
  auto devs = backend::parse_device_specs("sim:2");
  for (auto& d : devs) d.sim_kernel_ms = 15, d.threads = 1;
  Engine eng(config(devs));
  eng.register_circuit("c", f.circuit);
  auto id = eng.submit({"c", Priority::Normal, f.witnesses(10)});
  auto r = eng.await(id, 30000.0);
  check_proofs(f, r, 0, 10);
  auto counts = per_device(r);
  CHECK_MSG(counts.size() == 2 && counts.count("sim:0") && counts.count("sim:1"), "both devices used");
  size_t sum = 0;
  for (auto& [d, k] : counts) sum += k;
  CHECK_EQ(sum, size_t(10));
  for (auto& rec : r.records) {
    CHECK_MSG(rec.worker >= 0 && rec.worker < 2, rec.worker);
    CHECK_EQ(rec.attempts, 1);
    CHECK(!rec.streamed);
    CHECK(rec.reserved_bytes == sizes(f).ws);
    CHECK(rec.spans[Phase::Synthesis].happened() && rec.spans[Phase::Stage].happened() &&
          rec.spans[Phase::Kernels].happened() && rec.spans[Phase::Finish].happened());
    CHECK(rec.spans[Phase::Queue].start_ms <= rec.spans[Phase::Synthesis].start_ms &&
          rec.spans[Phase::Synthesis].end_ms <= rec.spans[Phase::Stage].start_ms &&
          rec.spans[Phase::Stage].end_ms <= rec.spans[Phase::LockWait].end_ms &&
          rec.spans[Phase::LockWait].end_ms <= rec.spans[Phase::Kernels].start_ms &&
          rec.spans[Phase::Kernels].end_ms <= rec.spans[Phase::Finish].start_ms);
    CHECK(rec.ms(Phase::MsmA) > 0 && rec.ms(Phase::MsmB2) > 0 && rec.ms(Phase::MsmH) > 0);
    CHECK_EQ(rec.device_ms, -1.0);  // simulated devices compute on the host: no clock of their own
  }
  for (auto& dr : eng.device_records()) {
    CHECK_EQ(dr.partitions, counts[dr.name]);
    CHECK(dr.busy_ms > 0 && dr.workers == 2);
  }
  auto st = eng.status();
  CHECK_EQ(st.partitions_done, size_t(10));
  CHECK_EQ(st.jobs_done, size_t(1));
  CHECK_EQ(st.partitions_retried, size_t(0));
  for (auto& d : st.devices) {
    CHECK(resident(d) == std::vector<std::string>{"c"});
    CHECK_EQ(d.reserved_bytes, sizes(f).key);  // only the resident key is left
  }
}
CUZK_TEST(engine_ten_partitions_two_devices_bn254) { ten_partitions_on_two_devices<ec::Bn254>(); }
CUZK_TEST(engine_ten_partitions_two_devices_bls12_381) { ten_partitions_on_two_devices<ec::Bls12381>(); }

// ------------------------------------------------------------------ 2. unequal speeds
CUZK_TEST(engine_faster_device_takes_more) {
  // Small, with floors long enough (800 ms a partition, 200 ms at speed 4) that they, not a loaded
  // CPU, set the devices' speeds.
  auto& f = fixture<ec::Bn254>(7);
  Engine eng(config({sim(0, 800, 0, 1.0), sim(1, 800, 0, 4.0)}, 1));
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(12)}), 30000.0);
  CHECK_MSG(r.state == JobState::Done, r.error);
  auto counts = per_device(r);
  CHECK_MSG(counts["sim:1"] > counts["sim:0"] + 2, "slow " << counts["sim:0"] << ", fast " << counts["sim:1"]);
  auto dr = eng.device_records();
  CHECK_EQ(dr[0].partitions + dr[1].partitions, size_t(12));
  CHECK(contains(dr[1].description, "4.0"));
}

// ------------------------------------------------------------------ 3. locks
CUZK_TEST(engine_lock_per_device_from_spans) {
  auto& f = fixture<ec::Bn254>(9);
  Engine eng(config({sim(0, 30, 15), sim(1, 30, 15)}, 2));
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(12)}), 30000.0);
  CHECK_MSG(r.state == JobState::Done, r.error);
  bool cross = false, stage_under_kernels = false;
  for (size_t i = 0; i < r.records.size(); ++i)
    for (size_t k = 0; k < r.records.size(); ++k) {
      if (i == k) continue;
      const auto &x = r.records[i], &y = r.records[k];
      if (x.device == y.device) {
        CHECK_MSG(!overlap(x.spans[Phase::Kernels], y.spans[Phase::Kernels]),
                  "partitions " << i << " and " << k << " in kernels at once on " << x.device);
        stage_under_kernels |= overlap(x.spans[Phase::Stage], y.spans[Phase::Kernels]);
      } else {
        cross |= overlap(x.spans[Phase::Kernels], y.spans[Phase::Kernels]);
      }
    }
  CHECK_MSG(cross, "no two devices ran kernels at the same time");
  CHECK_MSG(stage_under_kernels, "no partition staged while another ran kernels on its device");
  // Both workers of each device ran something.
  std::set<std::pair<std::string, int>> workers;
  for (auto& rec : r.records) workers.insert({rec.device, rec.worker});
  CHECK_EQ(workers.size(), size_t(4));
}

// ------------------------------------------------------------------ 4. budgets kept
CUZK_TEST(engine_budgets_per_device) {
  auto& f = fixture<ec::Bn254>(9);
  const size_t one = sizes(f).key + sizes(f).ws;
  Engine eng(config({sim(0, 30, 10, 1, one + 1), sim(1, 30, 10, 1, 3 * one)}, 2));
  eng.register_circuit("c", f.circuit);
  std::mutex m;
  std::vector<size_t> max_reserved(2, 0);
  std::vector<std::string> violations;
  Poller poll([&] {
    auto st = eng.status();
    std::lock_guard lk(m);
    for (size_t d = 0; d < 2; ++d) {
      auto& ds = st.devices[d];
      max_reserved[d] = std::max(max_reserved[d], ds.reserved_bytes);
      if (ds.reserved_bytes > ds.record.budget_bytes || ds.reserved_bytes + ds.free_bytes != ds.record.budget_bytes)
        violations.push_back(ds.record.name + " reserved " + std::to_string(ds.reserved_bytes));
    }
  });
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(10)}), 30000.0);
  poll.halt();
  CHECK_MSG(r.state == JobState::Done, r.error);
  CHECK_MSG(violations.empty(), violations.front());
  const auto st = eng.status();
  CHECK_EQ(st.devices[0].record.budget_bytes, one + 1);
  CHECK_EQ(st.devices[1].record.budget_bytes, 3 * one);
  CHECK(max_reserved[0] > 0 && max_reserved[0] <= one + 1);
  // From the records: on sim:0 (room for one partition) a partition's staging ends only after the
  // previous one's kernels released the budget; on sim:1 (room for two) staging overlaps kernels.
  auto on = [&](const std::string& dev) {
    std::vector<PartitionRecord> v;
    for (auto& rec : r.records)
      if (rec.device == dev) v.push_back(rec);
    std::sort(v.begin(), v.end(),
              [](auto& a, auto& b) { return a.spans[Phase::Kernels].start_ms < b.spans[Phase::Kernels].start_ms; });
    return v;
  };
  auto d0 = on("sim:0"), d1 = on("sim:1");
  CHECK_MSG(d0.size() >= 2 && d1.size() >= 2, d0.size() << " " << d1.size());
  for (size_t i = 1; i < d0.size(); ++i)
    CHECK_MSG(d0[i].spans[Phase::Stage].end_ms >= d0[i - 1].spans[Phase::Kernels].end_ms,
              "sim:0 staged partition " << d0[i].index << " before " << d0[i - 1].index << " released");
  bool staged_early = false;
  for (size_t i = 1; i < d1.size(); ++i)
    staged_early |= d1[i].spans[Phase::Stage].end_ms < d1[i - 1].spans[Phase::Kernels].end_ms;
  CHECK_MSG(staged_early, "sim:1 never staged a partition beside another's kernels");
  // The wait for the budget is recorded inside the stage: on sim:0 a partition whose worker was
  // ready before the previous kernels ended waited for them (30 ms of simulated kernels).
  double waited = 0;
  for (auto& rec : r.records) {
    CHECK_MSG(rec.ms(Phase::BudgetWait) >= 0 && rec.ms(Phase::BudgetWait) <= rec.spans[Phase::Stage].ms() + 1e-6,
              "partition " << rec.index << ": budget wait " << rec.ms(Phase::BudgetWait) << " ms, stage "
                           << rec.spans[Phase::Stage].ms());
    if (rec.device == "sim:0") waited = std::max(waited, rec.ms(Phase::BudgetWait));
  }
  CHECK_MSG(waited >= 10, "no partition on sim:0 waited for its budget (longest wait " << waited << " ms)");
}

// preload_all: every device at once; one that cannot hold the key beside a partition says so
// (an InvalidArgument) while the others take it.
CUZK_TEST(engine_preload_all_devices) {
  auto& f = fixture<ec::Bn254>(9);
  const size_t one = sizes(f).key + sizes(f).ws;
  Engine eng(config({sim(0, 0, 0, 1, 2 * one), sim(1, 0, 0, 1, one - 1), sim(2, 0, 0, 1, 2 * one)}, 2));
  eng.register_circuit("c", f.circuit);
  auto out = eng.preload_all("c");
  CHECK_EQ(out.size(), size_t(3));
  CHECK(out[0].device == "sim:0" && out[0].error.empty());
  CHECK(out[1].device == "sim:1" && out[1].invalid_argument && contains(out[1].error, "does not fit on sim:1"));
  CHECK(out[2].device == "sim:2" && out[2].error.empty());
  auto st = eng.status();
  CHECK(resident(st.devices[0]) == std::vector<std::string>{"c"});
  CHECK(st.devices[1].resident_keys.empty());
  CHECK(resident(st.devices[2]) == std::vector<std::string>{"c"});
  auto bad = eng.preload_all("no-such-circuit");
  for (auto& o : bad) CHECK(o.invalid_argument && contains(o.error, "unknown circuit"));
}

// ------------------------------------------------------------------ 5. streamed key
template <class E>
void streamed_key(backend::HForm form = backend::HForm::OddCoset) {
  auto& f = fixture<E>(9, form);
  constexpr size_t kChunk = 100;
  const auto sz = sizes(f, kChunk);
  const size_t key = sz.key, ws = sz.ws, ws_s = sz.ws_s;
  CHECK_MSG(ws_s < key + ws, "streamed " << ws_s << " >= resident " << key + ws);
  // sim:1 holds neither plan's key beside a working set.
  auto cfg = config({sim(0, 0, 0, 1, ws_s), sim(1, 0, 0, 1, std::min(key, sz.key_plain) + ws - 1)}, 1);
  cfg.stream_chunk_points = kChunk;
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(4, 20)}), 30000.0);
  check_proofs(f, r, 20, 4);
  for (auto& rec : r.records) {
    CHECK_MSG(rec.streamed, "partition " << rec.index << " on " << rec.device);
    CHECK_EQ(rec.reserved_bytes, ws_s);
  }
  for (auto& d : eng.status().devices) {
    CHECK(d.resident_keys.empty());
    CHECK_EQ(d.reserved_bytes, size_t(0));
  }
}
CUZK_TEST(engine_streamed_key_bn254) { streamed_key<ec::Bn254>(); }
// bellperson's convention (H as coefficients, compacted A and B gathered on the device), with
// the key resident on simulated devices (which allocate exactly what they charge) and streamed.
CUZK_TEST(engine_bellperson_key_resident_and_streamed) {
  auto& f = fixture<ec::Bls12381>(9, backend::HForm::Coefficients);
  CHECK(f.circuit->key().compact && f.circuit->key().h_form == backend::HForm::Coefficients);
  Engine eng(config(backend::parse_device_specs("sim:2")));
  eng.register_circuit("c", f.circuit);
  check_proofs(f, eng.await(eng.submit({"c", Priority::Normal, f.witnesses(4)}), 30000.0), 0, 4);
  streamed_key<ec::Bls12381>(backend::HForm::Coefficients);
}
// The streamed kernels (MSMs in pieces, the last one short) give the resident kernels' results,
// on a simulated device (memory of its own: the bases come from the host chunk by chunk).
template <class E>
void chunked_kernels_match() {
  auto& f = fixture<E>(9);
  using Work = typename CircuitT<E>::Work;
  ThreadPool pool(1);
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true, o.threads = 1;
  cpu::CpuDevice dev(o);
  auto key = f.circuit->upload_key(dev);
  auto run = [&](size_t chunk) {
    auto w = f.circuit->synthesize(Witness::values("w", f.witness(9)), true, pool);
    f.circuit->stage(dev, *w, chunk, f.circuit->working_set_bytes(dev, chunk));
    f.circuit->kernels(dev, *w, chunk ? nullptr : key.get(), chunk, PhaseTimer{}, nullptr);
    f.circuit->release_staged(*w);
    return w;
  };
  auto whole = run(0), pieces = run(100), odd = run(7);
  for (auto* p : {pieces.get(), odd.get()}) {
    auto &x = static_cast<Work&>(*whole).msm, &y = static_cast<Work&>(*p).msm;
    CHECK(x.a.to_affine() == y.a.to_affine() && x.b1.to_affine() == y.b1.to_affine());
    CHECK(x.b2.to_affine() == y.b2.to_affine() && x.c.to_affine() == y.c.to_affine());
    CHECK(x.h.to_affine() == y.h.to_affine());
  }
  CHECK_EQ(dev.hazards(), size_t(0));
  key.reset();
  CHECK_EQ(dev.allocated_bytes(), size_t(0));
}
// The engine's circuit computes the rows' scratch once: its working sets, streamed or resident,
// are those of a carve that scans the key's rows each time. The PoRep-shaped circuit (its rows
// coded: small beside H's workspace) and a dense one (a coefficient a row: plain values, rows
// that decide the streamed scratch).
CUZK_TEST(engine_working_set_with_rows_space_computed_once) {
  using E = ec::Bls12381;
  auto& f = fixture<E>(9);
  setup::SyntheticSpec spec;
  spec.shape = setup::Shape::Dense, spec.log_n = 9, spec.seed = test::seed() ^ 0xd5, spec.n_inputs = 16;
  setup::SyntheticCircuit<E::Fr> circ(spec);
  RandomSource rs(test::seed() ^ 0xd6);
  auto dense_key = setup::setup<E>(circ.source(), setup::ToxicWaste<E::Fr>::draw(rs), setup::cpu_fixed_base<E>(f.pool),
                                   f.pool, nullptr, {}, backend::HForm::OddCoset);
  const CircuitT<E> dense("dense-9", std::move(dense_key), circ.source());
  CHECK(f.circuit->key().A.coded() && !dense.key().A.coded() && !dense.key().B.coded());
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true, o.threads = 1;
  cpu::CpuDevice dev(o);
  for (const CircuitT<E>* c : {static_cast<const CircuitT<E>*>(f.circuit.get()), &dense})
    for (size_t chunk : {size_t(0), size_t(7), size_t(100), size_t(1) << 20})
      CHECK_MSG(c->working_set_bytes(dev, chunk) == groth16::WorkingSet<E>::bytes_on(dev, c->key(), chunk),
                c->name() << ", chunk " << chunk);
  CHECK(groth16::WorkingSet<E>::bytes_on(dev, dense.key(), 7, {}, 0) <
        groth16::WorkingSet<E>::bytes_on(dev, dense.key(), 7));
}
// A loader may return its witness as a std::vector or as a FillVector (sized without zeroing,
// filled by the loader): both prove the same statement.
CUZK_TEST(engine_witness_values_either_vector) {
  auto& f = fixture<ec::Bn254>(9);
  Engine eng(config({sim(0)}, 1));
  eng.register_circuit("c", f.circuit);
  std::vector<Witness> parts;
  for (uint64_t i = 0; i < 4; ++i) {
    if (i % 2 == 0) {
      parts.push_back(Witness::values("partition " + std::to_string(i), f.witness(i)));
      continue;
    }
    parts.push_back(Witness{"partition " + std::to_string(i), [&f, i] {
                              const auto w = f.witness(i);
                              FillVector<cpu::Scalar> v(w.size());
                              std::copy(w.begin(), w.end(), v.begin());
                              return WitnessValues(std::move(v));
                            }});
  }
  check_proofs(f, eng.await(eng.submit({"c", Priority::Normal, std::move(parts)}), 30000.0), 0, 4);
}

// The order of a streamed key's MSM pieces: the last MSM's (H's) spread evenly among the
// others', which keep their own order; every point in exactly one piece, the last one short.
CUZK_TEST(engine_streamed_order_spreads_the_last_msm) {
  using groth16::streamed_order;
  // A, B1: 3 pieces each, B2 (G2, half the points a piece): 5, C: 3, H: 6. The 14 others go
  // 2, 2, 3, 2, 2, 3 after each of H's.
  const auto order = streamed_order({250, 250, 250, 241, 512}, {100, 100, 50, 100, 100});
  std::vector<size_t> msm;
  for (auto& p : order) msm.push_back(p.msm);
  CHECK(msm == (std::vector<size_t>{4, 0, 0, 4, 0, 1, 4, 1, 1, 2, 4, 2, 2, 4, 2, 2, 4, 3, 3, 3}));
  const std::vector<size_t> counts = {250, 250, 250, 241, 512};
  for (size_t i = 0; i < counts.size(); ++i) {
    size_t next = 0;
    for (auto& p : order)
      if (p.msm == i) {
        CHECK_EQ(p.lo, next);
        CHECK(p.count > 0 && p.count <= (i == 2 ? 50u : 100u));
        next += p.count;
      }
    CHECK_EQ(next, counts[i]);
  }
  // No H (or no other): the others (H's pieces) alone, in order; nothing for no points.
  CHECK(streamed_order({3, 0}, {2, 2}) == (std::vector<groth16::StreamedPiece>{{0, 0, 2}, {0, 2, 1}}));
  CHECK(streamed_order({0, 5}, {1, 2}) == (std::vector<groth16::StreamedPiece>{{1, 0, 2}, {1, 2, 2}, {1, 4, 1}}));
  CHECK(streamed_order({0, 0}, {1, 1}).empty());
}

// A streamed key's MSMs on a simulated device whose sums are slow: piece j's points are copied
// into slot j mod 4 and summed from there; a slot is written again only once the sum of the
// piece in it has returned (never more than four pieces copied ahead of the sums), the copies
// do run ahead, and the sums are the resident key's. A failing copy or sum fails the kernels
// with its own error, and nothing hangs or touches freed memory.
template <class E>
void streamed_pipeline() {
  auto& f = fixture<E>(9);
  using Work = typename CircuitT<E>::Work;
  ThreadPool pool(1);
  struct Copy {
    const void* at;
    size_t bytes;
    long sums_done;  // sums returned before this copy began
  };
  struct Sum {
    const void* at;
    size_t bytes;
    long copies_done;  // copies done before this sum began
  };
  std::mutex mu;
  std::vector<Copy> copy;
  std::vector<Sum> sum;
  long sums_done = 0;
  int copies = 0, sums = 0, fail_copy = -1, fail_sum = -1;  // the copy / sum (counted from 0) that throws
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true, o.threads = 1;
  o.kernel_ms = 7 * 4;  // each MSM call takes 4 ms at least; a copy takes no time
  o.copy_seen = [&](const char* what, const void* dst, const void*, size_t bytes) {
    if (std::string_view(what) != "key points (a piece)") return;
    std::lock_guard lk(mu);
    if (copies++ == fail_copy) throw Error("copy refused");
    copy.push_back({dst, bytes, sums_done});
  };
  auto point_bytes = [](const backend::MsmConfig& c) {
    return c.group == backend::Group::G1 ? sizeof(typename E::G1Affine) : sizeof(typename E::G2Affine);
  };
  o.msm_seen = [&](const backend::MsmConfig& c) {
    std::lock_guard lk(mu);
    if (sums++ == fail_sum) throw Error("sum refused");
    sum.push_back({c.bases, c.count * point_bytes(c), long(copy.size())});
  };
  o.msm_done = [&](const backend::MsmConfig&) {
    std::lock_guard lk(mu);
    ++sums_done;
  };
  cpu::CpuDevice dev(o);
  constexpr size_t kChunk = 100;
  auto run = [&](const void* key, size_t chunk) {
    auto w = f.circuit->synthesize(Witness::values("w", f.witness(9)), true, pool);
    f.circuit->stage(dev, *w, chunk, f.circuit->working_set_bytes(dev, chunk));
    try {
      f.circuit->kernels(dev, *w, key, chunk, PhaseTimer{}, nullptr);
    } catch (...) {
      f.circuit->release_staged(*w);
      throw;
    }
    f.circuit->release_staged(*w);
    return w;
  };
  auto streamed = run(nullptr, kChunk);
  CHECK_MSG(sum.size() > 8 && copy.size() == sum.size(), copy.size() << " copies, " << sum.size() << " sums");
  std::set<const void*> slots;
  long ahead = 0;
  for (size_t j = 0; j < sum.size(); ++j) {
    const long i = long(j);
    CHECK_MSG(sum[j].at == copy[j].at && sum[j].bytes == copy[j].bytes, "piece " << j);
    CHECK_MSG(sum[j].copies_done >= i + 1, "piece " << j << " summed before it was copied");
    if (j >= 4) {
      CHECK_MSG(copy[j].at == copy[j - 4].at, "piece " << j << " in slot j mod 4");
      CHECK_MSG(copy[j].sums_done >= i - 3,
                "piece " << j << " copied over piece " << j - 4 << " before its sum returned");
    }
    ahead = std::max(ahead, sum[j].copies_done - (i + 1));
    slots.insert(copy[j].at);
  }
  CHECK_EQ(slots.size(), size_t(4));
  CHECK_MSG(ahead >= 2, "the copies never ran ahead of the sums: " << ahead);
  {
    auto key = f.circuit->upload_key(dev);
    auto resident = run(key.get(), 0);
    auto &x = static_cast<Work&>(*resident).msm, &y = static_cast<Work&>(*streamed).msm;
    CHECK(x.a.to_affine() == y.a.to_affine() && x.b1.to_affine() == y.b1.to_affine());
    CHECK(x.b2.to_affine() == y.b2.to_affine() && x.c.to_affine() == y.c.to_affine());
    CHECK(x.h.to_affine() == y.h.to_affine());
  }
  fail_copy = copies + 5, fail_sum = -1;
  CHECK_THROWS_WITH(run(nullptr, kChunk), Error, "copy refused");
  fail_copy = -1, fail_sum = sums + 3;
  CHECK_THROWS_WITH(run(nullptr, kChunk), Error, "sum refused");
  CHECK_EQ(dev.hazards(), size_t(0));
  CHECK_EQ(dev.allocated_bytes(), size_t(0));
}
CUZK_TEST(engine_streamed_pipeline_bn254) { streamed_pipeline<ec::Bn254>(); }
CUZK_TEST(engine_streamed_pipeline_bls12_381) { streamed_pipeline<ec::Bls12381>(); }

// The kernel phases on a device's own clock: each phase's stream work between a start and a
// stop, summed into device_ms; a clock that fails leaves the results alone and device_ms -1.
struct FakeClock final : backend::DeviceClock {
  int* starts;
  bool fail;
  FakeClock(int* s, bool f) : starts(s), fail(f) {}
  void start() override {
    if (fail) throw Error("clock unavailable");
    ++*starts;
  }
  double stop_ms() override { return 2.5; }
};
CUZK_TEST(engine_kernels_on_the_device_clock) {
  auto& f = fixture<ec::Bn254>(9);
  using Work = typename CircuitT<ec::Bn254>::Work;
  ThreadPool pool(1);
  using Factory = std::function<std::unique_ptr<backend::DeviceClock>()>;
  auto run = [&](Factory clock) {
    cpu::CpuDeviceOptions o;
    o.name = "sim:0", o.simulated = true, o.threads = 1;
    o.clock = std::move(clock);
    cpu::CpuDevice dev(o);
    auto key = f.circuit->upload_key(dev);
    auto w = f.circuit->synthesize(Witness::values("w", f.witness(9)), true, pool);
    f.circuit->stage(dev, *w, 0, f.circuit->working_set_bytes(dev, 0));
    const double ms = f.circuit->kernels(dev, *w, key.get(), 0, PhaseTimer{}, nullptr);
    f.circuit->release_staged(*w);
    CHECK_EQ(ms, static_cast<Work&>(*w).msm.device_ms);
    return std::make_pair(ms, static_cast<Work&>(*w).msm);
  };
  int starts = 0, none = 0;
  const auto [plain_ms, plain] = run(nullptr);
  const auto [timed_ms, timed] = run([&] { return std::make_unique<FakeClock>(&starts, false); });
  const auto [failed_ms, failed] = run([&] { return std::make_unique<FakeClock>(&none, true); });
  const auto [absent_ms, absent] =
      run([]() -> std::unique_ptr<backend::DeviceClock> { throw Error("no events on this device"); });
  CHECK_EQ(plain_ms, -1.0);
  CHECK_MSG(starts == 6 || starts == 7, starts);  // (a, b, c unless staged), H, five MSMs
  CHECK_EQ(timed_ms, 2.5 * starts);
  CHECK_EQ(failed_ms, -1.0);
  CHECK_EQ(absent_ms, -1.0);
  CHECK_EQ(none, 0);
  for (auto* m : {&timed, &failed, &absent}) {
    CHECK(m->a.to_affine() == plain.a.to_affine() && m->b1.to_affine() == plain.b1.to_affine());
    CHECK(m->b2.to_affine() == plain.b2.to_affine() && m->c.to_affine() == plain.c.to_affine());
    CHECK(m->h.to_affine() == plain.h.to_affine());
  }
}

// A resident key's MSM tables: planned per section within the bytes given, charged in the key's
// bytes (K copies of each section, table 0 the points), made in place at the upload, handed to
// every MSM with their window width, and the working set sized for those MSMs; the results are
// those without tables. A, B1 and C, over one witness, are one call (C's section indexed as the
// witness, its inputs' points at infinity). (A simulated device plans what its test says; the
// GPU's tables are checked against the CPU in test_gpu_engine and test_gpu_msm.)
template <class E>
void key_tables_reach_every_msm() {
  auto& f = fixture<E>(9);
  using Work = typename CircuitT<E>::Work;
  ThreadPool pool(1);
  std::vector<backend::MsmConfig> seen;
  std::vector<size_t> asked;
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true, o.threads = 1;
  o.table_plan = [&](CurveId c, backend::Group, size_t n, size_t max_bytes) {
    CHECK(c == E::id);
    asked.push_back(max_bytes);
    return n > 0 ? backend::TablePlan{6, 3} : backend::TablePlan{};
  };
  o.msm_seen = [&](const backend::MsmConfig& cfg) { seen.push_back(cfg); };
  cpu::CpuDevice dev(o);
  const auto none = f.circuit->plan_tables(dev, 0);  // no bytes: no tables, A, B1 and C still in one call
  CHECK(!none.any() && none.share);
  CHECK(asked.empty());
  CHECK(!f.circuit->plan_tables(cpu::CpuDevice({}), size_t(1) << 30).share);  // the CPU: none of it
  const auto t = f.circuit->plan_tables(dev, size_t(1) << 30);
  CHECK(t.a.tables == 3 && t.b1.tables == 3 && t.b2.tables == 3 && t.c.tables == 3 && t.h.tables == 3);
  CHECK_EQ(t.h.window_bits, 6u);
  // Each section is offered its own size plus its share of the 1 GiB, in proportion to its size.
  const auto& pk = f.circuit->key();
  const size_t g1 = sizeof(typename E::G1Affine), g2 = sizeof(typename E::G2Affine);
  const size_t all = (pk.a.size() + pk.b1.size() + pk.c.size() + pk.h.size()) * g1 + pk.b2.size() * g2;
  CHECK_EQ(asked.size(), size_t(5));
  const size_t h_bytes = pk.h.size() * g1;
  CHECK_EQ(asked[4], h_bytes + size_t(double(size_t(1) << 30) * double(h_bytes) / double(all)));
  // Charged: the two extra copies of every section (C's with the inputs' points in front), each
  // section rounded as the carver rounds.
  const size_t skip = pk.n_public + 1;
  auto grow = [](size_t from, size_t to) { return Carver::round(to) - Carver::round(from); };
  const size_t extra = grow(pk.a.size() * g1, 3 * pk.a.size() * g1) + grow(pk.b1.size() * g1, 3 * pk.b1.size() * g1) +
                       grow(pk.b2.size() * g2, 3 * pk.b2.size() * g2) +
                       grow(pk.c.size() * g1, 3 * (skip + pk.c.size()) * g1) +
                       grow(pk.h.size() * g1, 3 * pk.h.size() * g1);
  CHECK_EQ(f.circuit->key_bytes(dev, t), f.circuit->key_bytes(dev) + extra);
  {
    auto key = f.circuit->upload_key(dev, t);
    const auto* dk = static_cast<const groth16::DeviceKey<E>*>(key.get());
    CHECK_EQ(dk->c_pad, skip);
    for (size_t i = 0; i < skip; ++i) CHECK(dk->c[i].is_inf());
    CHECK(std::memcmp(dk->c + skip, pk.c.data(), pk.c.size() * g1) == 0);
  }
  CHECK(f.circuit->working_set_bytes(dev, 0, t) >= f.circuit->working_set_bytes(dev, 0));
  CHECK_EQ(f.circuit->working_set_bytes(dev, 100, t), f.circuit->working_set_bytes(dev, 100));  // streamed: none

  auto run = [&](const groth16::KeyTables& kt) {
    auto key = f.circuit->upload_key(dev, kt);
    auto w = f.circuit->synthesize(Witness::values("w", f.witness(3)), true, pool);
    f.circuit->stage(dev, *w, 0, f.circuit->working_set_bytes(dev, 0, kt), kt);
    seen.clear();
    f.circuit->kernels(dev, *w, key.get(), 0, PhaseTimer{}, nullptr);
    f.circuit->release_staged(*w);
    return static_cast<Work&>(*w).msm;
  };
  // A, B1 and C sum the same witness (no density compaction here): one call with three arrays
  // of bases where planned so.
  CHECK(groth16::one_call(pk, t) && !groth16::one_call(pk, {}));
  auto shared_call = [&] {
    size_t three = 0;
    for (auto& cfg : seen) three += cfg.bases2 && cfg.bases3;
    return three;
  };
  const auto plain = run({});
  CHECK_EQ(seen.size(), size_t(5));
  CHECK_EQ(shared_call(), size_t(0));
  for (auto& cfg : seen) CHECK(cfg.tables == 1 && cfg.window_bits == 0);
  const auto shared = run(none);
  CHECK_EQ(seen.size(), size_t(3));
  CHECK_EQ(shared_call(), size_t(1));
  CHECK(f.circuit->working_set_bytes(dev, 0, none) >= f.circuit->working_set_bytes(dev, 0));
  const auto tabled = run(t);
  CHECK_EQ(seen.size(), size_t(3));
  CHECK_EQ(shared_call(), size_t(1));
  for (auto& cfg : seen)
    CHECK_MSG(cfg.tables == 3 && cfg.window_bits == 6, cfg.tables << " tables, c " << cfg.window_bits);
  // The working set holds the shared call's further bucket sets: its MSM configurations ask.
  size_t asks = 0;
  for (auto& cfg : groth16::msm_configs(pk, 0, t)) asks += cfg.bases2 && cfg.bases3;
  CHECK_EQ(asks, size_t(1));
  CHECK(plain.a.to_affine() == tabled.a.to_affine() && plain.b1.to_affine() == tabled.b1.to_affine());
  CHECK(plain.b2.to_affine() == tabled.b2.to_affine() && plain.c.to_affine() == tabled.c.to_affine());
  CHECK(plain.h.to_affine() == tabled.h.to_affine());
  CHECK(plain.a.to_affine() == shared.a.to_affine() && plain.b1.to_affine() == shared.b1.to_affine());
  CHECK(plain.c.to_affine() == shared.c.to_affine());
  CHECK_EQ(dev.hazards(), size_t(0));
  CHECK_EQ(dev.allocated_bytes(), size_t(0));
}
CUZK_TEST(engine_key_tables_reach_every_msm) {
  key_tables_reach_every_msm<ec::Bn254>();
  key_tables_reach_every_msm<ec::Bls12381>();
}

CUZK_TEST(engine_chunked_kernels_match) {
  chunked_kernels_match<ec::Bn254>();
  chunked_kernels_match<ec::Bls12381>();
}

CUZK_TEST(engine_streamed_key_bls12_381) { streamed_key<ec::Bls12381>(); }

// The key with its A and B values as plain values again (undoing groth16::code_values).
template <class E>
groth16::ProvingKey<E> uncoded(groth16::ProvingKey<E> pk) {
  for (auto* M : {&pk.A, &pk.B}) {
    if (!M->coded()) continue;
    M->val.resize(M->code.size());
    for (size_t k = 0; k < M->code.size(); ++k) M->val[k] = M->dict[M->code[k]];
    M->code.clear(), M->dict.clear();
  }
  return pk;
}

// A streamed key's a, b, c on a simulated device, from its host rows in pieces: as many rows a
// piece as a half of the rows scratch holds (or the whole, for a row longer than a half), down to
// the longest row alone; the values are those of all rows evaluated at once on the host from
// plain values. Each evaluation starts late (1 ms), so a piece copied over one not yet evaluated
// would change the values. A scratch smaller than some row is an error naming it. The engine's
// key (its values coded: few distinct ones) and the same key with plain values.
template <class E>
void rows_in_pieces_of(const groth16::ProvingKey<E>& pk, const std::vector<cpu::Scalar>& w,
                       const std::vector<typename E::Fr>& want_a, const std::vector<typename E::Fr>& want_b,
                       const std::vector<typename E::Fr>& want_c);

template <class E>
void rows_in_pieces() {
  using Fr = typename E::Fr;
  auto& f = fixture<E>(9);
  const auto& coded = f.circuit->key();
  CHECK(coded.A.coded() && coded.B.coded() && coded.A.val.empty());
  const groth16::ProvingKey<E> plain = uncoded(coded);
  const size_t n = coded.domain_size;
  const auto w = f.witness(3);
  std::vector<Fr> want_a(n), want_b(n), want_c(n);
  ThreadPool pool(1);
  cpu::evaluate_abc<Fr>(n, plain.A.view(), plain.B.view(), w.data(), want_a.data(), want_b.data(), want_c.data(), pool);
  // a coded piece holds 6 bytes an entry instead of 36
  CHECK(3 * groth16::RowsPiece<Fr>::bytes(coded.A, coded.B, 0, n) <
        groth16::RowsPiece<Fr>::bytes(plain.A, plain.B, 0, n));
  for (const auto* key : {&coded, &plain}) rows_in_pieces_of<E>(*key, w, want_a, want_b, want_c);
}

template <class E>
void rows_in_pieces_of(const groth16::ProvingKey<E>& pk, const std::vector<cpu::Scalar>& w,
                       const std::vector<typename E::Fr>& want_a, const std::vector<typename E::Fr>& want_b,
                       const std::vector<typename E::Fr>& want_c) {
  using Fr = typename E::Fr;
  const size_t n = pk.domain_size, m = pk.n_vars;
  size_t longest = 0;
  for (size_t i = 0; i < n; ++i) longest = std::max(longest, groth16::RowsPiece<Fr>::bytes(pk.A, pk.B, i, i + 1));
  const size_t all = groth16::RowsPiece<Fr>::bytes(pk.A, pk.B, 0, n);
  CHECK(longest < all);
  CHECK_EQ(groth16::rows_space_bytes(pk.A, pk.B), all);  // small rows: all of them in one piece
  for (size_t space : {longest - 1, longest, 3 * longest, all}) {
    cpu::CpuDeviceOptions o;
    o.name = "sim:0", o.simulated = true, o.threads = 1;
    size_t pieces = 0;
    o.after_enqueue = [&](const char* op) { pieces += std::string(op) == "evaluate_abc"; };
    o.abc_starts = [] { std::this_thread::sleep_for(std::chrono::milliseconds(1)); };
    std::set<const void*> piece_at;  // where pieces' A rows were copied to
    o.copy_seen = [&](const char* what, const void* dst, const void*, size_t) {
      if (std::string(what) == "A rows (piece)") piece_at.insert(dst);
    };
    cpu::CpuDevice dev(o);
    auto s = dev.make_stream();
    Carver sizing;
    for (size_t b : {m * sizeof(cpu::Scalar), n * sizeof(Fr), n * sizeof(Fr), n * sizeof(Fr), space})
      sizing.take(b, "sizing");
    auto mem = dev.allocate(sizing.used(), s, "rows test");
    Carver cv(mem->data(), sizing.used(), "sim:0");
    groth16::WorkingSet<E> ws;
    ws.w = cv.take<cpu::Scalar>(m, "w");
    ws.a = cv.take<Fr>(n, "a"), ws.b = cv.take<Fr>(n, "b"), ws.c = cv.take<Fr>(n, "c");
    ws.rows_scratch = {cv.take(space, "rows"), space};
    dev.copy_to_device(ws.w, w.data(), m * sizeof(cpu::Scalar), *s, "w");
    if (space < longest) {
      CHECK_THROWS_WITH(groth16::abc_from_host_rows<E>(dev, pk, ws, *s), Error, "of A and B needs");
      continue;
    }
    groth16::abc_from_host_rows<E>(dev, pk, ws, *s);
    dev.synchronize(*s);
    CHECK_MSG(std::equal(want_a.begin(), want_a.end(), ws.a) && std::equal(want_b.begin(), want_b.end(), ws.b) &&
                  std::equal(want_c.begin(), want_c.end(), ws.c),
              "space " << space);
    if (space == all) CHECK_EQ(pieces, size_t(1));
    // (a coded piece's fixed part, the dictionary, lets a few short rows share the longest's room)
    if (space == longest) CHECK_MSG(pieces > (pk.A.coded() ? n / 64 : n / 4), pieces << " pieces of " << n << " rows");
    if (space == 3 * longest) {
      CHECK_MSG(pieces > 1 && pieces < n, pieces);
      CHECK_EQ(piece_at.size(), size_t(2));  // both halves
    }
  }
}
CUZK_TEST(engine_streamed_rows_in_pieces) {
  rows_in_pieces<ec::Bn254>();
  rows_in_pieces<ec::Bls12381>();
}

// Rows that take more than 64 MiB: a streamed key's rows scratch is the piece of A's longest row
// with B's longest (here the same row), plain or coded (with its dictionary), and no row's piece
// is larger; with the longest rows in different rows it holds either.
CUZK_TEST(engine_rows_space_of_long_rows) {
  using Fr = ec::Bn254::Fr;
  auto matrix = [](size_t long_row, size_t entries, bool coded) {
    groth16::Csr<Fr> M;
    M.row_ptr = {0};
    for (size_t i = 0; i < 4; ++i) M.row_ptr.push_back(M.row_ptr.back() + uint32_t(i == long_row ? entries : 3));
    const size_t nnz = M.row_ptr.back();
    M.col.assign(nnz, 1);
    if (coded)
      M.code.assign(nnz, 1), M.dict = {Fr::one(), Fr::from_u64(2), Fr::from_u64(3)};
    else
      M.val.assign(nnz, Fr::one());
    return M;
  };
  for (bool coded : {false, true}) {
    const size_t a_len = coded ? (size_t(12) << 20) : (size_t(2) << 20), b_len = a_len / 2;
    const auto A = matrix(2, a_len, coded), B = matrix(2, b_len, coded);
    CHECK(A.coded() == coded);
    const size_t space = groth16::rows_space_bytes(A, B);
    CHECK(space > size_t(64) << 20);
    CHECK_EQ(space, groth16::RowsPiece<Fr>::bytes(A, B, 2, 3));
    for (size_t i = 0; i < 4; ++i) CHECK(groth16::RowsPiece<Fr>::bytes(A, B, i, i + 1) <= space);
    const auto B1 = matrix(1, b_len, coded);  // B's longest row is another row
    const size_t apart = groth16::rows_space_bytes(A, B1);
    CHECK(apart > groth16::RowsPiece<Fr>::bytes(A, B1, 2, 3) && apart > groth16::RowsPiece<Fr>::bytes(A, B1, 1, 2));
  }
}

// A device that streams the key gets its host sections page-locked, once per circuit, however
// often it is registered; a device that keeps it resident does not.
CUZK_TEST(engine_pins_a_streamed_key_once) {
  auto& f = fixture<ec::Bn254>(10);
  const auto sz = sizes(f);
  const auto& pk = f.circuit->key();
  auto device = [&](size_t budget, std::map<const void*, size_t>& seen, int& calls) {
    cpu::CpuDeviceOptions o;
    o.name = "sim:0", o.simulated = true, o.threads = 1;
    o.pin_seen = [&seen, &calls](const void* p, size_t bytes) { seen[p] = bytes, ++calls; };
    std::vector<std::shared_ptr<backend::Device>> devs = {std::make_shared<cpu::CpuDevice>(o)};
    EngineConfig cfg = config({sim(0, 0, 0, 1, budget)}, 1);
    return std::make_unique<Engine>(cfg, devs);
  };
  std::map<const void*, size_t> seen;
  int calls = 0;
  {
    auto eng = device(sz.key + sz.ws, seen, calls);  // resident
    eng->register_circuit("c", f.circuit);
  }
  CHECK_EQ(calls, 0);
  for (int i = 0; i < 2; ++i) {
    auto eng = device(sz.ws_s, seen, calls);  // streamed
    eng->register_circuit("c", f.circuit);
    if (i == 1) {
      auto r = eng->await(eng->submit({"c", Priority::Normal, f.witnesses(1)}), 30000.0);
      check_proofs(f, r, 0, 1);
      CHECK(r.records[0].streamed);
    }
  }
  std::map<const void*, size_t> want;
  auto add = [&](const auto& v) { want[v.data()] = v.size() * sizeof(v[0]); };
  add(pk.a), add(pk.b1), add(pk.b2), add(pk.c), add(pk.h);
  // the rows' values coded: their codes (not their small dictionaries), no plain values
  CHECK(pk.A.coded() && pk.B.coded() && pk.A.val.empty() && pk.B.val.empty());
  for (auto* m : {&pk.A, &pk.B}) add(m->row_ptr), add(m->col), add(m->code);
  CHECK_EQ(calls, 11);
  CHECK(seen == want);
}

// A partition that must wait for device memory has its witness moved into page-locked memory
// meanwhile (its stage then copies it from there by DMA); one that finds the memory free at once
// does not: a budget of one working set (streamed, or beside the resident key), two workers and
// slow kernels make every partition after the first wait. Each copy is what its stage reads the
// witness from (the first memory is gone), and goes when its partition is done; the proofs are
// right. Room for one buffer a worker is asked for when the circuit is registered (shared with
// witnesses synthesized for a free worker).
CUZK_TEST(engine_moves_a_waiting_partitions_witness_to_page_locked_memory) {
  auto& f = fixture<ec::Bn254>(10);
  const auto sz = sizes(f);
  const size_t witness_bytes = size_t(f.circuit->key().n_vars) * 32;
  cpu::CpuDeviceOptions plain;
  plain.name = "sim:0", plain.simulated = true;
  const size_t ws_plain = f.circuit->working_set_bytes(cpu::CpuDevice(plain), 0, {});
  const size_t one_resident = sz.key_plain + ws_plain + ws_plain / 2;  // the key and one working set
  for (auto [workers, budget] : std::vector<std::pair<int, size_t>>{{1, sz.ws_s}, {2, sz.ws_s}, {2, one_resident}}) {
    std::mutex mu;
    std::set<const void*> live;  // page-locked copies not yet dropped
    size_t made = 0, dropped = 0, staged = 0, staged_from_copies = 0;
    std::vector<std::pair<size_t, size_t>> kept;  // keep_page_locked calls
    cpu::CpuDeviceOptions o;
    o.name = "sim:0", o.simulated = true, o.threads = 1, o.kernel_ms = 200;
    o.copy_locked_seen = [&](const void*, const void* copy, size_t bytes) {
      std::lock_guard lk(mu);
      CHECK_EQ(bytes, witness_bytes);
      live.insert(copy), ++made;
    };
    o.copy_dropped = [&](const void* copy) {
      std::lock_guard lk(mu);
      CHECK(live.erase(copy) == 1);
      ++dropped;
    };
    o.keep_seen = [&](size_t bytes, size_t count) {
      std::lock_guard lk(mu);
      kept.emplace_back(bytes, count);
    };
    o.copy_seen = [&](const char* what, const void*, const void* src, size_t bytes) {
      if (std::string_view(what) != "witness scalars") return;
      std::lock_guard lk(mu);
      CHECK_EQ(bytes, witness_bytes);
      ++staged;
      staged_from_copies += live.count(src);
    };
    std::vector<std::shared_ptr<backend::Device>> devs = {std::make_shared<cpu::CpuDevice>(o)};
    Engine eng(config({sim(0, 200, 0, 1, budget)}, workers), devs);
    eng.register_circuit("c", f.circuit);
    CHECK_EQ(eng.footprint("c", "sim:0").resident(), budget == one_resident);
    auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(4)}), 30000.0);
    check_proofs(f, r, 0, 4);
    std::lock_guard lk(mu);
    CHECK_EQ(staged, size_t(4));
    CHECK_MSG(live.empty() && dropped == made, made - dropped << " page-locked copies kept after the job");
    // Room for one buffer a worker, made when the circuit was registered.
    CHECK(kept == (std::vector<std::pair<size_t, size_t>>{{witness_bytes, size_t(workers)}}));
    if (workers == 1) CHECK_MSG(made == 0, made << " witnesses moved without a wait");
    if (workers == 2) {
      CHECK_MSG(made > 0, "no waiting partition's witness was moved");
      CHECK_EQ(staged_from_copies, made);  // every copy was its stage's source
    }
  }
}

// Where partitions wait for device memory (a budget of one streamed working set, two workers),
// the burst's first two witnesses are synthesized into page-locked buffers (both workers free);
// one of them then waits, and is not copied again: only witnesses in plain memory are. Every
// stage reads its witness from page-locked memory.
CUZK_TEST(engine_does_not_copy_a_witness_synthesized_into_page_locked_memory) {
  auto& f = fixture<ec::Bn254>(10);
  const auto sz = sizes(f);
  std::mutex mu;
  std::set<const void*> live, written;  // buffers handed out (all; those synthesized into)
  size_t direct = 0, copies = 0, copied_again = 0, staged = 0, staged_locked = 0;
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true, o.threads = 1, o.kernel_ms = 200;
  o.locked_buffer_seen = [&](const void* buffer, size_t) {
    std::lock_guard lk(mu);
    live.insert(buffer), written.insert(buffer), ++direct;
    return true;
  };
  o.copy_locked_seen = [&](const void* src, const void* copy, size_t) {
    std::lock_guard lk(mu);
    live.insert(copy), ++copies;
    copied_again += written.count(src);
  };
  o.copy_dropped = [&](const void* p) {
    std::lock_guard lk(mu);
    CHECK(live.erase(p) == 1);
  };
  o.copy_seen = [&](const char* what, const void*, const void* src, size_t) {
    if (std::string_view(what) != "witness scalars") return;
    std::lock_guard lk(mu);
    ++staged, staged_locked += live.count(src);
  };
  std::vector<std::shared_ptr<backend::Device>> devs = {std::make_shared<cpu::CpuDevice>(o)};
  Engine eng(config({sim(0, 200, 0, 1, sz.ws_s)}, 2), devs);
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.fill_witnesses(4)}), 30000.0);
  check_proofs(f, r, 0, 4);
  std::lock_guard lk(mu);
  CHECK_EQ(direct, size_t(2));
  CHECK_MSG(copied_again == 0, copied_again << " witnesses synthesized into page-locked memory copied again");
  CHECK(copies <= 2);  // those in plain memory that waited
  CHECK_EQ(staged, size_t(4));
  CHECK_EQ(staged_locked, direct + copies);
  CHECK(live.empty());
}

// A witness the engine may write where it wants (Witness::fill) is synthesized into page-locked
// memory of the device's when it will find a worker free: its stage, on the device's critical
// path, then copies it by DMA instead of through the staging buffers. A job's first two
// partitions find the two workers free; those that queue behind them do not (their stage
// overlaps another partition's kernels) and take plain memory, as every partition does when no
// buffer is free. Each buffer is its partition's stage source and goes back when the partition
// is done (or fails); the proofs are right.
CUZK_TEST(engine_synthesizes_for_a_free_worker_into_page_locked_memory) {
  auto& f = fixture<ec::Bn254>(9);
  const auto sz = sizes(f);
  const size_t witness_bytes = size_t(f.circuit->key().n_vars) * 32;
  for (const bool free_buffers : {true, false}) {
    std::mutex mu;
    std::set<const void*> live;  // buffers handed out and not yet given back
    size_t asked = 0, taken = 0, dropped = 0, staged = 0, staged_from_buffers = 0;
    cpu::CpuDeviceOptions o;
    o.name = "sim:0", o.simulated = true, o.threads = 1, o.kernel_ms = 300;
    o.locked_buffer_seen = [&](const void* buffer, size_t bytes) {
      std::lock_guard lk(mu);
      CHECK_EQ(bytes, witness_bytes);
      ++asked;
      if (!free_buffers) return false;
      live.insert(buffer), ++taken;
      return true;
    };
    o.copy_dropped = [&](const void* buffer) {
      std::lock_guard lk(mu);
      CHECK(live.erase(buffer) == 1);
      ++dropped;
    };
    o.copy_seen = [&](const char* what, const void*, const void* src, size_t bytes) {
      if (std::string_view(what) != "witness scalars") return;
      std::lock_guard lk(mu);
      CHECK_EQ(bytes, witness_bytes);
      ++staged;
      staged_from_buffers += live.count(src);
    };
    std::vector<std::shared_ptr<backend::Device>> devs = {std::make_shared<cpu::CpuDevice>(o)};
    Engine eng(config({sim(0, 300, 0, 1, sz.key + 2 * sz.ws)}, 2), devs);
    eng.register_circuit("c", f.circuit);
    CHECK(eng.footprint("c", "sim:0").resident());
    auto r = eng.await(eng.submit({"c", Priority::Normal, f.fill_witnesses(4)}), 30000.0);
    check_proofs(f, r, 0, 4);
    {
      std::lock_guard lk(mu);
      CHECK_EQ(staged, size_t(4));
      CHECK_MSG(asked >= 2 && asked < 4, asked << " of 4 partitions asked for page-locked memory");
      CHECK_EQ(taken, free_buffers ? asked : size_t(0));
      CHECK_EQ(staged_from_buffers, taken);  // each buffer was its partition's stage source
      CHECK_MSG(live.empty() && dropped == taken, taken - dropped << " buffers kept after the job");
    }
    // Another job, the workers free again: its partition asks again.
    const size_t before = asked;
    r = eng.await(eng.submit({"c", Priority::Normal, f.fill_witnesses(1, 4)}), 30000.0);
    check_proofs(f, r, 4, 1);
    std::lock_guard lk(mu);
    CHECK_EQ(asked, before + 1);
    CHECK(live.empty());
  }
  // A fill that throws: the partition fails with its error, the buffer goes back.
  std::atomic<size_t> handed{0}, back{0};
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true, o.threads = 1;
  o.locked_buffer_seen = [&](const void*, size_t) { return ++handed, true; };
  o.copy_dropped = [&](const void*) { ++back; };
  std::vector<std::shared_ptr<backend::Device>> devs = {std::make_shared<cpu::CpuDevice>(o)};
  Engine eng(config({sim(0, 0, 0, 1, sz.key + 2 * sz.ws)}, 2), devs);
  eng.register_circuit("c", f.circuit);
  Witness bad;
  bad.name = "partition 0";
  bad.fill = [](std::span<cpu::Scalar>) { throw InvalidArgument("partition 0: the synthesized witness has 3 values"); };
  auto r = eng.await(eng.submit({"c", Priority::Normal, {bad}}), 30000.0);
  CHECK(r.state == JobState::Failed);
  CHECK_MSG(r.error.find("the synthesized witness has 3 values") != std::string::npos, r.error);
  CHECK_EQ(handed.load(), size_t(1));
  CHECK_EQ(back.load(), size_t(1));
}

// The page-locked witness buffers stay within EngineConfig::page_locked_witness_bytes: room for
// one a worker is asked for where they fit (unset: a quarter of the host's memory), fewer where
// they do not, and at a bound below one buffer none is asked for, no witness is synthesized into
// page-locked memory or moved there, and the proofs are the same (one streamed working set and
// two workers: partitions wait for memory, and a burst's first finds a worker free).
CUZK_TEST(engine_keeps_page_locked_witness_buffers_within_their_bound) {
  auto& f = fixture<ec::Bn254>(10);
  const auto sz = sizes(f);
  const size_t wb = size_t(f.circuit->key().n_vars) * 32;
  CHECK_EQ(page_locked_witness_room(EngineConfig{}, wb), physical_memory() / 4 / wb);
  const std::vector<std::pair<std::optional<size_t>, size_t>> cases = {
      {std::nullopt, 2}, {3 * wb / 2, 1}, {wb - 1, 0}, {size_t(0), 0}};
  for (auto [bound, room] : cases) {
    std::mutex mu;
    std::vector<std::pair<size_t, size_t>> kept;
    size_t asked = 0, moved = 0;
    cpu::CpuDeviceOptions o;
    o.name = "sim:0", o.simulated = true, o.threads = 1, o.kernel_ms = 200;
    o.keep_seen = [&](size_t bytes, size_t count) {
      std::lock_guard lk(mu);
      kept.emplace_back(bytes, count);
    };
    o.locked_buffer_seen = [&](const void*, size_t) {
      std::lock_guard lk(mu);
      ++asked;
      return true;
    };
    o.copy_locked_seen = [&](const void*, const void*, size_t) {
      std::lock_guard lk(mu);
      ++moved;
    };
    std::vector<std::shared_ptr<backend::Device>> devs = {std::make_shared<cpu::CpuDevice>(o)};
    EngineConfig cfg = config({sim(0, 200, 0, 1, sz.ws_s)}, 2);
    cfg.page_locked_witness_bytes = bound;
    Engine eng(cfg, devs);
    eng.register_circuit("c", f.circuit);
    auto r = eng.await(eng.submit({"c", Priority::Normal, f.fill_witnesses(4)}), 30000.0);
    check_proofs(f, r, 0, 4);
    std::lock_guard lk(mu);
    if (room == 0) {
      CHECK_MSG(kept.empty(), "room for " << (kept.empty() ? 0 : kept[0].second) << " buffers asked for");
      CHECK_MSG(asked == 0 && moved == 0, asked << " buffers asked for, " << moved << " witnesses moved");
    } else {
      CHECK(kept == (std::vector<std::pair<size_t, size_t>>{{wb, room}}));
      CHECK_MSG(asked > 0, "no witness synthesized into page-locked memory");
    }
  }
}

// With several circuits the room is combined (the device sets it, not adds to it): buffers of
// the largest witness among the circuits given room, as many as the most any needs and the
// bound allows. A larger circuit registered first (one buffer under the bound) and a smaller one
// after (two of its own would fit) leave one buffer of the larger witness asked for.
CUZK_TEST(engine_combines_page_locked_room_across_circuits) {
  auto& small = fixture<ec::Bn254>(9);
  auto& large = fixture<ec::Bn254>(10);
  const size_t ws = size_t(small.circuit->key().n_vars) * 32, wl = size_t(large.circuit->key().n_vars) * 32;
  CHECK(wl > ws + ws / 3);
  std::vector<std::pair<size_t, size_t>> kept;
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true, o.threads = 1;
  o.keep_seen = [&](size_t bytes, size_t count) { kept.emplace_back(bytes, count); };
  std::vector<std::shared_ptr<backend::Device>> devs = {std::make_shared<cpu::CpuDevice>(o)};
  EngineConfig cfg = config({sim(0, 0, 0, 1, size_t(1) << 34)}, 2);
  cfg.page_locked_witness_bytes = wl + wl / 2;
  Engine eng(cfg, devs);
  eng.register_circuit("large", large.circuit);
  eng.register_circuit("small", small.circuit);
  CHECK(kept == (std::vector<std::pair<size_t, size_t>>{{wl, 1}, {wl, 1}}));
  auto r = eng.await(eng.submit({"small", Priority::Normal, small.fill_witnesses(2)}), 30000.0);
  check_proofs(small, r, 0, 2);
}

// Memory that a device's allocator keeps for later allocations goes back to the system when a
// key is evicted on request and when the engine stops, each time after the key's memory is freed.
CUZK_TEST(engine_gives_idle_device_memory_back) {
  auto& f = fixture<ec::Bn254>(9);
  const auto sz = sizes(f);
  std::vector<size_t> live_at_release;
  std::shared_ptr<cpu::CpuDevice> dev;
  cpu::CpuDeviceOptions o;
  o.name = "sim:0", o.simulated = true, o.threads = 1;
  o.idle_released = [&] { live_at_release.push_back(dev->allocated_bytes()); };
  dev = std::make_shared<cpu::CpuDevice>(o);
  {
    Engine eng(config({sim(0, 0, 0, 1, sz.key + sz.ws)}, 1), {dev});
    eng.register_circuit("c", f.circuit);
    eng.preload("c", "sim:0");
    CHECK(dev->allocated_bytes() > 0);
    CHECK(live_at_release.empty());
    CHECK(eng.evict("c", "sim:0"));
    CHECK_EQ(live_at_release.size(), size_t(1));
    CHECK(!eng.evict("c", "sim:0"));  // nothing resident: nothing asked of the device
    CHECK_EQ(live_at_release.size(), size_t(1));
    eng.preload("c", "sim:0");
    auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(1)}), 30000.0);
    check_proofs(f, r, 0, 1);
  }
  CHECK_EQ(live_at_release.size(), size_t(2));
  for (size_t live : live_at_release) CHECK_EQ(live, size_t(0));
}

// The streamed MSMs' piece (EngineConfig::stream_chunk_points 0): the largest power of two up to
// the key's largest section with which a working set per worker fits, else one working set.
CUZK_TEST(engine_automatic_stream_chunk) {
  const size_t kMin = EngineConfig::kMinStreamChunk;
  // A working set of 1 GiB plus a byte a point of the piece, the piece at most 2^20 points.
  auto ws = [](size_t chunk) { return (size_t(1) << 30) + std::min<size_t>(chunk, size_t(1) << 20); };
  CHECK_EQ(automatic_stream_chunk(size_t(1) << 20, 2 * ws(kMin * 4), 2, ws), kMin * 4);
  CHECK_EQ(automatic_stream_chunk(size_t(1) << 20, 2 * ws(kMin * 4) - 1, 2, ws), kMin * 2);
  CHECK_EQ(automatic_stream_chunk(size_t(1) << 20, size_t(1) << 40, 1, ws), size_t(1) << 20);
  // Two working sets never fit: the largest one does.
  CHECK_EQ(automatic_stream_chunk(size_t(1) << 20, ws(kMin * 8), 2, ws), kMin * 8);
  // Nothing fits: the smallest (the partition's error then names its working set).
  CHECK_EQ(automatic_stream_chunk(size_t(1) << 20, ws(kMin) - 1, 2, ws), kMin);
  // Never beyond the first piece that holds the largest section whole.
  CHECK_EQ(automatic_stream_chunk(3 * kMin, size_t(1) << 40, 2, ws), 4 * kMin);
  CHECK_EQ(automatic_stream_chunk(100, size_t(1) << 40, 2, ws), kMin);
  // The engine's footprint on a device: the piece it chose and that piece's working set.
  auto& f = fixture<ec::Bn254>(9);
  const auto sz = sizes(f);
  Engine eng(config({sim(0, 0, 0, 1, sz.ws_s)}, 2));
  eng.register_circuit("c", f.circuit);
  const auto fp = eng.footprint("c", "sim:0");
  CHECK_EQ(fp.stream_chunk, kMin);
  CHECK_EQ(fp.working_set_streamed, sz.ws_s);
}

// ------------------------------------------------------------------ 6. does not fit at all
CUZK_TEST(engine_refuses_what_cannot_fit) {
  auto& big = fixture<ec::Bn254>(11);
  auto& small = fixture<ec::Bn254>(9);
  const size_t need = sizes(big).ws_s;
  const size_t budget = need - 1;
  CHECK(sizes(small).key + sizes(small).ws <= budget);
  Engine eng(config({sim(0, 0, 0, 1, budget)}, 2));
  eng.register_circuit("big", big.circuit);
  eng.register_circuit("small", small.circuit);
  auto r = eng.await(eng.submit({"big", Priority::Normal, big.witnesses(3)}), 30000.0);
  CHECK(r.state == JobState::Failed);
  CHECK(r.proofs.empty());
  CHECK_MSG(contains(r.error, "needs") && contains(r.error, std::to_string(need)) &&
                contains(r.error, std::to_string(budget)) && contains(r.error, "sim:0"),
            r.error);
  CHECK_EQ(eng.status().partitions_retried, size_t(0));
  CHECK_EQ(eng.status().jobs_failed, size_t(1));
  // The same engine, the same device: a circuit that fits is served.
  auto r2 = eng.await(eng.submit({"small", Priority::Normal, small.witnesses(3)}), 30000.0);
  check_proofs(small, r2, 0, 3);
  const auto st = eng.status();
  CHECK_EQ(st.devices[0].reserved_bytes, sizes(small).key);
  // And another engine with room for the big one proves it.
  Engine roomy(config({sim(0, 0, 0, 1, need)}, 1));
  roomy.register_circuit("big", big.circuit);
  auto r3 = roomy.await(roomy.submit({"big", Priority::Normal, big.witnesses(2)}), 30000.0);
  check_proofs(big, r3, 0, 2);
  CHECK(r3.records[0].streamed);
}

// ------------------------------------------------------------------ 7. PCE off
template <class E>
void pce_matches_rows() {
  auto& f = fixture<E>(9);
  using Work = typename CircuitT<E>::Work;
  ThreadPool pool(2);
  auto w = f.witness(3);
  auto pce = f.circuit->synthesize(Witness::values("w", w), true, pool);
  auto rows = f.circuit->synthesize(Witness::values("w", w), false, pool);
  auto &x = static_cast<Work&>(*pce), &y = static_cast<Work&>(*rows);
  CHECK(x.a.empty() && !y.a.empty());  // with the PCE, a, b, c are made where the kernels run
  const auto& pk = f.circuit->key();
  const size_t n = pk.domain_size;
  std::vector<typename E::Fr> a(n), b(n), c(n);
  cpu::evaluate_abc<typename E::Fr>(n, pk.A.view(), pk.B.view(), w.data(), a.data(), b.data(), c.data(), pool);
  CHECK_EQ(a.size(), size_t(1) << 9);
  CHECK(a == y.a && b == y.b && c == y.c);
  // An unsatisfying witness: a, b still agree, c (a.b for the PCE, C.w row by row) does not;
  // synthesis refuses it either way, naming the witness and the constraint.
  auto bad = w;
  bad.back().v[0] ^= 2;
  std::vector<typename E::Fr> a1(n), b1(n), c1(n), a2, b2, c2;
  cpu::evaluate_abc<typename E::Fr>(n, pk.A.view(), pk.B.view(), bad.data(), a1.data(), b1.data(), c1.data(), pool);
  f.circuit->evaluate_rows(bad, a2, b2, c2, pool);
  CHECK(a1 == a2 && b1 == b2);
  CHECK(c1 != c2);
  CHECK_THROWS_WITH(f.circuit->synthesize(Witness::values("bad-w", bad), true, pool), InvalidArgument,
                    "bad-w: the witness does not satisfy constraint");
  CHECK_THROWS_WITH(f.circuit->synthesize(Witness::values("bad-w", bad), false, pool), InvalidArgument,
                    "bad-w: the witness does not satisfy constraint");
  // The engine with the PCE off proves.
  auto cfg = config({sim(0), sim(1)}, 1);
  cfg.use_pce = false;
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(3, 40)}), 30000.0);
  check_proofs(f, r, 40, 3);
}
CUZK_TEST(engine_pce_off_matches_bn254) { pce_matches_rows<ec::Bn254>(); }
CUZK_TEST(engine_pce_off_matches_bls12_381) { pce_matches_rows<ec::Bls12381>(); }

// ------------------------------------------------------------------ 8. priorities and age
CUZK_TEST(engine_critical_overtakes_low) {
  auto& f = fixture<ec::Bn254>(9);
  Engine eng(config({sim(0, 30)}, 1));
  eng.register_circuit("c", f.circuit);
  auto low = eng.submit({"c", Priority::Low, f.witnesses(6)});
  auto crit = eng.submit({"c", Priority::Critical, f.witnesses(2, 6)});
  auto rc = eng.await(crit, 30000.0), rl = eng.await(low, 30000.0);
  CHECK_MSG(rc.state == JobState::Done && rl.state == JobState::Done, rc.error << rl.error);
  double last_crit = 0;
  for (auto& rec : rc.records) last_crit = std::max(last_crit, rec.spans[Phase::Kernels].start_ms);
  size_t low_after = 0;
  for (auto& rec : rl.records) low_after += rec.spans[Phase::Kernels].start_ms > last_crit;
  CHECK_MSG(low_after >= 2, low_after << " low partitions started after the critical job");
  CHECK(rc.wall_ms < rl.wall_ms);
}

CUZK_TEST(engine_older_job_first) {
  auto& f = fixture<ec::Bn254>(9);
  Engine eng(config({sim(0, 20)}, 1));
  eng.register_circuit("c", f.circuit);
  auto a = eng.submit({"c", Priority::Normal, f.witnesses(4)});
  auto b = eng.submit({"c", Priority::Normal, f.witnesses(4, 4)});
  auto rb = eng.await(b, 30000.0), ra = eng.await(a, 30000.0);
  CHECK(ra.state == JobState::Done && rb.state == JobState::Done);
  double last_a = 0, first_b = 1e300;
  for (auto& rec : ra.records) last_a = std::max(last_a, rec.spans[Phase::Kernels].start_ms);
  for (auto& rec : rb.records) first_b = std::min(first_b, rec.spans[Phase::Kernels].start_ms);
  CHECK_MSG(last_a < first_b, "job a's last start " << last_a << " after job b's first " << first_b);
}

// ------------------------------------------------------------------ 9. cancellation
CUZK_TEST(engine_cancel_queued_and_running) {
  auto& f = fixture<ec::Bn254>(9);
  Engine eng(config({sim(0, 60)}, 1));
  eng.register_circuit("c", f.circuit);
  auto first = eng.submit({"c", Priority::Normal, f.witnesses(4)});
  auto queued = eng.submit({"c", Priority::Normal, f.witnesses(2, 4)});
  CHECK(eng.await(queued, 0.0).state == JobState::Queued);
  CHECK(eng.cancel(queued));
  auto rq = eng.await(queued, 0.0);  // ended by the cancel itself: nothing to wait for
  CHECK(rq.state == JobState::Cancelled);
  CHECK(rq.proofs.empty());
  CHECK(!eng.cancel(queued));
  CHECK_THROWS_WITH(eng.await(999), InvalidArgument, "unknown job");
  auto r1 = eng.await(first, 30000.0);
  CHECK_MSG(r1.state == JobState::Done, r1.error);  // the other job is untouched
  const size_t before = eng.device_records()[0].partitions;
  CHECK_EQ(before, size_t(4));

  // A running job of 10 partitions (~600 ms): cancelled after its first partition.
  auto running = eng.submit({"c", Priority::Normal, f.witnesses(10)});
  while (eng.status().partitions_done < 5) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  CHECK(eng.await(running, 0.0).state == JobState::Running);
  CHECK(eng.cancel(running));
  auto rr = eng.await(running, 0.0);  // at once, not after the partition in progress
  CHECK(rr.state == JobState::Cancelled);
  // A new job completes, and the cancelled job's queued partitions never ran.
  auto r2 = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(2, 50)}), 30000.0);
  check_proofs(f, r2, 50, 2);
  const size_t ran = eng.device_records()[0].partitions - before - 2;
  CHECK_MSG(ran >= 1 && ran <= 4, ran << " partitions of the cancelled job ran");
  CHECK_EQ(eng.status().jobs_done, size_t(2));
}

// Cancelling a job whose witnesses are being loaded: the loads finish on witnesses that are still
// alive (the engine must not destroy a Witness while its load() runs), and the engine goes on.
namespace {
std::atomic<int> g_live[4], g_loading{0}, g_loaded{0}, g_outlived{0};
std::atomic<bool> g_let_load{false};  // the loads wait for it (at most 5 s)
struct Sentinel {
  int id;
  explicit Sentinel(int i) : id(i) { ++g_live[id]; }
  Sentinel(const Sentinel& o) : id(o.id) { ++g_live[id]; }
  Sentinel& operator=(const Sentinel&) = delete;
  ~Sentinel() { --g_live[id]; }
};
// After its sleep the loader touches only globals and locals: no use of its own closure.
Witness slow_witness(int id, std::vector<cpu::Scalar> v) {
  auto data = std::make_shared<std::vector<cpu::Scalar>>(std::move(v));
  Sentinel s(id);
  return Witness{"slow " + std::to_string(id), [s, data] {
                   const int me = s.id;
                   std::vector<cpu::Scalar> out = *data;
                   ++g_loading;
                   for (int i = 0; i < 5000 && !g_let_load; ++i)
                     std::this_thread::sleep_for(std::chrono::milliseconds(1));
                   std::this_thread::sleep_for(std::chrono::milliseconds(20));
                   if (g_live[me].load() == 0) ++g_outlived;
                   ++g_loaded;
                   return out;
                 }};
}
}  // namespace

CUZK_TEST(engine_cancel_while_loading_witnesses) {
  auto& f = fixture<ec::Bn254>(9);
  Engine eng(config({sim(0)}, 1));
  eng.register_circuit("c", f.circuit);
  std::vector<Witness> ws;
  ws.push_back(slow_witness(0, f.witness(0)));
  ws.push_back(slow_witness(1, f.witness(1)));
  auto id = eng.submit({"c", Priority::Normal, std::move(ws)});
  auto t0 = std::chrono::steady_clock::now();
  while (g_loading.load() < 2 && ms_since(t0) < 5000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK_EQ(g_loading.load(), 2);
  CHECK(eng.cancel(id));
  CHECK(eng.await(id, 0.0).state == JobState::Cancelled);
  CHECK_EQ(g_loaded.load(), 0);  // ended while both loads were still held: not waiting for them
  g_let_load = true;
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(2, 70)}), 30000.0);
  check_proofs(f, r, 70, 2);
  CHECK_MSG(g_outlived.load() == 0, g_outlived.load() << " witness(es) destroyed while loading");
  CHECK_EQ(eng.status().partitions_done, size_t(2));
}

// ------------------------------------------------------------------ 10. a batch of proofs
CUZK_TEST(engine_batch_of_independent_proofs_bls12_381) {
  auto& f = fixture<ec::Bls12381>(9);
  Engine eng(config({sim(0, 0), sim(1, 0)}, 2));
  eng.register_circuit("c", f.circuit);
  const uint64_t first = 100;
  auto r = eng.await(eng.submit({"c", Priority::High, f.witnesses(6, first)}), 30000.0);
  check_proofs(f, r, first, 6);
  std::set<std::string> pubs;
  for (size_t i = 0; i < 6; ++i) {
    pubs.insert(r.proofs[i].public_json);
    for (size_t k = 0; k < 6; ++k)
      if (k != i) CHECK_MSG(!f.verifies(r.proofs[i], f.witness(first + k)), i << " vs " << k);
  }
  CHECK_EQ(pubs.size(), size_t(6));
}

// ------------------------------------------------------------------ 11. faults
CUZK_TEST(engine_device_fault_retried_elsewhere) {
  auto& f = fixture<ec::Bn254>(9);
  std::mutex m;
  std::string faulted_on;
  auto cfg = config({sim(0, 10), sim(1, 10)}, 2);
  cfg.fault = [&](Phase ph, const std::string& dev, uint64_t, uint32_t part, int attempt) {
    if (ph == Phase::Kernels && part == 3 && attempt == 1) {
      std::lock_guard lk(m);
      faulted_on = dev;
      throw DeviceFault("injected fault on " + dev);
    }
  };
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(8)}), 30000.0);
  check_proofs(f, r, 0, 8);
  CHECK(faulted_on == "sim:0" || faulted_on == "sim:1");
  const auto& rec = r.records[3];
  CHECK_EQ(rec.attempts, 2);
  CHECK_EQ(rec.device, std::string(faulted_on == "sim:0" ? "sim:1" : "sim:0"));
  CHECK(rec.ok && rec.error.empty() && rec.failure == FailureKind::None);
  CHECK(r.failure == FailureKind::None);
  for (size_t i = 0; i < 8; ++i)
    if (i != 3) CHECK_EQ(r.records[i].attempts, 1);
  CHECK(eng.status().partitions_retried >= 1);

  // A fault on both tries: the job fails naming the device.
  auto cfg2 = config({sim(0), sim(1)}, 1);
  cfg2.fault = [](Phase ph, const std::string& dev, uint64_t, uint32_t part, int) {
    if (ph == Phase::Finish && part == 1) throw DeviceFault("broken " + dev);
  };
  Engine eng2(cfg2);
  eng2.register_circuit("c", f.circuit);
  auto r2 = eng2.await(eng2.submit({"c", Priority::Normal, f.witnesses(3)}), 30000.0);
  CHECK(r2.state == JobState::Failed);
  CHECK_MSG(contains(r2.error, "partition 1") && contains(r2.error, "broken sim:"), r2.error);
  CHECK_EQ(r2.records[1].attempts, 2);
  // A device's failure: another host may prove it (the farm gives it back).
  CHECK(r2.failure == FailureKind::Transient);
  CHECK(r2.records[1].failure == FailureKind::Transient);
  CHECK_MSG(r2.records[1].error.rfind("broken sim:", 0) == 0, r2.records[1].error);  // no partition number
}

CUZK_TEST(engine_bad_witness_fails_job_without_retry) {
  auto& f = fixture<ec::Bn254>(9);
  std::atomic<int> synth_calls{0};
  auto cfg = config({sim(0), sim(1)}, 1);
  cfg.fault = [&](Phase ph, const std::string&, uint64_t job, uint32_t part, int) {
    if (ph == Phase::Synthesis && job == 1 && part == 2) {
      ++synth_calls;
      throw InvalidArgument("partition 2: witness rejected by the test");
    }
  };
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(4)}), 30000.0);
  CHECK(r.state == JobState::Failed);
  CHECK_MSG(contains(r.error, "witness rejected by the test"), r.error);
  CHECK_EQ(synth_calls.load(), 1);
  CHECK_EQ(eng.status().partitions_retried, size_t(0));
  CHECK_EQ(r.records[2].attempts, 0);  // never reached a device
  CHECK(!r.records[2].ok && contains(r.records[2].error, "rejected"));
  // Its input's failure: no other host could prove it (the farm fails the job at once).
  CHECK(r.failure == FailureKind::BadInput);
  CHECK(r.records[2].failure == FailureKind::BadInput);

  // Wrong number of values: the message names the witness.
  auto ws = f.witnesses(2);
  auto short_w = f.witness(2);
  short_w.pop_back();
  ws.push_back(Witness::values("witness-file-7.wtns", short_w));
  auto r2 = eng.await(eng.submit({"c", Priority::Normal, std::move(ws)}), 30000.0);
  CHECK(r2.state == JobState::Failed);
  CHECK_MSG(contains(r2.error, "witness-file-7.wtns") && contains(r2.error, std::to_string(short_w.size())), r2.error);
  // Value 0 must be 1.
  auto w0 = f.witness(0);
  w0[0].v[0] = 2;
  auto r3 = eng.await(eng.submit({"c", Priority::Normal, {Witness::values("w0", w0)}}), 30000.0);
  CHECK_MSG(r3.state == JobState::Failed && contains(r3.error, "constant wire"), r3.error);
  // A witness that does not satisfy the circuit: refused at synthesis (the rows are at hand).
  auto wb = f.witness(0);
  wb.back().v[0] ^= 2;
  auto r4 = eng.await(eng.submit({"c", Priority::Normal, {Witness::values("wb", wb)}}), 30000.0);
  CHECK_MSG(r4.state == JobState::Failed && contains(r4.error, "wb: the witness does not satisfy"), r4.error);
  CHECK(r4.proofs.empty());
  CHECK_EQ(eng.status().partitions_retried, size_t(0));

  // Without the rows (a key alone) the bad witness reaches a device; the proof fails the
  // self-verification, counts as the device's fault, is retried once elsewhere and then fails the
  // job. With verify off the same proof is returned, and it does not verify.
  auto keyonly = std::make_shared<CircuitT<ec::Bn254>>("key-only", f.circuit->key(), std::optional<io::R1cs>{});
  CHECK(!keyonly->has_r1cs());
  eng.register_circuit("k", keyonly);
  auto r5 = eng.await(eng.submit({"k", Priority::Normal, {Witness::values("wb", wb)}}), 30000.0);
  CHECK_MSG(r5.state == JobState::Failed && contains(r5.error, "does not verify"), r5.error);
  CHECK_EQ(r5.records[0].attempts, 2);
  CHECK_EQ(eng.status().partitions_retried, size_t(1));
  {
    auto cfg2 = config({sim(0)}, 1);
    cfg2.verify = false;
    Engine loose(cfg2);
    loose.register_circuit("k", keyonly);
    auto r6 = loose.await(
        loose.submit({"k", Priority::Normal, {Witness::values("wb", wb), Witness::values("w1", f.witness(1))}}),
        30000.0);
    CHECK_MSG(r6.state == JobState::Done, r6.error);
    CHECK(!f.verifies(r6.proofs[0], wb));
    CHECK(f.verifies(r6.proofs[1], f.witness(1)));
  }

  // The engine keeps serving.
  auto ok = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(2, 60)}), 30000.0);
  check_proofs(f, ok, 60, 2);
  CHECK_EQ(eng.status().jobs_failed, size_t(5));
  CHECK_THROWS_WITH(eng.submit({"nope", Priority::Normal, f.witnesses(1)}), InvalidArgument, "unknown circuit");
  CHECK_THROWS_WITH(eng.submit({"c", Priority::Normal, {}}), InvalidArgument, "at least one partition");
}

// ------------------------------------------------------------------ 12. parsing
CUZK_TEST(engine_parse_devices_sizes_budgets) {
  using backend::parse_device_specs;
  using backend::parse_size;
  auto d = parse_device_specs("sim:3");
  CHECK_EQ(d.size(), size_t(3));
  for (int i = 0; i < 3; ++i) {
    CHECK(d[i].kind == DeviceSpec::Kind::Sim);
    CHECK_EQ(d[i].name(), "sim:" + std::to_string(i));
  }
  CHECK_EQ(parse_device_specs("cpu").size(), size_t(1));
  CHECK_EQ(parse_device_specs("cpu")[0].name(), std::string("cpu"));
  CHECK_THROWS_WITH(parse_device_specs("gpu:7"), InvalidArgument, "gpu:7");
  CHECK_THROWS_WITH(parse_device_specs("sim:0"), InvalidArgument, "sim:K");
  CHECK_THROWS_WITH(parse_device_specs("tpu:1"), InvalidArgument, "unknown device");
  CHECK_THROWS_WITH(parse_device_specs("sim:2,,sim:1"), InvalidArgument, "empty item");
  CHECK_THROWS_WITH(parse_device_specs("sim:2,sim:1"), InvalidArgument, "sim:0 is listed twice");
  CHECK_THROWS_WITH(parse_device_specs("cpu,cpu"), InvalidArgument, "cpu is listed twice");
  CHECK_EQ(parse_device_specs("sim:2,cpu").back().name(), std::string("cpu"));
  CHECK_THROWS_WITH(parse_device_specs("tpu:1", "devices.list"), InvalidArgument, "devices.list: unknown device");
  // Suffixes: the whole list's budget and workers.
  auto w = parse_device_specs("sim:2@3GiB*4");
  for (auto& x : w) CHECK(x.memory == (size_t(3) << 30) && x.workers == 4);
  CHECK_THROWS_WITH(parse_device_specs("sim:1@1GiB,cpu"), InvalidArgument, "at the end of the list");
  CHECK_THROWS_WITH(parse_device_specs("sim:1*17"), InvalidArgument, "1..16");
  CHECK_THROWS_WITH(parse_device_specs("sim:1@lots"), InvalidArgument, "not a size");
  // auto: every GPU, else the CPU (no GPU where the tests run without one).
  if (cuda::list_devices().empty()) CHECK_EQ(parse_device_specs("auto")[0].name(), std::string("cpu"));

  CHECK_EQ(parse_size("20GiB"), size_t(20) << 30);
  CHECK_EQ(parse_size("1.5GB"), size_t(1500000000));
  CHECK_EQ(parse_size("512MiB"), size_t(512) << 20);
  CHECK_EQ(parse_size("123456"), size_t(123456));
  CHECK_THROWS_WITH(parse_size("20XB"), InvalidArgument, "unit");
  CHECK_THROWS_WITH(parse_size("GiB"), InvalidArgument, "not a size");
  CHECK_THROWS_WITH(parse_size("0"), InvalidArgument, "out of range");

  auto devs = parse_device_specs("sim:3");
  CHECK_THROWS_WITH(backend::apply_memory(devs, {"1GiB", "2GiB"}, "--device-memory"), InvalidArgument,
                    "--device-memory has 2 sizes for 3 devices");
  CHECK_THROWS_WITH(backend::apply_memory(devs, {"1GiB", "2GiB"}, "devices.memory"), InvalidArgument,
                    "devices.memory has 2 sizes");
  backend::apply_memory(devs, {"1GiB"}, "--device-memory");
  for (auto& x : devs) CHECK_EQ(x.memory, size_t(1) << 30);
  backend::apply_memory(devs, {"1GiB", "2GiB", "3GB"}, "--device-memory");
  CHECK_EQ(devs[1].memory, size_t(2) << 30);
  CHECK_EQ(devs[2].memory, size_t(3000000000));
  CHECK_EQ(one_device("cpu", "--device").name(), std::string("cpu"));
  CHECK_THROWS_WITH(one_device("sim:2", "--device"), InvalidArgument, "expected one");
  CHECK_THROWS_WITH(backend::gpu_ordinal("cpu", "--device"), InvalidArgument, "--device: 'cpu' is not one GPU");

  CHECK(parse_priority("CRITICAL") == Priority::Critical);
  CHECK_THROWS_WITH(parse_priority("urgent"), InvalidArgument, "unknown priority");
  CHECK_THROWS_WITH(Engine(EngineConfig{}), InvalidArgument, "at least one device");
}

// ------------------------------------------------------------------ 13. device work outside partitions
// Tools (setup, kernel benchmarks) run on a device through run_on_device: under its lock (never
// beside a partition's kernels), inside its budget (evicting an idle key when needed), counted
// in its busy time; too large is refused naming both sizes; a throwing task releases its bytes.
CUZK_TEST(engine_device_work_takes_lock_and_budget) {
  auto& f = fixture<ec::Bn254>(9);
  const size_t key = sizes(f).key, ws = sizes(f).ws, budget = key + ws;
  Engine eng(config({sim(0, 25, 0, 1, budget)}, 2));
  eng.register_circuit("c", f.circuit);
  const uint64_t job = eng.submit({"c", Priority::Normal, f.witnesses(4, 70)});
  std::vector<Span> tool;
  std::atomic<bool> ok_inside{true};
  for (int k = 0; k < 6; ++k) {
    Span s;
    eng.run_on_device("sim:0", ws, "tool " + std::to_string(k),
                      [&](backend::Device&, backend::Memory m, backend::Stream&) {
                        if (m.bytes != ws) ok_inside = false;
                        s.start_ms = eng.now_ms();
                        auto st = eng.status().devices.at(0);
                        if (st.current != "tool " + std::to_string(k) || st.reserved_bytes < ws) ok_inside = false;
                        std::this_thread::sleep_for(std::chrono::milliseconds(15));
                        s.end_ms = eng.now_ms();
                      });
    tool.push_back(s);
  }
  auto r = eng.await(job, 30000.0);
  check_proofs(f, r, 70, 4);
  CHECK(ok_inside.load());
  for (auto& t : tool)
    for (auto& rec : r.records)
      CHECK_MSG(!overlap(t, rec.spans[Phase::Kernels]), "device work overlaps partition " << rec.index);
  auto dev = eng.device_records().at(0);
  double kernels = 0;
  for (auto& rec : r.records) kernels += rec.spans[Phase::Kernels].ms();
  CHECK_MSG(dev.busy_ms >= kernels + 6 * 15 - 1, "busy " << dev.busy_ms << " ms, kernels " << kernels);

  // The whole budget: the resident key (idle now) is evicted for it.
  CHECK_EQ(eng.status().devices.at(0).resident_keys.size(), size_t(1));
  eng.run_on_device("sim:0", budget, "all of it", [&](backend::Device&, backend::Memory, backend::Stream&) {
    CHECK_EQ(eng.status().devices.at(0).reserved_bytes, budget);
  });
  CHECK(eng.status().devices.at(0).resident_keys.empty());
  CHECK_THROWS_WITH(
      eng.run_on_device("sim:0", budget + 1, "too much", [](backend::Device&, backend::Memory, backend::Stream&) {}),
      InvalidArgument, std::to_string(budget + 1) + " bytes");
  CHECK_THROWS_WITH(
      eng.run_on_device("sim:0", budget + 1, "too much", [](backend::Device&, backend::Memory, backend::Stream&) {}),
      InvalidArgument, "budget is " + std::to_string(budget));
  CHECK_THROWS_WITH(eng.run_on_device("sim:7", 1, "x", [](backend::Device&, backend::Memory, backend::Stream&) {}),
                    InvalidArgument, "unknown device");
  CHECK_THROWS_WITH(
      eng.run_on_device("sim:0", ws, "failing",
                        [](backend::Device&, backend::Memory, backend::Stream&) { throw DeviceFault("injected"); }),
      DeviceFault, "injected");
  CHECK_EQ(eng.status().devices.at(0).reserved_bytes, size_t(0));
  // And partitions run again afterwards.
  check_proofs(f, eng.await(eng.submit({"c", Priority::Normal, f.witnesses(2, 74)}), 30000.0), 74, 2);
}

// One partition on a `cpu` engine gives the proof of the prove sequence run directly on a CPU
// device for the same r, s (the first job's first partition draws r, s from the seed itself), and
// the key is used in place there: no device memory is charged for it.
CUZK_TEST(engine_cpu_device_equals_direct_proof) {
  auto& f = fixture<ec::Bls12381>(9);
  auto w = f.witness(3);
  auto cfg = config({backend::parse_device_specs("cpu")[0]}, 1);
  cfg.seed = test::seed() + 11;
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, {Witness::values("witness 3", w)}}), 30000.0);
  CHECK_MSG(r.state == JobState::Done, r.error);
  CHECK_EQ(r.records[0].device, std::string("cpu"));
  CHECK_EQ(eng.footprint("c", "cpu").key, size_t(0));
  RandomSource rs(*cfg.seed);
  using Fr = ec::Bls12381::Fr;
  Fr rr = random_field<Fr>(rs), ss = random_field<Fr>(rs);
  cpu::CpuDevice dev({});
  auto want = groth16::prove_on<ec::Bls12381>(dev, f.circuit->key(), w, rr, ss);
  CHECK_EQ(r.proofs[0].proof_json, groth16::proof_json(want));
  CHECK_EQ(r.proofs[0].public_json, groth16::public_json(w, f.vk.n_public));
  CHECK_EQ(partition_seed(5, 1, 0), uint64_t(5));
  CHECK(partition_seed(5, 2, 0) != partition_seed(5, 1, 0) && partition_seed(5, 1, 1) != partition_seed(5, 1, 0));
}

// A service forgets what it has delivered: an ended job can be forgotten, a running one not.
CUZK_TEST(engine_forgets_ended_jobs_only) {
  auto& f = fixture<ec::Bn254>(9);
  Engine eng(config({sim(0, 60)}, 1));
  eng.register_circuit("c", f.circuit);
  const uint64_t slow = eng.submit({"c", Priority::Normal, f.witnesses(2, 80)});
  CHECK(!eng.forget(slow));  // still running
  auto r = eng.await(slow, 30000.0);
  check_proofs(f, r, 80, 2);
  CHECK(eng.forget(slow));
  CHECK(!eng.forget(slow));
  CHECK_THROWS_WITH(eng.await(slow, 0.0), InvalidArgument, "unknown job");
  CHECK(!eng.forget(12345));
}

// Eight devices keep the properties of two: every device takes work, faster ones more; kernels
// never overlap on one device but run on many devices at once; staging overlaps kernels; the
// throughput grows with the devices (kernels bound here, not the CPU).
CUZK_TEST(engine_eight_devices_same_properties) {
  // The devices' floors, not the CPU, must be what limits the rate even on a loaded machine: a
  // small circuit (its kernels take a few ms of CPU), and no witness check (the witnesses are
  // correct by construction).
  auto& f = fixture<ec::Bn254>(7);
  f.circuit->set_check_witnesses(false);
  struct Restore {
    Fixture<ec::Bn254>& f;
    ~Restore() { f.circuit->set_check_witnesses(true); }
  } restore{f};
  // The time from the first kernels to the last, from the engine's own records (what the devices
  // did, not what the test's thread saw).
  auto run = [&](std::vector<DeviceSpec> devs, uint64_t first, std::vector<JobResult>& out) {
    Engine eng(config(std::move(devs), 2));
    eng.register_circuit("c", f.circuit);
    const uint64_t a = eng.submit({"c", Priority::Normal, f.witnesses(12, first)});
    const uint64_t b = eng.submit({"c", Priority::Normal, f.witnesses(12, first + 12)});
    out.push_back(eng.await(a, 60000.0));
    out.push_back(eng.await(b, 60000.0));
    double start = 1e300, end = 0;
    for (auto& r : out)
      for (auto& rec : r.records)
        start = std::min(start, rec.spans[Phase::Kernels].start_ms),
        end = std::max(end, rec.spans[Phase::Kernels].end_ms);
    return end - start;
  };
  std::vector<DeviceSpec> eight;
  // Floors of 560 ms a partition (280 at speed 2): longer than a loaded machine's CPU work.
  for (int i = 0; i < 8; ++i) eight.push_back(sim(i, 560, 10, i < 4 ? 1.0 : 2.0));
  std::vector<JobResult> r8, r1;
  const double ms8 = run(eight, 100, r8);
  const double ms1 = run({sim(0, 560, 10)}, 100, r1);
  check_proofs(f, r8[0], 100, 12);
  check_proofs(f, r8[1], 112, 12);
  check_proofs(f, r1[0], 100, 12);
  std::vector<PartitionRecord> all;
  for (auto& r : r8) all.insert(all.end(), r.records.begin(), r.records.end());
  std::map<std::string, size_t> per;
  for (auto& rec : all) ++per[rec.device];
  CHECK_EQ(per.size(), size_t(8));
  size_t slow = 0, fast = 0;
  for (auto& [d, n] : per) (d < "sim:4" ? slow : fast) += n;
  // The first 16 partitions go two to each device; a fast device frees a worker at 280 ms and
  // takes 4 of the last 8 there, and at 560 ms its second worker and a slow device's first come
  // back together for the other 4: the fast devices take 12 to 16, the slow ones 8 to 12.
  CHECK_MSG(fast >= slow && fast >= 12, "fast devices took " << fast << ", slow " << slow);
  bool stage_under_kernels = false;
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t k = 0; k < all.size(); ++k)
      if (i != k && all[i].device == all[k].device) {
        CHECK_MSG(!overlap(all[i].spans[Phase::Kernels], all[k].spans[Phase::Kernels]),
                  "kernels at once on " << all[i].device);
        stage_under_kernels |= overlap(all[i].spans[Phase::Stage], all[k].spans[Phase::Kernels]);
      }
  CHECK(stage_under_kernels);
  // The most devices in kernels at one moment.
  std::vector<std::pair<double, int>> ev;
  for (auto& rec : all)
    ev.push_back({rec.spans[Phase::Kernels].start_ms, 1}), ev.push_back({rec.spans[Phase::Kernels].end_ms, -1});
  std::sort(ev.begin(), ev.end());
  int cur = 0, most = 0;
  for (auto& [t, d] : ev) most = std::max(most, cur += d);
  CHECK_MSG(most >= 5, "at most " << most << " devices ran kernels at once");
  const double speedup = ms1 / ms8;
  std::printf(
      "    8 devices: %.0f ms, 1 device: %.0f ms for 24 partitions (%.1fx); up to %d devices in kernels at once\n", ms8,
      ms1, speedup, most);
  // Ideally about 8x (the fast four are twice as quick); 3x leaves room for a loaded machine.
  CHECK_MSG(speedup >= 3.0, "8 devices only " << speedup << "x one");
}

// ------------------------------------------------------------------ 14. scheduler defects
// Each of these pinned a defect of an earlier scheduler (the test failed there).

namespace {
std::shared_ptr<cpu::CpuDevice> sim_device(int k, size_t capacity, double kernel_ms = 0, double free_ms = 0,
                                           std::function<void(const char*)> after_enqueue = {}) {
  cpu::CpuDeviceOptions o;
  o.name = "sim:" + std::to_string(k), o.simulated = true, o.capacity = capacity, o.threads = 1;
  o.kernel_ms = kernel_ms, o.free_ms = free_ms, o.after_enqueue = std::move(after_enqueue);
  return std::make_shared<cpu::CpuDevice>(o);
}
}  // namespace

// 1. Keys X and Y resident, X's working set larger than what is left beside both: the idle key Y
// is evicted for X's partition (it used to wait forever: idle keys of other circuits were
// evicted only when X's own key was not resident).
CUZK_TEST(engine_evicts_other_idle_keys_for_a_resident_key) {
  auto& x = fixture<ec::Bn254>(10);
  auto& y = fixture<ec::Bn254>(9);
  const Sizes sx = sizes(x), sy = sizes(y);
  const size_t budget = std::max(sx.key + sy.key + sy.ws, sx.key + sx.ws);
  CHECK_MSG(sx.key + sy.key + sx.ws > budget, "the scenario needs X's working set not to fit beside both keys");
  Engine eng(config({sim(0, 0, 0, 1, budget)}, 2));
  eng.register_circuit("x", x.circuit);
  eng.register_circuit("y", y.circuit);
  eng.preload("x", "sim:0");
  eng.preload("y", "sim:0");
  CHECK_EQ(eng.status().devices[0].resident_keys.size(), size_t(2));
  auto r = eng.await(eng.submit({"x", Priority::Normal, x.witnesses(3)}), 10000.0);
  CHECK_MSG(r.state == JobState::Done, "X's job " << job_state_name(r.state) << " after 10 s: " << r.error);
  check_proofs(x, r, 0, 3);
  CHECK(resident(eng.status().devices[0]) == std::vector<std::string>{"x"});
  // A reservation that can never be satisfied fails at once, naming the sizes.
  Engine tiny(config({sim(0, 0, 0, 1, sy.ws_s - 1)}, 1));
  tiny.register_circuit("y", y.circuit);
  CHECK_THROWS_WITH(tiny.preload("y", "sim:0"), InvalidArgument, "does not fit on sim:0");
}

// 2. A partition that cannot fit one device goes to a device that can hold it (mixed cards);
// only when no device can does the job fail, naming each device's need and budget.
CUZK_TEST(engine_routes_partitions_to_devices_that_can_hold_them) {
  auto& f = fixture<ec::Bn254>(9);
  const Sizes sz = sizes(f);
  Engine mixed(config({sim(0, 5, 0, 1, sz.ws_s - 1), sim(1, 5, 0, 1, 4 * (sz.key + sz.ws))}, 2));
  mixed.register_circuit("c", f.circuit);
  CHECK(mixed.cannot_hold("c").empty());
  CHECK(!mixed.footprint("c", "sim:0").fits() && mixed.footprint("c", "sim:1").fits());
  auto r = mixed.await(mixed.submit({"c", Priority::Normal, f.witnesses(6)}), 30000.0);
  check_proofs(f, r, 0, 6);
  for (auto& rec : r.records) CHECK_EQ(rec.device, std::string("sim:1"));
  CHECK_EQ(mixed.device_records()[0].partitions, size_t(0));

  Engine small(config({sim(0, 0, 0, 1, sz.ws_s - 1), sim(1, 0, 0, 1, sz.ws_s - 2)}, 1));
  small.register_circuit("c", f.circuit);
  const std::string why = small.cannot_hold("c");
  CHECK_MSG(contains(why, "sim:0 needs " + std::to_string(sz.ws_s)) && contains(why, std::to_string(sz.ws_s - 1)) &&
                contains(why, "sim:1") && contains(why, std::to_string(sz.ws_s - 2)),
            why);
  auto r2 = small.await(small.submit({"c", Priority::Normal, f.witnesses(2)}), 5000.0);
  CHECK(r2.state == JobState::Failed);
  CHECK_EQ(r2.error, why);
}

// 3. Memory of a partition whose device work failed after more work was queued is freed only
// once that work is done: on a simulated device a write that lands in freed memory is refused
// and counted (on a GPU it would land in another worker's memory).
CUZK_TEST(engine_frees_memory_after_the_work_that_uses_it) {
  auto& f = fixture<ec::Bn254>(9);
  std::atomic<int> failures{0};
  auto dev = sim_device(0, 0, 1400, 0, [&](const char* op) {
    if (std::string(op) == "compute_h" && failures++ == 0) throw Error("injected: a launch error after H was queued");
  });
  Engine eng(config({sim(0)}, 2), {dev});
  eng.register_circuit("c", f.circuit);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(1)}), 30000.0);
  CHECK_MSG(r.state == JobState::Failed && contains(r.error, "injected"), r.error);
  auto r2 = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(2, 5)}), 30000.0);
  check_proofs(f, r2, 5, 2);
  CHECK_MSG(dev->hazards() == 0, dev->hazards() << " device writes into freed memory");
}

// 4. On an error path the budget goes back only after the memory is free: a device with room for
// one partition, whose frees take time, serves the next partition without running out of memory.
CUZK_TEST(engine_releases_budget_after_freeing) {
  auto& f = fixture<ec::Bn254>(9);
  const Sizes sz = sizes(f);
  auto dev = sim_device(0, sz.key + sz.ws, 0, 150);
  auto cfg = config({sim(0)}, 2);
  cfg.fault = [](Phase ph, const std::string&, uint64_t job, uint32_t, int) {
    if (ph == Phase::MsmA && job == 1) throw DeviceFault("injected fault in the MSMs");
  };
  Engine eng(cfg, {dev});
  eng.register_circuit("c", f.circuit);
  const uint64_t bad = eng.submit({"c", Priority::Normal, f.witnesses(1)});
  const uint64_t good = eng.submit({"c", Priority::Normal, f.witnesses(2, 10)});
  auto rb = eng.await(bad, 30000.0), rg = eng.await(good, 30000.0);
  CHECK(rb.state == JobState::Failed);
  for (auto& rec : rg.records) CHECK_MSG(!contains(rec.error, "out of memory"), rec.error);
  check_proofs(f, rg, 10, 2);
}

// 5. An evicted key's memory is freed (which waits for its device) without holding the engine's
// lock: while one device frees, the engine answers at once.
CUZK_TEST(engine_evicts_without_stopping_the_other_devices) {
  auto& x = fixture<ec::Bn254>(10);
  auto& y = fixture<ec::Bn254>(9);
  const Sizes sx = sizes(x), sy = sizes(y);
  auto slow_free = sim_device(0, 0, 0, 2000);  // its frees take 2 s
  auto other = sim_device(1, 0);
  auto cfg = config({sim(0, 0, 0, 1, std::max(sx.key + sx.ws, sy.key + sy.ws)), sim(1)}, 1);
  Engine eng(cfg, {slow_free, other});
  eng.register_circuit("x", x.circuit);
  eng.register_circuit("y", y.circuit);
  eng.preload("x", "sim:0");
  double worst = 0;
  std::mutex m;
  Poller poll([&] {
    auto t0 = SteadyClock::now();
    eng.status();
    std::lock_guard lk(m);
    worst = std::max(worst, ms_since(t0));
  });
  std::thread evictor([&] { eng.preload("y", "sim:0"); });  // x is evicted for it
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto t0 = SteadyClock::now();
  auto r = eng.await(eng.submit({"y", Priority::Normal, y.witnesses(1, 30)}), 30000.0);
  const double job_ms = ms_since(t0);
  evictor.join();
  poll.halt();
  check_proofs(y, r, 30, 1);
  CHECK(resident(eng.status().devices[0]) == std::vector<std::string>{"y"});
  // status() takes microseconds; waiting for the free would take 2 s: 1 s is room for a loaded machine.
  CHECK_MSG(worst < 1000, "status() took " << worst << " ms while a key was freed");
  (void)job_ms;
}

// 6. A cancelled job's partition stops between the phases of its kernels and gives the device
// back, and a partition waiting for a device's budget stops waiting.
CUZK_TEST(engine_cancel_stops_running_kernels) {
  auto& f = fixture<ec::Bn254>(9);
  const Sizes sz = sizes(f);
  Engine eng(config({sim(0, 7000, 0, 1, sz.key + sz.ws)}, 2));  // each kernel phase ~1 s; room for one
  eng.register_circuit("c", f.circuit);
  const uint64_t a = eng.submit({"c", Priority::Normal, f.witnesses(1)});
  const uint64_t b = eng.submit({"c", Priority::Normal, f.witnesses(1, 1)});  // waits for a's budget
  auto t0 = SteadyClock::now();
  while (eng.status().devices[0].current.empty() && ms_since(t0) < 10000)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(eng.cancel(b));
  CHECK(eng.cancel(a));
  t0 = SteadyClock::now();
  while (!eng.status().devices[0].current.empty() && ms_since(t0) < 10000)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const double released = ms_since(t0);
  // Stopped at the next phase (about 1 s), not after the remaining ~6 s of kernels.
  CHECK_MSG(released < 3000, "the device was busy " << released << " ms after the cancel");
  while (eng.status().running > 0 && ms_since(t0) < 10000) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto st = eng.status();
  CHECK_EQ(st.devices[0].reserved_bytes, sz.key);  // both partitions gave their working sets back
  CHECK_EQ(st.devices[0].record.partitions, size_t(0));
  CHECK(eng.await(a, 0.0).state == JobState::Cancelled && eng.await(b, 0.0).state == JobState::Cancelled);
  // The device serves the next job.
  Engine fast(config({sim(0, 0, 0, 1, sz.key + sz.ws)}, 2));
  fast.register_circuit("c", f.circuit);
  check_proofs(f, fast.await(fast.submit({"c", Priority::Normal, f.witnesses(2, 3)}), 30000.0), 3, 2);
}

// The page-locked ranges a staged copy splits its source by (util/ranges.hpp), against a map of
// bytes: ranges added (refused where they meet one there) and removed at random; every span's
// runs cover it in order, a covered run to its range's end (one DMA per registration), an
// uncovered one to the next range's start; a span is covered when adjacent ranges cover it.
CUZK_TEST(range_set_runs_match_a_map_of_bytes) {
  RandomSource rs(test::seed());
  constexpr size_t kSpace = 600;
  std::vector<int> owner(kSpace, -1);  // the range covering each byte (its begin), -1 none
  std::vector<size_t> end_of(kSpace, 0);
  std::vector<std::pair<size_t, size_t>> live;
  RangeSet set;
  for (int step = 0; step < 3000; ++step) {
    if (live.empty() || rs.next() % 3 != 0) {
      const size_t b = rs.next() % kSpace, e = std::min(kSpace, b + rs.next() % 40);
      bool free = b < e;
      for (size_t x = b; x < e && free; ++x) free = owner[x] < 0;
      CHECK_EQ(set.add(b, e), free);
      if (free) {
        for (size_t x = b; x < e; ++x) owner[x] = int(b);
        end_of[b] = e;
        live.emplace_back(b, e);
      }
    } else {
      const size_t k = rs.next() % live.size();
      set.erase(live[k].first);
      for (size_t x = live[k].first; x < live[k].second; ++x) owner[x] = -1;
      live.erase(live.begin() + ptrdiff_t(k));
    }
    for (int q = 0; q < 4; ++q) {
      const size_t b = rs.next() % kSpace, len = rs.next() % (kSpace - b + 1), e = b + len;
      bool all = len > 0;
      for (size_t x = b; x < e; ++x) all = all && owner[x] >= 0;
      CHECK_EQ(set.covers(b, len), all);
      CHECK_EQ(set.first_run(b, 0).bytes, size_t(0));
      for (size_t at = b; at < e;) {
        const RangeSet::Run r = set.first_run(at, e - at);
        CHECK_EQ(r.covered, owner[at] >= 0);
        size_t to = at;  // where the run must end
        if (r.covered)
          to = std::min(e, end_of[size_t(owner[at])]);
        else
          while (to < e && owner[to] < 0) ++to;
        CHECK_EQ(at + r.bytes, to);
        if (at + r.bytes != to) break;
        at = to;
      }
    }
  }
}
