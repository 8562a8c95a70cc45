// A thread run twice at once in one app: the second invoke, resume, stream or update_state
// of a thread the app is running is refused up front with sg::thread_busy_error, before it
// reads or writes anything, and the first run goes on undisturbed. A streamed range holds
// its thread until the stream ends or the range is destroyed. Other threads run meanwhile.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace durable_test;

namespace durable_running {

struct Work {
  sg::append<std::string> log;
  sg::counter<int> steps;
};

// Holds the first run that reaches it until released; later runs pass.
struct gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool reached = false, open = false;
  void pass() {
    std::unique_lock lock(mutex);
    if (reached) return;
    reached = true;
    changed.notify_all();
    changed.wait(lock, [&] { return open; });
  }
  void wait_reached() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return reached; });
  }
  void release() {
    std::lock_guard lock(mutex);
    open = true;
    changed.notify_all();
  }
};
std::atomic<gate*> current_gate{nullptr};

struct slow {
  using writes = sg::writes<&Work::log, &Work::steps>;
  auto operator()(sg::view<Work, sg::reads<>>) const {
    if (gate* g = current_gate.load()) g->pass();
    return sg::write<&Work::log>(std::string("slow")) | sg::write<&Work::steps>(1);
  }
};
struct after {
  using writes = sg::writes<&Work::log, &Work::steps>;
  auto operator()(sg::view<Work, sg::reads<>>) const {
    return sg::write<&Work::log>(std::string("after")) | sg::write<&Work::steps>(1);
  }
};
using work_graph = sg::graph<Work, sg::edge<sg::start, slow>, sg::edge<slow, after>, sg::edge<after, sg::end>>;

Work with(std::string first) { return Work{.log = {std::move(first)}}; }

// Every entry point that runs or writes the thread is refused, naming it.
template <class App>
void check_refused(App& app, const sg::thread_id& t) {
  CHECK_THROWS_AS(app.invoke(with("again"), t), sg::thread_busy_error);
  CHECK_THROWS_AS(app.invoke(sg::write<&Work::log>(std::string("again")), t), sg::thread_busy_error);
  CHECK_THROWS_AS(app.invoke(with("fork"), t, sg::checkpoint_id{1}), sg::thread_busy_error);
  CHECK_THROWS_AS(app.resume(t), sg::thread_busy_error);
  CHECK_THROWS_AS(app.resume(t, sg::checkpoint_id{1}), sg::thread_busy_error);
  CHECK_THROWS_AS(app.resume(t, std::string("yes")), sg::thread_busy_error);
  CHECK_THROWS_AS(app.resume(t, sg::answers{{"slow:0@1", "yes"}}), sg::thread_busy_error);
  CHECK_THROWS_AS(app.stream(with("again"), t, sg::stream_mode::updates, [](const sg::event<Work>&) {}),
                  sg::thread_busy_error);
  CHECK_THROWS_AS(app.stream(with("again"), t, sg::stream_mode::updates), sg::thread_busy_error);
  CHECK_THROWS_AS(app.update_state(t, sg::write<&Work::log>(std::string("edit")), sg::as_node<after>),
                  sg::thread_busy_error);
  CHECK_THROWS_AS(app.delete_thread(t), sg::thread_busy_error);
  try {
    app.invoke(with("again"), t);
    FAIL("not refused");
  } catch (const sg::thread_busy_error& e) {
    CHECK(e.thread() == t.value);
    CHECK(std::string(e.what()).find("'" + t.value + "' is already running") != std::string::npos);
  }
  // A copy of the app knows what the app is running.
  auto copy = app;
  CHECK_THROWS_AS(copy.invoke(with("again"), t), sg::thread_busy_error);
}

TEST_CASE_TEMPLATE("a thread running on another OS thread is refused up front; other threads run", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<work_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"busy"};
  gate g;
  current_gate = &g;
  Work first{};
  std::exception_ptr failed;
  std::thread runner([&] {
    try {
      first = app.invoke(with("in"), t);
    } catch (...) {
      failed = std::current_exception();
    }
  });
  g.wait_reached();  // the first run is inside slow, its input checkpoint committed
  const auto before = fx.store.stats();
  check_refused(app, t);
  CHECK(fx.store.stats() == before);  // the refusals wrote nothing

  // Another thread of the same app runs meanwhile.
  Work other = app.invoke(with("other"), sg::thread_id{"other"});
  CHECK(other.log == strings{"other", "slow", "after"});

  g.release();
  runner.join();
  current_gate = nullptr;
  REQUIRE_FALSE(failed);
  // The first run went on undisturbed: one checkpoint per step, nothing of the refused calls.
  CHECK(first.log == strings{"in", "slow", "after"});
  CHECK(first.steps == 2);
  const auto h = app.history(t);
  CHECK(h.size() == 3);
  CHECK(h.front().values.log == first.log);
  // Once it has returned, the thread runs again.
  CHECK(app.invoke(with("next"), t).log == strings{"in", "slow", "after", "next", "slow", "after"});
}

TEST_CASE_TEMPLATE("an unfinished streamed range holds its thread until it ends or is destroyed", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<work_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"streamed"};
  std::vector<std::string> nodes;
  {
    auto events = app.stream(with("in"), t, sg::stream_mode::updates);
    auto it = events.begin();
    REQUIRE(it != events.end());
    nodes.emplace_back(it->node);
    const auto before = fx.store.stats();
    check_refused(app, t);
    CHECK(fx.store.stats() == before);
    CHECK(app.invoke(with("other"), sg::thread_id{"other"}).log == strings{"other", "slow", "after"});
    for (++it; it != events.end(); ++it) nodes.emplace_back(it->node);
    // The stream has ended: its thread is free while the range still exists.
    CHECK(app.invoke(with("next"), t).log == strings{"in", "slow", "after", "next", "slow", "after"});
  }
  CHECK(nodes == strings{"slow", "after"});

  // A range dropped before its end frees the thread; the run stays at its last checkpoint.
  const sg::thread_id u{"dropped"};
  {
    auto events = app.stream(with("in"), u, sg::stream_mode::updates);
    auto it = events.begin();
    REQUIRE(it != events.end());
    CHECK(it->node == "slow");
    CHECK_THROWS_AS(app.resume(u), sg::thread_busy_error);
  }
  CHECK(app.get_state(u)->next == strings{"after"});
  CHECK(app.resume(u).log == strings{"in", "slow", "after"});
}

TEST_CASE_TEMPLATE("a stream callback or a node that runs its own thread again is refused", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<work_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"reentrant"};
  int refused = 0;
  Work out = app.stream(with("in"), t, sg::stream_mode::updates, [&](const sg::event<Work>&) {
    try {
      app.invoke(with("inner"), t);
    } catch (const sg::thread_busy_error&) {
      ++refused;
    }
  });
  CHECK(refused == 2);
  CHECK(out.log == strings{"in", "slow", "after"});
  CHECK(app.get_state(t)->values.log == out.log);
}

}  // namespace durable_running
