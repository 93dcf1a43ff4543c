// SPDX-License-Identifier: MIT OR Apache-2.0
#include "daemon/pg_queue.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <libpq-fe.h>
#include <libpq/libpq-fs.h>
#include <map>
#include <set>

namespace cuzk::daemon {

namespace {

struct Param {
  std::string value;
  bool binary = false, null = false;
};
Param text(std::string v) { return {std::move(v), false, false}; }
Param bytes(std::string v) { return {std::move(v), true, false}; }
Param num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6f", v);
  return {b, false, false};
}
Param integer(int64_t v) { return {std::to_string(v), false, false}; }
// A PostgreSQL array literal of text values: {"a","b"}.
Param text_array(const std::vector<std::string>& xs) {
  std::string s = "{";
  for (size_t i = 0; i < xs.size(); ++i) {
    s += i ? ",\"" : "\"";
    for (char ch : xs[i]) {
      if (ch == '"' || ch == '\\') s += '\\';
      s += ch;
    }
    s += '"';
  }
  return {s + "}", false, false};
}
Param int_array(const std::vector<int64_t>& xs) {
  std::string s = "{";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? "," : "") + std::to_string(xs[i]);
  return {s + "}", false, false};
}

struct Result {
  PGresult* r = nullptr;
  explicit Result(PGresult* x) : r(x) {}
  Result(Result&& o) noexcept : r(o.r) { o.r = nullptr; }
  ~Result() {
    if (r) PQclear(r);
  }
  int rows() const { return PQntuples(r); }
  bool null(int row, int col) const { return PQgetisnull(r, row, col); }
  std::string str(int row, int col) const {
    return std::string(PQgetvalue(r, row, col), size_t(PQgetlength(r, row, col)));
  }
  int64_t i64(int row, int col) const {
    return null(row, col) ? 0 : std::strtoll(PQgetvalue(r, row, col), nullptr, 10);
  }
  double f64(int row, int col) const { return null(row, col) ? 0 : std::strtod(PQgetvalue(r, row, col), nullptr); }
  std::string bytea(int row, int col) const {
    if (null(row, col)) return {};
    size_t n = 0;
    unsigned char* p = PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r, row, col)), &n);
    if (!p) throw PgError("postgres: cannot decode a bytea value");
    std::string s(reinterpret_cast<char*>(p), n);
    PQfreemem(p);
    return s;
  }
};

}  // namespace

