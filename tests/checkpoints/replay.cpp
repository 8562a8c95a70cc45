// The replay-diff harness (scenarios §5, determinism): sg::replay re-runs a recorded thread
// step by step from its checkpoints and names the first step, node and channel whose write
// differs from the record, with both values. A node that reads a clock is the planted
// nondeterminism; a deterministic graph replays clean.
#include "fixtures.hpp"

#include <stategraph/checkpoint/replay.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace durable_test;

namespace durable_replay {

struct Turn {
  std::string question;
  sg::append<std::string> plan;
  sg::last_value<std::string> stamp;
  sg::counter<int> tokens;
  sg::last_value<std::string> answer;
};

// A clock the test moves: each call returns a new time, as a real clock would.
inline int clock_ticks = 0;

struct plan {
  using reads = sg::reads<&Turn::question>;
  using writes = sg::writes<&Turn::plan, &Turn::tokens>;
  auto operator()(sg::view<Turn, reads> in) const {
    return sg::write<&Turn::plan>("look up " + in.get<&Turn::question>()) | sg::write<&Turn::tokens>(5);
  }
};
struct stamp_clock {  // nondeterministic: its output is not a function of its input state
  using reads = sg::reads<>;
  using writes = sg::writes<&Turn::stamp>;
  auto operator()(sg::view<Turn, reads>) const {
    return sg::write<&Turn::stamp>("t=" + std::to_string(++clock_ticks));
  }
};
struct stamp_fixed {  // the same node, deterministic
  using reads = sg::reads<&Turn::question>;
  using writes = sg::writes<&Turn::stamp>;
  auto operator()(sg::view<Turn, reads> in) const { return sg::write<&Turn::stamp>("q=" + in.get<&Turn::question>()); }
};
struct answer {
  using reads = sg::reads<&Turn::plan, &Turn::tokens>;
  using writes = sg::writes<&Turn::answer, &Turn::tokens>;
  auto operator()(sg::view<Turn, reads> in) const {
    return sg::write<&Turn::answer>(in.get<&Turn::plan>().back() + " done") | sg::write<&Turn::tokens>(2);
  }
};
template <class Stamp>
using turn_graph = sg::graph<Turn, sg::edge<sg::start, plan>, sg::edge<plan, Stamp>, sg::edge<plan, answer>,
                             sg::edge<Stamp, sg::end>, sg::edge<answer, sg::end>>;

}  // namespace durable_replay
using namespace durable_replay;

TEST_CASE("replay: a deterministic thread replays clean") {
  sg::memory_store store;
  auto app = sg::compile<turn_graph<stamp_fixed>>(sg::with_store(store));
  const sg::thread_id t{"clean"};
  Turn out = app.invoke(Turn{.question = "mars"}, t);
  CHECK(out.answer == "look up mars done");
  sg::replay_report report = sg::replay(app, store, t);
  CHECK(report.clean());
  CHECK(report.steps_replayed == 2);  // plan; then stamp and answer
  CHECK(report.steps_skipped == 0);
  CHECK(report.describe() == "replay: clean (2 steps replayed, 0 skipped)");
  // the plain app of the same graph replays the record too
  auto plain = sg::compile<turn_graph<stamp_fixed>>();
  CHECK(sg::replay(plain, store, t).clean());
}

TEST_CASE("replay: a node that reads a clock is named, with the channel and both values") {
  sg::memory_store store;
  auto app = sg::compile<turn_graph<stamp_clock>>(sg::with_store(store));
  const sg::thread_id t{"clock"};
  clock_ticks = 0;
  Turn out = app.invoke(Turn{.question = "mars"}, t);
  CHECK(out.stamp == "t=1");
  sg::replay_report report = sg::replay(app, store, t);
  REQUIRE_FALSE(report.clean());
  const sg::replay_divergence& d = *report.divergence;
  CHECK(d.node == "stamp_clock");
  CHECK(d.channel == "stamp");
  CHECK(d.recorded == "\"t=1\"");
  CHECK(d.replayed == "\"t=2\"");
  CHECK(d.step == 2);
  CHECK(report.steps_replayed == 2);
  CHECK(report.describe() == "replay: step 2, node stamp_clock, channel stamp: recorded \"t=1\", replayed \"t=2\"");
  // The record is untouched: the thread's head is the run's last checkpoint.
  CHECK(app.get_state(t)->values.stamp == "t=1");
}
