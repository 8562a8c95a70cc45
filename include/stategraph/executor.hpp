// Executors: how the tasks of one superstep run. Both produce the same state — results are
// merged at the barrier in node order, whatever order the tasks finished in.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace stategraph {

// Runs the tasks of a step one after another, in node order, on the calling thread.
struct sequential {
  template <class F>
  void for_each_task(std::size_t count, F& task) const {
    for (std::size_t i = 0; i < count; ++i) task(i);
  }
};

// Runs the tasks of a step concurrently on a fixed set of worker threads (the calling
// thread works too). Dispatch is a function pointer and an atomic counter: no
// std::function, no allocation per step. Copies share one pool.
// Calls nest (a task may run another app on the same pool): each call is a job its caller
// drains, helped by idle workers, then waits only for tasks already begun elsewhere. A thread
// takes tasks only when idle or from its own call, so waits follow the order jobs were made
// in and never close into a cycle.
class thread_pool {
 public:
  explicit thread_pool(std::size_t threads = std::thread::hardware_concurrency())
      : shared_(std::make_shared<pool>(threads == 0 ? 1 : threads)) {}

  std::size_t size() const noexcept { return shared_->workers.size() + 1; }

  template <class F>
  void for_each_task(std::size_t count, F& task) const {
    if (count <= 1 || shared_->workers.empty()) {
      for (std::size_t i = 0; i < count; ++i) task(i);
      return;
    }
    shared_->run(count, &trampoline<F>, &task);
  }

 private:
  template <class F>
  static void trampoline(void* f, std::size_t i) {
    (*static_cast<F*>(f))(i);
  }

  // A call's tasks. It lives on the caller's stack, linked into the pool's list of open
  // jobs: the caller waits until every worker that took it has let go, and unlinks it
  // before returning.
  struct job {
    void (*fn)(void*, std::size_t);
    void* arg;
    std::size_t count;
    std::atomic<std::size_t> next{0};
    std::size_t done = 0;       // guarded by pool::mutex
    std::size_t holders = 0;    // workers inside drain(); guarded by pool::mutex
    job* older = nullptr;       // the list of open jobs; guarded by pool::mutex
    job* newer = nullptr;

    bool has_work() const noexcept { return next.load(std::memory_order_relaxed) < count; }
    bool finished() const noexcept { return done == count && holders == 0; }
  };

  struct pool {
    explicit pool(std::size_t threads) {
      for (std::size_t t = 1; t < threads; ++t) workers.emplace_back([this] { work(); });
    }
    ~pool() {
      {
        std::lock_guard lock(mutex);
        stopping = true;
      }
      wake.notify_all();
      for (auto& w : workers) w.join();
    }

    void run(std::size_t count, void (*fn)(void*, std::size_t), void* arg) {
      job j{fn, arg, count};
      {
        std::lock_guard lock(mutex);
        j.older = newest;
        if (newest) newest->newer = &j;
        newest = &j;
      }
      wake.notify_all();
      std::size_t ran = drain(j);
      std::unique_lock lock(mutex);
      j.done += ran;
      finished.wait(lock, [&] { return j.finished(); });
      if (j.older) j.older->newer = j.newer;
      if (j.newer) j.newer->older = j.older;
      else newest = j.older;
    }

    static std::size_t drain(job& j) {
      std::size_t ran = 0;
      for (std::size_t i; (i = j.next.fetch_add(1, std::memory_order_relaxed)) < j.count; ++ran) j.fn(j.arg, i);
      return ran;
    }

    // The oldest open job with a task nobody has taken: the outermost run goes first.
    job* open_job() const noexcept {
      job* found = nullptr;
      for (job* j = newest; j; j = j->older)
        if (j->has_work()) found = j;
      return found;
    }

    void work() {
      std::unique_lock lock(mutex);
      for (;;) {
        job* j = nullptr;
        wake.wait(lock, [&] { return stopping || (j = open_job()) != nullptr; });
        if (stopping) return;
        ++j->holders;
        lock.unlock();
        std::size_t ran = drain(*j);
        lock.lock();
        j->done += ran;
        --j->holders;
        if (j->finished()) finished.notify_all();
      }
    }

    std::vector<std::thread> workers;
    std::mutex mutex;
    std::condition_variable wake, finished;
    bool stopping = false;
    job* newest = nullptr;  // the open jobs, newest first
  };

  std::shared_ptr<pool> shared_;
};

}  // namespace stategraph
