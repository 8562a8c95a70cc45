// Subgraphs (contract §2, semantics.md): a child graph as one node of its parent, sharing the
// schema or with mapped channels; its failures and stream events named parent/child.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_subgraphs_subgraphs {

namespace sg = stategraph;

namespace subgraph_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::counter<int> n;
  sg::append<std::string> log;
  std::string title;
};

struct inner_a {
  using writes = sg::writes<&State::log, &State::n>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("a") | sg::write<&State::n>(1); }
};
struct inner_b {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log, &State::title>;
  auto operator()(sg::view<State, reads> in) const {
    if (in.get<&State::n>() > 5) throw std::runtime_error("too many");
    return sg::write<&State::log>("b") | sg::write<&State::title>("T" + std::to_string(in.get<&State::n>()));
  }
};
using inner_graph = sg::graph<State, sg::edge<sg::start, inner_a>, sg::edge<inner_a, inner_b>, sg::edge<inner_b, sg::end>>;
struct research {};
using research_node = sg::subgraph<research, inner_graph>;
struct before {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("before"); }
};
using outer_graph = sg::graph<State, sg::edge<sg::start, before>, sg::edge<before, research_node>,
                              sg::edge<research_node, sg::end>>;

struct Notes {
  sg::append<std::string> items;
  sg::counter<int> count;
};
struct note {
  using writes = sg::writes<&Notes::items, &Notes::count>;
  auto operator()(sg::view<Notes, sg::reads<>>) const { return sg::write<&Notes::items>("note") | sg::write<&Notes::count>(2); }
};
using notes_graph = sg::graph<Notes, sg::edge<sg::start, note>, sg::edge<note, sg::end>>;
struct noting {};
using notes_node = sg::subgraph<noting, notes_graph, sg::maps<&State::log, &Notes::items>, sg::maps<&State::n, &Notes::count>>;
using mapped_graph = sg::graph<State, sg::edge<sg::start, before>, sg::edge<before, notes_node>, sg::edge<notes_node, sg::end>>;

// In a graph with a lattice, a subgraph node takes its tag's stage (SG018 wants one).
struct research_stage {};
struct staged_research {
  using stage = research_stage;
};
using staged_research_node = sg::subgraph<staged_research, inner_graph>;
struct staged_before {
  using stage = research_stage;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("before"); }
};
using staged_outer = sg::graph<State, sg::lattice<sg::within<research_stage>>, sg::edge<sg::start, staged_before>,
                               sg::edge<staged_before, staged_research_node>, sg::edge<staged_research_node, sg::end>>;

struct deep {};
using deep_node = sg::subgraph<deep, outer_graph>;  // a subgraph whose child has a subgraph
using nested_graph = sg::graph<State, sg::edge<sg::start, deep_node>, sg::edge<deep_node, sg::end>>;

// One line per event: "step.substep what".
struct event_log {
  std::vector<std::string> lines;
  void operator()(const sg::event<State>& e) {
    std::string line = std::to_string(e.step) + "." + std::to_string(e.substep) + " ";
    if (e.mode == sg::stream_mode::updates) {
      line += "update " + std::string(e.node);
      for (auto c : e.channels) line += " " + std::string(c);
    } else if (e.mode == sg::stream_mode::debug) {
      line += std::string(e.phase == sg::debug_phase::start ? "start " : e.phase == sg::debug_phase::end ? "end " : "error ") +
              std::string(e.node);
    } else {
      line += "values n=" + std::to_string(e.values->n);
    }
    lines.push_back(line);
  }
};

}  // namespace subgraph_cases
using namespace subgraph_cases;

TEST_CASE("a subgraph sharing the schema runs as one node; its writes merge through the parent's reducers") {
  auto app = sg::compile<outer_graph>();
  State out = app.invoke(State{.n = 2, .log = {"in"}});
  CHECK(out.n == 3);  // the child added 1: the parent receives +1, not the child's whole counter
  CHECK(out.title == "T3");
  CHECK(static_cast<const std::vector<std::string>&>(out.log) == std::vector<std::string>{"in", "before", "a", "b"});
  using reads = research_node::reads;
  using writes = research_node::writes;
  static_assert(std::is_same_v<writes, sg::writes<&State::n, &State::log, &State::title>>);
  static_assert(std::is_same_v<reads, sg::reads<&State::n, &State::log, &State::title>>);
}

