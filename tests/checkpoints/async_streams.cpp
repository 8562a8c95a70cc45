// Checkpointed async streams (<stategraph/checkpoint/asio.hpp>): app.async_stream(input,
// thread, mode, ...) reports the events stream(input, thread, mode, ...) reports, checkpoints
// included, and leaves the same history; a cancelled step reports and commits nothing, and
// the thread resumes to the uninterrupted run's end; a coroutine node emits and interrupts
// after its waits (its task resumes with its custom buffer and its interrupt scope). On both stores.
#include <stategraph/checkpoint/asio.hpp>

#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "../common/run_async.hpp"

namespace unity_checkpoints_async_streams {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace async_durable_streams {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::append<std::string> log;
  sg::counter<int> n;
};
using log_patch = sg::patch<sg::entry<&State::log, std::string>>;
using log_n_patch = sg::patch<sg::entry<&State::log, std::string>, sg::entry<&State::n, int>>;

// What a test changes about a run; nodes emit custom events through it.
struct pace : sg::emitter<std::string> {
  int slow_at = -1;                 // think waits 10 s at this n (until cancelled)
  std::function<void()> on_slow{};  // called as that wait starts
};

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

// A loop: think (a coroutine) counts, a coroutine router sends it to act (plain) until n is
// 3. In the first step side (a coroutine) and gate (plain, emits) run beside think.
struct think {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log, &State::n>;
  asio::awaitable<log_n_patch> operator()(sg::view<State, reads> in, pace& p) const {
    const int n = in.get<&State::n>();
    if (n == p.slow_at) {
      if (p.on_slow) p.on_slow();
      co_await pause(10s);
    } else {
      co_await pause(1ms);
    }
    p.emit("thought " + std::to_string(n));
    co_return sg::write<&State::log>("think" + std::to_string(n)) | sg::write<&State::n>(1);
  }
};
struct act {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log>;
  log_patch operator()(sg::view<State, reads> in, pace& p) const {
    p.emit("acting on " + std::to_string(in.get<&State::n>()));
    return sg::write<&State::log>("act" + std::to_string(in.get<&State::n>()));
  }
};
struct side {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>) const {
    co_await pause(2ms);
    co_return sg::write<&State::log>("side");
  }
};
struct gate {
  using writes = sg::writes<&State::log>;
  log_patch operator()(sg::view<State, sg::reads<>>, pace& p) const {
    p.emit("gate open");
    return sg::write<&State::log>("gate");
  }
};
struct check {
  using reads = sg::reads<&State::n>;
  asio::awaitable<sg::go<act, sg::end>> operator()(sg::view<State, reads> in) const {
    co_await pause(1ms);
    if (in.get<&State::n>() < 3) co_return sg::to<act>;
    co_return sg::to<sg::end>;
  }
};
using loop =
    sg::graph<State, sg::edge<sg::start, think>, sg::edge<sg::start, side>, sg::edge<sg::start, gate>,
              sg::branch<think, check>, sg::edge<act, think>, sg::edge<side, sg::end>, sg::edge<gate, sg::end>>;

// A coroutine node that emits and asks after its waits, beside a plain node that emits: its
// task resumes with both its custom buffer and its interrupt scope in place.
struct ask {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, pace& p) const {
    co_await pause(1ms);
    p.emit("asking");
    const auto answer = sg::interrupt<std::string>("go on?");
    co_await pause(1ms);
    p.emit("told " + answer);
    co_return sg::write<&State::log>("ask:" + answer);
  }
};
using asking = sg::graph<State, sg::edge<sg::start, ask>, sg::edge<sg::start, gate>, sg::edge<ask, sg::end>,
                         sg::edge<gate, sg::end>>;

// The callbacks the test cases pass, as named types: a test case's own lambda would give the
// run's coroutine frames a member of a type in the anonymous namespace (g++ warns).
using on_event = std::function<void(const sg::event<State, std::string>&)>;
using on_plain_event = std::function<void(const sg::event<State>&)>;

// One line per event, everything but a debug event's duration.
template <class E>
std::string render(const E& e) {
  std::string out = std::to_string(static_cast<unsigned>(e.mode)) + " step " + std::to_string(e.step);
  if (!e.node.empty()) out += " " + std::string(e.node);
  for (auto c : e.channels) out += " " + std::string(c);
  if (e.values) {
    out += " values";
    for (const auto& line : e.values->log) out += " " + line;
    out += " n=" + std::to_string(e.values->n.value());
  }
  if (e.mode == sg::stream_mode::debug) out += " phase " + std::to_string(static_cast<int>(e.phase)) + " " + e.error;
  if (e.mode == sg::stream_mode::checkpoints) {
    out += " checkpoint " + std::to_string(e.checkpoint.id) + " parent " + std::to_string(e.checkpoint.parent_id) +
           " at " + std::to_string(e.checkpoint.step) + " " + std::string(e.checkpoint.source) + " next";
    for (auto n : e.checkpoint.next) out += " " + std::string(n);
  }
  if constexpr (requires { e.custom; })
    if (e.custom) out += " custom " + *e.custom;
  return out;
}

