// Async streams (<stategraph/asio.hpp>, docs/async.md): app.async_stream reports the events
// app.stream reports, in the same order, in every stream mode, for graphs that mix coroutine
// and plain nodes (fan-outs with a subgraph, a loop with a coroutine router, sends to a
// coroutine target); a cancelled or expired step reports nothing, and a callback may cancel
// the run between steps.
#include <stategraph/asio.hpp>

#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>
#include "../common/run_async.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_async_streams {

namespace sg = stategraph;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace async_stream_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::append<std::string> log;
  sg::counter<int> n;
  sg::append<int> items;
};
using log_patch = sg::patch<sg::entry<&State::log, std::string>>;
using log_n_patch = sg::patch<sg::entry<&State::log, std::string>, sg::entry<&State::n, int>>;

// The nodes' context: nodes emit custom events through it; a test sets when a
// coroutine node waits until it is cancelled, and what happens as that wait starts.
struct talk : sg::emitter<std::string> {
  int slow_at = -1;
  std::function<void()> on_slow{};
  int fail_at = -1;
};

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

// A coroutine node that waits Ms before writing: later nodes finish first.
template <int K, int Ms>
struct waits {
  static constexpr std::string_view name = K == 1 ? "w1" : "w2";
  using writes = sg::writes<&State::log, &State::n>;
  asio::awaitable<log_n_patch> operator()(sg::view<State, sg::reads<>>, talk& t) const {
    t.emit(std::string(name) + " waits");
    co_await pause(std::chrono::milliseconds(Ms));
    t.emit(std::string(name) + " woke");
    co_return sg::write<&State::log>(std::string(name)) | sg::write<&State::n>(K);
  }
};
struct note {  // plain, emits
  using writes = sg::writes<&State::log>;
  log_patch operator()(sg::view<State, sg::reads<>>, talk& t) const {
    t.emit("noted");
    return sg::write<&State::log>("note");
  }
};
// A subgraph of plain nodes on the same state, beside the coroutines of a step.
struct inner_a {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("a"); }
};
struct inner_b {
  using writes = sg::writes<&State::items>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::items>(7); }
};
using inner_graph =
    sg::graph<State, sg::edge<sg::start, inner_a>, sg::edge<inner_a, inner_b>, sg::edge<inner_b, sg::end>>;
struct research {};
using research_node = sg::subgraph<research, inner_graph>;
struct after {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, reads> in) const {
    co_await pause(1ms);
    co_return sg::write<&State::log>("after:" + std::to_string(in.get<&State::n>()));
  }
};
using fan_out = sg::graph<State, sg::edge<sg::start, waits<1, 12>>, sg::edge<sg::start, waits<2, 3>>,
                          sg::edge<sg::start, note>, sg::edge<sg::start, research_node>,
                          sg::join<after, waits<1, 12>, waits<2, 3>, note, research_node>, sg::edge<after, sg::end>>;

// A loop: a coroutine node counts, a plain node emits, a coroutine router decides.
struct count {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::n, &State::log>;
  asio::awaitable<log_n_patch> operator()(sg::view<State, reads> in, talk& t) const {
    const int n = in.get<&State::n>();
    if (n == t.slow_at) {
      if (t.on_slow) t.on_slow();
      co_await pause(10s);
    } else {
      co_await pause(1ms);
    }
    t.emit("counted " + std::to_string(n));
    if (n == t.fail_at) throw std::runtime_error("count failed");
    co_return sg::write<&State::log>("count" + std::to_string(n)) | sg::write<&State::n>(1);
  }
};
struct tell {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log>;
  log_patch operator()(sg::view<State, reads> in, talk& t) const {
    t.emit("told " + std::to_string(in.get<&State::n>()));
    return sg::write<&State::log>("tell");
  }
};
struct again {
  using reads = sg::reads<&State::n>;
  asio::awaitable<sg::go<count, sg::end>> operator()(sg::view<State, reads> in) const {
    co_await pause(1ms);
    if (in.get<&State::n>() < 4) co_return sg::to<count>;
    co_return sg::to<sg::end>;
  }
};
using looping = sg::graph<State, sg::edge<sg::start, count>, sg::edge<sg::start, tell>, sg::branch<count, again>,
                          sg::edge<count, tell>, sg::edge<tell, sg::end>>;

