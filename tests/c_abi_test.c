// SPDX-License-Identifier: MIT OR Apache-2.0
/* cuzk's C interfaces from C: rapidsnark.h and cuzk.h prove a BN254 fixture from buffers (cuzk.h
 * a BLS12-381 one too); each proof's public.json equals snarkjs's, and cuzk's verifier accepts
 * it (a tampered one it refuses). Then the refusals: buffers too short (nothing written, the
 * sizes needed given back), a witness of another circuit (PROVER_INVALID_WITNESS_LENGTH,
 * CUZK_ERR_INPUT), a key that is not one, a device list that is not one, an unknown job.
 * The proofs are written to OUT_DIR as case lines for snarkjs (tests/snarkjs/verify-many.mjs).
 * The devices: $CUZK_DEVICES ("auto" by default: every GPU, else the CPU).
 *
 *   c_abi_test BN254_FIXTURE_DIR OTHER_BN254_FIXTURE_DIR BLS12_381_FIXTURE_DIR OUT_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"
#include "cuzk/rapidsnark.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                           \
  do {                                             \
    ++checks;                                      \
    if (!(cond)) {                                 \
      fprintf(stderr, "FAIL line %d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                \
      fprintf(stderr, "\n");                       \
      ++failures;                                  \
    }                                              \
  } while (0)

typedef struct bytes {
  char* p;
  size_t n;
} bytes;

static bytes slurp(const char* dir, const char* name) {
  char path[4096];
  bytes b;
  FILE* f;
  long n;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fprintf(stderr, "%s: cannot read\n", path);
    exit(2);
  }
  b.n = (size_t)n;
  b.p = malloc(b.n + 1);
  if (!b.p || fread(b.p, 1, b.n, f) != b.n) {
    fprintf(stderr, "%s: short read\n", path);
    exit(2);
  }
  b.p[b.n] = '\0';
  fclose(f);
  return b;
}

static const char* out_dir;
static FILE* cases;

/* Writes a proof and its public signals to OUT_DIR and a snarkjs case line for them. */
static void keep(const char* name, const char* vk_dir, const char* proof, const char* pub, const char* expect) {
  char p1[4096], p2[4096];
  FILE* f;
  snprintf(p1, sizeof p1, "%s/%s.proof.json", out_dir, name);
  snprintf(p2, sizeof p2, "%s/%s.public.json", out_dir, name);
  f = fopen(p1, "wb");
  if (!f || fputs(proof, f) < 0 || fclose(f) != 0) exit(2);
  f = fopen(p2, "wb");
  if (!f || fputs(pub, f) < 0 || fclose(f) != 0) exit(2);
  fprintf(cases, "%s/verification_key.json %s %s %s\n", vk_dir, p2, p1, expect);
}

/* A copy of the proof with the last digit of pi_a's x changed. */
static char* tampered(const char* proof) {
  char* t = malloc(strlen(proof) + 1);
  char* q;
  strcpy(t, proof);
  q = strstr(t, "\"pi_a\"");
  q = q ? strchr(q + 6, '"') : NULL; /* the opening quote of x */
  q = q ? strchr(q + 1, '"') : NULL; /* its closing quote */
  if (!q) {
    fprintf(stderr, "no pi_a in %s\n", proof);
    exit(2);
  }
  q[-1] = q[-1] == '1' ? '2' : '1';
  return t;
}