struct PgQueue::Conn {
  PGconn* pg = nullptr;                   // null after a call went unanswered: the next call connects again
  std::vector<std::string> keys, values;  // the connection's parameters, the DSN's last
  PgQueue::Limits limits;
  ~Conn() {
    if (pg) PQfinish(pg);
  }
  [[noreturn]] void fail(const std::string& what, PGresult* r = nullptr) {
    std::string m = r ? PQresultErrorMessage(r) : pg ? PQerrorMessage(pg) : "no connection";
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    if (r) PQclear(r);
    throw PgError("postgres: " + what + ": " + m);
  }
  bool in_tx = false;
  // A new session (bounded by connect_timeout), with bounded waits: a statement or a lock that
  // hangs fails instead of freezing its caller.
  void connect() {
    if (pg) PQfinish(pg);
    std::vector<const char*> k, v;
    for (size_t i = 0; i < keys.size(); ++i) k.push_back(keys[i].c_str()), v.push_back(values[i].c_str());
    k.push_back(nullptr), v.push_back(nullptr);
    pg = PQconnectdbParams(k.data(), v.data(), 1);
    if (PQstatus(pg) != CONNECTION_OK) fail("cannot connect");
    auto ms = [](double s) { return std::to_string(int64_t(s * 1000)); };
    for (const std::string& sql :
         {std::string("SET client_min_messages = warning"), "SET statement_timeout = " + ms(limits.statement_s),
          "SET lock_timeout = " + ms(limits.lock_s)}) {
      PGresult* r = run(sql, {});
      if (!r) abandon("setting up the session");
      PQclear(r);
    }
  }
  // Drops a connection whose call went unanswered (its state is unknown) and fails the call.
  [[noreturn]] void abandon(const std::string& what) {
    PQfinish(pg);
    pg = nullptr;
    throw PgError("postgres: " + what + ": no answer within " + std::to_string(int(answer_s())) +
                  " s (the database is unreachable or frozen); the connection was dropped");
  }
  double answer_s() const { return limits.statement_s + PgQueue::kAnswerSlackS; }
  // Sends the statement and waits for its result at most answer_s(): nullptr when none came.
  // Non-blocking while it runs, so that sending a large value to a frozen server cannot block.
  PGresult* run(const std::string& sql, const std::vector<Param>& ps) {
    PQsetnonblocking(pg, 1);
    PGresult* r = send_and_wait(sql, ps);
    if (r) PQsetnonblocking(pg, 0);
    return r;
  }
  PGresult* send_and_wait(const std::string& sql, const std::vector<Param>& ps) {
    std::vector<const char*> vals;
    std::vector<int> lens, fmts;
    for (auto& p : ps) {
      vals.push_back(p.null ? nullptr : p.value.data());
      lens.push_back(int(p.value.size()));
      fmts.push_back(p.binary ? 1 : 0);
    }
    if (!PQsendQueryParams(pg, sql.c_str(), int(ps.size()), nullptr, vals.data(), lens.data(), fmts.data(), 0))
      return PQmakeEmptyPGresult(pg, PGRES_FATAL_ERROR);  // the connection is bad: the caller sees why
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(answer_s());
    for (;;) {
      const int flushed = PQflush(pg);  // 1: more to send
      if (flushed < 0) return PQmakeEmptyPGresult(pg, PGRES_FATAL_ERROR);
      if (flushed == 0 && !PQisBusy(pg)) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return nullptr;
      pollfd f{PQsocket(pg), short(POLLIN | (flushed ? POLLOUT : 0)), 0};
      const int n = ::poll(&f, 1, int(std::min<int64_t>(left.count(), 1000)));
      if (n < 0 && errno != EINTR) return PQmakeEmptyPGresult(pg, PGRES_FATAL_ERROR);
      if (n > 0 && (f.revents & (POLLIN | POLLERR | POLLHUP)) && !PQconsumeInput(pg))
        return PQmakeEmptyPGresult(pg, PGRES_FATAL_ERROR);
    }
    // The statement's result, then the null that ends it (the last of several results wins).
    PGresult* last = nullptr;
    while (PGresult* r = PQgetResult(pg)) {
      if (last) PQclear(last);
      last = r;
    }
    return last ? last : PQmakeEmptyPGresult(pg, PGRES_FATAL_ERROR);
  }
  Result q(const std::string& sql, const std::vector<Param>& ps = {}) {
    std::string what = sql.substr(0, 60);
    for (char& ch : what)
      if (ch == '\n') ch = ' ';
    // A connection lost since its last use (the server restarted) is re-established, but never
    // inside a transaction: the rest of it would run on a new session without it.
    if (PQstatus(pg) != CONNECTION_OK) {
      if (in_tx) fail("the connection was lost inside a transaction");
      connect();
    }
    PGresult* r = run(sql, ps);
    if (!r) abandon(what);
    auto ok = [&] { return PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK; };
    if (!ok() && !in_tx && PQstatus(pg) == CONNECTION_BAD) {
      // Nothing of it took effect (a single statement, or the BEGIN of a transaction, on a
      // connection that had died while idle): once more on a fresh one.
      PQclear(r);
      connect();
      r = run(sql, ps);
      if (!r) abandon(what);
    }
    if (!ok()) fail(what, r);
    return Result(r);
  }
  // One transaction: BEGIN, f(), COMMIT (ROLLBACK on an exception).
  template <class F>
  auto tx(F f) {
    q("BEGIN");
    in_tx = true;
    try {
      auto out = f();
      q("COMMIT");
      in_tx = false;
      return out;
    } catch (...) {
      in_tx = false;
      if (PQstatus(pg) == CONNECTION_OK)
        if (PGresult* r = run("ROLLBACK", {})) PQclear(r);
      throw;
    }
  }
};

PgQueue::PgQueue(const std::string& dsn) : PgQueue(dsn, Limits{}) {}
PgQueue::PgQueue(const std::string& dsn, Limits limits) : c_(std::make_unique<Conn>()) {
  // Defaults that the DSN's own values override (they come before it): a bounded connect, and TCP
  // keepalives with a user timeout, so that a database host that vanishes is noticed in about
  // half a minute instead of never.
  auto& C = *c_;
  C.limits = limits;
  const std::pair<const char*, std::string> defaults[] = {
      {"connect_timeout", std::to_string(std::max(2, int(limits.connect_s + 0.5)))},
      {"keepalives", "1"},
      {"keepalives_idle", "10"},
      {"keepalives_interval", "5"},
      {"keepalives_count", "3"},
      {"tcp_user_timeout", "30000"}};
  for (auto& [k, v] : defaults) C.keys.push_back(k), C.values.push_back(v);
  C.keys.push_back("dbname"), C.values.push_back(dsn);  // expanded: a key=value string or a URI
  C.connect();
}
PgQueue::~PgQueue() = default;

