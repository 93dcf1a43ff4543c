// SPDX-License-Identifier: MIT OR Apache-2.0
// Command prove proves a snarkjs witness with cuzk from Go (cgo against the installed library,
// found through pkg-config), then verifies it.
//
// It loads the key ZKEY once (cuzk_key_load_file), starts an engine on DEVICES
// (cuzk_engine_create: "auto" is every GPU, else the CPU), proves WTNS (cuzk_prove), prints
// proof.json and public.json as snarkjs writes them, and verifies the proof against the loaded
// key (cuzk_key_verify) and, when given, against a snarkjs verification_key.json (cuzk_verify).
// Then it proves the same witness through rapidsnark's interface (rapidsnark.h: a prover object
// from the .zkey's bytes): first into buffers too short, which must give PROVER_ERROR_SHORT_BUFFER
// with the sizes needed written back, then into buffers of those sizes; that proof is verified
// too. It exits 0 only when every proof verifies.
//
//	PKG_CONFIG_PATH=PREFIX/lib/pkgconfig go build -o prove .
//	LD_LIBRARY_PATH=PREFIX/lib ./prove [-devices auto] [-out DIR] ZKEY WTNS [VK]
//
// With -out, both proofs are also written as snarkjs writes them: DIR/proof.json,
// DIR/public.json (cuzk.h) and DIR/rapidsnark_proof.json, DIR/rapidsnark_public.json.
package main

