// A subgraph node whose child has coroutine nodes, in a checkpointed async run: the child's
// checkpointed run is awaited on the run's executor (its coroutine nodes do not block the
// run's thread), its checkpoints go under the node's namespace as in invoke, an interrupt
// inside it pauses the whole run, and async_resume or resume continues inside the child.
// Also optional seams on coroutine nodes in a checkpointed async run. Each case compares an
// async thread with a sync one, on both stores.
#include <stategraph/checkpoint/asio.hpp>

#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace unity_checkpoints_async_subgraphs {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace async_children {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::append<std::string> log;
};
using log_patch = sg::patch<sg::entry<&State::log, std::string>>;
using strings = std::vector<std::string>;

// What the nodes report: the execution context the child's coroutine ran on, and whether
// the run's thread did other work while it waited.
struct probe {
  asio::execution_context* ran_on = nullptr;
  int ticks = 0;
  int ticks_during_wait = -1;
  int fetch_calls = 0, ask_calls = 0, intro_calls = 0;
  bool labels = false;  // whether find() gives the optional seam
  bool slow = false;    // fetch waits until it is cancelled
  struct labeller {
    std::string label(const std::string& s) { return "<" + s + ">"; }
  } found;
  template <class Seam>
  Seam* find() {
    return labels ? &found : nullptr;
  }
};

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}
std::chrono::milliseconds slow_or(const probe& p, std::chrono::milliseconds d) {
  return p.slow ? 10000ms : d;
}

// The child: fetch waits on a timer, then ask interrupts after its own wait.
struct fetch {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, probe& p) const {
    ++p.fetch_calls;
    p.ran_on = &asio::query(co_await asio::this_coro::executor, asio::execution::context);
    const int before = p.ticks;
    co_await pause(slow_or(p, 30ms));
    p.ticks_during_wait = p.ticks - before;
    co_return sg::write<&State::log>(std::string("fetch"));
  }
};
struct ask {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, probe& p) const {
    ++p.ask_calls;
    co_await pause(1ms);
    co_return sg::write<&State::log>("ask:" + sg::interrupt<std::string>("ok?"));
  }
};
using child_graph = sg::graph<State, sg::edge<sg::start, fetch>, sg::edge<fetch, ask>, sg::edge<ask, sg::end>>;
struct research {};
using research_node = sg::subgraph<research, child_graph>;

struct intro {
  using writes = sg::writes<&State::log>;
  log_patch operator()(sg::view<State, sg::reads<>>, probe& p) const {
    ++p.intro_calls;
    return sg::write<&State::log>(std::string("intro"));
  }
};
// A coroutine node with an optional seam, beside the subgraph node.
struct labelled {
  using seam = sg::optional_seam<probe::labeller>;
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, probe& p) const {
    co_await pause(1ms);
    co_return sg::write<&State::log>(sg::seam<probe::labeller>(p).label("labelled"));
  }
};
struct outro {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>) const {
    co_await pause(1ms);
    co_return sg::write<&State::log>(std::string("outro"));
  }
};
using parent_graph =
    sg::graph<State, sg::edge<sg::start, intro>, sg::edge<intro, research_node>, sg::edge<intro, labelled>,
              sg::edge<research_node, outro>, sg::edge<labelled, outro>, sg::edge<outro, sg::end>>;

// Runs `run` on an io_context of one thread, beside a ticker that counts while the run waits.
template <class Awaitable>
State run_async(Awaitable run, probe& p, asio::io_context& io) {
  std::optional<State> out;
  std::exception_ptr failure;
  bool over = false;
  asio::co_spawn(io, std::move(run), [&](std::exception_ptr e, State s) {
    over = true;
    failure = e;
    if (!e) out = std::move(s);
  });
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        while (!over) {
          co_await pause(1ms);
          ++p.ticks;
        }
      },
      asio::detached);
  io.run();
  io.restart();
  if (failure) std::rethrow_exception(failure);
  return std::move(*out);
}

template <class App>
strings trail(const App& app, const sg::thread_id& thread) {
  strings out;
  for (const auto& s : app.history(thread)) {
    std::string line = std::to_string(s.step) + ":";
    for (const auto& l : s.values.log) line += l + ",";
    line += "|";
    for (const auto& next : s.next) line += next + ",";
    line += "|";
    for (const auto& i : s.interrupts) line += i.ns + "/" + i.node + "#" + std::to_string(i.index) + "=" + i.payload;
    out.push_back(line);
  }
  return out;
}
strings log_of(const State& s) {
  return strings(s.log.begin(), s.log.end());
}

}  // namespace async_children
using namespace async_children;