static void check_rapidsnark(const char* dir, const char* other_dir, const char* bls_dir) {
  bytes zkey = slurp(dir, "circuit.zkey"), wtns = slurp(dir, "witness.wtns"), wtns2 = slurp(dir, "witness2.wtns");
  bytes pub1 = slurp(dir, "public.json"), pub2 = slurp(dir, "public2.json");
  bytes vk = slurp(dir, "verification_key.json"), other = slurp(other_dir, "witness.wtns");
  bytes bls = slurp(bls_dir, "circuit.zkey");
  char zkey_path[4096], msg[512], err[512];
  unsigned long long proof_cap = 0, public_cap = 0, public_cap_file = 0, ps, us;
  char *proof, *pub;
  void* prover = NULL;
  int st, i;
  snprintf(zkey_path, sizeof zkey_path, "%s/circuit.zkey", dir);

  groth16_proof_size(&proof_cap);
  CHECK(proof_cap == 810, "groth16_proof_size gave %llu, rapidsnark's is 810", proof_cap);
  st = groth16_public_size_for_zkey_buf(zkey.p, zkey.n, &public_cap, msg, sizeof msg);
  CHECK(st == PROVER_OK, "public size (buffer): %d %s", st, msg);
  st = groth16_public_size_for_zkey_file(zkey_path, &public_cap_file, msg, sizeof msg);
  CHECK(st == PROVER_OK && public_cap_file == public_cap, "public size (file): %d, %llu vs %llu: %s", st,
        public_cap_file, public_cap, msg);
  CHECK(public_cap >= pub1.n + 1, "public size %llu is less than snarkjs's public.json (%zu bytes)", public_cap,
        pub1.n);
  proof = malloc(proof_cap);
  pub = malloc(public_cap);

  /* One call, buffers of the sizes the interface gives. */
  ps = proof_cap, us = public_cap;
  strcpy(msg, "untouched");
  st = groth16_prover(zkey.p, zkey.n, wtns.p, wtns.n, proof, &ps, pub, &us, msg, sizeof msg);
  CHECK(st == PROVER_OK, "groth16_prover: %d %s", st, msg);
  CHECK(strcmp(msg, "untouched") == 0, "error_msg written on success: %s", msg);
  CHECK(ps == strlen(proof) && us == strlen(pub), "sizes written back %llu %llu, texts %zu %zu", ps, us, strlen(proof),
        strlen(pub));
  CHECK(strcmp(pub, pub1.p) == 0, "public signals differ from snarkjs's public.json:\n%s\n%s", pub, pub1.p);
  st = cuzk_verify(vk.p, vk.n, proof, ps, pub, us, err, sizeof err);
  CHECK(st == CUZK_OK, "cuzk_verify of groth16_prover's proof: %s %s", cuzk_status_name(st), err);
  keep("rapidsnark-prover", dir, proof, pub, "valid");
  {
    char* bad = tampered(proof);
    st = cuzk_verify(vk.p, vk.n, bad, strlen(bad), pub, us, err, sizeof err);
    CHECK(st == CUZK_ERR_INVALID_PROOF, "a tampered proof: %s %s", cuzk_status_name(st), err);
    keep("rapidsnark-tampered", dir, bad, pub, "invalid");
    free(bad);
  }

  /* A too-short proof buffer: nothing written, both sizes needed written back. */
  memset(proof, 'x', proof_cap);
  memset(pub, 'x', public_cap);
  ps = 100, us = public_cap;
  st = groth16_prover_zkey_file(zkey_path, wtns.p, wtns.n, proof, &ps, pub, &us, msg, sizeof msg);
  CHECK(st == PROVER_ERROR_SHORT_BUFFER, "short proof buffer: %d %s", st, msg);
  CHECK(ps > 100 && ps <= proof_cap, "proof size needed %llu", ps);
  CHECK(us == pub1.n + 1, "public size needed %llu, expected %zu", us, pub1.n + 1);
  CHECK(proof[0] == 'x' && pub[0] == 'x', "a buffer was written on PROVER_ERROR_SHORT_BUFFER");
  CHECK(strstr(msg, "Buffer insufficient") != NULL, "short buffer message: %s", msg);
  /* ... and with groth16_proof_size's size it succeeds (each call draws a new proof, whose
   * length differs by a few digits: the size given back is that of the proof not returned). */
  ps = proof_cap;
  st = groth16_prover_zkey_file(zkey_path, wtns.p, wtns.n, proof, &ps, pub, &us, msg, sizeof msg);
  CHECK(st == PROVER_OK, "with groth16_proof_size's size: %d %s", st, msg);
  /* A too-short public buffer. */
  ps = proof_cap, us = 3;
  st = groth16_prover_zkey_file(zkey_path, wtns.p, wtns.n, proof, &ps, pub, &us, msg, sizeof msg);
  CHECK(st == PROVER_ERROR_SHORT_BUFFER && us == pub1.n + 1 && ps <= proof_cap, "short public buffer: %d %llu %s", st,
        us, msg);

  /* A prover object: one key, many proofs. */
  st = groth16_prover_create(&prover, zkey.p, zkey.n, msg, sizeof msg);
  CHECK(st == PROVER_OK && prover != NULL, "groth16_prover_create: %d %s", st, msg);
  for (i = 0; prover && i < 2; ++i) {
    const bytes* w = i == 0 ? &wtns : &wtns2;
    const bytes* want = i == 0 ? &pub1 : &pub2;
    ps = proof_cap, us = public_cap;
    st = groth16_prover_prove(prover, w->p, w->n, proof, &ps, pub, &us, msg, sizeof msg);
    CHECK(st == PROVER_OK, "groth16_prover_prove %d: %d %s", i, st, msg);
    CHECK(strcmp(pub, want->p) == 0, "proof %d: public signals differ from snarkjs's", i);
    st = cuzk_verify(vk.p, vk.n, proof, ps, pub, us, err, sizeof err);
    CHECK(st == CUZK_OK, "cuzk_verify of prover object proof %d: %s %s", i, cuzk_status_name(st), err);
    keep(i == 0 ? "rapidsnark-object-1" : "rapidsnark-object-2", dir, proof, pub, "valid");
  }
  /* The second proof with the first's public signals does not verify. */
  st = cuzk_verify(vk.p, vk.n, proof, ps, pub1.p, pub1.n, err, sizeof err);
  CHECK(st == CUZK_ERR_INVALID_PROOF, "a proof with another witness's public signals: %s", cuzk_status_name(st));
  /* A witness of another circuit. */
  msg[0] = '\0';
  ps = proof_cap, us = public_cap;
  st = groth16_prover_prove(prover, other.p, other.n, proof, &ps, pub, &us, msg, sizeof msg);
  CHECK(st == PROVER_INVALID_WITNESS_LENGTH, "another circuit's witness: %d %s", st, msg);
  CHECK(strstr(msg, "values") != NULL, "witness length message: %s", msg);
  /* Truncated witness bytes: an error, not a crash. */
  st = groth16_prover_prove(prover, wtns.p, 40, proof, &ps, pub, &us, msg, sizeof msg);
  CHECK(st == PROVER_ERROR && msg[0] != '\0', "a truncated witness: %d %s", st, msg);
  st = groth16_prover_prove(NULL, wtns.p, wtns.n, proof, &ps, pub, &us, msg, sizeof msg);
  CHECK(st == PROVER_ERROR && strcmp(msg, "Null prover object") == 0, "NULL prover object: %d %s", st, msg);
  groth16_prover_destroy(prover);
  groth16_prover_destroy(NULL);

  /* Keys that rapidsnark's interface does not take. */
  prover = NULL;
  st = groth16_prover_create(&prover, wtns.p, wtns.n, msg, sizeof msg);
  CHECK(st == PROVER_ERROR && prover == NULL && msg[0], "a .wtns as the key: %d %s", st, msg);
  st = groth16_prover_create(&prover, bls.p, bls.n, msg, sizeof msg);
  CHECK(st == PROVER_ERROR && prover == NULL && strstr(msg, "not supported"), "a BLS12-381 key: %d %s", st, msg);
  st = groth16_prover_create_zkey_file(&prover, "/nonexistent/circuit.zkey", msg, 8);
  CHECK(st == PROVER_ERROR && strlen(msg) == 7, "a missing file, message truncated to 7: %d '%s'", st, msg);

  free(proof), free(pub);
  free(zkey.p), free(wtns.p), free(wtns2.p), free(pub1.p), free(pub2.p), free(vk.p), free(other.p), free(bls.p);
}

