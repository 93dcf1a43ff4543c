// SPDX-License-Identifier: MIT OR Apache-2.0
#include "util/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>

namespace cuzk {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  try {
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
  } catch (...) {
    // Joinable threads must not be destroyed: stop and join those already started.
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop() {
  for (;;) {
    Task t;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and nothing left
      t = std::move(queue_.front());
      queue_.pop_front();
    }
    t.fn();
  }
}

bool ThreadPool::run_one() {
  Task t;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (queue_.empty()) return false;
    t = std::move(queue_.front());
    queue_.pop_front();
  }
  t.fn();
  return true;
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t grain) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  size_t max_chunks = (n + grain - 1) / grain;
  size_t chunks = std::min<size_t>(max_chunks, size_t(size()) * 4);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  struct State {
    std::atomic<size_t> remaining;
    std::mutex mu;
    std::condition_variable cv;
    std::exception_ptr error;
  };
  auto st = std::make_shared<State>();
  st->remaining = chunks;
  size_t per = n / chunks, extra = n % chunks;
  auto make = [&, st](size_t b, size_t e) {
    return [&fn, st, b, e] {
      try {
        fn(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lk(st->mu);
        if (!st->error) st->error = std::current_exception();
      }
      if (st->remaining.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lk(st->mu);
        st->cv.notify_all();
      }
    };
  };
  size_t b = 0;
  std::function<void()> first;
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (size_t c = 0; c < chunks; ++c) {
      size_t e = b + per + (c < extra ? 1 : 0);
      if (c == 0)
        first = make(b, e);
      else
        queue_.push_back({make(b, e)});
      b = e;
    }
  }
  cv_.notify_all();
  first();
  // Help with queued work (ours or anyone's) until our chunks are done.
  while (st->remaining.load() != 0) {
    if (!run_one()) {
      std::unique_lock<std::mutex> lk(st->mu);
      st->cv.wait_for(lk, std::chrono::milliseconds(1), [&] { return st->remaining.load() == 0; });
    }
  }
  if (st->error) std::rethrow_exception(st->error);
}

}  // namespace cuzk
