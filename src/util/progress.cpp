// SPDX-License-Identifier: MIT OR Apache-2.0
#include "util/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "util/fd.hpp"

namespace cuzk::term {

namespace {

std::mutex g_mu;
Activity::Impl* g_shown = nullptr;  // the activity drawn now, under g_mu

void write_all(const std::string& s) { write_fully(2, s); }

}  // namespace

bool drawing() {
  static const bool yes = [] {
    const char* t = std::getenv("TERM");
    return ::isatty(2) == 1 && !(t && std::strcmp(t, "dumb") == 0);
  }();
  return yes;
}

struct Activity::Impl {
  std::string what;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  Impl* below = nullptr;  // the activity this one replaced
  bool stop = false;
  std::condition_variable cv;
  std::thread ticker;

  // Under g_mu.
  void draw() const {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char t[32];
    std::snprintf(t, sizeof t, " ... %.1f s", s);
    write_all("\r\033[Kcuzk: " + what + t);
  }
};

Activity::Activity(std::string what, bool show) {
  if (!show || !drawing()) return;
  impl_ = std::make_unique<Impl>();
  impl_->what = std::move(what);
  std::unique_lock<std::mutex> l(g_mu);
  impl_->below = g_shown;
  g_shown = impl_.get();
  impl_->draw();
  Impl* me = impl_.get();
  impl_->ticker = std::thread([me] {
    std::unique_lock<std::mutex> l(g_mu);
    while (!me->cv.wait_for(l, std::chrono::milliseconds(200), [me] { return me->stop; }))
      if (g_shown == me) me->draw();
  });
}

Activity::~Activity() {
  if (!impl_) return;
  {
    std::lock_guard<std::mutex> l(g_mu);
    impl_->stop = true;
    if (g_shown == impl_.get()) {
      g_shown = impl_->below;
      write_all("\r\033[K");
      if (g_shown) g_shown->draw();
    } else {  // ended before one that replaced it: out of the chain
      for (Impl* a = g_shown; a; a = a->below)
        if (a->below == impl_.get()) a->below = impl_->below;
    }
  }
  impl_->cv.notify_all();
  impl_->ticker.join();
}

void Activity::set(std::string what) {
  if (!impl_) return;
  std::lock_guard<std::mutex> l(g_mu);
  impl_->what = std::move(what);
  impl_->t0 = std::chrono::steady_clock::now();
  if (g_shown == impl_.get()) impl_->draw();
}

std::string size_note(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  if (ec) return "";
  char b[48];
  if (n >= 1000000000)
    std::snprintf(b, sizeof b, " (%.2f GB)", double(n) / 1e9);
  else if (n >= 1000000)
    std::snprintf(b, sizeof b, " (%.1f MB)", double(n) / 1e6);
  else
    std::snprintf(b, sizeof b, " (%.1f kB)", double(n) / 1e3);
  return b;
}

void say(const std::string& line) {
  std::lock_guard<std::mutex> l(g_mu);
  if (g_shown) write_all("\r\033[K");
  std::fflush(stderr);
  write_all("cuzk: " + line + "\n");
  if (g_shown) g_shown->draw();
}

}  // namespace cuzk::term
