// SPDX-License-Identifier: MIT OR Apache-2.0
// rapidsnark's C interface (include/cuzk/rapidsnark.h) over cuzk's engine: a prover object is a
// BN254 key loaded once and an engine on every GPU (else the CPU); each proof is one job. Its
// codes, size rules and messages follow rapidsnark's prover.cpp; no exception leaves a function.
#include "cuzk/rapidsnark.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "api/embed.hpp"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;

namespace {

struct Prover {
  std::shared_ptr<const api::LoadedKey> key;
  std::unique_ptr<api::KeyedEngine> engine;
};

void put(char* msg, unsigned long long max, const std::string& text) noexcept {
  if (!msg || max == 0) return;
  const size_t n = std::min<unsigned long long>(text.size(), max - 1);
  std::memcpy(msg, text.data(), n);
  msg[n] = '\0';
}

// Runs `f` (which returns a PROVER_* code), turning every exception into one and a message.
template <class F>
int run(char* msg, unsigned long long max, F&& f) noexcept {
  try {
    return f();
  } catch (const api::WitnessLengthError& e) {
    put(msg, max, e.what());
    return PROVER_INVALID_WITNESS_LENGTH;
  } catch (const std::bad_alloc&) {
    put(msg, max, "out of host memory");
    return PROVER_ERROR;
  } catch (const std::exception& e) {
    put(msg, max, e.what());
    return PROVER_ERROR;
  } catch (...) {
    put(msg, max, "unknown error");
    return PROVER_ERROR;
  }
}

// rapidsnark proves BN254 keys only, and its buffer sizes are for BN254.
void require_bn254(CurveId c, const std::string& name) {
  if (c != CurveId::bn254)
    throw Error(name + ": zkey curve not supported: the key is for " + std::string(curve_name(c)) +
                "; rapidsnark's interface proves BN254 keys (cuzk.h proves both curves)");
}

unsigned long long public_size_for(uint32_t n_public) {
  // rapidsnark's bound, which covers cuzk's public.json too (checked: never less).
  const unsigned long long theirs = (unsigned long long)n_public * 82 + 4;
  return std::max<unsigned long long>(theirs, api::public_json_max(CurveId::bn254, n_public) + 1);
}

std::span<const uint8_t> bytes(const void* p, unsigned long long n) {
  if (n > SIZE_MAX) throw Error("a buffer of " + std::to_string(n) + " bytes does not fit this host's address space");
  return {static_cast<const uint8_t*>(p), size_t(n)};
}

// The devices of a prover object: $CUZK_DEVICES when set (as --devices takes it), else every GPU
// of the host, else the CPU.
std::string devices() {
  const char* env = std::getenv("CUZK_DEVICES");
  return env && *env ? env : "auto";
}

int create(void** prover_object, char* error_msg, unsigned long long error_msg_maxsize,
           const std::function<std::shared_ptr<const api::LoadedKey>(ThreadPool&)>& load) {
  return run(error_msg, error_msg_maxsize, [&] {
    if (!prover_object) throw Error("Null prover object");
    auto p = std::make_unique<Prover>();
    {
      ThreadPool pool;
      p->key = load(pool);
    }
    require_bn254(p->key->curve, p->key->name);
    p->engine = std::make_unique<api::KeyedEngine>(devices());
    *prover_object = p.release();
    return PROVER_OK;
  });
}

}  // namespace

