// SPDX-License-Identifier: MIT OR Apache-2.0
/* The bellperson C ABI (include/cuzk/bellperson.h) from C: two circuits proved in one call on the
 * device of $CUZK_BP_DEVICE (cpu by default; gpu:0 on a GPU host), each proof equal to the one
 * `cuzk prove --seed` made for the same r, s and accepted by cuzk_bp_verify; then the refusals:
 * a flipped proof byte, a short output buffer, a cleared density bit, an unsatisfied row, a
 * .vk given as .params, and destroy(NULL).
 *
 *   bellperson_abi_test KEY.params KEY.vk ASSIGN_1 ASSIGN_2 PROOF_1.bin PROOF_2.bin
 *
 * ASSIGN_i: tests/bellperson_abi_data.cpp's files; PROOF_i.bin: `cuzk prove --proof-bin`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/bellperson.h"

static int failures = 0;

#define CHECK(cond, ...)                           \
  do {                                             \
    if (!(cond)) {                                 \
      fprintf(stderr, "FAIL line %d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                \
      fprintf(stderr, "\n");                       \
      ++failures;                                  \
    }                                              \
  } while (0)

typedef struct assignment {
  uint64_t n_rows, n_inputs, n_aux;
  uint8_t *a, *b, *c, *inputs, *aux, *r, *s;
  uint64_t *a_aux, *b_inp, *b_aux;
} assignment;

static void* take(FILE* f, size_t n, const char* path) {
  void* p = malloc(n ? n : 1);
  if (!p || fread(p, 1, n, f) != n) {
    fprintf(stderr, "%s: short file\n", path);
    exit(1);
  }
  return p;
}

static assignment read_assignment(const char* path) {
  assignment x;
  uint64_t head[3];
  FILE* f = fopen(path, "rb");
  if (!f || fread(head, 8, 3, f) != 3) {
    fprintf(stderr, "%s: cannot read\n", path);
    exit(1);
  }
  x.n_rows = head[0], x.n_inputs = head[1], x.n_aux = head[2];
  x.a = take(f, x.n_rows * 32, path);
  x.b = take(f, x.n_rows * 32, path);
  x.c = take(f, x.n_rows * 32, path);
  x.inputs = take(f, x.n_inputs * 32, path);
  x.aux = take(f, x.n_aux * 32, path);
  x.a_aux = take(f, (x.n_aux + 63) / 64 * 8, path);
  x.b_inp = take(f, (x.n_inputs + 63) / 64 * 8, path);
  x.b_aux = take(f, (x.n_aux + 63) / 64 * 8, path);
  x.r = take(f, 32, path);
  x.s = take(f, 32, path);
  fclose(f);
  return x;
}

static cuzk_bp_circuit circuit_of(const assignment* x) {
  cuzk_bp_circuit c;
  c.a = x->a, c.b = x->b, c.c = x->c, c.n_rows = x->n_rows;
  c.inputs = x->inputs, c.n_inputs = x->n_inputs;
  c.aux = x->aux, c.n_aux = x->n_aux;
  c.a_aux_density = x->a_aux, c.a_aux_bits = x->n_aux;
  c.b_input_density = x->b_inp, c.b_input_bits = x->n_inputs;
  c.b_aux_density = x->b_aux, c.b_aux_bits = x->n_aux;
  c.r = x->r, c.s = x->s;
  return c;
}

static void read_exact(const char* path, uint8_t* out, size_t n) {
  FILE* f = fopen(path, "rb");
  if (!f || fread(out, 1, n, f) != n || fgetc(f) != EOF) {
    fprintf(stderr, "%s: not %zu bytes\n", path, n);
    exit(1);
  }
  fclose(f);
}

int main(int argc, char** argv) {
  char err[512];
  const char* device = getenv("CUZK_BP_DEVICE");
  cuzk_bp_prover *prover = NULL, *fresh = NULL, *none = NULL;
  assignment x[2];
  cuzk_bp_circuit c[2], bad;
  uint8_t proofs[2 * CUZK_BP_PROOF_BYTES], expected[CUZK_BP_PROOF_BYTES], flipped[CUZK_BP_PROOF_BYTES];
  uint64_t* density;
  uint8_t* rows;
  size_t i, words, row;
  int st;
  if (argc != 7) {
    fprintf(stderr, "usage: bellperson_abi_test KEY.params KEY.vk ASSIGN_1 ASSIGN_2 PROOF_1.bin PROOF_2.bin\n");
    return 2;
  }
  if (!device) device = "cpu";
  x[0] = read_assignment(argv[3]);
  x[1] = read_assignment(argv[4]);
  c[0] = circuit_of(&x[0]);
  c[1] = circuit_of(&x[1]);

  cuzk_bp_prover_destroy(NULL); /* a no-op */

  st = cuzk_bp_prover_create(argv[2], device, 0, &none, err, sizeof err);
  CHECK(st == CUZK_ERR_KEY && none == NULL, "a .vk as the .params: %s (%s)", cuzk_status_name(st), err);

  st = cuzk_bp_prover_create(argv[1], device, 0, &prover, err, sizeof err);
  if (st != CUZK_OK) {
    fprintf(stderr, "FAIL: create on %s: %s: %s\n", device, cuzk_status_name(st), err);
    return 1;
  }

  /* A buffer one byte short: refused before any work, naming the size needed. */
  st = cuzk_bp_prove(prover, c, 2, proofs, sizeof proofs - 1, err, sizeof err);
  CHECK(st == CUZK_ERR_SHORT_BUFFER && strstr(err, "384"), "short buffer: %s (%s)", cuzk_status_name(st), err);

  /* Two circuits, one call: the proofs of `cuzk prove --seed` for the same r, s. */
  st = cuzk_bp_prove(prover, c, 2, proofs, sizeof proofs, err, sizeof err);
  CHECK(st == CUZK_OK && err[0] == '\0', "prove: %s (%s)", cuzk_status_name(st), err);
  for (i = 0; i < 2 && st == CUZK_OK; ++i) {
    read_exact(argv[5 + i], expected, sizeof expected);
    CHECK(memcmp(proofs + i * CUZK_BP_PROOF_BYTES, expected, sizeof expected) == 0, "proof %zu differs from %s", i,
          argv[5 + i]);
    st = cuzk_bp_verify(argv[2], x[i].inputs + 32, x[i].n_inputs - 1, proofs + i * CUZK_BP_PROOF_BYTES, 0, err,
                        sizeof err);
    CHECK(st == CUZK_OK, "verify proof %zu: %s (%s)", i, cuzk_status_name(st), err);
  }

  /* A proof with one byte flipped is refused (it does not decode, or does not verify). */
  memcpy(flipped, proofs, sizeof flipped);
  flipped[100] ^= 0x01;
  st = cuzk_bp_verify(argv[2], x[0].inputs + 32, x[0].n_inputs - 1, flipped, 0, err, sizeof err);
  CHECK(st == CUZK_ERR_INVALID_PROOF && err[0], "flipped byte: %s (%s)", cuzk_status_name(st), err);
  /* So is a proof with another circuit's public inputs, where they differ. */
  if (memcmp(x[0].inputs, x[1].inputs, x[0].n_inputs * 32) != 0) {
    st = cuzk_bp_verify(argv[2], x[1].inputs + 32, x[1].n_inputs - 1, proofs, 0, err, sizeof err);
    CHECK(st == CUZK_ERR_INVALID_PROOF, "other inputs: %s (%s)", cuzk_status_name(st), err);
  }

  /* A density with one set bit cleared: refused after the first call (its shape differs), and on
   * a fresh prover's first call (the count of section a). */
  words = (x[0].n_aux + 63) / 64;
  density = malloc(words * 8);
  memcpy(density, x[0].a_aux, words * 8);
  for (i = 0; i < x[0].n_aux && !((density[i / 64] >> (i % 64)) & 1); ++i) {
  }
  CHECK(i < x[0].n_aux, "no aux value is in A");
  density[i / 64] &= ~((uint64_t)1 << (i % 64));
  bad = c[0];
  bad.a_aux_density = density;
  st = cuzk_bp_prove(prover, &bad, 1, proofs, sizeof proofs, err, sizeof err);
  CHECK(st == CUZK_ERR_INPUT && strstr(err, "a_aux_density"), "cleared density bit: %s (%s)", cuzk_status_name(st),
        err);
  printf("cleared density bit: %s: %s\n", cuzk_status_name(st), err);
  st = cuzk_bp_prover_create(argv[1], device, 0, &fresh, err, sizeof err);
  CHECK(st == CUZK_OK, "create: %s (%s)", cuzk_status_name(st), err);
  st = cuzk_bp_prove(fresh, &bad, 1, proofs, sizeof proofs, err, sizeof err);
  CHECK(st == CUZK_ERR_INPUT && strstr(err, "section a "), "cleared density bit, first call: %s (%s)",
        cuzk_status_name(st), err);
  printf("cleared density bit, first call: %s: %s\n", cuzk_status_name(st), err);
  cuzk_bp_prover_destroy(fresh);
  free(density);

  /* A row that does not hold: c[3] changed. */
  row = 3;
  rows = malloc(x[0].n_rows * 32);
  memcpy(rows, x[0].c, x[0].n_rows * 32);
  rows[row * 32] ^= 0x01;
  bad = c[0];
  bad.c = rows;
  c[1] = bad;
  c[0] = circuit_of(&x[1]);
  st = cuzk_bp_prove(prover, c, 2, proofs, sizeof proofs, err, sizeof err);
  CHECK(st == CUZK_ERR_INPUT && strstr(err, "circuit 1: row 3 "), "unsatisfied row: %s (%s)", cuzk_status_name(st),
        err);
  printf("unsatisfied row: %s: %s\n", cuzk_status_name(st), err);
  free(rows);

  /* ONE must be 1. */
  rows = malloc(x[0].n_inputs * 32);
  memcpy(rows, x[0].inputs, x[0].n_inputs * 32);
  rows[0] ^= 0x02;
  bad = circuit_of(&x[0]);
  bad.inputs = rows;
  st = cuzk_bp_prove(prover, &bad, 1, proofs, sizeof proofs, err, sizeof err);
  CHECK(st == CUZK_ERR_INPUT && strstr(err, "inputs[0]"), "inputs[0] != 1: %s (%s)", cuzk_status_name(st), err);
  free(rows);

  /* The prover still proves after the refusals. */
  c[0] = circuit_of(&x[0]);
  st = cuzk_bp_prove(prover, c, 1, proofs, CUZK_BP_PROOF_BYTES, err, sizeof err);
  read_exact(argv[5], expected, sizeof expected);
  CHECK(st == CUZK_OK && memcmp(proofs, expected, sizeof expected) == 0, "prove again: %s (%s)", cuzk_status_name(st),
        err);

  cuzk_bp_prover_destroy(prover);
  if (failures) {
    fprintf(stderr, "bellperson_abi_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("bellperson_abi_test: all checks passed on %s (%llu rows, %llu inputs, %llu aux)\n", device,
         (unsigned long long)x[0].n_rows, (unsigned long long)x[0].n_inputs, (unsigned long long)x[0].n_aux);
  return 0;
}
