// SPDX-License-Identifier: MIT OR Apache-2.0
// The bellperson entry point (include/cuzk/bellperson.h): a .params held as a key without rows,
// each circuit's a, b, c and assignment handed to the engine as one job's partitions (every
// device of the prover), and Filecoin's 192-byte proofs back. Everything the caller gives is
// checked before the job is submitted; no exception leaves an extern "C" function.
#include "cuzk/bellperson.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "api/c_abi.hpp"
#include "api/keys.hpp"
#include "engine/engine.hpp"
#include "filecoin/params.hpp"
#include "filecoin/params_key.hpp"
#include "filecoin/proof_bytes.hpp"
#include "groth16/key.hpp"
#include "groth16/verifier.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
using api::Failure;
using api::guarded;

namespace {

using Bls = ec::Bls12381;
using Fr = Bls::Fr;
constexpr size_t kScalar = CUZK_BP_SCALAR_BYTES;
const char* const kCircuitId = "bellperson";

// One 32-byte value as given: raw limbs, reduced or not.
ff::Limbs<4> limbs_at(const uint8_t* p, size_t i) {
  ff::Limbs<4> x;
  std::memcpy(x.v, p + i * kScalar, kScalar);
  return x;
}
bool reduced(const ff::Limbs<4>& x) { return Fr::from_raw(x.v).is_reduced(); }
// The value as Fr (Montgomery form) and as an MSM scalar (standard form); `x` reduced.
Fr to_fr(const ff::Limbs<4>& x, bool canonical) { return canonical ? Fr::from_std(x) : Fr::from_raw(x.v); }
cpu::Scalar to_std(const ff::Limbs<4>& x, bool canonical) { return canonical ? x : Fr::from_raw(x.v).to_std(); }

size_t words_of(size_t bits) { return (bits + 63) / 64; }
bool bit(const uint64_t* v, size_t i) { return (v[i / 64] >> (i % 64)) & 1; }
// The bit-vector's words with the bits past `bits` cleared (bitvec leaves them unspecified).
std::vector<uint64_t> masked(const uint64_t* v, size_t bits) {
  std::vector<uint64_t> w(v, v + words_of(bits));
  if (bits % 64) w.back() &= (uint64_t(1) << (bits % 64)) - 1;
  return w;
}
size_t popcount(const std::vector<uint64_t>& w) {
  size_t n = 0;
  for (uint64_t x : w) n += size_t(__builtin_popcountll(x));
  return n;
}

// What every circuit of a prover shares: its sizes and densities (from the first call).
struct Shape {
  size_t n_rows = 0, n_inputs = 0, n_aux = 0;
  std::vector<uint64_t> a_aux, b_inp, b_aux;
  bool operator==(const Shape&) const = default;
};

// What differs between two shapes, for a message: "n_aux is 7, not 6, which differs".
std::string shape_difference(const Shape& s, const Shape& was) {
  auto count = [](const char* what, size_t n, size_t m) {
    return std::string(what) + " is " + std::to_string(n) + ", not " + std::to_string(m) + ", which differs";
  };
  if (s.n_rows != was.n_rows) return count("n_rows", s.n_rows, was.n_rows);
  if (s.n_inputs != was.n_inputs) return count("n_inputs", s.n_inputs, was.n_inputs);
  if (s.n_aux != was.n_aux) return count("n_aux", s.n_aux, was.n_aux);
  auto bits = [](const char* what, const std::vector<uint64_t>& v, const std::vector<uint64_t>& w) {
    return std::string(what) + " (" + std::to_string(popcount(v)) + " bits set, " + std::to_string(popcount(w)) +
           " before) differs";
  };
  if (s.a_aux != was.a_aux) return bits("a_aux_density", s.a_aux, was.a_aux);
  if (s.b_inp != was.b_inp) return bits("b_input_density", s.b_inp, was.b_inp);
  return bits("b_aux_density", s.b_aux, was.b_aux);
}

Shape shape_of(const cuzk_bp_circuit& c) {
  Shape s;
  s.n_rows = c.n_rows, s.n_inputs = c.n_inputs, s.n_aux = c.n_aux;
  s.a_aux = masked(c.a_aux_density, c.n_aux);
  s.b_inp = masked(c.b_input_density, c.n_inputs);
  s.b_aux = masked(c.b_aux_density, c.n_aux);
  return s;
}

// Closed once cuzk_bp_prove returns: a partition still loading after its job failed must not
// read the caller's buffers any more.
struct Gate {
  std::shared_mutex mu;
  bool closed = false;
};

}  // namespace

