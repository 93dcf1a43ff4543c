// SPDX-License-Identifier: MIT OR Apache-2.0
// The farm's PostgreSQL queue against a real server (tests/pg/with-postgres.sh starts one and
// sets CUZK_PG_DSN): the schema migrates once under concurrency; submissions are idempotent by
// request_id; concurrent claimers get disjoint partitions in priority, job and index order, only
// of their circuits; a result needs the claim's current token (a stale writer is refused); an
// expired lease is claimed again elsewhere while a renewed one is not, and counts as an attempt;
// cancel, fail and release; a job no live host serves is counted; a frozen server bounds every
// call; a server crash loses nothing that was acknowledged. Leases expire by an update of their
// time, not by waiting for the clock.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "daemon/pg_queue.hpp"
#include "testing.hpp"

using namespace cuzk::daemon;

namespace {

std::string dsn() {
  const char* d = std::getenv("CUZK_PG_DSN");
  return d ? d : "";
}

// A clean queue: the tables emptied (the schema stays).
std::unique_ptr<PgQueue> fresh() {
  auto q = std::make_unique<PgQueue>(dsn());
  q->migrate();
  q->exec("TRUNCATE cuzk_jobs, cuzk_hosts CASCADE");
  return q;
}

PgQueue::NewJob job(const std::string& id, const std::string& circuit, int parts, int priority = 2,
                    const std::string& request_id = "") {
  PgQueue::NewJob j;
  j.job_id = id;
  j.request_id = request_id;
  j.circuit_id = circuit;
  j.priority = priority;
  j.request_digest = 42;
  for (int i = 0; i < parts; ++i)
    j.witnesses.push_back(id + "/witness " + std::to_string(i) + std::string(1, '\0') + "end");
  return j;
}

PgQueue::Proof proof_of(const PgQueue::Claim& c, const std::string& who) {
  return {who, "{\"kernels\": 1}", "{\"proof\": \"" + c.job_id + "/" + std::to_string(c.index) + " by " + who + "\"}",
          "[\"1\"]", std::string("\x01\x00\x02", 3)};
}

// Every claimed lease runs out now (as if its holder had stopped renewing it long ago).
void expire_leases(PgQueue& q) {
  q.exec("UPDATE cuzk_partitions SET lease_until = clock_timestamp() - interval '1 second' WHERE state = 'claimed'");
}
double lease_left_s(PgQueue& q, int64_t token) {
  return double(q.scalar("SELECT (1000 * extract(epoch FROM lease_until - clock_timestamp()))::bigint "
                         "FROM cuzk_partitions WHERE claim_token = " +
                         std::to_string(token))) /
         1000;
}
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

CUZK_TEST(pg_schema_migrates_once_under_concurrency) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN (run through tests/pg/with-postgres.sh)");
  {
    PgQueue q(dsn());
    q.exec("DROP TABLE IF EXISTS cuzk_partitions, cuzk_jobs, cuzk_hosts, cuzk_schema CASCADE");
    q.exec("DROP SEQUENCE IF EXISTS cuzk_claim_tokens");
  }
  std::atomic<int> ok{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&] {
      PgQueue q(dsn());
      if (q.migrate() == PgQueue::kSchemaVersion) ++ok;
    });
  for (auto& t : ts) t.join();
  CHECK_EQ(ok.load(), 4);
  PgQueue q(dsn());
  CHECK_EQ(q.migrate(), PgQueue::kSchemaVersion);
  // An older schema (version 1) is upgraded in place.
  q.exec("ALTER TABLE cuzk_partitions DROP COLUMN witness_oid, DROP COLUMN failures, DROP COLUMN expiries");
  q.exec("ALTER TABLE cuzk_jobs DROP COLUMN circuit_key");
  q.exec("ALTER TABLE cuzk_hosts DROP COLUMN serves");
  q.exec("DELETE FROM cuzk_schema WHERE version > 1");
  CHECK_EQ(q.migrate(), PgQueue::kSchemaVersion);
  q.exec("SELECT witness_oid, failures, expiries FROM cuzk_partitions LIMIT 1");
  q.exec("SELECT circuit_key FROM cuzk_jobs LIMIT 1");
  q.exec("SELECT serves FROM cuzk_hosts LIMIT 1");
  q.exec("INSERT INTO cuzk_schema (version) VALUES (99)");
  CHECK_THROWS_WITH(q.migrate(), PgError, "newer than this cuzk's");
  q.exec("DELETE FROM cuzk_schema WHERE version = 99");
  CHECK_THROWS_WITH(PgQueue("host=127.0.0.1 port=1 connect_timeout=2"), PgError, "cannot connect");
}

