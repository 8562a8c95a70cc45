// Composites (issue 18 item 2): a child state held as `sg::composite<Child> member;` in the
// parent is flattened into the parent's channels, named "member.channel", and a subgraph
// over it needs no sg::maps (sg::flatten). Checked in the parent's view and patches, stream
// events, checkpoints and get_state, and pictures; the child graph still runs on its own.
#include <stategraph/checkpoint.hpp>
#include <stategraph/pictures.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_subgraphs_composites {

namespace sg = stategraph;

namespace composite_cases {  // named: Clang cannot reflect types with internal linkage

struct Tracker {
  sg::append<std::string> seen;
  sg::counter<int> count;
};
struct record {
  using reads = sg::reads<&Tracker::count>;
  using writes = sg::writes<&Tracker::seen, &Tracker::count>;
  auto operator()(sg::view<Tracker, reads> in) const {
    return sg::write<&Tracker::seen>("tick " + std::to_string(in.get<&Tracker::count>())) | sg::write<&Tracker::count>(1);
  }
};
using tracker_graph = sg::graph<Tracker, sg::edge<sg::start, record>, sg::edge<record, sg::end>>;

struct Canvas {
  sg::last_value<int> position;
  sg::composite<Tracker> tracker;
  sg::counter<int> steps;
};
inline constexpr auto tracker_seen = sg::in<&Canvas::tracker, &Tracker::seen>;
inline constexpr auto tracker_count = sg::in<&Canvas::tracker, &Tracker::count>;

struct tracker {};
using tracker_node = sg::subgraph<tracker, tracker_graph, sg::flatten<&Canvas::tracker>>;

// A parent node that reads and writes the flattened channels with sg::in keys.
struct seed {
  using reads = sg::reads<&Canvas::position>;
  using writes = sg::writes<tracker_seen, tracker_count, &Canvas::steps>;
  auto operator()(sg::view<Canvas, reads> in) const {
    return sg::write<tracker_seen>("seed at " + std::to_string(in.get<&Canvas::position>())) | sg::write<tracker_count>(10) |
           sg::write<&Canvas::steps>(1);
  }
};
// A container over the composite's channels: keys stand where member pointers do.
struct tracked : sg::container<tracker_count, tracker_seen> {};
struct report {
  using reads = sg::reads_from<tracked>;
  using writes = sg::writes<&Canvas::position>;
  auto operator()(sg::view<Canvas, reads> in) const {
    return sg::write<&Canvas::position>(in.get<tracker_count>() * 100 + static_cast<int>(in.get<tracker_seen>().size()));
  }
};
using canvas_graph = sg::graph<Canvas, sg::edge<sg::start, seed>, sg::edge<seed, tracker_node>, sg::edge<tracker_node, report>,
                               sg::edge<report, sg::end>>;

// The channels of Canvas, as the library names them.
static_assert(sg::channel_count<Canvas> == 4);
static_assert(sg::channel_name_at<Canvas, 0>() == "position");
static_assert(sg::channel_name_at<Canvas, 1>() == "tracker.seen");
static_assert(sg::channel_name_at<Canvas, 2>() == "tracker.count");
static_assert(sg::channel_name_at<Canvas, 3>() == "steps");
static_assert(sg::channel_index<Canvas, tracker_count>() == 2);
static_assert(sg::channel_name<tracker_seen>() == "tracker.seen");
static_assert(std::is_same_v<sg::state_of<tracker_seen>, Canvas>);
static_assert(std::is_same_v<sg::field_of<tracker_count>, sg::counter<int>>);
// The subgraph's declared reads and writes are the flattened channels.
static_assert(std::is_same_v<tracker_node::reads, sg::reads<tracker_count, tracker_seen>>);
static_assert(std::is_same_v<tracker_node::writes, sg::writes<tracker_count, tracker_seen>>);

// A composite inside a composite: names and keys nest.
struct Outer {
  sg::composite<Canvas> canvas;
  sg::last_value<std::string> title;
};
static_assert(sg::channel_count<Outer> == 5);
static_assert(sg::channel_name_at<Outer, 2>() == "canvas.tracker.count");
static_assert(sg::channel_index<Outer, sg::in<&Outer::canvas, tracker_count>>() == 2);
static_assert(sg::channel_name_at<Outer, 4>() == "title");

std::vector<std::string> names(const std::vector<std::string_view>& v) { return {v.begin(), v.end()}; }

}  // namespace composite_cases

using namespace composite_cases;

