// SPDX-License-Identifier: MIT OR Apache-2.0
// Requests that `cuzk submit` never sends, for the daemon's tests: a witness path with a NUL byte
// in it, and a streamed upload whose header comes twice. Prints "OK <job id>" or
// "<gRPC code name>: <message>"; exits 0 when the daemon accepted the request, 1 when it refused it,
// 2 on wrong usage.
//
//   raw_client ADDR nul-path CIRCUIT PATH SUFFIX      partition_paths = PATH + '\0' + SUFFIX
//   raw_client ADDR second-header CIRCUIT WTNS        header, header again, then WTNS's bytes
#include <cstdio>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <iterator>
#include <string>

#include "cuzk/groth16/v1/engine.grpc.pb.h"

namespace {

const char* code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    default:
      return "ERROR";
  }
}

int report(const grpc::Status& s, const cuzk::groth16::v1::SubmitProofResponse& r) {
  if (s.ok()) {
    std::printf("OK %s\n", r.job_id().c_str());
    return 0;
  }
  std::printf("%s: %s\n", code_name(s.error_code()), s.error_message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 && argc != 5) {
    std::fprintf(stderr, "usage: raw_client ADDR nul-path CIRCUIT PATH SUFFIX | ADDR second-header CIRCUIT WTNS\n");
    return 2;
  }
  const std::string addr = argv[1], mode = argv[2], circuit = argv[3];
  auto stub = cuzk::groth16::v1::ProvingEngine::NewStub(grpc::CreateChannel(addr, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  cuzk::groth16::v1::SubmitProofResponse r;
  if (mode == "nul-path" && argc == 6) {
    cuzk::groth16::v1::SubmitProofRequest q;
    q.set_circuit_id(circuit);
    q.set_kind(cuzk::groth16::v1::GROTH16);
    q.add_partition_paths(std::string(argv[4]) + std::string(1, '\0') + argv[5]);
    return report(stub->SubmitProof(&ctx, q, &r), r);
  }
  if (mode == "second-header" && argc == 5) {
    std::ifstream f(argv[4], std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    cuzk::groth16::v1::SubmitChunk head;
    head.mutable_header()->set_circuit_id(circuit);
    head.mutable_header()->set_kind(cuzk::groth16::v1::GROTH16);
    head.set_partitions(1);
    auto w = stub->SubmitProofStream(&ctx, &r);
    w->Write(head);
    w->Write(head);  // index 0, no data: looks like the first piece of witness 0
    cuzk::groth16::v1::SubmitChunk piece;
    piece.set_index(0);
    piece.set_data(bytes);
    w->Write(piece);
    w->WritesDone();
    return report(w->Finish(), r);
  }
  std::fprintf(stderr, "raw_client: unknown mode or wrong arguments\n");
  return 2;
}