using sg_test::run_async;

// What a thread's history says, newest first: (id, parent, step, source, next nodes, log) per checkpoint.
template <class App>
std::vector<std::string> trail(const App& app, const sg::thread_id& thread) {
  std::vector<std::string> out;
  for (const auto& s : app.history(thread)) {
    std::string line = std::to_string(s.checkpoint_id) + ":" + std::to_string(s.parent_id) + ":" +
                       std::to_string(s.step) + ":" + std::to_string(static_cast<int>(s.source)) + ":";
    for (const auto& next : s.next) line += next + ",";
    for (const auto& l : s.values.log) line += l + ";";
    out.push_back(line);
  }
  return out;
}

constexpr sg::stream_mode every_mode = sg::stream_mode::values | sg::stream_mode::updates | sg::stream_mode::debug |
                                       sg::stream_mode::checkpoints | sg::stream_mode::custom;
const std::vector<std::string> uninterrupted{"think0", "side", "gate", "act1", "think1", "act2", "think2"};

}  // namespace async_durable_streams
using namespace async_durable_streams;

TEST_CASE_TEMPLATE("async_stream on a thread reports stream's events and puts its checkpoints", F, DURABLE_FIXTURES) {
  const sg::thread_id thread{"t"};
  for (const auto mode : {sg::stream_mode::values, sg::stream_mode::updates, sg::stream_mode::debug,
                          sg::stream_mode::checkpoints, sg::stream_mode::custom, every_mode}) {
    CAPTURE(static_cast<unsigned>(mode));
    F sync_store, async_store;  // a store each, so that the checkpoint ids agree
    const auto sync_app = sg::compile<loop>(sg::with_store(sync_store.store));
    const auto async_app = sg::compile<loop>(sg::with_store(async_store.store));
    pace p;
    std::vector<std::string> sync, async;
    const State sync_out = sync_app.stream(State{}, thread, mode, p,
                                           [&](const sg::event<State, std::string>& e) { sync.push_back(render(e)); });
    const State async_out = run_async(
        async_app.async_stream(State{}, thread, mode, p,
                               on_event([&](const sg::event<State, std::string>& e) { async.push_back(render(e)); })));
    CHECK(sync_out.log == uninterrupted);
    CHECK(async_out.log == uninterrupted);
    CHECK(async == sync);
    CHECK(trail(async_app, thread) == trail(sync_app, thread));
    CHECK(async_app.history(thread).size() == 6);  // the input and five steps

    // A second stream continues the thread: the same again.
    sync.clear();
    async.clear();
    sync_app.stream(State{}, thread, mode, p,
                    [&](const sg::event<State, std::string>& e) { sync.push_back(render(e)); });
    run_async(async_app.async_stream(State{}, thread, mode, p, on_event([&](const sg::event<State, std::string>& e) {
                                       async.push_back(render(e));
                                     })));
    CHECK(async == sync);
    CHECK(trail(async_app, thread) == trail(sync_app, thread));
  }

  // What the events are: the input's checkpoint, then each step's checkpoint before its values.
  F f;
  const auto app = sg::compile<loop>(sg::with_store(f.store));
  pace p;
  std::vector<std::string> got;
  const on_event keep = [&](const sg::event<State, std::string>& e) { got.push_back(render(e)); };
  run_async(app.async_stream(State{}, thread, sg::stream_mode::checkpoints | sg::stream_mode::values, p, keep,
                             sg::run_config{}, sg::async_options{.max_concurrency = 1}));
  REQUIRE(got.size() == 12);
  CHECK(got.at(0) == "8 step 0 checkpoint 1 parent 0 at 0 input next think side gate");
  CHECK(got.at(1) == "1 step 0 values n=0");
  CHECK(got.at(2) == "8 step 1 checkpoint 2 parent 1 at 1 loop next act");
  CHECK(got.at(3) == "1 step 1 values think0 side gate n=1");
  CHECK(got.at(11) == "1 step 5 values think0 side gate act1 think1 act2 think2 n=3");

  // durability::async: the puts on the app's commit thread, the same events as the sync stream's.
  F g, h;
  const auto deferred_sync = sg::compile<loop>(sg::with_store(g.store));
  const auto deferred_async = sg::compile<loop>(sg::with_store(h.store));
  const sg::run_config deferred{.durability = sg::durability::async};
  std::vector<std::string> sync, async;
  deferred_sync.stream(
      State{}, thread, every_mode, p, [&](const sg::event<State, std::string>& e) { sync.push_back(render(e)); },
      deferred);
  run_async(deferred_async.async_stream(
      State{}, thread, every_mode, p,
      on_event([&](const sg::event<State, std::string>& e) { async.push_back(render(e)); }), deferred));
  CHECK(async == sync);
  CHECK(trail(deferred_async, thread) == trail(deferred_sync, thread));
}