CUZK_TEST(pg_submit_is_idempotent_by_request_id) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  auto a = q->submit(job("j-a", "c1", 3, 2, "req-1"));
  CHECK(!a.existing);
  CHECK_EQ(a.job_id, std::string("j-a"));
  auto b = q->submit(job("j-b", "c1", 3, 2, "req-1"));
  CHECK(b.existing);
  CHECK_EQ(b.job_id, std::string("j-a"));
  CHECK_EQ(b.digest, uint64_t(42));
  CHECK_EQ(b.circuit_key, std::string(""));  // the key the existing job was accepted for
  PgQueue::NewJob keyed = job("j-keyed", "c1", 1, 2, "req-keyed");
  keyed.circuit_key = "key-1";
  q->submit(keyed);
  CHECK_EQ(q->submit(job("j-keyed-again", "c1", 1, 2, "req-keyed")).circuit_key, std::string("key-1"));
  auto v = q->job("", "req-1", true);
  CHECK(v.has_value());
  CHECK_EQ(v->job_id, std::string("j-a"));
  CHECK_EQ(v->state, std::string("queued"));
  CHECK_EQ(v->partitions, 3);
  CHECK_EQ(v->results.size(), size_t(3));
  CHECK(!q->job("j-b", "", false).has_value());
  // Concurrent submissions of one request_id: one job.
  std::atomic<int> fresh_jobs{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&, i] {
      PgQueue c(dsn());
      if (!c.submit(job("j-race-" + std::to_string(i), "c1", 1, 2, "req-race")).existing) ++fresh_jobs;
    });
  for (auto& t : ts) t.join();
  CHECK_EQ(fresh_jobs.load(), 1);
}

CUZK_TEST(pg_concurrent_claims_are_disjoint_and_ordered) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  q->submit(job("j-normal", "c1", 3, 2));
  q->submit(job("j-other-circuit", "c2", 2, 4));
  q->submit(job("j-critical", "c1", 2, 4));
  q->submit(job("j-low", "c1", 2, 1));
  // One claimer: critical first, then the older normal job, then low; never circuit c2.
  {
    PgQueue c(dsn());
    std::vector<std::string> order;
    for (;;) {
      auto got = c.claim("host-order", {"c1"}, 1, 30);
      if (got.empty()) break;
      order.push_back(got[0].job_id + "/" + std::to_string(got[0].index));
      CHECK_EQ(got[0].circuit_id, std::string("c1"));
      CHECK_EQ(got[0].witness,
               got[0].job_id + "/witness " + std::to_string(got[0].index) + std::string(1, '\0') + "end");
    }
    const std::vector<std::string> want = {"j-critical/0", "j-critical/1", "j-normal/0", "j-normal/1",
                                           "j-normal/2",   "j-low/0",      "j-low/1"};
    CHECK_EQ(order.size(), want.size());
    for (size_t i = 0; i < std::min(order.size(), want.size()); ++i) CHECK_EQ(order[i], want[i]);
  }
  // Three hosts at once on 30 fresh partitions: each claimed exactly once.
  q = fresh();
  for (int j = 0; j < 5; ++j) q->submit(job("j-" + std::to_string(j), "c1", 6));
  std::mutex m;
  std::map<std::string, int> seen;
  std::map<std::string, int> per_host;
  std::vector<std::thread> ts;
  for (int h = 0; h < 3; ++h)
    ts.emplace_back([&, h] {
      PgQueue c(dsn());
      const std::string host = "host-" + std::to_string(h);
      for (;;) {
        auto got = c.claim(host, {"c1", "c9"}, 2, 30);
        if (got.empty()) break;
        std::lock_guard lk(m);
        for (auto& x : got) ++seen[x.job_id + "/" + std::to_string(x.index)], ++per_host[host];
      }
    });
  for (auto& t : ts) t.join();
  CHECK_EQ(seen.size(), size_t(30));
  for (auto& [k, n] : seen) CHECK_MSG(n == 1, k << " claimed " << n << " times");
  CHECK_MSG(per_host.size() >= 2, "only " << per_host.size() << " host(s) got work");
  auto d = q->depths();
  CHECK_EQ(d.partitions_claimed, 30);
  CHECK_EQ(d.partitions_queued, 0);
  CHECK_EQ(d.jobs_running, 5);
}

