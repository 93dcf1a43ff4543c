#!/usr/bin/env node
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// verify-many.mjs -- verify many Groth16 proofs with snarkjs's JS API in ONE
// node process (snarkjs's CLI pays ~1 s of start-up per call).
//
//   node tests/snarkjs/verify-many.mjs CASES_FILE
//
// CASES_FILE has one case per line:
//   <vk.json> <public.json> <proof.json> [expect=valid|invalid]
// (default expect=valid; blank lines and lines starting with '#' are ignored;
// relative paths are taken relative to the current directory; paths must not
// contain whitespace).
//
// For each case it prints one line, "ok ..." or "FAIL ...", then a final line
//   snarkjs: N passed, M failed
// and exits 0 only if every case matched its expectation (and there was at
// least one case).  A case "passes" when snarkjs.groth16.verify's verdict equals
// the expectation.  Unreadable/unparseable files are always a FAIL.  A verify
// call that throws (e.g. malformed point) counts as verdict "invalid".  In
// addition to what snarkjs checks, a public.json whose length differs from
// vk.nPublic is reported as verdict "invalid" (snarkjs itself only uses as many
// IC points as there are public signals).
//
// snarkjs is taken from tools/js/node_modules (npm ci --prefix tools/js).

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const toolsPkg = path.resolve(here, "../../tools/js/package.json");

async function loadSnarkjs() {
    try {
        const require = createRequire(toolsPkg);
        return require("snarkjs");
    } catch (e) {
        // fall back to normal resolution (NODE_PATH / a global install)
        return await import("snarkjs");
    }
}

function parseCases(text) {
    const cases = [];
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i].trim();
        if (line === "" || line.startsWith("#")) continue;
        const f = line.split(/\s+/);
        if (f.length < 3 || f.length > 4) throw new Error(`line ${i + 1}: expected 3 or 4 fields: ${line}`);
        let expect = "valid";
        if (f.length === 4) {
            const m = /^(?:expect=)?(valid|invalid)$/.exec(f[3]);
            if (!m) throw new Error(`line ${i + 1}: bad expectation '${f[3]}' (use expect=valid|invalid)`);
            expect = m[1];
        }
        cases.push({ line: i + 1, vk: f[0], pub: f[1], proof: f[2], expect });
    }
    return cases;
}

async function terminateCurves() {
    for (const name of ["curve_bn128", "curve_bls12381"]) {
        const c = globalThis[name];
        if (c && typeof c.terminate === "function") {
            try { await c.terminate(); } catch (e) { /* ignore */ }
        }
    }
}

async function main() {
    const listFile = process.argv[2];
    if (!listFile || process.argv.length > 3) {
        console.error("usage: node verify-many.mjs CASES_FILE\n" +
            "  CASES_FILE lines: <vk.json> <public.json> <proof.json> [expect=valid|invalid]");
        return 2;
    }
    let cases;
    try {
        cases = parseCases(fs.readFileSync(listFile, "utf8"));
    } catch (e) {
        console.error(`verify-many: ${e.message}`);
        console.log("snarkjs: 0 passed, 1 failed");
        return 1;
    }
    const snarkjs = await loadSnarkjs();
    const jsonCache = new Map();
    const readJson = (p) => {
        if (!jsonCache.has(p)) jsonCache.set(p, JSON.parse(fs.readFileSync(p, "utf8")));
        // verify does not mutate its inputs, but be safe: hand out a deep copy
        return structuredClone(jsonCache.get(p));
    };

    let passed = 0;
    let failed = 0;
    for (const c of cases) {
        const where = `${c.vk} ${c.pub} ${c.proof}`;
        let vk, pub, proof;
        try {
            vk = readJson(c.vk);
            pub = readJson(c.pub);
            proof = readJson(c.proof);
        } catch (e) {
            failed++;
            console.log(`FAIL expect=${c.expect} error=${JSON.stringify(e.message)} ${where}`);
            continue;
        }
        let verdict;
        let note = "";
        try {
            if (!Array.isArray(pub)) {
                verdict = "invalid";
                note = " (public.json is not an array)";
            } else if (typeof vk.nPublic === "number" && pub.length !== vk.nPublic) {
                verdict = "invalid";
                note = ` (public.json has ${pub.length} signals, vk.nPublic=${vk.nPublic})`;
            } else {
                const ok = await snarkjs.groth16.verify(vk, pub, proof);
                verdict = ok === true ? "valid" : "invalid";
            }
        } catch (e) {
            verdict = "invalid";
            note = ` (verify threw: ${e && e.message ? e.message : e})`;
        }
        if (verdict === c.expect) {
            passed++;
            console.log(`ok   expect=${c.expect} got=${verdict} ${where}${note}`);
        } else {
            failed++;
            console.log(`FAIL expect=${c.expect} got=${verdict} ${where}${note}`);
        }
    }
    console.log(`snarkjs: ${passed} passed, ${failed} failed`);
    return failed === 0 && passed > 0 ? 0 : 1;
}

let code = 1;
try {
    code = await main();
} catch (e) {
    console.error(e && e.stack ? e.stack : e);
    code = 1;
}
await terminateCurves();
process.exit(code);