void PgQueue::exec(const std::string& sql) { c_->q(sql); }
int64_t PgQueue::scalar(const std::string& sql) {
  Result r = c_->q(sql);
  return r.rows() > 0 ? r.i64(0, 0) : 0;
}

int PgQueue::migrate() {
  return c_->tx([&] {
    c_->q("SELECT pg_advisory_xact_lock(7170121)");  // one migrator at a time
    c_->q("CREATE TABLE IF NOT EXISTS cuzk_schema (version integer NOT NULL)");
    Result v = c_->q("SELECT max(version) FROM cuzk_schema");
    int version = v.null(0, 0) ? 0 : int(v.i64(0, 0));
    if (version > kSchemaVersion)
      throw PgError("postgres: the database has cuzk schema version " + std::to_string(version) +
                    ", newer than this cuzk's " + std::to_string(kSchemaVersion));
    if (version < 1) {
      c_->q(R"(CREATE TABLE cuzk_jobs (
          job_id text PRIMARY KEY,
          request_id text UNIQUE,
          request_digest bigint NOT NULL DEFAULT 0,
          circuit_id text NOT NULL,
          priority integer NOT NULL,
          n_partitions integer NOT NULL,
          state text NOT NULL DEFAULT 'queued',
          error text NOT NULL DEFAULT '',
          submitted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
          ended_at timestamptz))");
      c_->q(R"(CREATE TABLE cuzk_partitions (
          job_id text NOT NULL REFERENCES cuzk_jobs(job_id) ON DELETE CASCADE,
          idx integer NOT NULL,
          witness bytea,
          state text NOT NULL DEFAULT 'queued',
          claim_token bigint,
          claimed_by text,
          lease_until timestamptz,
          attempts integer NOT NULL DEFAULT 0,
          device text, timings text, proof_json text, public_json text, proof_compressed bytea,
          error text,
          done_at timestamptz,
          PRIMARY KEY (job_id, idx)))");
      c_->q("CREATE INDEX cuzk_partitions_open ON cuzk_partitions (state, lease_until)");
      c_->q("CREATE SEQUENCE cuzk_claim_tokens");
      c_->q(R"(CREATE TABLE cuzk_hosts (
          host_id text PRIMARY KEY, devices text NOT NULL, circuits text NOT NULL,
          heartbeat_at timestamptz NOT NULL))");
      c_->q("INSERT INTO cuzk_schema (version) VALUES (1)");
      version = 1;
    }
    if (version < 2) {  // witnesses above a size in large objects
      c_->q("ALTER TABLE cuzk_partitions ADD COLUMN witness_oid oid");
      c_->q("INSERT INTO cuzk_schema (version) VALUES (2)");
      version = 2;
    }
    if (version < 3) {
      // Failures counted apart from claims (a stop or an expired lease is not one); the key each
      // job was accepted for (a host with another key under the same id does not claim it).
      c_->q("ALTER TABLE cuzk_partitions ADD COLUMN IF NOT EXISTS failures integer NOT NULL DEFAULT 0");
      c_->q("ALTER TABLE cuzk_jobs ADD COLUMN IF NOT EXISTS circuit_key text NOT NULL DEFAULT ''");
      c_->q("CREATE INDEX IF NOT EXISTS cuzk_partitions_token ON cuzk_partitions (claim_token)");
      c_->q("INSERT INTO cuzk_schema (version) VALUES (3)");
      version = 3;
    }
    if (version < 4) {
      // Expired leases counted (a partition whose proving kills its daemon fails its job in the
      // end); what each host serves as "key:circuit" (a job no live host serves is unplaceable).
      c_->q("ALTER TABLE cuzk_partitions ADD COLUMN IF NOT EXISTS expiries integer NOT NULL DEFAULT 0");
      c_->q("ALTER TABLE cuzk_hosts ADD COLUMN IF NOT EXISTS serves text[] NOT NULL DEFAULT '{}'");
      c_->q("INSERT INTO cuzk_schema (version) VALUES (4)");
      version = 4;
    }
    return version;
  });
}

