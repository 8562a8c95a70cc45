// Executors: how the tasks of one superstep run. Both produce the same state — results are
// merged at the barrier in node order, whatever order the tasks finished in.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
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

// How sg::thread_pool decides between its threads and the calling thread.
struct pool_options {
  // A step whose tasks are expected to take less than this in all runs inline on the
  // calling thread: waking a worker costs more than such a step saves. Zero: never inline.
  std::chrono::nanoseconds inline_below = std::chrono::microseconds{16};
  // How long an idle worker polls for the next step, and a caller for the other threads'
  // last tasks, before sleeping: what comes within this time needs no wake-up call.
  std::chrono::nanoseconds spin = std::chrono::microseconds{50};
};

// Runs the tasks of a step concurrently on a fixed set of worker threads (the calling
// thread works too). Dispatch is a function pointer and an atomic counter: no
// std::function, no allocation per step. Copies share one pool.
// Small steps run inline: the pool keeps, per kind of step (the task's type and count), an
// estimate of a task's time, sampled now and then, and sends a step to its workers only when
// the estimate says the step is worth a wake-up (pool_options::inline_below).
// Calls nest (a task may run another app on the same pool): each call is a job its caller
// drains, helped by idle workers, then waits only for tasks already begun elsewhere. A thread
// takes tasks only when idle or from its own call, so waits follow the order jobs were made
// in and never close into a cycle.
class thread_pool {
 public:
  explicit thread_pool(std::size_t threads = std::thread::hardware_concurrency(), pool_options options = {})
      : shared_(std::make_shared<pool>(threads == 0 ? 1 : threads, options)) {}

  std::size_t size() const noexcept { return shared_->workers.size() + 1; }

  // Steps of more than one task so far, by where they ran (for tests and tuning).
  std::size_t steps_inline() const noexcept { return shared_->inline_steps.load(std::memory_order_relaxed); }
  std::size_t steps_parallel() const noexcept { return shared_->parallel_steps.load(std::memory_order_relaxed); }

  template <class F>
  void for_each_task(std::size_t count, F& task) const {
    auto in_order = [&] {
      for (std::size_t i = 0; i < count; ++i) task(i);
    };
    auto on_workers = [&](const auto& dispatch) { dispatch(task); };
    run_step<F>(count, in_order, on_workers);
  }

  // One step of `count` tasks, Kind naming the kind of step: either `in_order()` runs the
  // whole step on this thread, or `on_workers(dispatch)` runs it, `dispatch(task)` handing
  // the tasks (`task(i)`, i < count) to the pool. A caller whose inline form is cheaper
  // than its tasks (results built in place, no slots) gives both.
  template <class Kind, class InOrder, class OnWorkers>
  void run_step(std::size_t count, InOrder& in_order, OnWorkers& on_workers) const {
    if (count <= 1 || shared_->workers.empty()) {
      in_order();
      return;
    }
    pool& p = *shared_;
    estimate& e = p.estimate_for(&kind_key<Kind>, count);
    const std::uint64_t per_task = e.ns_per_task.load(std::memory_order_relaxed);
    if (per_task != 0 && per_task * count < p.inline_below) {  // known and small: inline
      p.inline_steps.fetch_add(1, std::memory_order_relaxed);
      // Most inline steps go untimed; every sample_every-th refreshes the estimate, so a
      // step whose work grew moves to the workers.
      const std::uint32_t calls = e.calls.load(std::memory_order_relaxed) + 1;
      e.calls.store(calls, std::memory_order_relaxed);
      if (calls % sample_every != 0) {
        in_order();
        return;
      }
      const auto t0 = clock::now();
      in_order();
      e.record(clock::now() - t0, count);
      return;
    }
    // Unknown or large: on the workers. A kind of step not seen before goes there too, as
    // before the pool learnt sizes: the caller's share of it is timed for next time.
    p.parallel_steps.fetch_add(1, std::memory_order_relaxed);
    on_workers(dispatch{p, e, count});
  }