CUZK_TEST(pg_results_need_the_current_claim) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  q->submit(job("j-1", "c1", 2));
  PgQueue h1(dsn()), h2(dsn());
  auto a = h1.claim("h1", {"c1"}, 1, 30);
  CHECK_EQ(a.size(), size_t(1));
  CHECK_EQ(a[0].attempts, 1);
  // Its lease expires without renewal: another host takes the partition.
  expire_leases(*q);
  CHECK_EQ(q->depths().partitions_expired, 1);
  auto b = h2.claim("h2", {"c1"}, 1, 30);
  CHECK_EQ(b.size(), size_t(1));
  CHECK_EQ(b[0].job_id + std::to_string(b[0].index), a[0].job_id + std::to_string(a[0].index));
  CHECK_EQ(b[0].attempts, 2);
  CHECK(b[0].token != a[0].token);
  CHECK(!h1.complete(a[0], proof_of(a[0], "h1")));  // the stale writer is refused
  CHECK(h2.complete(b[0], proof_of(b[0], "h2")));
  CHECK(!h2.complete(b[0], proof_of(b[0], "h2")));  // and only once
  auto v = q->job("j-1", "", true);
  CHECK_EQ(v->state, std::string("running"));
  CHECK_EQ(v->partitions_done, 1);
  auto c = h1.claim("h1", {"c1"}, 5, 30);
  CHECK_EQ(c.size(), size_t(1));
  CHECK(h1.complete(c[0], proof_of(c[0], "h1")));
  v = q->job("j-1", "", true);
  CHECK_EQ(v->state, std::string("done"));
  CHECK_EQ(v->partitions_done, 2);
  CHECK_EQ(v->results.size(), size_t(2));
  CHECK_EQ(v->results[0].index, 0);
  CHECK_EQ(v->results[b[0].index].proof_json, proof_of(b[0], "h2").proof_json);
  CHECK_EQ(v->results[b[0].index].device, std::string("h2"));
  CHECK_EQ(v->results[b[0].index].compressed, std::string("\x01\x00\x02", 3));
  CHECK_EQ(v->results[b[0].index].attempts, 2);
}

CUZK_TEST(pg_renewed_leases_hold) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  q->submit(job("j-r", "c1", 1));
  PgQueue h1(dsn()), h2(dsn());
  auto a = h1.claim("h1", {"c1"}, 1, 5);
  CHECK_EQ(a.size(), size_t(1));
  // Each renewal moves the lease's end forward by a whole lease from now; an unexpired lease is
  // nobody else's to claim.
  for (int i = 0; i < 4; ++i) {
    q->exec("UPDATE cuzk_partitions SET lease_until = clock_timestamp() + interval '1 second' WHERE state = 'claimed'");
    CHECK(h1.renew({a[0].token}, 5).empty());
    const double left = lease_left_s(*q, a[0].token);
    CHECK_MSG(left > 3 && left <= 5, "a renewed lease of 5 s has " << left << " s left");
    CHECK(h2.claim("h2", {"c1"}, 1, 30).empty());
  }
  expire_leases(*q);  // no more heartbeats
  auto b = h2.claim("h2", {"c1"}, 1, 30);
  CHECK_EQ(b.size(), size_t(1));
  auto lost = h1.renew({a[0].token}, 0.4);  // its claim is gone
  CHECK_EQ(lost.size(), size_t(1));
}

CUZK_TEST(pg_cancel_fail_release) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  q->submit(job("j-c", "c1", 2));
  auto a = q->claim("h", {"c1"}, 1, 30);
  CHECK(q->cancel("j-c"));
  CHECK(!q->cancel("j-c"));
  CHECK(q->claim("h", {"c1"}, 5, 30).empty());
  CHECK(!q->complete(a[0], proof_of(a[0], "h")));  // the job ended: nothing written
  CHECK_EQ(q->job("j-c", "", false)->state, std::string("cancelled"));

  q->submit(job("j-f", "c1", 3));
  auto f = q->claim("h", {"c1"}, 1, 30);
  CHECK(q->fail(f[0], "the witness does not satisfy constraint 7"));
  auto v = q->job("j-f", "", false);
  CHECK_EQ(v->state, std::string("failed"));
  CHECK_EQ(v->error, std::string("partition 0: the witness does not satisfy constraint 7"));
  CHECK(q->claim("h", {"c1"}, 5, 30).empty());

  // Releases of a stopping daemon do not count as failures: after five, the job still runs.
  q->submit(job("j-s", "c1", 1));
  for (int i = 0; i < 5; ++i) {
    auto x = q->claim("h", {"c1"}, 1, 30);
    CHECK_EQ(x.size(), size_t(1));
    CHECK(q->release(x[0], "host h stopped", 3, false));
  }
  CHECK_EQ(q->job("j-s", "", false)->state, std::string("running"));
  CHECK(q->cancel("j-s"));
  q->submit(job("j-d", "c1", 1));
  for (int attempt = 1; attempt <= 3; ++attempt) {
    auto d = q->claim("h", {"c1"}, 1, 30);
    CHECK_EQ(d.size(), size_t(1));
    CHECK_EQ(d[0].attempts, attempt);
    CHECK(q->release(d[0], "gpu:0: out of memory", 3));
  }
  v = q->job("j-d", "", false);
  CHECK_EQ(v->state, std::string("failed"));
  CHECK_EQ(v->error, std::string("partition 0: gpu:0: out of memory"));
}