TEST_CASE("a composite's channels are the parent's: views read them, patches write them, the subgraph needs no maps") {
  Canvas input;
  input.position = 7;
  const Canvas out = sg::compile<canvas_graph>().invoke(std::move(input));
  // seed wrote through the keys; the child ran on them (count 10 read, +1) and appended.
  CHECK(out.tracker.seen == std::vector<std::string>{"seed at 7", "tick 10"});
  CHECK(static_cast<int>(out.tracker.count) == 11);
  CHECK(static_cast<int>(out.steps) == 1);
  // report read both flattened channels through its view.
  CHECK(static_cast<int>(out.position) == 11 * 100 + 2);
}

TEST_CASE("the child graph of a composite still runs on its own state") {
  Tracker start;
  start.count = 4;
  const Tracker out = sg::compile<tracker_graph>().invoke(std::move(start));
  CHECK(out.seen == std::vector<std::string>{"tick 4"});
  CHECK(static_cast<int>(out.count) == 5);
}

TEST_CASE("stream events name the flattened channels, the child's own updates included") {
  std::vector<std::string> log;
  sg::compile<canvas_graph>().stream(Canvas{}, sg::stream_mode::updates, [&](const sg::event<Canvas>& e) {
    std::string line(e.node);
    for (auto c : e.channels) line += " " + std::string(c);
    log.push_back(line);
  });
  CHECK(log == std::vector<std::string>{"seed tracker.seen tracker.count steps", "tracker/record tracker.seen tracker.count",
                                        "tracker tracker.count tracker.seen", "report position"});
}

TEST_CASE("checkpoints store the flattened channels by name; get_state and a second app read them back") {
  sg::memory_store store;
  const sg::thread_id t{"composite"};
  {
    auto app = sg::compile<canvas_graph>(sg::with_store(store));
    Canvas input;
    input.position = 3;
    app.invoke(std::move(input), t);
  }
  const auto latest = store.get(t.value);
  REQUIRE(latest.has_value());
  std::vector<std::string> stored;
  for (const auto& c : latest->channels) stored.push_back(c.channel);
  std::sort(stored.begin(), stored.end());
  CHECK(stored == std::vector<std::string>{"position", "steps", "tracker.count", "tracker.seen"});
  // The first checkpoint of the thread records the schema: the flattened names and types.
  const auto first = store.get(t.value, 1);
  REQUIRE(first.has_value());
  CHECK(first->metadata.find(R"(["tracker.seen","append<)") != std::string::npos);
  CHECK(first->metadata.find(R"(["tracker.count","counter<int>"])") != std::string::npos);

  // A fresh app on the same store decodes the checkpoint into the composite.
  auto again = sg::compile<canvas_graph>(sg::with_store(store));
  const auto state = again.get_state(t);
  REQUIRE(state.has_value());
  CHECK(state->values.tracker.seen == std::vector<std::string>{"seed at 3", "tick 10"});
  CHECK(static_cast<int>(state->values.tracker.count) == 11);
  CHECK(static_cast<int>(state->values.position) == 1102);
  CHECK(state->next.empty());

  // update_state writes a flattened channel as a node would; the next get_state sees it.
  again.update_state(t, sg::write<tracker_seen>("edited"), sg::as_node<seed>);
  const auto edited = again.get_state(t);
  REQUIRE(edited.has_value());
  CHECK(edited->values.tracker.seen == std::vector<std::string>{"seed at 3", "tick 10", "edited"});
}

TEST_CASE("pictures draw the flattened channels under their prefixed names") {
  const std::string mermaid = sg::to_mermaid<canvas_graph>({.channels = true});
  CHECK(mermaid.find(R"(ch_tracker_seen[("tracker.seen")])") != std::string::npos);
  CHECK(mermaid.find(R"(ch_tracker_count[("tracker.count")])") != std::string::npos);
  // seed writes the channel, the subgraph node reads and writes it, report reads it.
  CHECK(mermaid.find("seed --> ch_tracker_seen\n") != std::string::npos);
  CHECK(mermaid.find("ch_tracker_seen <--> tracker\n") != std::string::npos);
  CHECK(mermaid.find("ch_tracker_seen --> report\n") != std::string::npos);
  const std::string dot = sg::to_dot<canvas_graph>({.channels = true});
  CHECK(dot.find(R"("ch_tracker.seen" [shape=cylinder)") != std::string::npos);
  CHECK(dot.find(R"(label="tracker.seen"])") != std::string::npos);
}

}  // namespace unity_subgraphs_composites