 private:
  using clock = std::chrono::steady_clock;
  static constexpr std::uint32_t sample_every = 16;

  template <class F>
  static void trampoline(void* f, std::size_t i) {
    (*static_cast<F*>(f))(i);
  }

  // A distinct address per kind of step: the key of its estimate.
  template <class Kind>
  static constexpr char kind_key = 0;

  struct estimate;
  struct pool;
  // Hands a step's tasks to the pool (what run_step's on_workers is given).
  struct dispatch {
    pool& p;
    estimate& e;
    std::size_t count;
    template <class F>
    void operator()(F& task) const {
      p.run(count, &trampoline<F>, &task, e);
    }
  };

  // What one kind of step's task costs, in nanoseconds (0: not yet known). Relaxed atomics:
  // two threads updating one estimate may lose a sample, never corrupt a decision.
  struct estimate {
    std::atomic<const void*> key{nullptr};
    std::atomic<std::size_t> count{0};
    std::atomic<std::uint64_t> ns_per_task{0};
    std::atomic<std::uint32_t> calls{0};

    void record(clock::duration elapsed, std::size_t tasks) noexcept {
      const auto ns = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
      const std::uint64_t sample = ns / tasks + 1;  // +1: a measured kind is never "unknown" (0)
      // Down at once, up by an eighth: a task preempted while timed moves the estimate
      // little, and a step whose work really grew still crosses inline_below at once.
      const std::uint64_t old = ns_per_task.load(std::memory_order_relaxed);
      ns_per_task.store(old == 0 || sample < old ? sample : old + (sample - old) / 8, std::memory_order_relaxed);
    }
  };

  // A call's tasks. It lives on the caller's stack, linked into the pool's list of open
  // jobs: the caller waits until every worker that took it has let go, and unlinks it
  // before returning.
  struct job {
    void (*fn)(void*, std::size_t);
    void* arg;
    std::size_t count;
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> completed{0};  // tasks run to their end, by any thread
    std::size_t done = 0;                   // guarded by pool::mutex
    std::atomic<std::size_t> holders{0};    // workers inside drain(); changed under pool::mutex
    job* older = nullptr;       // the list of open jobs; guarded by pool::mutex
    job* newer = nullptr;

    bool has_work() const noexcept { return next.load(std::memory_order_relaxed) < count; }
    bool finished() const noexcept { return done == count && holders.load(std::memory_order_relaxed) == 0; }
    // What the caller polls for before it sleeps; the decision is finished(), under the lock.
    bool looks_finished() const noexcept {
      return completed.load(std::memory_order_acquire) == count && holders.load(std::memory_order_acquire) == 0;
    }
  };

  struct pool {
    pool(std::size_t threads, pool_options options)
        : inline_below(static_cast<std::uint64_t>(options.inline_below.count() > 0 ? options.inline_below.count() : 0)),
          spin(options.spin) {
      for (std::size_t t = 1; t < threads; ++t) workers.emplace_back([this] { work(); });
    }
    ~pool() {
      {
        std::lock_guard lock(mutex);
        stopping = true;
      }
      posted.fetch_add(1, std::memory_order_release);
      wake.notify_all();
      for (auto& w : workers) w.join();
    }

    // The estimate of a kind of step: a small table, a slot per (task type, count), the
    // least recent kind replaced on a clash (an estimate is only a hint).
    estimate& estimate_for(const void* key, std::size_t count) noexcept {
      const auto h = (reinterpret_cast<std::uintptr_t>(key) >> 4) ^ (count * 0x9E3779B97F4A7C15ull);
      estimate& e = estimates[(h ^ (h >> 17)) % estimate_slots];
      if (e.key.load(std::memory_order_relaxed) != key || e.count.load(std::memory_order_relaxed) != count) {
        e.ns_per_task.store(0, std::memory_order_relaxed);
        e.calls.store(0, std::memory_order_relaxed);
        e.count.store(count, std::memory_order_relaxed);
        e.key.store(key, std::memory_order_relaxed);
      }
      return e;
    }

