// SPDX-License-Identifier: MIT OR Apache-2.0
/* A program of another project using the installed cuzk: proves DIR/witness.wtns with
 * DIR/circuit.zkey through rapidsnark.h's groth16_prover_zkey_file, verifies the proof with
 * cuzk.h's cuzk_verify against DIR/verification_key.json, and checks that a changed public
 * signal is refused. Prints the proof and "verified"; exits 0 only if all of it holds.
 *
 *   prove_fixture DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/cuzk.h>
#include <cuzk/rapidsnark.h>

static char* slurp(const char* dir, const char* name, size_t* len) {
  char path[4096];
  FILE* f;
  long n;
  char* p;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fprintf(stderr, "%s: cannot read\n", path);
    exit(1);
  }
  p = malloc((size_t)n + 1);
  if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "%s: short read\n", path);
    exit(1);
  }
  p[n] = '\0';
  fclose(f);
  *len = (size_t)n;
  return p;
}

int main(int argc, char** argv) {
  char zkey[4096], msg[512], *wtns, *vk, *proof, *pub, *p;
  size_t wtns_len, vk_len;
  unsigned long long proof_len, pub_len;
  int st;
  if (argc != 2) {
    fprintf(stderr, "usage: prove_fixture DIR (with circuit.zkey, witness.wtns, verification_key.json)\n");
    return 2;
  }
  snprintf(zkey, sizeof zkey, "%s/circuit.zkey", argv[1]);
  wtns = slurp(argv[1], "witness.wtns", &wtns_len);
  vk = slurp(argv[1], "verification_key.json", &vk_len);
  groth16_proof_size(&proof_len);
  if (groth16_public_size_for_zkey_file(zkey, &pub_len, msg, sizeof msg) != PROVER_OK) {
    fprintf(stderr, "groth16_public_size_for_zkey_file: %s\n", msg);
    return 1;
  }
  proof = malloc(proof_len);
  pub = malloc(pub_len);
  st = groth16_prover_zkey_file(zkey, wtns, wtns_len, proof, &proof_len, pub, &pub_len, msg, sizeof msg);
  if (st != PROVER_OK) {
    fprintf(stderr, "groth16_prover_zkey_file: %d %s\n", st, msg);
    return 1;
  }
  printf("proof.json: %s\npublic.json: %s\n", proof, pub);
  st = cuzk_verify(vk, vk_len, proof, proof_len, pub, pub_len, msg, sizeof msg);
  if (st != CUZK_OK) {
    fprintf(stderr, "cuzk_verify: %s %s\n", cuzk_status_name(st), msg);
    return 1;
  }
  /* The first digit of the first public signal changed: the proof must no longer verify. */
  p = strpbrk(pub, "0123456789");
  if (!p) {
    fprintf(stderr, "no public signal in %s\n", pub);
    return 1;
  }
  *p = *p == '1' ? '2' : '1';
  st = cuzk_verify(vk, vk_len, proof, proof_len, pub, pub_len, msg, sizeof msg);
  if (st == CUZK_OK) {
    fprintf(stderr, "cuzk_verify accepted a changed public signal\n");
    return 1;
  }
  printf("verified (a changed public signal refused: %s)\n", cuzk_status_name(st));
  free(proof), free(pub), free(wtns), free(vk);
  return 0;
}
