// The per-curve side of the engine: a registered circuit's key, and what each phase of a
// partition does with it. The engine core (engine.cpp) sees only CircuitOps.
#pragma once
#include <algorithm>
#include <cstdio>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "engine/engine.hpp"
#include "groth16/encode.hpp"
#include "groth16/prover.hpp"
#include "groth16/self_verify.hpp"
#include "io/r1cs.hpp"
#include "r1cs/rows.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"
#if defined(CUZK_WITH_CUDA)
#include "backend/cuda/device_alloc.hpp"
#include "groth16/gpu_prover.hpp"
#endif

namespace cuzk::engine {

// One partition in flight: what synthesis made, what the kernels made.
struct PartitionWork {
  virtual ~PartitionWork() = default;
  size_t host_bytes = 0;
};

class CircuitOps : public Circuit {
 public:
  // Loads the witness (and with the r1cs checks it against every constraint). Without the PCE,
  // a, b, c are evaluated here, row by row from the r1cs; with it they are evaluated where the
  // partition's kernels run (ensure_abc on a simulated device, the device's matrices on a GPU).
  // Throws InvalidArgument for a witness that does not fit the circuit.
  virtual std::unique_ptr<PartitionWork> synthesize(const Witness& w, bool pce, ThreadPool& pool) const = 0;
  // a, b, c from the key's compiled matrices unless synthesis already made them.
  virtual void ensure_abc(PartitionWork& work, ThreadPool& pool) const = 0;
  // Device bytes of one partition's working set on `d` (stream_chunk_points 0: beside the
  // resident key): a GPU asks its backend; a simulated device uses working_set_bytes().
  virtual size_t working_set_on(const DeviceConfig& d, size_t stream_chunk_points) const = 0;
  // Simulated staging: the partition's inputs copied as a GPU's staging would copy them.
  virtual void stage_copy(PartitionWork& work) const = 0;
  // The kernels on the CPU backend (simulated devices): a, b, c if needed, H, then the five
  // MSMs; `chunk` > 0 splits every MSM into pieces of at most that many points (streamed mode).
  virtual void kernels_cpu(PartitionWork& work, size_t chunk, ThreadPool& pool, PartitionRecord& rec) const = 0;
  // GPU: the key's points and matrices uploaded into memory of their own (an opaque handle that
  // frees it); staging (working set allocated, witness and host-made a, b, c copied); kernels.
  // `key` is null in the streamed mode (chunk > 0).
  virtual std::shared_ptr<void> upload_key(int ordinal) const = 0;
  virtual void stage_gpu(PartitionWork& work, int ordinal, size_t working_set, size_t chunk,
                         ThreadPool& pool) const = 0;
  virtual void kernels_gpu(PartitionWork& work, const void* key, size_t chunk, PartitionRecord& rec) const = 0;
  // Blinding, assembly, self-verification (when asked), encoding. A proof that fails
  // verification throws DeviceFault (the device computed something wrong).
  virtual ProofData finish(PartitionWork& work, bool verify, RandomSource& rs) const = 0;
  virtual std::string name() const = 0;
};

namespace detail {
inline double since_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace detail

template <class E>
class CircuitT final : public CircuitOps {
 public:
  using Fr = typename E::Fr;
  using J1 = typename E::G1Jac;
  using J2 = typename E::G2Jac;

  struct Work : PartitionWork {
    std::vector<cpu::Scalar> w, staged;
    std::vector<Fr> a, b, c;  // empty until evaluated (PCE: where the kernels run)
    std::vector<cpu::Scalar> h;
    J1 pa, pb1, pc, ph;
    J2 pb2;
#if defined(CUZK_WITH_CUDA)
    std::unique_ptr<gpu::PoolBuffer> ws;  // the working set on the GPU
    groth16::GpuPartition<E> part;
    bool abc_staged = false;
#endif
  };

  CircuitT(std::string name, groth16::ProvingKey<E> pk, std::optional<io::R1cs> r1cs)
      : name_(std::move(name)), pk_(std::move(pk)), r1cs_(std::move(r1cs)) {
    vk_ = groth16::verifying_key_of<E>(pk_);
    if (r1cs_) rows_ = r1cs::rows_of<Fr>(*r1cs_);
  }
  // For in-memory circuits (benchmarks): rows from a generator instead of a file.
  CircuitT(std::string name, groth16::ProvingKey<E> pk, r1cs::RowSource<Fr> rows)
      : name_(std::move(name)), pk_(std::move(pk)), rows_(std::move(rows)) {
    vk_ = groth16::verifying_key_of<E>(pk_);
  }

