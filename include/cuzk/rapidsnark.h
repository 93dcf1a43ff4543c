// SPDX-License-Identifier: MIT OR Apache-2.0
/* rapidsnark's C interface (its src/prover.h), implemented by cuzk: a program or a binding
 * written against rapidsnark links against cuzk unchanged. Same declarations, codes and
 * semantics:
 *   - keys are snarkjs .zkey files (or their bytes) of BN254 ("bn128"), as rapidsnark takes;
 *   - witnesses are the bytes of a .wtns file;
 *   - the proof and the public signals come back as JSON text (snarkjs's proof.json and
 *     public.json, as `cuzk prove` writes them) in the caller's buffers, NUL-terminated; on
 *     success *proof_size and *public_size are set to the bytes written, the NUL not counted;
 *   - a buffer too short gives PROVER_ERROR_SHORT_BUFFER, nothing written to either buffer,
 *     and *proof_size and *public_size set to the sizes needed (the NUL counted);
 *     groth16_proof_size and groth16_public_size_for_zkey_* give sizes that always suffice;
 *   - a witness whose number of values is not the key's gives PROVER_INVALID_WITNESS_LENGTH;
 *   - any other failure gives PROVER_ERROR; error_msg (when not NULL and error_msg_maxsize > 0)
 *     then holds a NUL-terminated message, truncated to error_msg_maxsize - 1 bytes. On success
 *     error_msg is left as it was.
 * The proofs run through cuzk's engine on every GPU of the host, or on the CPU when there is
 * none, and each is verified before it is returned. A prover object (groth16_prover_create*)
 * reads the key once and proves many times, from several threads at once if wanted; it must
 * not be destroyed while a call on it runs. The caller's buffers are read only during a call.
 * No C++ exception leaves these functions. cuzk's own interface, with more control (devices,
 * an engine shared by keys, asynchronous jobs, BLS12-381, verification): cuzk/cuzk.h. */
#ifndef CUZK_RAPIDSNARK_H
#define CUZK_RAPIDSNARK_H

#ifdef __cplusplus
extern "C" {
#endif

#define PROVER_OK 0x0
#define PROVER_ERROR 0x1
#define PROVER_ERROR_SHORT_BUFFER 0x2
#define PROVER_INVALID_WITNESS_LENGTH 0x3

/* The size of a buffer that holds the public signals of any proof of the key (NUL counted). */
int groth16_public_size_for_zkey_buf(const void* zkey_buffer, unsigned long long zkey_size,
                                     unsigned long long* public_size, char* error_msg,
                                     unsigned long long error_msg_maxsize);

/* The same for the .zkey at zkey_fname. */
int groth16_public_size_for_zkey_file(const char* zkey_fname, unsigned long long* public_size, char* error_msg,
                                      unsigned long long error_msg_maxsize);

/* The size of a buffer that holds any proof (NUL counted). */
void groth16_proof_size(unsigned long long* proof_size);

/* Reads and checks the key in zkey_buffer (read during the call only) and stores a new prover
 * object in *prover_object. */
int groth16_prover_create(void** prover_object, const void* zkey_buffer, unsigned long long zkey_size, char* error_msg,
                          unsigned long long error_msg_maxsize);

/* The same from the .zkey at zkey_file_path. */
int groth16_prover_create_zkey_file(void** prover_object, const char* zkey_file_path, char* error_msg,
                                    unsigned long long error_msg_maxsize);

/* Proves the witness in wtns_buffer with the prover object's key. proof_size and public_size:
 * in, the buffers' sizes; out, the bytes written (or needed, on PROVER_ERROR_SHORT_BUFFER). */
int groth16_prover_prove(void* prover_object, const void* wtns_buffer, unsigned long long wtns_size, char* proof_buffer,
                         unsigned long long* proof_size, char* public_buffer, unsigned long long* public_size,
                         char* error_msg, unsigned long long error_msg_maxsize);

/* Frees a prover object; NULL is a no-op. */
void groth16_prover_destroy(void* prover_object);

/* groth16_prover_create, groth16_prover_prove and groth16_prover_destroy in one call. */
int groth16_prover(const void* zkey_buffer, unsigned long long zkey_size, const void* wtns_buffer,
                   unsigned long long wtns_size, char* proof_buffer, unsigned long long* proof_size,
                   char* public_buffer, unsigned long long* public_size, char* error_msg,
                   unsigned long long error_msg_maxsize);

/* The same with the key read from zkey_file_path. */
int groth16_prover_zkey_file(const char* zkey_file_path, const void* wtns_buffer, unsigned long long wtns_size,
                             char* proof_buffer, unsigned long long* proof_size, char* public_buffer,
                             unsigned long long* public_size, char* error_msg, unsigned long long error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_RAPIDSNARK_H */
