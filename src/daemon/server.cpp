// The daemon's serving loop: the gRPC service cuzk.v1.ProvingEngine and HTTP /metrics and /status
// over the Service; signals; the socket's permissions. `cuzk daemon` (apps/daemon_cmd.cpp) calls it.
#include "daemon/server.hpp"

#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <grpcpp/grpcpp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>

#include "cuzk/prove.hpp"
#include "cuzk/v1/engine.grpc.pb.h"
#include "daemon/service.hpp"
#include "daemon/service_util.hpp"
#include "util/error.hpp"

namespace cuzk::daemon {

namespace {

void log_line(const std::string& s) {
  char ts[32];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
  std::fprintf(stderr, "%s cuzk: %s\n", ts, s.c_str());
  std::fflush(stderr);
}

// Compares without an early exit, so the time taken says nothing of where a guess went wrong.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % (b.empty() ? 1 : b.size())]);
  return diff == 0 && !b.empty();
}

grpc::StatusCode code_of(Rejected::Code c) {
  switch (c) {
    case Rejected::InvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case Rejected::NotFound:
      return grpc::StatusCode::NOT_FOUND;
    case Rejected::ResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case Rejected::FailedPrecondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    default:
      return grpc::StatusCode::UNAVAILABLE;
  }
}

// The files of one streamed upload, in a directory of its own under `root`; removed unless the
// journal took them (moved them away).
class Upload {
 public:
  explicit Upload(const std::string& root) {
    std::filesystem::create_directories(root);
    dir_ = root + "/" + detail::new_job_id();
    if (::mkdir(dir_.c_str(), 0700) != 0) throw Error("cannot create " + dir_);
  }
  ~Upload() {
    close();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  void open(int i) {
    files_.push_back(dir_ + "/p" + std::to_string(i) + ".wtns");
    f_ = std::fopen(files_.back().c_str(), "wb");
    if (!f_) throw Error("cannot write " + files_.back());
  }
  void write(const std::string& b) {
    if (std::fwrite(b.data(), 1, b.size(), f_) != b.size()) throw Error("cannot write " + files_.back());
  }
  void close() {
    if (f_ && std::fclose(f_) != 0) {
      f_ = nullptr;
      throw Error("cannot write " + files_.back());
    }
    f_ = nullptr;
  }
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::string dir_;
  std::vector<std::string> files_;
  FILE* f_ = nullptr;
};

class Rpc final : public v1::ProvingEngine::Service {
 public:
  Rpc(daemon::Service& s, std::string token) : s_(s), token_(std::move(token)) {}

