// SPDX-License-Identifier: MIT OR Apache-2.0
// cuzk's C interface (include/cuzk/cuzk.h) over api/embed: keys held by shared pointer (an engine
// keeps its own reference), engines that register keys as they first prove with them, JSON
// outputs into the caller's buffers. No exception leaves an extern "C" function.
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "api/c_abi.hpp"
#include "api/embed.hpp"
#include "cuzk/cuzk.h"
#include "util/error.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;
using api::Failure;
using api::guarded;

struct cuzk_key {
  std::shared_ptr<const api::LoadedKey> key;
};

struct cuzk_engine {
  std::unique_ptr<api::KeyedEngine> engine;
};

namespace {

std::shared_ptr<const api::LoadedKey> load(const std::function<std::shared_ptr<const api::LoadedKey>(ThreadPool&)>& f) {
  try {
    ThreadPool pool;
    return f(pool);
  } catch (const Error& e) {  // unreadable, malformed, a point off the curve, an .r1cs of another circuit
    throw Failure(CUZK_ERR_KEY, e.what());
  }
}

std::vector<cpu::Scalar> witness(const cuzk_key* key, const void* wtns, size_t wtns_len) {
  if (!wtns) throw Failure(CUZK_ERR_ARGUMENT, "wtns is NULL");
  try {
    return api::witness_for(*key->key, {static_cast<const uint8_t*>(wtns), wtns_len}, "witness buffer");
  } catch (const Error& e) {  // not a .wtns, another curve, another count, a value >= r
    throw Failure(CUZK_ERR_INPUT, e.what());
  }
}

void check_outputs(char* proof_json, size_t* proof_json_len, char* public_json, size_t* public_json_len) {
  if (!proof_json || !proof_json_len || !public_json || !public_json_len)
    throw Failure(CUZK_ERR_ARGUMENT, "proof_json, proof_json_len, public_json and public_json_len must not be NULL");
}

// A finished job's proof into the caller's buffers; false (the needed sizes set) when short.
bool put_proof(const engine::JobResult& r, char* proof_json, size_t* proof_json_len, char* public_json,
               size_t* public_json_len, std::string& why) {
  const std::string& proof = r.proofs.at(0).proof_json;
  const std::string& pub = r.proofs.at(0).public_json;
  if (*proof_json_len <= proof.size() || *public_json_len <= pub.size()) {
    why = "the proof needs " + std::to_string(proof.size() + 1) + " bytes (proof_json has " +
          std::to_string(*proof_json_len) + "), its public signals " + std::to_string(pub.size() + 1) +
          " (public_json has " + std::to_string(*public_json_len) + ")";
    *proof_json_len = proof.size() + 1;
    *public_json_len = pub.size() + 1;
    return false;
  }
  std::memcpy(proof_json, proof.c_str(), proof.size() + 1);
  std::memcpy(public_json, pub.c_str(), pub.size() + 1);
  *proof_json_len = proof.size();
  *public_json_len = pub.size();
  return true;
}

// Waits for the job; its proof into the buffers (the job kept when they are short).
void finish(api::KeyedEngine& eng, uint64_t job, char* proof_json, size_t* proof_json_len, char* public_json,
            size_t* public_json_len) {
  engine::JobResult r;
  try {
    r = eng.await(job);
  } catch (const InvalidArgument& e) {
    throw Failure(CUZK_ERR_ARGUMENT, e.what());
  }
  if (r.state == engine::JobState::Done) {
    std::string why;
    if (!put_proof(r, proof_json, proof_json_len, public_json, public_json_len, why))
      throw Failure(CUZK_ERR_SHORT_BUFFER, why);
    eng.forget(job);
    return;
  }
  eng.forget(job);
  if (r.state == engine::JobState::Cancelled)
    throw Failure(CUZK_ERR_CANCELLED, "job " + std::to_string(job) + " was cancelled");
  throw Failure(r.failure == engine::FailureKind::BadInput ? CUZK_ERR_INPUT : CUZK_ERR_DEVICE, api::job_error(r));
}

int verify_status(const api::VerifyError& e) {
  switch (e.part) {
    case api::VerifyError::Part::Key:
      return CUZK_ERR_KEY;
    case api::VerifyError::Part::Public:
      return CUZK_ERR_INPUT;
    default:
      return CUZK_ERR_INVALID_PROOF;
  }
}

std::string_view text(const char* p, size_t n, const char* what) {
  if (!p) throw Failure(CUZK_ERR_ARGUMENT, std::string(what) + " is NULL");
  return {p, n};
}

engine::Priority priority_of(int p) {
  if (p < CUZK_PRIORITY_LOW || p > CUZK_PRIORITY_CRITICAL)
    throw Failure(CUZK_ERR_ARGUMENT, "priority " + std::to_string(p) + " is not one of CUZK_PRIORITY_*");
  return engine::Priority(p);
}

}  // namespace

