// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's log: one line per event, at a level (error, warning, info, debug), written as
// text ("2026-12-02T17:00:00.123Z cuzk: warning: ...") or as one JSON object per line
// ({"time":"...","level":"warning","msg":"..."}); lines below the configured level are dropped.
#pragma once
#include <concepts>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace cuzk::daemon {

enum class LogLevel { error = 0, warning = 1, info = 2, debug = 3 };

// "error", "warning" (or "warn"), "info", "debug"; nullopt for anything else.
std::optional<LogLevel> parse_log_level(std::string_view s);
const char* log_level_name(LogLevel l);

// Where the daemon's parts send their lines. Calling it (or info()) logs at info; empty: silent.
class Log {
 public:
  using Sink = std::function<void(LogLevel, const std::string&)>;
  Log() = default;
  Log(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): silent, as an empty function
  explicit Log(Sink s) : sink_(std::move(s)) {}
  // A function of a line takes every level, the level named first as the text log names it
  // ("warning: ...") except at info.
  template <class F>
  requires(std::invocable<F&, const std::string&> && !std::invocable<F&, LogLevel, const std::string&>)
      Log(F f)  // NOLINT(google-explicit-constructor): any line function is a Log
      : sink_([f = std::move(f)](LogLevel l, const std::string& m) mutable {
          f(l == LogLevel::info ? m : std::string(log_level_name(l)) + ": " + m);
        }) {}

  void operator()(const std::string& m) const { write(LogLevel::info, m); }
  void info(const std::string& m) const { write(LogLevel::info, m); }
  void warning(const std::string& m) const { write(LogLevel::warning, m); }
  void error(const std::string& m) const { write(LogLevel::error, m); }
  void debug(const std::string& m) const { write(LogLevel::debug, m); }
  void write(LogLevel l, const std::string& m) const {
    if (sink_) sink_(l, m);
  }
  explicit operator bool() const { return bool(sink_); }

 private:
  Sink sink_;
};

// The daemon's writer: lines at `min` or above to stderr (which daemon.log_file may replace), as
// text or JSON, each written whole with one write(2) so that threads' lines never interleave.
struct LogFormat {
  LogLevel min = LogLevel::info;
  bool json = false;
};
// One line as the format writes it, with its newline; `now_ms`: milliseconds since the epoch.
std::string format_log_line(const LogFormat& f, LogLevel l, const std::string& msg, long long now_ms);
Log stderr_log(const LogFormat& f);

}  // namespace cuzk::daemon
