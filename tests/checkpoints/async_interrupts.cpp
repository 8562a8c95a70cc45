// sg::interrupt from coroutine nodes in checkpointed async runs: a coroutine node (or send
// target) that interrupts before or after a co_await pauses the run with the checkpoint and
// pending interrupts the synchronous run has; async_resume and resume deliver the answers and
// run only the interrupted tasks again. Each case compares an async thread with a sync one
// of the same graph, on both stores.
#include <stategraph/checkpoint/asio.hpp>

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

#include "fixtures.hpp"
#include "../common/run_async.hpp"

namespace doctest {
template <>
struct StringMaker<std::vector<std::string>> {
  static String convert(const std::vector<std::string>& v) {
    std::string out = "{";
    for (const auto& s : v) out += "\"" + s + "\" ";
    return (out + "}").c_str();
  }
};
}  // namespace doctest

namespace unity_checkpoints_async_interrupts {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace async_asks {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::append<std::string> log;
  std::vector<int> items;
};
using log_patch = sg::patch<sg::entry<&State::log, std::string>>;

// Calls per node, read by the tests (the nodes reach it through their context).
struct calls {
  int ask = 0, side = 0, plain = 0, finish = 0, item = 0;
};

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

// Interrupts before its co_await and again after it: two pauses of one node.
struct ask {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, calls& c) const {
    ++c.ask;
    const auto first = sg::interrupt<std::string>("first?");
    co_await pause(2ms);
    const auto second = sg::interrupt<std::string>("second?");
    co_return sg::write<&State::log>("ask:" + first + "/" + second);
  }
};
// A coroutine beside it whose result is kept while ask waits.
struct side {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, calls& c) const {
    ++c.side;
    co_await pause(1ms);
    co_return sg::write<&State::log>("side");
  }
};
struct plain {
  using writes = sg::writes<&State::log>;
  log_patch operator()(sg::view<State, sg::reads<>>, calls& c) const {
    ++c.plain;
    return sg::write<&State::log>("plain");
  }
};
// Alone in its step: it interrupts after a co_await, through its context.
struct finish {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, calls& c) const {
    ++c.finish;
    co_await pause(1ms);
    co_return sg::write<&State::log>("finish:" + sg::interrupt<std::string>("done?"));
  }
};
using asks =
    sg::graph<State, sg::edge<sg::start, ask>, sg::edge<sg::start, side>, sg::edge<sg::start, plain>,
              sg::edge<ask, finish>, sg::edge<side, sg::end>, sg::edge<plain, sg::end>, sg::edge<finish, sg::end>>;

// Several interrupts in one step: two coroutine nodes and the coroutine send tasks of the even items.
struct item;
struct fan {
  using reads = sg::reads<&State::items>;
  using sends = sg::sends<item>;
  std::vector<sg::send_to<item, int>> operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<item, int>> out;
    for (int x : in.get<&State::items>()) out.push_back(sg::send<item>(x));
    return out;
  }
};
struct item {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, const int& x, calls& c) const {
    ++c.item;
    co_await pause(std::chrono::milliseconds(4 - x));  // the later items finish first
    std::string answer = "auto";
    if (x % 2 == 0) answer = sg::interrupt<std::string>("item " + std::to_string(x) + "?");
    co_return sg::write<&State::log>("item" + std::to_string(x) + ":" + answer);
  }
};
struct left {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, calls& c) const {
    ++c.ask;
    co_await pause(3ms);
    co_return sg::write<&State::log>("left:" + sg::interrupt<std::string>("left?"));
  }
};
struct right {
  using writes = sg::writes<&State::log>;
  asio::awaitable<log_patch> operator()(sg::view<State, sg::reads<>>, calls& c) const {
    ++c.side;
    const auto answer = sg::interrupt<std::string>("right?");
    co_await pause(1ms);
    co_return sg::write<&State::log>("right:" + answer);
  }
};
// fan's sends run in the step after it, beside left and right.
using many = sg::graph<State, sg::edge<sg::start, fan>, sg::edge<fan, left>, sg::edge<fan, right>,
                       sg::edge<left, sg::end>, sg::edge<right, sg::end>, sg::edge<item, sg::end>>;

using sg_test::run_async;

