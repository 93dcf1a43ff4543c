// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's log lines: levels, the text and the JSON format (see log.hpp).
#include "daemon/log.hpp"

#include <chrono>
#include <ctime>

#include "io/json.hpp"
#include "util/fd.hpp"

namespace cuzk::daemon {

std::optional<LogLevel> parse_log_level(std::string_view s) {
  if (s == "error") return LogLevel::error;
  if (s == "warning" || s == "warn") return LogLevel::warning;
  if (s == "info") return LogLevel::info;
  if (s == "debug") return LogLevel::debug;
  return std::nullopt;
}

const char* log_level_name(LogLevel l) {
  switch (l) {
    case LogLevel::error:
      return "error";
    case LogLevel::warning:
      return "warning";
    case LogLevel::debug:
      return "debug";
    default:
      return "info";
  }
}

std::string format_log_line(const LogFormat& f, LogLevel l, const std::string& msg, long long now_ms) {
  const std::time_t t = std::time_t(now_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char ts[40];
  const size_t n = std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(ts + n, sizeof ts - n, ".%03dZ", int(now_ms % 1000));
  if (f.json) {
    using io::JsonValue;
    // One object per line: to_json of a string is one line (control characters are escaped).
    return "{\"time\":\"" + std::string(ts) + "\",\"level\":\"" + log_level_name(l) +
           "\",\"msg\":" + io::to_json(JsonValue::string(msg)) + "}\n";
  }
  std::string line = std::string(ts) + " cuzk: ";
  if (l != LogLevel::info) line += std::string(log_level_name(l)) + ": ";
  return line + msg + "\n";
}

Log stderr_log(const LogFormat& f) {
  return Log([f](LogLevel l, const std::string& msg) {
    if (int(l) > int(f.min)) return;
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const std::string line =
        format_log_line(f, l, msg, std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
    write_fully(2, line);  // stderr's fd, whatever daemon.log_file made it
  });
}

}  // namespace cuzk::daemon