CUZK_TEST(pg_hosts_heartbeat) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  q->heartbeat("host-a", "[\"sim:0\"]", {"c1", "c2"});
  q->heartbeat("host-b", "[\"gpu:0\",\"gpu:1\"]", {"c1"});
  q->submit(job("j-h", "c1", 2));
  q->claim("host-b", {"c1"}, 1, 30);
  auto hs = q->hosts();
  CHECK_EQ(hs.size(), size_t(2));
  CHECK_EQ(hs[1].host, std::string("host-b"));
  CHECK_EQ(hs[1].claims, 1);
  CHECK_EQ(hs[0].circuits, std::string("c1,c2"));
  CHECK(hs[0].heartbeat_age_s >= 0 && hs[0].heartbeat_age_s < 10);
  q->heartbeat("host-a", "[\"sim:0\",\"sim:1\"]", {"c1"});
  auto again = q->hosts();
  CHECK_EQ(again[0].devices_json, std::string("[\"sim:0\",\"sim:1\"]"));
  // A host silent for longer than the results are kept leaves the farm's list.
  q->exec("UPDATE cuzk_hosts SET heartbeat_at = clock_timestamp() - interval '2 hours' WHERE host_id = 'host-a'");
  q->prune(3600);
  auto left = q->hosts();
  CHECK_EQ(left.size(), size_t(1));
  CHECK_EQ(left[0].host, std::string("host-b"));
}

// An expired lease counts as an attempt (its holder may have died proving it): with
// max_attempts 3, the third expiry fails the job, naming the partition and its last holder; a
// failure and two expiries do the same.
CUZK_TEST(pg_expired_leases_count_as_attempts) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  q->set_max_attempts(3);
  q->submit(job("j-poison", "c1", 2));
  for (int attempt = 1; attempt <= 3; ++attempt) {
    auto got = q->claim("h" + std::to_string(attempt), {"c1"}, 1, 30);
    CHECK_EQ(got.size(), size_t(1));
    CHECK_EQ(got[0].index, 0);
    CHECK_EQ(got[0].attempts, attempt);
    expire_leases(*q);  // the daemon died with it
  }
  auto next = q->claim("h4", {"c1"}, 5, 30);  // the third expiry fails the job, not a fourth claim
  CHECK(next.empty());
  auto v = q->job("j-poison", "", false);
  CHECK_EQ(v->state, std::string("failed"));
  CHECK_MSG(v->error.rfind("partition 0: its lease expired 3 times (the last held by h3)", 0) == 0, v->error);
  // Without a limit (a queue that was not given one) an expired lease is claimed again.
  auto unlimited = fresh();
  unlimited->submit(job("j-again", "c1", 1));
  for (int attempt = 1; attempt <= 4; ++attempt) {
    CHECK_EQ(unlimited->claim("h", {"c1"}, 1, 30).size(), size_t(1));
    expire_leases(*unlimited);
  }
  CHECK_EQ(unlimited->job("j-again", "", false)->state, std::string("running"));
  // One failure and two expiries: the second failure-or-expiry short of the limit still runs,
  // the third ends it.
  q = fresh();
  q->set_max_attempts(3);
  q->submit(job("j-mixed", "c1", 1));
  auto f = q->claim("h", {"c1"}, 1, 30);
  CHECK(q->release(f[0], "h/sim:0: out of memory", 3));
  CHECK_EQ(q->claim("h", {"c1"}, 1, 30).size(), size_t(1));
  expire_leases(*q);
  auto g = q->claim("h", {"c1"}, 1, 30);
  CHECK_EQ(g.size(), size_t(1));
  CHECK(q->release(g[0], "h/sim:0: out of memory", 3));
  v = q->job("j-mixed", "", false);
  CHECK_EQ(v->state, std::string("failed"));
  CHECK_EQ(v->error, std::string("partition 0: h/sim:0: out of memory"));
}