struct cuzk_bp_prover {
  std::string path;
  bool canonical = false;
  ThreadPool pool;
  std::unique_ptr<engine::Engine> engine;
  uint32_t n_ic = 0, n_h = 0, n_l = 0, n_a = 0, n_b = 0;
  std::mutex mu;                                // the registration below
  std::optional<groth16::ProvingKey<Bls>> key;  // the points, until the first call gives the shape
  std::optional<Shape> shape;                   // once registered

  // Checks the first call's shape against the file's sections and registers the circuit; later
  // calls must have the same shape.
  void register_or_match(const Shape& s) {
    std::lock_guard lk(mu);
    if (shape) {
      if (!(s == *shape))
        throw Failure(CUZK_ERR_INPUT, "the circuit's " + shape_difference(s, *shape) +
                                          " from the first call's: one prover proves one circuit");
      return;
    }
    auto need = [&](const char* section, size_t have, size_t want, const std::string& why) {
      if (have != want)
        throw Failure(CUZK_ERR_INPUT, path + ": section " + section + " has " + std::to_string(have) + " points, but " +
                                          why + " (" + std::to_string(want) +
                                          "): the assignment is not of this key's circuit");
    };
    need("ic", n_ic, s.n_inputs, "the circuit's inputs (ONE included) number");
    need("l", n_l, s.n_aux, "the circuit's aux values number");
    size_t n = 1;
    int log_n = 0;
    while (n < s.n_rows) n <<= 1, ++log_n;
    need("h", n_h, n - 1,
         std::to_string(s.n_rows) + " rows (constraints and input rows) make a domain of 2^" + std::to_string(log_n) +
             ", whose h has one point less");
    need("a", n_a, s.n_inputs + popcount(s.a_aux),
         "every input and the aux values whose a_aux_density bit is set number");
    need("b_g1", n_b, popcount(s.b_inp) + popcount(s.b_aux),
         "the inputs and aux values whose b_input_density / b_aux_density bit is set number");
    groth16::ProvingKey<Bls> pk = std::move(*key);
    pk.n_vars = uint32_t(s.n_inputs + s.n_aux);
    pk.n_public = uint32_t(s.n_inputs - 1);
    pk.domain_size = uint32_t(n);
    pk.log_n = log_n;
    pk.h_form = backend::HForm::Coefficients;
    pk.compact = true;
    for (size_t j = 0; j < s.n_inputs; ++j) pk.a_wires.push_back(uint32_t(j));
    for (size_t j = 0; j < s.n_inputs; ++j)
      if (bit(s.b_inp.data(), j)) pk.b_wires.push_back(uint32_t(j));
    for (size_t i = 0; i < s.n_aux; ++i) {  // aux after the inputs: both lists stay ascending
      if (bit(s.a_aux.data(), i)) pk.a_wires.push_back(uint32_t(s.n_inputs + i));
      if (bit(s.b_aux.data(), i)) pk.b_wires.push_back(uint32_t(s.n_inputs + i));
    }
    try {
      groth16::check_key_shape(pk);
    } catch (const InvalidArgument& e) {  // the counts were checked above: not expected
      throw Failure(CUZK_ERR_INTERNAL, path + ": " + e.what());
    }
    engine->register_circuit(kCircuitId, engine::make_circuit(kCircuitId, std::move(pk), std::nullopt));
    shape = s;
    key.reset();
  }
};