TEST_CASE_TEMPLATE("a cancelled step of a checkpointed async stream reports and commits nothing", F, DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<loop>(sg::with_store(f.store));
  pace p;
  std::vector<std::string> whole;
  app.stream(State{}, sg::thread_id{"whole"}, every_mode, p,
             [&](const sg::event<State, std::string>& e) { whole.push_back(render(e)); });
  std::vector<std::string> before_step3;  // up to step 2's values
  for (const auto& line : whole) {
    before_step3.push_back(line);
    if (line.rfind("1 step 2 values", 0) == 0) break;
  }

  // think's second call (step 3) waits until it is cancelled.
  p.slow_at = 1;
  const sg::thread_id thread{"cancelled"};
  std::vector<std::string> got;
  try {
    run_async(app.async_stream(State{}, thread, every_mode, p,
                               on_event([&](const sg::event<State, std::string>& e) { got.push_back(render(e)); })),
              &p.on_slow);
    FAIL("the stream was not cancelled");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 3);
    CHECK(e.nodes() == std::vector<std::string>{"think"});
  }
  CHECK(got == before_step3);
  const auto head = app.get_state(thread);
  REQUIRE(head);
  CHECK(head->step == 2);
  CHECK(head->next == std::vector<std::string>{"think"});
  CHECK_FALSE(head->failed);
  p.slow_at = -1;
  CHECK(run_async(app.async_resume(thread, p)).log == uninterrupted);
  CHECK(trail(app, thread).size() == trail(app, sg::thread_id{"whole"}).size());

  // A callback that cancels on step 1's checkpoint: step 2 does not start, step 1 stays committed.
  const sg::thread_id stopped{"stopped"};
  asio::cancellation_signal signal;
  got.clear();
  try {
    run_async(app.async_stream(State{}, stopped, sg::stream_mode::checkpoints, p,
                               on_event([&](const sg::event<State, std::string>& e) {
                                 got.push_back(render(e));
                                 if (e.step == 1) signal.emit(asio::cancellation_type::terminal);
                               })),
              nullptr, &signal);
    FAIL("the stream was not cancelled");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 2);
    CHECK(e.nodes() == std::vector<std::string>{"act"});
  }
  CHECK(got.size() == 2);
  CHECK(app.get_state(stopped)->step == 1);
  CHECK(app.resume(stopped, p).log == uninterrupted);

  // One that cancels on think's update of step 1: the step's coroutine router is cut short,
  // the run reports step 1 cancelled, and only the input is committed.
  const sg::thread_id early{"early"};
  asio::cancellation_signal first;
  got.clear();
  try {
    run_async(app.async_stream(State{}, early, sg::stream_mode::updates, p,
                               on_event([&](const sg::event<State, std::string>& e) {
                                 got.push_back(render(e));
                                 if (e.node == "think") first.emit(asio::cancellation_type::terminal);
                               })),
              nullptr, &first);
    FAIL("the stream was not cancelled");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 1);
    CHECK(e.nodes() == std::vector<std::string>{"think", "side", "gate"});
  }
  CHECK(got == std::vector<std::string>{"2 step 1 think log n", "2 step 1 side log", "2 step 1 gate log"});
  CHECK(app.history(early).size() == 1);
  CHECK(run_async(app.async_resume(early, p)).log == uninterrupted);
}


TEST_CASE_TEMPLATE("a streamed coroutine node emits and interrupts after its waits as in stream", F, DURABLE_FIXTURES) {
  const sg::thread_id thread{"t"};
  F sync_store, async_store;
  const auto sync_app = sg::compile<asking>(sg::with_store(sync_store.store));
  const auto async_app = sg::compile<asking>(sg::with_store(async_store.store));
  pace p;
  std::vector<std::string> sync, async;
  const auto mode = sg::stream_mode::custom | sg::stream_mode::checkpoints | sg::stream_mode::values;
  sync_app.stream(State{}, thread, mode, p, [&](const sg::event<State, std::string>& e) { sync.push_back(render(e)); });
  run_async(async_app.async_stream(State{}, thread, mode, p, on_event([&](const sg::event<State, std::string>& e) {
                                     async.push_back(render(e));
                                   })));
  CHECK(async == sync);
  CHECK(async == std::vector<std::string>{"8 step 0 checkpoint 1 parent 0 at 0 input next ask gate",
                                          "1 step 0 values n=0", "16 step 1 ask custom asking",
                                          "16 step 1 gate custom gate open"});
  REQUIRE(async_app.get_state(thread)->interrupts.size() == 1);
  CHECK(async_app.get_state(thread)->interrupts.at(0).payload == "\"go on?\"");
  CHECK(trail(async_app, thread) == trail(sync_app, thread));

  const State sync_out = sync_app.resume(thread, std::string("yes"), p);
  const State async_out = run_async(async_app.async_resume(thread, std::string("yes"), p));
  CHECK(async_out.log == std::vector<std::string>{"ask:yes", "gate"});
  CHECK(async_out.log == sync_out.log);
  CHECK(trail(async_app, thread) == trail(sync_app, thread));
}

}  // namespace unity_checkpoints_async_streams