/* cuzk.h on one fixture: engine, key from bytes and from the file, prove, submit/await, verify. */
static void check_cuzk(cuzk_engine* engine, const char* dir, const char* other_dir, const char* curve,
                       const char* tag) {
  bytes zkey = slurp(dir, "circuit.zkey"), wtns = slurp(dir, "witness.wtns"), wtns2 = slurp(dir, "witness2.wtns");
  bytes pub1 = slurp(dir, "public.json"), pub2 = slurp(dir, "public2.json");
  bytes vk = slurp(dir, "verification_key.json"), other = slurp(other_dir, "witness.wtns");
  char path[4096], r1cs[4096], err[512], name[64];
  cuzk_key *key = NULL, *key_file = NULL;
  cuzk_key_info info;
  size_t ps, us;
  char *proof, *pub;
  uint64_t jobs[2];
  int st, i;

  st = cuzk_key_load_bytes(zkey.p, zkey.n, &key, err, sizeof err);
  CHECK(st == CUZK_OK && key, "%s: cuzk_key_load_bytes: %s %s", tag, cuzk_status_name(st), err);
  if (!key) exit(1);
  st = cuzk_key_get_info(key, &info, err, sizeof err);
  CHECK(st == CUZK_OK && strcmp(info.curve, curve) == 0, "%s: info: %s curve %s", tag, cuzk_status_name(st),
        info.curve);
  CHECK(info.public_json_max >= pub1.n + 1 && info.insecure == 0, "%s: public_json_max %zu, insecure %d", tag,
        info.public_json_max, info.insecure);
  proof = malloc(info.proof_json_max);
  pub = malloc(info.public_json_max);

  ps = info.proof_json_max, us = info.public_json_max;
  st = cuzk_prove(engine, key, wtns.p, wtns.n, proof, &ps, pub, &us, err, sizeof err);
  CHECK(st == CUZK_OK && err[0] == '\0', "%s: cuzk_prove: %s %s", tag, cuzk_status_name(st), err);
  CHECK(ps == strlen(proof) && us == strlen(pub), "%s: lengths %zu %zu", tag, ps, us);
  CHECK(strcmp(pub, pub1.p) == 0, "%s: public signals differ from snarkjs's", tag);
  st = cuzk_key_verify(key, proof, ps, pub, us, err, sizeof err);
  CHECK(st == CUZK_OK, "%s: cuzk_key_verify: %s %s", tag, cuzk_status_name(st), err);
  st = cuzk_verify(vk.p, vk.n, proof, ps, pub, us, err, sizeof err);
  CHECK(st == CUZK_OK, "%s: cuzk_verify: %s %s", tag, cuzk_status_name(st), err);
  snprintf(name, sizeof name, "cuzk-%s-prove", tag);
  keep(name, dir, proof, pub, "valid");
  st = cuzk_key_verify(key, proof, ps, pub2.p, pub2.n, err, sizeof err);
  CHECK(st == CUZK_ERR_INVALID_PROOF, "%s: another witness's public signals: %s", tag, cuzk_status_name(st));
  st = cuzk_verify(vk.p, 10, proof, ps, pub, us, err, sizeof err);
  CHECK(st == CUZK_ERR_KEY, "%s: a truncated verification key: %s %s", tag, cuzk_status_name(st), err);

  /* Too short: nothing written, the sizes needed given back. */
  memset(proof, 'x', info.proof_json_max);
  ps = 5, us = info.public_json_max;
  st = cuzk_prove(engine, key, wtns.p, wtns.n, proof, &ps, pub, &us, err, sizeof err);
  CHECK(st == CUZK_ERR_SHORT_BUFFER, "%s: short buffer: %s %s", tag, cuzk_status_name(st), err);
  CHECK(ps > 5 && ps <= info.proof_json_max && us == pub1.n + 1 && proof[0] == 'x',
        "%s: short buffer: sizes %zu %zu, first byte %c", tag, ps, us, proof[0]);
  /* A witness of another circuit. */
  ps = info.proof_json_max, us = info.public_json_max;
  st = cuzk_prove(engine, key, other.p, other.n, proof, &ps, pub, &us, err, sizeof err);
  CHECK(st == CUZK_ERR_INPUT && strstr(err, "values"), "%s: another circuit's witness: %s %s", tag,
        cuzk_status_name(st), err);

  /* The key from its file with its .r1cs; two jobs in flight, awaited in reverse. */
  snprintf(path, sizeof path, "%s/circuit.zkey", dir);
  snprintf(r1cs, sizeof r1cs, "%s/circuit.r1cs", dir);
  st = cuzk_key_load_file(path, r1cs, &key_file, err, sizeof err);
  CHECK(st == CUZK_OK, "%s: cuzk_key_load_file: %s %s", tag, cuzk_status_name(st), err);
  if (!key_file) exit(1);
  st = cuzk_submit(engine, key_file, wtns.p, wtns.n, CUZK_PRIORITY_NORMAL, &jobs[0], err, sizeof err);
  CHECK(st == CUZK_OK, "%s: submit 1: %s %s", tag, cuzk_status_name(st), err);
  st = cuzk_submit(engine, key_file, wtns2.p, wtns2.n, CUZK_PRIORITY_HIGH, &jobs[1], err, sizeof err);
  CHECK(st == CUZK_OK, "%s: submit 2: %s %s", tag, cuzk_status_name(st), err);
  cuzk_key_destroy(key_file); /* the engine keeps its own reference */
  for (i = 1; i >= 0; --i) {
    ps = 1, us = 1; /* first too short: the job is kept */
    st = cuzk_await(engine, jobs[i], proof, &ps, pub, &us, err, sizeof err);
    CHECK(st == CUZK_ERR_SHORT_BUFFER, "%s: await %d short: %s %s", tag, i, cuzk_status_name(st), err);
    st = cuzk_await(engine, jobs[i], proof, &ps, pub, &us, err, sizeof err);
    CHECK(st == CUZK_OK, "%s: await %d with the sizes given back: %s %s", tag, i, cuzk_status_name(st), err);
    CHECK(strcmp(pub, (i == 0 ? pub1 : pub2).p) == 0, "%s: job %d: public signals differ", tag, i);
    st = cuzk_key_verify(key, proof, ps, pub, us, err, sizeof err);
    CHECK(st == CUZK_OK, "%s: job %d does not verify: %s %s", tag, i, cuzk_status_name(st), err);
    snprintf(name, sizeof name, "cuzk-%s-job-%d", tag, i);
    keep(name, dir, proof, pub, "valid");
    st = cuzk_await(engine, jobs[i], proof, &ps, pub, &us, err, sizeof err);
    CHECK(st == CUZK_ERR_ARGUMENT, "%s: await of a job already taken: %s", tag, cuzk_status_name(st));
  }
  st = cuzk_submit(engine, key, wtns.p, wtns.n, 7, &jobs[0], err, sizeof err);
  CHECK(st == CUZK_ERR_ARGUMENT, "%s: priority 7: %s", tag, cuzk_status_name(st));

  cuzk_key_destroy(key);
  free(proof), free(pub);
  free(zkey.p), free(wtns.p), free(wtns2.p), free(pub1.p), free(pub2.p), free(vk.p), free(other.p);
}

