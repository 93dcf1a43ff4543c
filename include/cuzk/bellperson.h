// SPDX-License-Identifier: MIT OR Apache-2.0
/* cuzk for bellperson users: Groth16 proofs on BLS12-381 from a bellperson .params and what
 * bellperson's synthesis produced for each circuit (its ProvingAssignment: the a, b, c row
 * evaluations, the input and aux assignments, the three density bit-vectors) and the blinding
 * r, s: the information supraseal-c2 takes. The proofs run on every device named at creation
 * through cuzk's engine (a worker per device slot, each device's lock and memory budget, the key
 * resident on each) and come back as Filecoin's 192-byte proofs, each verified before it is
 * returned. docs/bellperson.md maps each field to bellperson's and supraseal-c2's.
 *
 * Status codes, messages, ownership and threads: cuzk_status.h. */
#ifndef CUZK_BELLPERSON_H
#define CUZK_BELLPERSON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_BP_PROOF_BYTES 192 /* compressed A (48) | B (96) | C (48), zcash encoding */
#define CUZK_BP_SCALAR_BYTES 32 /* an Fr value: four little-endian 64-bit limbs */

/* How every scalar of a call is laid out (flags of cuzk_bp_prover_create and cuzk_bp_verify):
 * by default Montgomery form with R = 2^256 (blstrs' Scalar in memory, what bellperson holds),
 * or with CUZK_BP_CANONICAL the plain value, little-endian. Either way each must be < r. */
#define CUZK_BP_CANONICAL 1u

typedef struct cuzk_bp_prover cuzk_bp_prover;

/* One circuit's assignment, as bellperson's synthesis left it (bit i of a density vector is bit
 * i % 64 of word i / 64: bitvec's BitVec<usize, Lsb0> on a 64-bit host). Pointers are read during
 * cuzk_bp_prove only. */
typedef struct cuzk_bp_circuit {
  /* The rows' evaluations: n_rows values each; the constraints, then one row per input
   * (a = input, b = c = 0), as bellperson appends them; a[i] * b[i] must equal c[i]. */
  const uint8_t* a;
  const uint8_t* b;
  const uint8_t* c;
  size_t n_rows;
  const uint8_t* inputs; /* n_inputs values; inputs[0] is ONE */
  size_t n_inputs;
  const uint8_t* aux; /* n_aux values */
  size_t n_aux;
  const uint64_t* a_aux_density; /* n_aux bits: aux i occurs in some constraint's A */
  size_t a_aux_bits;
  const uint64_t* b_input_density; /* n_inputs bits: input i occurs in some constraint's B */
  size_t b_input_bits;
  const uint64_t* b_aux_density; /* n_aux bits: aux i occurs in some constraint's B */
  size_t b_aux_bits;
  /* The blinding scalars (32 bytes each); both NULL: drawn from the OS's CSPRNG. */
  const uint8_t* r;
  const uint8_t* s;
} cuzk_bp_circuit;

/* Reads the .params at `params_path` once (mapped; every point decoded and checked on the curve)
 * and starts an engine on `devices`: "all" (every GPU), "cpu", "gpu:0,gpu:1", ... as cuzk's
 * --devices takes it, NULL for every GPU or else the CPU. `flags`: 0 or CUZK_BP_CANONICAL.
 * The file carries no constraints, so the circuit's shape (its sizes and densities) is taken
 * from the first cuzk_bp_prove call and checked against every section then; later calls must
 * have the same shape. On success stores the handle in *out. Errors: CUZK_ERR_KEY (the file),
 * CUZK_ERR_ARGUMENT (the device list), CUZK_ERR_DEVICE (a named device is absent). */
int cuzk_bp_prover_create(const char* params_path, const char* devices, uint32_t flags, cuzk_bp_prover** out, char* err,
                          size_t err_len);

/* Frees the prover (waits for nothing: no call may be running on it). NULL is a no-op. */
void cuzk_bp_prover_destroy(cuzk_bp_prover* prover);

/* Proves n_circuits circuits of the prover's key as one job spread over all its devices, and
 * writes their proofs in order to proofs_out (n_circuits * 192 bytes; proofs_out_len is its
 * size). Everything is checked before any proving starts: sizes, densities (every input must be
 * in A; the counts must match the file's sections), each value < r, inputs[0] == 1, and
 * a[i] * b[i] == c[i] on every row (CUZK_ERR_INPUT naming the circuit and row). On failure
 * nothing is written to proofs_out. */
int cuzk_bp_prove(cuzk_bp_prover* prover, const cuzk_bp_circuit* circuits, size_t n_circuits, uint8_t* proofs_out,
                  size_t proofs_out_len, char* err, size_t err_len);

/* Verifies one 192-byte proof with the verifying key at `vk_path` (a .vk, or a .params whose
 * prefix it is) and the n_public public inputs (the inputs after ONE; 32 bytes each, in the form
 * `flags` says). CUZK_OK when it verifies, CUZK_ERR_INVALID_PROOF when it does not (or does not
 * decode), CUZK_ERR_KEY / CUZK_ERR_INPUT for a bad key or input count. */
int cuzk_bp_verify(const char* vk_path, const uint8_t* public_inputs, size_t n_public,
                   const uint8_t proof[CUZK_BP_PROOF_BYTES], uint32_t flags, char* err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_BELLPERSON_H */
