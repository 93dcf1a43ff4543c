// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's configuration: every key read, typos and bad values refused with the file and
// the key named, the TCP/unix address forms, durations and sizes, the embedded default.
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "daemon/config.hpp"
#include "daemon/job_store.hpp"
#include "daemon/service_util.hpp"
#include "engine/engine.hpp"
#include "testing.hpp"
#include "util/error.hpp"

using namespace cuzk;
using namespace cuzk::daemon;

namespace {
const char* kFull = R"(
[daemon]
listen = "127.0.0.1:7000"
status_listen = "127.0.0.1:9100"
journal = "/var/lib/cuzk/journal"
token = "s3cret"
keep_results = "2h"
shutdown_grace = "90s"
max_request_bytes = "64MiB"
max_partitions = 16
witness_dirs = ["/data/wtns", "/scratch"]
journal_reserve = "5GiB"
[devices]
list = ["gpu:0", "gpu:1"]
workers_per_device = 3
memory = ["20GiB", "80GiB"]
key_tables = 0.25
[synthesis]
threads = 12
[memory]
host_budget = "32GiB"
page_locked = "12GiB"
[engine]
verify = false
[[circuits]]
id = "porep"
zkey = "/keys/porep.zkey"
r1cs = "/keys/porep.r1cs"
[[circuits]]
id = "snap"
zkey = "/keys/snap.zkey"
[filecoin]
params_dir = "/var/tmp/filecoin-proof-parameters"
winning_post_params_dir = "/fast/params"
)";
}  // namespace

CUZK_TEST(daemon_config_reads_every_key) {
  Config c = parse_config(kFull, "full.toml");
  CHECK_EQ(c.listen, std::string("127.0.0.1:7000"));
  CHECK_EQ(c.status_listen, std::string("127.0.0.1:9100"));
  CHECK_EQ(c.journal, std::string("/var/lib/cuzk/journal"));
  CHECK_EQ(c.token, std::string("s3cret"));
  CHECK_EQ(c.keep_results_s, 7200.0);
  CHECK_EQ(c.shutdown_grace_s, 90.0);
  CHECK_EQ(c.max_request_bytes, size_t(64) << 20);
  CHECK_EQ(c.max_partitions, uint32_t(16));
  CHECK_EQ(c.witness_dirs.size(), size_t(2));
  CHECK_EQ(c.witness_dirs[1], std::string("/scratch"));
  CHECK_EQ(c.journal_reserve, size_t(5) << 30);
  CHECK_EQ(default_config().journal_reserve, size_t(1) << 30);
  CHECK_EQ(c.devices.size(), size_t(2));
  CHECK_EQ(c.devices[1], std::string("gpu:1"));
  CHECK_EQ(c.workers_per_device, 3);
  CHECK_EQ(c.key_tables, 0.25);
  CHECK_EQ(default_config().key_tables, 0.5);
  CHECK_EQ(c.memory.size(), size_t(2));
  CHECK_EQ(c.memory[1], std::string("80GiB"));
  CHECK_EQ(c.synthesis_threads, 12u);
  CHECK_EQ(c.host_budget, size_t(32) << 30);
  CHECK(c.page_locked == std::optional<size_t>(size_t(12) << 30));
  CHECK(!default_config().page_locked.has_value());
  CHECK(parse_config("[daemon]\nlisten = \"unix:///tmp/a.sock\"\njournal = \"/tmp/j\"\n[memory]\npage_locked = 0\n",
                     "none.toml")
            .page_locked == std::optional<size_t>(0));
  CHECK(!c.verify);
  CHECK_EQ(c.circuits.size(), size_t(2));
  CHECK_EQ(c.circuits[0].r1cs, std::string("/keys/porep.r1cs"));
  CHECK_EQ(c.circuits[1].r1cs, std::string(""));
  CHECK(unix_path(c.listen).empty());
  CHECK_EQ(c.filecoin.params_dir, std::string("/var/tmp/filecoin-proof-parameters"));
  CHECK_EQ(c.filecoin.winning_post_params_dir, std::string("/fast/params"));
  CHECK_EQ(c.filecoin.porep_params_dir, std::string(""));
  CHECK(c.filecoin.configured());
  CHECK(!default_config().filecoin.configured());
}

