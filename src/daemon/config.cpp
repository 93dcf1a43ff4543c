// SPDX-License-Identifier: MIT OR Apache-2.0
#include "daemon/config.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <toml++/toml.h>

#include "daemon/log.hpp"
#include "engine/engine.hpp"
#include "util/error.hpp"

namespace cuzk::daemon {

std::string unix_path(const std::string& listen) {
  const std::string p = "unix://";
  return listen.rfind(p, 0) == 0 ? listen.substr(p.size()) : std::string();
}

double parse_duration_s(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) throw InvalidArgument("not a duration: '" + s + "' (e.g. 30s, 15m, 24h, 2d)");
  const double v = std::strtod(s.substr(0, i).c_str(), nullptr);
  const std::string u = s.substr(i);
  if (u.empty() || u == "s") return v;
  if (u == "ms") return v / 1000;
  if (u == "m") return v * 60;
  if (u == "h") return v * 3600;
  if (u == "d") return v * 86400;
  throw InvalidArgument("unknown duration unit in '" + s + "' (ms, s, m, h, d)");
}

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

struct Reader {
  const std::string& file;
  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw InvalidArgument(file + ": " + key + ": " + why);
  }
  void known(const toml::table& t, const std::string& where, std::set<std::string> keys) const {
    for (auto& [k, v] : t)
      if (!keys.count(std::string(k.str())))
        fail(where.empty() ? std::string(k.str()) : where + "." + std::string(k.str()), "unknown key");
  }
  std::string str(const toml::table& t, const std::string& where, const char* key, const std::string& def) const {
    auto n = t.get(key);
    if (!n) return def;
    if (!n->is_string()) fail(where + "." + key, "expected a string");
    return n->as_string()->get();
  }
  int64_t integer(const toml::table& t, const std::string& where, const char* key, int64_t def, int64_t lo,
                  int64_t hi) const {
    auto n = t.get(key);
    if (!n) return def;
    if (!n->is_integer()) fail(where + "." + key, "expected an integer");
    const int64_t v = n->as_integer()->get();
    if (v < lo || v > hi) fail(where + "." + key, "must be " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
  }
  double number(const toml::table& t, const std::string& where, const char* key, double def) const {
    auto n = t.get(key);
    if (!n) return def;
    if (n->is_integer()) return double(n->as_integer()->get());
    if (n->is_floating_point()) return n->as_floating_point()->get();
    fail(where + "." + key, "expected a number");
  }
  // A size: "20GiB" or a number of bytes.
  size_t size(const toml::table& t, const std::string& where, const char* key, size_t def) const {
    auto n = t.get(key);
    if (!n) return def;
    try {
      if (n->is_integer() && n->as_integer()->get() > 0) return size_t(n->as_integer()->get());
      if (n->is_string()) return engine::parse_size(n->as_string()->get());
    } catch (const InvalidArgument& e) {
      fail(where + "." + key, e.what());
    }
    fail(where + "." + key, "expected a size such as \"20GiB\" or a positive number of bytes");
  }
  // A size that may also be 0 (or "0"): none.
  size_t size_or_zero(const toml::table& t, const std::string& where, const char* key, size_t def) const {
    auto n = t.get(key);
    if (n && ((n->is_integer() && n->as_integer()->get() == 0) || (n->is_string() && n->as_string()->get() == "0")))
      return 0;
    return size(t, where, key, def);
  }
  // Sizes: one or an array, each "20GiB" or a number of bytes; checked here, kept as text.
  std::vector<std::string> sizes(const toml::table& t, const std::string& where, const char* key) const {
    std::vector<std::string> out;
    auto n = t.get(key);
    if (!n) return out;
    auto one = [&](const toml::node& e) {
      std::string v;
      if (e.is_integer() && e.as_integer()->get() > 0)
        v = std::to_string(e.as_integer()->get());
      else if (e.is_string())
        v = e.as_string()->get();
      else
        fail(where + "." + key, "expected sizes such as \"20GiB\" or positive numbers of bytes");
      try {
        engine::parse_size(v);
      } catch (const InvalidArgument& e) {
        fail(where + "." + key, e.what());
      }
      out.push_back(v);
    };
    if (n->is_array())
      for (auto& e : *n->as_array()) one(e);
    else
      one(*n);
    return out;
  }
  double duration(const toml::table& t, const std::string& where, const char* key, double def) const {
    auto n = t.get(key);
    if (!n) return def;
    try {
      if (n->is_integer()) return double(n->as_integer()->get());
      if (n->is_string()) return parse_duration_s(n->as_string()->get());
    } catch (const InvalidArgument& e) {
      fail(where + "." + key, e.what());
    }
    fail(where + "." + key, "expected a duration such as \"24h\" or a number of seconds");
  }
  std::vector<std::string> strings(const toml::table& t, const std::string& where, const char* key) const {
    std::vector<std::string> out;
    auto n = t.get(key);
    if (!n) return out;
    if (n->is_string()) return {n->as_string()->get()};
    if (!n->is_array()) fail(where + "." + key, "expected an array of strings");
    for (auto& e : *n->as_array()) {
      if (!e.is_string()) fail(where + "." + key, "expected an array of strings");
      out.push_back(e.as_string()->get());
    }
    return out;
  }
};

