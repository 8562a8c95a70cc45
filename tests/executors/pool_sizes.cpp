// sg::thread_pool learns how long a kind of step takes: small steps run inline on the
// calling thread, steps worth a wake-up go to the workers, and a step whose work grows
// moves to them (pool_options, runtime.md).
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_executors_pool_sizes {

namespace sg = stategraph;

namespace pool_sizes {

void busy_for(std::chrono::microseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// A step's tasks: each adds its index to `sum`, works for `work`, and records its thread.
struct step {
  std::chrono::microseconds work{0};
  std::atomic<std::size_t> sum{0};
  std::mutex m;
  std::set<std::thread::id> threads;
  void operator()(std::size_t i) {
    if (work.count()) busy_for(work);
    sum.fetch_add(i + 1, std::memory_order_relaxed);
    std::lock_guard lock(m);
    threads.insert(std::this_thread::get_id());
  }
};

}  // namespace pool_sizes

using namespace pool_sizes;

// A threshold above the default: under TSan eight small tasks can take longer than 16 us,
// and these tests are about the rule, not the default.
constexpr sg::pool_options roomy{.inline_below = std::chrono::microseconds{500}};

// Calls a step of `tasks` tasks until `inline_steps` of them ran inline, and returns how many
// calls that took. A fixed number of calls is not enough: on a loaded machine (TSan beside
// another build) a preempted sample sends a few more steps to the workers before the
// estimate settles. A pool that never runs a step inline fails at the cap.
std::size_t run_until_inline(sg::thread_pool& pool, step& s, std::size_t tasks, std::size_t inline_steps) {
  std::size_t calls = 0;
  while (pool.steps_inline() < inline_steps && calls < 20 * inline_steps) {
    pool.for_each_task(tasks, s);
    ++calls;
  }
  return calls;
}

TEST_CASE("thread_pool: a small step runs inline once its size is known, every task once") {
  sg::thread_pool pool{2, roomy};
  step s;
  const std::size_t calls = run_until_inline(pool, s, 8, 80);
  CHECK(s.sum.load() == calls * 36);
  CHECK(pool.steps_inline() + pool.steps_parallel() == calls);
  // The first call goes to the workers (the kind is new).
  CHECK(pool.steps_parallel() >= 1);
  CHECK(pool.steps_inline() == 80);
}

TEST_CASE("thread_pool: a step whose tasks work for a while runs on the workers") {
  sg::thread_pool pool{2};
  step s;
  s.work = std::chrono::microseconds{300};
  for (int call = 0; call < 10; ++call) pool.for_each_task(4, s);
  CHECK(s.sum.load() == 10 * 10);
  CHECK(pool.steps_parallel() == 10);
  CHECK(pool.steps_inline() == 0);
  // On a busy machine the worker may not get a core within the first steps.
  for (int call = 0; call < 500 && s.threads.size() < 2; ++call) pool.for_each_task(4, s);
  CHECK(s.threads.size() == 2);
  CHECK(pool.steps_inline() == 0);
}

TEST_CASE("thread_pool: a step whose work grows moves to the workers") {
  sg::thread_pool pool{2, roomy};
  step s;
  const std::size_t calls = run_until_inline(pool, s, 4, 40);
  const std::size_t parallel_before = pool.steps_parallel();
  CHECK(pool.steps_inline() == 40);
  // An estimate rises by an eighth of a sample at a time: one sample of 4 x 1500 us lifts
  // the step's estimate past 500 us.
  s.work = std::chrono::microseconds{1500};
  for (int call = 0; call < 40; ++call) pool.for_each_task(4, s);
  // Inline steps are timed one in sixteen: within that many calls the pool notices.
  CHECK(pool.steps_parallel() - parallel_before >= 40 - 17);
  CHECK(s.sum.load() == (calls + 40) * 10);
}

TEST_CASE("thread_pool: inline_below = 0 sends every step of several tasks to the workers") {
  sg::thread_pool pool{2, sg::pool_options{.inline_below = std::chrono::nanoseconds{0}}};
  step s;
  for (int call = 0; call < 20; ++call) pool.for_each_task(8, s);
  CHECK(pool.steps_inline() == 0);
  CHECK(pool.steps_parallel() == 20);
  CHECK(s.sum.load() == 20 * 36);
}

TEST_CASE("thread_pool: a step of one task, or a pool of one thread, never counts as a step") {
  sg::thread_pool pool{2};
  step s;
  pool.for_each_task(1, s);
  sg::thread_pool alone{1};
  alone.for_each_task(8, s);
  CHECK(s.sum.load() == 1 + 36);
  CHECK(pool.steps_inline() + pool.steps_parallel() == 0);
  CHECK(alone.steps_inline() + alone.steps_parallel() == 0);
}

namespace pool_plans {
struct Fan {
  sg::counter<int> total;
  sg::append<std::string> log;
};
std::atomic<int> calls{0};
template <char Name, bool Fails = false>
struct part {
  static constexpr std::string_view name = std::string_view(&"abcdefgh"[Name - 'a'], 1);
  using writes = sg::writes<&Fan::total, &Fan::log>;
  auto operator()(sg::view<Fan, sg::reads<>>) const {
    calls.fetch_add(1);
    if constexpr (Fails) throw std::runtime_error(std::string("fails ") + Name);
    return sg::write<&Fan::total>(1) | sg::write<&Fan::log>(std::string(1, Name));
  }
};
template <class... P>
using fan_of = sg::graph<Fan, sg::edge<sg::start, P>..., sg::edge<P, sg::end>...>;
}  // namespace pool_plans

// A static acyclic graph runs its fixed plan on the pool too: a step's nodes are the pool's
// tasks, merged in node order.
TEST_CASE("thread_pool: a fixed plan's step of several nodes merges in node order, inline or on the workers") {
  using namespace pool_plans;
  using G = fan_of<part<'a'>, part<'b'>, part<'c'>, part<'d'>, part<'e'>>;
  const Fan expected = sg::compile<G>().invoke(Fan{});
  CHECK(expected.log == std::vector<std::string>{"a", "b", "c", "d", "e"});
  for (auto below : {std::chrono::nanoseconds{0}, std::chrono::nanoseconds{std::chrono::seconds{1}}}) {
    sg::thread_pool pool{2, sg::pool_options{.inline_below = below}};
    auto app = sg::compile<G>(sg::with_executor(pool));
    for (int run = 0; run < 50; ++run) {
      const Fan out = app.invoke(Fan{});
      REQUIRE(out.total == 5);
      REQUIRE(out.log == expected.log);
    }
    CHECK(pool.steps_inline() + pool.steps_parallel() == 50);
    if (below.count() == 0) CHECK(pool.steps_parallel() == 50);
  }
}

TEST_CASE("thread_pool: a failing fixed-plan step runs every node and reports the first failure in node order") {
  using namespace pool_plans;
  using G = fan_of<part<'a'>, part<'b', true>, part<'c'>, part<'d', true>>;
  sg::thread_pool pool{2, sg::pool_options{.inline_below = std::chrono::nanoseconds{0}}};
  auto app = sg::compile<G>(sg::with_executor(pool));
  calls = 0;
  try {
    app.invoke(Fan{});
    FAIL("expected a node_error");
  } catch (const sg::node_error& e) {
    CHECK(e.node() == "b");
    CHECK(e.step() == 1);
    CHECK(std::string(e.what()).find("fails b") != std::string::npos);
  }
  CHECK(calls.load() == 4);
}

}  // namespace unity_executors_pool_sizes
