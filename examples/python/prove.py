#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Proves a snarkjs witness with cuzk from Python (ctypes, nothing to compile), then verifies it.

Loads libcuzk.so, proves WTNS with the key ZKEY through rapidsnark's interface
(groth16_prover_zkey_file, include/cuzk/rapidsnark.h), prints proof.json and public.json as
snarkjs writes them, and verifies the proof with cuzk's verifier (cuzk_verify, include/cuzk/cuzk.h)
against VK (a snarkjs verification_key.json). Exits 0 only when the proof verifies.

    python3 prove.py [--lib PATH] ZKEY WTNS VK

--lib names the library (default: $CUZK_LIB, else libcuzk.so wherever the loader finds it, e.g.
with LD_LIBRARY_PATH=PREFIX/lib after `cmake --install build --prefix PREFIX`).
"""
import argparse
import ctypes
import ctypes.util
import os
import sys

PROVER_OK = 0
CUZK_OK = 0


def load(path):
    """libcuzk.so with the argument and result types of the functions used here."""
    if not path:
        path = os.environ.get("CUZK_LIB") or ctypes.util.find_library("cuzk") or "libcuzk.so"
    lib = ctypes.CDLL(path)
    ull, ull_p, c_char_p, c_void_p = ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_char_p, ctypes.c_void_p
    lib.groth16_proof_size.argtypes = [ull_p]
    lib.groth16_proof_size.restype = None
    lib.groth16_public_size_for_zkey_file.argtypes = [c_char_p, ull_p, c_char_p, ull]
    lib.groth16_public_size_for_zkey_file.restype = ctypes.c_int
    lib.groth16_prover_zkey_file.argtypes = [c_char_p, c_void_p, ull, c_char_p, ull_p, c_char_p, ull_p, c_char_p, ull]
    lib.groth16_prover_zkey_file.restype = ctypes.c_int
    size_t = ctypes.c_size_t
    lib.cuzk_verify.argtypes = [c_char_p, size_t, c_char_p, size_t, c_char_p, size_t, c_char_p, size_t]
    lib.cuzk_verify.restype = ctypes.c_int
    lib.cuzk_status_name.argtypes = [ctypes.c_int]
    lib.cuzk_status_name.restype = c_char_p
    return lib, path


def prove(lib, zkey, wtns):
    """(proof.json, public.json) of the witness bytes wtns with the key at path zkey."""
    msg = ctypes.create_string_buffer(1024)
    proof_size, public_size = ctypes.c_ulonglong(), ctypes.c_ulonglong()
    lib.groth16_proof_size(ctypes.byref(proof_size))
    if lib.groth16_public_size_for_zkey_file(zkey.encode(), ctypes.byref(public_size), msg, len(msg)) != PROVER_OK:
        raise RuntimeError(f"groth16_public_size_for_zkey_file: {msg.value.decode()}")
    proof = ctypes.create_string_buffer(proof_size.value)
    public = ctypes.create_string_buffer(public_size.value)
    st = lib.groth16_prover_zkey_file(zkey.encode(), wtns, len(wtns), proof, ctypes.byref(proof_size),
                                      public, ctypes.byref(public_size), msg, len(msg))
    if st != PROVER_OK:
        raise RuntimeError(f"groth16_prover_zkey_file: code {st}: {msg.value.decode()}")
    return proof.value.decode(), public.value.decode()


def verify(lib, vk, proof, public):
    """CUZK_OK when the proof verifies against the verification key; else the status and message."""
    err = ctypes.create_string_buffer(1024)
    st = lib.cuzk_verify(vk, len(vk), proof.encode(), len(proof), public.encode(), len(public), err, len(err))
    return st, lib.cuzk_status_name(st).decode(), err.value.decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", help="path of libcuzk.so")
    ap.add_argument("zkey")
    ap.add_argument("wtns")
    ap.add_argument("vk")
    args = ap.parse_args()
    lib, path = load(args.lib)
    with open(args.wtns, "rb") as f:
        wtns = f.read()
    with open(args.vk, "rb") as f:
        vk = f.read()
    print(f"library: {path}")
    proof, public = prove(lib, args.zkey, wtns)
    print(f"proof.json: {proof}")
    print(f"public.json: {public}")
    st, name, err = verify(lib, vk, proof, public)
    if st != CUZK_OK:
        print(f"not verified: {name}: {err}", file=sys.stderr)
        return 1
    print("verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