  const groth16::ProvingKey<E>& key() const { return pk_; }
  // Whether synthesis checks each witness against the rows (on by default when rows are known;
  // a generator whose witnesses are correct by construction can turn it off).
  void set_check_witnesses(bool on) { check_witnesses_ = on; }
  std::string name() const override { return name_; }
  CurveId curve() const override { return E::id; }
  uint32_t n_vars() const override { return pk_.n_vars; }
  uint32_t n_public() const override { return pk_.n_public; }
  int log_n() const override { return pk_.log_n; }
  bool has_r1cs() const override { return bool(rows_.row); }
  std::string key_digest() const override {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* p, size_t n) {
      for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
    };
    const uint64_t shape[] = {uint64_t(E::id), pk_.n_vars, pk_.n_public, uint64_t(pk_.log_n)};
    mix(shape, sizeof shape);
    mix(&vk_.alpha, sizeof vk_.alpha);
    mix(&vk_.beta, sizeof vk_.beta);
    mix(&vk_.gamma, sizeof vk_.gamma);
    mix(&vk_.delta, sizeof vk_.delta);
    for (auto& p : vk_.ic) mix(&p, sizeof p);
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
    return b;
  }

  size_t key_bytes() const override {
    auto r = [](size_t b) { return (b + 255) & ~size_t(255); };
    auto csr = [&](const groth16::Csr<Fr>& m) { return r(m.row_ptr.size() * 4) + r(m.col.size() * 4) + r(m.val.size() * 32); };
    using A1 = typename E::G1Affine;
    using A2 = typename E::G2Affine;
    return r(pk_.a.size() * sizeof(A1)) + r(pk_.b1.size() * sizeof(A1)) + r(pk_.b2.size() * sizeof(A2)) +
           r(pk_.c.size() * sizeof(A1)) + r(pk_.h.size() * sizeof(A1)) + csr(pk_.A) + csr(pk_.B);
  }
  // Mirrors the GPU prover's working set (groth16::gpu_working_set_bytes) from above: witness,
  // a, b, c, then the larger of H's scratch (here n scalars; the GPU's needs n/2) and what the
  // largest MSM needs beyond b and c, which are dead once H is done (MSM: scalars, signed digits
  // of ~17 windows, sort keys/values, buckets).
  size_t working_set_bytes(size_t stream_chunk_points) const override {
    const size_t n = pk_.domain_size, m = pk_.n_vars;
    auto msm = [](size_t cnt, size_t point_bytes) {
      const size_t windows = 17, buckets = size_t(1) << 16;
      return cnt * (32 + windows * 16) + windows * buckets * point_bytes * 4 / 3 + (size_t(64) << 20);
    };
    const size_t g1 = sizeof(typename E::G1Affine), g2 = sizeof(typename E::G2Affine);
    const size_t fixed = m * 32 + 3 * n * 32, h = n * 32, dead_bc = 2 * n * 32;
    auto after_c = [&](size_t msm_bytes) { return std::max(h, msm_bytes > dead_bc ? msm_bytes - dead_bc : 0); };
    if (stream_chunk_points == 0) return fixed + after_c(std::max(msm(std::max(n, m), g1 * 2), msm(m, g2 * 2)));
    // Streamed: a chunk of points passes through (the largest: G2), the matrices stay on the host.
    const size_t chunk = std::min(std::max(n, m), stream_chunk_points);
    return fixed + after_c(msm(chunk, g2 * 2) + chunk * g2);
  }

  std::unique_ptr<PartitionWork> synthesize(const Witness& wit, bool pce, ThreadPool& pool) const override {
    auto work = std::make_unique<Work>();
    work->w = wit.load();
    if (work->w.size() != pk_.n_vars)
      throw InvalidArgument(wit.name + ": witness has " + std::to_string(work->w.size()) + " values, the circuit " +
                            name_ + " expects " + std::to_string(pk_.n_vars));
    if (work->w[0].v[0] != 1 || (work->w[0].v[1] | work->w[0].v[2] | work->w[0].v[3]))
      throw InvalidArgument(wit.name + ": witness value 0 must be 1 (the constant wire)");
    if (pce) {
      if (rows_.row && check_witnesses_) {  // with the r1cs at hand, every constraint is checked
        std::vector<Fr> a, b, c;
        evaluate_rows(work->w, a, b, c, pool);
        check_rows(wit, a, b, c);
      }
    } else {
      if (!rows_.row)
        throw InvalidArgument("constraint evaluation without the PCE needs the circuit's r1cs (" + name_ + ")");
      evaluate_rows(work->w, work->a, work->b, work->c, pool);
      check_rows(wit, work->a, work->b, work->c);
    }
    work->host_bytes = (work->w.size() + work->a.size() * 3) * 32;
    return work;
  }