TEST_CASE_TEMPLATE("a subgraph's checkpointed run is awaited in an async run, interrupts included", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<parent_graph>(sg::with_store(f.store));
  const auto child = sg::compile<child_graph>(sg::with_store(f.store));
  const sg::thread_id sync{"sync"}, async{"async"};
  probe ps, pa;
  asio::io_context io;

  // Paused inside the child: the parent's step holds the subgraph node; intro is committed.
  const State s1 = app.invoke(State{}, sync, ps);
  const State a1 = run_async(app.async_invoke(State{}, async, pa), pa, io);
  CHECK(log_of(a1) == strings{"intro"});
  CHECK(log_of(a1) == log_of(s1));
  CHECK(pa.ran_on == &io);           // the child's coroutine ran on the run's own executor,
  CHECK(pa.ticks_during_wait > 0);   // and the run's thread went on while it waited
  CHECK(ps.ticks_during_wait == 0);  // (invoke waits for it in place)
  const auto head = app.get_state(async);
  REQUIRE(head);
  REQUIRE(head->interrupts.size() == 1);
  CHECK(head->interrupts[0].node == "ask");
  CHECK(head->interrupts[0].ns == "research");
  CHECK(head->interrupts[0].payload == "\"ok?\"");
  CHECK(trail(app, async) == trail(app, sync));
  CHECK(trail(child, sg::subgraph_thread(async, "research")) == trail(child, sg::subgraph_thread(sync, "research")));

  // Answered: the child continues at ask (fetch is not run again), then the parent ends.
  const State s2 = app.resume(sync, std::string("yes"), ps);
  const State a2 = run_async(app.async_resume(async, std::string("yes"), pa), pa, io);
  CHECK(log_of(a2) == strings{"intro", "fetch", "ask:yes", "outro"});
  CHECK(log_of(a2) == log_of(s2));
  CHECK(app.get_state(async)->next.empty());
  CHECK(trail(app, async) == trail(app, sync));
  CHECK(trail(child, sg::subgraph_thread(async, "research")) == trail(child, sg::subgraph_thread(sync, "research")));
  CHECK(pa.fetch_calls == 1);
  CHECK(pa.ask_calls == 2);
  CHECK(pa.fetch_calls == ps.fetch_calls);
  CHECK(pa.ask_calls == ps.ask_calls);
  CHECK(pa.intro_calls == ps.intro_calls);

  // The same pause answered by the synchronous resume.
  const sg::thread_id mixed{"mixed"};
  probe pm;
  run_async(app.async_invoke(State{}, mixed, pm), pm, io);
  CHECK(log_of(app.resume(mixed, std::string("yes"), pm)) == log_of(s2));
  CHECK(trail(app, mixed) == trail(app, sync));
}

TEST_CASE_TEMPLATE("a cancelled async run cancels the awaited child; a resume ends where invoke ends", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<parent_graph>(sg::with_store(f.store));
  const sg::thread_id sync{"sync"}, async{"async"};
  probe ps, pa;
  app.invoke(State{}, sync, ps);
  const State s = app.resume(sync, std::string("yes"), ps);

  // fetch, inside the child, waits until the run is cancelled.
  pa.slow = true;
  asio::io_context io;
  asio::cancellation_signal cancel;
  std::exception_ptr failure;
  asio::co_spawn(io, app.async_invoke(State{}, async, pa),
                 asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e, State) { failure = e; }));
  asio::steady_timer later(io, 50ms);
  later.async_wait([&](boost::system::error_code) { cancel.emit(asio::cancellation_type::terminal); });
  const auto started = std::chrono::steady_clock::now();
  io.run();
  CHECK(std::chrono::steady_clock::now() - started < 5s);  // not the 10 s wait
  REQUIRE(failure);
  CHECK_THROWS_AS(std::rethrow_exception(failure), sg::cancelled_error);
  const auto head = app.get_state(async);
  REQUIRE(head);
  CHECK(log_of(head->values) == strings{"intro"});  // the cancelled step left no checkpoint
  CHECK(head->next == strings{"research", "labelled"});

  // Resumed: the child runs anew, pauses at ask, and the answer ends the run as invoke's.
  pa.slow = false;
  io.restart();
  run_async(app.async_resume(async, pa), pa, io);
  const State a = run_async(app.async_resume(async, std::string("yes"), pa), pa, io);
  CHECK(log_of(a) == log_of(s));
  CHECK(app.get_state(async)->next.empty());
  CHECK(trail(app, async) == trail(app, sync));  // the parent's history; the child's has the cancelled run's too
}

TEST_CASE_TEMPLATE("an optional seam skips a coroutine node in a checkpointed async run as in invoke", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<parent_graph>(sg::with_store(f.store));
  for (const bool labels : {false, true}) {
    CAPTURE(labels);
    const sg::thread_id sync{labels ? "sync-labels" : "sync"}, async{labels ? "async-labels" : "async"};
    probe ps, pa;
    ps.labels = pa.labels = labels;
    asio::io_context io;
    app.invoke(State{}, sync, ps);
    run_async(app.async_invoke(State{}, async, pa), pa, io);
    const State s = app.resume(sync, std::string("y"), ps);
    const State a = run_async(app.async_resume(async, std::string("y"), pa), pa, io);
    if (labels)
      CHECK(log_of(a) == strings{"intro", "fetch", "ask:y", "<labelled>", "outro"});
    else
      CHECK(log_of(a) == strings{"intro", "fetch", "ask:y", "outro"});
    CHECK(log_of(a) == log_of(s));
    CHECK(trail(app, async) == trail(app, sync));
  }
}

}  // namespace unity_checkpoints_async_subgraphs
