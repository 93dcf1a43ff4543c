// SPDX-License-Identifier: MIT OR Apache-2.0
// Client commands of `cuzk` against a running daemon: submit, await, status, cancel, preload,
// evict, loadgen. Addresses are the daemon's listen strings (unix:///path.sock or HOST:PORT);
// the token comes from --token or CUZK_TOKEN.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "cuzk/groth16/v1/engine.grpc.pb.h"
#include "cuzk/prove.hpp"
#include "daemon/config.hpp"
#include "daemon/service_util.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/progress.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

namespace cuzk::app {

namespace {

namespace detail = daemon::detail;
namespace v1 = daemon::v1;  // cuzk.groth16.v1
using cli::Args;
using cli::UsageError;

// The items of a comma-separated list, empty ones left out.
std::vector<std::string> items(const std::string& s) {
  std::vector<std::string> out;
  for (auto& x : cuzk::split(s, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Client {
  std::unique_ptr<v1::ProvingEngine::Stub> stub;
  std::string token;
  Client(const std::string& addr, const std::string& tok) : token(tok) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    stub = v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(addr, grpc::InsecureChannelCredentials(), args));
  }
  void prepare(grpc::ClientContext& c, double deadline_s = 0) const {
    if (!token.empty()) c.AddMetadata("authorization", "Bearer " + token);
    if (deadline_s > 0)
      c.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(int64_t(deadline_s * 1000)));
  }
};

const char* code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    default:
      return "ERROR";
  }
}

struct RpcError : Error {
  grpc::StatusCode code;
  RpcError(const grpc::Status& s)
      : Error(std::string(code_name(s.error_code())) + ": " + s.error_message()), code(s.error_code()) {}
};
void ok_or_throw(const grpc::Status& s) {
  if (!s.ok()) throw RpcError(s);
}

using detail::state_name;

v1::Priority priority_of(const std::string& p) {
  if (p.empty()) return v1::NORMAL;
  try {
    return detail::to_proto(engine::parse_priority(p));
  } catch (const InvalidArgument& e) {
    throw UsageError(e.what());
  }
}

// The files of `cuzk prove --out` whose names do not depend on the job (proof_<i>.json and
// public_<i>.json are checked when they are written).
std::vector<std::string> fixed_outputs(const std::string& dir) {
  return {dir + "/proofs.bin", dir + "/summary.json", dir + "/timeline.svg"};
}

// The files of `cuzk prove --out`, written all or nothing (regular files only).
void write_outputs(const v1::JobResult& r, const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, std::string>> files;
  std::string bin;
  for (auto& p : r.results()) {
    files.push_back({dir + "/proof_" + std::to_string(p.index()) + ".json", p.proof_json()});
    files.push_back({dir + "/public_" + std::to_string(p.index()) + ".json", p.public_json()});
    bin += p.proof_compressed();
  }
  files.push_back({dir + "/proofs.bin", bin});
  files.push_back({dir + "/summary.json", r.summary_json()});
  files.push_back({dir + "/timeline.svg", r.timeline_svg()});
  write_files_atomically(files);
}