extern "C" {

int cuzk_key_load_file(const char* zkey_path, const char* r1cs_path, cuzk_key** out, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!zkey_path || !out) throw Failure(CUZK_ERR_ARGUMENT, "zkey_path and out must not be NULL");
    auto k = std::make_unique<cuzk_key>();
    k->key = load([&](ThreadPool& pool) { return api::load_zkey_file(zkey_path, r1cs_path ? r1cs_path : "", pool); });
    *out = k.release();
  });
}

int cuzk_key_load_bytes(const void* zkey, size_t zkey_len, cuzk_key** out, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!zkey || !out) throw Failure(CUZK_ERR_ARGUMENT, "zkey and out must not be NULL");
    auto k = std::make_unique<cuzk_key>();
    k->key = load([&](ThreadPool& pool) {
      return api::load_zkey_bytes({static_cast<const uint8_t*>(zkey), zkey_len}, pool);
    });
    *out = k.release();
  });
}

void cuzk_key_destroy(cuzk_key* key) { delete key; }

int cuzk_key_get_info(const cuzk_key* key, cuzk_key_info* info, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!key || !info) throw Failure(CUZK_ERR_ARGUMENT, "key and info must not be NULL");
    const api::LoadedKey& k = *key->key;
    info->curve = curve_name(k.curve);
    info->n_vars = k.n_vars;
    info->n_public = k.n_public;
    info->log_n = uint32_t(k.log_n);
    info->proof_json_max = api::proof_json_max(k.curve) + 1;
    info->public_json_max = api::public_json_max(k.curve, k.n_public) + 1;
    info->insecure = k.insecure_note.empty() ? 0 : 1;
  });
}

int cuzk_engine_create(const char* devices, cuzk_engine** out, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!out) throw Failure(CUZK_ERR_ARGUMENT, "out is NULL");
    auto e = std::make_unique<cuzk_engine>();
    try {
      e->engine = std::make_unique<api::KeyedEngine>(devices ? devices : "auto");
    } catch (const engine::BadDeviceSpec& x) {
      throw Failure(CUZK_ERR_ARGUMENT, x.what());
    } catch (const Error& x) {  // a device that is not there, or does not open
      throw Failure(CUZK_ERR_DEVICE, x.what());
    }
    *out = e.release();
  });
}

void cuzk_engine_destroy(cuzk_engine* engine) {
  try {
    delete engine;
  } catch (...) {  // the engine's destructor joins its threads; nothing may escape
  }
}

int cuzk_engine_devices(const cuzk_engine* engine, char* buf, size_t buf_len, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!engine || !buf) throw Failure(CUZK_ERR_ARGUMENT, "engine and buf must not be NULL");
    const std::string& names = engine->engine->devices();
    if (buf_len <= names.size())
      throw Failure(CUZK_ERR_SHORT_BUFFER, "the device list needs " + std::to_string(names.size() + 1) +
                                               " bytes, buf has " + std::to_string(buf_len));
    std::memcpy(buf, names.c_str(), names.size() + 1);
  });
}

