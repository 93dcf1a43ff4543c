#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""One call of Curio's API (cuzk.v1.ProvingEngine) through a client generated from
proto/cuzk/v1/proving.proto by grpc_tools.protoc (the generated modules under GEN_DIR).

usage: curio_client.py GEN_DIR ADDRESS RPC [key=value ...] [--token T]
  RPC: status, metrics, submit, await, prove, cancel, preload, evict
  submit / prove: kind=POREP_SEAL_COMMIT registered_proof=5 vanilla_proof=@FILE or text,
    vanilla_proofs=@F1,@F2 randomness_hex=.. randomness_len=N comm_r_old_hex=.. request_id=..
    priority=HIGH sector_size=N partition_index=N timeout_ms=N
  await: job_id=.. timeout_ms=N;  cancel: job_id=..;  preload / evict: circuit_id=..
Prints one JSON object: {"code": "OK" or the gRPC status name, "details": ..., "response": {...}}
(bytes fields as their length and, for proof, the hex of the bytes in "proof_hex").
"""
import json
import sys


def value(v):
    if v.startswith("@"):
        with open(v[1:], "rb") as f:
            return f.read()
    return v.encode()


def main():
    args = sys.argv[1:]
    token = None
    if "--token" in args:
        i = args.index("--token")
        token = args[i + 1]
        del args[i : i + 2]
    gen, addr, rpc = args[0], args[1], args[2]
    kv = dict(a.split("=", 1) for a in args[3:])
    sys.path.insert(0, gen)
    import grpc
    from cuzk.v1 import proving_pb2 as pb
    from cuzk.v1 import proving_pb2_grpc as pbg

    opts = [("grpc.max_send_message_length", 256 << 20), ("grpc.max_receive_message_length", 256 << 20)]
    ch = grpc.insecure_channel(addr, options=opts)
    stub = pbg.ProvingEngineStub(ch)
    md = [("authorization", "Bearer " + token)] if token else None

    def submit_request():
        q = pb.SubmitProofRequest()
        q.request_id = kv.get("request_id", "")
        q.proof_kind = pb.ProofKind.Value(kv.get("kind", "POREP_SEAL_COMMIT"))
        q.priority = pb.Priority.Value(kv.get("priority", "NORMAL"))
        q.registered_proof = int(kv.get("registered_proof", "0"))
        q.sector_size = int(kv.get("sector_size", "0"))
        q.partition_index = int(kv.get("partition_index", "0"))
        if "vanilla_proof" in kv:
            q.vanilla_proof = value(kv["vanilla_proof"])
        if "vanilla_proofs" in kv:
            q.vanilla_proofs.extend(value(v) for v in kv["vanilla_proofs"].split(","))
        if "randomness_hex" in kv:
            q.randomness = bytes.fromhex(kv["randomness_hex"])
        if "randomness_len" in kv:
            q.randomness = bytes(range(int(kv["randomness_len"])))
        for c in ("comm_r_old", "comm_r_new", "comm_d_new"):
            if c + "_hex" in kv:
                setattr(q, c, bytes.fromhex(kv[c + "_hex"]))
        return q

    timeout = float(kv.get("deadline_s", "600"))
    try:
        if rpc == "status":
            r = stub.GetStatus(pb.GetStatusRequest(), metadata=md, timeout=timeout)
        elif rpc == "metrics":
            r = stub.GetMetrics(pb.GetMetricsRequest(), metadata=md, timeout=timeout)
        elif rpc == "submit":
            r = stub.SubmitProof(submit_request(), metadata=md, timeout=timeout)
        elif rpc == "prove":
            r = stub.Prove(pb.ProveRequest(submit=submit_request()), metadata=md, timeout=timeout)
        elif rpc == "await":
            q = pb.AwaitProofRequest(job_id=kv.get("job_id", ""), timeout_ms=int(kv.get("timeout_ms", "0")))
            r = stub.AwaitProof(q, metadata=md, timeout=timeout)
        elif rpc == "cancel":
            r = stub.CancelProof(pb.CancelProofRequest(job_id=kv.get("job_id", "")), metadata=md, timeout=timeout)
        elif rpc == "preload":
            r = stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id=kv.get("circuit_id", "")), metadata=md, timeout=timeout)
        elif rpc == "evict":
            r = stub.EvictSRS(pb.EvictSrsRequest(circuit_id=kv.get("circuit_id", "")), metadata=md, timeout=timeout)
        else:
            sys.exit("curio_client: unknown rpc " + rpc)
    except grpc.RpcError as e:
        print(json.dumps({"code": e.code().name, "details": e.details() or "", "response": {}}))
        return
    from google.protobuf import json_format

    d = json_format.MessageToDict(r, preserving_proto_field_name=True, including_default_value_fields=True)
    result = r.result if rpc == "prove" else r
    if rpc in ("await", "prove"):
        res = d["result"] if rpc == "prove" else d
        res["proof_len"] = len(result.proof)
        res["proof_hex"] = result.proof.hex()
        res.pop("proof", None)
    print(json.dumps({"code": "OK", "details": "", "response": d}))


if __name__ == "__main__":
    main()
