// Async runs (<stategraph/asio.hpp>, docs/async.md): coroutine nodes, routers and send
// targets; async_invoke equals invoke on sg::sequential (where coroutine nodes are waited
// for in place); the nodes of a step run concurrently up to max_concurrency; timeouts,
// retries of timeouts, run deadlines and cancellation fail a step with nothing merged.
#include <stategraph/asio.hpp>
#include <stategraph/stop.hpp>

#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_async_async {

namespace sg = stategraph;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace async_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::append<std::string> log;
  sg::counter<int> n;
  sg::append<int> items;
};
using log_patch = sg::patch<sg::entry<&State::log, std::string>>;
using log_n_patch = sg::patch<sg::entry<&State::log, std::string>, sg::entry<&State::n, int>>;

// What the nodes share in a test: how many coroutines wait at once, at most. Atomic: on a
// thread pool the nodes of a step run on two threads at once.
struct probe {
  std::atomic<int> in_flight = 0;
  std::atomic<int> most = 0;
  std::atomic<int> calls = 0;
};

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

// A coroutine node that waits Ms before writing its name: later nodes finish first.
template <int K, int Ms>
struct waits {
  static constexpr std::string_view name = K == 1 ? "w1" : K == 2 ? "w2" : "w3";
  using writes = sg::writes<&State::log, &State::n>;
  asio::awaitable<log_n_patch> operator()(sg::view<State, sg::reads<>>, probe& p) const {
    const int now = ++p.in_flight;
    for (int seen = p.most.load(); now > seen && !p.most.compare_exchange_weak(seen, now);) {
    }
    co_await pause(std::chrono::milliseconds(Ms));
    --p.in_flight;
    co_return sg::write<&State::log>(std::string(name)) | sg::write<&State::n>(K);
  }
};
struct plain_node {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("plain"); }
};
struct after {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, reads> in) const {
    co_await pause(1ms);
    co_return sg::write<&State::log>("after:" + std::to_string(in.get<&State::n>()));
  }
};
using fan_out = sg::graph<State, sg::edge<sg::start, waits<1, 12>>, sg::edge<sg::start, waits<2, 6>>,
                          sg::edge<sg::start, plain_node>, sg::edge<sg::start, waits<3, 1>>,
                          sg::join<after, waits<1, 12>, waits<2, 6>, plain_node, waits<3, 1>>, sg::edge<after, sg::end>>;