// A job whose circuit and key no host heard from lately serves is counted, with its age.
CUZK_TEST(pg_jobs_no_live_host_serves_are_counted) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  PgQueue::NewJob j = job("j-orphan", "c1", 2);
  j.circuit_key = "key-2";
  q->submit(j);
  q->heartbeat("host-a", "[]", {"c1"}, {"key-1"});  // the same circuit id, another key
  auto d = q->depths(60);
  CHECK_EQ(d.jobs_unplaceable, 1);
  CHECK(d.unplaceable_oldest_s >= 0 && d.unplaceable_oldest_s < 60);
  q->exec("UPDATE cuzk_jobs SET submitted_at = clock_timestamp() - interval '90 seconds'");
  CHECK(q->depths(60).unplaceable_oldest_s >= 90);
  q->heartbeat("host-b", "[]", {"c0", "c1"}, {"key-0", "key-2"});
  CHECK_EQ(q->depths(60).jobs_unplaceable, 0);
  // A host silent for longer than live_s holds nothing.
  q->exec("UPDATE cuzk_hosts SET heartbeat_at = clock_timestamp() - interval '2 minutes' WHERE host_id = 'host-b'");
  CHECK_EQ(q->depths(60).jobs_unplaceable, 1);
  // A job whose partitions are all claimed (under live leases) waits for nobody.
  q->heartbeat("host-b", "[]", {"c1"}, {"key-2"});
  CHECK_EQ(q->claim("host-b", {"c1"}, 5, 30, {"key-2"}).size(), size_t(2));
  q->exec("UPDATE cuzk_hosts SET heartbeat_at = clock_timestamp() - interval '2 minutes' WHERE host_id = 'host-b'");
  CHECK_EQ(q->depths(60).jobs_unplaceable, 0);
}

// A frozen server (SIGSTOP: connections accepted, nothing answered) bounds every call: a connect
// by connect_timeout (added when the DSN has none), a statement by statement_timeout plus a
// little; after the thaw the same queue works again.
CUZK_TEST(pg_calls_are_bounded_when_the_server_is_frozen) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  const char* ctl = std::getenv("CUZK_PG_CTL");
  if (!ctl) SKIP("no CUZK_PG_CTL");
  std::string bare = dsn();  // the DSN without its connect_timeout
  if (auto at = bare.find(" connect_timeout="); at != std::string::npos)
    bare.erase(at, bare.find(' ', at + 1) == std::string::npos ? std::string::npos : bare.find(' ', at + 1) - at);
  CHECK(bare.find("connect_timeout") == std::string::npos);
  PgQueue::Limits limits;
  limits.connect_s = 2, limits.statement_s = 1;
  PgQueue held(bare, limits);
  held.depths();
  CHECK_EQ(std::system((std::string(ctl) + " freeze").c_str()), 0);
  struct Thaw {  // whatever happens below, the server runs again for the tests after this one
    std::string cmd;
    ~Thaw() {
      if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "%s failed\n", cmd.c_str());
    }
  } thaw{std::string(ctl) + " thaw"};
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(PgQueue(bare, limits), PgError, "cannot connect");
  const double connect_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(held.depths(), PgError, "no answer within");
  const double call_s = seconds_since(t0);
  CHECK_EQ(std::system(thaw.cmd.c_str()), 0);
  // Bounds with room for a loaded machine: each is a few seconds, never the minutes of a hang.
  CHECK_MSG(connect_s < 15, "a connect to a frozen server took " << connect_s << " s");
  CHECK_MSG(call_s < 20, "a call to a frozen server took " << call_s << " s");
  CHECK(held.depths().jobs_queued >= 0);  // connected again
}

