// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine on real GPUs (skipped without one): jobs on every visible GPU give the CPU's proofs
// for the same r, s; the streamed mode (key larger than the budget) gives them too; a budget too
// small is refused naming the bytes; device memory beyond the card fails with a clear error; a
// partition's memory is given back only after the kernels queued on it are done; the bytes the
// engine charges are the bytes the device allocates; copies from page-locked host memory; the
// memory pool keeps freed memory and gives it up to an allocation that needs it.
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/cpu/device.hpp"
#include "backend/cpu/h.hpp"
#include "backend/cuda/device_alloc.hpp"
#include "backend/cuda/gpu.hpp"
#include "backend/open.hpp"
#include "ec/curves.hpp"
#include "engine/circuit_impl.hpp"
#include "engine/engine.hpp"
#include "gpu_testing.hpp"
#include "groth16/sequence.hpp"
#include "setup/setup.hpp"
#include "setup/synthetic.hpp"
#include "testing.hpp"
#include "util/carver.hpp"
#include "util/rng.hpp"

using namespace cuzk;
using namespace cuzk::engine;

namespace {

template <class E>
struct Fixture {
  using Fr = typename E::Fr;
  ThreadPool pool{0};
  std::unique_ptr<setup::SyntheticCircuit<Fr>> circ;
  std::shared_ptr<CircuitT<E>> circuit;
  explicit Fixture(int log_n, backend::HForm form = backend::HForm::OddCoset) {
    setup::SyntheticSpec spec;
    spec.log_n = log_n;
    spec.seed = test::seed();
    circ = std::make_unique<setup::SyntheticCircuit<Fr>>(spec);
    RandomSource rs(test::seed() + 1);
    auto pk = setup::setup<E>(circ->source(), setup::ToxicWaste<Fr>::draw(rs), setup::cpu_fixed_base<E>(pool), pool,
                              nullptr, {}, form);
    circuit = std::make_shared<CircuitT<E>>("gpu-synthetic", std::move(pk), circ->source());
  }
  std::vector<Witness> witnesses(uint32_t k, uint64_t first = 0) {
    std::vector<Witness> out;
    for (uint32_t p = 0; p < k; ++p)
      out.push_back(Witness::values("w" + std::to_string(p), circ->witness(first + p, pool)));
    return out;
  }
  // The CPU's proof of witness `wid` with the r, s the engine gives (job, index).
  std::string cpu_proof(uint64_t wid, uint64_t seed, uint64_t job, uint32_t index) {
    RandomSource rs(partition_seed(seed, job, index));
    using Fr = typename E::Fr;
    const Fr r = random_field<Fr>(rs), s = random_field<Fr>(rs);
    cpu::CpuDevice dev({});
    return groth16::proof_json(groth16::prove_on<E>(dev, circuit->key(), circ->witness(wid, pool), r, s));
  }
};

std::vector<DeviceSpec> all_gpus(size_t budget = 0) {
  test::gpus_or_skip();
  auto out = backend::parse_device_specs("all");
  for (auto& d : out) d.memory = budget;
  return out;
}

template <class E>
void gpu_jobs_equal_cpu(backend::HForm form = backend::HForm::OddCoset) {
  auto devs = all_gpus();
  Fixture<E> f(12, form);
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
    // The kernel phases on the GPU's own clock: some device time, within the host's span of them.
    const double dev_ms = r.records[i].device_ms, host_ms = r.records[i].ms(Phase::Kernels);
    CHECK_MSG(dev_ms > 0 && dev_ms <= host_ms + 0.5, "device_ms " << dev_ms << " vs kernels " << host_ms);
    CHECK_MSG(r.proofs[i].proof_json == f.cpu_proof(i, 77, id, i), "partition " << i << " on " << r.records[i].device);
  }
  CHECK_EQ(used.size(), devs.size());
  auto st = eng.status();
  for (auto& d : st.devices) {
    CHECK(d.resident_keys.size() == 1);
    // The proofs above used the key's MSM tables (a small key on a large card gets them).
    CHECK_MSG(eng.footprint("c", d.record.name).key_tables > 0, d.record.name << ": no MSM tables made for the key");
  }
}
CUZK_TEST(gpu_engine_proofs_equal_cpu_bn254) { gpu_jobs_equal_cpu<ec::Bn254>(); }
CUZK_TEST(gpu_engine_proofs_equal_cpu_bls12_381) { gpu_jobs_equal_cpu<ec::Bls12381>(); }
// bellperson's convention: H as coefficients, density-compacted A and B gathered on the GPU.
CUZK_TEST(gpu_engine_bellperson_proofs_equal_cpu) { gpu_jobs_equal_cpu<ec::Bls12381>(backend::HForm::Coefficients); }

