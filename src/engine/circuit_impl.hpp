// SPDX-License-Identifier: MIT OR Apache-2.0
// The per-curve side of the engine: a registered circuit's key (and constraint rows), and what
// each phase of a partition does with it on a device: groth16/sequence.hpp's stage, kernels and
// finish. The engine core (engine.cpp) sees only CircuitOps.
#pragma once
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "backend/cpu/h.hpp"
#include "engine/engine.hpp"
#include "groth16/encode.hpp"
#include "groth16/key.hpp"
#include "groth16/self_verify.hpp"
#include "groth16/sequence.hpp"
#include "io/r1cs.hpp"
#include "r1cs/rows.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::engine {

// One partition in flight: what synthesis made, what the device holds, what the kernels made.
struct PartitionWork {
  virtual ~PartitionWork() = default;
  size_t host_bytes = 0;
};

class CircuitOps : public Circuit {
 public:
  // Page-locked memory of at least `bytes` for a witness's values (Witness::fill), or null.
  using WitnessMemory = std::function<std::shared_ptr<void>(size_t bytes)>;
  // Loads the witness (and with the r1cs checks it against every constraint); a Witness::fill
  // writes into memory from `memory` when it gives some. Without the PCE, a, b, c are evaluated
  // here, row by row from the r1cs; with it they are evaluated where the partition's kernels
  // run. Throws InvalidArgument for a witness that does not fit the circuit.
  virtual std::unique_ptr<PartitionWork> synthesize(const Witness& w, bool pce, ThreadPool& pool,
                                                    const WitnessMemory& memory = {}) const = 0;
  // The MSM tables `d` plans for the key within `max_bytes` beyond the key itself.
  virtual groth16::KeyTables plan_tables(const backend::Device& d, size_t max_bytes) const = 0;
  // Device memory of the key resident on `d` (with tables `t`), and of one partition's working
  // set beside it (chunk 0) or with the key's points streamed in chunks of that many points.
  virtual size_t key_bytes(const backend::Device& d, const groth16::KeyTables& t) const = 0;
  virtual size_t working_set_bytes(const backend::Device& d, size_t chunk, const groth16::KeyTables& t) const = 0;
  size_t key_bytes(const backend::Device& d) const { return key_bytes(d, {}); }
  size_t working_set_bytes(const backend::Device& d, size_t chunk) const { return working_set_bytes(d, chunk, {}); }
  // Page-locks the key's host points and rows for `d`'s copies, each section once (a section
  // a device refused is tried again by the next): a streamed key is read from them on every
  // partition (nothing where `d` gains nothing from it).
  virtual void pin_host(const backend::Device& d) const = 0;
  // Moves a synthesized partition's witness values into page-locked memory of `d`'s (a copy, the
  // first memory freed; the copy goes with the work; values synthesized into such memory stay);
  // false where `d` gains nothing or refused: the engine asks while the partition waits for
  // device memory, so that its stage copies them by DMA once the memory is there.
  virtual bool lock_witness(const backend::Device& d, PartitionWork& w) const = 0;
  // The key on `d` with tables `t` (an opaque handle that frees it).
  virtual std::shared_ptr<void> upload_key(backend::Device& d, const groth16::KeyTables& t) const = 0;
  std::shared_ptr<void> upload_key(backend::Device& d) const { return upload_key(d, {}); }
  // The working set (`bytes`, as reserved, for a key with tables `t`; none when streamed)
  // allocated and filled: the witness, and a, b, c where the host made them (no PCE, or given
  // with the witness). Otherwise the kernels evaluate them, from the key's rows on the device or,
  // with chunk > 0 (key streamed), from its rows on the host a piece at a time.
  virtual void stage(backend::Device& d, PartitionWork& w, size_t chunk, size_t bytes,
                     const groth16::KeyTables& t) const = 0;
  void stage(backend::Device& d, PartitionWork& w, size_t chunk, size_t bytes) const { stage(d, w, chunk, bytes, {}); }
  // `key`: upload_key's handle, null when streamed. Returns the kernel phases' time on the
  // device's own clock (MsmResults::device_ms; -1 where the device has none).
  virtual double kernels(backend::Device& d, PartitionWork& w, const void* key, size_t chunk, const PhaseTimer& timer,
                         const groth16::Checkpoint& checkpoint) const = 0;
  // Waits for the partition's device work and frees its working set; idempotent.
  virtual void release_staged(PartitionWork& w) const = 0;
  // Blinding, assembly, self-verification (when asked), encoding. A proof that fails
  // verification throws DeviceFault (the device computed something wrong).
  virtual ProofData finish(PartitionWork& w, bool verify, RandomSource& rs, const PhaseTimer& timer) const = 0;
  virtual std::string name() const = 0;
};