PgQueue::Submitted PgQueue::submit(const NewJob& j) {
  return c_->tx([&] {
    Submitted out;
    if (!j.request_id.empty()) {
      // Serialises submissions of one request_id; the UNIQUE constraint backs it up.
      c_->q("SELECT pg_advisory_xact_lock(hashtext($1))", {text(j.request_id)});
      Result e = c_->q("SELECT job_id, request_digest, circuit_key FROM cuzk_jobs WHERE request_id = $1",
                       {text(j.request_id)});
      if (e.rows() > 0) {
        out.job_id = e.str(0, 0);
        out.existing = true;
        out.digest = uint64_t(e.i64(0, 1));
        out.circuit_key = e.str(0, 2);
        return out;
      }
    }
    std::vector<Param> ps = {text(j.job_id),
                             j.request_id.empty() ? Param{"", false, true} : text(j.request_id),
                             integer(int64_t(j.request_digest)),
                             text(j.circuit_id),
                             integer(j.priority),
                             integer(int64_t(j.witnesses.size())),
                             text(j.circuit_key)};
    c_->q(
        "INSERT INTO cuzk_jobs (job_id, request_id, request_digest, circuit_id, priority, n_partitions, circuit_key) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7)",
        ps);
    for (size_t i = 0; i < j.witnesses.size(); ++i) {
      const std::string& w = j.witnesses[i];
      if (w.size() <= lo_bytes_) {
        c_->q("INSERT INTO cuzk_partitions (job_id, idx, witness) VALUES ($1, $2, $3)",
              {text(j.job_id), integer(int64_t(i)), bytes(w)});
        continue;
      }
      const Oid oid = lo_creat(c_->pg, INV_READ | INV_WRITE);
      if (oid == InvalidOid) c_->fail("creating a large object");
      const int fd = lo_open(c_->pg, oid, INV_WRITE);
      if (fd < 0) c_->fail("opening a large object");
      for (size_t off = 0; off < w.size();) {
        const size_t n = std::min<size_t>(w.size() - off, size_t(16) << 20);
        const int k = lo_write(c_->pg, fd, w.data() + off, n);
        if (k <= 0) c_->fail("writing a large object");
        off += size_t(k);
      }
      if (lo_close(c_->pg, fd) != 0) c_->fail("closing a large object");
      c_->q("INSERT INTO cuzk_partitions (job_id, idx, witness_oid) VALUES ($1, $2, $3)",
            {text(j.job_id), integer(int64_t(i)), integer(int64_t(oid))});
    }
    out.job_id = j.job_id;
    return out;
  });
}

