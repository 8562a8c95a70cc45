// Checkpointed async runs (<stategraph/checkpoint/asio.hpp>) and stopped checkpointed runs
// (sg::invoke_stoppable on a thread): the same checkpoints, history and final state as the
// synchronous run; a cancelled or stopped step commits nothing, and the thread resumes to
// the uninterrupted run's end. One graph type, on both stores: each app type costs build time.
#include <stategraph/checkpoint/asio.hpp>
#include <stategraph/stop.hpp>

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
#include <stop_token>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "../common/run_async.hpp"

namespace unity_checkpoints_async_runs {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace async_durable {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::append<std::string> log;
  sg::counter<int> n;
};
using log_patch = sg::patch<sg::entry<&State::log, std::string>>;
using log_n_patch = sg::patch<sg::entry<&State::log, std::string>, sg::entry<&State::n, int>>;

// What a test changes about a run (the nodes read it through their context).
struct pace : sg::stoppable {
  int slow_at = -1;                    // think waits 10 s at this n (until cancelled)
  std::function<void()> on_slow{};     // called as that wait starts
  int stop_after = -1;                 // act requests `stopper` to stop at this n
  std::stop_source* stopper = nullptr;
  bool ask = false;                    // gate pauses on sg::interrupt
  int think_calls = 0;
};

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

// A loop: think (a coroutine) counts, act (plain) answers, a router ends it at n == 4. In the
// first step side (a coroutine) and gate (plain, may interrupt) run beside think.
struct think {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log, &State::n>;
  asio::awaitable<log_n_patch> operator()(sg::view<State, reads> in, pace& p) const {
    const int n = in.get<&State::n>();
    ++p.think_calls;
    if (n == p.slow_at) {
      if (p.on_slow) p.on_slow();
      co_await pause(10s);
    } else {
      co_await pause(1ms);
    }
    co_return sg::write<&State::log>("think" + std::to_string(n)) | sg::write<&State::n>(1);
  }
};
struct act {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log>;
  log_patch operator()(sg::view<State, reads> in, pace& p) const {
    const int n = in.get<&State::n>();
    if (n == p.stop_after && p.stopper) p.stopper->request_stop();
    return sg::write<&State::log>("act" + std::to_string(n));
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
    if (!p.ask) return sg::write<&State::log>("gate");
    return sg::write<&State::log>("gate:" + sg::interrupt<std::string>("go?"));
  }
};
struct check {
  using reads = sg::reads<&State::n>;
  sg::go<act, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::n>() < 4) return sg::to<act>;
    return sg::to<sg::end>;
  }
};
using loop = sg::graph<State, sg::edge<sg::start, think>, sg::edge<sg::start, side>, sg::edge<sg::start, gate>,
                       sg::branch<think, check>, sg::edge<act, think>, sg::edge<side, sg::end>,
                       sg::edge<gate, sg::end>>;

using sg_test::run_async;

// What a thread's history says, newest first: (step, next nodes, log length) per checkpoint.
template <class App>
std::vector<std::string> trail(const App& app, const sg::thread_id& thread) {
  std::vector<std::string> out;
  for (const auto& s : app.history(thread)) {
    std::string line = std::to_string(s.step) + ":" + std::to_string(s.values.log.size()) + ":";
    for (const auto& next : s.next) line += next + ",";
    out.push_back(line);
  }
  return out;
}

const std::vector<std::string> uninterrupted{"think0", "side", "gate", "act1", "think1", "act2",
                                             "think2", "act3", "think3"};

}  // namespace async_durable
using namespace async_durable;

