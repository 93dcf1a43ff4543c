// SPDX-License-Identifier: MIT OR Apache-2.0
/* The conventions of cuzk's C interfaces (cuzk.h, bellperson.h, and every C header after it): status
 * codes, error messages, ownership and threads. C99; no C++ type crosses the boundary.
 *
 * Status. Every function that can fail returns an int, one of the CUZK_* codes below: CUZK_OK (0)
 * on success, else what kind of failure it was. The codes are stable; new ones are only added.
 *
 * Messages. Every such function takes `char* err, size_t err_len` last. On failure it writes a
 * message there (what failed, naming the file, section, circuit index or row), truncated to
 * err_len - 1 bytes and always NUL-terminated; on success it writes an empty string. err may be
 * NULL (or err_len 0): then nothing is written. There is no hidden per-thread "last error": the
 * message goes where the caller says, so a caller on any thread, or behind a foreign-function
 * layer that moves calls between threads, always reads its own.
 *
 * Exceptions. No C++ exception leaves a function of these headers: each is caught and turned
 * into a status and a message (CUZK_ERR_INTERNAL for one that has no better code, CUZK_ERR_MEMORY
 * when the host's memory ran out).
 *
 * Ownership. The caller owns every buffer it passes in, and cuzk reads (or writes) it only
 * during the call: nothing is kept after the function returns. Output buffers are the caller's
 * too, with their length passed beside them; one that is too short gives CUZK_ERR_SHORT_BUFFER
 * and a message with the size needed, and nothing is written to it. Where the length is passed
 * by pointer (cuzk.h's proof outputs), it is also set: to the bytes written, or with
 * CUZK_ERR_SHORT_BUFFER to the bytes needed.
 *
 * Handles. An opaque handle is made by its *_create function (which stores it through an out
 * pointer only on success) and freed by its *_destroy function, which takes NULL as a no-op and
 * returns nothing. A handle may be used from several threads at once; only *_destroy must not
 * race with any other call on the same handle. */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
  CUZK_OK = 0,
  CUZK_ERR_ARGUMENT = 1,      /* a NULL pointer or handle, a length that contradicts another, a bad option */
  CUZK_ERR_INPUT = 2,         /* the data does not fit the circuit or key (sizes, values >= r, unsatisfied rows) */
  CUZK_ERR_KEY = 3,           /* a key file that cannot be read, is malformed, or is not this circuit's */
  CUZK_ERR_SHORT_BUFFER = 4,  /* an output buffer too short; the message says how many bytes are needed */
  CUZK_ERR_DEVICE = 5,        /* a device failed (or is absent), or a proof did not verify on any device */
  CUZK_ERR_INVALID_PROOF = 6, /* verification: the proof is malformed or does not verify */
  CUZK_ERR_MEMORY = 7,        /* the host's memory ran out */
  CUZK_ERR_INTERNAL = 8,      /* anything else: a bug in cuzk */
  CUZK_ERR_CANCELLED = 9      /* the job was cancelled before it ended */
};

/* The code's name ("CUZK_ERR_INPUT"), or "CUZK_ERR_UNKNOWN"; a static string. */
const char* cuzk_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_STATUS_H */
