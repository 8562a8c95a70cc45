// Send, Command, joins in loops and across steps, reactive nodes.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace sg = stategraph;

namespace routing_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  std::vector<int> items;
  sg::counter<int> total;
  sg::append<std::string> log;
  sg::counter<int> rounds;
};

std::vector<std::string> log_of(const State& s) { return s.log; }

// ---- send: map-reduce, from a node and from a router ---------------------------------------

struct square;
struct fan {
  using reads = sg::reads<&State::items>;
  using sends = sg::sends<square>;
  std::vector<sg::send_to<square, int>> operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<square, int>> out;
    for (int x : in.get<&State::items>()) out.push_back(sg::send<square>(x));
    return out;
  }
};
struct square {
  using writes = sg::writes<&State::total, &State::log>;
  auto operator()(sg::view<State, sg::reads<>>, const int& x) const {
    return sg::write<&State::total>(x * x) | sg::write<&State::log>("sq" + std::to_string(x));
  }
};
struct reduce {
  using reads = sg::reads<&State::total>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::log>("sum=" + std::to_string(in.get<&State::total>()));
  }
};
using map_reduce = sg::graph<State, sg::edge<sg::start, fan>, sg::edge<square, reduce>, sg::edge<reduce, sg::end>>;

struct prepare {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("prepare"); }
};
struct fan_router {
  using reads = sg::reads<&State::items>;
  std::vector<sg::send_to<square, int>> operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<square, int>> out;
    for (int x : in.get<&State::items>()) out.push_back(sg::send<square>(x + 1));
    return out;
  }
};
using routed_map_reduce =
    sg::graph<State, sg::edge<sg::start, prepare>, sg::branch<prepare, fan_router>, sg::edge<square, reduce>,
              sg::edge<reduce, sg::end>>;

// ---- command: goto in addition to static edges --------------------------------------------

struct left;
struct right;
struct chooser {
  using reads = sg::reads<&State::items>;
  using writes = sg::writes<&State::log>;
  using goes = sg::goes<left, right>;
  auto operator()(sg::view<State, reads> in) const {
    sg::go<left, right> next = in.get<&State::items>().empty() ? sg::go<left, right>(sg::to<left>) : sg::to<right>;
    return sg::command{sg::write<&State::log>("choose"), next};
  }
};
struct left {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("left"); }
};
struct right {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("right"); }
};
struct always {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("always"); }
};
using commanded = sg::graph<State, sg::edge<sg::start, chooser>, sg::edge<chooser, always>, sg::edge<always, sg::end>,
                            sg::edge<left, sg::end>, sg::edge<right, sg::end>>;

// ---- joins inside a loop, sources in different steps ----------------------------------------

struct head {
  using writes = sg::writes<&State::rounds, &State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::rounds>(1) | sg::write<&State::log>("head"); }
};
struct fast {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("fast"); }
};
struct slow1 {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("slow1"); }
};
struct slow2 {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("slow2"); }
};
struct meet {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("meet"); }
};
struct loop_back {
  using reads = sg::reads<&State::rounds>;
  sg::go<head, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::rounds>() < 2) return sg::to<head>;
    return sg::to<sg::end>;
  }
};
using join_loop = sg::graph<State, sg::edge<sg::start, head>, sg::edge<head, fast>, sg::edge<head, slow1>,
                            sg::edge<slow1, slow2>, sg::join<meet, fast, slow2>, sg::branch<meet, loop_back>>;

// ---- reactive nodes -----------------------------------------------------------------------

struct planner {
  using writes = sg::writes<&State::rounds, &State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::rounds>(1) | sg::write<&State::log>("plan"); }
};
struct on_rounds {
  using subscribes = sg::subscribes<&State::rounds>;
  using reads = sg::reads<&State::rounds>;
  using writes = sg::writes<&State::total, &State::log>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::total>(in.get<&State::rounds>() * 10) | sg::write<&State::log>("react");
  }
};
struct watch_all {  // declares nothing: subscribes to every channel
  static inline int runs = 0;
  void operator()(sg::view<State, sg::reads<>>) const { ++runs; }
};
using reactive = sg::graph<State, sg::edge<sg::start, planner>, sg::edge<planner, sg::end>, sg::edge<on_rounds, sg::end>,
                           sg::edge<watch_all, sg::end>>;

}  // namespace routing_cases
using namespace routing_cases;

TEST_CASE("send from a node: the target runs once per send, its patches merge in send order") {
  auto app = sg::compile<map_reduce>();
  State out = app.invoke(State{.items = {1, 2, 3}});
  CHECK(out.total == 14);
  CHECK(log_of(out) == std::vector<std::string>{"sq1", "sq2", "sq3", "sum=14"});
  State none = app.invoke(State{});
  CHECK(none.total == 0);
  CHECK(log_of(none).empty());  // no sends, nothing after: the run ends
}

TEST_CASE("send from a router (map-reduce branch)") {
  auto app = sg::compile<routed_map_reduce>();
  State out = app.invoke(State{.items = {1, 2}});
  CHECK(out.total == 4 + 9);
  CHECK(log_of(out) == std::vector<std::string>{"prepare", "sq2", "sq3", "sum=13"});
  using A = sg::analysis<routed_map_reduce>;
  static_assert(A::send_targets.test(A::index<square>::value));
}

TEST_CASE("command: goto targets are added to the static edges") {
  auto app = sg::compile<commanded>();
  // always (an edge) and left/right (the goto) run in the same step, merged in declaration order
  CHECK(log_of(app.invoke(State{})) == std::vector<std::string>{"choose", "always", "left"});
  CHECK(log_of(app.invoke(State{.items = {1}})) == std::vector<std::string>{"choose", "always", "right"});
}

TEST_CASE("a join waits for sources that finish in different steps, and re-arms inside a loop") {
  auto app = sg::compile<join_loop>();
  State out = app.invoke(State{});
  CHECK(out.rounds == 2);
  CHECK(log_of(out) == std::vector<std::string>{"head", "fast", "slow1", "slow2", "meet",  //
                                                "head", "fast", "slow1", "slow2", "meet"});
}

TEST_CASE("reactive nodes run in the step after a subscribed channel changed") {
  watch_all::runs = 0;
  auto app = sg::compile<reactive>();
  State out = app.invoke(State{});
  CHECK(out.total == 10);
  CHECK(log_of(out) == std::vector<std::string>{"plan", "react"});
  CHECK(watch_all::runs == 2);  // after plan's step and after react's step
  static_assert(sg::analysis<reactive>::reactive);
  // the input wakes subscribers of the channels it sets
  watch_all::runs = 0;
  State with_input = app.invoke(State{.rounds = 5});
  CHECK(with_input.total == 50 + 60);  // step 1: react sees 5; step 2: planner's write (6) wakes it again
  CHECK(watch_all::runs == 3);
}
