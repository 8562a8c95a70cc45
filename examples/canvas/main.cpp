// AgentCanvas (scenarios §3): state lives in named containers, and nodes are granted read or
// write access to whole containers (a state edge carries no data). Four reducer kinds:
//
//   nav:     action_history (an accumulator, the last 3 kept), active_plan (last write),
//            step_count (a counter)
//   spatial: position (last write), glimpse (ephemeral: readable for one step, then cleared)
//   tracker: a composite (sg::composite<Tracker>): the inner graph's state, whose channels
//            are the parent's, flattened as tracker.seen and tracker.count
//
// planner writes nav; scout reads nav and writes spatial, in the same superstep (a read grant
// is no writer, so SG008 has nothing to say); mover reads both after them; the composite
// `tracker` (an inner graph over the composite, sg::flatten: no sg::maps) records what was
// seen, and summary reads tracker.seen from the parent with its key. The run is checkpointed, and its history shows the ephemeral glimpse visible in
// exactly one checkpoint; the stored channels carry the prefixed names.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace sg = stategraph;

// ---- the composite: an inner graph with its own state, flattened under `tracker.` ----------

struct Tracker {
  sg::append<std::string> seen;
  sg::counter<int> count;
};
struct record {
  using reads = sg::reads<>;
  using writes = sg::writes<&Tracker::seen, &Tracker::count>;
  auto operator()(sg::view<Tracker, reads>) const { return sg::write<&Tracker::seen>("tick") | sg::write<&Tracker::count>(1); }
};
using tracker_graph = sg::graph<Tracker, sg::edge<sg::start, record>, sg::edge<record, sg::end>>;

struct Canvas {
  sg::bounded<std::string, 3> action_history;
  sg::last_value<std::string> active_plan;
  sg::counter<int> step_count;
  sg::last_value<int> position;
  sg::ephemeral<std::string> glimpse;
  sg::composite<Tracker> tracker;  // channels tracker.seen, tracker.count
};

// A parent's key for a composite's channel: sg::in<&Canvas::tracker, &Tracker::seen>.
inline constexpr auto tracker_seen = sg::in<&Canvas::tracker, &Tracker::seen>;

struct nav : sg::container<&Canvas::action_history, &Canvas::active_plan, &Canvas::step_count> {};
struct spatial : sg::container<&Canvas::position, &Canvas::glimpse> {};

struct tracker {};
using tracker_node = sg::subgraph<tracker, tracker_graph, sg::flatten<&Canvas::tracker>>;

// ---- nodes and their grants -------------------------------------------------------------------

struct planner {
  using reads = sg::reads_from<>;
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<Canvas, reads>) const {
    return sg::write<&Canvas::active_plan>(std::string("explore")) | sg::write<&Canvas::step_count>(1) |
           sg::write<&Canvas::action_history>("plan");
  }
};
struct scout {
  using reads = sg::reads_from<nav>;
  using writes = sg::writes_to<spatial>;
  auto operator()(sg::view<Canvas, reads> in) const {
    int at = in.get<&Canvas::step_count>() * 10;
    return sg::write<&Canvas::position>(at) | sg::write<&Canvas::glimpse>("door at " + std::to_string(at));
  }
};
struct mover {
  using reads = sg::reads_from<nav, spatial>;
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<Canvas, reads> in) const {
    return sg::write<&Canvas::action_history>("move to " + in.get<&Canvas::glimpse>()) | sg::write<&Canvas::step_count>(1);
  }
};
// Reads the composite's channel from the parent, with its key.
struct summary {
  using reads = sg::reads<tracker_seen>;
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<Canvas, reads> in) const {
    return sg::write<&Canvas::action_history>("tracked " + std::to_string(in.get<tracker_seen>().size()));
  }
};
using canvas = sg::graph<Canvas, sg::edge<sg::start, planner>, sg::edge<sg::start, scout>,
                         sg::join<mover, planner, scout>, sg::edge<mover, tracker_node>, sg::edge<tracker_node, summary>,
                         sg::edge<summary, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<canvas>(sg::with_store(store));
  const sg::thread_id t{"canvas"};
  Canvas input;
  input.action_history = {"boot", "load"};  // the accumulator keeps the last 3 entries
  input.step_count = 2;
  Canvas out = app.invoke(std::move(input), t);

  std::printf("nav: plan %s, steps %d, history (last 3):", out.active_plan.c_str(), static_cast<int>(out.step_count));
  for (const auto& h : out.action_history) std::printf(" [%s]", h.c_str());
  std::printf("\nspatial: position %d, glimpse '%s'\n", static_cast<int>(out.position), out.glimpse.c_str());
  std::printf("tracker: seen %zu, count %d\n", out.tracker.seen.size(), static_cast<int>(out.tracker.count));

  // The checkpoints, oldest first: the glimpse is there right after scout's step only.
  auto history = app.history(t);
  std::reverse(history.begin(), history.end());
  for (const auto& s : history)
    if (!s.values.glimpse.empty()) std::printf("checkpoint at step %lld holds glimpse '%s'\n", static_cast<long long>(s.step), s.values.glimpse.c_str());
  std::printf("checkpoints: %zu\n", history.size());

  // The composite's channels are stored under their prefixed names.
  const auto latest = store.get(t.value);
  std::printf("stored channels:");
  for (const auto& c : latest->channels) std::printf(" %s", c.channel.c_str());
  std::printf("\n");
}