  void ensure_abc(PartitionWork& pw, ThreadPool& pool) const override {
    auto& wk = static_cast<Work&>(pw);
    if (wk.a.empty()) groth16::evaluate_abc(pk_.A, pk_.B, wk.w, pk_.domain_size, wk.a, wk.b, wk.c, pool);
  }

  size_t working_set_on(const DeviceConfig& d, size_t chunk) const override {
#if defined(CUZK_WITH_CUDA)
    if (d.kind == DeviceConfig::Gpu) {
      const gpu::DeviceId id{d.ordinal};
      return chunk == 0 ? groth16::gpu_prove_workspace_bytes<E>(id, pk_)
                        : groth16::gpu_stream_workspace_bytes<E>(id, pk_, chunk);
    }
#endif
    (void)d;
    return working_set_bytes(chunk);
  }

  void check_rows(const Witness& wit, const std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c) const {
    for (size_t i = 0; i < rows_.n_rows; ++i)
      if (a[i] * b[i] != c[i])
        throw InvalidArgument(wit.name + ": the witness does not satisfy constraint " + std::to_string(i) + " of " +
                              name_);
  }

  // a_i = A_i.w, b_i = B_i.w, c_i = C_i.w for each constraint row of the r1cs; then the public
  // rows a = w_j. (Equal to the PCE's a, b, a.b exactly when the witness satisfies the r1cs.)
  void evaluate_rows(const std::vector<cpu::Scalar>& w, std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c,
                     ThreadPool& pool) const {
    const size_t n = pk_.domain_size;
    a.assign(n, Fr::zero());
    b.assign(n, Fr::zero());
    c.assign(n, Fr::zero());
    const size_t rows = rows_.n_rows;
    const size_t chunks = std::max<size_t>(1, rows / 2048);
    pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
      r1cs::Row<Fr> row;
      for (size_t ch = cb; ch < ce; ++ch)
        for (size_t i = rows * ch / chunks, hi = rows * (ch + 1) / chunks; i < hi; ++i) {
          rows_.row(i, row);
          auto dot = [&](const r1cs::LinComb<Fr>& lc) {
            Fr s = Fr::zero();
            for (size_t k = 0; k < lc.size(); ++k) s += lc.coef[k] * Fr::from_std(w[lc.wire[k]]);
            return s;
          };
          a[i] = dot(row.a), b[i] = dot(row.b), c[i] = dot(row.c);
        }
    });
    for (uint32_t j = 0; j <= pk_.n_public; ++j) a[rows + j] = Fr::from_std(w[j]);
  }

  void stage_copy(PartitionWork& pw) const override {
    auto& wk = static_cast<Work&>(pw);
    wk.staged = wk.w;
  }

  void kernels_cpu(PartitionWork& pw, size_t chunk, ThreadPool& pool, PartitionRecord& rec) const override {
    auto& wk = static_cast<Work&>(pw);
    ensure_abc(wk, pool);
    auto t0 = std::chrono::steady_clock::now();
    wk.h = groth16::compute_h(wk.a, wk.b, wk.c, pk_.log_n, pool);
    rec.ntt_h_ms = detail::since_ms(t0);
    std::vector<Fr>().swap(wk.a), std::vector<Fr>().swap(wk.b), std::vector<Fr>().swap(wk.c);
    auto msm = [&](const auto* bases, const cpu::Scalar* k, size_t cnt, auto zero, double& ms) {
      auto t = std::chrono::steady_clock::now();
      auto acc = zero;
      const size_t step = chunk ? chunk : std::max<size_t>(cnt, 1);
      for (size_t lo = 0; lo < cnt; lo += step) acc = acc + cpu::msm(bases + lo, k + lo, std::min(step, cnt - lo), pool);
      ms = detail::since_ms(t);
      return acc;
    };
    const size_t m = pk_.n_vars;
    wk.pa = msm(pk_.a.data(), wk.w.data(), m, J1::infinity(), rec.msm_a_ms);
    wk.pb1 = msm(pk_.b1.data(), wk.w.data(), m, J1::infinity(), rec.msm_b1_ms);
    wk.pb2 = msm(pk_.b2.data(), wk.w.data(), m, J2::infinity(), rec.msm_b2_ms);
    wk.pc = msm(pk_.c.data(), wk.w.data() + pk_.n_public + 1, m - pk_.n_public - 1, J1::infinity(), rec.msm_c_ms);
    wk.ph = msm(pk_.h.data(), wk.h.data(), pk_.domain_size, J1::infinity(), rec.msm_h_ms);
  }