std::vector<PgQueue::Claim> PgQueue::claim(const std::string& host, const std::vector<std::string>& circuits, int max,
                                           double lease_s, const std::vector<std::string>& keys) {
  if (circuits.empty() || max <= 0) return {};
  std::vector<std::string> ks = keys;
  if (ks.size() != circuits.size()) ks.assign(circuits.size(), "");
  // An expired lease that would reach max_attempts is never claimed again (the claim below skips
  // it by the same clock), so a lease that runs out between these two steps cannot buy one more.
  if (max_attempts_ > 0) fail_expired();
  return c_->tx([&] {
    Result r =
        c_->q(R"(
      WITH c AS (
        SELECT p.job_id, p.idx FROM cuzk_partitions p JOIN cuzk_jobs j ON j.job_id = p.job_id
        WHERE j.state IN ('queued', 'running')
          AND (j.circuit_id, j.circuit_key) IN (SELECT * FROM unnest($1::text[], $5::text[]))
          AND (p.state = 'queued' OR (p.state = 'claimed' AND p.lease_until < clock_timestamp()
                                       AND ($6 = 0 OR p.failures + p.expiries + 1 < $6)))
        ORDER BY j.priority DESC, j.submitted_at, j.job_id, p.idx
        LIMIT $2
        FOR UPDATE OF p SKIP LOCKED)
      UPDATE cuzk_partitions p
        SET state = 'claimed', claim_token = nextval('cuzk_claim_tokens'), claimed_by = $3,
            lease_until = clock_timestamp() + make_interval(secs => $4), attempts = p.attempts + 1,
            expiries = p.expiries + (p.state = 'claimed')::int
      FROM c WHERE p.job_id = c.job_id AND p.idx = c.idx
      RETURNING p.job_id, p.idx, p.claim_token, p.attempts, p.witness, p.witness_oid)",
              {text_array(circuits), integer(max), text(host), num(lease_s), text_array(ks), integer(max_attempts_)});
    std::vector<Claim> out;
    std::vector<std::string> jobs;
    for (int i = 0; i < r.rows(); ++i) {
      Claim c;
      c.job_id = r.str(i, 0);
      c.index = int(r.i64(i, 1));
      c.token = r.i64(i, 2);
      c.attempts = int(r.i64(i, 3));
      if (!r.null(i, 5)) {  // a large object, read in this transaction
        const Oid oid = Oid(r.i64(i, 5));
        const int fd = lo_open(c_->pg, oid, INV_READ);
        if (fd < 0) c_->fail("opening a witness's large object");
        char buf[1 << 16];
        for (int k; (k = lo_read(c_->pg, fd, buf, sizeof buf)) != 0;) {
          if (k < 0) c_->fail("reading a witness's large object");
          c.witness.append(buf, size_t(k));
        }
        if (lo_close(c_->pg, fd) != 0) c_->fail("closing a witness's large object");
      } else {
        c.witness = r.bytea(i, 4);
      }
      jobs.push_back(c.job_id);
      out.push_back(std::move(c));
    }
    if (!out.empty()) {
      // Never waits for a job row (a cancel may hold it while it waits for these partitions):
      // a job whose row is busy is marked running by a later claim or ends anyway.
      Result m = c_->q(
          "UPDATE cuzk_jobs SET state = 'running' WHERE job_id IN (SELECT job_id FROM cuzk_jobs "
          "WHERE job_id = ANY($1::text[]) AND state = 'queued' FOR UPDATE SKIP LOCKED)",
          {text_array(jobs)});
      // The jobs in the order their partitions go to the engine: priority, then age.
      Result info = c_->q(
          "SELECT job_id, circuit_id, priority FROM cuzk_jobs WHERE job_id = ANY($1::text[]) "
          "ORDER BY priority DESC, submitted_at, job_id",
          {text_array(jobs)});
      std::map<std::string, int> rank;
      for (int i = 0; i < info.rows(); ++i) rank[info.str(i, 0)] = i;
      for (auto& c : out) {
        const int i = rank.at(c.job_id);
        c.circuit_id = info.str(i, 1), c.priority = int(info.i64(i, 2));
      }
      std::sort(out.begin(), out.end(), [&](const Claim& a, const Claim& b) {  // RETURNING has no order
        const int ra = rank.at(a.job_id), rb = rank.at(b.job_id);
        return ra != rb ? ra < rb : a.index < b.index;
      });
    }
    return out;
  });
}

// Partitions whose lease expired once more than max_attempts allows (with their failures) fail
// their jobs: whatever proves them may die with them. Each in a transaction of its own that locks
// the job's row first, as every other.
void PgQueue::fail_expired() {
  Result r = c_->q(
      "SELECT p.job_id, p.idx FROM cuzk_partitions p JOIN cuzk_jobs j USING (job_id) "
      "WHERE j.state IN ('queued', 'running') AND p.state = 'claimed' AND p.lease_until < clock_timestamp() "
      "AND p.failures + p.expiries + 1 >= $1",
      {integer(max_attempts_)});
  for (int i = 0; i < r.rows(); ++i) {
    const std::string job_id = r.str(i, 0);
    const int64_t idx = r.i64(i, 1);
    c_->tx([&] {
      c_->q("SELECT 1 FROM cuzk_jobs WHERE job_id = $1 FOR UPDATE", {text(job_id)});
      Result f = c_->q(
          "UPDATE cuzk_partitions SET state = 'failed', expiries = expiries + 1, claim_token = NULL, "
          "lease_until = NULL WHERE job_id = $1 AND idx = $2 AND state = 'claimed' "
          "AND lease_until < clock_timestamp() AND failures + expiries + 1 >= $3 "
          "RETURNING coalesce(claimed_by, ''), expiries, failures",
          {text(job_id), integer(idx), integer(max_attempts_)});
      if (f.rows() == 0) return 0;  // renewed, claimed or ended meanwhile
      const std::string error = "its lease expired " + std::to_string(f.i64(0, 1)) + " times (the last held by " +
                                f.str(0, 0) + ") and it failed " + std::to_string(f.i64(0, 2)) +
                                " times; max_attempts is " + std::to_string(max_attempts_) +
                                " (proving it may kill the daemon that claims it)";
      c_->q("UPDATE cuzk_partitions SET error = $3 WHERE job_id = $1 AND idx = $2",
            {text(job_id), integer(idx), text(error)});
      c_->q(
          "UPDATE cuzk_jobs SET state = 'failed', error = $2, ended_at = clock_timestamp() WHERE job_id = $1 "
          "AND state IN ('queued', 'running')",
          {text(job_id), text("partition " + std::to_string(idx) + ": " + error)});
      drop_witness_objects(job_id, -1);
      return 0;
    });
  }
}