// Send: a plain node fans out to a coroutine send target, whose copies finish in reverse.
struct square;
struct fan {
  using reads = sg::reads<&State::items>;
  using sends = sg::sends<square>;
  std::vector<sg::send_to<square, int>> operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<square, int>> out;
    for (int x : in.get<&State::items>()) out.push_back(sg::send<square>(x));
    return out;
  }
};
struct square {
  using writes = sg::writes<&State::log, &State::n>;
  asio::awaitable<log_n_patch> operator()(sg::view<State, sg::reads<>>, const int& x) const {
    co_await pause(std::chrono::milliseconds(10 - x));
    co_return sg::write<&State::log>("sq" + std::to_string(x * x)) | sg::write<&State::n>(x * x);
  }
};
using sending = sg::graph<State, sg::edge<sg::start, fan>, sg::edge<square, sg::end>>;

// The callbacks the test cases pass, as named types: a test case's own lambda would give the
// run's coroutine frames a member of a type in the anonymous namespace (g++ warns).
using on_event = std::function<void(const sg::event<State, std::string>&)>;
using on_plain_event = std::function<void(const sg::event<State>&)>;

// One line per event, everything but a debug event's duration (a time, not a result).
template <class E>
std::string render(const E& e) {
  std::string out = std::to_string(static_cast<unsigned>(e.mode)) + " step " + std::to_string(e.step);
  if (e.substep) out += "." + std::to_string(e.substep);
  if (!e.node.empty()) out += " " + std::string(e.node);
  for (auto c : e.channels) out += " " + std::string(c);
  if (e.values) {
    out += " values";
    for (const auto& line : e.values->log) out += " " + line;
    out += " n=" + std::to_string(e.values->n.value()) + " items=" + std::to_string(e.values->items.size());
  }
  if (e.mode == sg::stream_mode::debug) out += " phase " + std::to_string(static_cast<int>(e.phase)) + " " + e.error;
  if constexpr (requires { e.custom; })
    if (e.custom) out += " custom " + *e.custom;
  return out;
}

using sg_test::run_async;

constexpr sg::stream_mode every_mode =
    sg::stream_mode::values | sg::stream_mode::updates | sg::stream_mode::debug | sg::stream_mode::custom;
const std::vector<sg::stream_mode> modes{sg::stream_mode::values, sg::stream_mode::updates, sg::stream_mode::debug,
                                         sg::stream_mode::custom, every_mode};

// The sync stream's events and the async stream's, of one graph in one mode, with the states
// each ended in.
struct both {
  std::vector<std::string> sync, async;
  State sync_out, async_out;
};
template <class App>
both stream_both(const App& app, State input, sg::stream_mode mode) {
  both b;
  talk t;
  b.sync_out = app.stream(input, mode, t, [&](const sg::event<State, std::string>& e) { b.sync.push_back(render(e)); });
  b.async_out = run_async(
      app.async_stream(input, mode, t, [&](const sg::event<State, std::string>& e) { b.async.push_back(render(e)); }));
  return b;
}

}  // namespace async_stream_cases
using namespace async_stream_cases;