extern "C" {

int groth16_public_size_for_zkey_buf(const void* zkey_buffer, unsigned long long zkey_size,
                                     unsigned long long* public_size, char* error_msg,
                                     unsigned long long error_msg_maxsize) {
  return run(error_msg, error_msg_maxsize, [&] {
    if (!zkey_buffer) throw Error("Null zkey buffer");
    if (!public_size) throw Error("Null public size");
    const api::ZkeyShape s = api::zkey_shape_bytes(bytes(zkey_buffer, zkey_size));
    require_bn254(s.curve, "zkey buffer");
    *public_size = public_size_for(s.n_public);
    return PROVER_OK;
  });
}

int groth16_public_size_for_zkey_file(const char* zkey_fname, unsigned long long* public_size, char* error_msg,
                                      unsigned long long error_msg_maxsize) {
  return run(error_msg, error_msg_maxsize, [&] {
    if (!zkey_fname) throw Error("Null zkey file name");
    if (!public_size) throw Error("Null public size");
    const api::ZkeyShape s = api::zkey_shape_file(zkey_fname);
    require_bn254(s.curve, zkey_fname);
    *public_size = public_size_for(s.n_public);
    return PROVER_OK;
  });
}

void groth16_proof_size(unsigned long long* proof_size) {
  // rapidsnark's 810 is also the longest proof.json cuzk writes on BN254, NUL counted.
  if (proof_size) *proof_size = std::max<unsigned long long>(810, api::proof_json_max(CurveId::bn254) + 1);
}

int groth16_prover_create(void** prover_object, const void* zkey_buffer, unsigned long long zkey_size, char* error_msg,
                          unsigned long long error_msg_maxsize) {
  if (!zkey_buffer) {
    put(error_msg, error_msg_maxsize, prover_object ? "Null zkey buffer" : "Null prover object");
    return PROVER_ERROR;
  }
  return create(prover_object, error_msg, error_msg_maxsize,
                [&](ThreadPool& pool) { return api::load_zkey_bytes(bytes(zkey_buffer, zkey_size), pool); });
}

int groth16_prover_create_zkey_file(void** prover_object, const char* zkey_file_path, char* error_msg,
                                    unsigned long long error_msg_maxsize) {
  if (!zkey_file_path) {
    put(error_msg, error_msg_maxsize, "Null zkey file path");
    return PROVER_ERROR;
  }
  return create(prover_object, error_msg, error_msg_maxsize,
                [&](ThreadPool& pool) { return api::load_zkey_file(zkey_file_path, "", pool); });
}

int groth16_prover_prove(void* prover_object, const void* wtns_buffer, unsigned long long wtns_size, char* proof_buffer,
                         unsigned long long* proof_size, char* public_buffer, unsigned long long* public_size,
                         char* error_msg, unsigned long long error_msg_maxsize) {
  const char* null = !prover_object   ? "Null prover object"
                     : !wtns_buffer   ? "Null witness buffer"
                     : !proof_buffer  ? "Null proof buffer"
                     : !proof_size    ? "Null proof size"
                     : !public_buffer ? "Null public buffer"
                     : !public_size   ? "Null public size"
                                      : nullptr;
  if (null) {
    put(error_msg, error_msg_maxsize, null);
    return PROVER_ERROR;
  }
  return run(error_msg, error_msg_maxsize, [&] {
    Prover& p = *static_cast<Prover*>(prover_object);
    const std::string name = "witness buffer";
    std::vector<cpu::Scalar> w = api::witness_for(*p.key, bytes(wtns_buffer, wtns_size), name);
    const uint64_t job = p.engine->submit(p.key, std::move(w), name);
    const engine::JobResult r = p.engine->await(job);
    p.engine->forget(job);
    if (r.state != engine::JobState::Done) throw Error(api::job_error(r));
    const std::string& proof = r.proofs.at(0).proof_json;
    const std::string& pub = r.proofs.at(0).public_json;
    const unsigned long long need_proof = proof.size() + 1, need_public = pub.size() + 1;
    if (*proof_size < need_proof || *public_size < need_public) {
      char text[200];
      std::snprintf(text, sizeof text,
                    "Buffer insufficient for generated proof. Required - proof: %llu (provided: %llu), public: %llu "
                    "(provided: %llu)",
                    need_proof, *proof_size, need_public, *public_size);
      *proof_size = need_proof;
      *public_size = need_public;
      put(error_msg, error_msg_maxsize, text);
      return PROVER_ERROR_SHORT_BUFFER;
    }
    std::memcpy(proof_buffer, proof.c_str(), need_proof);
    std::memcpy(public_buffer, pub.c_str(), need_public);
    *proof_size = proof.size();
    *public_size = pub.size();
    return PROVER_OK;
  });
}

void groth16_prover_destroy(void* prover_object) {
  try {
    delete static_cast<Prover*>(prover_object);
  } catch (...) {  // the engine's destructor joins its threads; nothing may escape
  }
}

int groth16_prover(const void* zkey_buffer, unsigned long long zkey_size, const void* wtns_buffer,
                   unsigned long long wtns_size, char* proof_buffer, unsigned long long* proof_size,
                   char* public_buffer, unsigned long long* public_size, char* error_msg,
                   unsigned long long error_msg_maxsize) {
  void* prover = nullptr;
  int st = groth16_prover_create(&prover, zkey_buffer, zkey_size, error_msg, error_msg_maxsize);
  if (st != PROVER_OK) return st;
  st = groth16_prover_prove(prover, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
                            error_msg, error_msg_maxsize);
  groth16_prover_destroy(prover);
  return st;
}

int groth16_prover_zkey_file(const char* zkey_file_path, const void* wtns_buffer, unsigned long long wtns_size,
                             char* proof_buffer, unsigned long long* proof_size, char* public_buffer,
                             unsigned long long* public_size, char* error_msg, unsigned long long error_msg_maxsize) {
  void* prover = nullptr;
  int st = groth16_prover_create_zkey_file(&prover, zkey_file_path, error_msg, error_msg_maxsize);
  if (st != PROVER_OK) return st;
  st = groth16_prover_prove(prover, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
                            error_msg, error_msg_maxsize);
  groth16_prover_destroy(prover);
  return st;
}

}  // extern "C"