namespace {

// The cheap checks of one circuit: pointers and lengths.
void check_lengths(const cuzk_bp_circuit& c, size_t i) {
  const std::string at = "circuit " + std::to_string(i) + ": ";
  auto ptr = [&](const void* p, size_t n, const char* what) {
    if (!p && n) throw Failure(CUZK_ERR_ARGUMENT, at + what + " is NULL");
  };
  ptr(c.a, c.n_rows, "a"), ptr(c.b, c.n_rows, "b"), ptr(c.c, c.n_rows, "c");
  ptr(c.inputs, c.n_inputs, "inputs"), ptr(c.aux, c.n_aux, "aux");
  ptr(c.a_aux_density, c.a_aux_bits, "a_aux_density"), ptr(c.b_input_density, c.b_input_bits, "b_input_density");
  ptr(c.b_aux_density, c.b_aux_bits, "b_aux_density");
  if (!c.r != !c.s) throw Failure(CUZK_ERR_ARGUMENT, at + "r and s must both be given or both be NULL");
  if (c.n_inputs == 0) throw Failure(CUZK_ERR_INPUT, at + "no inputs (inputs[0] must be ONE)");
  if (c.n_rows < c.n_inputs)
    throw Failure(CUZK_ERR_INPUT, at + std::to_string(c.n_rows) + " rows, fewer than the " +
                                      std::to_string(c.n_inputs) + " input rows bellperson appends");
  auto bits = [&](size_t have, size_t want, const char* what, const char* of) {
    if (have != want)
      throw Failure(CUZK_ERR_INPUT, at + what + " has " + std::to_string(have) + " bits, the circuit has " +
                                        std::to_string(want) + " " + of);
  };
  bits(c.a_aux_bits, c.n_aux, "a_aux_density", "aux values");
  bits(c.b_input_bits, c.n_inputs, "b_input_density", "inputs");
  bits(c.b_aux_bits, c.n_aux, "b_aux_density", "aux values");
}

// The lowest i < n for which bad(i), spread over the pool; SIZE_MAX when there is none.
template <class Bad>
size_t first_bad(size_t n, ThreadPool& pool, Bad&& bad) {
  std::atomic<size_t> first{SIZE_MAX};
  pool.parallel_for((n + 4095) / 4096, [&](size_t b, size_t e) {
    for (size_t i = b * 4096, hi = std::min(n, e * 4096); i < hi; ++i)
      if (bad(i)) {
        size_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        break;
      }
  });
  return first.load();
}

// The values of one circuit: each < r, inputs[0] == 1, a[i] * b[i] == c[i]. The first failure
// (lowest index) is reported.
void check_values(const cuzk_bp_circuit& c, size_t ci, bool canonical, ThreadPool& pool) {
  const std::string at = "circuit " + std::to_string(ci) + ": ";
  auto all_reduced = [&](const uint8_t* p, size_t n, const char* what) {
    const size_t i = first_bad(n, pool, [&](size_t k) { return !reduced(limbs_at(p, k)); });
    if (i != SIZE_MAX) throw Failure(CUZK_ERR_INPUT, at + what + "[" + std::to_string(i) + "] is not < r");
  };
  all_reduced(c.inputs, c.n_inputs, "inputs");
  all_reduced(c.aux, c.n_aux, "aux");
  all_reduced(c.a, c.n_rows, "a");
  all_reduced(c.b, c.n_rows, "b");
  all_reduced(c.c, c.n_rows, "c");
  if (c.r) all_reduced(c.r, 1, "r"), all_reduced(c.s, 1, "s");
  if (!(to_fr(limbs_at(c.inputs, 0), canonical) == Fr::one()))
    throw Failure(CUZK_ERR_INPUT, at + "inputs[0] is not 1 (bellperson's ONE)");
  const size_t row = first_bad(c.n_rows, pool, [&](size_t i) {
    return !(to_fr(limbs_at(c.a, i), canonical) * to_fr(limbs_at(c.b, i), canonical) ==
             to_fr(limbs_at(c.c, i), canonical));
  });
  if (row != SIZE_MAX)
    throw Failure(CUZK_ERR_INPUT, at + "row " + std::to_string(row) +
                                      " is not satisfied: a * b != c (the assignment is not a solution)");
}

// One circuit as the engine's partition; it reads the caller's buffers only while `gate` is open.
engine::Witness witness_of(const cuzk_bp_circuit& c, size_t ci, bool canonical, std::shared_ptr<Gate> gate) {
  engine::Witness w;
  w.name = "circuit " + std::to_string(ci);
  auto closed = [](const std::string& name) { return Error(name + ": the call has returned"); };
  // Written where the engine says (page-locked memory for a partition that will find a worker free).
  w.fill = [c, canonical, gate, name = w.name, closed](std::span<cpu::Scalar> v) {
    std::shared_lock lk(gate->mu);
    if (gate->closed) throw closed(name);
    if (v.size() != c.n_inputs + c.n_aux)
      throw InvalidArgument(name + ": witness has " + std::to_string(c.n_inputs + c.n_aux) +
                            " values (inputs and aux), the key expects " + std::to_string(v.size()));
    for (size_t j = 0; j < c.n_inputs; ++j) v[j] = to_std(limbs_at(c.inputs, j), canonical);
    for (size_t i = 0; i < c.n_aux; ++i) v[c.n_inputs + i] = to_std(limbs_at(c.aux, i), canonical);
  };
  w.abc = [c, canonical, gate, name = w.name, closed](size_t n, cpu::Scalar* a, cpu::Scalar* b, cpu::Scalar* cc) {
    std::shared_lock lk(gate->mu);
    if (gate->closed) throw closed(name);
    if (c.n_rows > n) throw InvalidArgument(name + ": " + std::to_string(c.n_rows) + " rows exceed the domain");
    if (!canonical) {  // Montgomery form as given: the engine's own
      std::memcpy(a, c.a, c.n_rows * kScalar), std::memcpy(b, c.b, c.n_rows * kScalar);
      std::memcpy(cc, c.c, c.n_rows * kScalar);
      return;
    }
    for (size_t i = 0; i < c.n_rows; ++i) {
      std::memcpy(a[i].v, to_fr(limbs_at(c.a, i), true).l, kScalar);
      std::memcpy(b[i].v, to_fr(limbs_at(c.b, i), true).l, kScalar);
      std::memcpy(cc[i].v, to_fr(limbs_at(c.c, i), true).l, kScalar);
    }
  };
  if (c.r) {
    std::array<cpu::Scalar, 2> rs;
    std::memcpy(rs[0].v, to_fr(limbs_at(c.r, 0), canonical).l, kScalar);
    std::memcpy(rs[1].v, to_fr(limbs_at(c.s, 0), canonical).l, kScalar);
    w.blinding = rs;
  }
  return w;
}

}  // namespace