// A loop: a coroutine node counts, a coroutine router decides.
struct count {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::n, &State::log>;
  asio::awaitable<log_n_patch> operator()(sg::view<State, reads> in) const {
    co_await pause(1ms);
    co_return sg::write<&State::log>("count" + std::to_string(in.get<&State::n>())) | sg::write<&State::n>(1);
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
using looping = sg::graph<State, sg::edge<sg::start, count>, sg::branch<count, again>>;

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

// Runs `make()` to completion on a fresh io_context of one thread.
template <class T>
T run_async(std::function<asio::awaitable<T>()> make) {
  asio::io_context io;
  std::optional<T> out;
  std::exception_ptr failure;
  asio::co_spawn(
      io, [&]() -> asio::awaitable<void> { out.emplace(co_await make()); },
      [&](std::exception_ptr e) { failure = e; });
  io.run();
  if (failure) std::rethrow_exception(failure);
  return std::move(*out);
}

std::vector<std::string> logged(const State& s) { return {s.log.begin(), s.log.end()}; }

}  // namespace async_cases
using namespace async_cases;

TEST_CASE("async: a fan-out of coroutine and plain nodes merges in node order, as sequential") {
  auto app = sg::compile<fan_out>();
  probe p;
  const State seq = app.invoke(State{}, p);
  CHECK(p.most == 1);  // sequential: waited for one by one
  probe q;
  const State async = run_async<State>([&] { return app.async_invoke(State{}, q); });
  CHECK(q.most == 3);  // the three coroutines of step 1 waited together
  const std::vector<std::string> expected{"w1", "w2", "plain", "w3", "after:6"};
  CHECK(logged(seq) == expected);
  CHECK(logged(async) == expected);
  CHECK(async.n.value() == 6);

  probe one;
  const State limited = run_async<State>([&] { return app.async_invoke(State{}, one, sg::async_options{.max_concurrency = 1}); });
  CHECK(one.most == 1);
  CHECK(logged(limited) == expected);
  probe two;
  (void)run_async<State>([&] { return app.async_invoke(State{}, two, sg::async_options{.max_concurrency = 2}); });
  CHECK(two.most == 2);

  // On the thread pool, each coroutine node is waited for on its task's thread.
  auto pool = sg::compile<fan_out>(sg::with_executor(sg::thread_pool{2}));
  probe r;
  CHECK(logged(pool.invoke(State{}, r)) == expected);
}

TEST_CASE("async: a loop with a coroutine router, and sends to a coroutine target, equal sequential runs") {
  auto loop = sg::compile<looping>();
  const State seq = loop.invoke(State{});
  const State async = run_async<State>([&] { return loop.async_invoke(State{}); });
  CHECK(logged(seq) == std::vector<std::string>{"count0", "count1", "count2", "count3"});
  CHECK(logged(async) == logged(seq));
  CHECK(async.n.value() == 4);

  auto send = sg::compile<sending>();
  const State in{.items = {1, 2, 3}};
  const State s_seq = send.invoke(in);
  const State s_async = run_async<State>([&] { return send.async_invoke(in); });
  CHECK(logged(s_seq) == std::vector<std::string>{"sq1", "sq4", "sq9"});  // send order, not finishing order
  CHECK(logged(s_async) == logged(s_seq));
  CHECK(s_async.n.value() == 14);
}

namespace async_cases {
// A send target that lets two of its copies run at once (its own max_concurrency).
struct limited_square {
  static constexpr std::size_t max_concurrency = 2;
  using writes = sg::writes<&State::log, &State::n>;
  asio::awaitable<log_n_patch> operator()(sg::view<State, sg::reads<>>, const int& x, probe& p) const {
    ++p.calls;
    const int now = ++p.in_flight;
    for (int seen = p.most.load(); now > seen && !p.most.compare_exchange_weak(seen, now);) {
    }
    co_await pause(std::chrono::milliseconds(10 - x));
    --p.in_flight;
    co_return sg::write<&State::log>("sq" + std::to_string(x * x)) | sg::write<&State::n>(x * x);
  }
};
struct fan_limited {
  using reads = sg::reads<&State::items>;
  using sends = sg::sends<limited_square>;
  std::vector<sg::send_to<limited_square, int>> operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<limited_square, int>> out;
    for (int x : in.get<&State::items>()) out.push_back(sg::send<limited_square>(x));
    return out;
  }
};
using sending_limited = sg::graph<State, sg::edge<sg::start, fan_limited>, sg::edge<limited_square, sg::end>>;
}  // namespace async_cases

TEST_CASE("async: a node's own max_concurrency caps its send copies running at once") {
  auto app = sg::compile<sending_limited>();
  const State in{.items = {1, 2, 3, 4, 5, 6}};
  const std::vector<std::string> expected{"sq1", "sq4", "sq9", "sq16", "sq25", "sq36"};  // send order
  probe p;
  const State out = run_async<State>([&] { return app.async_invoke(in, p); });
  CHECK(p.calls == 6);
  CHECK(p.most == 2);  // six copies in one step, two at a time
  CHECK(logged(out) == expected);
  CHECK(out.n.value() == 91);
  // The run's limit still applies on top of the node's.
  probe one;
  const State out_one = run_async<State>([&] { return app.async_invoke(in, one, sg::async_options{.max_concurrency = 1}); });
  CHECK(one.most == 1);
  CHECK(logged(out_one) == expected);
  probe seq;
  CHECK(logged(app.invoke(in, seq)) == expected);
}

