// SPDX-License-Identifier: MIT OR Apache-2.0
// A fixed set of worker threads with a blocking parallel_for. The caller of parallel_for works
// on queued chunks while it waits, so a parallel_for inside a task cannot deadlock the pool.
// Whoever runs work owns and passes a pool; the one process-wide pool is the CUDA backend's, for
// its staging copies.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk {

class ThreadPool {
 public:
  // threads = 0 means one per hardware thread.
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Number of threads that run chunks (workers plus the calling thread).
  unsigned size() const { return unsigned(workers_.size()) + 1; }

  // Calls fn(begin, end) over [0, n) in chunks of at least `grain` items; returns when all are
  // done. The first exception thrown by a chunk is rethrown here after every chunk finished.
  void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t grain = 1);

 private:
  struct Task {
    std::function<void()> fn;
  };
  void worker_loop();
  bool run_one();  // runs one queued task if any

  std::vector<std::thread> workers_;
  std::deque<Task> queue_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

}  // namespace cuzk