// Last: the server crashes and comes back; what was acknowledged is there.
CUZK_TEST(pg_server_crash_loses_nothing_acknowledged) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  const char* ctl = std::getenv("CUZK_PG_CTL");
  if (!ctl) SKIP("no CUZK_PG_CTL");
  auto q = fresh();
  q->submit(job("j-durable", "c1", 4, 2, "req-durable"));
  auto a = q->claim("h", {"c1"}, 2, 60);
  CHECK(q->complete(a[0], proof_of(a[0], "h")));
  CHECK_EQ(std::system((std::string(ctl) + " kill").c_str()), 0);  // immediate: no clean shutdown
  CHECK_THROWS_WITH(q->depths(), PgError, "postgres");
  CHECK_EQ(std::system((std::string(ctl) + " start").c_str()), 0);
  auto v = q->job("", "req-durable", true);  // the connection is re-established
  CHECK(v.has_value());
  CHECK_EQ(v->partitions, 4);
  CHECK_EQ(v->partitions_done, 1);
  CHECK_EQ(v->results[a[0].index].proof_json, proof_of(a[0], "h").proof_json);
  // The other claim survived too, and can still be completed with its token.
  CHECK(q->complete(a[1], proof_of(a[1], "h")));
}

// Witnesses above the threshold travel as large objects, come back byte for byte, and are
// removed with the partition's result, a cancel or a prune.
CUZK_TEST(pg_large_witnesses_as_large_objects) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  q->set_large_object_bytes(1000);
  const std::string count = "SELECT count(*) FROM pg_largeobject_metadata";
  const int64_t before = q->scalar(count);
  PgQueue::NewJob j = job("j-big", "c1", 3);
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = char((i * 2654435761u) >> 13);
  j.witnesses[1] = big;
  q->submit(j);
  PgQueue::NewJob k = job("j-big-cancelled", "c1", 1);
  k.witnesses[0] = big.substr(0, 5000);
  q->submit(k);
  CHECK_EQ(q->scalar(count), before + 2);
  auto got = q->claim("h", {"c1"}, 3, 30);
  CHECK_EQ(got.size(), size_t(3));
  for (auto& c : got) {
    if (c.index == 1)
      CHECK_MSG(c.witness == big, "large witness differs (" << c.witness.size() << " bytes)");
    else
      CHECK_EQ(c.witness, c.job_id + "/witness " + std::to_string(c.index) + std::string(1, '\0') + "end");
  }
  for (auto& c : got) CHECK(q->complete(c, proof_of(c, "h")));
  CHECK_EQ(q->job("j-big", "", false)->state, std::string("done"));
  CHECK_EQ(q->scalar(count), before + 1);  // the done partition's object is gone
  CHECK(q->cancel("j-big-cancelled"));
  CHECK_EQ(q->scalar(count), before);  // and the cancelled job's
  CHECK_EQ(q->prune(0), 2);
  CHECK(!q->job("j-big", "", false).has_value());
  CHECK_EQ(q->scalar("SELECT count(*) FROM cuzk_partitions"), int64_t(0));
}

// Many partitions of one job completed at once by many hosts: the job always ends done.
CUZK_TEST(pg_concurrent_last_completions_end_the_job) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  for (int round = 0; round < 20; ++round) {
    const std::string id = "j-race-" + std::to_string(round);
    q->submit(job(id, "c1", 8));
    auto got = q->claim("h", {"c1"}, 8, 30);
    CHECK_EQ(got.size(), size_t(8));
    std::vector<std::thread> ts;
    std::atomic<int> ok{0};
    for (auto& c : got)
      ts.emplace_back([&, c] {
        PgQueue w(dsn());
        if (w.complete(c, proof_of(c, "h"))) ++ok;
      });
    for (auto& t : ts) t.join();
    CHECK_EQ(ok.load(), 8);
    CHECK_EQ(q->job(id, "", false)->state, std::string("done"));
  }
}

// A host claims only jobs accepted for the key it has under that circuit id; a job that ends
// (cancelled) makes its claims' renewals report them lost.
CUZK_TEST(pg_claims_match_the_key_and_renewals_report_lost_claims) {
  if (dsn().empty()) SKIP("no CUZK_PG_DSN");
  auto q = fresh();
  PgQueue::NewJob j = job("j-k1", "c1", 2);
  j.circuit_key = "key-1";
  q->submit(j);
  CHECK(q->claim("h2", {"c1"}, 5, 30, {"key-2"}).empty());
  CHECK(q->claim("h0", {"c1"}, 5, 30).empty());  // no key given: only jobs accepted with none
  auto got = q->claim("h1", {"c1"}, 5, 30, {"key-1"});
  CHECK_EQ(got.size(), size_t(2));
  CHECK(q->renew({got[0].token, got[1].token}, 30).empty());
  CHECK(q->cancel("j-k1"));
  auto lost = q->renew({got[0].token, got[1].token}, 30);
  CHECK_EQ(lost.size(), size_t(2));
  CHECK_EQ(q->depths().partitions_claimed, 0);
  CHECK(!q->complete(got[0], proof_of(got[0], "h1")));
}
