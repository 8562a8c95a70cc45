// Runs nested on one sg::thread_pool: a node that invokes another app on the pool its own
// app runs on (copies share it), three levels deep with fan-outs at each level. The pool must
// never wait on itself: each case runs under a watchdog that aborts the process if it hangs.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_executors_nested_pool {

namespace sg = stategraph;

namespace nested_pool_cases {  // named: Clang cannot reflect types with internal linkage

// Aborts the process with a message when the case has not finished in time: a deadlocked
// pool would otherwise hang the suite instead of failing it.
class watchdog {
 public:
  explicit watchdog(const char* what, std::chrono::seconds limit = std::chrono::seconds{20})
      : thread_([this, what, limit] {
          std::unique_lock lock(mutex_);
          if (!done_cv_.wait_for(lock, limit, [&] { return done_; })) {
            std::fprintf(stderr, "nested_pool: '%s' has not finished in %lld s: the thread pool deadlocked; aborting\n",
                         what, static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::abort();
          }
        }) {}
  ~watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_one();
    thread_.join();
  }
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;  // last: it starts once the members it waits on exist
};

// ---- level 3: a static fan-out of three leaves ------------------------------------------

struct Inner {
  long seed = 0;
  sg::counter<long> total;
};
template <int K>
struct leaf {
  static constexpr std::string_view name = K == 1 ? "leaf1" : K == 2 ? "leaf2" : "leaf3";
  using reads = sg::reads<&Inner::seed>;
  using writes = sg::writes<&Inner::total>;
  auto operator()(sg::view<Inner, reads> in) const { return sg::write<&Inner::total>(in.get<&Inner::seed>() * K); }
};
using inner_graph = sg::graph<Inner, sg::edge<sg::start, leaf<1>>, sg::edge<sg::start, leaf<2>>,
                              sg::edge<sg::start, leaf<3>>, sg::edge<leaf<1>, sg::end>, sg::edge<leaf<2>, sg::end>,
                              sg::edge<leaf<3>, sg::end>>;
using inner_app = decltype(sg::compile<inner_graph>(sg::with_executor(sg::thread_pool{1})));

// 6 * seed: the leaves add seed, 2 seed and 3 seed.
constexpr long inner_total(long seed) { return 6 * seed; }

// ---- level 2: a send fan-out of three, each send invoking the level-3 app ----------------

struct Middle {
  long seed = 0;
  sg::counter<long> total;
};
struct call_inner;
struct scatter {
  using sends = sg::sends<call_inner>;
  std::vector<sg::send_to<call_inner, long>> operator()(sg::view<Middle, sg::reads<>>) const {
    return {sg::send<call_inner>(1L), sg::send<call_inner>(2L), sg::send<call_inner>(3L)};
  }
};
struct call_inner {
  inner_app inner;
  using reads = sg::reads<&Middle::seed>;
  using writes = sg::writes<&Middle::total>;
  auto operator()(sg::view<Middle, reads> in, const long& k) const {
    Inner out = inner.invoke(Inner{.seed = in.get<&Middle::seed>() * 10 + k});
    return sg::write<&Middle::total>(out.total.value());
  }
};
using middle_graph =
    sg::graph<Middle, sg::edge<sg::start, scatter>, sg::edge<call_inner, sg::end>>;
// The level-2 app, its level-3 app on the same pool.
inline auto make_middle(const sg::thread_pool& pool) {
  return sg::compile<middle_graph>(call_inner{sg::compile<inner_graph>(sg::with_executor(pool))},
                                   sg::with_executor(pool));
}
using middle_app = decltype(make_middle(std::declval<const sg::thread_pool&>()));

constexpr long middle_total(long seed) {
  long sum = 0;
  for (long k = 1; k <= 3; ++k) sum += inner_total(seed * 10 + k);
  return sum;
}

// ---- level 1: a static fan-out of three nodes, each invoking the level-2 app -------------

struct Outer {
  long seed = 0;
  sg::counter<long> total;
};
template <int K>
struct call_middle {
  static constexpr std::string_view name = K == 1 ? "middle1" : K == 2 ? "middle2" : "middle3";
  middle_app middle;
  using reads = sg::reads<&Outer::seed>;
  using writes = sg::writes<&Outer::total>;
  auto operator()(sg::view<Outer, reads> in) const {
    Middle out = middle.invoke(Middle{.seed = in.get<&Outer::seed>() * 10 + K});
    return sg::write<&Outer::total>(out.total.value());
  }
};
using outer_graph =
    sg::graph<Outer, sg::edge<sg::start, call_middle<1>>, sg::edge<sg::start, call_middle<2>>,
              sg::edge<sg::start, call_middle<3>>, sg::edge<call_middle<1>, sg::end>,
              sg::edge<call_middle<2>, sg::end>, sg::edge<call_middle<3>, sg::end>>;

constexpr long outer_total(long seed) {
  long sum = 0;
  for (long k = 1; k <= 3; ++k) sum += middle_total(seed * 10 + k);
  return sum;
}
static_assert(outer_total(1) == 6588);

}  // namespace nested_pool_cases
using namespace nested_pool_cases;