TEST_CASE_TEMPLATE("async_invoke on a thread puts the checkpoints invoke puts", F, DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<loop>(sg::with_store(f.store));
  pace p;
  const State sync = app.invoke(State{}, sg::thread_id{"sync"}, p);
  CHECK(sync.log == uninterrupted);
  CHECK(sync.n == 4);
  const State async = run_async(app.async_invoke(State{}, sg::thread_id{"async"}, p));
  CHECK(async.log == sync.log);
  CHECK(async.n == 4);
  CHECK(trail(app, sg::thread_id{"async"}) == trail(app, sg::thread_id{"sync"}));
  CHECK(app.history(sg::thread_id{"async"}).size() == 8);  // the input and seven steps
  CHECK(app.get_state(sg::thread_id{"async"})->next.empty());
  const auto first = trail(app, sg::thread_id{"sync"});

  // A second run continues the thread (from the app's cached head): the same again.
  const State sync2 = app.invoke(State{}, sg::thread_id{"sync"}, p);
  const State async2 = run_async(app.async_invoke(State{}, sg::thread_id{"async"}, p, sg::run_config{}));
  CHECK(async2.log == sync2.log);
  CHECK(trail(app, sg::thread_id{"async"}) == trail(app, sg::thread_id{"sync"}));

  // durability::async: the store's puts on the app's commit thread, the same history.
  const State deferred = run_async(
      app.async_invoke(State{}, sg::thread_id{"async-commits"}, p, sg::run_config{.durability = sg::durability::async}));
  CHECK(deferred.log == uninterrupted);
  CHECK(trail(app, sg::thread_id{"async-commits"}) == first);
}

TEST_CASE_TEMPLATE("a cancelled async step commits nothing; the thread resumes to the same end", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<loop>(sg::with_store(f.store));
  pace p;
  app.invoke(State{}, sg::thread_id{"whole"}, p);
  const auto whole = trail(app, sg::thread_id{"whole"});

  p.slow_at = 2;  // think's third call waits until it is cancelled
  const sg::thread_id thread{"cancelled"};
  try {
    run_async(app.async_invoke(State{}, thread, p), &p.on_slow);
    FAIL("the run was not cancelled");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 5);
    CHECK(e.nodes() == std::vector<std::string>{"think"});
  }
  // The input and four steps are committed; the fifth left no checkpoint and no writes.
  const auto head = app.get_state(thread);
  REQUIRE(head);
  CHECK(head->step == 4);
  CHECK(head->next == std::vector<std::string>{"think"});
  CHECK_FALSE(head->failed);
  CHECK(head->values.log == std::vector<std::string>{"think0", "side", "gate", "act1", "think1", "act2"});

  p.slow_at = -1;
  const State resumed = app.resume(thread, p);
  CHECK(resumed.log == uninterrupted);
  CHECK(trail(app, thread) == whole);

  // The same with the resume awaited.
  p.slow_at = 2;
  const sg::thread_id again{"cancelled-again"};
  CHECK_THROWS_AS(run_async(app.async_invoke(State{}, again, p), &p.on_slow), sg::cancelled_error);
  p.slow_at = -1;
  CHECK(run_async(app.async_resume(again, p)).log == uninterrupted);
  CHECK(trail(app, again) == whole);

  // A run deadline that passes in the slow step: the same, with sg::deadline_error.
  p.slow_at = 2;
  const sg::thread_id late{"late"};
  CHECK_THROWS_AS(run_async(app.async_invoke(State{}, late, p, sg::async_options{.deadline = 500ms})),
                  sg::deadline_error);
  CHECK(app.get_state(late)->step == 4);
  CHECK_FALSE(app.get_state(late)->failed);
  p.slow_at = -1;
  CHECK(app.resume(late, p).log == uninterrupted);
  CHECK(trail(app, late) == whole);
}

TEST_CASE_TEMPLATE("an interrupt in an async step keeps its coroutines' results; async_resume answers it", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<loop>(sg::with_store(f.store));
  pace p;
  p.ask = true;
  const sg::thread_id sync{"sync"}, async{"async"};
  app.invoke(State{}, sync, p);
  const State sync_out = app.resume(sync, std::string("yes"), p);
  const int sync_calls = p.think_calls;
  CHECK(sync_calls == 4);  // think's first result was kept while gate waited

  p.think_calls = 0;
  const State paused = run_async(app.async_invoke(State{}, async, p));
  CHECK(paused.log.empty());  // the first step paused: nothing of it merged
  const auto head = app.get_state(async);
  REQUIRE(head);
  REQUIRE(head->interrupts.size() == 1);
  CHECK(head->interrupts[0].node == "gate");
  CHECK(head->interrupts[0].payload == "\"go?\"");
  const State out = run_async(app.async_resume(async, std::string("yes"), p));
  CHECK(out.log == sync_out.log);
  CHECK(out.log.at(2) == "gate:yes");
  CHECK(p.think_calls == sync_calls);
  CHECK(trail(app, async) == trail(app, sync));
}