    void run(std::size_t count, void (*fn)(void*, std::size_t), void* arg, estimate& e) {
      job j{fn, arg, count};
      bool sleepers;
      {
        std::lock_guard lock(mutex);
        j.older = newest;
        if (newest) newest->newer = &j;
        newest = &j;
        sleepers = sleeping != 0;
      }
      posted.fetch_add(1, std::memory_order_release);
      if (sleepers) wake.notify_all();  // spinning workers see `posted` without a wake-up
      // The caller's own tasks are timed: the estimate stays free of the dispatch's cost.
      const auto t0 = clock::now();
      std::size_t ran = drain(j);
      if (ran) e.record(clock::now() - t0, ran);
      // The other threads' last tasks are often microseconds from their end: wait for them
      // awake, as a sleep and a wake-up cost more.
      poll_for([&] { return j.looks_finished(); });
      std::unique_lock lock(mutex);
      j.done += ran;
      finished.wait(lock, [&] { return j.finished(); });
      if (j.older) j.older->newer = j.newer;
      if (j.newer) j.newer->older = j.older;
      else newest = j.older;
    }

    static std::size_t drain(job& j) {
      std::size_t ran = 0;
      for (std::size_t i; (i = j.next.fetch_add(1, std::memory_order_relaxed)) < j.count; ++ran) {
        j.fn(j.arg, i);
        j.completed.fetch_add(1, std::memory_order_release);
      }
      return ran;
    }

    // The oldest open job with a task nobody has taken: the outermost run goes first.
    job* open_job() const noexcept {
      job* found = nullptr;
      for (job* j = newest; j; j = j->older)
        if (j->has_work()) found = j;
      return found;
    }

    static void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();  // _mm_pause without <immintrin.h>, a large header for one instruction
#else
      std::this_thread::yield();
#endif
    }

    // Polls `ready` for up to `spin` without the lock; true if it held.
    template <class Ready>
    bool poll_for(const Ready& ready) const noexcept {
      if (spin.count() <= 0) return false;
      const auto until = clock::now() + spin;
      for (;;) {
        for (int i = 0; i < 64; ++i) {
          if (ready()) return true;
          relax();
        }
        if (clock::now() >= until) return false;
      }
    }

    void work() {
      std::unique_lock lock(mutex);
      for (;;) {
        job* j = open_job();
        if (!j && !stopping) {
          const std::uint64_t seen = posted.load(std::memory_order_acquire);
          lock.unlock();
          poll_for([&] { return posted.load(std::memory_order_acquire) != seen; });
          lock.lock();
          ++sleeping;
          wake.wait(lock, [&] { return stopping || (j = open_job()) != nullptr; });
          --sleeping;
        }
        if (stopping) return;
        j->holders.fetch_add(1, std::memory_order_relaxed);
        lock.unlock();
        std::size_t ran = drain(*j);
        lock.lock();
        j->done += ran;
        j->holders.fetch_sub(1, std::memory_order_release);
        if (j->finished()) finished.notify_all();
      }
    }

    static constexpr std::size_t estimate_slots = 16;
    const std::uint64_t inline_below;  // nanoseconds
    const std::chrono::nanoseconds spin;
    estimate estimates[estimate_slots];
    std::atomic<std::size_t> inline_steps{0}, parallel_steps{0};
    std::atomic<std::uint64_t> posted{0};  // bumped for every job and at shutdown
    std::vector<std::thread> workers;
    std::mutex mutex;
    std::condition_variable wake, finished;
    bool stopping = false;
    std::size_t sleeping = 0;  // guarded by mutex
    job* newest = nullptr;     // the open jobs, newest first
  };

  std::shared_ptr<pool> shared_;
};

}  // namespace stategraph
