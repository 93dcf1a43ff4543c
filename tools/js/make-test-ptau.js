#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// make-test-ptau.js -- INSECURE, TEST-ONLY powers-of-tau writer.
//
// Writes a *prepared phase-2* .ptau file, i.e. the file that
// `snarkjs powersoftau prepare phase2` would output, but computed directly from
// toxic waste (tau, alpha, beta) that is derived deterministically from --seed.
// Anyone who knows the seed can forge proofs for every circuit set up with this
// file: use it for test fixtures and benchmarks only, never for anything real.
//
//   node tools/js/make-test-ptau.js --curve bn128 --power 12 --seed 1 --out file.ptau
//
// Options:
//   --curve bn128|bls12381   (aliases: bn254, bls12-381)
//   --power p                2^p = max circuit domain size (1 <= p <= Fr.s-1)
//   --seed S                 any string; tau/alpha/beta = H(curve, S, name) mod r
//   --out FILE
//   --phase1-only            write only sections 1-7 (what `powersoftau new` +
//                            contributions would give); used to validate this
//                            writer against `snarkjs powersoftau prepare phase2`
//   --threads N              worker threads for the point computations
//                            (default: number of CPUs)
//   --secrets-out FILE       also write {curve, power, seed, tau, alpha, beta}
//                            (decimal strings) as JSON
//
// File layout (all little-endian; see snarkjs powersoftau_new.js and
// powersoftau_preparephase2.js):
//   "ptau" u32 version=1 u32 nSections (7 or 11), then sections {u32 id; u64 size; data}
//   1  header: u32 n8q; q[n8q]; u32 power; u32 ceremonyPower (= power)
//   2  tau^i * G1,          i < 2^(p+1)-1
//   3  tau^i * G2,          i < 2^p
//   4  alpha*tau^i * G1,    i < 2^p
//   5  beta*tau^i * G1,     i < 2^p
//   6  beta * G2
//   7  contributions: u32 n = 0   (no contribution records: there is no
//      ceremony transcript for a file made from known secrets)
//   12 L^(2^k)_j(tau) * G1 for k = 0..p+1, levels concatenated by increasing k
//      (level k starts at point 2^k - 1; 2^(p+2)-1 points in total)
//   13 L^(2^k)_j(tau) * G2 for k = 0..p
//   14 alpha * L^(2^k)_j(tau) * G1 for k = 0..p
//   15 beta  * L^(2^k)_j(tau) * G1 for k = 0..p
// Points are affine, coordinates little-endian Montgomery ("LEM"), as snarkjs writes them.
//
// Lagrange basis: level k, n = 2^k, w = Fr.w[k] (ffjavascript's primitive root,
// nqr-based), L_j(tau) = (tau^n - 1)/n * w^j / (tau - w^j).  This equals the
// inverse FFT of (tau^0 .. tau^(n-1)), which is what prepare phase2 computes with
// group FFTs.  Level p+1 of section 12 is special: prepare phase2 only has
// 2^(p+1)-1 powers in section 2, so it inverse-FFTs the vector with the missing
// tau^(2^(p+1)-1) replaced by the point at infinity (i.e. 0).  Hence for N = 2^(p+1):
//   level(p+1)_j = L_j(tau) - (1/N) * tau^(N-1) * w^(-(N-1) j)
//                = L_j(tau) - (1/N) * tau^(N-1) * w^j.
// (snarkjs groth16 setup takes H from the odd entries of level cirPower+1; for a
// circuit with domain 2^p this truncated level is the one used; it is harmless
// because h(X)*Z(X) has degree <= 2n-2.)
//
// The scalars are computed in Fr with BigInt arithmetic; each point is then a
// fixed-base scalar multiplication of the generator, done in ffjavascript's
// WebAssembly curve code (8-bit comb tables: 32 mixed additions per point),
// spread over worker threads.

import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";

const WINDOW_BITS = 8;
const N_WINDOWS = 32;            // scalars are < r < 2^256 on both curves
const TABLE_PER_WINDOW = (1 << WINDOW_BITS) - 1;

if (isMainThread) {
    main().catch((err) => {
        console.error(err && err.stack ? err.stack : err);
        process.exit(1);
    });
} else {
    workerMain();
}