CUZK_TEST(daemon_config_refuses_what_is_wrong) {
  auto bad = [](const std::string& text, const std::string& needle) {
    CHECK_THROWS_WITH(parse_config(text, "bad.toml"), InvalidArgument, needle);
  };
  const std::string head = "[daemon]\nlisten = \"unix:///tmp/x.sock\"\njournal = \"/tmp/j\"\n";
  bad(head + "lisen = 1\n", "daemon.lisen: unknown key");
  bad(head + "[devices]\nworkers_per_device = 0\n", "devices.workers_per_device: must be 1..16");
  bad(head + "[devices]\nkey_tables = 1.5\n", "devices.key_tables: must be 0..1");
  bad(head + "[devices]\nlist = [1]\n", "devices.list: expected an array of strings");
  bad(head + "[memory]\nhost_budget = \"12XB\"\n", "memory.host_budget");
  bad(head + "[memory]\npage_locked = \"half\"\n", "memory.page_locked");
  bad(head + "keep_results = \"3 weeks\"\n", "daemon.keep_results");
  bad("[daemon]\nlisten = \"unix://relative.sock\"\njournal = \"/tmp/j\"\n", "unix:///absolute/path");
  bad("[daemon]\nlisten = \"localhost\"\njournal = \"/tmp/j\"\n", "HOST:PORT");
  bad(head + "[[circuits]]\nid = \"a\"\nzkey = \"/a\"\n[[circuits]]\nid = \"a\"\nzkey = \"/b\"\n", "listed twice");
  bad(head + "[[circuits]]\nid = \"a\"\n", "zkey: missing");
  bad(head + "[circuit]\nid = 1\n", "circuit: unknown key");
  bad(head + "[daemon\n", "bad.toml:");
  bad(head + "witness_dirs = [\"wtns\"]\n", "daemon.witness_dirs: 'wtns' is not an absolute path");
  bad("[daemon]\njournal = \"/tmp/j\"\nlisten = \"\"\n", "daemon.listen: missing");
  bad(head + "[devices]\nmemory = [\"20GiB\", \"lots\"]\n", "devices.memory: not a size: 'lots'");
  bad(head + "[devices]\nmemory = [true]\n", "devices.memory: expected sizes");
  bad(head + "[filecoin]\nparam_dir = \"/p\"\n", "filecoin.param_dir: unknown key");
  bad(head + "[filecoin]\nparams_dir = \"params\"\n", "filecoin.params_dir: 'params' is not an absolute path");
  bad(head + "[filecoin]\nsnap_params_dir = 7\n", "filecoin.snap_params_dir: expected a string");
  bad(head + "filecoin = 1\n", "daemon.filecoin: unknown key");
}

// [devices] memory: a size or a bare byte count, one or a list; device-spec errors name the keys.
CUZK_TEST(daemon_config_device_memory_and_spec_errors) {
  const std::string head = "[daemon]\nlisten = \"unix:///tmp/x.sock\"\njournal = \"/tmp/j\"\n";
  auto c = parse_config(head + "[devices]\nlist = [\"sim:2\"]\nmemory = [21474836480, \"80GiB\"]\n", "m.toml");
  CHECK(c.memory == std::vector<std::string>({"21474836480", "80GiB"}));
  c = parse_config(head + "[devices]\nmemory = 123456\n", "m.toml");
  CHECK(c.memory == std::vector<std::string>({"123456"}));
  auto devs = engine::parse_device_specs("sim:2", "devices.list");
  engine::apply_memory(devs, {"21474836480", "80GiB"}, "devices.memory");
  CHECK_EQ(devs[0].memory, size_t(20) << 30);
  CHECK_EQ(devs[1].memory, size_t(80) << 30);
  CHECK_THROWS_WITH(engine::apply_memory(devs, {"1GiB", "2GiB", "3GiB"}, "devices.memory"), InvalidArgument,
                    "devices.memory has 3 sizes for 2 devices");
  CHECK_THROWS_WITH(engine::parse_device_specs("gpu:x", "devices.list"), InvalidArgument, "devices.list: 'gpu:x'");
}

CUZK_TEST(daemon_config_durations_and_default) {
  CHECK_EQ(parse_duration_s("500ms"), 0.5);
  CHECK_EQ(parse_duration_s("15m"), 900.0);
  CHECK_EQ(parse_duration_s("2d"), 172800.0);
  CHECK_EQ(parse_duration_s("42"), 42.0);
  CHECK_THROWS_WITH(parse_duration_s("soon"), InvalidArgument, "not a duration");
  CHECK_EQ(unix_path("unix:///run/cuzk.sock"), std::string("/run/cuzk.sock"));
  ::setenv("XDG_RUNTIME_DIR", "/run/user/7", 1);
  ::setenv("CUZK_EXAMPLES", "/opt/ex", 1);
  Config d = default_config();
  CHECK_EQ(d.listen, std::string("unix:///run/user/7/cuzk.sock"));
  CHECK_EQ(d.devices.size(), size_t(1));
  CHECK_EQ(d.devices[0], std::string("auto"));
  CHECK_EQ(d.circuits.size(), size_t(2));
  CHECK_EQ(d.circuits[0].zkey, std::string("/opt/ex/porep-bls12-381/circuit.zkey"));
  // Without $CUZK_EXAMPLES: beside the running binary (no path of the build machine is built in).
  ::unsetenv("CUZK_EXAMPLES");
  const std::string ex = examples_dir();
  CHECK(ex.size() > 9 && ex[0] == '/' && ex.substr(ex.size() - 9) == "/examples");
  CHECK(ex == std::filesystem::read_symlink("/proc/self/exe").parent_path().string() + "/examples" ||
        ex == std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string() +
                  "/share/cuzk/examples");
  // A file with only [daemon] keeps the default devices but serves no circuit it did not list.
  Config c = parse_config("[daemon]\nlisten = \"unix:///tmp/a.sock\"\njournal = \"/tmp/j\"\n", "min.toml");
  CHECK(c.circuits.empty());
  CHECK_EQ(c.devices[0], std::string("auto"));
}