std::vector<int64_t> PgQueue::renew(const std::vector<int64_t>& tokens, double lease_s) {
  if (tokens.empty()) return {};
  Result r = c_->q(
      "UPDATE cuzk_partitions p SET lease_until = clock_timestamp() + make_interval(secs => $2) "
      "FROM cuzk_jobs j WHERE p.claim_token = ANY($1::bigint[]) AND p.state = 'claimed' "
      "AND j.job_id = p.job_id AND j.state IN ('queued', 'running') RETURNING p.claim_token",
      {int_array(tokens), num(lease_s)});
  std::set<int64_t> live;
  for (int i = 0; i < r.rows(); ++i) live.insert(r.i64(i, 0));
  std::vector<int64_t> lost;
  for (auto t : tokens)
    if (!live.count(t)) lost.push_back(t);
  return lost;
}

bool PgQueue::complete(const Claim& c, const Proof& p) {
  return c_->tx([&] {
    // The job's row first: completions of one job take turns, so the last one always sees every
    // other partition done (two concurrent last completions could otherwise each miss the other's).
    c_->q("SELECT 1 FROM cuzk_jobs WHERE job_id = $1 FOR UPDATE", {text(c.job_id)});
    Result r = c_->q(R"(UPDATE cuzk_partitions p
        SET state = 'done', device = $4, timings = $5, proof_json = $6, public_json = $7, proof_compressed = $8,
            witness = NULL, claim_token = NULL, lease_until = NULL, done_at = clock_timestamp()
        FROM cuzk_jobs j
        WHERE p.job_id = $1 AND p.idx = $2 AND p.claim_token = $3 AND p.state = 'claimed'
          AND j.job_id = p.job_id AND j.state IN ('queued', 'running')
        RETURNING p.idx)",
                     {text(c.job_id), integer(c.index), integer(c.token), text(p.device), text(p.timings_json),
                      text(p.proof_json), text(p.public_json), bytes(p.compressed)});
    if (r.rows() == 0) return false;
    drop_witness_objects(c.job_id, c.index);
    c_->q(
        "UPDATE cuzk_jobs SET state = 'done', ended_at = clock_timestamp() WHERE job_id = $1 "
        "AND state IN ('queued', 'running') AND NOT EXISTS "
        "(SELECT 1 FROM cuzk_partitions WHERE job_id = $1 AND state <> 'done')",
        {text(c.job_id)});
    return true;
  });
}

bool PgQueue::release(const Claim& c, const std::string& error, int max_attempts, bool failure) {
  return c_->tx([&] {
    c_->q("SELECT 1 FROM cuzk_jobs WHERE job_id = $1 FOR UPDATE", {text(c.job_id)});  // job row first, always
    Result r = c_->q(
        "UPDATE cuzk_partitions SET failures = failures + $4 WHERE job_id = $1 AND idx = $2 "
        "AND claim_token = $3 AND state = 'claimed' RETURNING failures + expiries",
        {text(c.job_id), integer(c.index), integer(c.token), integer(failure ? 1 : 0)});
    if (r.rows() == 0) return false;
    if (failure && r.i64(0, 0) >= max_attempts) {
      c_->q(
          "UPDATE cuzk_partitions SET state = 'failed', error = $3, claim_token = NULL WHERE job_id = $1 AND idx = $2",
          {text(c.job_id), integer(c.index), text(error)});
      c_->q(
          "UPDATE cuzk_jobs SET state = 'failed', error = $2, ended_at = clock_timestamp() WHERE job_id = $1 "
          "AND state IN ('queued', 'running')",
          {text(c.job_id), text("partition " + std::to_string(c.index) + ": " + error)});
      drop_witness_objects(c.job_id, -1);
      return true;
    }
    c_->q(
        "UPDATE cuzk_partitions SET state = 'queued', error = $3, claim_token = NULL, claimed_by = NULL, "
        "lease_until = NULL WHERE job_id = $1 AND idx = $2",
        {text(c.job_id), integer(c.index), text(error)});
    return true;
  });
}

