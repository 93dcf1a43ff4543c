# SPDX-License-Identifier: MIT OR Apache-2.0
# Sourced by curio-tests.sh with FIXTURE set: Filecoin proofs of a 2KiB test sector (PoRep,
# WindowPoSt, WinningPoSt, and SnapDeals of its update) through
# Curio's API, each accepted by `cuzk filecoin verify`; cuzk's own API proving beside them.
S=$FIXTURE/s2k
P=$FIXTURE/P
for f in "$S/c1.json" "$S/sector.json" "$S/window-post.json" "$S/window-post.vproof" "$S/winning-post.json" \
    "$S/winning-post.vproof"; do
  [ -s "$f" ] || note "the fixture has no $f (ctest's filecoin_2kib_setup makes it)"
done
[ -d "$P" ] && [ -n "$(ls "$P"/*.params 2>/dev/null)" ] || note "the fixture has no parameter files in $P"
verdict "the 2KiB fixture: a sealed sector, its C1 output, PoSt vanilla proofs, parameter files"

# The public data's values a request carries: the PoSt's registered proof and randomness (hex).
pubv() {
  "$PY" -c 'import base64, json, sys
j = json.load(open(sys.argv[1]))
print(j["Proofs"][0]["PoStProof"] if sys.argv[2] == "proof" else base64.b64decode(j["Randomness"]).hex())' "$1" "$2"
}
# The C1 output's registered proof, as its number (RegisteredSealProof, 2KiB forms).
SEAL_PROOF=$("$PY" -c 'import json, sys
n = json.load(open(sys.argv[1]))["registered_proof"]
print({"StackedDrg2KiBV1": 0, "StackedDrg2KiBV1_1": 5, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep": 10,
       "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep": 15}.get(n, "unknown " + n))' "$S/c1.json")
eq "$SEAL_PROOF" 5 "the C1 output's registered proof (StackedDrg2KiBV1_1)"

E=unix://$T/e.sock
mkdir -p "$T/je"
{
  echo "[daemon]"
  echo "listen = \"$E\""
  echo "status_listen = \"127.0.0.1:$(free_port)\""
  echo "journal = \"$T/je\""
  echo "[devices]"
  echo "list = [\"cpu\"]"
  echo "[[circuits]]"
  echo "id = \"porep-bls\""
  echo "zkey = \"$BLS/circuit.zkey\""
  echo "[filecoin]"
  echo "params_dir = \"$P\""
} > "$T/e.toml"
start_daemon e "$T/e.toml" "$E"
verdict "daemon E starts with params_dir $P" e
EPID=$DPID

# proof_of NAME: the proof bytes of the last answer ($R) into $T/NAME.bin
proof_of() { "$PY" -c 'import json, sys
d = json.loads(sys.argv[1]); r = d["response"].get("result", d["response"])
open(sys.argv[2], "wb").write(bytes.fromhex(r.get("proof_hex", "")))' "$R" "$T/$1.bin"; }
status_of() { jv 'd["response"].get("result", d["response"]).get("status", "")'; }

# 1. PoRep C2 from the C1 output: SubmitProof, then AwaitProof.
rpc "$E" submit kind=POREP_SEAL_COMMIT registered_proof="$SEAL_PROOF" sector_size=2048 vanilla_proof=@"$S/c1.json" \
  request_id=porep-1000-1 priority=NORMAL
eq "$CODE" OK "SubmitProof of the C1 output ($DETAILS)"
JOB=$(jv 'd["response"]["job_id"]')
rpc "$E" submit kind=POREP_SEAL_COMMIT registered_proof="$SEAL_PROOF" sector_size=2048 vanilla_proof=@"$S/c1.json" \
  request_id=porep-1000-1
eq "$(jv 'd["response"]["job_id"]')" "$JOB" "the job of the same request_id submitted again"
rpc "$E" await job_id="$JOB" timeout_ms=0
eq "$CODE" OK "AwaitProof ($DETAILS)"
eq "$(status_of)" COMPLETED "AwaitProof's status ($(jv 'd["response"].get("error_message", "")'))"
eq "$(jv 'd["response"]["proof_len"]')" 192 "the PoRep proof's bytes"
[ "$(jv 'int(d["response"]["total_ms"])')" -gt 0 ] 2>/dev/null || note "total_ms: $(jv 'd["response"]["total_ms"]')"
proof_of porep
"$CUZK" filecoin verify --kind porep --params "$P" --public "$S/sector.json" "$T/porep.bin" > "$T/v-porep.out" 2>&1 ||
  note "cuzk filecoin verify of the PoRep proof: $(tail -n 2 "$T/v-porep.out")"
"$PY" -c "import sys; b=bytearray(open(sys.argv[1],'rb').read() or bytes(192)); b[100]^=1; open(sys.argv[2],'wb').write(b)" \
  "$T/porep.bin" "$T/porep-flip.bin"
"$CUZK" filecoin verify --kind porep --params "$P" --public "$S/sector.json" "$T/porep-flip.bin" > "$T/v-flip.out" 2>&1 &&
  note "cuzk filecoin verify accepted the PoRep proof with a flipped bit"
verdict "PoRep C1 (2KiB, registered proof 5) through SubmitProof/AwaitProof: COMPLETED, 192 bytes that cuzk filecoin verify accepts (a flipped bit refused); the same request_id returns the same job" e

# 2. WindowPoSt (SubmitProof + AwaitProof) and WinningPoSt (Prove).
for k in window-post winning-post; do
  if [ $k = window-post ]; then kind=WINDOW_POST_PARTITION prio=HIGH; else kind=WINNING_POST prio=CRITICAL; fi
  reg=$(pubv "$S/$k.json" proof) rnd=$(pubv "$S/$k.json" randomness)
  if [ $k = window-post ]; then
    rpc "$E" submit kind=$kind registered_proof="$reg" vanilla_proofs=@"$S/$k.vproof" randomness_hex="$rnd" \
      partition_index=0 priority=$prio
    eq "$CODE" OK "SubmitProof of the $k ($DETAILS)"
    rpc "$E" await job_id="$(jv 'd["response"]["job_id"]')" timeout_ms=600000
  else
    rpc "$E" prove kind=$kind registered_proof="$reg" vanilla_proofs=@"$S/$k.vproof" randomness_hex="$rnd" priority=$prio
  fi
  eq "$CODE" OK "the $k's answer ($DETAILS)"
  eq "$(status_of)" COMPLETED "the $k's status ($(jv 'd["response"].get("result", d["response"]).get("error_message", "")'))"
  proof_of $k
  "$CUZK" filecoin verify --kind $k --params "$P" --public "$S/$k.json" "$T/$k.bin" > "$T/v-$k.out" 2>&1 ||
    note "cuzk filecoin verify of the $k proof: $(tail -n 2 "$T/v-$k.out")"
done
verdict "WindowPoSt (SubmitProof/AwaitProof) and WinningPoSt (Prove) from their vanilla proofs: COMPLETED, cuzk filecoin verify accepts both" e

# 3. SnapDeals from its partition proofs, the commitments as 32 raw bytes each.
snapv() { "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$S/snap.json" "$1"; }
parts=$(ls "$S"/snap-partition-*.vproof 2>/dev/null | sort -V | sed 's/^/@/' | paste -sd, -)
if [ -z "$parts" ] || [ ! -s "$S/snap.json" ]; then
  note "the fixture has no SnapDeals update (snap.json, snap-partition-*.vproof)"
else
  rpc "$E" prove kind=SNAP_DEALS_UPDATE registered_proof="$(snapv registered_update_proof)" vanilla_proofs="$parts" \
    comm_r_old_hex="$(snapv comm_r_old)" comm_r_new_hex="$(snapv comm_r_new)" comm_d_new_hex="$(snapv comm_d_new)"
  eq "$CODE" OK "Prove of the SnapDeals update ($DETAILS)"
  eq "$(status_of)" COMPLETED "the SnapDeals proof's status ($(jv 'd["response"]["result"].get("error_message", "")'))"
  proof_of snap
  "$CUZK" filecoin verify --kind snap --params "$P" --public "$S/snap.json" "$T/snap.bin" > "$T/v-snap.out" 2>&1 ||
    note "cuzk filecoin verify of the SnapDeals proof: $(tail -n 2 "$T/v-snap.out")"
fi
verdict "SnapDeals (Prove) from its partition proofs and commitments: COMPLETED, cuzk filecoin verify accepts it" e

# 4. Status, preload by Curio's name, cancel of an ended job; cuzk's own API beside it.
rpc "$E" status
eq "$(jv 'd["response"]["total_proofs_completed"]')" 4 "total_proofs_completed"
has_text "$(jv '[s["circuit_id"] for s in d["response"]["loaded_srs"]]')" "porep-2KiB" "loaded_srs"
rpc "$E" preload circuit_id=porep-2k
eq "$CODE" OK "PreloadSRS porep-2k ($DETAILS)"
rpc "$E" cancel job_id="$JOB"
eq "$CODE" OK "CancelProof of an ended job"
eq "$(jv 'd["response"]["was_running"]')" False "CancelProof of an ended job: was_running"
rpc "$E" metrics
has_text "$(jv 'd["response"]["prometheus_text"]')" 'cuzk_filecoin_proofs_total{kind="POREP_SEAL_COMMIT",outcome="COMPLETED"} 1' "GetMetrics"
if timeout 60 "$CUZK" submit --daemon "$E" --circuit porep-bls --partitions "$BLS/witness_2.wtns" > "$T/gsub.out" 2> "$T/gsub.err" &&
    timeout 120 "$CUZK" await --daemon "$E" "$(tail -n 1 "$T/gsub.out")" --out "$T/generic-e" > "$T/gawait.out" 2>&1; then
  timeout 60 "$CUZK" verify "$BLS/verification_key.json" "$T/generic-e/public_0.json" "$T/generic-e/proof_0.json" \
    > "$T/gverify.out" 2>&1 || note "cuzk verify of the generic proof: $(tail -n 2 "$T/gverify.out")"
else
  note "cuzk submit / await on daemon E: $(cat "$T/gsub.err" "$T/gawait.out" 2>/dev/null | tail -n 2)"
fi
verdict "GetStatus counts 4 proofs and lists porep-2KiB, PreloadSRS porep-2k, CancelProof of an ended job, GetMetrics; cuzk.groth16.v1 proves beside them" e
stop_daemon "$EPID"