const toml::table* sub(const toml::table& root, const char* name, const Reader& r) {
  auto n = root.get(name);
  if (!n) return nullptr;
  if (!n->is_table()) r.fail(name, "expected a table [" + std::string(name) + "]");
  return n->as_table();
}

void check(Config& c, const std::string& file) {
  auto fail = [&](const std::string& key, const std::string& why) {
    throw InvalidArgument(file + ": " + key + ": " + why);
  };
  if (c.listen.empty()) fail("daemon.listen", "missing");
  const std::string up = unix_path(c.listen);
  if (c.listen.rfind("unix:", 0) == 0) {
    if (up.empty() || up[0] != '/')
      fail("daemon.listen", "expected unix:///absolute/path.sock, got '" + c.listen + "'");
  } else {
    const auto colon = c.listen.rfind(':');
    if (colon == std::string::npos || colon + 1 >= c.listen.size() ||
        c.listen.find_first_not_of("0123456789", colon + 1) != std::string::npos)
      fail("daemon.listen", "expected unix:///path.sock or HOST:PORT, got '" + c.listen + "'");
  }
  if (!c.status_listen.empty()) {
    const auto colon = c.status_listen.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 >= c.status_listen.size() ||
        c.status_listen.find_first_not_of("0123456789", colon + 1) != std::string::npos)
      fail("daemon.status_listen", "expected HOST:PORT, got '" + c.status_listen + "'");
  }
  if (!up.empty() && up.size() > 100) fail("daemon.listen", "the socket path is longer than 100 bytes");
  auto port_ok = [](const std::string& a) {
    const auto colon = a.rfind(':');
    const std::string p = a.substr(colon + 1);
    return p.size() <= 5 && std::stol(p) <= 65535;
  };
  if (up.empty() && !port_ok(c.listen)) fail("daemon.listen", "port out of range in '" + c.listen + "'");
  if (!c.status_listen.empty() && !port_ok(c.status_listen))
    fail("daemon.status_listen", "port out of range in '" + c.status_listen + "'");
  if (!(c.keep_results_s >= 0 && c.keep_results_s <= 10 * 365 * 86400.0)) fail("daemon.keep_results", "out of range");
  if (!(c.shutdown_grace_s >= 0 && c.shutdown_grace_s <= 86400)) fail("daemon.shutdown_grace", "out of range");
  if (c.journal.empty()) fail("daemon.journal", "missing");
  if (c.status_auth && c.token.empty())
    fail("daemon.status_auth", "needs daemon.token (clients of /metrics and /status send Authorization: Bearer TOKEN)");
  if (!c.log_file.empty() && c.log_file[0] != '/')
    fail("daemon.log_file", "'" + c.log_file + "' is not an absolute path");
  if (!parse_log_level(c.log_level))
    fail("daemon.log_level", "'" + c.log_level + "' is not a level (error, warning, info, debug)");
  if (c.log_format != "text" && c.log_format != "json")
    fail("daemon.log_format", "'" + c.log_format + "' is not a format (text, json)");
  if (c.devices.empty()) fail("devices.list", "empty");
  std::set<std::string> ids;
  for (auto& ci : c.circuits) {
    if (ci.id.empty()) fail("circuits.id", "missing");
    if (ci.zkey.empty()) fail("circuits.zkey", "missing for circuit '" + ci.id + "'");
    if (!ids.insert(ci.id).second) fail("circuits.id", "'" + ci.id + "' is listed twice");
  }
}

}  // namespace