// The id of the checkpoint at `step` in a thread's history.
template <class App>
std::int64_t at_step(const App& app, const sg::thread_id& thread, std::int64_t step) {
  for (const auto& s : app.history(thread))
    if (s.step == step) return s.checkpoint_id;
  return 0;
}

TEST_CASE_TEMPLATE("async forks, partial inputs and resumes from a checkpoint equal the synchronous ones", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<loop>(sg::with_store(f.store));
  pace p;
  const sg::thread_id sync{"sync"}, async{"async"};
  app.invoke(State{}, sync, p);
  run_async(app.async_invoke(State{}, async, p));

  // A partial input appends to the log and runs from start once more (n is 4: think, then end).
  const State partial = app.invoke(sg::write<&State::log>(std::string("user")), sync, p);
  CHECK(partial.log.at(9) == "user");
  CHECK(partial.log.at(10) == "think4");
  CHECK(run_async(app.async_invoke(sg::write<&State::log>(std::string("user")), async, p)).log == partial.log);
  CHECK(trail(app, async) == trail(app, sync));

  // A fork from the checkpoint of step 2, with a whole input.
  const State fork = app.invoke(State{}, sync, sg::checkpoint_id{at_step(app, sync, 2)}, p);
  CHECK(run_async(app.async_invoke(State{}, async, sg::checkpoint_id{at_step(app, async, 2)}, p)).log == fork.log);
  CHECK(trail(app, async) == trail(app, sync));

  // A fork with a partial input, from the checkpoint of step 4.
  const State partial_fork =
      app.invoke(sg::write<&State::n>(10), sync, sg::checkpoint_id{at_step(app, sync, 4)}, p);
  CHECK(partial_fork.n == 13);  // 2 + 10, then think once more
  CHECK(run_async(app.async_invoke(sg::write<&State::n>(10), async, sg::checkpoint_id{at_step(app, async, 4)}, p))
            .log == partial_fork.log);
  CHECK(trail(app, async) == trail(app, sync));

  // Checkpoint 3's next nodes run again, as a new branch.
  const State again = app.resume(sync, sg::checkpoint_id{at_step(app, sync, 3)}, p);
  CHECK(run_async(app.async_resume(async, sg::checkpoint_id{at_step(app, async, 3)}, p)).log == again.log);
  CHECK(trail(app, async) == trail(app, sync));
}

TEST_CASE_TEMPLATE("invoke_stoppable on a thread stops before a step; resume finishes the run", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<loop>(sg::with_store(f.store));
  pace p;
  app.invoke(State{}, sg::thread_id{"whole"}, p);
  const auto whole = trail(app, sg::thread_id{"whole"});

  std::stop_source stopper;
  p.stopper = &stopper;
  p.stop_after = 1;  // act's first step asks to stop: step 3 does not start
  const sg::thread_id thread{"stopped"};
  try {
    sg::invoke_stoppable(app, State{}, thread, sg::run_limits{.stop = stopper.get_token()}, p);
    FAIL("the run was not stopped");
  } catch (const sg::cancelled_error& e) {
    CHECK(e.step() == 3);
    CHECK(e.nodes() == std::vector<std::string>{"think"});
  }
  const auto head = app.get_state(thread);
  REQUIRE(head);
  CHECK(head->step == 2);
  CHECK(head->values.log == std::vector<std::string>{"think0", "side", "gate", "act1"});
  CHECK(head->next == std::vector<std::string>{"think"});
  p.stopper = nullptr;
  CHECK(app.resume(thread, p).log == uninterrupted);
  CHECK(trail(app, thread) == whole);

  // A deadline already past: only the input is committed, and resume_stoppable runs the rest.
  const sg::thread_id late{"late"};
  CHECK_THROWS_AS(sg::invoke_stoppable(app, State{}, late,
                                       sg::run_limits{.deadline = std::chrono::steady_clock::now() - 1s}, p),
                  sg::deadline_error);
  CHECK(app.history(late).size() == 1);
  CHECK(sg::resume_stoppable(app, late, sg::run_limits{}, p).log == uninterrupted);
  CHECK(trail(app, late) == whole);
}

}  // namespace unity_checkpoints_async_runs