// A yes/no option: 1, true, yes, on or 0, false, no, off (any case); absent: false. Anything else
// is a usage error, not a silent "no".
bool yes_no(const Args& o, const std::string& name) {
  const auto v = o.get(name);
  if (!v) return false;
  std::string s = *v;
  for (auto& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  throw UsageError(name + ": expected 1, 0, true, false, yes, no, on or off, got '" + *v + "'");
}

// --by-path 1: the daemon reads the witness files in place (they must be under its witness_dirs).
bool by_path(const Args& o) {
  const bool paths = yes_no(o, "--by-path"), stream = yes_no(o, "--stream");
  if (paths && stream) throw UsageError("--by-path 1 and --stream 1 exclude each other");
  return paths;
}

v1::SubmitProofRequest submit_request(const Args& o, const std::string& request_id) {
  v1::SubmitProofRequest q;
  q.set_circuit_id(o.value("--circuit"));
  q.set_request_id(request_id);
  q.set_priority(priority_of(o.get_or("--priority", "")));
  q.set_kind(v1::GROTH16);
  auto paths = items(o.value("--partitions"));
  if (paths.empty()) throw UsageError("--partitions: no witness files");
  if (by_path(o)) {
    for (auto& p : paths) q.add_partition_paths(std::filesystem::absolute(p).lexically_normal().string());
    return q;
  }
  for (auto& p : paths) q.add_partitions(read_file(p));
  return q;
}

// The witnesses in pieces (SubmitProofStream): no file is held whole in memory, and a job is not
// bounded by one gRPC message.
v1::SubmitProofResponse submit_streamed(Client& c, const Args& o, const std::string& request_id) {
  v1::SubmitChunk head;
  auto* h = head.mutable_header();
  h->set_circuit_id(o.value("--circuit"));
  h->set_request_id(request_id);
  h->set_priority(priority_of(o.get_or("--priority", "")));
  h->set_kind(v1::GROTH16);
  auto paths = items(o.value("--partitions"));
  if (paths.empty()) throw UsageError("--partitions: no witness files");
  head.set_partitions(uint32_t(paths.size()));
  uint64_t total = 0;  // announced: the daemon reserves room on its journal's filesystem at once
  for (auto& p : paths) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(p, ec);
    if (!ec) total += n;
  }
  head.set_witness_bytes(total);
  grpc::ClientContext ctx;
  c.prepare(ctx, 3600);
  v1::SubmitProofResponse r;
  auto w = c.stub->SubmitProofStream(&ctx, &r);
  bool ok = w->Write(head);
  std::vector<char> buf(size_t(4) << 20);
  for (size_t i = 0; ok && i < paths.size(); ++i) {
    std::ifstream f(paths[i], std::ios::binary);
    if (!f) throw Error("cannot read " + paths[i]);
    bool any = false;
    while (ok && (f.read(buf.data(), std::streamsize(buf.size())), f.gcount() > 0 || !any)) {
      v1::SubmitChunk ch;
      ch.set_index(uint32_t(i));
      ch.set_data(buf.data(), size_t(f.gcount()));
      ok = w->Write(ch);
      any = true;
      if (f.gcount() < std::streamsize(buf.size())) break;
    }
  }
  w->WritesDone();
  ok_or_throw(w->Finish());
  return r;
}

// The witness files' bytes in all, and whether they go in pieces: over 32 MiB, or with --stream 1.
size_t witness_bytes(const Args& o) {
  size_t total = 0;
  for (auto& p : items(o.value("--partitions"))) {
    std::error_code ec;
    total += size_t(std::filesystem::file_size(p, ec));
  }
  return total;
}
bool streams(const Args& o, size_t total) {
  return !by_path(o) && (yes_no(o, "--stream") || total > (size_t(32) << 20));
}

int do_submit(Client& c, const Args& o) {
  const std::string request_id = o.get_or("--request-id", "");
  const size_t total = witness_bytes(o);
  if (streams(o, total)) {
    auto r = submit_streamed(c, o, request_id);
    if (r.existing())
      std::fprintf(stderr, "cuzk: request_id %s already had this job\n", request_id.c_str());
    else
      std::fprintf(stderr, "cuzk: job accepted (%zu bytes of witnesses streamed)\n", total);
    std::printf("%s\n", r.job_id().c_str());
    return 0;
  }
  auto q = submit_request(o, request_id);
  grpc::ClientContext ctx;
  c.prepare(ctx, 600);
  v1::SubmitProofResponse r;
  ok_or_throw(c.stub->SubmitProof(&ctx, q, &r));
  if (r.existing())
    std::fprintf(stderr, "cuzk: request_id %s already had this job\n", q.request_id().c_str());
  else
    std::fprintf(stderr, "cuzk: job accepted (%d partitions of %s%s)\n", q.partitions_size() + q.partition_paths_size(),
                 q.circuit_id().c_str(), q.partition_paths_size() ? ", read in place by the daemon" : "");
  std::printf("%s\n", r.job_id().c_str());
  return 0;
}

// Polls AwaitProof until the job ends (done, failed or cancelled), retrying while the daemon is
// not answering (a restart); an error after timeout_s seconds (0: none). Progress on stderr when
// `progress`; `notes` says once that the daemon is not answering.
v1::JobResult wait_for_end(Client& c, v1::AwaitProofRequest q, double timeout_s, bool progress, bool notes) {
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  bool said_unavailable = false;
  v1::JobResult r;
  for (;;) {
    q.set_timeout_ms(1000);
    grpc::ClientContext ctx;
    c.prepare(ctx, 30);
    grpc::Status st = c.stub->AwaitProof(&ctx, q, &r);
    if (!st.ok()) {
      if (st.error_code() != grpc::StatusCode::UNAVAILABLE && st.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED)
        throw RpcError(st);
      if (notes && !said_unavailable)
        std::fprintf(stderr, "cuzk: the daemon is not answering (%s); retrying\n", st.error_message().c_str());
      said_unavailable = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    } else {
      said_unavailable = false;
      if (r.state() == v1::DONE || r.state() == v1::FAILED || r.state() == v1::CANCELLED) return r;
      if (progress)
        std::fprintf(stderr, "\rcuzk: job %s: %s, %u of %u partitions done, %.1f s   ", r.job_id().c_str(),
                     state_name(r.state()), r.partitions_done(), r.partitions(), elapsed());
    }
    if (timeout_s > 0 && elapsed() > timeout_s)
      throw Error("job " + (q.job_id().empty() ? "of request " + q.request_id() : q.job_id()) +
                  " has not ended after " + std::to_string(int(timeout_s)) + " s");
  }
}