// ---------------------------------------------------------------------------
// Worker: fixed-base comb multiplication in a private wasm instance.
// ---------------------------------------------------------------------------
function workerMain() {
    const { code, groups } = workerData;
    const memory = new WebAssembly.Memory({ initial: 64, maximum: 32767 });
    const module = new WebAssembly.Module(code);
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    const ex = instance.exports;
    const u32 = () => new Uint32Array(memory.buffer, 0, 1);
    const heapBase = u32()[0];

    // group name -> {prefix, sAff, sJac, pTable}
    const G = {};
    let top = heapBase;
    function alloc(n) {
        top = (top + 7) & ~7;
        const p = top;
        top += n;
        ensure(top + 65536);
        u32()[0] = top;       // keep the module's own scratch allocator above us
        return p;
    }
    function ensure(bytes) {
        const have = memory.buffer.byteLength;
        if (bytes > have) memory.grow(Math.ceil((bytes - have) / 65536));
    }
    function mem() { return new Uint8Array(memory.buffer); }

    for (const g of groups) {
        const prefix = g.name === "G1" ? "g1m" : "g2m";
        const sAff = g.n8 * 2;
        const sJac = g.n8 * 3;
        const nT = N_WINDOWS * TABLE_PER_WINDOW;
        const pTableJ = alloc(nT * sJac);
        const pTable = alloc(nT * sAff);
        const pGen = alloc(sAff);
        const pP = alloc(sJac);
        mem().set(g.genAffine, pGen);
        ex[prefix + "_zero"](pP);
        ex[prefix + "_addMixed"](pP, pGen, pP);          // P = gen (jacobian)
        for (let w = 0; w < N_WINDOWS; w++) {
            const base = pTableJ + w * TABLE_PER_WINDOW * sJac;
            ex[prefix + "_copy"](pP, base);
            for (let b = 1; b < TABLE_PER_WINDOW; b++) {
                ex[prefix + "_add"](base + (b - 1) * sJac, pP, base + b * sJac);
            }
            for (let d = 0; d < WINDOW_BITS; d++) ex[prefix + "_double"](pP, pP);
        }
        ensure(top + nT * sJac * 2 + (1 << 20));     // scratch for batchToAffine
        ex[prefix + "_batchToAffine"](pTableJ, nT, pTable);
        G[g.name] = { prefix, sAff, sJac, pTable };
    }
    const fixedTop = top;

    parentPort.on("message", (job) => {
        const g = G[job.group];
        const n = job.scalars.byteLength / 32;
        top = fixedTop;
        u32()[0] = top;
        const pSc = alloc(n * 32);
        const pJ = alloc(n * g.sJac);
        const pA = alloc(n * g.sAff);
        mem().set(job.scalars, pSc);
        const sc = new Uint8Array(memory.buffer, pSc, n * 32);
        const addMixed = ex[g.prefix + "_addMixed"];
        const zero = ex[g.prefix + "_zero"];
        const rowBytes = TABLE_PER_WINDOW * g.sAff;
        for (let j = 0; j < n; j++) {
            const acc = pJ + j * g.sJac;
            zero(acc);
            const o = j * 32;
            for (let w = 0; w < N_WINDOWS; w++) {
                const b = sc[o + w];
                if (b) addMixed(acc, g.pTable + w * rowBytes + (b - 1) * g.sAff, acc);
            }
        }
        ensure(top + n * g.sJac * 2 + (1 << 20));    // scratch for batchToAffine
        ex[g.prefix + "_batchToAffine"](pJ, n, pA);
        const out = new Uint8Array(memory.buffer, pA, n * g.sAff).slice();
        parentPort.postMessage({ id: job.id, points: out }, [out.buffer]);
    });
}

// ---------------------------------------------------------------------------
// Main thread
// ---------------------------------------------------------------------------
function parseArgs(argv) {
    const a = { threads: os.cpus().length || 1, phase1Only: false };
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i];
        const next = () => {
            if (i + 1 >= argv.length) throw new Error("missing value for " + k);
            return argv[++i];
        };
        if (k === "--curve") a.curve = next();
        else if (k === "--power") a.power = parseInt(next(), 10);
        else if (k === "--seed") a.seed = next();
        else if (k === "--out") a.out = next();
        else if (k === "--threads") a.threads = parseInt(next(), 10);
        else if (k === "--phase1-only") a.phase1Only = true;
        else if (k === "--secrets-out") a.secretsOut = next();
        else if (k === "-h" || k === "--help") { a.help = true; }
        else throw new Error("unknown argument " + k);
    }
    return a;
}

function usage() {
    console.log("usage: node make-test-ptau.js --curve bn128|bls12381 --power P --seed S --out FILE " +
        "[--phase1-only] [--threads N] [--secrets-out FILE]\n" +
        "INSECURE: writes a prepared phase-2 ptau from toxic waste derived from the seed (tests only).");
}

function modpow(b, e, m) {
    let r = 1n;
    b %= m;
    while (e > 0n) {
        if (e & 1n) r = (r * b) % m;
        b = (b * b) % m;
        e >>= 1n;
    }
    return r;
}
const modinv = (a, m) => modpow(a, m - 2n, m);

