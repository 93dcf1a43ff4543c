// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's serving loop: the gRPC services cuzk.groth16.v1.ProvingEngine (cuzk's) and
// cuzk.v1.ProvingEngine (Curio's) on one server, and HTTP /metrics and /status
// over the Service; signals; the socket's permissions; the log file. `cuzk daemon`
// (apps/daemon_cmd.cpp) calls it.
#include "daemon/server.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <grpcpp/grpcpp.h>
#include <mutex>
#include <optional>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>

#include "cuzk/groth16/v1/engine.grpc.pb.h"
#include "cuzk/prove.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon/curio_service.hpp"
#include "daemon/log.hpp"
#include "daemon/notify.hpp"
#include "daemon/service.hpp"
#include "daemon/service_util.hpp"
#include "io/json.hpp"
#include "util/error.hpp"

namespace cuzk::daemon {

namespace {

// What the daemon is doing before it serves (reading a circuit's key, starting the engine,
// recovering the journal): in /status, in gRPC's UNAVAILABLE, in systemd's STATUS and the log.
class Startup {
 public:
  void set(const std::string& what) {
    std::lock_guard<std::mutex> l(m_);
    what_ = what;
  }
  std::string what() const {
    std::lock_guard<std::mutex> l(m_);
    return what_;
  }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  mutable std::mutex m_;
  std::string what_ = "binding its addresses";
  const std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

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
    case Rejected::AlreadyExists:
      return grpc::StatusCode::ALREADY_EXISTS;
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

// What every gRPC service of the daemon does first: the token, when the daemon has one; the
// Service, once it exists (the services are listening before it: the addresses are taken first,
// so that a daemon that cannot have them does nothing else; until ready() they answer
// UNAVAILABLE); then errors as status codes.
class Gate {
 public:
  Gate(std::string token, const Startup& startup) : token_(std::move(token)), startup_(startup) {}
  void ready(daemon::Service& s) { svc_.store(&s); }
  daemon::Service& service() { return *svc_.load(); }
  daemon::Service* ready_service() { return svc_.load(); }
  template <class F>
  grpc::Status guard(grpc::ServerContext* c, F f) {
    daemon::Service* svc = svc_.load();
    if (!token_.empty()) {
      auto md = c->client_metadata();
      auto it = md.find("authorization");
      const std::string want = "Bearer " + token_;
      if (it == md.end() || !same_secret(std::string(it->second.data(), it->second.size()), want)) {
        if (svc) svc->count_rejected();
        return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                            it == md.end() ? "this daemon needs a token (--token or CUZK_TOKEN)" : "wrong token");
      }
    }
    if (!svc) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the daemon is starting: " + startup_.what());
    try {
      f();
      return grpc::Status::OK;
    } catch (const Rejected& e) {
      svc->count_rejected();
      return grpc::Status(code_of(e.code), e.what());
    } catch (const std::exception& e) {
      return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
    }
  }

 private:
  std::atomic<daemon::Service*> svc_{nullptr};
  std::string token_;
  const Startup& startup_;
};

// cuzk's own service, cuzk.groth16.v1.ProvingEngine.
class Rpc final : public v1::ProvingEngine::Service {
 public:
  Rpc(Gate& gate, Log log) : gate_(gate), log_(std::move(log)) {}