  grpc::Status SubmitProof(grpc::ServerContext* c, const v1::SubmitProofRequest* q,
                           v1::SubmitProofResponse* r) override {
    return guard(c, [&] { *r = s_.submit(*q); });
  }
  grpc::Status SubmitProofStream(grpc::ServerContext* c, grpc::ServerReader<v1::SubmitChunk>* in,
                                 v1::SubmitProofResponse* r) override {
    return guard(c, [&] {
      v1::SubmitChunk ch;
      if (!in->Read(&ch) || !ch.has_header())
        throw Rejected(Rejected::InvalidArgument, "the first message of SubmitProofStream must carry the header");
      const v1::SubmitProofRequest head = ch.header();
      const uint32_t n = ch.partitions();
      if (head.partitions_size() != 0 || head.partition_paths_size() != 0)
        throw Rejected(Rejected::InvalidArgument, "a streamed header carries no witnesses; they follow in pieces");
      s_.validate_head(head, n);  // before any witness byte is written
      // The pieces go to files of this upload; whatever is not adopted by the journal is removed.
      Upload up(s_.incoming_dir());
      detail::RequestDigest d;
      d.head(head);
      int cur = -1;
      size_t size = 0;
      while (in->Read(&ch)) {
        if (int(ch.index()) != cur) {
          if (int(ch.index()) != cur + 1 || ch.index() >= n)
            throw Rejected(Rejected::InvalidArgument, "piece of witness " + std::to_string(ch.index()) +
                                                          " out of order (witness " + std::to_string(cur) +
                                                          " was last)");
          if (cur >= 0) d.end(size), up.close();
          cur = int(ch.index());
          size = 0;
          up.open(cur);
        }
        d.bytes(ch.data().data(), ch.data().size());
        s_.check_journal_space(ch.data().size());
        up.write(ch.data());
        size += ch.data().size();
      }
      if (cur >= 0) d.end(size), up.close();
      if (uint32_t(cur + 1) != n)
        throw Rejected(Rejected::InvalidArgument,
                       "the stream ended after " + std::to_string(cur + 1) + " of " + std::to_string(n) + " witnesses");
      *r = s_.submit_files(head, up.files(), d.value());
    });
  }
  grpc::Status AwaitProof(grpc::ServerContext* c, const v1::AwaitProofRequest* q, v1::JobResult* r) override {
    return guard(c, [&] { *r = await(c, *q); });
  }
  grpc::Status Prove(grpc::ServerContext* c, const v1::ProveRequest* q, v1::JobResult* r) override {
    return guard(c, [&] {
      auto sub = s_.submit(q->submit());
      v1::AwaitProofRequest a;
      a.set_job_id(sub.job_id());
      a.set_timeout_ms(q->timeout_ms() ? q->timeout_ms() : uint64_t(24) * 3600 * 1000);
      *r = await(c, a);
    });
  }
  grpc::Status CancelProof(grpc::ServerContext* c, const v1::CancelProofRequest* q,
                           v1::CancelProofResponse* r) override {
    return guard(c, [&] { *r = s_.cancel(*q); });
  }
  grpc::Status GetStatus(grpc::ServerContext* c, const v1::GetStatusRequest*, v1::GetStatusResponse* r) override {
    return guard(c, [&] {
      *r = s_.status();
      r->set_status_json(s_.status_json(*r));
    });
  }
  grpc::Status GetMetrics(grpc::ServerContext* c, const v1::GetMetricsRequest*, v1::GetMetricsResponse* r) override {
    return guard(c, [&] { r->set_text(s_.metrics_text()); });
  }
  grpc::Status PreloadSRS(grpc::ServerContext* c, const v1::SrsRequest* q, v1::SrsResponse* r) override {
    return guard(c, [&] { *r = s_.preload(*q); });
  }
  grpc::Status EvictSRS(grpc::ServerContext* c, const v1::SrsRequest* q, v1::SrsResponse* r) override {
    return guard(c, [&] { *r = s_.evict(*q); });
  }

 private:
  // Waits in slices so that a client that goes away frees its thread.
  v1::JobResult await(grpc::ServerContext* c, const v1::AwaitProofRequest& q) {
    const uint64_t timeout = std::min<uint64_t>(q.timeout_ms(), uint64_t(24) * 3600 * 1000);
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
    for (;;) {
      v1::AwaitProofRequest slice = q;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      slice.set_timeout_ms(uint64_t(std::clamp<long long>(left, 0, 1000)));
      v1::JobResult r = s_.await(slice);
      if (r.state() == v1::DONE || r.state() == v1::FAILED || r.state() == v1::CANCELLED || left <= 1000 ||
          c->IsCancelled() || s_.stopped())
        return r;
    }
  }
  template <class F>
  grpc::Status guard(grpc::ServerContext* c, F f) {
    if (!token_.empty()) {
      auto md = c->client_metadata();
      auto it = md.find("authorization");
      const std::string want = "Bearer " + token_;
      if (it == md.end() || !same_secret(std::string(it->second.data(), it->second.size()), want)) {
        s_.count_rejected();
        return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                            it == md.end() ? "this daemon needs a token (--token or CUZK_TOKEN)" : "wrong token");
      }
    }
    try {
      f();
      return grpc::Status::OK;
    } catch (const Rejected& e) {
      s_.count_rejected();
      return grpc::Status(code_of(e.code), e.what());
    } catch (const std::exception& e) {
      return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
    }
  }
  daemon::Service& s_;
  std::string token_;
};

// Another daemon answering on `path`?
bool socket_in_use(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  const bool used = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return used;
}

}  // namespace