extern "C" {

int cuzk_bp_prover_create(const char* params_path, const char* devices, uint32_t flags, cuzk_bp_prover** out, char* err,
                          size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!params_path || !out) throw Failure(CUZK_ERR_ARGUMENT, "params_path and out must not be NULL");
    if (flags & ~uint32_t(CUZK_BP_CANONICAL)) throw Failure(CUZK_ERR_ARGUMENT, "unknown flags");
    auto p = std::make_unique<cuzk_bp_prover>();
    p->path = params_path;
    p->canonical = flags & CUZK_BP_CANONICAL;
    engine::EngineConfig cfg;
    std::unique_ptr<backend::Device> decoder;
    try {
      cfg.devices = engine::parse_device_specs(devices ? devices : "auto", "devices");
      decoder = api::params_decoder(cfg.devices);
    } catch (const backend::BadDeviceSpec& e) {
      throw Failure(CUZK_ERR_ARGUMENT, e.what());
    } catch (const InvalidArgument& e) {  // a device that is not there
      throw Failure(CUZK_ERR_DEVICE, e.what());
    }
    try {
      filecoin::ParamsFile f = filecoin::read_params(p->path, p->pool, false, true);
      if (f.is_vk) throw Failure(CUZK_ERR_KEY, p->path + ": a verifying key (.vk) has no proving sections");
      p->key.emplace();
      filecoin::load_points(f, *p->key, p->pool, false, decoder.get());
      p->n_ic = f.ic.count, p->n_h = f.h.count, p->n_l = f.l.count, p->n_a = f.a.count, p->n_b = f.b_g1.count;
      if (f.b_g2.count != f.b_g1.count)
        throw Failure(CUZK_ERR_KEY, p->path + ": section b_g2 has " + std::to_string(f.b_g2.count) + " points, b_g1 " +
                                        std::to_string(f.b_g1.count));
    } catch (const Error& e) {  // unreadable, malformed, a point off the curve
      throw Failure(CUZK_ERR_KEY, e.what());
    }
    decoder.reset();
    try {
      p->engine = std::make_unique<engine::Engine>(std::move(cfg));
    } catch (const Error& e) {
      throw Failure(CUZK_ERR_DEVICE, e.what());
    }
    *out = p.release();
  });
}

void cuzk_bp_prover_destroy(cuzk_bp_prover* prover) {
  try {
    delete prover;
  } catch (...) {  // the engine's destructor joins its threads; nothing may escape
  }
}