  grpc::Status SubmitProof(grpc::ServerContext* c, const v1::SubmitProofRequest* q,
                           v1::SubmitProofResponse* r) override {
    return guard(c, [&] { *r = s().submit(*q); });
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
      s().validate_head(head, n);  // before any witness byte is written
      // Room on the journal's filesystem for what the header announces, before any piece.
      JournalSpace::Reservation room = s().reserve_journal_space(ch.witness_bytes());
      // The pieces go to files of this upload; whatever is not adopted by the journal is removed.
      std::optional<Upload> up;
      detail::RequestDigest d;
      d.head(head);
      try {
        up.emplace(s().incoming_dir());
        receive(*in, n, *up, d, room);
      } catch (const Rejected&) {
        throw;
      } catch (const std::exception& e) {  // the daemon's own files: their paths go to the log only
        log_.warning(std::string("stream: ") + e.what());
        throw Rejected(Rejected::Unavailable,
                       "cannot store the streamed witnesses (the daemon's log says why); retry later");
      }
      *r = s().submit_files(head, up->files(), d.value());
    });
  }
  grpc::Status AwaitProof(grpc::ServerContext* c, const v1::AwaitProofRequest* q, v1::JobResult* r) override {
    return guard(c, [&] { *r = await(c, *q); });
  }
  grpc::Status Prove(grpc::ServerContext* c, const v1::ProveRequest* q, v1::JobResult* r) override {
    return guard(c, [&] {
      auto sub = s().submit(q->submit());
      v1::AwaitProofRequest a;
      a.set_job_id(sub.job_id());
      a.set_timeout_ms(q->timeout_ms() ? q->timeout_ms() : uint64_t(24) * 3600 * 1000);
      *r = await(c, a);
    });
  }
  grpc::Status CancelProof(grpc::ServerContext* c, const v1::CancelProofRequest* q,
                           v1::CancelProofResponse* r) override {
    return guard(c, [&] { *r = s().cancel(*q); });
  }
  grpc::Status GetStatus(grpc::ServerContext* c, const v1::GetStatusRequest*, v1::GetStatusResponse* r) override {
    return guard(c, [&] {
      *r = s().status();
      r->set_status_json(s().status_json(*r));
    });
  }
  grpc::Status GetMetrics(grpc::ServerContext* c, const v1::GetMetricsRequest*, v1::GetMetricsResponse* r) override {
    return guard(c, [&] { r->set_text(s().metrics_text()); });
  }
  grpc::Status PreloadSRS(grpc::ServerContext* c, const v1::SrsRequest* q, v1::SrsResponse* r) override {
    return guard(c, [&] { *r = s().preload(*q); });
  }
  grpc::Status EvictSRS(grpc::ServerContext* c, const v1::SrsRequest* q, v1::SrsResponse* r) override {
    return guard(c, [&] { *r = s().evict(*q); });
  }

 private:
  daemon::Service& s() { return gate_.service(); }
  // The witnesses of a stream, after its header: in order, each piece inside the journal room
  // reserved for the stream (grown first when a piece goes beyond what the header announced).
  void receive(grpc::ServerReader<v1::SubmitChunk>& in, uint32_t n, Upload& up, detail::RequestDigest& d,
               JournalSpace::Reservation& room) {
    v1::SubmitChunk ch;
    int cur = -1;
    size_t size = 0, message = 1;
    while (in.Read(&ch)) {
      ++message;
      if (ch.has_header())
        throw Rejected(Rejected::InvalidArgument,
                       "message " + std::to_string(message) + " of the stream carries a header: it comes once, first");
      if (int(ch.index()) != cur) {
        if (int(ch.index()) != cur + 1 || ch.index() >= n)
          throw Rejected(Rejected::InvalidArgument, "piece of witness " + std::to_string(ch.index()) +
                                                        " out of order (witness " + std::to_string(cur) + " was last)");
        if (cur >= 0) d.end(size), up.close();
        cur = int(ch.index());
        size = 0;
        up.open(cur);
      }
      d.bytes(ch.data().data(), ch.data().size());
      room.need(ch.data().size());
      up.write(ch.data());
      room.wrote(ch.data().size());
      size += ch.data().size();
    }
    if (cur >= 0) d.end(size), up.close();
    if (uint32_t(cur + 1) != n)
      throw Rejected(Rejected::InvalidArgument,
                     "the stream ended after " + std::to_string(cur + 1) + " of " + std::to_string(n) + " witnesses");
  }
  // Waits in slices so that a client that goes away frees its thread.
  v1::JobResult await(grpc::ServerContext* c, const v1::AwaitProofRequest& q) {
    const uint64_t timeout = std::min<uint64_t>(q.timeout_ms(), uint64_t(24) * 3600 * 1000);
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
    for (;;) {
      v1::AwaitProofRequest slice = q;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      slice.set_timeout_ms(uint64_t(std::clamp<long long>(left, 0, 1000)));
      v1::JobResult r = s().await(slice);
      if (r.state() == v1::DONE || r.state() == v1::FAILED || r.state() == v1::CANCELLED || left <= 1000 ||
          c->IsCancelled() || s().stopped())
        return r;
    }
  }
  template <class F>
  grpc::Status guard(grpc::ServerContext* c, F f) {
    return gate_.guard(c, f);
  }
  Gate& gate_;
  Log log_;
};

// Curio's service, cuzk.v1.ProvingEngine (curio_service.hpp), on the same server and engine.
class CurioRpc final : public curio::ProvingEngine::Service {
 public:
  explicit CurioRpc(Gate& gate) : gate_(gate) {}