int main(int argc, char** argv) {
  const char* devices = getenv("CUZK_DEVICES");
  char cases_path[4096], err[512], names[256];
  cuzk_engine *engine = NULL, *bad = NULL;
  cuzk_key* key = NULL;
  int st;
  if (argc != 5) {
    fprintf(stderr, "usage: c_abi_test BN254_DIR OTHER_BN254_DIR BLS12_381_DIR OUT_DIR\n");
    return 2;
  }
  out_dir = argv[4];
  snprintf(cases_path, sizeof cases_path, "%s/cases.txt", out_dir);
  cases = fopen(cases_path, "w");
  if (!cases) return 2;

  check_rapidsnark(argv[1], argv[2], argv[3]);

  st = cuzk_engine_create(devices && *devices ? devices : "auto", &engine, err, sizeof err);
  CHECK(st == CUZK_OK && engine, "cuzk_engine_create: %s %s", cuzk_status_name(st), err);
  if (!engine) return 1;
  st = cuzk_engine_devices(engine, names, sizeof names, err, sizeof err);
  CHECK(st == CUZK_OK && names[0], "cuzk_engine_devices: %s %s", cuzk_status_name(st), err);
  printf("engine on %s\n", names);
  st = cuzk_engine_devices(engine, names, 1, err, sizeof err);
  CHECK(st == CUZK_ERR_SHORT_BUFFER, "cuzk_engine_devices into 1 byte: %s", cuzk_status_name(st));
  check_cuzk(engine, argv[1], argv[2], "bn254", "bn254");
  check_cuzk(engine, argv[3], argv[2], "bls12-381", "bls12-381");

  st = cuzk_engine_create("gpu:x", &bad, err, sizeof err);
  CHECK(st == CUZK_ERR_ARGUMENT && bad == NULL && err[0], "devices 'gpu:x': %s %s", cuzk_status_name(st), err);
  st = cuzk_key_load_bytes("zkey", 4, &key, err, sizeof err);
  CHECK(st == CUZK_ERR_KEY && key == NULL && err[0], "4 bytes as a key: %s %s", cuzk_status_name(st), err);
  st = cuzk_key_load_file("/nonexistent.zkey", NULL, &key, err, sizeof err);
  CHECK(st == CUZK_ERR_KEY && strstr(err, "/nonexistent.zkey"), "a missing key file: %s %s", cuzk_status_name(st), err);
  st = cuzk_cancel(engine, 999999, err, sizeof err);
  CHECK(st == CUZK_ERR_ARGUMENT, "cancel of an unknown job: %s", cuzk_status_name(st));
  st = cuzk_prove(NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0);
  CHECK(st == CUZK_ERR_ARGUMENT, "NULL everything: %s", cuzk_status_name(st));
  CHECK(strcmp(cuzk_status_name(CUZK_ERR_CANCELLED), "CUZK_ERR_CANCELLED") == 0, "status name");
  cuzk_engine_destroy(engine);
  cuzk_engine_destroy(NULL);
  cuzk_key_destroy(NULL);

  fclose(cases);
  printf("c_abi_test: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