// A thread's history, newest first: step, log, next nodes and pending interrupts per checkpoint.
template <class App>
std::vector<std::string> trail(const App& app, const sg::thread_id& thread) {
  std::vector<std::string> out;
  for (const auto& s : app.history(thread)) {
    std::string line = std::to_string(s.step) + ":";
    for (const auto& l : s.values.log) line += l + ",";
    line += "|";
    for (const auto& next : s.next) line += next + ",";
    line += "|";
    for (const auto& i : s.interrupts) line += i.node + "#" + std::to_string(i.index) + "=" + i.payload + ",";
    out.push_back(line);
  }
  return out;
}
// The pending interrupts of a thread's head: node, index and payload each.
template <class App>
std::vector<std::string> pending(const App& app, const sg::thread_id& thread) {
  std::vector<std::string> out;
  const auto head = app.get_state(thread);
  REQUIRE(head);
  for (const auto& i : head->interrupts)
    out.push_back(i.node + (i.send ? "[" + std::to_string(*i.send) + "]" : "") + "#" + std::to_string(i.index) + "=" +
                  i.payload);
  return out;
}

}  // namespace async_asks
using namespace async_asks;

TEST_CASE_TEMPLATE("a coroutine node interrupts before and after a co_await in an async run as in invoke", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<asks>(sg::with_store(f.store));
  const sg::thread_id sync{"sync"}, async{"async"};
  calls cs, ca;

  // The first pause: before ask's co_await. Nothing of the step is merged.
  const State s1 = app.invoke(State{}, sync, cs);
  const State a1 = run_async(app.async_invoke(State{}, async, ca));
  CHECK(a1.log.empty());
  CHECK(a1.log == s1.log);
  CHECK(pending(app, async) == std::vector<std::string>{"ask#0=\"first?\""});
  CHECK(pending(app, async) == pending(app, sync));

  // Answered: ask runs again and pauses after its co_await; side and plain are not run again.
  app.resume(sync, std::string("A"), cs);
  run_async(app.async_resume(async, std::string("A"), ca));
  CHECK(pending(app, async) == std::vector<std::string>{"ask#1=\"second?\""});
  CHECK(pending(app, async) == pending(app, sync));

  // Answered: the step ends; finish, alone in the next step, pauses after its co_await.
  const State s3 = app.resume(sync, std::string("B"), cs);
  const State a3 = run_async(app.async_resume(async, std::string("B"), ca));
  CHECK(a3.log == std::vector<std::string>{"ask:A/B", "side", "plain"});
  CHECK(a3.log == s3.log);
  CHECK(pending(app, async) == std::vector<std::string>{"finish#0=\"done?\""});
  CHECK(pending(app, async) == pending(app, sync));

  const State s4 = app.resume(sync, std::string("C"), cs);
  const State a4 = run_async(app.async_resume(async, std::string("C"), ca));
  CHECK(a4.log == std::vector<std::string>{"ask:A/B", "side", "plain", "finish:C"});
  CHECK(a4.log == s4.log);
  CHECK(app.get_state(async)->next.empty());
  CHECK(trail(app, async) == trail(app, sync));

  CHECK(ca.ask == 3);  // its first run and one per answer
  CHECK(ca.side == 1);
  CHECK(ca.plain == 1);
  CHECK(ca.finish == 2);
  CHECK(ca.ask == cs.ask);
  CHECK(ca.side == cs.side);
  CHECK(ca.plain == cs.plain);
  CHECK(ca.finish == cs.finish);
}

TEST_CASE_TEMPLATE("an async run's coroutine interrupt is answered by resume, and a sync one's by async_resume", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<asks>(sg::with_store(f.store));
  const sg::thread_id sync{"sync"}, mixed{"mixed"};
  calls cs, cm;
  app.invoke(State{}, sync, cs);
  app.resume(sync, std::string("A"), cs);
  app.resume(sync, std::string("B"), cs);
  const State s = app.resume(sync, std::string("C"), cs);

  run_async(app.async_invoke(State{}, mixed, cm));
  app.resume(mixed, std::string("A"), cm);                   // the async pause answered in place
  run_async(app.async_resume(mixed, std::string("B"), cm));  // the sync pause answered awaited
  const State m = app.resume(mixed, std::string("C"), cm);
  CHECK(m.log == s.log);
  CHECK(trail(app, mixed) == trail(app, sync));
  CHECK(cm.ask == cs.ask);
  CHECK(cm.side == 1);
  CHECK(cm.finish == cs.finish);
}