namespace async_cases {
// Waits as long as the run's random delays say, then writes and may send to the collector.
struct delays {
  int ms[4] = {};
};
struct collect;
template <int K>
struct jittery {
  static constexpr std::string_view name = K == 0 ? "j0" : K == 1 ? "j1" : K == 2 ? "j2" : "j3";
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log, &State::n>;
  using sends = sg::sends<collect>;
  asio::awaitable<sg::command<log_n_patch, std::vector<sg::send_to<collect, int>>>> operator()(
      sg::view<State, reads> in, delays& d) const {
    co_await pause(std::chrono::milliseconds(d.ms[K]));
    std::vector<sg::send_to<collect, int>> out;
    if (d.ms[K] % 2 == 0) out.push_back(sg::send<collect>(K * 10 + d.ms[K]));
    co_return sg::command{sg::write<&State::log>(std::string(name) + "@" + std::to_string(in.get<&State::n>())) |
                              sg::write<&State::n>(K + 1),
                          std::move(out)};
  }
};
struct collect {
  using writes = sg::writes<&State::items>;
  asio::awaitable<sg::patch<sg::entry<&State::items, int>>> operator()(sg::view<State, sg::reads<>>, const int& x,
                                                                        delays& d) const {
    co_await pause(std::chrono::milliseconds(d.ms[x % 4]));
    co_return sg::write<&State::items>(x);
  }
};
struct again_twice {
  using reads = sg::reads<&State::n>;
  sg::go_all<jittery<0>, jittery<2>, sg::end> operator()(sg::view<State, reads> in) const {
    sg::go_all<jittery<0>, jittery<2>, sg::end> g;
    if (in.get<&State::n>() < 12) g.add(sg::to<jittery<0>>), g.add(sg::to<jittery<2>>);
    else g.add(sg::to<sg::end>);
    return g;
  }
};
using random_fan = sg::graph<State, sg::edge<sg::start, jittery<0>>, sg::edge<sg::start, jittery<1>>,
                             sg::edge<sg::start, jittery<2>>, sg::edge<sg::start, jittery<3>>,
                             sg::branch<jittery<0>, again_twice>, sg::edge<jittery<1>, sg::end>,
                             sg::edge<jittery<2>, sg::end>, sg::edge<jittery<3>, sg::end>, sg::edge<collect, sg::end>>;
}  // namespace async_cases

TEST_CASE("async: random finishing orders give the sequential run's state") {
  const auto app = sg::compile<random_fan>();
  std::mt19937 random(17);
  for (int round = 0; round < 12; ++round) {
    delays d;
    for (int& ms : d.ms) ms = static_cast<int>(random() % 4);
    const State seq = app.invoke(State{}, d);
    const State async = run_async<State>([&] {
      return app.async_invoke(State{}, d, sg::async_options{.max_concurrency = static_cast<std::size_t>(round % 3)});
    });
    CHECK(logged(async) == logged(seq));
    CHECK(std::vector<int>(async.items.begin(), async.items.end()) == std::vector<int>(seq.items.begin(), seq.items.end()));
    CHECK(async.n.value() == seq.n.value());
    CHECK(seq.n.value() >= 12);
  }
}

TEST_CASE("async: many runs wait together on one thread") {
  auto app = sg::compile<looping>();
  asio::io_context io;
  int done = 0;
  for (int i = 0; i < 200; ++i)
    asio::co_spawn(io, app.async_invoke(State{}), [&](std::exception_ptr e, State s) {
      if (!e && s.n.value() == 4) ++done;
    });
  const auto started = std::chrono::steady_clock::now();
  io.run();
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(done == 200);
  // Each run waits 8 ms in timers; 200 of them one after another would take 1.6 s.
  CHECK(took < 800ms);
}

// ---- failures, timeouts, deadlines, cancellation -------------------------------------------

namespace async_cases {
struct throws {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>) const {
    co_await pause(1ms);
    throw std::runtime_error("the tool broke");
  }
};
using throwing = sg::graph<State, sg::edge<sg::start, waits<1, 1>>, sg::edge<sg::start, throws>,
                           sg::edge<waits<1, 1>, sg::end>, sg::edge<throws, sg::end>>;

// Never resumes on its own: only its timeout ends it.
struct hangs {
  static constexpr sg::timeout_policy timeout{.limit = 20ms};
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>) const {
    co_await pause(std::chrono::hours(1));
    co_return sg::write<&State::log>("never");
  }
};
using hanging = sg::graph<State, sg::edge<sg::start, hangs>, sg::edge<hangs, sg::end>>;