TEST_CASE("async_stream: a fan-out of coroutine nodes, a plain node and a subgraph reports stream's events") {
  const auto app = sg::compile<fan_out>();
  for (const auto mode : modes) {
    CAPTURE(static_cast<unsigned>(mode));
    const both b = stream_both(app, State{}, mode);
    CHECK(b.async == b.sync);
    CHECK(b.async_out.log == b.sync_out.log);
    CHECK(b.async_out.log ==
          std::vector<std::string>{"w1", "w2", "note", "a", "after:3"});  // node order, not finishing order
  }
  // What those events are, in order: the subgraph's own updates (reported with the step's
  // tasks), then step 1's updates in node order, then its values.
  const both updates = stream_both(app, State{}, sg::stream_mode::updates | sg::stream_mode::values);
  CHECK(updates.async == std::vector<std::string>{
                             "1 step 0 values n=0 items=0",
                             "2 step 1.1 research/inner_a log",
                             "2 step 1.2 research/inner_b items",
                             "2 step 1 w1 log n",
                             "2 step 1 w2 log n",
                             "2 step 1 note log",
                             "2 step 1 research log items",
                             "1 step 1 values w1 w2 note a n=3 items=1",
                             "2 step 2 after log",
                             "1 step 2 values w1 w2 note a after:3 n=3 items=1",
                         });
  const both debug = stream_both(app, State{}, sg::stream_mode::debug);
  REQUIRE(debug.async.size() == 14);  // four nodes' start and end, the subgraph's two, after's
  CHECK(debug.async.at(0) == "4 step 1 w1 phase 0 ");
  CHECK(debug.async.at(7) == "4 step 1.1 research/inner_a phase 0 ");
  const both custom = stream_both(app, State{}, sg::stream_mode::custom);
  // The coroutines' emits, before and after their waits, each reported under its own node (w2
  // woke first), as a plain node's.
  CHECK(custom.async == std::vector<std::string>{"16 step 1 w1 custom w1 waits", "16 step 1 w1 custom w1 woke",
                                                 "16 step 1 w2 custom w2 waits", "16 step 1 w2 custom w2 woke",
                                                 "16 step 1 note custom noted"});

  // The durations of debug events are measured in an async step too: w1 waits 12 ms.
  talk t;
  std::chrono::nanoseconds w1{};
  run_async(app.async_stream(State{}, sg::stream_mode::debug, t, on_event([&](const sg::event<State, std::string>& e) {
                               if (e.node == "w1" && e.phase == sg::debug_phase::end) w1 = e.duration;
                             })));
  CHECK(w1 >= 12ms);
}

TEST_CASE("async_stream: a loop with a coroutine router, and sends to a coroutine target, report stream's events") {
  const auto loop = sg::compile<looping>();
  const auto sends = sg::compile<sending>();
  State items;
  items.items = {1, 2, 3};
  for (const auto mode : modes) {
    CAPTURE(static_cast<unsigned>(mode));
    const both l = stream_both(loop, State{}, mode);
    CHECK(l.async == l.sync);
    CHECK(l.async_out.log == l.sync_out.log);
    CHECK(l.async_out.n == 4);
    const both s = stream_both(sends, items, mode);
    CHECK(s.async == s.sync);
    CHECK(s.async_out.log == std::vector<std::string>{"sq1", "sq4", "sq9"});  // send order
  }
  const both l = stream_both(loop, State{}, sg::stream_mode::custom);
  CHECK(l.async == std::vector<std::string>{
                       "16 step 1 count custom counted 0",
                       "16 step 1 tell custom told 0",
                       "16 step 2 count custom counted 1",
                       "16 step 2 tell custom told 1",
                       "16 step 3 count custom counted 2",
                       "16 step 3 tell custom told 2",
                       "16 step 4 count custom counted 3",
                       "16 step 4 tell custom told 3",
                       "16 step 5 tell custom told 4",
                   });
}

TEST_CASE("async_stream: the overloads without a context, with a run_config and with async_options") {
  const auto app = sg::compile<sending>();
  State items;
  items.items = {2, 1};
  std::vector<std::string> sync, async;
  const State out =
      app.stream(items, sg::stream_mode::updates, [&](const sg::event<State>& e) { sync.push_back(render(e)); });
  const on_plain_event keep = [&](const sg::event<State>& e) { async.push_back(render(e)); };
  CHECK(run_async(app.async_stream(items, sg::stream_mode::updates, keep)).log == out.log);
  CHECK(run_async(app.async_stream(items, sg::stream_mode::updates, keep, sg::run_config{})).log == out.log);
  CHECK(
      run_async(app.async_stream(items, sg::stream_mode::updates, keep, sg::async_options{.max_concurrency = 1})).log ==
      out.log);
  CHECK(run_async(app.async_stream(items, sg::stream_mode::updates, keep, sg::run_config{},
                                   sg::async_options{.deadline = 5s}))
            .log == out.log);
  REQUIRE(sync.size() == 3);  // fan, then the two send copies
  CHECK(sync.at(1) == "2 step 2 square log n");
  std::vector<std::string> four;
  for (int i = 0; i < 4; ++i) four.insert(four.end(), sync.begin(), sync.end());
  CHECK(async == four);
  // The recursion limit stops a stream as it stops stream.
  talk t;
  const auto loop = sg::compile<looping>();
  CHECK_THROWS_AS(run_async(loop.async_stream(State{}, sg::stream_mode::updates, t,
                                              on_event([](const sg::event<State, std::string>&) {}),
                                              sg::run_config{.recursion_limit = 2})),
                  sg::recursion_limit_error);
}