int cuzk_prove(cuzk_engine* engine, const cuzk_key* key, const void* wtns, size_t wtns_len, char* proof_json,
               size_t* proof_json_len, char* public_json, size_t* public_json_len, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!engine || !key) throw Failure(CUZK_ERR_ARGUMENT, "engine and key must not be NULL");
    check_outputs(proof_json, proof_json_len, public_json, public_json_len);
    api::KeyedEngine& eng = *engine->engine;
    const uint64_t job = eng.submit(key->key, witness(key, wtns, wtns_len), "witness buffer");
    try {
      finish(eng, job, proof_json, proof_json_len, public_json, public_json_len);
    } catch (const Failure& f) {
      if (f.status == CUZK_ERR_SHORT_BUFFER) eng.forget(job);  // nobody awaits it again
      throw;
    }
  });
}

int cuzk_submit(cuzk_engine* engine, const cuzk_key* key, const void* wtns, size_t wtns_len, int priority,
                uint64_t* job, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!engine || !key || !job) throw Failure(CUZK_ERR_ARGUMENT, "engine, key and job must not be NULL");
    const engine::Priority p = priority_of(priority);
    *job = engine->engine->submit(key->key, witness(key, wtns, wtns_len), "witness buffer", p);
  });
}

int cuzk_await(cuzk_engine* engine, uint64_t job, char* proof_json, size_t* proof_json_len, char* public_json,
               size_t* public_json_len, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!engine) throw Failure(CUZK_ERR_ARGUMENT, "engine is NULL");
    check_outputs(proof_json, proof_json_len, public_json, public_json_len);
    finish(*engine->engine, job, proof_json, proof_json_len, public_json, public_json_len);
  });
}

int cuzk_cancel(cuzk_engine* engine, uint64_t job, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!engine) throw Failure(CUZK_ERR_ARGUMENT, "engine is NULL");
    if (!engine->engine->cancel(job))
      throw Failure(CUZK_ERR_ARGUMENT, "job " + std::to_string(job) + " is unknown or has ended");
  });
}

int cuzk_verify(const char* vk_json, size_t vk_json_len, const char* proof_json, size_t proof_json_len,
                const char* public_json, size_t public_json_len, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    try {
      api::verify_json(text(vk_json, vk_json_len, "vk_json"), text(proof_json, proof_json_len, "proof_json"),
                       text(public_json, public_json_len, "public_json"));
    } catch (const api::VerifyError& e) {
      throw Failure(verify_status(e), e.what());
    }
  });
}

int cuzk_key_verify(const cuzk_key* key, const char* proof_json, size_t proof_json_len, const char* public_json,
                    size_t public_json_len, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    if (!key) throw Failure(CUZK_ERR_ARGUMENT, "key is NULL");
    try {
      api::verify_json(*key->key, text(proof_json, proof_json_len, "proof_json"),
                       text(public_json, public_json_len, "public_json"));
    } catch (const api::VerifyError& e) {
      throw Failure(verify_status(e), e.what());
    }
  });
}

const char* cuzk_status_name(int status) {
  switch (status) {
    case CUZK_OK:
      return "CUZK_OK";
    case CUZK_ERR_ARGUMENT:
      return "CUZK_ERR_ARGUMENT";
    case CUZK_ERR_INPUT:
      return "CUZK_ERR_INPUT";
    case CUZK_ERR_KEY:
      return "CUZK_ERR_KEY";
    case CUZK_ERR_SHORT_BUFFER:
      return "CUZK_ERR_SHORT_BUFFER";
    case CUZK_ERR_DEVICE:
      return "CUZK_ERR_DEVICE";
    case CUZK_ERR_INVALID_PROOF:
      return "CUZK_ERR_INVALID_PROOF";
    case CUZK_ERR_MEMORY:
      return "CUZK_ERR_MEMORY";
    case CUZK_ERR_INTERNAL:
      return "CUZK_ERR_INTERNAL";
    case CUZK_ERR_CANCELLED:
      return "CUZK_ERR_CANCELLED";
    default:
      return "CUZK_ERR_UNKNOWN";
  }
}

}  // extern "C"