// Times out on its first attempt, answers on its second.
struct flaky {
  static constexpr sg::timeout_policy timeout{.limit = 20ms};
  static constexpr sg::retry_policy retry{.max_attempts = 3, .initial_interval = 0.001, .jitter = false};
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, probe& p) const {
    if (++p.calls == 1) co_await pause(std::chrono::hours(1));
    co_return sg::write<&State::log>("answered on attempt " + std::to_string(p.calls.load()));
  }
};
using retrying = sg::graph<State, sg::edge<sg::start, flaky>, sg::edge<flaky, sg::end>>;

// A plain node that overruns its timeout: a synchronous executor discards its result.
struct slow_plain {
  static constexpr sg::timeout_policy timeout{.limit = 1ms};
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const {
    std::this_thread::sleep_for(5ms);
    return sg::write<&State::log>("late");
  }
};
using slow = sg::graph<State, sg::edge<sg::start, plain_node>, sg::edge<plain_node, slow_plain>,
                       sg::edge<slow_plain, sg::end>>;

using long_wait = sg::graph<State, sg::edge<sg::start, plain_node>, sg::edge<plain_node, waits<1, 3'600'000>>,
                            sg::edge<plain_node, waits<2, 1>>, sg::edge<waits<1, 3'600'000>, sg::end>,
                            sg::edge<waits<2, 1>, sg::end>>;
}  // namespace async_cases

TEST_CASE("async: a coroutine node that throws fails its step, named, as on sequential") {
  auto app = sg::compile<throwing>();
  probe p;
  for (int executor = 0; executor < 2; ++executor) {
    try {
      if (executor == 0)
        (void)app.invoke(State{}, p);
      else
        (void)run_async<State>([&] { return app.async_invoke(State{}, p); });
      FAIL("expected sg::node_error");
    } catch (const sg::node_error& e) {
      CHECK(e.node() == "throws");
      CHECK(e.step() == 1);
      CHECK(std::string(e.what()).find("the tool broke") != std::string::npos);
    }
  }
}

TEST_CASE("async: a node past its timeout is cancelled and fails its step with sg::timeout_error") {
  auto app = sg::compile<hanging>();
  const auto started = std::chrono::steady_clock::now();
  try {
    (void)run_async<State>([&] { return app.async_invoke(State{}); });
    FAIL("expected sg::timeout_error");
  } catch (const sg::timeout_error& e) {
    CHECK(e.node() == "hangs");
    CHECK(e.step() == 1);
    CHECK(e.limit() == 20ms);
    CHECK(std::string(e.what()).find("timed out after 20 ms") != std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - started < 2s);

  // The retry policy retries a timeout; the waits go through run_config::sleep.
  auto retried = sg::compile<retrying>();
  probe p;
  std::vector<std::chrono::nanoseconds> waited;
  sg::run_config config{.sleep = [&](std::chrono::nanoseconds d) { waited.push_back(d); }};
  const State out = run_async<State>([&] { return retried.async_invoke(State{}, p, config); });
  CHECK(logged(out) == std::vector<std::string>{"answered on attempt 2"});
  CHECK(waited == std::vector<std::chrono::nanoseconds>{1ms});

  // On sg::sequential a plain node cannot be stopped: past its limit, its result is dropped.
  auto seq = sg::compile<slow>();
  try {
    (void)seq.invoke(State{});
    FAIL("expected sg::timeout_error");
  } catch (const sg::timeout_error& e) {
    CHECK(e.node() == "slow_plain");
    CHECK(e.step() == 2);
    CHECK(dynamic_cast<const sg::node_error*>(&e) != nullptr);
  }
}

TEST_CASE("async: a run past its deadline, or cancelled, stops its step with nothing merged") {
  auto app = sg::compile<long_wait>();
  probe p;
  try {
    (void)run_async<State>(
        [&] { return app.async_invoke(State{}, p, sg::async_options{.deadline = 30ms}); });
    FAIL("expected sg::deadline_error");
  } catch (const sg::deadline_error& e) {
    CHECK(e.step() == 2);
    CHECK(e.nodes() == std::vector<std::string>{"w1", "w2"});
  }

  // Cancelled through the awaiting operation's cancellation slot, step by step: the step
  // that was cancelled leaves the state and the position as they were.
  asio::io_context io;
  asio::cancellation_signal cancel;
  State state;
  auto at = app.begin_run(state, State{});
  std::exception_ptr failure;
  bool first_step = false;
  probe q;
  auto steps = [&]() -> asio::awaitable<void> {
    first_step = co_await sg::async_step(app, state, at, q);
    co_await sg::async_step(app, state, at, q);  // cancelled while w1 waits
  };
  asio::co_spawn(io, steps(), asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e) { failure = e; }));
  asio::steady_timer later(io, 20ms);
  later.async_wait([&](boost::system::error_code) { cancel.emit(asio::cancellation_type::terminal); });
  io.run();
  CHECK(first_step);
  REQUIRE(failure);
  try {
    std::rethrow_exception(failure);
  } catch (const sg::deadline_error&) {
    FAIL("a cancellation is no deadline");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 2);
    CHECK(e.nodes() == std::vector<std::string>{"w1", "w2"});
    CHECK(std::string(e.what()).find("cancelled in step 2") != std::string::npos);
  }
  CHECK(logged(state) == std::vector<std::string>{"plain"});  // w2 finished, but nothing of step 2 merged
  CHECK(state.n.value() == 0);
  CHECK(at.step == 1);
}