TEST_CASE("async_stream: a cancelled or expired step reports nothing; a failed one what stream reports") {
  const auto app = sg::compile<looping>();
  talk t;
  const sg::stream_mode mode = every_mode;

  // The sync stream's events up to the end of step 2, the last step before count's third call.
  std::vector<std::string> whole;
  app.stream(State{}, mode, t, [&](const sg::event<State, std::string>& e) { whole.push_back(render(e)); });
  std::vector<std::string> before_step3;
  for (const auto& line : whole)
    if (line.find(" step 3") == std::string::npos && line.find(" step 4") == std::string::npos &&
        line.find(" step 5") == std::string::npos)
      before_step3.push_back(line);

  // Cancelled while count's third call waits: step 3 reports nothing.
  t.slow_at = 2;
  std::vector<std::string> got;
  try {
    run_async(app.async_stream(State{}, mode, t,
                               on_event([&](const sg::event<State, std::string>& e) { got.push_back(render(e)); })),
              &t.on_slow);
    FAIL("the stream was not cancelled");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 3);
    CHECK(e.nodes() == std::vector<std::string>{"count", "tell"});
  }
  CHECK(got == before_step3);
  CHECK(got.back() == "1 step 2 values count0 tell count1 tell n=2 items=0");

  // A deadline that passes in the same step: the same events, with sg::deadline_error.
  got.clear();
  CHECK_THROWS_AS(run_async(app.async_stream(State{}, mode, t, on_event([&](const sg::event<State, std::string>& e) {
                                               got.push_back(render(e));
                                             }),
                                             sg::async_options{.deadline = 300ms})),
                  sg::deadline_error);
  CHECK(got == before_step3);
  t.slow_at = -1;

  // A callback that cancels the run on step 1's values: step 2 does not start.
  got.clear();
  asio::cancellation_signal signal;
  try {
    run_async(app.async_stream(State{}, mode, t, on_event([&](const sg::event<State, std::string>& e) {
                                 got.push_back(render(e));
                                 if (e.mode == sg::stream_mode::values && e.step == 1)
                                   signal.emit(asio::cancellation_type::terminal);
                               })),
              nullptr, &signal);
    FAIL("the stream was not cancelled");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 2);
    CHECK(e.nodes() == std::vector<std::string>{"count", "tell"});
  }
  REQUIRE_FALSE(got.empty());
  CHECK(got.back() == "1 step 1 values count0 tell n=1 items=0");

  // One that cancels on count's update of step 2: the step's coroutine router, which runs
  // after the barrier, is cut short, and the run reports step 2 cancelled.
  got.clear();
  asio::cancellation_signal early;
  try {
    run_async(
        app.async_stream(State{}, sg::stream_mode::updates, t, on_event([&](const sg::event<State, std::string>& e) {
                           got.push_back(render(e));
                           if (e.step == 2 && e.node == "count") early.emit(asio::cancellation_type::terminal);
                         })),
        nullptr, &early);
    FAIL("the stream was not cancelled");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 2);
    CHECK(e.nodes() == std::vector<std::string>{"count", "tell"});
  }
  CHECK(got == std::vector<std::string>{"2 step 1 count log n", "2 step 1 tell log", "2 step 2 count log n",
                                        "2 step 2 tell log"});

  // A coroutine node that throws: the failed step's debug events (its error included), as
  // stream reports them before it throws.
  t.fail_at = 1;
  std::vector<std::string> sync;
  CHECK_THROWS_AS(
      app.stream(State{}, mode, t, [&](const sg::event<State, std::string>& e) { sync.push_back(render(e)); }),
      sg::node_error);
  got.clear();
  CHECK_THROWS_AS(run_async(app.async_stream(State{}, mode, t, on_event([&](const sg::event<State, std::string>& e) {
                                               got.push_back(render(e));
                                             }))),
                  sg::node_error);
  CHECK(got == sync);
  CHECK(got.back().find("4 step 2 tell phase 1") == 0);
  CHECK(std::find_if(got.begin(), got.end(), [](const std::string& line) {
          return line.find("count phase 2") != std::string::npos && line.find("count failed") != std::string::npos;
        }) != got.end());
}

}  // namespace unity_async_streams