  grpc::Status SubmitProof(grpc::ServerContext* c, const curio::SubmitProofRequest* q,
                           curio::SubmitProofResponse* r) override {
    return gate_.guard(c, [&] { *r = s().submit(*q); });
  }
  grpc::Status AwaitProof(grpc::ServerContext* c, const curio::AwaitProofRequest* q,
                          curio::AwaitProofResponse* r) override {
    return gate_.guard(c, [&] { *r = s().await(q->job_id(), q->timeout_ms(), [c] { return c->IsCancelled(); }); });
  }
  // A client that goes away leaves its job running: the same request_id again finds it.
  grpc::Status Prove(grpc::ServerContext* c, const curio::ProveRequest* q, curio::ProveResponse* r) override {
    return gate_.guard(c, [&] {
      const curio::SubmitProofResponse sub = s().submit(q->submit());
      *r->mutable_result() = s().await(sub.job_id(), 0, [c] { return c->IsCancelled(); });
    });
  }
  grpc::Status CancelProof(grpc::ServerContext* c, const curio::CancelProofRequest* q,
                           curio::CancelProofResponse* r) override {
    return gate_.guard(c, [&] { *r = s().cancel(*q); });
  }
  grpc::Status GetStatus(grpc::ServerContext* c, const curio::GetStatusRequest*, curio::GetStatusResponse* r) override {
    return gate_.guard(c, [&] { *r = s().status(); });
  }
  grpc::Status GetMetrics(grpc::ServerContext* c, const curio::GetMetricsRequest*,
                          curio::GetMetricsResponse* r) override {
    return gate_.guard(c, [&] { r->set_prometheus_text(gate_.service().metrics_text()); });
  }
  grpc::Status PreloadSRS(grpc::ServerContext* c, const curio::PreloadSrsRequest* q,
                          curio::PreloadSrsResponse* r) override {
    return gate_.guard(c, [&] { *r = s().preload(*q); });
  }
  grpc::Status EvictSRS(grpc::ServerContext* c, const curio::EvictSrsRequest* q, curio::EvictSrsResponse* r) override {
    return gate_.guard(c, [&] { *r = s().evict(*q); });
  }

 private:
  CurioService& s() { return gate_.service().curio(); }
  Gate& gate_;
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

// daemon.log_file: everything the daemon writes to stderr (its log, gRPC's) goes to the file,
// appended; SIGHUP opens the path again, so that a rotated log is let go. Without it the log is
// stderr, left to whatever started the daemon.
class LogFile {
 public:
  explicit LogFile(std::string path) : path_(std::move(path)) {}
  ~LogFile() {
    if (started_on_ >= 0) ::close(started_on_);
  }
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;
  const std::string& path() const { return path_; }
  // Opens the path onto stderr; "" or why not (the old one stays).
  std::string open() {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) return std::strerror(errno);
    if (started_on_ < 0) started_on_ = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
    std::fflush(stderr);
    const bool ok = ::dup2(fd, 2) >= 0;
    const int e = errno;
    ::close(fd);
    return ok ? "" : std::strerror(e);
  }
  // An error that stops the start: in the log, and where the daemon was started from.
  void error(const Log& log, const std::string& m) const {
    log.error(m);
    if (started_on_ >= 0) ::dprintf(started_on_, "cuzk: error: %s\n", m.c_str());
  }

 private:
  std::string path_;
  int started_on_ = -1;  // the stderr the daemon was started with, once the file replaced it
};

constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";

// /status before the Service is ready: what the daemon is loading, and for how long it has been.
std::string starting_json(const std::string& what, double seconds) {
  using io::JsonValue;
  char num[32];
  std::snprintf(num, sizeof num, "%.3f", seconds);
  JsonValue o = JsonValue::object();
  o.add("state", JsonValue::string("starting"));
  o.add("version", JsonValue::string(version_string()));
  o.add("commit", JsonValue::string(git_commit()));
  o.add("uptime_s", JsonValue::number(num));
  o.add("loading", JsonValue::string(what));
  return io::to_json(o);
}

// The status server: /metrics and /status, with the token when status_auth is set. Idle
// connections each hold a worker until a timeout: many workers and short timeouts keep a scrape
// from waiting behind them (50 idle connections leave 14 workers free).
constexpr size_t kHttpWorkers = 64;
// httplib (Debian's is a compiled library: CPPHTTPLIB_LISTEN_BACKLOG cannot be changed here)
// listens with a backlog of 5: connections opened together (clients reconnecting after a restart,
// a scraper's burst) overflow it, the kernel drops their handshakes, and a scrape among them waits
// for a 1 s retransmit. The socket listens again with this backlog once bound (the kernel caps it
// at net.core.somaxconn).
constexpr int kHttpBacklog = 1024;

