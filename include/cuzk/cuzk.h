// SPDX-License-Identifier: MIT OR Apache-2.0
/* cuzk's C interface: Groth16 proofs of snarkjs keys (.zkey, BN254 and BLS12-381) from witness
 * bytes (.wtns), as snarkjs's proof.json and public.json text, on every device of an engine;
 * verification of such proofs.
 *
 *   cuzk_engine_create("auto", &engine, ...)         every GPU of the host, else the CPU
 *   cuzk_key_load_file("circuit.zkey", NULL, &key)   read and checked once
 *   cuzk_prove(engine, key, wtns, wtns_len, proof, &proof_len, pub, &pub_len, ...)
 *   cuzk_key_verify(key, proof, proof_len, pub, pub_len, ...)
 *   cuzk_key_destroy(key); cuzk_engine_destroy(engine);
 *
 * A key is independent of engines: one key may be proved on several engines and one engine
 * proves any number of keys. An engine takes a reference to a key the first time it proves
 * with it and keeps it until the engine is destroyed, so cuzk_key_destroy may come first.
 *
 * Proof outputs. proof_json / public_json are the caller's buffers; *proof_json_len and
 * *public_json_len give their sizes on the way in. On CUZK_OK both texts are written there,
 * NUL-terminated, and the lengths are set to the bytes written (the NUL not counted). When
 * either buffer is too short: CUZK_ERR_SHORT_BUFFER, nothing written to either, and both
 * lengths set to the sizes needed (the NUL counted). cuzk_key_get_info's proof_json_max and
 * public_json_max always suffice.
 *
 * Status codes, messages, ownership and threads: cuzk_status.h. Every function may be called
 * from several threads at once, on the same handles too, except *_destroy. */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_key cuzk_key;
typedef struct cuzk_engine cuzk_engine;

/* ------------------------------------------------------------------ keys */

typedef struct cuzk_key_info {
  const char* curve;      /* "bn254" or "bls12-381" (a static string) */
  uint32_t n_vars;        /* the values a witness holds (ONE included) */
  uint32_t n_public;      /* public signals */
  uint32_t log_n;         /* the domain is 2^log_n rows */
  size_t proof_json_max;  /* a proof buffer of this size always suffices (NUL counted) */
  size_t public_json_max; /* a public buffer of this size always suffices (NUL counted) */
  int insecure;           /* 1 when the key comes from an insecure setup (`cuzk setup --insecure`) */
} cuzk_key_info;

/* Reads the .zkey at zkey_path and checks it (structure, every point on its curve). r1cs_path:
 * NULL, or the circuit's .r1cs, against whose constraints every witness is then checked before
 * it is proved. Errors: CUZK_ERR_KEY naming the file and the problem. */
int cuzk_key_load_file(const char* zkey_path, const char* r1cs_path, cuzk_key** out, char* err, size_t err_len);

/* The same from the bytes of a .zkey, read during the call only. */
int cuzk_key_load_bytes(const void* zkey, size_t zkey_len, cuzk_key** out, char* err, size_t err_len);

/* Frees the caller's reference to the key. NULL is a no-op. */
void cuzk_key_destroy(cuzk_key* key);

int cuzk_key_get_info(const cuzk_key* key, cuzk_key_info* info, char* err, size_t err_len);

/* ------------------------------------------------------------------ engines */

/* Starts an engine on `devices`, as cuzk's --devices takes them: "auto" (or NULL: every GPU,
 * else the CPU), "all" (every GPU), "cpu", "gpu:0,gpu:1", with "@SIZE" (a memory budget per
 * device) and "*W" (workers per device) at the end. Errors: CUZK_ERR_ARGUMENT (a malformed
 * list), CUZK_ERR_DEVICE (a device that is absent or fails to open). */
int cuzk_engine_create(const char* devices, cuzk_engine** out, char* err, size_t err_len);

/* Stops the engine: jobs not yet awaited are cancelled; waits for its threads. NULL: a no-op. */
void cuzk_engine_destroy(cuzk_engine* engine);

/* The engine's devices ("gpu:0,gpu:1", "cpu") into buf, NUL-terminated (CUZK_ERR_SHORT_BUFFER
 * when buf_len is not enough). */
int cuzk_engine_devices(const cuzk_engine* engine, char* buf, size_t buf_len, char* err, size_t err_len);

/* ------------------------------------------------------------------ proving */

/* Proves the witness (the bytes of a .wtns file) with `key` on the engine and waits for the
 * proof, which is verified before it is returned. Errors: CUZK_ERR_INPUT (not a .wtns, another
 * curve, a count of values other than the key's, a value >= r, an unsatisfied constraint when
 * the key has its .r1cs), CUZK_ERR_SHORT_BUFFER, CUZK_ERR_DEVICE. */
int cuzk_prove(cuzk_engine* engine, const cuzk_key* key, const void* wtns, size_t wtns_len, char* proof_json,
               size_t* proof_json_len, char* public_json, size_t* public_json_len, char* err, size_t err_len);

#define CUZK_PRIORITY_LOW 0
#define CUZK_PRIORITY_NORMAL 1
#define CUZK_PRIORITY_HIGH 2
#define CUZK_PRIORITY_CRITICAL 3

/* Checks the witness as cuzk_prove does, copies it, queues its proof and stores the job's id
 * in *job; returns without waiting. Jobs run at once on every device of the engine, higher
 * priorities first. */
int cuzk_submit(cuzk_engine* engine, const cuzk_key* key, const void* wtns, size_t wtns_len, int priority,
                uint64_t* job, char* err, size_t err_len);

/* Waits for the job to end and writes its proof as cuzk_prove does. The engine forgets the job
 * once it has returned CUZK_OK or the job's failure; after CUZK_ERR_SHORT_BUFFER it keeps the
 * proof, and the call may be repeated with larger buffers. Errors: as cuzk_prove's, and
 * CUZK_ERR_ARGUMENT for a job this engine does not know, CUZK_ERR_CANCELLED. */
int cuzk_await(cuzk_engine* engine, uint64_t job, char* proof_json, size_t* proof_json_len, char* public_json,
               size_t* public_json_len, char* err, size_t err_len);

/* Cancels a job that has not ended (its await then returns CUZK_ERR_CANCELLED). CUZK_ERR_ARGUMENT
 * when the job is unknown or has already ended. */
int cuzk_cancel(cuzk_engine* engine, uint64_t job, char* err, size_t err_len);

/* ------------------------------------------------------------------ verifying */

/* Verifies a proof.json and public.json against a verification_key.json (each text of the given
 * length, NUL not needed), with cuzk's checks: every point on its curve and in its subgroup,
 * coordinates < q, exactly nPublic public signals, each < r. CUZK_OK when it verifies;
 * CUZK_ERR_INVALID_PROOF when the proof is malformed or does not verify; CUZK_ERR_KEY for a bad
 * key; CUZK_ERR_INPUT for bad public signals. */
int cuzk_verify(const char* vk_json, size_t vk_json_len, const char* proof_json, size_t proof_json_len,
                const char* public_json, size_t public_json_len, char* err, size_t err_len);

/* The same with the verifying part of a loaded key. */
int cuzk_key_verify(const cuzk_key* key, const char* proof_json, size_t proof_json_len, const char* public_json,
                    size_t public_json_len, char* err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_H */
