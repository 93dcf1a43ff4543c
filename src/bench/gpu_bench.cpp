// SPDX-License-Identifier: MIT OR Apache-2.0
#include "bench/gpu_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "backend/cpu/device.hpp"
#include "backend/cpu/h.hpp"
#include "backend/cuda/gpu.hpp"
#include "backend/cuda/msm.hpp"
#include "backend/cuda/ntt.hpp"
#include "backend/spec.hpp"
#include "bench/walk.hpp"
#include "ec/curves.hpp"
#include "engine/circuit_impl.hpp"
#include "engine/engine.hpp"
#include "groth16/key.hpp"
#include "groth16/sequence.hpp"
#include "io/json.hpp"
#include "util/rng.hpp"

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Stats {
  double median = 0, min = 0, max = 0;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

void print_row(const BenchRow& r) {
  std::printf("%-10s %-7s 2^%-3d median %10.3f ms  (min %.3f, max %.3f, %d runs)  %s  %s\n", r.curve.c_str(),
              r.op.c_str(), r.log_n, r.median_ms, r.min_ms, r.max_ms, r.runs, r.check.c_str(), r.detail.c_str());
  std::fflush(stdout);
}

template <class E, class G1Cfg, class G2Cfg>
class CurveBench {
 public:
  using Fr = typename E::Fr;
  using J1 = typename E::G1Jac;
  using J2 = typename E::G2Jac;

  CurveBench(const BenchOptions& opt, ThreadPool& pool, Clock::time_point start, std::vector<BenchRow>& rows)
      : opt_(opt),
        pool_(pool),
        start_(start),
        rows_(rows),
        dev_{backend::gpu_ordinal(opt.device, "--device")},
        rs_(0x5eed ^ uint64_t(E::id)) {}

  bool out_of_time() const { return std::chrono::duration<double>(Clock::now() - start_).count() > opt_.max_seconds; }

  void run(int log_n) {
    for (const auto& op : opt_.ops) {
      if (out_of_time()) return;
      if (op == "ntt")
        bench_ntt(log_n);
      else if (op == "msm-g1")
        bench_msm_g1(log_n);
      else if (op == "msm-g2") {
        if (log_n <= opt_.g2_max_log_n) bench_msm_g2(log_n);
      } else if (op == "h")
        bench_h(log_n);
      else if (op == "prove") {
        if (log_n <= opt_.prove_max_log_n) bench_prove(log_n);
      } else
        throw InvalidArgument("unknown bench op '" + op + "' (ntt, msm-g1, msm-g2, h, prove)");
    }
  }

 private:
  // Every allocation and kernel of a measurement runs through the engine: `bytes` reserved and
  // allocated from the device's budget, carved by fn, under the device's lock.
  void run(size_t bytes, const std::string& what, const std::function<void(gpu::Arena&)>& fn) {
    opt_.engine->run_on_device(dev_.name(), bytes, what, [&](backend::Device&, backend::Memory m, backend::Stream&) {
      gpu::Arena arena(gpu::DeviceMemory{dev_, m.ptr, m.bytes});
      fn(arena);
    });
  }
  static gpu::DeviceMemory piece(gpu::Arena& a, gpu::DeviceId dev, size_t bytes, const char* what) {
    return {dev, a.take(bytes, what), bytes};
  }

  void add(BenchRow r) {
    r.curve = curve_name(E::id);
    print_row(r);
    rows_.push_back(std::move(r));
  }

  std::vector<Fr> random_fr(size_t n) {
    std::vector<Fr> v(n);
    // Seeded per chunk so generation runs on every core.
    const size_t chunks = pool_.size() * 4;
    uint64_t base = rs_.next();
    pool_.parallel_for(chunks, [&](size_t cb, size_t ce) {
      for (size_t c = cb; c < ce; ++c) {
        RandomSource r(base + c);
        for (size_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i) v[i] = random_field<Fr>(r);
      }
    });
    return v;
  }

  void bench_ntt(int log_n) {
    const size_t n = size_t(1) << log_n;
    auto host = random_fr(n);
    std::vector<double> ms, ms_out;
    std::vector<Fr> out(n), out2(n);
    float twiddles_ms = 0;
    const size_t ws_bytes = gpu::ntt_workspace_bytes(E::id, log_n);
    run(2 * gpu::Arena::round(n * 32) + gpu::Arena::round(ws_bytes), "bench ntt 2^" + std::to_string(log_n),
        [&](gpu::Arena& a) {
          auto data = piece(a, dev_, n * 32, "ntt data"), dst = piece(a, dev_, n * 32, "ntt output"),
               ws = piece(a, dev_, ws_bytes, "ntt workspace");
          // The domain's twiddles made once, as a prover keeps them with its key; a call that
          // makes its own (the first) reports that time apart.
          gpu::NttTimings first;
          gpu::copy_to_device(dev_, data.ptr, host.data(), n * 32, "ntt input");
          gpu::ntt(dev_, E::id, data.ptr, log_n, false, ws, {}, &first);
          twiddles_ms = first.twiddles_ms;
          const gpu::NttTwiddles tw = gpu::make_ntt_twiddles(dev_, E::id, log_n, ws);
          for (int i = 0; i <= opt_.runs; ++i) {
            gpu::copy_to_device(dev_, data.ptr, host.data(), n * 32, "ntt input");
            gpu::NttTimings t;
            gpu::ntt(dev_, data.ptr, false, tw, {}, &t);
            if (i > 0) ms.push_back(t.total_ms);  // run 0 is the warm-up
          }
          gpu::copy_to_host(dev_, out.data(), data.ptr, n * 32, "ntt output");
          // Out of place: the input is only read, so it is copied once.
          gpu::copy_to_device(dev_, data.ptr, host.data(), n * 32, "ntt input");
          for (int i = 0; i <= opt_.runs; ++i) {
            gpu::NttTimings t;
            gpu::ntt(dev_, data.ptr, dst.ptr, false, tw, {}, &t);
            if (i > 0) ms_out.push_back(t.total_ms);
          }
          gpu::copy_to_host(dev_, out2.data(), dst.ptr, n * 32, "ntt output");
        });
    // Spot check: two evaluations recomputed on the CPU by Horner's rule; the out-of-place
    // result equal to the in-place one everywhere.
    Fr w = cpu::root_of_unity<Fr>(log_n);
    bool ok = true;
    for (size_t idx : {size_t(1) % n, (n + n - 3) % n}) {
      Fr x = w.pow_u64(idx), acc = Fr::zero();
      for (size_t j = n; j-- > 0;) acc = acc * x + host[j];
      ok &= acc == out[idx];
    }
    if (!ok) throw Error(std::string("bench: GPU NTT result differs from the CPU at 2^") + std::to_string(log_n));
    if (out2 != out)
      throw Error(std::string("bench: GPU NTT out of place differs from in place at 2^") + std::to_string(log_n));
    auto s = stats(ms);
    add({"", "ntt", log_n, s.median, s.min, s.max, int(ms.size()), "2 outputs == CPU Horner",
         "natural order, forward, in place; twiddles made once (" + fmt("%.2f", twiddles_ms) +
             " ms when a call makes them)"});
    s = stats(ms_out);
    add({"", "ntt-out", log_n, s.median, s.min, s.max, int(ms_out.size()), "== in place",
         "natural order, forward, out of place (the bit reversal in the first pass's loads)"});
  }

  template <class Cfg, class J>
  void bench_msm(int log_n, gpu::Group group, const char* op) {
    const size_t n = size_t(1) << log_n;
    using Curve = ec::Curve<Cfg>;
    auto walk = make_walk<Curve, Fr>(Cfg::generator(), n, rs_, pool_);
    auto kf = random_fr(n);
    std::vector<cpu::Scalar> k(n);
    pool_.parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) k[i] = kf[i].to_std();
        },
        4096);
    const size_t pbytes = n * sizeof(walk.points[0]);
    J expected = walk_msm_expected(walk, k.data(), n, pool_);
    const std::vector<unsigned> widths = opt_.window_bits.empty() ? std::vector<unsigned>{0} : opt_.window_bits;
    for (unsigned wb : widths) {
      std::vector<double> ms;
      gpu::MsmTimings med{};
      std::vector<gpu::MsmTimings> all;
      gpu::MsmConfig cfg;
      cfg.curve = E::id, cfg.group = group, cfg.count = n;
      cfg.window_bits = wb;
      if (opt_.tables > 0) {  // the bases as a resident key's tables: the plan's width and count
        auto tp = gpu::msm_table_plan(E::id, group, n, opt_.tables);
        if (wb) tp = {wb, std::min(opt_.tables, gpu::msm_model::windows_for(wb, gpu::msm_model::scalar_bits(E::id)))};
        cfg.window_bits = tp.window_bits, cfg.tables = tp.tables;
      }
      const size_t tbytes = cfg.tables > 1 ? gpu::msm_tables_bytes(E::id, group, n, cfg.tables) : pbytes;
      const size_t ws_bytes = gpu::msm_workspace_bytes(dev_, cfg);
      const size_t total = gpu::Arena::round(tbytes) + gpu::Arena::round(n * 32) + gpu::Arena::round(ws_bytes);
      double tables_ms = 0;
      run(total, std::string("bench ") + op + " 2^" + std::to_string(log_n), [&](gpu::Arena& a) {
        auto bases = piece(a, dev_, tbytes, "msm bases"), scalars = piece(a, dev_, n * 32, "msm scalars"),
             ws = piece(a, dev_, ws_bytes, "msm workspace");
        gpu::copy_to_device(dev_, bases.ptr, walk.points.data(), pbytes, "msm bases");
        gpu::copy_to_device(dev_, scalars.ptr, k.data(), n * 32, "msm scalars");
        cfg.bases = bases.ptr, cfg.scalars = scalars.ptr;
        if (cfg.tables > 1) {  // table 0 in place
          auto t0 = std::chrono::steady_clock::now();
          gpu::msm_make_tables(dev_, cfg, bases.ptr);
          tables_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        }
        for (int i = 0; i <= opt_.runs; ++i) {
          J got;
          gpu::MsmTimings t;
          gpu::msm(dev_, cfg, ws, &got, {}, &t);
          if (!(got == expected))
            throw Error(std::string("bench: GPU ") + op + " result is wrong at 2^" + std::to_string(log_n) +
                        (wb ? " with " + std::to_string(wb) + "-bit windows" : std::string()) + " (run " +
                        std::to_string(i) + ")");
          if (i > 0) {
            ms.push_back(t.total_ms);
            all.push_back(t);
          }
        }
      });
      auto s = stats(ms);
      for (auto& t : all)
        if (t.total_ms == s.median) med = t;
      std::ostringstream d;
      d << "c=" << med.c << (wb ? " (asked)" : "");
      if (cfg.tables > 1) d << " tables " << cfg.tables << " (made in " << fmt("%.0f", tables_ms) << " ms)";
      d << " groups " << med.window_groups;
      if (med.reductions > 1) d << " reductions " << med.reductions;
      d << " prep " << fmt("%.2f", med.prepare_ms) << " sort " << fmt("%.2f", med.sort_ms) << " acc "
        << fmt("%.2f", med.accumulate_ms) << " reduce " << fmt("%.2f", med.reduce_ms);
      if (med.reduce_beside_ms > 0) d << " (beside the next batch " << fmt("%.2f", med.reduce_beside_ms) << ")";
      d << " workspace " << fmt("%.0f", double(ws_bytes) / (1 << 20)) << " MiB";
      add({"", op, log_n, s.median, s.min, s.max, int(ms.size()), "every run == exact walk sum", d.str()});
    }
  }
  void bench_msm_g1(int log_n) { bench_msm<G1Cfg, J1>(log_n, backend::Group::G1, "msm-g1"); }
  void bench_msm_g2(int log_n) { bench_msm<G2Cfg, J2>(log_n, backend::Group::G2, "msm-g2"); }

  void bench_h(int log_n) {
    const size_t n = size_t(1) << log_n;
    auto a = random_fr(n), b = random_fr(n), c = random_fr(n);
    std::vector<double> ms;
    std::vector<cpu::Scalar> h(n);
    const size_t ws_bytes = gpu::h_workspace_bytes(E::id, log_n);
    run(3 * gpu::Arena::round(n * 32) + gpu::Arena::round(ws_bytes), "bench h 2^" + std::to_string(log_n),
        [&](gpu::Arena& ar) {
          auto da = piece(ar, dev_, n * 32, "a"), db = piece(ar, dev_, n * 32, "b"), dc = piece(ar, dev_, n * 32, "c"),
               ws = piece(ar, dev_, ws_bytes, "h workspace");
          for (int i = 0; i <= opt_.runs; ++i) {
            gpu::copy_to_device(dev_, da.ptr, a.data(), n * 32, "a");
            gpu::copy_to_device(dev_, db.ptr, b.data(), n * 32, "b");
            gpu::copy_to_device(dev_, dc.ptr, c.data(), n * 32, "c");
            gpu::HTimings t;
            gpu::compute_h(dev_, E::id, log_n, da.ptr, db.ptr, dc.ptr, da.ptr, ws, {}, &t);
            if (i > 0) ms.push_back(t.total_ms);
          }
          gpu::copy_to_host(dev_, h.data(), da.ptr, n * 32, "h");
        });
    std::string check = "not checked above 2^20";
    if (log_n <= 20) {
      std::vector<cpu::Scalar> want(n);
      cpu::compute_h<Fr>(a.data(), b.data(), c.data(), log_n, want.data(), pool_);
      for (size_t i = 0; i < n; ++i)
        if (std::memcmp(&want[i], &h[i], 32) != 0)
          throw Error("bench: GPU H differs from the CPU at 2^" + std::to_string(log_n) + " index " +
                      std::to_string(i));
      check = "all == CPU compute_h";
    }
    auto s = stats(ms);
    add({"", "h", log_n, s.median, s.min, s.max, int(ms.size()), check, "3 iNTT + 3 coset NTT + ab-c"});
  }

  // A dense synthetic circuit filling the domain: 3 terms per A row, 2 per B row, random
  // witness; key points from walks. The proof is not for a real key (timing only); its pieces
  // are the MSMs and H measured above, and at 2^16 and below it is compared with the CPU prover.
  void bench_prove(int log_n) {
    if (log_n < 3) throw InvalidArgument("bench: prove needs log n >= 3");
    const size_t n = size_t(1) << log_n;
    const uint32_t n_public = 1, m = uint32_t(n - 2);
    groth16::ProvingKey<E> pk;
    pk.n_vars = m;
    pk.n_public = n_public;
    pk.domain_size = uint32_t(n);
    pk.log_n = log_n;
    auto g1 = make_walk<ec::Curve<G1Cfg>, Fr>(G1Cfg::generator(), n, rs_, pool_);
    auto g2 = make_walk<ec::Curve<G2Cfg>, Fr>(G2Cfg::generator(), m, rs_, pool_);
    pk.alpha1 = g1.points[0];
    pk.beta1 = g1.points[1];
    pk.delta1 = g1.points[2];
    pk.beta2 = g2.points[0];
    pk.gamma2 = g2.points[1];
    pk.delta2 = g2.points[2];
    pk.ic.assign(g1.points.begin(), g1.points.begin() + n_public + 1);
    pk.a.assign(g1.points.begin(), g1.points.begin() + m);
    pk.b1.assign(g1.points.begin() + 1, g1.points.begin() + 1 + m);
    pk.c.assign(g1.points.begin() + 2, g1.points.begin() + 2 + (m - n_public - 1));
    pk.h.assign(g1.points.begin(), g1.points.end());
    pk.b2.assign(g2.points.begin(), g2.points.end());
    const size_t rows = n - n_public - 1;
    auto coef = random_fr(5 * rows);
    for (int mat = 0; mat < 2; ++mat) {
      auto& M = mat == 0 ? pk.A : pk.B;
      const int terms = mat == 0 ? 3 : 2;
      M.row_ptr.assign(n + 1, 0);
      for (size_t i = 0; i < n; ++i)
        M.row_ptr[i + 1] = M.row_ptr[i] + (i < rows ? terms : (mat == 0 && i - rows <= n_public ? 1 : 0));
      M.col.resize(M.row_ptr.back());
      M.val.resize(M.row_ptr.back());
      for (size_t i = 0; i < n; ++i)
        for (uint32_t k = M.row_ptr[i]; k < M.row_ptr[i + 1]; ++k) {
          M.col[k] = i < rows ? uint32_t(rs_.next() % m) : uint32_t(i - rows);
          M.val[k] = i < rows ? coef[(mat * 3 + (k - M.row_ptr[i])) % 5 * rows + i] : Fr::one();
        }
    }
    auto wf = random_fr(m);
    std::vector<cpu::Scalar> w(m);
    for (size_t i = 0; i < m; ++i) w[i] = wf[i].to_std();
    w[0] = {{1, 0, 0, 0}};
    // One-partition jobs on the engine (key preloaded: resident before the clock), the same
    // path as every proof; the time of each is its stage, kernels and finish.
    const std::string id = "bench-prove-" + std::string(curve_name(E::id)) + "-2^" + std::to_string(log_n);
    auto circuit = std::make_shared<engine::CircuitT<E>>(id, pk, std::optional<io::R1cs>{});
    opt_.engine->register_circuit(id, circuit);
    opt_.engine->preload(id, dev_.name());
    std::vector<double> ms;
    std::vector<engine::PartitionRecord> recs;
    std::string proof_json;
    uint64_t first_job = 0;
    for (int i = 0; i <= opt_.runs; ++i) {
      engine::JobRequest req;
      req.circuit = id;
      req.partitions.push_back(engine::Witness::values("bench witness", w));
      auto r = opt_.engine->await(opt_.engine->submit(std::move(req)));
      if (r.state != engine::JobState::Done) throw Error("bench: prove 2^" + std::to_string(log_n) + ": " + r.error);
      const auto& rec = r.records[0];
      if (i == 0) proof_json = r.proofs[0].proof_json, first_job = r.id;
      if (i > 0) {
        ms.push_back(rec.ms(Phase::Stage) + rec.ms(Phase::Kernels) + rec.ms(Phase::Finish));
        recs.push_back(rec);
      }
    }
    opt_.engine->evict(id, dev_.name());
    std::string check = "not compared above 2^16";
    if (log_n <= 16) {
      RandomSource rs(engine::partition_seed(opt_.seed, first_job, 0));  // the engine's r, s for that job
      const Fr r = random_field<Fr>(rs), s = random_field<Fr>(rs);
      cpu::CpuDevice cpu_dev({});
      auto want = groth16::prove_on<E>(cpu_dev, pk, w, r, s);
      if (groth16::proof_json(want) != proof_json)
        throw Error("bench: GPU proof differs from the CPU proof at 2^" + std::to_string(log_n));
      check = "proof == CPU proof (same r, s)";
    }
    auto st = stats(ms);
    engine::PartitionRecord med;
    for (size_t k = 0; k < recs.size(); ++k)
      if (ms[k] == st.median) med = recs[k];
    std::ostringstream d;
    d << "stage " << fmt("%.1f", med.ms(Phase::Stage));
    for (Phase p :
         {Phase::Abc, Phase::NttH, Phase::MsmA, Phase::MsmB1, Phase::MsmB2, Phase::MsmC, Phase::MsmH, Phase::Finish})
      d << " " << phase_name(p) << " " << fmt("%.1f", med.ms(p));
    add({"", "prove", log_n, st.median, st.min, st.max, int(ms.size()), check, d.str()});
  }

  const BenchOptions& opt_;
  ThreadPool& pool_;
  Clock::time_point start_;
  std::vector<BenchRow>& rows_;
  gpu::DeviceId dev_;
  RandomSource rs_;
};

}  // namespace