template <class E>
class CircuitT final : public CircuitOps {
 public:
  using Fr = typename E::Fr;

  struct Work : PartitionWork {
    WitnessValues w;
    std::vector<Fr> a, b, c;  // empty unless evaluated on the host (no PCE, the key streamed, or given)
    std::optional<std::array<cpu::Scalar, 2>> blinding;  // r, s as given, else drawn at finish
    std::optional<groth16::Staged<E>> staged;
    groth16::MsmResults<E> msm;
  };

  CircuitT(std::string name, groth16::ProvingKey<E> pk, std::optional<io::R1cs> r1cs)
      : name_(std::move(name)), pk_(std::move(pk)), r1cs_(std::move(r1cs)) {
    prepare();
    if (r1cs_) rows_ = r1cs::rows_of<Fr>(*r1cs_);
  }
  // For in-memory circuits (benchmarks): rows from a generator instead of a file.
  CircuitT(std::string name, groth16::ProvingKey<E> pk, r1cs::RowSource<Fr> rows)
      : name_(std::move(name)), pk_(std::move(pk)), rows_(std::move(rows)) {
    prepare();
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
  size_t key_host_bytes() const override {
    auto bytes = [](const auto& v) { return v.size() * sizeof(v[0]); };
    auto csr = [&](const groth16::Csr<Fr>& m) {
      return bytes(m.row_ptr) + bytes(m.col) + bytes(m.val) + bytes(m.code) + bytes(m.dict);
    };
    return bytes(pk_.a) + bytes(pk_.b1) + bytes(pk_.b2) + bytes(pk_.c) + bytes(pk_.h) + bytes(pk_.ic) + csr(pk_.A) +
           csr(pk_.B);
  }
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

  using CircuitOps::key_bytes;
  using CircuitOps::stage;
  using CircuitOps::upload_key;
  using CircuitOps::working_set_bytes;
  groth16::KeyTables plan_tables(const backend::Device& d, size_t max_bytes) const override {
    return groth16::plan_key_tables<E>(d, pk_, max_bytes);
  }
  size_t key_bytes(const backend::Device& d, const groth16::KeyTables& t) const override {
    return groth16::DeviceKey<E>::bytes_on(d, pk_, t);
  }
  size_t working_set_bytes(const backend::Device& d, size_t chunk, const groth16::KeyTables& t) const override {
    return groth16::WorkingSet<E>::bytes_on(d, pk_, chunk, chunk ? groth16::KeyTables{} : t, rows_space_);
  }

  std::unique_ptr<PartitionWork> synthesize(const Witness& wit, bool pce, ThreadPool& pool,
                                            const WitnessMemory& memory = {}) const override {
    auto work = std::make_unique<Work>();
    if (wit.fill) {
      const size_t n = pk_.n_vars;
      if (auto m = memory ? memory(n * sizeof(cpu::Scalar)) : nullptr) {
        wit.fill({static_cast<cpu::Scalar*>(m.get()), n});
        work->w = WitnessValues(std::move(m), n);
      } else {
        FillVector<cpu::Scalar> v(n);
        wit.fill(v);
        work->w = WitnessValues(std::move(v));
      }
    } else {
      work->w = wit.load();
    }
    if (work->w.size() != pk_.n_vars)
      throw InvalidArgument(wit.name + ": witness has " + std::to_string(work->w.size()) + " values, the circuit " +
                            name_ + " expects " + std::to_string(pk_.n_vars));
    if (work->w[0].v[0] != 1 || (work->w[0].v[1] | work->w[0].v[2] | work->w[0].v[3]))
      throw InvalidArgument(wit.name + ": witness value 0 must be 1 (the constant wire)");
    work->blinding = wit.blinding;
    if (wit.abc) {  // evaluated by the caller: proved as given
      static_assert(sizeof(Fr) == sizeof(cpu::Scalar));
      const size_t n = pk_.domain_size;
      work->a.assign(n, Fr::zero()), work->b.assign(n, Fr::zero()), work->c.assign(n, Fr::zero());
      wit.abc(n, reinterpret_cast<cpu::Scalar*>(work->a.data()), reinterpret_cast<cpu::Scalar*>(work->b.data()),
              reinterpret_cast<cpu::Scalar*>(work->c.data()));
    } else if (pk_.A.row_ptr.empty()) {
      throw InvalidArgument(wit.name + ": the key of " + name_ +
                            " has no constraint rows; a, b, c must come with the witness");
    } else if (pce) {
      if (rows_.row && check_witnesses_) {  // with the r1cs at hand, every constraint is checked
        std::vector<Fr> a, b, c;
        evaluate_rows(work->w.span(), a, b, c, pool);
        check_rows(wit, a, b, c, pool);
      }
    } else {
      if (!rows_.row)
        throw InvalidArgument("constraint evaluation without the PCE needs the circuit's r1cs (" + name_ + ")");
      evaluate_rows(work->w.span(), work->a, work->b, work->c, pool);
      check_rows(wit, work->a, work->b, work->c, pool);
    }
    work->host_bytes = (work->w.size() + work->a.size() * 3) * 32;
    return work;
  }

  void pin_host(const backend::Device& d) const override {
    std::lock_guard lk(pin_mu_);
    size_t i = 0;
    auto pin = [&](const auto& v) {  // a section not yet locked (a device refused it, or none asked)
      auto& h = pins_[i++];
      if (!h && !v.empty()) h = d.pin_host(v.data(), v.size() * sizeof(v[0]));
    };
    pin(pk_.a), pin(pk_.b1), pin(pk_.b2), pin(pk_.c), pin(pk_.h);
    // (a coded matrix's dictionary, at most 2 MiB and often a few hundred bytes on a page it may
    // share with other data, is copied through the staging buffers)
    for (auto* m : {&pk_.A, &pk_.B}) pin(m->row_ptr), pin(m->col), pin(m->val), pin(m->code);
  }

  bool lock_witness(const backend::Device& d, PartitionWork& pw) const override {
    auto& w = static_cast<Work&>(pw).w;
    if (w.held()) return true;  // in page-locked memory already
    const auto v = w.span();
    if (v.empty()) return false;
    auto copy = d.copy_page_locked(v.data(), v.size_bytes());
    if (!copy) return false;
    w.adopt(std::move(copy));
    return true;
  }

  std::shared_ptr<void> upload_key(backend::Device& d, const groth16::KeyTables& t) const override {
    return groth16::DeviceKey<E>::upload(d, pk_, t);
  }

  void stage(backend::Device& d, PartitionWork& pw, size_t chunk, size_t bytes,
             const groth16::KeyTables& t) const override {
    auto& wk = static_cast<Work&>(pw);
    groth16::HostAbc<E> abc{};
    if (!wk.a.empty()) abc = {&wk.a, &wk.b, &wk.c};
    wk.staged.emplace(
        groth16::stage<E>(d, pk_, wk.w.span(), abc, chunk, bytes, chunk ? groth16::KeyTables{} : t, rows_space_));
    std::vector<Fr>().swap(wk.a), std::vector<Fr>().swap(wk.b), std::vector<Fr>().swap(wk.c);
  }

  double kernels(backend::Device& d, PartitionWork& pw, const void* key, size_t chunk, const PhaseTimer& timer,
                 const groth16::Checkpoint& checkpoint) const override {
    auto& wk = static_cast<Work&>(pw);
    if (!wk.staged) throw Error("kernels before stage (" + name_ + ")");
    wk.msm = groth16::kernels<E>(d, static_cast<const groth16::DeviceKey<E>*>(key), pk_, *wk.staged, chunk, timer,
                                 checkpoint);
    return wk.msm.device_ms;
  }

  void release_staged(PartitionWork& pw) const override { static_cast<Work&>(pw).staged.reset(); }

  ProofData finish(PartitionWork& pw, bool verify, RandomSource& rs, const PhaseTimer& timer) const override {
    auto& wk = static_cast<Work&>(pw);
    Fr r, s;
    if (wk.blinding)
      r = Fr::from_raw((*wk.blinding)[0].v), s = Fr::from_raw((*wk.blinding)[1].v);
    else
      r = random_field<Fr>(rs), s = random_field<Fr>(rs);
    const auto& m = wk.msm;
    auto proof = groth16::finish_proof<E>(pk_, m.a, m.b1, m.b2, m.c, m.h, r, s);
    if (verify) {
      bool ok = false;
      timer.time(Phase::Verify, [&] { ok = groth16::self_verify<E>(vk_, wk.w.span(), proof); });
      if (!ok) throw DeviceFault("the proof does not verify against the key of " + name_ + "; not returned");
    }
    ProofData out;
    out.proof_json = groth16::proof_json(proof);
    out.public_json = groth16::public_json(wk.w.span(), pk_.n_public);
    out.compressed = groth16::proof_compressed(proof);
    return out;
  }

  // a_i = A_i.w, b_i = B_i.w, c_i = C_i.w for each constraint row of the r1cs; then the public
  // rows a = w_j. (Equal to the PCE's a, b, a.b exactly when the witness satisfies the r1cs.)
  void evaluate_rows(std::span<const cpu::Scalar> w, std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c,
                     ThreadPool& pool) const {
    const size_t n = pk_.domain_size;
    a.assign(n, Fr::zero());
    b.assign(n, Fr::zero());
    c.assign(n, Fr::zero());
    const size_t rows = rows_.n_rows;
    // The witness in Montgomery form once, not once per term that reads it.
    std::vector<Fr> wm(w.size());
    pool.parallel_for(
        w.size(),
        [&](size_t lo, size_t hi) {
          for (size_t j = lo; j < hi; ++j) wm[j] = Fr::from_std(w[j]);
        },
        4096);
    const size_t chunks = std::max<size_t>(1, rows / 2048);
    if (r1cs_ && r1cs_->n8 == 32) {
      // Straight from the file's matrices: a coefficient of 1 or -1 (most of them in practice)
      // costs an addition. Any other, still in standard form v, is multiplied in as it is: the
      // Montgomery product of v and w R is v w, a standard-form value, so those terms sum
      // apart and the row pays one conversion for all of them instead of one per term.
      const io::R1cs& r = *r1cs_;
      auto dot = [&](const io::SparseMatrix& m, size_t i) {
        Fr mont = Fr::zero(), plain = Fr::zero();
        bool any_plain = false;
        for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
          Fr v;
          std::memcpy(v.l, m.coef.data() + k * 32, 32);
          const Fr& x = wm[m.wire[k]];
          if (is_one(v))
            mont += x;
          else if (is_minus_one(v))
            mont -= x;
          else
            plain += v * x, any_plain = true;
        }
        return any_plain ? mont + Fr::from_std(typename Fr::Limbs{{plain.l[0], plain.l[1], plain.l[2], plain.l[3]}})
                         : mont;
      };
      // The witness values a row reads are scattered over a large array: those of a row a few
      // rows ahead are fetched while this one is summed.
      constexpr size_t kAhead = 8;
      auto prefetch = [&](const io::SparseMatrix& m, size_t i) {
        for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) __builtin_prefetch(&wm[m.wire[k]]);
      };
      pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
        for (size_t ch = cb; ch < ce; ++ch)
          for (size_t i = rows * ch / chunks, hi = rows * (ch + 1) / chunks; i < hi; ++i) {
            if (i + kAhead < hi) prefetch(r.A, i + kAhead), prefetch(r.B, i + kAhead), prefetch(r.C, i + kAhead);
            a[i] = dot(r.A, i), b[i] = dot(r.B, i), c[i] = dot(r.C, i);
          }
      });
    } else {
      pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
        r1cs::Row<Fr> row;
        for (size_t ch = cb; ch < ce; ++ch)
          for (size_t i = rows * ch / chunks, hi = rows * (ch + 1) / chunks; i < hi; ++i) {
            rows_.row(i, row);
            auto dot = [&](const r1cs::LinComb<Fr>& lc) {
              Fr s = Fr::zero();
              for (size_t k = 0; k < lc.size(); ++k) s += lc.coef[k] * wm[lc.wire[k]];
              return s;
            };
            a[i] = dot(row.a), b[i] = dot(row.b), c[i] = dot(row.c);
          }
      });
    }
    for (uint32_t j = 0; j <= pk_.n_public; ++j) a[rows + j] = wm[j];
  }

 private:
  // The key's A and B values coded where they take few distinct values (groth16::code_values:
  // their memory on the host, over the link and on the device ~6x less), then what follows from
  // the rows: the verifying key and the rows scratch a streamed key needs.
  void prepare() {
    if (!pk_.A.val.empty() || !pk_.B.val.empty()) {
      ThreadPool pool(0);
      groth16::code_values(pk_.A, pool);
      groth16::code_values(pk_.B, pool);
    }
    vk_ = groth16::verifying_key_of<E>(pk_);
    rows_space_ = groth16::rows_space_bytes(pk_.A, pk_.B);
  }

  // On a coefficient's standard-form limbs (held in an Fr's words).
  static bool is_one(const Fr& v) { return v.l[0] == 1 && !(v.l[1] | v.l[2] | v.l[3]); }
  static bool is_minus_one(const Fr& v) {
    return v.l[0] == Fr::mod(0) - 1 && v.l[1] == Fr::mod(1) && v.l[2] == Fr::mod(2) && v.l[3] == Fr::mod(3);
  }

  // The first constraint a.b != c, over the pool (the lowest index is reported).
  void check_rows(const Witness& wit, const std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c,
                  ThreadPool& pool) const {
    const size_t rows = rows_.n_rows, chunks = std::max<size_t>(1, std::min<size_t>(rows / 4096, 4096));
    std::vector<size_t> bad(chunks, SIZE_MAX);
    pool.parallel_for(chunks, [&](size_t cb, size_t ce) {
      for (size_t ch = cb; ch < ce; ++ch)
        for (size_t i = rows * ch / chunks, hi = rows * (ch + 1) / chunks; i < hi; ++i)
          if (a[i] * b[i] != c[i]) {
            bad[ch] = i;
            break;
          }
    });
    for (size_t i : bad)
      if (i != SIZE_MAX)
        throw InvalidArgument(wit.name + ": the witness does not satisfy constraint " + std::to_string(i) + " of " +
                              (r1cs_ ? r1cs_->path : name_));  // the constraints' file, not the key's
  }

  std::string name_;
  groth16::ProvingKey<E> pk_;
  size_t rows_space_ = 0;  // groth16::rows_space_bytes of pk_'s rows, computed once (the key never changes)
  std::optional<io::R1cs> r1cs_;
  r1cs::RowSource<Fr> rows_;
  bool check_witnesses_ = true;
  groth16::VerifyingKey<E> vk_;
  mutable std::mutex pin_mu_;
  mutable std::array<std::shared_ptr<void>, 13> pins_;  // the key's page-locked host sections
};

}  // namespace cuzk::engine