TEST_CASE_TEMPLATE("several coroutine interrupts in one async step are answered by id (sg::answers)", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<many>(sg::with_store(f.store));
  const sg::thread_id sync{"sync"}, async{"async"};
  calls cs, ca;
  const State input{{}, {1, 2, 3, 4}};

  app.invoke(input, sync, cs);
  const State a1 = run_async(app.async_invoke(input, async, ca));
  CHECK(a1.log.empty());
  // As the synchronous run lists them (item, the send target, first in this graph's nodes).
  const std::vector<std::string> four{"item[1]#0=\"item 2?\"", "item[3]#0=\"item 4?\"", "left#0=\"left?\"",
                                      "right#0=\"right?\""};
  CHECK(pending(app, async) == four);
  CHECK(pending(app, async) == pending(app, sync));

  // Two answered: the other two stay pending; nothing is merged yet.
  auto ids = [&](const sg::thread_id& t) {
    std::vector<std::string> out;
    const auto head = app.get_state(t);
    for (const auto& i : head->interrupts) out.push_back(i.id);
    return out;
  };
  const auto sid = ids(sync), aid = ids(async);
  REQUIRE(aid.size() == 4);
  app.resume(sync, sg::answers{{sid[0], "two"}, {sid[2], "L"}}, cs);
  const State a2 = run_async(app.async_resume(async, sg::answers{{aid[0], "two"}, {aid[2], "L"}}, ca));
  CHECK(a2.log.empty());
  CHECK(pending(app, async) == std::vector<std::string>{"item[3]#0=\"item 4?\"", "right#0=\"right?\""});
  CHECK(pending(app, async) == pending(app, sync));

  const auto sid2 = ids(sync), aid2 = ids(async);
  REQUIRE(aid2.size() == 2);
  const State s3 = app.resume(sync, sg::answers{{sid2[0], "four"}, {sid2[1], "R"}}, cs);
  const State a3 = run_async(app.async_resume(async, sg::answers{{aid2[0], "four"}, {aid2[1], "R"}}, ca));
  CHECK(std::vector<std::string>(a3.log.begin(), a3.log.end()) ==
        std::vector<std::string>{"left:L", "right:R", "item1:auto", "item2:two", "item3:auto", "item4:four"});
  CHECK(a3.log == s3.log);  // the nodes' writes, then the send tasks', in send order
  CHECK(app.get_state(async)->next.empty());
  CHECK(trail(app, async) == trail(app, sync));
  CHECK(ca.item == cs.item);
  CHECK(ca.item == 4 + 1 + 1);  // each item once; items 2 and 4 once more per answer
  CHECK(ca.ask == cs.ask);
  CHECK(ca.side == cs.side);
}

TEST_CASE_TEMPLATE("coroutine interrupts under async_options (one task at a time, a run deadline) as in invoke", F,
                   DURABLE_FIXTURES) {
  F f;
  const auto app = sg::compile<many>(sg::with_store(f.store));
  const sg::thread_id sync{"sync"}, async{"async"};
  calls cs, ca;
  const State input{{}, {1, 2, 3, 4}};
  const sg::async_options options{.max_concurrency = 1, .deadline = 60s};
  app.invoke(input, sync, cs);
  run_async(app.async_invoke(input, async, ca, options));
  CHECK(pending(app, async) == pending(app, sync));
  CHECK(pending(app, async).size() == 4);
  sg::answers all_sync, all_async;
  const auto sync_head = app.get_state(sync), async_head = app.get_state(async);
  for (const auto& i : sync_head->interrupts) all_sync.add(i.id, i.node);
  for (const auto& i : async_head->interrupts) all_async.add(i.id, i.node);
  const State s = app.resume(sync, all_sync, cs);
  const State a = run_async(app.async_resume(async, all_async, ca, options));
  CHECK(std::vector<std::string>(a.log.begin(), a.log.end()) ==
        std::vector<std::string>{"left:left", "right:right", "item1:auto", "item2:item", "item3:auto", "item4:item"});
  CHECK(a.log == s.log);
  CHECK(trail(app, async) == trail(app, sync));
  CHECK(ca.item == cs.item);
}

}  // namespace unity_checkpoints_async_interrupts