int serve(const std::string& config_path) {
  Config cfg;
  try {
    cfg = config_path.empty() ? default_config() : load_config(config_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
    return 1;
  }
  const std::string upath = unix_path(cfg.listen);
  if (upath.empty() && cfg.token.empty()) {
    std::fprintf(stderr,
                 "cuzk: error: daemon.listen is %s (TCP) and daemon.token is not set: refusing to serve TCP without a "
                 "token (set daemon.token, or listen on unix:///path.sock)\n",
                 cfg.listen.c_str());
    return 1;
  }
  // Signals are taken by one thread (sigwait); every thread started from here inherits the mask.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  log_line(std::string("cuzk ") + version_string() + " (commit " + git_commit() + ") starting; config: " + cfg.source);
  std::unique_ptr<Service> svc;
  try {
    if (!upath.empty() && socket_in_use(upath)) throw Error("another daemon is listening on " + cfg.listen);
    svc = std::make_unique<Service>(cfg, log_line);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
    return 1;
  }
  if (!upath.empty()) ::unlink(upath.c_str());  // a stale socket of a daemon that died

  Rpc rpc(*svc, cfg.token);
  grpc::ServerBuilder b;
  int port = 0;
  b.AddListeningPort(cfg.listen, grpc::InsecureServerCredentials(), &port);
  b.RegisterService(&rpc);
  const size_t lim = std::min<size_t>(size_t(INT32_MAX), cfg.max_request_bytes + (size_t(64) << 20));
  b.SetMaxReceiveMessageSize(int(lim));
  b.SetMaxSendMessageSize(INT32_MAX);
  const mode_t old = ::umask(0177);  // the socket is created 0600
  std::unique_ptr<grpc::Server> server = b.BuildAndStart();
  ::umask(old);
  if (!server || (upath.empty() && port == 0)) {
    std::fprintf(stderr, "cuzk: error: cannot listen on %s\n", cfg.listen.c_str());
    svc->shutdown(0);
    return 1;
  }
  if (!upath.empty()) ::chmod(upath.c_str(), 0600);

  httplib::Server http;
  std::thread http_thread;
  if (!cfg.status_listen.empty()) {
    http.Get("/metrics", [&](const httplib::Request&, httplib::Response& r) {
      r.set_content(svc->metrics_text(), "text/plain; version=0.0.4; charset=utf-8");
    });
    http.Get("/status", [&](const httplib::Request&, httplib::Response& r) {
      r.set_content(svc->status_json(), "application/json");
    });
    const auto colon = cfg.status_listen.rfind(':');
    const std::string host = cfg.status_listen.substr(0, colon);
    const int hport = std::stoi(cfg.status_listen.substr(colon + 1));
    if (!http.bind_to_port(host, hport)) {
      std::fprintf(stderr, "cuzk: error: cannot listen on http://%s\n", cfg.status_listen.c_str());
      server->Shutdown();
      svc->shutdown(0);
      return 1;
    }
    http_thread = std::thread([&] { http.listen_after_bind(); });
  }
  log_line("listening on " +
           (upath.empty() ? cfg.listen + " (port " + std::to_string(port) + ", token required)" : cfg.listen) +
           (cfg.status_listen.empty() ? "" : "; status on http://" + cfg.status_listen + "/status and /metrics"));

  int sig = 0;
  sigwait(&sigs, &sig);
  log_line(std::string(sig == SIGTERM ? "SIGTERM" : "SIGINT") + ": no new jobs; finishing those in flight");
  svc->shutdown(cfg.shutdown_grace_s);  // the engine stays until nothing can call into it
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (http_thread.joinable()) {
    http.stop();
    http_thread.join();
  }
  server.reset();
  svc.reset();
  if (!upath.empty()) ::unlink(upath.c_str());
  log_line("stopped");
  return 0;
}

}  // namespace cuzk::daemon
