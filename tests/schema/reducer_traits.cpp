// What each reducer tells the library (sg::reducer_traits), and that a user's reducer that
// says the same is treated the same: stored as tail pieces by the checkpoint codec, handed
// back from a subgraph as its new elements, and its channel taken whole from a run's input.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_schema_reducer_traits {

namespace reducer_traits_cases {
namespace sg = stategraph;

// A user's reducer whose writes only append: it says so, and nothing else.
struct journal {
  static constexpr bool appends = true;
  static void into(std::vector<std::string>& acc, const std::string& line) { acc.push_back(line); }
  static void into(std::vector<std::string>& acc, const std::vector<std::string>& lines) {
    acc.insert(acc.end(), lines.begin(), lines.end());
  }
  template <class U>
  std::vector<std::string> operator()(std::vector<std::string> acc, const U& u) const {
    into(acc, u);
    return acc;
  }
};
// A user's reducer that can say a change as one write: the new maximum.
struct keep_max {
  constexpr int operator()(int current, int written) const { return std::max(current, written); }
  static constexpr int delta(int, int after) { return after; }
};
// A user's reducer that says nothing.
struct keep_min {
  constexpr int operator()(int current, int written) const { return std::min(current, written); }
};

template <class Op>
using traits = sg::reducer_traits<Op>;

// ---- the built-in reducers ----
static_assert(traits<sg::concat>::appends);
static_assert(!traits<sg::replace>::appends && !traits<sg::sum>::appends && !traits<sg::set_union>::appends);
static_assert(!traits<sg::keep_last<3>>::appends);  // it drops from the front
static_assert(traits<sg::replace>::has_delta<std::string>);
static_assert(traits<sg::sum>::has_delta<int>);
static_assert(!traits<sg::sum>::has_delta<std::string>);  // no `after - before`
static_assert(traits<sg::set_union>::has_delta<std::set<int>>);
static_assert(!traits<sg::concat>::has_delta<std::vector<int>>);  // appends says it
static_assert(!traits<sg::keep_last<3>>::has_delta<std::vector<int>>);

// ---- the user's ----
static_assert(traits<journal>::appends && !traits<journal>::has_delta<std::vector<std::string>>);
static_assert(!traits<keep_max>::appends && traits<keep_max>::has_delta<int>);
static_assert(!traits<keep_min>::appends && !traits<keep_min>::has_delta<int>);

// ---- per channel: appends over a sequence ----
static_assert(sg::detail::appends_only<sg::append<int>>);
static_assert(sg::detail::appends_only<sg::reduced<std::vector<std::string>, journal>>);
static_assert(!sg::detail::appends_only<sg::bounded<int, 3>>);
static_assert(!sg::detail::appends_only<sg::counter<int>>);
static_assert(!sg::detail::appends_only<std::vector<int>>);  // a plain member: last value wins

struct State {
  sg::reduced<std::vector<std::string>, journal> lines;
  sg::bounded<std::string, 8> recent;
  sg::reduced<int, keep_max> peak;
  sg::reduced<int, keep_min> low;
};

// What a subgraph hands back for each channel: the new elements, the reducer's delta, or an
// assignment of the child's value.
static_assert(std::is_same_v<sg::detail::delta_of<&State::lines>::type, std::vector<std::string>>);
static_assert(std::is_same_v<sg::detail::delta_of<&State::peak>::type, int>);
static_assert(std::is_same_v<sg::detail::delta_of<&State::low>::type, sg::assign_value<int>>);
static_assert(std::is_same_v<sg::detail::delta_of<&State::recent>::type, sg::assign_value<std::vector<std::string>>>);

struct note {
  using reads = sg::reads<&State::lines>;
  using writes = sg::writes<&State::lines, &State::recent>;
  auto operator()(sg::view<State, reads> in) const {
    const std::string line = "line " + std::to_string(in.get<&State::lines>().size());
    return sg::write<&State::lines>(line) | sg::write<&State::recent>(line);
  }
};
using notes = sg::graph<State, sg::edge<sg::start, note>, sg::edge<note, sg::end>>;

// A subgraph that appends to `lines` beside a node that appends in the same step.
struct child_note {
  using writes = sg::writes<&State::lines>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::lines>(std::string("child")); }
};
using child_graph = sg::graph<State, sg::edge<sg::start, child_note>, sg::edge<child_note, sg::end>>;
struct child_tag {};
using child = sg::subgraph<child_tag, child_graph>;
struct sibling {
  using writes = sg::writes<&State::lines>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::lines>(std::string("sibling")); }
};
using with_child = sg::graph<State, sg::edge<sg::start, sibling>, sg::edge<sg::start, child>,
                             sg::edge<sibling, sg::end>, sg::edge<child, sg::end>>;

}  // namespace reducer_traits_cases
using namespace reducer_traits_cases;

TEST_CASE("a user's reducer that declares appends is checkpointed as tail pieces") {
  sg::memory_store store;
  // Never whole again (snapshot_every = 0), so the run's last checkpoint keeps its pieces.
  auto app = sg::compile<notes>(sg::with_store(store, sg::checkpoint_options{.snapshot_every = 0}));
  const sg::thread_id t{"t"};
  app.invoke(State{.lines = {"input"}}, t);
  app.invoke(State{}, t);

  const auto latest = store.get("t");
  REQUIRE(latest);
  const auto channel = [&](std::string_view name) {
    return *std::find_if(latest->channels.begin(), latest->channels.end(),
                         [&](const sg::channel_value& c) { return c.channel == name; });
  };
  // The appending channel: its first value, then each step's new elements as a piece.
  const auto lines = channel("lines");
  CHECK(lines.value == R"(["input"])");
  CHECK(lines.appends == std::vector<std::string>{R"(["line 1"])", R"(["line 2"])"});
  // A bounded channel drops elements, so each version is stored whole.
  const auto recent = channel("recent");
  CHECK(recent.value == R"(["line 1","line 2"])");
  CHECK(recent.appends.empty());
  // Read back, the pieces make the whole value.
  const auto state = app.get_state(t);
  REQUIRE(state);
  CHECK(state->values.lines == std::vector<std::string>{"input", "line 1", "line 2"});
}

TEST_CASE("a subgraph hands back what a user's appending reducer added, not its whole value") {
  auto app = sg::compile<with_child>();
  const State out = app.invoke(State{.lines = {"input"}});
  // Merged in node order: the sibling's line, then the child's new line. An assignment of
  // the child's value ({input, child}) would have dropped the sibling's.
  CHECK(out.lines == std::vector<std::string>{"input", "sibling", "child"});
}

TEST_CASE("a run's input is taken whole onto an appending channel") {
  auto app = sg::compile<notes>();
  const State out = app.invoke(State{.lines = {"a", "b"}});
  CHECK(out.lines == std::vector<std::string>{"a", "b", "line 2"});
}

}  // namespace unity_schema_reducer_traits