std::vector<BenchRow> run_gpu_bench(const BenchOptions& opt) {
  if (opt.device.empty()) throw InvalidArgument("bench: no device given");
  if (!opt.engine) throw InvalidArgument("bench: no engine given (the engine owns the GPU)");
  std::vector<BenchRow> rows;
  ThreadPool pool(0);
  auto start = Clock::now();
  auto sorted = opt.log_ns;
  std::sort(sorted.begin(), sorted.end());
  for (int log_n : sorted) {
    for (const auto& c : opt.curves) {
      if (std::chrono::duration<double>(Clock::now() - start).count() > opt.max_seconds) {
        std::printf("bench: stopping at --max-seconds %.0f before %s 2^%d\n", opt.max_seconds, c.c_str(), log_n);
        return rows;
      }
      if (c == "bn254")
        CurveBench<ec::Bn254, ec::Bn254G1Cfg, ec::Bn254G2Cfg>(opt, pool, start, rows).run(log_n);
      else if (c == "bls12-381")
        CurveBench<ec::Bls12381, ec::Bls12381G1Cfg, ec::Bls12381G2Cfg>(opt, pool, start, rows).run(log_n);
      else
        throw InvalidArgument("bench: unknown curve '" + c + "'");
    }
  }
  return rows;
}

std::string rows_to_json(const std::vector<BenchRow>& rows, const std::string& device_name) {
  using io::JsonValue;
  auto arr = JsonValue::array();
  for (auto& r : rows) {
    auto o = JsonValue::object();
    o.add("curve", JsonValue::string(r.curve));
    o.add("op", JsonValue::string(r.op));
    o.add("log_n", JsonValue::number(std::to_string(r.log_n)));
    o.add("median_ms", JsonValue::number(fmt("%.4f", r.median_ms)));
    o.add("min_ms", JsonValue::number(fmt("%.4f", r.min_ms)));
    o.add("max_ms", JsonValue::number(fmt("%.4f", r.max_ms)));
    o.add("runs", JsonValue::number(std::to_string(r.runs)));
    o.add("check", JsonValue::string(r.check));
    o.add("detail", JsonValue::string(r.detail));
    arr.items.push_back(std::move(o));
  }
  auto top = JsonValue::object();
  top.add("device", JsonValue::string(device_name));
  top.add("results", std::move(arr));
  return io::to_json(top);
}

}  // namespace cuzk::bench
