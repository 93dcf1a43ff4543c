// SPDX-License-Identifier: MIT OR Apache-2.0
#include "setup/tools.hpp"

#include <chrono>
#include <filesystem>

#include "ec/curves.hpp"
#include "io/r1cs.hpp"
#include "setup/fixed_base_on.hpp"
#include "setup/setup.hpp"
#include "setup/write.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/thread_pool.hpp"
#include "util/time.hpp"
#include "util/version.hpp"

namespace cuzk::setup {

namespace {

std::string insecure_note(std::optional<uint64_t> seed) {
  return std::string("cuzk ") + version_string() + " insecure setup: the toxic waste was " +
         (seed ? "derived from seed " + std::to_string(*seed) + " and can be recomputed by anyone who knows it"
               : "drawn from the OS and discarded, but no ceremony vouches for that") +
         ". For tests and benchmarks only; never use this key to protect anything.";
}

template <class E>
void fill_setup_stats(SetupStats& st, const groth16::ProvingKey<E>& pk, const SetupTimings& t) {
  st.n_vars = pk.n_vars;
  st.n_public = pk.n_public;
  st.log_n = pk.log_n;
  st.lagrange_ms = t.lagrange_ms;
  st.columns_ms = t.columns_ms;
  st.scalars_ms = t.scalars_ms;
  st.g1_ms = t.g1_ms;
  st.g2_ms = t.g2_ms;
  st.setup_ms = t.total_ms;
  st.g1_points = t.g1_points;
  st.g2_points = t.g2_points;
}

template <class E>
groth16::ProvingKey<E> key_of(const io::R1cs& cs, std::optional<uint64_t> seed, SetupDevice dev, ThreadPool& pool,
                              const Log& log, backend::HForm form, SetupStats& st) {
  using Fr = typename E::Fr;
  st.curve = curve_name(E::id);
  st.device = dev.name;
  st.n_rows = cs.n_constraints;
  RandomSource rs(seed);
  auto tw = ToxicWaste<Fr>::draw(rs);
  SetupTimings t;
  auto pk = setup<E>(r1cs::rows_of<Fr>(cs), tw, fixed_base_on<E>(dev), pool, &t, log, form);
  fill_setup_stats(st, pk, t);
  return pk;
}

template <class E>
SetupStats setup_files_t(const io::R1cs& cs, const std::string& zkey_path, std::optional<uint64_t> seed,
                         SetupDevice dev, ThreadPool& pool, const Log& log) {
  SetupStats st;
  auto pk = key_of<E>(cs, seed, dev, pool, log, backend::HForm::OddCoset, st);
  auto t0 = std::chrono::steady_clock::now();
  write_zkey<E>(zkey_path, pk, insecure_note(seed));
  st.write_ms = ms_since(t0);
  return st;
}

template <class E>
SetupStats gen_circuit_t(const GenOptions& opt, ThreadPool& pool, const Log& log) {
  using Fr = typename E::Fr;
  auto say = [&](const std::string& s) {
    if (log) log(s);
  };
  const auto t_all = std::chrono::steady_clock::now();
  SetupStats st;
  st.curve = curve_name(E::id);
  st.device = opt.device.name;
  SyntheticCircuit<Fr> circ(opt.spec);
  const r1cs::RowSource<Fr> src = circ.source();
  st.n_rows = src.n_rows;
  st.n_vars = src.n_wires;
  st.n_public = src.n_public();
  st.log_n = opt.spec.log_n;
  const bool files = !opt.out_dir.empty();
  auto path = [&](const std::string& name) { return (std::filesystem::path(opt.out_dir) / name).string(); };
  if (files) std::filesystem::create_directories(opt.out_dir);

  auto t0 = std::chrono::steady_clock::now();
  if (files) {
    write_r1cs<Fr>(path("circuit.r1cs"), src);
    st.write_ms += ms_since(t0);
  }

  t0 = std::chrono::steady_clock::now();
  for (uint32_t p = 0; p < opt.partitions; ++p) {
    auto tw0 = std::chrono::steady_clock::now();
    auto w = circ.witness(p, pool);
    st.witness_ms += ms_since(tw0);
    // Every witness is checked against every constraint; the first pass also counts non-zeros.
    const size_t bad = r1cs::first_unsatisfied<Fr>(src, w.data(), pool, p == 0 ? &st.nnz : nullptr);
    if (bad != SIZE_MAX)
      throw Error("internal error: generated witness " + std::to_string(p) + " fails constraint " +
                  std::to_string(bad));
    if (p == 0) {
      say(std::string("circuit: ") + shape_name(opt.spec.shape) + " " + st.curve + ", " + std::to_string(st.n_rows) +
          " constraints, " + std::to_string(st.n_vars) + " wires, " + std::to_string(st.nnz) + " non-zeros (" +
          std::to_string(double(st.nnz) / double(st.n_rows)).substr(0, 4) + " per constraint)");
      size_t bits = 0;
      for (auto& x : w) bits += (x.v[0] <= 1 && !(x.v[1] | x.v[2] | x.v[3]));
      st.witness_bits = double(bits) / double(w.size());
    }
    if (files) {
      auto tw = std::chrono::steady_clock::now();
      write_wtns<Fr>(path("witness_" + std::to_string(p) + ".wtns"), w);
      st.write_ms += ms_since(tw);
    }
  }
  say(std::to_string(opt.partitions) +
      " witness(es), each checked against every constraint: " + std::to_string(int(ms_since(t0))) + " ms (" +
      std::to_string(int(st.witness_bits * 100)) + "% of values are 0 or 1)");

  if (opt.setup) {
    RandomSource rs(opt.setup_seed);
    auto tw = ToxicWaste<Fr>::draw(rs);
    SetupTimings t;
    auto pk = setup<E>(src, tw, fixed_base_on<E>(opt.device), pool, &t, log);
    fill_setup_stats(st, pk, t);
    say("setup on " + st.device + ": " + std::to_string(int(t.total_ms)) + " ms");
    if (files) {
      auto tk = std::chrono::steady_clock::now();
      write_zkey<E>(path("circuit.zkey"), pk, insecure_note(opt.setup_seed));
      st.write_ms += ms_since(tk);
    }
  }
  st.total_ms = ms_since(t_all);
  return st;
}

}  // namespace

groth16::ProvingKey<ec::Bls12381> setup_key_bls12_381(const io::R1cs& cs, std::optional<uint64_t> seed, SetupDevice dev,
                                                      ThreadPool& pool, const Log& log, backend::HForm form,
                                                      SetupStats& st) {
  if (cs.curve != CurveId::bls12_381)
    throw InvalidArgument("the circuit is over " + std::string(curve_name(cs.curve)) + "; this key is for bls12-381");
  return key_of<ec::Bls12381>(cs, seed, dev, pool, log, form, st);
}

SetupStats setup_files(const std::string& r1cs_path, const std::string& zkey_path, std::optional<uint64_t> seed,
                       SetupDevice dev, ThreadPool& pool, const Log& log) {
  check_output_path(zkey_path);  // before the work, not after it
  auto t0 = std::chrono::steady_clock::now();
  io::R1cs cs = io::read_r1cs(r1cs_path);
  double read_ms = ms_since(t0);
  if (log)
    log("read " + r1cs_path + ": " + curve_name(cs.curve) + ", " + std::to_string(cs.n_constraints) + " constraints, " +
        std::to_string(cs.n_wires) + " wires, " + std::to_string(cs.n_public()) + " public");
  SetupStats st = cs.curve == CurveId::bn254 ? setup_files_t<ec::Bn254>(cs, zkey_path, seed, dev, pool, log)
                                             : setup_files_t<ec::Bls12381>(cs, zkey_path, seed, dev, pool, log);
  st.read_ms = read_ms;
  st.total_ms = ms_since(t0);
  return st;
}

SetupStats gen_circuit(const GenOptions& opt, ThreadPool& pool, const Log& log) {
  if (opt.partitions == 0 && !opt.setup) throw InvalidArgument("nothing to generate: --partitions 0 and no --setup");
  if (!opt.out_dir.empty()) {  // every output checked before the first is written
    auto path = [&](const std::string& name) { return (std::filesystem::path(opt.out_dir) / name).string(); };
    std::vector<std::string> outs = {path("circuit.r1cs")};
    for (uint32_t p = 0; p < opt.partitions; ++p) outs.push_back(path("witness_" + std::to_string(p) + ".wtns"));
    if (opt.setup) outs.push_back(path("circuit.zkey"));
    check_output_paths(outs);
  }
  return opt.curve == CurveId::bn254 ? gen_circuit_t<ec::Bn254>(opt, pool, log)
                                     : gen_circuit_t<ec::Bls12381>(opt, pool, log);
}

}  // namespace cuzk::setup