bool PgQueue::fail(const Claim& c, const std::string& error) {
  return c_->tx([&] {
    c_->q("SELECT 1 FROM cuzk_jobs WHERE job_id = $1 FOR UPDATE", {text(c.job_id)});  // job row first, always
    Result r = c_->q(
        "UPDATE cuzk_partitions SET state = 'failed', error = $4, claim_token = NULL, witness = NULL "
        "WHERE job_id = $1 AND idx = $2 AND claim_token = $3 AND state = 'claimed' RETURNING idx",
        {text(c.job_id), integer(c.index), integer(c.token), text(error)});
    if (r.rows() == 0) return false;
    c_->q(
        "UPDATE cuzk_jobs SET state = 'failed', error = $2, ended_at = clock_timestamp() WHERE job_id = $1 "
        "AND state IN ('queued', 'running')",
        {text(c.job_id), text("partition " + std::to_string(c.index) + ": " + error)});
    drop_witness_objects(c.job_id, -1);
    return true;
  });
}

bool PgQueue::cancel(const std::string& job_id) {
  return c_->tx([&] {
    Result r = c_->q(
        "UPDATE cuzk_jobs SET state = 'cancelled', ended_at = clock_timestamp() WHERE job_id = $1 "
        "AND state IN ('queued', 'running') RETURNING job_id",
        {text(job_id)});
    if (r.rows() > 0) drop_witness_objects(job_id, -1);
    return r.rows() > 0;
  });
}

// Inside a transaction: unlinks the large objects of a job's witnesses (one partition, or all).
void PgQueue::drop_witness_objects(const std::string& job_id, int index) {
  c_->q(
      "SELECT lo_unlink(witness_oid) FROM cuzk_partitions WHERE job_id = $1 AND ($2 < 0 OR idx = $2) "
      "AND witness_oid IS NOT NULL",
      {text(job_id), integer(index)});
  c_->q("UPDATE cuzk_partitions SET witness_oid = NULL, witness = NULL WHERE job_id = $1 AND ($2 < 0 OR idx = $2)",
        {text(job_id), integer(index)});
  if (index < 0)  // the job ended: its open partitions are nobody's claim any more
    c_->q(
        "UPDATE cuzk_partitions SET state = 'ended', claim_token = NULL, lease_until = NULL "
        "WHERE job_id = $1 AND state IN ('queued', 'claimed')",
        {text(job_id)});
}

int PgQueue::prune(double keep_s) {
  return c_->tx([&] {
    Result r = c_->q(
        "SELECT job_id FROM cuzk_jobs WHERE ended_at < clock_timestamp() - make_interval(secs => $1) "
        "FOR UPDATE SKIP LOCKED",
        {num(keep_s)});
    for (int i = 0; i < r.rows(); ++i) {
      drop_witness_objects(r.str(i, 0), -1);
      c_->q("DELETE FROM cuzk_jobs WHERE job_id = $1", {text(r.str(i, 0))});
    }
    // Hosts silent for as long (restarted under another id, or gone) leave the farm's status.
    c_->q("DELETE FROM cuzk_hosts WHERE heartbeat_at < clock_timestamp() - make_interval(secs => $1)", {num(keep_s)});
    return r.rows();
  });
}

std::optional<PgQueue::JobView> PgQueue::job(const std::string& job_id, const std::string& request_id,
                                             bool with_results) {
  Result r = c_->q(R"(SELECT job_id, coalesce(request_id, ''), circuit_id, state, error, priority, n_partitions,
        (SELECT count(*) FROM cuzk_partitions p WHERE p.job_id = j.job_id AND p.state = 'done'),
        1000 * extract(epoch FROM coalesce(ended_at, clock_timestamp()) - submitted_at)
      FROM cuzk_jobs j WHERE (job_id = $1 AND $1 <> '') OR (request_id = $2 AND $2 <> ''))",
                   {text(job_id), text(request_id)});
  if (r.rows() == 0) return std::nullopt;
  JobView v;
  v.job_id = r.str(0, 0);
  v.request_id = r.str(0, 1);
  v.circuit_id = r.str(0, 2);
  v.state = r.str(0, 3);
  v.error = r.str(0, 4);
  v.priority = int(r.i64(0, 5));
  v.partitions = int(r.i64(0, 6));
  v.partitions_done = int(r.i64(0, 7));
  v.wall_ms = r.f64(0, 8);
  if (with_results) {
    Result p = c_->q(
        "SELECT idx, state, coalesce(device, ''), coalesce(timings, ''), coalesce(proof_json, ''), "
        "coalesce(public_json, ''), proof_compressed, coalesce(claimed_by, ''), attempts "
        "FROM cuzk_partitions WHERE job_id = $1 ORDER BY idx",
        {text(v.job_id)});
    for (int i = 0; i < p.rows(); ++i) {
      PartitionResult x;
      x.index = int(p.i64(i, 0));
      x.state = p.str(i, 1);
      x.device = p.str(i, 2);
      x.timings_json = p.str(i, 3);
      x.proof_json = p.str(i, 4);
      x.public_json = p.str(i, 5);
      x.compressed = p.bytea(i, 6);
      x.claimed_by = p.str(i, 7);
      x.attempts = int(p.i64(i, 8));
      v.results.push_back(std::move(x));
    }
  }
  return v;
}