#if defined(CUZK_WITH_CUDA)
  struct GpuKey {
    gpu::PoolBuffer mem;
    groth16::GpuProvingKey<E> key;
    GpuKey(gpu::DeviceId dev, const groth16::ProvingKey<E>& pk)
        : mem(dev, groth16::GpuProvingKey<E>::device_bytes(pk), "resident key"), key(dev, pk, mem.memory()) {}
  };
  std::shared_ptr<void> upload_key(int ordinal) const override {
    return std::make_shared<GpuKey>(gpu::DeviceId{ordinal}, pk_);
  }
  void stage_gpu(PartitionWork& pw, int ordinal, size_t working_set, size_t chunk, ThreadPool& pool) const override {
    auto& wk = static_cast<Work&>(pw);
    const gpu::DeviceId dev{ordinal};
    if (chunk > 0) ensure_abc(wk, pool);  // the matrices stay on the host in the streamed mode
    wk.abc_staged = !wk.a.empty();
    wk.ws = std::make_unique<gpu::PoolBuffer>(dev, working_set, "partition working set");
    wk.part = wk.abc_staged ? groth16::gpu_stage<E>(dev, pk_, wk.w, &wk.a, &wk.b, &wk.c, wk.ws->memory())
                            : groth16::gpu_stage<E>(dev, pk_, wk.w, nullptr, nullptr, nullptr, wk.ws->memory());
    std::vector<Fr>().swap(wk.a), std::vector<Fr>().swap(wk.b), std::vector<Fr>().swap(wk.c);
  }
  void kernels_gpu(PartitionWork& pw, const void* key, size_t chunk, PartitionRecord& rec) const override {
    auto& wk = static_cast<Work&>(pw);
    const auto* k = key ? &static_cast<const GpuKey*>(key)->key : nullptr;
    groth16::ProveTimings t;
    auto m = groth16::gpu_kernels<E>(k, pk_, wk.part, wk.abc_staged, chunk, t);
    wk.ws.reset();
    wk.pa = m.a, wk.pb1 = m.b1, wk.pb2 = m.b2, wk.pc = m.c, wk.ph = m.h;
    rec.ntt_h_ms = t.abc_ms + t.ntt_h_ms;
    rec.msm_a_ms = t.msm_a_ms, rec.msm_b1_ms = t.msm_b1_ms, rec.msm_b2_ms = t.msm_b2_ms;
    rec.msm_c_ms = t.msm_c_ms, rec.msm_h_ms = t.msm_h_ms;
  }
#else
  std::shared_ptr<void> upload_key(int) const override { throw InvalidArgument("this cuzk was built without CUDA"); }
  void stage_gpu(PartitionWork&, int, size_t, size_t, ThreadPool&) const override {
    throw InvalidArgument("this cuzk was built without CUDA");
  }
  void kernels_gpu(PartitionWork&, const void*, size_t, PartitionRecord&) const override {
    throw InvalidArgument("this cuzk was built without CUDA");
  }
#endif

  ProofData finish(PartitionWork& pw, bool verify, RandomSource& rs) const override {
    auto& wk = static_cast<Work&>(pw);
    Fr r = random_field<Fr>(rs), s = random_field<Fr>(rs);
    auto proof = groth16::finish_proof<E>(pk_, wk.pa, wk.pb1, wk.pb2, wk.pc, wk.ph, r, s);
    if (verify && !groth16::self_verify<E>(vk_, wk.w, proof))
      throw DeviceFault("the proof does not verify against the key of " + name_ + "; not returned");
    ProofData out;
    out.proof_json = groth16::proof_json(proof);
    out.public_json = groth16::public_json(wk.w, pk_.n_public);
    out.compressed = groth16::proof_compressed(proof);
    return out;
  }

 private:
  std::string name_;
  groth16::ProvingKey<E> pk_;
  std::optional<io::R1cs> r1cs_;
  r1cs::RowSource<Fr> rows_;
  bool check_witnesses_ = true;
  groth16::VerifyingKey<E> vk_;
};

}  // namespace cuzk::engine
