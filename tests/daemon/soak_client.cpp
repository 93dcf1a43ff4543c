// SPDX-License-Identifier: MIT OR Apache-2.0
// The soak tests' client (tests/daemon/soak.sh, tests/farm/farm-soak.sh): thousands of jobs, each
// with its own request_id, from a few processes instead of a `cuzk submit` each, retried through
// daemon restarts; then every job awaited by its request_id. What the daemons answered is printed
// line by line, for the scripts to check.
//
//   soak_client submit ADDRS TOKEN CIRCUIT PREFIX FROM TO CLIENTS PACE_MS W0 [W1 ...]
//     request ids PREFIX-<i> for FROM <= i < TO, over CLIENTS connections (a thread each), witness
//     W<i mod n> (one partition), PACE_MS between one thread's submissions; a request the daemon
//     could not answer (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, UNKNOWN: a restart) is sent
//     again, to the next address of ADDRS (comma-separated), until it is answered (120 s at most,
//     30 s when no request of the process has been answered for that long).
//     Prints "ack <request_id> <job_id> <existing 0|1> <attempts>" per acknowledged job, or
//     "err <request_id> <CODE>: <message>" per refusal; exits 0 if every request was acknowledged.
//   soak_client await ADDRS TOKEN OUTDIR CLIENTS < REQUEST_IDS
//     AwaitProof by request_id (one per line of stdin) until the job ends, retrying while no daemon
//     answers (as long as submit does); prints "<request_id> <job_id> <STATE> <results> <error>" and, for a DONE job, writes
//     OUTDIR/<request_id>.proof.json and .public.json (its partition 0). NOT_FOUND and other
//     refusals are printed as the state. Exits 0 once every request id has a line.
//
// TOKEN "-" means none. Exit 2 on wrong usage.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuzk/groth16/v1/engine.grpc.pb.h"

namespace {

namespace v1 = cuzk::groth16::v1;
using Clock = std::chrono::steady_clock;

const char* code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    default:
      return "ERROR";
  }
}

// What a restart or a kill -9 looks like from the client: the request may or may not have been
// acknowledged; sending it again with its request_id is safe.
bool transient(grpc::StatusCode c) {
  return c == grpc::StatusCode::UNAVAILABLE || c == grpc::StatusCode::DEADLINE_EXCEEDED ||
         c == grpc::StatusCode::CANCELLED || c == grpc::StatusCode::UNKNOWN;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s.empty() ? "-" : s;
}

// One connection per address; reconnects quickly after a restart (gRPC's default backoff grows to
// 2 minutes).
struct Conn {
  std::vector<std::unique_ptr<v1::ProvingEngine::Stub>> stubs;
  std::string token;
  Conn(const std::vector<std::string>& addrs, const std::string& tok) : token(tok == "-" ? "" : tok) {
    for (auto& a : addrs) {
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(-1);
      args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
      stubs.push_back(
          v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(a, grpc::InsecureChannelCredentials(), args)));
    }
  }
  void prepare(grpc::ClientContext& c, int deadline_ms) const {
    if (!token.empty()) c.AddMetadata("authorization", "Bearer " + token);
    c.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms));
  }
};

std::mutex out_mu;
void emit(const std::string& line) {
  std::lock_guard lk(out_mu);
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "soak_client: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

bool write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
  return bool(f.flush());
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// When an RPC of this process last got an answer: a request is given up after 120 s, or after 30 s
// without any answer at all (no daemon is coming back), so that a dead daemon fails the run in
// seconds instead of hours.
std::atomic<int64_t> last_answer_ms{0};
int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}
void answered() { last_answer_ms = now_ms(); }
bool give_up(Clock::time_point t0) {
  const int64_t t0_ms = std::chrono::duration_cast<std::chrono::milliseconds>(t0.time_since_epoch()).count();
  return seconds_since(t0) > 120 || now_ms() - std::max(t0_ms, last_answer_ms.load()) > 30000;
}