void PgQueue::heartbeat(const std::string& host, const std::string& devices_json,
                        const std::vector<std::string>& circuits, const std::vector<std::string>& keys) {
  std::string cs;
  std::vector<std::string> serves;  // "key:circuit" (a key digest has no colon)
  for (size_t i = 0; i < circuits.size(); ++i) {
    cs += (cs.empty() ? "" : ",") + circuits[i];
    serves.push_back((i < keys.size() ? keys[i] : "") + ":" + circuits[i]);
  }
  c_->q(
      "INSERT INTO cuzk_hosts (host_id, devices, circuits, serves, heartbeat_at) "
      "VALUES ($1, $2, $3, $4::text[], clock_timestamp()) "
      "ON CONFLICT (host_id) DO UPDATE SET devices = $2, circuits = $3, serves = $4::text[], "
      "heartbeat_at = clock_timestamp()",
      {text(host), text(devices_json), text(cs), text_array(serves)});
}

std::vector<PgQueue::Host> PgQueue::hosts() {
  Result r = c_->q(R"(SELECT h.host_id, h.devices, h.circuits, extract(epoch FROM clock_timestamp() - h.heartbeat_at),
        (SELECT count(*) FROM cuzk_partitions p WHERE p.claimed_by = h.host_id AND p.state = 'claimed')
      FROM cuzk_hosts h ORDER BY h.host_id)");
  std::vector<Host> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back({r.str(i, 0), r.str(i, 1), r.str(i, 2), r.f64(i, 3), int(r.i64(i, 4))});
  return out;
}

PgQueue::Depths PgQueue::depths(double live_s) {
  Result r = c_->q(R"(SELECT
      (SELECT count(*) FROM cuzk_jobs WHERE state = 'queued'),
      (SELECT count(*) FROM cuzk_jobs WHERE state = 'running'),
      (SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j USING (job_id)
         WHERE p.state = 'queued' AND j.state IN ('queued', 'running')),
      (SELECT count(*) FROM cuzk_partitions WHERE state = 'claimed' AND lease_until >= clock_timestamp()),
      (SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j USING (job_id)
         WHERE p.state = 'claimed' AND p.lease_until < clock_timestamp() AND j.state IN ('queued', 'running')))");
  // Jobs with partitions to claim that no host heard from within live_s serves (circuit and key).
  Result u = c_->q(R"(SELECT count(*), coalesce(max(extract(epoch FROM clock_timestamp() - j.submitted_at)), 0)
      FROM cuzk_jobs j WHERE j.state IN ('queued', 'running')
        AND EXISTS (SELECT 1 FROM cuzk_partitions p WHERE p.job_id = j.job_id
          AND (p.state = 'queued' OR (p.state = 'claimed' AND p.lease_until < clock_timestamp())))
        AND NOT EXISTS (SELECT 1 FROM cuzk_hosts h
          WHERE h.heartbeat_at > clock_timestamp() - make_interval(secs => $1)
            AND j.circuit_key || ':' || j.circuit_id = ANY(h.serves)))",
                   {num(live_s)});
  Depths d{int(r.i64(0, 0)), int(r.i64(0, 1)), int(r.i64(0, 2)), int(r.i64(0, 3)), int(r.i64(0, 4))};
  d.jobs_unplaceable = int(u.i64(0, 0));
  d.unplaceable_oldest_s = u.f64(0, 1);
  return d;
}

}  // namespace cuzk::daemon