void streamed_key_equals_cpu(backend::HForm form) {
  auto devs = all_gpus();
  Fixture<ec::Bls12381> f(12, form);
  constexpr size_t kChunk = 1000;  // several chunks per MSM, the last one short
  auto gpu = backend::open_device(devs[0]);
  const size_t ws = f.circuit->working_set_bytes(*gpu, kChunk);
  const size_t resident = f.circuit->key_bytes(*gpu) + f.circuit->working_set_bytes(*gpu, 0);
  gpu.reset();
  CHECK_MSG(ws < resident, ws << " >= " << resident);
  EngineConfig cfg;
  cfg.devices = {devs[0]};
  cfg.devices[0].memory = ws;
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
CUZK_TEST(gpu_engine_streamed_key_equals_cpu) { streamed_key_equals_cpu(backend::HForm::OddCoset); }
CUZK_TEST(gpu_engine_streamed_bellperson_key_equals_cpu) { streamed_key_equals_cpu(backend::HForm::Coefficients); }

CUZK_TEST(gpu_engine_refuses_a_budget_too_small) {
  auto devs = all_gpus();
  Fixture<ec::Bn254> f(11);
  EngineConfig cfg;
  cfg.devices = {devs[0]};
  const size_t need = f.circuit->working_set_bytes(*backend::open_device(devs[0]), EngineConfig::kMinStreamChunk);
  cfg.devices[0].memory = need - 1;
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
  CHECK_THROWS_WITH(gpu::PoolBuffer(gpu::DeviceId{devs[0].index}, huge, "test"), gpu::GpuError, std::to_string(huge));
  // The device still works afterwards.
  gpu::PoolBuffer ok(gpu::DeviceId{devs[0].index}, size_t(1) << 20, "test");
  CHECK(ok.memory().ptr != nullptr);
}

// The pool keeps what its buffers free, mapped for the next one, and counts it as free memory;
// an allocation that needs that memory (a plain cudaMalloc, or a larger pool buffer) gets it:
// the pool's idle memory goes back to the driver and the allocation is tried again.
CUZK_TEST(gpu_pool_keeps_freed_memory_and_gives_it_up) {
  auto devs = all_gpus();
  const gpu::DeviceId dev{devs[0].index};
  const size_t gib = size_t(1) << 30;
  gpu::trim_pool(dev);
  size_t free0 = 0, total = 0, free1 = 0;
  gpu::memory_info(dev, &free0, &total);
  { gpu::PoolBuffer b(dev, 4 * gib, "test kept"); }
  CHECK_MSG(gpu::pool_idle_bytes(dev) >= 4 * gib, "the pool kept " << gpu::pool_idle_bytes(dev) << " bytes");
  gpu::memory_info(dev, &free1, &total);
  CHECK_MSG(free1 + (size_t(64) << 20) >= free0, "free " << free0 << " before, " << free1 << " after");
  {
    gpu::DeviceBuffer big(dev, free1 - gib);  // more than the driver has beside the pool's 4 GiB
    CHECK(big.memory().ptr != nullptr);
  }
  { gpu::PoolBuffer b(dev, 2 * gib, "test kept"); }
  CHECK(gpu::pool_idle_bytes(dev) >= 2 * gib);
  {
    gpu::PoolBuffer all(dev, free1 - gib, "test most");
    CHECK(all.memory().ptr != nullptr);
  }
  gpu::trim_pool(dev);
  CHECK_EQ(gpu::pool_idle_bytes(dev), size_t(0));
}

// A streamed key's sections are page-locked once: a copy's locked runs go by DMA from where they
// are; the rest of a range only partly locked, or one after the lock is gone, goes through the
// staging buffers. Ranges locked by two calls side by side count as one. Page-locked copies and
// buffers to write come from the room made ahead (none is allocated by them), are read by DMA
// and reused. Every copy arrives whole.
CUZK_TEST(gpu_copies_from_page_locked_memory) {
  auto devs = all_gpus();
  const gpu::DeviceId dev{devs[0].index};
  std::vector<uint64_t> host(size_t(3) << 20);  // 24 MiB
  RandomSource rs(test::seed());
  for (auto& x : host) x = rs.next();
  const size_t all = host.size() * sizeof(uint64_t), half = all / 2;
  gpu::PoolBuffer d(dev, all, "test copies");
  auto copied = [&](size_t off, size_t len) {
    std::vector<uint64_t> back(len / 8, 0), zeros(all / 8, 0);
    gpu::copy_to_device(dev, d.memory().ptr, zeros.data(), all, "test clear");
    gpu::copy_to_device_staged(dev, d.memory().ptr, reinterpret_cast<const char*>(host.data()) + off, len, "test");
    gpu::copy_to_host(dev, back.data(), d.memory().ptr, len, "test back");
    return std::memcmp(back.data(), reinterpret_cast<const char*>(host.data()) + off, len) == 0;
  };
  {
    auto pin = gpu::pin_host(dev, host.data(), half);
    CHECK(pin != nullptr);
    CHECK(gpu::is_pinned(host.data(), half) && gpu::is_pinned(host.data() + 1, half - 16));
    CHECK(!gpu::is_pinned(host.data(), half + 8) && !gpu::is_pinned(host.data() + half / 8, 8));
    CHECK(copied(0, half));       // one DMA
    CHECK(copied(8, half - 16));  // one DMA, from inside the range
    CHECK(copied(0, all));        // partly locked: staged
    CHECK(copied(half, all - half));
  }
  CHECK(!gpu::is_pinned(host.data(), 8));
  CHECK(copied(0, all));
  {
    // Two calls side by side at a page boundary: locked from `lo` to `hi`, staged before and
    // after, the two runs copied by one DMA each.
    const uintptr_t base = reinterpret_cast<uintptr_t>(host.data());
    const size_t lo = ((base + all / 4 + 4095) & ~uintptr_t(4095)) - base, mid = lo + (size_t(5) << 20) + 4096,
                 hi = mid + (size_t(3) << 20) + 512;
    const char* h = reinterpret_cast<const char*>(host.data());
    auto first = gpu::pin_host(dev, h + lo, mid - lo);
    auto second = gpu::pin_host(dev, h + mid, hi - mid);
    CHECK(first != nullptr && second != nullptr);
    CHECK(gpu::is_pinned(h + lo, hi - lo) && gpu::is_pinned(h + lo + 100, mid - lo));
    CHECK(!gpu::is_pinned(h + lo - 8, 16) && !gpu::is_pinned(h + lo, hi - lo + 1));
    CHECK(copied(0, all));
    CHECK(copied(lo, hi - lo));
    CHECK(copied(lo + 8, all - lo - 8));
    first.reset();
    CHECK(!gpu::is_pinned(h + lo, 8) && gpu::is_pinned(h + mid, hi - mid));
    CHECK(copied(0, all));
  }
  CHECK(!gpu::is_pinned(host.data(), all));
  {
    // Page-locked copies go into buffers made ahead; a copy allocates none.
    gpu::keep_page_locked_copies(dev, 0, 0);  // no room kept from earlier cases: all idle ones go
    CHECK(gpu::copy_page_locked(host.data(), all) == nullptr);
    CHECK_EQ(gpu::free_page_locked_copies(), size_t(0));
    // Room kept ahead: two buffers made.
    CHECK_EQ(gpu::keep_page_locked_copies(dev, all, 2), size_t(2));
    // A page-locked copy: equal to its source, copied from by DMA, its buffer given back and reused.
    auto copy = gpu::copy_page_locked(host.data() + 3, all - 24);
    CHECK(copy != nullptr && std::memcmp(copy.get(), host.data() + 3, all - 24) == 0);
    CHECK(gpu::is_pinned(copy.get(), all - 24) && !gpu::is_pinned(host.data(), 8));
    std::vector<uint64_t> back(all / 8 - 3, 0);
    gpu::copy_to_device_staged(dev, d.memory().ptr, copy.get(), all - 24, "test copy");
    gpu::copy_to_host(dev, back.data(), d.memory().ptr, all - 24, "test back");
    CHECK(std::memcmp(back.data(), host.data() + 3, all - 24) == 0);
    const void* first = copy.get();
    copy.reset();
    CHECK(!gpu::is_pinned(first, 8));
    auto one = gpu::copy_page_locked(host.data(), all), two = gpu::copy_page_locked(host.data(), all);
    CHECK(one != nullptr && two != nullptr && one.get() != two.get());
    CHECK(one.get() == first || two.get() == first);
    CHECK(std::memcmp(one.get(), host.data(), all) == 0 && std::memcmp(two.get(), host.data(), all) == 0);
    const void *one_at = one.get(), *two_at = two.get();
    CHECK(gpu::copy_page_locked(host.data(), all) == nullptr);       // both handed out: none made
    CHECK_EQ(gpu::keep_page_locked_copies(dev, all, 2), size_t(2));  // both handed out, none made
    CHECK_EQ(gpu::free_page_locked_copies(), size_t(0));
    one.reset(), two.reset();
    CHECK_EQ(gpu::free_page_locked_copies(), size_t(0));   // the room asked for stays
    auto three = gpu::copy_page_locked(host.data(), all);  // a kept buffer, handed out again
    CHECK(three.get() == one_at || three.get() == two_at);
    // A kept buffer handed out to be written (a witness synthesized into it): only a free one,
    // none made; page-locked while handed out (copies from it by DMA), given back at its end.
    auto four = gpu::page_locked_buffer(all);
    CHECK(four != nullptr && (four.get() == one_at || four.get() == two_at) && four.get() != three.get());
    CHECK(gpu::page_locked_buffer(all) == nullptr);  // both handed out: none made
    CHECK(gpu::is_pinned(four.get(), all));
    std::memcpy(four.get(), host.data(), all);
    std::vector<uint64_t> from_four(all / 8, 0);
    gpu::copy_to_device_staged(dev, d.memory().ptr, four.get(), all, "test from a buffer");
    gpu::copy_to_host(dev, from_four.data(), d.memory().ptr, all, "test back");
    CHECK(std::memcmp(from_four.data(), host.data(), all) == 0);
    const void* four_at = four.get();
    four.reset();
    CHECK(!gpu::is_pinned(four_at, 8));
    CHECK(gpu::page_locked_buffer((size_t(64) << 20) + 1) == nullptr);  // beyond the 64 MiB kept: none made
    three.reset();
    // The room is set, not added to (the engine combines its circuits' needs within its bound):
    // one larger buffer asked for frees both smaller free ones and makes one.
    CHECK_EQ(gpu::keep_page_locked_copies(dev, (size_t(64) << 20) + 1, 1), size_t(1));
    auto large = gpu::page_locked_buffer(all);
    CHECK(large != nullptr);
    CHECK(gpu::page_locked_buffer(all) == nullptr);  // the smaller ones went
    large.reset();
    CHECK_EQ(gpu::keep_page_locked_copies(dev, 0, 0), size_t(0));  // none asked any more: all go
    CHECK_EQ(gpu::free_page_locked_copies(), size_t(0));
  }
}

// Memory given back while kernels queued on it still run would be taken by the next allocation
// on the device and overwritten: a partition working set whose H is still running is freed (the
// Buffer waits for its stream), the same bytes are taken again at once and filled; the fill must
// still be there after the device is idle.
CUZK_TEST(gpu_memory_is_freed_after_the_kernels_that_use_it) {
  auto devs = all_gpus();
  auto dev = backend::open_device(devs[0]);
  const int log_n = 24;  // H takes tens of ms: long enough to be running at the free
  const size_t n = size_t(1) << log_n,
               bytes = 3 * n * 32 + dev->h_workspace_bytes(CurveId::bls12_381, log_n, backend::HForm::OddCoset);
  std::vector<uint64_t> host(n * 4, 0x0123456789abcdefull);
  for (int round = 0; round < 3; ++round) {
    void* freed = nullptr;
    {
      auto stream = dev->make_stream();
      auto mem = dev->allocate(bytes, stream, "test working set");
      char* p = static_cast<char*>(mem->data());
      dev->copy_to_device(p, host.data(), n * 32, *stream, "a");
      dev->copy_to_device(p + n * 32, host.data(), n * 32, *stream, "b");
      dev->copy_to_device(p + 2 * n * 32, host.data(), n * 32, *stream, "c");
      dev->compute_h(CurveId::bls12_381, log_n, backend::HForm::OddCoset, p, p + n * 32, p + 2 * n * 32, p,
                     {p + 3 * n * 32, bytes - 3 * n * 32}, *stream);
      freed = mem->data();
    }  // mem freed here, with H queued or running on `stream`
    auto again = dev->allocate(bytes, nullptr, "test reuse");
    auto s2 = dev->make_stream();
    std::vector<uint64_t> fill(n * 4, 0xfeedfacecafebeefull), back(n * 4);
    dev->copy_to_device(again->data(), fill.data(), n * 32, *s2, "fill");
    gpu::device_synchronize(gpu::DeviceId{devs[0].index});  // whatever was still queued has run now
    gpu::copy_to_host(gpu::DeviceId{devs[0].index}, back.data(), again->data(), n * 32, "fill back");
    size_t changed = 0;
    for (size_t i = 0; i < back.size(); ++i) changed += back[i] != fill[i];
    CHECK_MSG(changed == 0, "round " << round << ": " << changed << " words of memory taken again ("
                                     << (again->data() == freed ? "same" : "other")
                                     << " address) were overwritten by kernels queued before its free");
  }
}

// A streamed key's a, b, c on the GPU from its rows in pieces, each half of the rows scratch
// evaluated on its own stream while the next piece is copied: equal to the CPU's evaluation of
// all rows at once, for the engine's key (values coded) and the same key with plain values, with
// a scratch of a few rows a piece and of many.
CUZK_TEST(gpu_streamed_rows_in_pieces_equal_cpu) {
  using E = ec::Bls12381;
  using Fr = E::Fr;
  auto devs = all_gpus();
  Fixture<E> f(12);
  const auto& coded = f.circuit->key();
  CHECK(coded.A.coded() && coded.B.coded());
  const groth16::ProvingKey<E> plain = [&] {
    groth16::ProvingKey<E> k = coded;
    for (auto* M : {&k.A, &k.B}) {
      M->val.resize(M->code.size());
      for (size_t e = 0; e < M->code.size(); ++e) M->val[e] = M->dict[M->code[e]];
      M->code.clear(), M->dict.clear();
    }
    return k;
  }();
  const size_t n = coded.domain_size, m = coded.n_vars;
  const auto w = f.circ->witness(7, f.pool);
  std::vector<Fr> want(3 * n);
  cpu::evaluate_abc<Fr>(n, plain.A.view(), plain.B.view(), w.data(), want.data(), want.data() + n, want.data() + 2 * n,
                        f.pool);
  auto dev = backend::open_device(devs[0]);
  for (const auto* pk : {&coded, &plain}) {
    size_t longest = 0;
    for (size_t i = 0; i < n; ++i) longest = std::max(longest, groth16::RowsPiece<Fr>::bytes(pk->A, pk->B, i, i + 1));
    const size_t all = groth16::RowsPiece<Fr>::bytes(pk->A, pk->B, 0, n);
    for (size_t space : {3 * longest, all / 5}) {
      auto stream = dev->make_stream();
      Carver sizing;
      for (size_t b : {m * sizeof(cpu::Scalar), 3 * n * sizeof(Fr), space}) sizing.take(b, "sizing");
      auto mem = dev->allocate(sizing.used(), stream, "rows test");
      Carver cv(mem->data(), sizing.used(), "gpu");
      groth16::WorkingSet<E> ws;
      ws.w = cv.take<cpu::Scalar>(m, "w");
      ws.a = cv.take<Fr>(3 * n, "a, b, c"), ws.b = ws.a + n, ws.c = ws.a + 2 * n;
      ws.rows_scratch = {cv.take(space, "rows"), space};
      dev->copy_to_device(ws.w, w.data(), m * sizeof(cpu::Scalar), *stream, "w");
      groth16::abc_from_host_rows<E>(*dev, *pk, ws, *stream);
      dev->synchronize(*stream);
      std::vector<Fr> got(3 * n);
      gpu::copy_to_host(gpu::DeviceId{devs[0].index}, got.data(), ws.a, 3 * n * sizeof(Fr), "a, b, c back");
      size_t wrong = 0;
      for (size_t i = 0; i < 3 * n; ++i) wrong += !(got[i] == want[i]);
      CHECK_MSG(wrong == 0, (pk == &coded ? "coded" : "plain")
                                << ", scratch " << space << ": " << wrong << " of a, b, c differ");
    }
  }
}

// The engine charges what the device allocates: a partition's reserved bytes are its working set's
// allocation, the key's its upload's.
CUZK_TEST(gpu_engine_charges_what_it_allocates) {
  auto devs = all_gpus();
  Fixture<ec::Bn254> f(12);
  EngineConfig cfg;
  cfg.devices = {devs[0]};
  cfg.seed = 3;
  Engine eng(cfg);
  eng.register_circuit("c", f.circuit);
  const auto fp = eng.footprint("c", devs[0].name());
  size_t free0 = 0, total = 0, free1 = 0;
  gpu::memory_info(gpu::DeviceId{devs[0].index}, &free0, &total);
  eng.preload("c", devs[0].name());
  gpu::memory_info(gpu::DeviceId{devs[0].index}, &free1, &total);
  CHECK_EQ(eng.status().devices[0].reserved_bytes, fp.key);
  CHECK_MSG(free0 - free1 <= fp.key + (size_t(64) << 20),
            "the key took " << free0 - free1 << " bytes, charged " << fp.key);
  auto r = eng.await(eng.submit({"c", Priority::Normal, f.witnesses(2)}), 60000.0);
  CHECK_MSG(r.state == JobState::Done, r.error);
  for (auto& rec : r.records) CHECK_EQ(rec.reserved_bytes, fp.working_set);
}

}  // namespace