// Montgomery batch inversion (BigInt)
function batchInv(arr, m) {
    const n = arr.length;
    const pre = new Array(n);
    let acc = 1n;
    for (let i = 0; i < n; i++) { pre[i] = acc; acc = (acc * arr[i]) % m; }
    let inv = modinv(acc, m);
    const out = new Array(n);
    for (let i = n - 1; i >= 0; i--) {
        out[i] = (inv * pre[i]) % m;
        inv = (inv * arr[i]) % m;
    }
    return out;
}

function deriveScalar(curveName, seed, what, r) {
    // 512-bit hash reduced mod r: negligible bias, deterministic
    for (let ctr = 0; ; ctr++) {
        const h = createHash("sha512")
            .update(`cuzk-insecure-test-ptau/v1/${curveName}/${seed}/${what}/${ctr}`)
            .digest();
        let v = 0n;
        for (let i = h.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(h[i]);
        v %= r;
        if (v > 1n) return v;
    }
}

function ms(t0) { return ((performance.now() - t0) / 1000).toFixed(2) + " s"; }

async function main() {
    const args = parseArgs(process.argv.slice(2));
    if (args.help) { usage(); return; }
    const curveAlias = { bn128: "bn128", bn254: "bn128", bls12381: "bls12381", "bls12-381": "bls12381" };
    const curveName = curveAlias[(args.curve || "").toLowerCase()];
    if (!curveName || !Number.isInteger(args.power) || args.seed === undefined || !args.out) {
        usage();
        process.exit(2);
    }
    const power = args.power;
    const tStart = performance.now();

    const ff = await import("ffjavascript");
    // singleThread: no ffjavascript workers; we only need its parameters and wasm code.
    const curve = curveName === "bn128" ? await ff.buildBn128(true) : await ff.buildBls12381(true);
    const Fr = curve.Fr;
    const r = BigInt(Fr.p.toString());
    const q = BigInt(curve.q.toString());
    const n8q = curve.F1.n64 * 8;
    const n8r = 32;
    if (power < 1 || power + 1 > Fr.s) {
        throw new Error(`power must be in [1, ${Fr.s - 1}] for ${curveName}`);
    }
    const nThreads = Math.max(1, args.threads | 0);

    const tau = deriveScalar(curveName, args.seed, "tau", r);
    const alpha = deriveScalar(curveName, args.seed, "alpha", r);
    const beta = deriveScalar(curveName, args.seed, "beta", r);
    // tau must not be a 2^(p+1)-th root of unity (then the Lagrange formula breaks)
    if (modpow(tau, 1n << BigInt(power + 1), r) === 1n) throw new Error("degenerate tau; pick another seed");
    const wk = [];
    for (let k = 0; k <= power + 1; k++) wk[k] = BigInt(Fr.toObject(Fr.w[k]).toString());

    console.log(`make-test-ptau: INSECURE test ptau, curve=${curveName} power=${power} seed=${args.seed} ` +
        `threads=${nThreads}${args.phase1Only ? " (phase1 only)" : ""}`);

    // ---- worker pool ------------------------------------------------------
    const code = curve.tm.code;
    const groups = [
        { name: "G1", n8: curve.G1.F.n8, genAffine: curve.G1.oneAffine },
        { name: "G2", n8: curve.G2.F.n8, genAffine: curve.G2.oneAffine },
    ];
    const tPool = performance.now();
    const workers = [];
    for (let i = 0; i < nThreads; i++) {
        workers.push(new Worker(fileURLToPath(import.meta.url), { workerData: { code, groups } }));
    }
    const idle = [];
    const pending = new Map();
    let jobId = 0;
    const waiters = [];
    for (const w of workers) {
        w.on("message", (m) => {
            const cb = pending.get(m.id);
            pending.delete(m.id);
            idle.push(w);
            if (waiters.length) waiters.shift()();
            cb(m.points);
        });
        w.on("error", (e) => { console.error(e); process.exit(1); });
        idle.push(w);
    }
    async function runJob(group, scalars) {
        while (idle.length === 0) await new Promise((res) => waiters.push(res));
        const w = idle.pop();
        const id = jobId++;
        return new Promise((res) => {
            pending.set(id, res);
            w.postMessage({ id, group, scalars }, [scalars.buffer]);
        });
    }

    // scalars (BigInt array) -> affine LEM points (Uint8Array), computed in chunks
    const sizeOf = { G1: curve.G1.F.n8 * 2, G2: curve.G2.F.n8 * 2 };
    async function mulGen(group, scalars) {
        const n = scalars.length;
        const CHUNK = group === "G1" ? 4096 : 2048;
        const out = new Uint8Array(n * sizeOf[group]);
        const promises = [];
        for (let s = 0; s < n; s += CHUNK) {
            const e = Math.min(n, s + CHUNK);
            const buf = new Uint8Array((e - s) * 32);
            for (let j = s; j < e; j++) {
                let v = scalars[j];
                const o = (j - s) * 32;
                for (let b = 0; b < 32; b++) { buf[o + b] = Number(v & 0xffn); v >>= 8n; }
            }
            promises.push(runJob(group, buf).then((pts) => out.set(pts, s * sizeOf[group])));
        }
        await Promise.all(promises);
        return out;
    }

    // ---- file writer -------------------------------------------------------
    const fd = fs.openSync(args.out, "w");
    const nSections = args.phase1Only ? 7 : 11;
    let filePos = 0;
    function w(buf) { fs.writeSync(fd, buf, 0, buf.byteLength, filePos); filePos += buf.byteLength; }
    function u32le(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; }
    function u64le(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; }
    function bigLE(v, n) { const b = Buffer.alloc(n); for (let i = 0; i < n; i++) { b[i] = Number(v & 0xffn); v >>= 8n; } return b; }
    function section(id, parts) {
        const size = parts.reduce((s, p) => s + p.byteLength, 0);
        w(u32le(id)); w(u64le(size));
        for (const p of parts) w(p);
        return size;
    }
    w(Buffer.from("ptau", "ascii")); w(u32le(1)); w(u32le(nSections));

    const timings = [];
    async function timed(name, fn) {
        const t0 = performance.now();
        const res = await fn();
        const dt = (performance.now() - t0) / 1000;
        timings.push([name, dt]);
        console.log(`  section ${name}: ${dt.toFixed(2)} s`);
        return res;
    }
    const pow = (x, n) => { const a = new Array(n); let v = 1n; for (let i = 0; i < n; i++) { a[i] = v; v = (v * x) % r; } return a; };
    const scale = (arr, c) => arr.map((x) => (x * c) % r);

    section(1, [u32le(n8q), bigLE(q, n8q), u32le(power), u32le(power)]);
    const nPow = 1 << power;
    await timed("2 (tau^i G1)", async () => section(2, [await mulGen("G1", pow(tau, 2 * nPow - 1))]));
    const tauPowN = pow(tau, nPow);
    await timed("3 (tau^i G2)", async () => section(3, [await mulGen("G2", tauPowN)]));
    await timed("4 (alpha tau^i G1)", async () => section(4, [await mulGen("G1", scale(tauPowN, alpha))]));
    await timed("5 (beta tau^i G1)", async () => section(5, [await mulGen("G1", scale(tauPowN, beta))]));
    await timed("6 (beta G2)", async () => section(6, [await mulGen("G2", [beta])]));
    section(7, [u32le(0)]);

    if (!args.phase1Only) {
        // Lagrange scalars for all levels k = 0..p+1 (level p+1 truncated, see header)
        const tL = performance.now();
        const levels = [];
        for (let k = 0; k <= power + 1; k++) {
            const n = 1 << k;
            const w = wk[k];
            const wpow = pow(w, n);
            const tn = modpow(tau, BigInt(n), r);
            const c = ((tn - 1n + r) % r) * modinv(BigInt(n), r) % r;      // (tau^n - 1)/n
            const inv = batchInv(wpow.map((x) => (tau - x + r) % r), r);
            const L = new Array(n);
            for (let j = 0; j < n; j++) L[j] = c * wpow[j] % r * inv[j] % r;
            if (k === power + 1) {
                // the missing tau^(n-1) term: subtract (1/n) tau^(n-1) w^j
                const d = modpow(tau, BigInt(n - 1), r) * modinv(BigInt(n), r) % r;
                for (let j = 0; j < n; j++) L[j] = (L[j] - d * wpow[j] % r + r) % r;
            }
            levels.push(L);
        }
        const allL = levels.slice(0, power + 1).flat();     // k = 0..p
        const allL12 = levels.flat();                        // k = 0..p+1
        console.log(`  lagrange scalars (Fr): ${ms(tL)}`);
        await timed("12 (L G1)", async () => section(12, [await mulGen("G1", allL12)]));
        await timed("13 (L G2)", async () => section(13, [await mulGen("G2", allL)]));
        await timed("14 (alpha L G1)", async () => section(14, [await mulGen("G1", scale(allL, alpha))]));
        await timed("15 (beta L G1)", async () => section(15, [await mulGen("G1", scale(allL, beta))]));
    }
    fs.closeSync(fd);
    for (const wk2 of workers) await wk2.terminate();

    if (args.secretsOut) {
        fs.writeFileSync(args.secretsOut, JSON.stringify({
            curve: curveName, power, seed: String(args.seed),
            tau: tau.toString(), alpha: alpha.toString(), beta: beta.toString(),
        }, null, 1) + "\n");
    }
    console.log(`make-test-ptau: wrote ${args.out} (${filePos} bytes) in ${ms(tStart)} ` +
        `(worker start ${((tPool - tStart) / 1000).toFixed(2)} s)`);
}
