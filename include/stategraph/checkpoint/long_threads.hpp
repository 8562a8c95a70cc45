// What keeps a long thread cheap to continue and lets a run choose when it commits
// (docs/checkpoints.md, "Long threads"): the app's cache of the threads it just ran, the
// worker that commits checkpoints while the next step runs (sg::durability::async), and the
// tag that tells one run's checkpoints from another's.
#pragma once

#include <stategraph/store/store.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace stategraph::detail {

// The latest states of the threads an app ran last, least recently used first out. A
// thread's entry is taken out while a run uses it, so two runs never share one.
template <class Head>
class head_cache {
 public:
  explicit head_cache(std::size_t capacity) : capacity_(capacity) {}

  std::optional<Head> take(std::string_view thread) {
    std::lock_guard lock(mutex_);
    auto it = index_.find(thread);
    if (it == index_.end()) return std::nullopt;
    std::optional<Head> out(std::move(it->second->second));
    entries_.erase(it->second);
    index_.erase(it);
    return out;
  }

  void keep(const std::string& thread, Head head) {
    if (capacity_ == 0) return;
    std::lock_guard lock(mutex_);
    if (auto it = index_.find(thread); it != index_.end()) {
      entries_.erase(it->second);
      index_.erase(it);
    }
    entries_.emplace_front(thread, std::move(head));
    index_.emplace(thread, entries_.begin());
    while (entries_.size() > capacity_) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
    }
  }

  void drop(std::string_view thread) { (void)take(thread); }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  using entry = std::pair<std::string, Head>;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::list<entry> entries_;  // most recently kept first
  std::map<std::string, typename std::list<entry>::iterator, std::less<>> index_;
};

// One checkpoint handed to the commit worker: the put (views of the runner's buffers, which
// stay untouched until the job is done) and what came of it.
struct put_job {
  checkpoint_put put;
  std::int64_t id = no_checkpoint;
  std::exception_ptr error;
  bool done = true;
};

// Commits checkpoints on a thread of its own, in the order they were handed over. A run
// hands over one at a time and waits for it before the next, so at most one step is ever
// uncommitted; the store's own put is what makes each commit whole or absent.
template <class Store>
class put_worker {
 public:
  explicit put_worker(Store& store) : store_(&store), thread_([this] { serve(); }) {}
  put_worker(const put_worker&) = delete;
  put_worker& operator=(const put_worker&) = delete;
  ~put_worker() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

  void submit(put_job& job) {
    {
      std::lock_guard lock(mutex_);
      job.done = false;
      job.error = nullptr;
      queue_.push_back(&job);
    }
    wake_.notify_one();
  }
  void wait(put_job& job) {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return job.done; });
  }

 private:
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      put_job* job = queue_.front();
      queue_.pop_front();
      lock.unlock();
      try {
        job->id = store_->put(job->put);
      } catch (...) {
        job->error = std::current_exception();
      }
      lock.lock();
      job->done = true;
      finished_.notify_all();
    }
  }

  Store* store_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::deque<put_job*> queue_;
  bool stop_ = false;
  std::thread thread_;  // last: it starts serving once everything above exists
};

// A tag no other run of any process is likely to share: a per-process random start and a
// counter, as 16 hex digits.
inline std::string new_run_tag() {
  static const std::uint64_t start = [] {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device() ^
           static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t x = start + 0x9E3779B97F4A7C15ull * (counter.fetch_add(1, std::memory_order_relaxed) + 1);
  x ^= x >> 31;  // splitmix64's finish, so consecutive tags differ in every digit
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, x >>= 4) out[static_cast<std::size_t>(i)] = digits[x & 15];
  return out;
}

}  // namespace stategraph::detail