TEST_CASE("a subgraph's failure names its node parent/child") {
  auto app = sg::compile<outer_graph>();
  try {
    app.invoke(State{.n = 9});
    FAIL("expected node_error");
  } catch (const sg::node_error& e) {
    CHECK(e.node() == "research/inner_b");
    CHECK(e.step() == 2);
    CHECK(std::string(e.what()).find("too many") != std::string::npos);
  }
}

TEST_CASE("a subgraph with mapped channels") {
  auto app = sg::compile<mapped_graph>();
  State out = app.invoke(State{.n = 1, .log = {"in"}});
  CHECK(static_cast<const std::vector<std::string>&>(out.log) == std::vector<std::string>{"in", "before", "note"});
  CHECK(out.n == 3);
  static_assert(std::is_same_v<notes_node::writes, sg::writes<&State::log, &State::n>>);
}

TEST_CASE("a subgraph's updates and debug events reach the parent's stream, named parent/child") {
  const std::vector<std::string> expected{
      "0.0 values n=0",
      "1.0 start before", "1.0 end before", "1.0 update before log", "1.0 values n=0",
      "2.0 start research",
      "2.1 start research/inner_a", "2.1 end research/inner_a", "2.1 update research/inner_a log n",
      "2.2 start research/inner_b", "2.2 end research/inner_b", "2.2 update research/inner_b log title",
      "2.0 end research", "2.0 update research n log title", "2.0 values n=1"};
  const auto all = sg::stream_mode::values | sg::stream_mode::updates | sg::stream_mode::debug;
  SUBCASE("sequential") {
    event_log log;
    State out = sg::compile<outer_graph>().stream(State{}, all, std::ref(log));
    CHECK(log.lines == expected);
    CHECK(out.title == "T1");
  }
  SUBCASE("on a thread pool: the same events in the same order") {
    event_log log;
    sg::compile<outer_graph>(sg::with_executor(sg::thread_pool{2})).stream(State{}, all, std::ref(log));
    CHECK(log.lines == expected);
  }
  SUBCASE("as a range") {
    event_log log;
    for (const auto& e : sg::compile<outer_graph>().stream(State{}, all)) log(e);
    CHECK(log.lines == expected);
  }
  SUBCASE("only the modes asked for are forwarded") {
    event_log updates, values;
    sg::compile<outer_graph>().stream(State{}, sg::stream_mode::updates, std::ref(updates));
    CHECK(updates.lines == std::vector<std::string>{"1.0 update before log", "2.1 update research/inner_a log n",
                                                    "2.2 update research/inner_b log title",
                                                    "2.0 update research n log title"});
    sg::compile<outer_graph>().stream(State{}, sg::stream_mode::values, std::ref(values));
    CHECK(values.lines == std::vector<std::string>{"0.0 values n=0", "1.0 values n=0", "2.0 values n=1"});
  }
}

TEST_CASE("nested subgraphs: events carry the whole path; a child's failure is streamed before the parent's") {
  event_log log;
  sg::compile<nested_graph>().stream(State{}, sg::stream_mode::updates, std::ref(log));
  CHECK(log.lines == std::vector<std::string>{"1.1 update deep/before log", "1.2 update deep/research/inner_a log n",
                                              "1.2 update deep/research/inner_b log title",
                                              "1.2 update deep/research n log title", "1.0 update deep n log title"});
  event_log failing;
  CHECK_THROWS_AS(sg::compile<outer_graph>().stream(State{.n = 9}, sg::stream_mode::debug, std::ref(failing)),
                  sg::node_error);
  CHECK(failing.lines == std::vector<std::string>{"1.0 start before", "1.0 end before", "2.0 start research",
                                                  "2.1 start research/inner_a", "2.1 end research/inner_a",
                                                  "2.2 start research/inner_b", "2.2 error research/inner_b",
                                                  "2.0 error research"});
}

TEST_CASE("a subgraph node in a staged graph has its tag's stage") {
  static_assert(std::is_same_v<sg::node_traits<staged_research_node>::stage, research_stage>);
  static_assert(sg::node_traits<staged_research_node>::declares_stage);
  State out = sg::compile<staged_outer>().invoke(State{});
  CHECK(out.log == std::vector<std::string>{"before", "a", "b"});
  CHECK(out.title == "T1");
}

}  // namespace unity_subgraphs_subgraphs