int cuzk_bp_prove(cuzk_bp_prover* prover, const cuzk_bp_circuit* circuits, size_t n_circuits, uint8_t* proofs_out,
                  size_t proofs_out_len, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!prover) throw Failure(CUZK_ERR_ARGUMENT, "prover is NULL");
    if (n_circuits == 0) return;
    if (!circuits || !proofs_out) throw Failure(CUZK_ERR_ARGUMENT, "circuits and proofs_out must not be NULL");
    const size_t need = n_circuits * filecoin::kProofBytes;
    if (proofs_out_len < need)
      throw Failure(CUZK_ERR_SHORT_BUFFER, "proofs_out has " + std::to_string(proofs_out_len) + " bytes; " +
                                               std::to_string(n_circuits) + " proofs need " + std::to_string(need));
    for (size_t i = 0; i < n_circuits; ++i) check_lengths(circuits[i], i);
    const Shape first = shape_of(circuits[0]);
    for (size_t i = 1; i < n_circuits; ++i)
      if (!(shape_of(circuits[i]) == first))
        throw Failure(CUZK_ERR_INPUT, "circuit " + std::to_string(i) +
                                          ": its sizes or densities differ from circuit 0's (one prover, one circuit)");
    prover->register_or_match(first);
    for (size_t i = 0; i < n_circuits; ++i) check_values(circuits[i], i, prover->canonical, prover->pool);

    auto gate = std::make_shared<Gate>();
    engine::JobRequest req;
    req.circuit = kCircuitId;
    for (size_t i = 0; i < n_circuits; ++i)
      req.partitions.push_back(witness_of(circuits[i], i, prover->canonical, gate));
    engine::Engine& eng = *prover->engine;
    const uint64_t job = eng.submit(std::move(req));
    const engine::JobResult r = eng.await(job);
    {
      std::unique_lock lk(gate->mu);  // waits for a load in progress
      gate->closed = true;
    }
    eng.forget(job);
    if (r.state != engine::JobState::Done) {
      std::string why = r.error;
      for (auto& rec : r.records)
        if (!rec.error.empty() && why.find(rec.error) == std::string::npos) why += "; " + rec.error;
      throw Failure(r.failure == engine::FailureKind::BadInput ? CUZK_ERR_INPUT : CUZK_ERR_DEVICE, why);
    }
    for (size_t i = 0; i < n_circuits; ++i) {
      const auto& bytes = r.proofs.at(i).compressed;
      if (bytes.size() != filecoin::kProofBytes)
        throw Failure(CUZK_ERR_INTERNAL,
                      "proof " + std::to_string(i) + " has " + std::to_string(bytes.size()) + " bytes");
    }
    for (size_t i = 0; i < n_circuits; ++i)
      std::memcpy(proofs_out + i * filecoin::kProofBytes, r.proofs[i].compressed.data(), filecoin::kProofBytes);
  });
}

int cuzk_bp_verify(const char* vk_path, const uint8_t* public_inputs, size_t n_public,
                   const uint8_t proof[CUZK_BP_PROOF_BYTES], uint32_t flags, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!vk_path || !proof || (!public_inputs && n_public))
      throw Failure(CUZK_ERR_ARGUMENT, "vk_path, proof and public_inputs must not be NULL");
    if (flags & ~uint32_t(CUZK_BP_CANONICAL)) throw Failure(CUZK_ERR_ARGUMENT, "unknown flags");
    const bool canonical = flags & CUZK_BP_CANONICAL;
    groth16::VerifyingKey<Bls> vk;
    try {
      ThreadPool one(1);
      vk = filecoin::verifying_key_of(filecoin::read_params(vk_path, one));
    } catch (const Error& e) {
      throw Failure(CUZK_ERR_KEY, e.what());
    }
    if (n_public != vk.n_public)
      throw Failure(CUZK_ERR_INPUT, std::to_string(n_public) + " public inputs, but " + vk_path + " has " +
                                        std::to_string(vk.n_public));
    groth16::PublicInputs pub(n_public);
    for (size_t i = 0; i < n_public; ++i) {
      const ff::Limbs<4> x = limbs_at(public_inputs, i);
      if (!reduced(x)) throw Failure(CUZK_ERR_INPUT, "public input " + std::to_string(i) + " is not < r");
      pub[i] = to_std(x, canonical);
    }
    filecoin::BlsProof pr;
    const std::string bad = filecoin::decode_proof(std::span<const uint8_t, filecoin::kProofBytes>(proof, 192), pr);
    if (!bad.empty()) throw Failure(CUZK_ERR_INVALID_PROOF, "the proof does not decode: " + bad);
    if (!groth16::verify_proof<Bls>(vk, pub, groth16::VerifyProof<Bls>{pr.a, pr.b, pr.c}))
      throw Failure(CUZK_ERR_INVALID_PROOF, "the proof does not verify");
  });
}

}  // extern "C"