int do_await(Client& c, const Args& o) {
  v1::AwaitProofRequest q;
  if (!o.pos.empty()) q.set_job_id(o.pos[0]);
  q.set_request_id(o.get_or("--request-id", ""));
  if (q.job_id().empty() == q.request_id().empty()) throw UsageError("takes a job id or --request-id R");
  const std::string out = o.value("--out");
  check_output_paths(fixed_outputs(out));  // before the wait, not after it
  const double timeout_s = std::atof(o.get_or("--timeout", "0").c_str());
  const bool tty = ::isatty(2);
  v1::JobResult r = wait_for_end(c, q, timeout_s, tty, true);
  if (tty) std::fprintf(stderr, "\n");
  if (r.state() != v1::DONE)
    throw Error("job " + r.job_id() + " " + state_name(r.state()) + (r.error().empty() ? "" : ": " + r.error()) +
                "; nothing written");
  write_outputs(r, out);
  for (auto& p : r.results()) {
    const auto& t = p.timings();
    std::fprintf(stderr,
                 "cuzk: partition %u on %s worker %d: synthesis %.1f, stage %.1f (budget wait %.1f), lock wait %.1f, "
                 "kernels %.1f, finish %.1f ms\n",
                 p.index(), p.device().c_str(), p.worker(), t.synthesis_ms(), t.stage_ms(), t.budget_wait_ms(),
                 t.lock_wait_ms(), t.kernels_ms(), t.finish_ms());
  }
  std::fprintf(stderr, "cuzk: job %s: %d proofs in %.1f ms, written to %s\n", r.job_id().c_str(), r.results_size(),
               r.wall_ms(), out.c_str());
  return 0;
}

int do_status(Client& c) {
  grpc::ClientContext ctx;
  c.prepare(ctx, 30);
  v1::GetStatusResponse r;
  ok_or_throw(c.stub->GetStatus(&ctx, v1::GetStatusRequest(), &r));
  std::printf("%s\n", r.status_json().c_str());
  return 0;
}

int do_cancel(Client& c, const Args& o) {
  v1::CancelProofRequest q;
  if (!o.pos.empty()) q.set_job_id(o.pos[0]);
  q.set_request_id(o.get_or("--request-id", ""));
  if (q.job_id().empty() == q.request_id().empty()) throw UsageError("takes a job id or --request-id R");
  grpc::ClientContext ctx;
  c.prepare(ctx, 30);
  v1::CancelProofResponse r;
  ok_or_throw(c.stub->CancelProof(&ctx, q, &r));
  std::printf("%s\n",
              r.cancelled() ? "cancelled" : (std::string("not cancelled: already ") + state_name(r.state())).c_str());
  return 0;
}

int do_srs(Client& c, const Args& o, bool preload) {
  v1::SrsRequest q;
  q.set_circuit_id(o.value("--circuit"));
  q.set_device(o.get_or("--device", ""));
  grpc::ClientContext ctx;
  c.prepare(ctx, 600);
  v1::SrsResponse r;
  std::optional<term::Activity> busy;
  if (preload)
    busy.emplace("preloading " + q.circuit_id() + " on " + (q.device().empty() ? "every device" : q.device()));
  ok_or_throw(preload ? c.stub->PreloadSRS(&ctx, q, &r) : c.stub->EvictSRS(&ctx, q, &r));
  busy.reset();
  std::string d;
  for (auto& x : r.devices()) d += (d.empty() ? "" : ",") + x;
  std::printf("%s %s on %s\n", preload ? "preloaded" : "evicted", q.circuit_id().c_str(),
              d.empty() ? "no device" : d.c_str());
  return 0;
}