TEST_CASE("thread_pool: for_each_task nested three deep inside its own tasks runs every task once") {
  watchdog guard("nested for_each_task");
  sg::thread_pool pool{2};
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> leaves{0};
    std::vector<std::atomic<int>> hits(4 * 4 * 4);
    auto level3 = [&](std::size_t base) {
      auto task = [&, base](std::size_t k) {
        hits[base * 4 + k].fetch_add(1);
        leaves.fetch_add(1);
      };
      pool.for_each_task(4, task);
    };
    auto level2 = [&](std::size_t base) {
      auto task = [&, base](std::size_t j) { level3(base * 4 + j); };
      pool.for_each_task(4, task);
    };
    auto level1 = [&](std::size_t i) { level2(i); };
    pool.for_each_task(4, level1);
    REQUIRE(leaves.load() == 64);
    for (std::size_t i = 0; i < hits.size(); ++i) REQUIRE(hits[i].load() == 1);
  }
}

TEST_CASE("thread_pool: two callers on one pool, each nesting, both finish with every task run") {
  watchdog guard("two callers nesting");
  sg::thread_pool pool{2};
  std::atomic<int> runs{0};
  auto caller = [&] {
    for (int round = 0; round < 100; ++round) {
      auto outer = [&](std::size_t) {
        auto inner = [&](std::size_t) { runs.fetch_add(1); };
        pool.for_each_task(3, inner);
      };
      pool.for_each_task(3, outer);
    }
  };
  std::thread other(caller);
  caller();
  other.join();
  CHECK(runs.load() == 2 * 100 * 9);
}

TEST_CASE("apps nested three levels deep on one thread_pool{2}, with fan-outs at each level, finish") {
  watchdog guard("nested apps on one thread_pool");
  sg::thread_pool pool{2};
  auto app = sg::compile<outer_graph>(call_middle<1>{make_middle(pool)}, call_middle<2>{make_middle(pool)},
                                      call_middle<3>{make_middle(pool)}, sg::with_executor(pool));
  // A pool of one thread runs every task inline on the caller: the sequential reference.
  sg::thread_pool alone{1};
  auto sequential = sg::compile<outer_graph>(call_middle<1>{make_middle(alone)}, call_middle<2>{make_middle(alone)},
                                             call_middle<3>{make_middle(alone)}, sg::with_executor(alone));
  for (long seed = 0; seed < 40; ++seed) {
    INFO("seed " << seed);
    Outer out = app.invoke(Outer{.seed = seed});
    REQUIRE(out.total.value() == outer_total(seed));
    REQUIRE(out.total.value() == sequential.invoke(Outer{.seed = seed}).total.value());
  }
  CHECK(app.invoke(Outer{.seed = 1}).total.value() == 6588);
}

TEST_CASE("a checkpointed app on a thread_pool whose nodes invoke apps on the same pool finishes and checkpoints") {
  watchdog guard("nested apps under a checkpointed app");
  sg::thread_pool pool{2};
  sg::memory_store store;
  auto app = sg::compile<outer_graph>(call_middle<1>{make_middle(pool)}, call_middle<2>{make_middle(pool)},
                                      call_middle<3>{make_middle(pool)}, sg::with_executor(pool),
                                      sg::with_store(store));
  for (long seed = 1; seed <= 10; ++seed) {
    sg::thread_id t{"nested-" + std::to_string(seed)};
    Outer out = app.invoke(Outer{.seed = seed}, t);
    REQUIRE(out.total.value() == outer_total(seed));
    auto head = app.get_state(t);
    REQUIRE(head);
    CHECK(head->values.total.value() == outer_total(seed));
    CHECK(head->values.seed == seed);
    CHECK(head->next.empty());
    CHECK(app.history(t).size() == 2);  // the input, then the one step of the fan-out
  }
}

}  // namespace unity_executors_nested_pool
