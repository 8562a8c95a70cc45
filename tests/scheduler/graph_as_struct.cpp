// A graph declared as a struct deriving from sg::graph<...> (docs/guide.md, "Large graphs")
// runs as the same graph declared with `using`: the same plan, results, events and subgraph
// runs. Its checkpoints are in checkpoints/graph_as_struct.cpp.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <type_traits>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_scheduler_graph_as_struct {

namespace sg = stategraph;

namespace struct_graph_cases {  // named: Clang cannot reflect types with internal linkage

using strings = std::vector<std::string>;

struct State {
  sg::counter<int> n;
  sg::append<std::string> log;
  std::string last;
};

template <class Self, int Add>
struct adds {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::n, &State::log>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::log>(std::string(sg::node_traits<Self>::name) + ":" + std::to_string(in.get<&State::n>())) |
           sg::write<&State::n>(Add);
  }
};
struct first : adds<first, 1> {};
struct left : adds<left, 10> {};
struct right : adds<right, 100> {};
struct merge : adds<merge, 1000> {};
struct again : adds<again, 5> {};
// Loops back to first until n passes 2,000.
struct loop_or_end {
  using reads = sg::reads<&State::n>;
  sg::go<first, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::n>() > 2000) return sg::to<sg::end>;
    return sg::to<first>;
  }
};

// A fixed plan: a fan-out and a join, no branch.
using fixed_alias = sg::graph<State, sg::edge<sg::start, first>, sg::edge<first, left>, sg::edge<first, right>,
                              sg::join<merge, left, right>, sg::edge<merge, sg::end>>;
struct fixed_struct : sg::graph<State, sg::edge<sg::start, first>, sg::edge<first, left>, sg::edge<first, right>,
                                sg::join<merge, left, right>, sg::edge<merge, sg::end>> {};

// The general step: the same with a router after the join that loops back.
using looping_alias = sg::graph<State, sg::edge<sg::start, first>, sg::edge<first, left>, sg::edge<first, right>,
                                sg::join<merge, left, right>, sg::branch<merge, loop_or_end>>;
struct looping_struct : sg::graph<State, sg::edge<sg::start, first>, sg::edge<first, left>, sg::edge<first, right>,
                                  sg::join<merge, left, right>, sg::branch<merge, loop_or_end>> {};

static_assert(sg::analysis<fixed_struct>::plan.fixed);
static_assert(!sg::analysis<looping_struct>::plan.fixed);
static_assert(std::size_t{sg::analysis<fixed_struct>::size} == sg::analysis<fixed_alias>::size);

// A struct graph as a subgraph's child, inside a struct graph.
using inner_graph = sg::graph<State, sg::edge<sg::start, again>, sg::edge<again, sg::end>>;
struct inner_struct : sg::graph<State, sg::edge<sg::start, again>, sg::edge<again, sg::end>> {};
struct child {};
using child_alias = sg::subgraph<child, inner_graph>;
using child_struct = sg::subgraph<child, inner_struct>;
using outer_alias = sg::graph<State, sg::edge<sg::start, first>, sg::edge<first, child_alias>,
                              sg::edge<child_alias, sg::end>>;
struct outer_struct : sg::graph<State, sg::edge<sg::start, first>, sg::edge<first, child_struct>,
                                sg::edge<child_struct, sg::end>> {};

template <class G>
State run_sequential() {
  return sg::compile<G>().invoke(State{});
}

template <class G>
strings streamed_updates() {
  strings seen;
  sg::compile<G>().stream(State{}, sg::stream_mode::updates,
                          [&](const sg::event<State>& e) { seen.push_back(std::string(e.node)); });
  return seen;
}

TEST_CASE("a graph declared as a struct runs its fixed plan as the same graph declared with using") {
  State s = run_sequential<fixed_struct>();
  CHECK(static_cast<int>(s.n) == 1111);
  CHECK(s.log.size() == 4);
  CHECK(s.log == strings{"first:0", "left:1", "right:1", "merge:111"});
  State a = run_sequential<fixed_alias>();
  CHECK(a.log == s.log);
  CHECK(streamed_updates<fixed_struct>() == strings{"first", "left", "right", "merge"});
  CHECK(streamed_updates<fixed_struct>() == streamed_updates<fixed_alias>());
}

TEST_CASE("a graph declared as a struct runs the general step, its router and the thread pool") {
  State s = run_sequential<looping_struct>();
  CHECK(static_cast<int>(s.n) == 2222);
  CHECK(s.log == strings{"first:0", "left:1", "right:1", "merge:111", "first:1111", "left:1112", "right:1112",
                         "merge:1222"});
  CHECK(run_sequential<looping_alias>().log == s.log);
  CHECK(streamed_updates<looping_struct>() == streamed_updates<looping_alias>());

  auto app = sg::compile<looping_struct>(sg::with_executor(sg::thread_pool{2}));
  CHECK(app.invoke(State{}).log == s.log);
}

TEST_CASE("a graph declared as a struct may be a subgraph's child and hold one") {
  State s = run_sequential<outer_struct>();
  CHECK(s.log == strings{"first:0", "again:1"});
  CHECK(static_cast<int>(s.n) == 6);
  CHECK(run_sequential<outer_alias>().log == s.log);
  strings seen;
  sg::compile<outer_struct>().stream(State{}, sg::stream_mode::updates,
                                     [&](const sg::event<State>& e) { seen.push_back(std::string(e.node)); });
  CHECK(seen == strings{"first", "child/again", "child"});
}

}  // namespace struct_graph_cases
}  // namespace unity_scheduler_graph_as_struct