Config parse_config(const std::string& text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InvalidArgument(file + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  Reader r{file};
  r.known(root, "", {"daemon", "devices", "synthesis", "memory", "circuits", "engine", "queue", "filecoin"});
  Config c = default_config();
  c.source = file;
  c.circuits.clear();
  if (auto t = sub(root, "daemon", r)) {
    r.known(
        *t, "daemon",
        {"listen", "status_listen", "journal", "token", "keep_results", "shutdown_grace", "max_request_bytes",
         "max_partitions", "witness_dirs", "journal_reserve", "status_auth", "log_file", "log_level", "log_format"});
    c.listen = r.str(*t, "daemon", "listen", c.listen);
    c.status_listen = r.str(*t, "daemon", "status_listen", c.status_listen);
    c.journal = r.str(*t, "daemon", "journal", c.journal);
    c.token = r.str(*t, "daemon", "token", "");
    c.keep_results_s = r.duration(*t, "daemon", "keep_results", c.keep_results_s);
    c.shutdown_grace_s = r.duration(*t, "daemon", "shutdown_grace", c.shutdown_grace_s);
    c.max_request_bytes = r.size(*t, "daemon", "max_request_bytes", c.max_request_bytes);
    c.max_partitions = uint32_t(r.integer(*t, "daemon", "max_partitions", c.max_partitions, 1, 100000));
    c.witness_dirs = r.strings(*t, "daemon", "witness_dirs");
    c.journal_reserve = r.size_or_zero(*t, "daemon", "journal_reserve", c.journal_reserve);  // 0: no reserve
    if (auto n = t->get("status_auth")) {
      if (!n->is_boolean()) r.fail("daemon.status_auth", "expected true or false");
      c.status_auth = n->as_boolean()->get();
    }
    c.log_file = r.str(*t, "daemon", "log_file", "");
    c.log_level = r.str(*t, "daemon", "log_level", c.log_level);
    c.log_format = r.str(*t, "daemon", "log_format", c.log_format);
    for (auto& d : c.witness_dirs)
      if (d.empty() || d[0] != '/') r.fail("daemon.witness_dirs", "'" + d + "' is not an absolute path");
  }
  if (auto t = sub(root, "devices", r)) {
    r.known(*t, "devices", {"list", "workers_per_device", "memory", "sim_kernel_ms", "key_tables"});
    if (t->get("list")) c.devices = r.strings(*t, "devices", "list");
    c.workers_per_device = int(r.integer(*t, "devices", "workers_per_device", c.workers_per_device, 1, 16));
    c.memory = r.sizes(*t, "devices", "memory");
    c.sim_kernel_ms = r.number(*t, "devices", "sim_kernel_ms", 0);
    if (!(c.sim_kernel_ms >= 0 && c.sim_kernel_ms <= 3.6e6)) r.fail("devices.sim_kernel_ms", "must be 0..3600000");
    c.key_tables = r.number(*t, "devices", "key_tables", c.key_tables);
    if (!(c.key_tables >= 0 && c.key_tables <= 1)) r.fail("devices.key_tables", "must be 0..1");
  }
  if (auto t = sub(root, "synthesis", r)) {
    r.known(*t, "synthesis", {"threads"});
    c.synthesis_threads = unsigned(r.integer(*t, "synthesis", "threads", 0, 0, 4096));
  }
  if (auto t = sub(root, "memory", r)) {
    r.known(*t, "memory", {"host_budget", "page_locked"});
    c.host_budget = r.size(*t, "memory", "host_budget", c.host_budget);
    if (t->get("page_locked")) c.page_locked = r.size_or_zero(*t, "memory", "page_locked", 0);
  }
  if (auto t = sub(root, "engine", r)) {
    r.known(*t, "engine", {"verify"});
    if (auto n = t->get("verify")) {
      if (!n->is_boolean()) r.fail("engine.verify", "expected true or false");
      c.verify = n->as_boolean()->get();
    }
  }
  if (auto t = sub(root, "queue", r)) {
    r.known(*t, "queue", {"backend", "dsn", "lease", "host_id", "max_attempts"});
    c.queue_backend = r.str(*t, "queue", "backend", "local");
    if (c.queue_backend != "local" && c.queue_backend != "postgres")
      r.fail("queue.backend", "expected \"local\" or \"postgres\", got '" + c.queue_backend + "'");
    c.queue_dsn = r.str(*t, "queue", "dsn", "");
    if (c.queue_backend == "postgres" && c.queue_dsn.empty()) r.fail("queue.dsn", "missing (backend is postgres)");
    c.lease_s = r.duration(*t, "queue", "lease", c.lease_s);
    if (c.lease_s < 0.3) r.fail("queue.lease", "at least 0.3 s");
    c.host_id = r.str(*t, "queue", "host_id", "");
    c.max_attempts = int(r.integer(*t, "queue", "max_attempts", c.max_attempts, 1, 100));
  }
  if (auto t = sub(root, "filecoin", r)) {
    r.known(*t, "filecoin",
            {"params_dir", "porep_params_dir", "window_post_params_dir", "winning_post_params_dir", "snap_params_dir"});
    auto& f = c.filecoin;
    for (auto [key, dir] : {std::pair{"params_dir", &f.params_dir},
                            {"porep_params_dir", &f.porep_params_dir},
                            {"window_post_params_dir", &f.window_post_params_dir},
                            {"winning_post_params_dir", &f.winning_post_params_dir},
                            {"snap_params_dir", &f.snap_params_dir}}) {
      *dir = r.str(*t, "filecoin", key, "");
      if (!dir->empty() && (*dir)[0] != '/')
        r.fail(std::string("filecoin.") + key, "'" + *dir + "' is not an absolute path");
    }
  }
  if (auto n = root.get("circuits")) {
    if (!n->is_array_of_tables()) r.fail("circuits", "expected [[circuits]] tables");
    for (auto& e : *n->as_array()) {
      const toml::table& t = *e.as_table();
      r.known(t, "circuits", {"id", "zkey", "r1cs"});
      c.circuits.push_back(
          {r.str(t, "circuits", "id", ""), r.str(t, "circuits", "zkey", ""), r.str(t, "circuits", "r1cs", "")});
    }
  }
  check(c, file);
  return c;
}

Config load_config(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InvalidArgument("cannot read config " + path);
  std::string text;
  char buf[4096];
  size_t k;
  while ((k = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, k);
  std::fclose(f);
  return parse_config(text, path);
}

std::string default_listen() {
  const char* run = std::getenv("XDG_RUNTIME_DIR");
  return std::string("unix://") + (run && *run ? run : "/tmp") + "/cuzk.sock";
}

std::string client_address(const std::string& given) {
  if (given.empty()) {
    const char* env = std::getenv("CUZK_DAEMON");
    return env && *env ? client_address(env) : default_listen();
  }
  if (given[0] == '/' || given.rfind("./", 0) == 0 || given.rfind("../", 0) == 0) {
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(given, ec);
    return "unix://" + (ec ? given : abs.lexically_normal().string());
  }
  return given;
}

// The bundled examples: $CUZK_EXAMPLES, else beside the running binary: <bin>/examples (a build
// directory, where the build links it to the source tree's) or <prefix>/share/cuzk/examples (an
// install). Found at run time, so that no path of the machine that built cuzk is in the binary;
// the first candidate that exists, else the last (named when the daemon cannot read the key).
std::string examples_dir() {
  if (const char* e = std::getenv("CUZK_EXAMPLES"); e && *e) return e;
  std::error_code ec;
  const std::filesystem::path bin = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  if (ec) return "examples";
  const std::filesystem::path tries[] = {bin / "examples", bin.parent_path() / "share" / "cuzk" / "examples"};
  for (auto& t : tries)
    if (std::filesystem::is_directory(t, ec)) return t.string();
  return tries[1].string();
}

Config default_config() {
  Config c;
  const std::string home = env_or("HOME", "/tmp");
  c.listen = default_listen();
  c.status_listen = env_or("CUZK_STATUS_LISTEN", "127.0.0.1:9464");
  c.journal = env_or("XDG_STATE_HOME", home + "/.local/state") + "/cuzk/journal";
  const std::string ex = examples_dir();
  for (const char* curve : {"bls12-381", "bn254"})
    c.circuits.push_back({std::string("porep-") + curve, ex + "/porep-" + curve + "/circuit.zkey",
                          ex + "/porep-" + curve + "/circuit.r1cs"});
  return c;
}

}  // namespace cuzk::daemon