// Each job a Prove call (one message), or, when the witnesses go in pieces (see streams()),
// SubmitProofStream then AwaitProof: the latency covers both.
int do_loadgen(const Args& o, const std::string& addr, const std::string& token) {
  const bool stream = streams(o, witness_bytes(o));
  v1::SubmitProofRequest base;
  if (stream) {
    base.set_circuit_id(o.value("--circuit"));
  } else {
    base = submit_request(o, "");
  }
  const int parts = int(items(o.value("--partitions")).size());
  const int jobs = std::atoi(o.value("--jobs").c_str());
  const int clients = std::max(1, std::atoi(o.get_or("--clients", "4").c_str()));
  if (jobs < 1) throw UsageError("--jobs must be at least 1");
  const std::string out = o.get_or("--out", "");
  std::atomic<int> next{0}, failed{0};
  for (int i = 0; i < jobs && !out.empty(); ++i) check_output_paths(fixed_outputs(out + "/job_" + std::to_string(i)));
  std::mutex mu;
  std::vector<double> lat;
  std::string first_error;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> ts;
  for (int k = 0; k < clients; ++k)
    ts.emplace_back([&, k] {
      Client c(addr, token);  // a connection of its own
      for (int i; (i = next++) < jobs;) {
        auto s0 = std::chrono::steady_clock::now();
        v1::JobResult r;
        std::string err;
        if (stream) {
          try {
            v1::AwaitProofRequest aq;
            aq.set_job_id(submit_streamed(c, o, "").job_id());
            r = wait_for_end(c, aq, 3600, false, false);
          } catch (const std::exception& e) {
            err = e.what();
          }
        } else {
          v1::ProveRequest q;
          *q.mutable_submit() = base;
          grpc::ClientContext ctx;
          c.prepare(ctx, 3600);
          grpc::Status st = c.stub->Prove(&ctx, q, &r);
          if (!st.ok()) err = RpcError(st).what();
        }
        const double ms = ms_since(s0);
        if (err.empty() && r.state() != v1::DONE) err = std::string(state_name(r.state())) + ": " + r.error();
        if (err.empty() && !out.empty()) {
          try {
            write_outputs(r, out + "/job_" + std::to_string(i));
          } catch (const std::exception& e) {
            err = e.what();
          }
        }
        std::lock_guard lk(mu);
        if (err.empty())
          lat.push_back(ms);
        else if (++failed == 1)
          first_error = err;
      }
      (void)k;
    });
  for (auto& t : ts) t.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double p) {
    return lat.empty() ? 0.0 : lat[std::min(lat.size() - 1, size_t(p * double(lat.size() - 1) + 0.5))];
  };
  std::printf(
      "loadgen: %d jobs x %d partitions of %s over %d connections: %zu done, %d failed in %.2f s = %.2f jobs/s; "
      "latency p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
      jobs, parts, base.circuit_id().c_str(), clients, lat.size(), failed.load(), wall, double(lat.size()) / wall,
      pct(0.5), pct(0.99), lat.empty() ? 0.0 : lat.back());
  if (failed) std::printf("loadgen: first failure: %s\n", first_error.c_str());
  return failed ? 1 : 0;
}

std::string token_of(const Args& o) {
  std::string token = o.get_or("--token", "");
  if (token.empty())
    if (const char* t = std::getenv("CUZK_TOKEN")) token = t;
  return token;
}

// The daemon's address; a unix socket that is not there is named (with where the address came
// from) before gRPC tries it.
std::string address_of(const Args& o) {
  const std::string given = o.get_or("--daemon", "");
  const std::string addr = daemon::client_address(given);
  const std::string path = daemon::unix_path(addr);
  if (!path.empty() && !std::filesystem::exists(path)) {
    const char* env = std::getenv("CUZK_DAEMON");
    throw Error("no daemon socket at " + addr +
                (!given.empty() ? ""
                 : env && *env  ? " (from $CUZK_DAEMON)"
                                : " (the default address; give --daemon ADDR or set $CUZK_DAEMON)"));
  }
  return addr;
}

Client connect(const Args& o) { return Client(address_of(o), token_of(o)); }

// Each command's declaration (apps/net_specs.cpp) with its body.
Command with_client(const char* name, int (*body)(Client&, const Args&)) {
  return {network_spec(name), [body](const Args& o) {
            Client c = connect(o);
            return body(c, o);
          }};
}

}  // namespace

std::vector<Command> client_commands() {
  return {with_client("submit", do_submit),
          with_client("await", do_await),
          with_client("status", [](Client& c, const Args&) { return do_status(c); }),
          with_client("cancel", do_cancel),
          with_client("preload", [](Client& c, const Args& o) { return do_srs(c, o, true); }),
          with_client("evict", [](Client& c, const Args& o) { return do_srs(c, o, false); }),
          {network_spec("loadgen"),
           [](const Args& o) { return do_loadgen(o, daemon::client_address(o.get_or("--daemon", "")), token_of(o)); }}};
}

}  // namespace cuzk::app