/*
#cgo pkg-config: cuzk
#include <stdlib.h>
#include <string.h>
#include <cuzk/cuzk.h>
#include <cuzk/rapidsnark.h>
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"unsafe"
)

// status is a cuzk status code with the message the call wrote into its err buffer.
type status struct {
	code C.int
	msg  string
}

func (s status) Error() string {
	return fmt.Sprintf("%s: %s", C.GoString(C.cuzk_status_name(s.code)), s.msg)
}

// errBuf is the buffer every cuzk call writes its message into.
type errBuf [1024]C.char

func (e *errBuf) ptr() *C.char  { return &e[0] }
func (e *errBuf) len() C.size_t { return C.size_t(len(e)) }
func (e *errBuf) check(code C.int) error {
	if code == C.CUZK_OK {
		return nil
	}
	return status{code, C.GoString(&e[0])}
}

func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// save writes a proof and its public signals under outDir (nothing without -out).
func save(outDir, prefix string, proof, public []byte) error {
	if outDir == "" {
		return nil
	}
	if err := os.WriteFile(outDir+"/"+prefix+"proof.json", proof, 0o644); err != nil {
		return err
	}
	return os.WriteFile(outDir+"/"+prefix+"public.json", public, 0o644)
}

func run(devices, outDir, zkeyPath, wtnsPath, vkPath string) error {
	var e errBuf
	wtns, err := os.ReadFile(wtnsPath)
	if err != nil {
		return err
	}

	cZkey := C.CString(zkeyPath)
	defer C.free(unsafe.Pointer(cZkey))
	var key *C.cuzk_key
	if err := e.check(C.cuzk_key_load_file(cZkey, nil, &key, e.ptr(), e.len())); err != nil {
		return fmt.Errorf("cuzk_key_load_file: %w", err)
	}
	defer C.cuzk_key_destroy(key)
	var info C.cuzk_key_info
	if err := e.check(C.cuzk_key_get_info(key, &info, e.ptr(), e.len())); err != nil {
		return fmt.Errorf("cuzk_key_get_info: %w", err)
	}
	fmt.Printf("key: %s, %d public signals, 2^%d rows\n", C.GoString(info.curve), info.n_public, info.log_n)

	cDevices := C.CString(devices)
	defer C.free(unsafe.Pointer(cDevices))
	var engine *C.cuzk_engine
	if err := e.check(C.cuzk_engine_create(cDevices, &engine, e.ptr(), e.len())); err != nil {
		return fmt.Errorf("cuzk_engine_create: %w", err)
	}
	defer C.cuzk_engine_destroy(engine)
	var devs [256]C.char
	if err := e.check(C.cuzk_engine_devices(engine, &devs[0], C.size_t(len(devs)), e.ptr(), e.len())); err != nil {
		return fmt.Errorf("cuzk_engine_devices: %w", err)
	}
	fmt.Printf("engine: %s\n", C.GoString(&devs[0]))

	proof := make([]byte, info.proof_json_max)
	public := make([]byte, info.public_json_max)
	proofLen, publicLen := C.size_t(len(proof)), C.size_t(len(public))
	code := C.cuzk_prove(engine, key, bytesPtr(wtns), C.size_t(len(wtns)), (*C.char)(bytesPtr(proof)), &proofLen,
		(*C.char)(bytesPtr(public)), &publicLen, e.ptr(), e.len())
	if err := e.check(code); err != nil {
		return fmt.Errorf("cuzk_prove: %w", err)
	}
	proof, public = proof[:proofLen], public[:publicLen]
	fmt.Printf("proof.json: %s\npublic.json: %s\n", proof, public)
	if err := save(outDir, "", proof, public); err != nil {
		return err
	}

	code = C.cuzk_key_verify(key, (*C.char)(bytesPtr(proof)), proofLen, (*C.char)(bytesPtr(public)), publicLen,
		e.ptr(), e.len())
	if err := e.check(code); err != nil {
		return fmt.Errorf("cuzk_key_verify: %w", err)
	}
	fmt.Println("verified with the key")
	if vkPath != "" {
		vk, err := os.ReadFile(vkPath)
		if err != nil {
			return err
		}
		code = C.cuzk_verify((*C.char)(bytesPtr(vk)), C.size_t(len(vk)), (*C.char)(bytesPtr(proof)), proofLen,
			(*C.char)(bytesPtr(public)), publicLen, e.ptr(), e.len())
		if err := e.check(code); err != nil {
			return fmt.Errorf("cuzk_verify: %w", err)
		}
		fmt.Println("verified with verification_key.json")
	}
	return proveRapidsnark(key, outDir, zkeyPath, wtns)
}

// proveRapidsnark proves wtns through rapidsnark.h's prover object and verifies the proof with
// the key loaded through cuzk.h.
func proveRapidsnark(key *C.cuzk_key, outDir, zkeyPath string, wtns []byte) error {
	zkey, err := os.ReadFile(zkeyPath)
	if err != nil {
		return err
	}
	var msg [1024]C.char
	var prover unsafe.Pointer
	if code := C.groth16_prover_create(&prover, bytesPtr(zkey), C.ulonglong(len(zkey)), &msg[0],
		C.ulonglong(len(msg))); code != C.PROVER_OK {
		return fmt.Errorf("groth16_prover_create: %d %s", code, C.GoString(&msg[0]))
	}
	defer C.groth16_prover_destroy(prover)
	// Too short on purpose: nothing written, the sizes needed given back.
	short := make([]byte, 8)
	proofLen, publicLen := C.ulonglong(len(short)), C.ulonglong(len(short))
	code := C.groth16_prover_prove(prover, bytesPtr(wtns), C.ulonglong(len(wtns)), (*C.char)(bytesPtr(short)),
		&proofLen, (*C.char)(bytesPtr(short)), &publicLen, &msg[0], C.ulonglong(len(msg)))
	if code != C.PROVER_ERROR_SHORT_BUFFER || proofLen <= C.ulonglong(len(short)) {
		return fmt.Errorf("groth16_prover_prove into 8 bytes: %d (expected PROVER_ERROR_SHORT_BUFFER), sizes %d %d: %s",
			code, proofLen, publicLen, C.GoString(&msg[0]))
	}
	fmt.Printf("rapidsnark.h: PROVER_ERROR_SHORT_BUFFER, %d and %d bytes needed\n", proofLen, publicLen)
	// Another proof of the same witness has other random r, s and so may print a digit more: the
	// buffers are sized as rapidsnark sizes them, for any proof of the key.
	var maxProof, maxPublic C.ulonglong
	C.groth16_proof_size(&maxProof)
	if code := C.groth16_public_size_for_zkey_buf(bytesPtr(zkey), C.ulonglong(len(zkey)), &maxPublic, &msg[0],
		C.ulonglong(len(msg))); code != C.PROVER_OK {
		return fmt.Errorf("groth16_public_size_for_zkey_buf: %d %s", code, C.GoString(&msg[0]))
	}
	proof, public := make([]byte, maxProof), make([]byte, maxPublic)
	proofLen, publicLen = C.ulonglong(len(proof)), C.ulonglong(len(public))
	code = C.groth16_prover_prove(prover, bytesPtr(wtns), C.ulonglong(len(wtns)), (*C.char)(bytesPtr(proof)),
		&proofLen, (*C.char)(bytesPtr(public)), &publicLen, &msg[0], C.ulonglong(len(msg)))
	if code != C.PROVER_OK {
		return fmt.Errorf("groth16_prover_prove: %d %s", code, C.GoString(&msg[0]))
	}
	// rapidsnark's buffers hold NUL-terminated text.
	proof, public = proof[:C.strlen((*C.char)(bytesPtr(proof)))], public[:C.strlen((*C.char)(bytesPtr(public)))]
	var e errBuf
	if err := e.check(C.cuzk_key_verify(key, (*C.char)(bytesPtr(proof)), C.size_t(len(proof)),
		(*C.char)(bytesPtr(public)), C.size_t(len(public)), e.ptr(), e.len())); err != nil {
		return fmt.Errorf("cuzk_key_verify of the rapidsnark.h proof: %w", err)
	}
	fmt.Println("verified the rapidsnark.h proof with the key")
	return save(outDir, "rapidsnark_", proof, public)
}

func main() {
	devices := flag.String("devices", "auto", `where to prove: "auto" (every GPU, else the CPU), "cpu", "gpu:0,gpu:1", ...`)
	outDir := flag.String("out", "", "also write the proofs' JSON files into this directory")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: prove [-devices auto] [-out DIR] ZKEY WTNS [VERIFICATION_KEY_JSON]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 || flag.NArg() > 3 {
		flag.Usage()
		os.Exit(2)
	}
	vk := ""
	if flag.NArg() == 3 {
		vk = flag.Arg(2)
	}
	if err := run(*devices, *outDir, flag.Arg(0), flag.Arg(1), vk); err != nil {
		fmt.Fprintln(os.Stderr, "prove:", err)
		os.Exit(1)
	}
}
