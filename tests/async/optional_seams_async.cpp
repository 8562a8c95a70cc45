// Optional seams on coroutine nodes and coroutine send targets in async runs: without the
// seam the node is skipped exactly as invoke skips it (not called, nothing merged, its edges
// pass through), whether the context's type or its find() decides; with it, the node is
// awaited. Each case compares async_invoke with invoke.
#include <stategraph/asio.hpp>

#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <vector>
#include "../common/run_async.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_async_optional_seams_async {

namespace sg = stategraph;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace async_seam_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::append<std::string> log;
  std::vector<int> items;
};
using log_patch = sg::patch<sg::entry<&State::log, std::string>>;
using strings = std::vector<std::string>;

struct labeller {
  int calls = 0;
  std::string label(const std::string& what) {
    ++calls;
    return "[" + what + "]";
  }
};

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

struct item;
struct first {
  using reads = sg::reads<&State::items>;
  using writes = sg::writes<&State::log>;
  using sends = sg::sends<item>;
  auto operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<item, int>> out;
    for (int x : in.get<&State::items>()) out.push_back(sg::send<item>(x));
    return sg::command{sg::write<&State::log>(std::string("first")), out};
  }
};
// A coroutine node that runs only with a labeller: alone in its step, or beside `other`.
struct label {
  using seam = sg::optional_seam<labeller>;
  using writes = sg::writes<&State::log>;
  template <class Ctx>
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, Ctx& ctx) const {
    co_await pause(2ms);
    co_return sg::write<&State::log>(sg::seam<labeller>(ctx).label("label"));
  }
};
// A coroutine send target that runs only with a labeller.
struct item {
  using seam = sg::optional_seam<labeller>;
  using writes = sg::writes<&State::log>;
  template <class Ctx>
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, const int& x, Ctx& ctx) const {
    co_await pause(std::chrono::milliseconds(3 - x));
    co_return sg::write<&State::log>(sg::seam<labeller>(ctx).label("item" + std::to_string(x)));
  }
};
struct other {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>) const {
    co_await pause(1ms);
    co_return sg::write<&State::log>(std::string("other"));
  }
};
struct last {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>(std::string("last")); }
};
// Step 1: first (plain, sends items); step 2: label and other beside the item sends; step 3:
// last.
using G = sg::graph<State, sg::edge<sg::start, first>, sg::edge<first, label>, sg::edge<first, other>,
                    sg::edge<label, last>, sg::edge<other, last>, sg::edge<item, sg::end>, sg::edge<last, sg::end>>;
// label alone in a step, between two plain nodes.
using alone = sg::graph<State, sg::edge<sg::start, last>, sg::edge<last, label>, sg::edge<label, sg::end>>;

// The context's type provides the seam; lacks it; or find() decides.
struct with_labeller {
  labeller found;
  template <class Seam>
  Seam& provide() {
    return found;
  }
};
struct without_labeller {
  int unused = 0;
};
struct maybe_labeller {
  labeller found;
  bool enabled = false;
  template <class Seam>
  Seam* find() {
    return enabled ? &found : nullptr;
  }
};

template <class App, class Ctx>
State run_async(const App& app, const State& input, Ctx& ctx) {
  return sg_test::run_async(app.async_invoke(input, ctx));
}
strings log_of(const State& s) {
  return strings(s.log.begin(), s.log.end());
}

}  // namespace async_seam_cases
using namespace async_seam_cases;

TEST_CASE("async: a coroutine node whose optional seam the context's type lacks is skipped as invoke skips it") {
  static_assert(sg::detail::skipped_by_type<label, without_labeller>);
  const auto app = sg::compile<G>();
  const State input{{}, {1, 2}};
  without_labeller ctx;
  const State sync = app.invoke(input, ctx);
  CHECK(log_of(sync) == strings{"first", "other", "last"});
  const State async = run_async(app, input, ctx);
  CHECK(log_of(async) == log_of(sync));

  const auto lone = sg::compile<alone>();
  CHECK(log_of(run_async(lone, State{}, ctx)) == strings{"last"});
  CHECK(log_of(lone.invoke(State{}, ctx)) == strings{"last"});
}

TEST_CASE("async: a coroutine node whose context's type provides its optional seam is awaited") {
  const auto app = sg::compile<G>();
  const State input{{}, {1, 2}};
  with_labeller ctx;
  const State sync = app.invoke(input, ctx);
  CHECK(log_of(sync) == strings{"first", "[label]", "other", "[item1]", "[item2]", "last"});
  CHECK(ctx.found.calls == 3);
  const State async = run_async(app, input, ctx);
  CHECK(log_of(async) == log_of(sync));
  CHECK(ctx.found.calls == 6);
}

TEST_CASE("async: find() decides per call whether a coroutine node or send target runs") {
  static_assert(sg::detail::skipped_at_run_time<label, maybe_labeller>);
  static_assert(sg::detail::skipped_at_run_time<item, maybe_labeller>);
  const auto app = sg::compile<G>();
  const State input{{}, {1, 2}};
  maybe_labeller ctx;
  const State sync_absent = app.invoke(input, ctx);
  CHECK(log_of(sync_absent) == strings{"first", "other", "last"});
  const State async_absent = run_async(app, input, ctx);
  CHECK(log_of(async_absent) == log_of(sync_absent));
  CHECK(ctx.found.calls == 0);

  ctx.enabled = true;
  const State sync_present = app.invoke(input, ctx);
  CHECK(log_of(sync_present) == strings{"first", "[label]", "other", "[item1]", "[item2]", "last"});
  const State async_present = run_async(app, input, ctx);
  CHECK(log_of(async_present) == log_of(sync_present));
  CHECK(ctx.found.calls == 6);

  // Alone in its step: the run's own frame would await it; skipped, it is not called.
  const auto lone = sg::compile<alone>();
  ctx.enabled = false;
  CHECK(log_of(run_async(lone, State{}, ctx)) == strings{"last"});
  CHECK(log_of(lone.invoke(State{}, ctx)) == strings{"last"});
  ctx.enabled = true;
  CHECK(log_of(run_async(lone, State{}, ctx)) == strings{"last", "[label]"});
  CHECK(ctx.found.calls == 7);
}

}  // namespace unity_async_optional_seams_async