// status_auth (needs the token), log_file (absolute), journal_reserve = 0 (no reserve at all), and
// the status server on loopback unless a status_listen says otherwise.
CUZK_TEST(daemon_config_status_auth_log_file_and_reserve_off) {
  const std::string head = "[daemon]\nlisten = \"unix:///tmp/x.sock\"\njournal = \"/tmp\"\n";
  Config c = parse_config(
      head + "token = \"t\"\nstatus_auth = true\nlog_file = \"/var/log/cuzk.log\"\njournal_reserve = 0\n", "a.toml");
  CHECK(c.status_auth);
  CHECK_EQ(c.log_file, std::string("/var/log/cuzk.log"));
  CHECK_EQ(c.journal_reserve, size_t(0));
  CHECK_EQ(parse_config(head + "journal_reserve = \"0\"\n", "a.toml").journal_reserve, size_t(0));
  bool refused = false;
  try {
    JournalSpace space(c.journal, c.journal_reserve);
    auto room = space.reserve(size_t(1) << 62);  // no filesystem has that much free: only "no reserve" passes
  } catch (const Rejected&) {
    refused = true;
  }
  CHECK_MSG(!refused, "journal_reserve = 0 still checks the free space");
  CHECK(!parse_config(head, "a.toml").status_auth);
  CHECK_THROWS_WITH(parse_config(head + "status_auth = true\n", "a.toml"), InvalidArgument,
                    "daemon.status_auth: needs daemon.token");
  CHECK_THROWS_WITH(parse_config(head + "token = \"t\"\nstatus_auth = 1\n", "a.toml"), InvalidArgument,
                    "daemon.status_auth: expected true or false");
  CHECK_THROWS_WITH(parse_config(head + "log_file = \"cuzk.log\"\n", "a.toml"), InvalidArgument,
                    "daemon.log_file: 'cuzk.log' is not an absolute path");
  ::unsetenv("CUZK_STATUS_LISTEN");
  CHECK_EQ(default_config().status_listen, std::string("127.0.0.1:9464"));
  CHECK_EQ(parse_config(head, "a.toml").status_listen, std::string("127.0.0.1:9464"));
}

// The request digest: the same value however a streamed request is cut into pieces, and for the
// same request sent in one message; any changed byte or moved field boundary changes it; older
// (odd) stored values are never taken for a difference.
CUZK_TEST(daemon_request_digest) {
  std::mt19937_64 rng(test::seed());
  v1::SubmitProofRequest q;
  q.set_circuit_id("porep");
  q.set_priority(v1::HIGH);
  for (size_t len : {0ul, 1ul, 31ul, 32ul, 33ul, 1000ul, 65537ul}) {
    std::string w(len, '\0');
    for (auto& ch : w) ch = char(rng());
    q.add_partitions(w);
  }
  const uint64_t whole = detail::digest(q);
  CHECK_EQ(whole & 3, uint64_t(2));
  for (int trial = 0; trial < 20; ++trial) {
    detail::RequestDigest d;
    d.head(q);
    for (auto& w : q.partitions()) {
      size_t at = 0;
      while (at < w.size()) {
        const size_t k = std::min<size_t>(w.size() - at, rng() % 97);  // empty pieces too
        d.bytes(w.data() + at, k);
        at += k;
      }
      d.end(w.size());
    }
    CHECK_EQ(d.value(), whole);
  }
  auto changed = q;
  (*changed.mutable_partitions(5))[500] ^= 1;  // the 1000-byte witness
  CHECK(detail::digest(changed) != whole);
  auto moved = q;  // one byte moved from the end of one witness to the start of the next
  std::string a = moved.partitions(3), b = moved.partitions(4);
  b.insert(b.begin(), a.back());
  a.pop_back();
  moved.set_partitions(3, a), moved.set_partitions(4, b);
  CHECK(detail::digest(moved) != whole);
  auto prio = q;
  prio.set_priority(v1::LOW);
  CHECK(detail::digest(prio) != whole);
  auto paths = q;
  paths.clear_partitions();
  paths.add_partition_paths("/x");
  auto bytes = q;
  bytes.clear_partitions();
  bytes.add_partitions("/x");
  CHECK(detail::digest(paths) != detail::digest(bytes));
  CHECK(!detail::digests_differ(0, whole));
  CHECK(!detail::digests_differ(whole | 1, whole ^ 4));  // stored by an older daemon
  CHECK(!detail::digests_differ(whole, whole));
  CHECK(detail::digests_differ(whole, detail::digest(changed)));
}
