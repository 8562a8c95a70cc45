// Send and Command (semantics.md): sends from a node and from a router (map-reduce), and
// commands whose goto targets run in addition to the static edges.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_send_command_send_command {

using unit::Logged;
using unit::logs_name;
using unit::strings;
namespace sg = stategraph;

namespace send_command_cases {  // named: Clang cannot reflect types with internal linkage

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

}  // namespace send_command_cases

namespace command_cases {

struct x : logs_name<x> {};
struct y : logs_name<y> {};

// ---- commands -------------------------------------------------------------------------------

// Goes to x (as well as along its static edge to y) when the counter it reads is positive.
struct commander {
  using reads = sg::reads<&Logged::counter>;
  using writes = sg::writes<&Logged::log>;
  using goes = sg::goes<x, sg::end>;
  auto operator()(sg::view<Logged, reads> in) const {
    sg::go<x, sg::end> next = sg::to<sg::end>;
    if (in.get<&Logged::counter>() > 0) next = sg::to<x>;
    return sg::command{sg::write<&Logged::log>("commander"), next};
  }
};
using commanded = sg::graph<Logged, sg::edge<sg::start, commander>, sg::edge<commander, y>, sg::edge<y, sg::end>,
                            sg::edge<x, sg::end>>;

// Loops on itself through commands alone.
struct again {
  using reads = sg::reads<&Logged::counter>;
  using writes = sg::writes<&Logged::counter, &Logged::log>;
  using goes = sg::goes<again, sg::end>;
  auto operator()(sg::view<Logged, reads> in) const {
    auto update = sg::write<&Logged::counter>(1) | sg::write<&Logged::log>("again");
    if (in.get<&Logged::counter>() + 1 < 4)
      return sg::command{std::move(update), sg::go<again, sg::end>(sg::to<again>)};
    return sg::command{std::move(update), sg::go<again, sg::end>(sg::to<sg::end>)};
  }
};
using command_loop = sg::graph<Logged, sg::edge<sg::start, again>>;

// A command that goes to several targets at once.
struct spreader {
  using reads = sg::reads<>;
  using writes = sg::writes<&Logged::log>;
  using goes = sg::goes<x, y>;
  auto operator()(sg::view<Logged, reads>) const {
    return sg::command{sg::write<&Logged::log>("spreader"), sg::go_all<x, y>{sg::to<y>, sg::to<x>}};
  }
};
using command_all = sg::graph<Logged, sg::edge<sg::start, spreader>, sg::edge<x, sg::end>, sg::edge<y, sg::end>>;

}  // namespace command_cases

using namespace send_command_cases;
using namespace command_cases;

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

TEST_CASE("a command's goto targets run in addition to its static edges") {
  auto app = sg::compile<command_cases::commanded>();
  CHECK(app.invoke(Logged{.counter = 1}).log == strings{"commander", "y", "x"});
  CHECK(app.invoke(Logged{.counter = 0}).log == strings{"commander", "y"});  // goto end: y only
  // A choice of two goto targets beside the static edge to `always`.
  auto chosen = sg::compile<send_command_cases::commanded>();
  // always (an edge) and left/right (the goto) run in the same step, merged in declaration order
  CHECK(log_of(chosen.invoke(State{})) == std::vector<std::string>{"choose", "always", "left"});
  CHECK(log_of(chosen.invoke(State{.items = {1}})) == std::vector<std::string>{"choose", "always", "right"});
}

TEST_CASE("a node can loop on itself through commands") {
  Logged out = sg::compile<command_loop>().invoke(Logged{});
  CHECK(out.counter == 4);
  CHECK(out.log == strings{"again", "again", "again", "again"});
}

TEST_CASE("a command can go to several targets at once") {
  Logged out = sg::compile<command_all>().invoke(Logged{});
  CHECK(out.log == strings{"spreader", "x", "y"});  // merged in node order, not in the order chosen
}

}  // namespace unity_send_command_send_command