// ---- stopping synchronous runs (<stategraph/stop.hpp>) -----------------------------------------

namespace async_cases {
struct counting_ctx : sg::stoppable {
  std::stop_source* source = nullptr;
  int stop_at = 0;  // the count at which the node asks for the stop itself
};
struct ticks {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::n, &State::log>;
  static constexpr sg::retry_policy retry{.max_attempts = 3, .initial_interval = 0, .jitter = false};
  auto operator()(sg::view<State, reads> in, counting_ctx& ctx) const {
    if (in.get<&State::n>() == ctx.stop_at) ctx.source->request_stop();
    ctx.throw_if_stop_requested();  // a stop is not retried
    return sg::write<&State::n>(1) | sg::write<&State::log>("tick" + std::to_string(in.get<&State::n>()));
  }
};
struct until_ten {
  using reads = sg::reads<&State::n>;
  sg::go<ticks, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::n>() < 10) return sg::to<ticks>;
    return sg::to<sg::end>;
  }
};
using ticking = sg::graph<State, sg::edge<sg::start, plain_node>, sg::edge<plain_node, ticks>, sg::branch<ticks, until_ten>>;
}  // namespace async_cases

TEST_CASE("stop: a sync run stops on its token, its deadline, or a node that polls them, on both executors") {
  const auto seq = sg::compile<ticking>();
  const auto pool = sg::compile<ticking>(sg::with_executor(sg::thread_pool{2}));
  auto check = [](const auto& app) {
    std::stop_source source;
    counting_ctx ctx;
    ctx.source = &source;
    ctx.stop_at = 100;
    CHECK(sg::invoke_stoppable(app, State{}, {source.get_token()}, ctx).n.value() == 10);  // never stopped

    ctx.stop_at = 3;  // the node asks for the stop in step 5 (n == 3): the run reports that step
    try {
      (void)sg::invoke_stoppable(app, State{}, {source.get_token()}, ctx);
      FAIL("expected sg::cancelled_error");
    } catch (const sg::deadline_error&) {
      FAIL("a stop is no deadline");
    } catch (const sg::cancelled_error& e) {
      CHECK(e.step() == 5);
      CHECK(e.nodes() == std::vector<std::string>{"ticks"});
    }
    // Already requested: refused before step 1, naming what it would run.
    try {
      (void)sg::invoke_stoppable(app, State{}, {source.get_token()}, ctx);
      FAIL("expected sg::cancelled_error");
    } catch (const sg::cancelled_error& e) {
      CHECK(e.step() == 1);
      CHECK(e.nodes() == std::vector<std::string>{"plain_node"});
    }
    try {
      (void)sg::invoke_stoppable(app, State{}, {.deadline = std::chrono::steady_clock::now() - 1ms}, ctx);
      FAIL("expected sg::deadline_error");
    } catch (const sg::deadline_error& e) {
      CHECK(e.step() == 1);
    }
  };
  check(seq);
  check(pool);
}

}  // namespace unity_async_async