int submit(int argc, char** argv) {
  if (argc < 11) return 2;
  const auto addrs = split(argv[2]);
  const std::string token = argv[3], circuit = argv[4], prefix = argv[5];
  const long from = std::atol(argv[6]), to = std::atol(argv[7]);
  const int clients = std::max(1, std::atoi(argv[8])), pace_ms = std::atoi(argv[9]);
  std::vector<std::string> witnesses;
  for (int i = 10; i < argc; ++i) witnesses.push_back(read_file(argv[i]));
  if (addrs.empty() || to < from) return 2;
  std::atomic<long> next{from};
  std::atomic<int> refused{0}, retries{0};
  std::vector<std::thread> ts;
  for (int k = 0; k < clients; ++k)
    ts.emplace_back([&, k] {
      Conn c(addrs, token);
      size_t at = size_t(k) % addrs.size();
      for (long i; (i = next++) < to;) {
        char rid[128];
        std::snprintf(rid, sizeof rid, "%s-%05ld", prefix.c_str(), i);
        v1::SubmitProofRequest q;
        q.set_request_id(rid);
        q.set_circuit_id(circuit);
        q.set_kind(v1::GROTH16);
        q.add_partitions(witnesses[size_t(i) % witnesses.size()]);
        const auto t0 = Clock::now();
        for (int attempt = 1;; ++attempt) {
          grpc::ClientContext ctx;
          c.prepare(ctx, 10000);
          v1::SubmitProofResponse r;
          const grpc::Status st = c.stubs[at]->SubmitProof(&ctx, q, &r);
          if (st.ok() || !transient(st.error_code())) answered();
          if (st.ok()) {
            emit("ack " + std::string(rid) + " " + r.job_id() + " " + (r.existing() ? "1" : "0") + " " +
                 std::to_string(attempt));
            break;
          }
          if (!transient(st.error_code()) || give_up(t0)) {
            emit("err " + std::string(rid) + " " + code_name(st.error_code()) + ": " + one_line(st.error_message()));
            ++refused;
            break;
          }
          ++retries;
          at = (at + 1) % addrs.size();
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (pace_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pace_ms));
      }
    });
  for (auto& t : ts) t.join();
  std::fprintf(stderr, "soak_client: %ld requests, %d refused, %d sent again after a transient error\n", to - from,
               refused.load(), retries.load());
  return refused ? 1 : 0;
}

int await_all(int argc, char** argv) {
  if (argc != 6) return 2;
  const auto addrs = split(argv[2]);
  const std::string token = argv[3], out = argv[4];
  const int clients = std::max(1, std::atoi(argv[5]));
  std::vector<std::string> rids;
  for (std::string l; std::getline(std::cin, l);)
    if (!l.empty()) rids.push_back(l);
  if (addrs.empty()) return 2;
  std::atomic<size_t> next{0};
  std::vector<std::thread> ts;
  for (int k = 0; k < clients; ++k)
    ts.emplace_back([&, k] {
      Conn c(addrs, token);
      size_t at = size_t(k) % addrs.size();
      for (size_t i; (i = next++) < rids.size();) {
        const std::string& rid = rids[i];
        v1::AwaitProofRequest q;
        q.set_request_id(rid);
        q.set_timeout_ms(2000);
        const auto t0 = Clock::now();
        for (;;) {
          grpc::ClientContext ctx;
          c.prepare(ctx, 10000);
          v1::JobResult r;
          const grpc::Status st = c.stubs[at]->AwaitProof(&ctx, q, &r);
          if (st.ok() || !transient(st.error_code())) answered();
          if (!st.ok() && (!transient(st.error_code()) || give_up(t0))) {
            emit(rid + " - " + code_name(st.error_code()) + " 0 " + one_line(st.error_message()));
            break;
          }
          if (!st.ok()) {
            at = (at + 1) % addrs.size();
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            continue;
          }
          const auto state = r.state();
          if (state != v1::DONE && state != v1::FAILED && state != v1::CANCELLED) {
            if (seconds_since(t0) > 120) {
              emit(rid + " " + r.job_id() + " " + v1::JobState_Name(state) + " 0 not ended after 120 s");
              break;
            }
            continue;
          }
          if (state == v1::DONE && r.results_size() > 0) {
            const auto& p = r.results(0);
            if (!write_file(out + "/" + rid + ".proof.json", p.proof_json()) ||
                !write_file(out + "/" + rid + ".public.json", p.public_json())) {
              emit(rid + " " + r.job_id() + " WRITE_FAILED 0 cannot write under " + out);
              break;
            }
          }
          emit(rid + " " + r.job_id() + " " + v1::JobState_Name(state) + " " + std::to_string(r.results_size()) + " " +
               one_line(r.error()));
          break;
        }
      }
    });
  for (auto& t : ts) t.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int rc = 2;
  if (mode == "submit") rc = submit(argc, argv);
  if (mode == "await") rc = await_all(argc, argv);
  if (rc == 2)
    std::fprintf(stderr,
                 "usage: soak_client submit ADDRS TOKEN CIRCUIT PREFIX FROM TO CLIENTS PACE_MS W0 [W1 ...]\n"
                 "       soak_client await ADDRS TOKEN OUTDIR CLIENTS < REQUEST_IDS\n");
  return rc;
}