// `listen_fd`: the status socket, once http.bind_to_port has made it. It serves from the start:
// until the Service is ready, /status says what the daemon is loading and /metrics answers 503.
void configure_http(httplib::Server& http, const Config& cfg, Gate& gate, const Startup& startup, int& listen_fd) {
  http.new_task_queue = [] { return new httplib::ThreadPool(kHttpWorkers); };
  http.set_read_timeout(2, 0);
  http.set_write_timeout(5, 0);
  http.set_keep_alive_timeout(2);
  // SO_REUSEADDR (a restarted daemon binds at once) without httplib's SO_REUSEPORT, which would
  // let a second daemon bind the same address and take half the scrapes.
  http.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd = sock;  // the last one made is the one bound
  });
  if (cfg.status_auth) {
    const std::string want = "Bearer " + cfg.token;
    http.set_pre_routing_handler([want](const httplib::Request& q, httplib::Response& r) {
      if (same_secret(q.get_header_value("Authorization"), want)) return httplib::Server::HandlerResponse::Unhandled;
      r.status = 401;
      r.set_header("WWW-Authenticate", "Bearer");
      r.set_content("this daemon's /metrics and /status need its token (Authorization: Bearer ...)\n", "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    });
  }
  http.Get("/metrics", [&gate, &startup](const httplib::Request&, httplib::Response& r) {
    if (Service* svc = gate.ready_service()) return r.set_content(svc->metrics_text(), kMetricsType);
    r.status = 503;
    r.set_header("Retry-After", "1");
    r.set_content("the daemon is starting: " + startup.what() + "\n", "text/plain");
  });
  http.Get("/status", [&gate, &startup](const httplib::Request&, httplib::Response& r) {
    if (Service* svc = gate.ready_service()) return r.set_content(svc->status_json(), "application/json");
    r.set_content(starting_json(startup.what(), startup.seconds()), "application/json");
  });
}

// The signals, taken by the thread that calls it (every thread started later inherits the mask):
// SIGTERM and SIGINT stop the daemon, SIGHUP reopens the log file.
sigset_t block_signals() {
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return sigs;
}

// Until SIGTERM or SIGINT (returned); each SIGHUP reopens the log file, or is logged.
int wait_for_stop(const sigset_t& sigs, LogFile& log_file, const Log& log_line) {
  for (;;) {
    int sig = 0;
    sigwait(&sigs, &sig);
    if (sig != SIGHUP) return sig;
    if (log_file.path().empty()) {
      log_line("SIGHUP: no daemon.log_file to reopen (the log is stderr); ignored");
    } else if (std::string why = log_file.open(); why.empty()) {
      log_line("SIGHUP: reopened the log file " + log_file.path());
    } else {
      log_line.warning("SIGHUP: cannot reopen " + log_file.path() + ": " + why + "; the log stays where it was");
    }
  }
}

}  // namespace

int serve(const ServeOptions& opt) {
  Config cfg;
  try {
    cfg = opt.config.empty() ? default_config() : load_config(opt.config);
    if (!opt.log_level.empty()) {
      if (!parse_log_level(opt.log_level))
        throw InvalidArgument("--log-level: '" + opt.log_level + "' is not a level (error, warning, info, debug)");
      cfg.log_level = opt.log_level;
    }
    if (!opt.log_format.empty()) {
      if (opt.log_format != "text" && opt.log_format != "json")
        throw InvalidArgument("--log-format: '" + opt.log_format + "' is not a format (text, json)");
      cfg.log_format = opt.log_format;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
    return 1;
  }
  const Log log_line = stderr_log({*parse_log_level(cfg.log_level), cfg.log_format == "json"});
  const std::string upath = unix_path(cfg.listen);
  if (upath.empty() && cfg.token.empty()) {
    log_line.error("daemon.listen is " + cfg.listen +
                   " (TCP) and daemon.token is not set: refusing to serve TCP without a token (set daemon.token, or "
                   "listen on unix:///path.sock)");
    return 1;
  }
  const sigset_t sigs = block_signals();
  LogFile log_file(cfg.log_file);
  if (!cfg.log_file.empty())
    if (std::string why = log_file.open(); !why.empty()) {
      log_line.error("daemon.log_file: cannot open " + cfg.log_file + ": " + why);
      return 1;
    }

  log_line(std::string("cuzk ") + version_string() + " (commit " + git_commit() + ") starting; config: " + cfg.source);
  // The addresses first: a daemon that cannot have them does nothing else (its journal untouched).
  if (!upath.empty() && socket_in_use(upath)) {
    log_file.error(log_line, "another daemon is listening on " + cfg.listen);
    return 1;
  }
  if (!upath.empty()) ::unlink(upath.c_str());  // a stale socket of a daemon that died

  Startup startup;
  Gate gate(cfg.token, startup);
  Rpc rpc(gate, log_line);
  CurioRpc curio_rpc(gate);
  grpc::ServerBuilder b;
  int port = 0;
  b.AddListeningPort(cfg.listen, grpc::InsecureServerCredentials(), &port);
  b.RegisterService(&rpc);
  b.RegisterService(&curio_rpc);
  b.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a second daemon on this address fails to bind
  const size_t lim = std::min<size_t>(size_t(INT32_MAX), cfg.max_request_bytes + (size_t(64) << 20));
  b.SetMaxReceiveMessageSize(int(lim));
  b.SetMaxSendMessageSize(INT32_MAX);
  const mode_t old = ::umask(0177);  // the socket is created 0600
  std::unique_ptr<grpc::Server> server = b.BuildAndStart();
  ::umask(old);

  int listen_fd = -1;  // declared before http, whose socket option callback sets it: outlives it
  httplib::Server http;
  std::thread http_thread;
  auto give_up = [&](const std::string& why) {
    log_file.error(log_line, why);
    if (server) server->Shutdown();
    if (http_thread.joinable()) {
      http.stop();
      http_thread.join();
    }
    if (!upath.empty()) ::unlink(upath.c_str());
    return 1;
  };
  if (!server || (upath.empty() && port == 0))
    return give_up("cannot listen on " + cfg.listen + " (in use by another process, or not an address of this host)");
  if (!upath.empty()) ::chmod(upath.c_str(), 0600);
  if (!cfg.status_listen.empty()) {
    configure_http(http, cfg, gate, startup, listen_fd);
    const auto colon = cfg.status_listen.rfind(':');
    const std::string host = cfg.status_listen.substr(0, colon);
    const int hport = std::stoi(cfg.status_listen.substr(colon + 1));
    if (!http.bind_to_port(host, hport))
      return give_up("cannot listen on http://" + cfg.status_listen +
                     " (status_listen: in use by another process, or not an address of this host)");
    if (listen_fd >= 0) ::listen(listen_fd, kHttpBacklog);  // a longer queue than httplib's 5
    http_thread = std::thread([&] { http.listen_after_bind(); });
  }
  const std::string where =
      (upath.empty() ? cfg.listen + " (port " + std::to_string(port) + ", token required)" : cfg.listen) +
      (cfg.status_listen.empty() ? ""
                                 : "; status on http://" + cfg.status_listen + "/status and /metrics" +
                                       (cfg.status_auth ? " (token required)" : ""));
  log_line("listening on " + where + "; loading (UNAVAILABLE until ready)");
  // Then the circuits, the engine and the job store (the journal is locked before anything in it
  // is read or written); each step in /status, the log and systemd's STATUS as it begins.
  std::unique_ptr<Service> svc;
  try {
    svc = std::make_unique<Service>(cfg, log_line, [&](const std::string& what) {
      startup.set(what);
      log_line.debug("loading: " + what);
      sd_notify_state("STATUS=loading: " + what);
    });
  } catch (const std::exception& e) {
    return give_up(e.what());
  }
  gate.ready(*svc);
  const std::string serving =
      "serving on " + where + " (ready in " + std::to_string(int(startup.seconds() * 1000)) + " ms)";
  log_line(serving);
  // systemd (Type=notify): ready now; the watchdog's pings while the daemon runs.
  sd_notify_state("READY=1\nSTATUS=" + serving + "\nMAINPID=" + std::to_string(::getpid()));
  std::optional<Watchdog> watchdog;
  watchdog.emplace();
  if (watchdog->interval_s() > 0)
    log_line("systemd watchdog: WATCHDOG=1 every " + std::to_string(watchdog->interval_s()) + " s");

  const int sig = wait_for_stop(sigs, log_file, log_line);
  sd_notify_state("STOPPING=1\nSTATUS=stopping: finishing the jobs in flight");
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
