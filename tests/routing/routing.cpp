// What decides the next step besides static edges (semantics.md): routers (go, go_all), the
// state a router sees, and reactive nodes that run when a channel they subscribe to changed.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_routing_routing {

using unit::Logged;
using unit::logs_name;
using unit::strings;
namespace sg = stategraph;

namespace unit_routing {

struct a : logs_name<a> {};
struct b : logs_name<b> {};
struct x : logs_name<x> {};
struct y : logs_name<y> {};
struct z : logs_name<z> {};

// ---- go and go_all as values --------------------------------------------------------------

static_assert(sg::go<x, y, z>(sg::to<y>).index() == 1);
static_assert(sg::go<x, y, z>(sg::to<z>).is<z>());
static_assert(!sg::go<x, y, z>(sg::to<z>).is<x>());
static_assert(sg::go<x, sg::end>(sg::to<sg::end>).mask() == 2u);
// A go over fewer targets converts into one over more.
static_assert(sg::go<x, y, z>(sg::go<z, x>(sg::to<x>)).is<x>());
static_assert(sg::go<x, y, z>(sg::go<z, x>(sg::to<z>)).index() == 2);
static_assert(sg::go_all<x, y, z>{sg::to<x>, sg::to<z>}.mask() == 0b101u);
static_assert(sg::go_all<x, y, z>{}.mask() == 0u);
static_assert(sg::go_all<x, y, z>{}.add(sg::to<y>).has<y>());
static_assert(!sg::go_all<x, y, z>{}.add(sg::to<y>).has<z>());

// ---- go_all routers -------------------------------------------------------------------------

// Picks x and z when the counter is odd, y alone when it is even, none when it is over 10.
struct pick {
  using reads = sg::reads<&Logged::counter>;
  sg::go_all<x, y, z, sg::end> operator()(sg::view<Logged, reads> in) const {
    const int n = in.get<&Logged::counter>();
    if (n > 10) return {};
    if (n % 2 == 1) return {sg::to<x>, sg::to<z>};
    return sg::go_all<x, y, z, sg::end>{}.add(sg::to<y>);
  }
};
using fan_out = sg::graph<Logged, sg::edge<sg::start, a>, sg::branch<a, pick>, sg::edge<x, sg::end>,
                          sg::edge<y, sg::end>, sg::edge<z, sg::end>>;

// ---- what a router sees ---------------------------------------------------------------------

struct Flags {
  sg::last_value<bool> flag;
  sg::append<std::string> log;
};
template <class Self>
struct logs_flag_name {
  using writes = sg::writes<&Flags::log>;
  auto operator()(sg::view<Flags, sg::reads<>>) const {
    return sg::write<&Flags::log>(std::string(sg::node_traits<Self>::name));
  }
};
struct source : logs_flag_name<source> {};
struct yes : logs_flag_name<yes> {};
struct no : logs_flag_name<no> {};
struct setter {
  using writes = sg::writes<&Flags::flag, &Flags::log>;
  auto operator()(sg::view<Flags, sg::reads<>>) const {
    return sg::write<&Flags::flag>(true) | sg::write<&Flags::log>("setter");
  }
};
struct on_flag {
  using reads = sg::reads<&Flags::flag>;
  sg::go<yes, no> operator()(sg::view<Flags, reads> in) const {
    if (in.get<&Flags::flag>()) return sg::to<yes>;
    return sg::to<no>;
  }
};
// source and setter run in one step; the branch after source reads what setter wrote.
using sibling_write =
    sg::graph<Flags, sg::edge<sg::start, source>, sg::edge<sg::start, setter>, sg::branch<source, on_flag>,
              sg::edge<setter, sg::end>, sg::edge<yes, sg::end>, sg::edge<no, sg::end>>;

}  // namespace unit_routing

using namespace unit_routing;

TEST_CASE("a go_all router starts every chosen target in the next step") {
  auto app = sg::compile<fan_out>();
  CHECK(app.invoke(Logged{}).log == strings{"a", "x", "z"});         // reads 1: x and z
  CHECK(app.invoke(Logged{.counter = 1}).log == strings{"a", "y"});  // reads 2: y
  CHECK(app.invoke(Logged{.counter = 10}).log == strings{"a"});      // reads 11: none, the run ends
  CHECK(app.invoke(Logged{.counter = 10}).counter == 11);
}

TEST_CASE("a router sees the merged state of its step, including a sibling's writes") {
  // semantics.md allows routers to run on the merged state at the barrier, if documented;
  // LangGraph's router would see only its own source's writes here, and choose `no`.
  Flags out = sg::compile<sibling_write>().invoke(Flags{});
  CHECK(out.log == strings{"source", "setter", "yes"});
}

namespace reactive_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  std::vector<int> items;
  sg::counter<int> total;
  sg::append<std::string> log;
  sg::counter<int> rounds;
};

std::vector<std::string> log_of(const State& s) { return s.log; }

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

}  // namespace reactive_cases
using namespace reactive_cases;

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

namespace staged_reactive_cases {

struct State {
  sg::append<std::string> log;
  sg::counter<int> tokens;
  sg::counter<int> cost;
};
struct anchor_plan {};
struct tool_loop {};
struct post_turn {};

struct intent_detector {
  using stage = anchor_plan;
  using writes = sg::writes<&State::log, &State::tokens>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("intent") | sg::write<&State::tokens>(3); }
};
struct tool_call {
  using stage = tool_loop;
  using writes = sg::writes<&State::log, &State::tokens>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("tool") | sg::write<&State::tokens>(4); }
};
struct cost_rollup {  // reactive, in its own stage: woken by writers of anchor_plan and tool_loop
  using stage = post_turn;
  using subscribes = sg::subscribes<&State::tokens>;
  using reads = sg::reads<&State::tokens>;
  using writes = sg::writes<&State::cost, &State::log>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::cost>(in.get<&State::tokens>()) | sg::write<&State::log>("cost");
  }
};
using turn = sg::lattice<sg::transition<anchor_plan, tool_loop>, sg::wakes<anchor_plan, post_turn>,
                         sg::wakes<tool_loop, post_turn>>;
using G = sg::graph<State, turn, sg::edge<sg::start, intent_detector>, sg::edge<intent_detector, tool_call>,
                    sg::edge<tool_call, sg::end>, sg::edge<cost_rollup, sg::end>>;

}  // namespace staged_reactive_cases

TEST_CASE("a reactive node in a staged graph runs when sg::wakes lets the writers' stages wake it") {
  namespace src = staged_reactive_cases;
  static_assert(sg::allows_wake<src::turn, src::anchor_plan, src::post_turn>());
  static_assert(!sg::allows_transition<src::turn, src::anchor_plan, src::post_turn>());  // wakes allows no edge
  src::State out = sg::compile<src::G>().invoke(src::State{});
  // step 1 intent (tokens 3); step 2 tool and cost (sees 3); step 3 cost again (sees 7)
  CHECK(out.log == std::vector<std::string>{"intent", "tool", "cost", "cost"});
  CHECK(out.tokens == 7);
  CHECK(out.cost == 3 + 7);
}

}  // namespace unity_routing_routing
