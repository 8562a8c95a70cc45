// What decides the next step besides static edges (semantics.md): routers (go, go_all),
// commands with goto targets, the state a router sees, and how the input is applied.
#include <array>
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "logged_state.hpp"

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

// ---- instances passed to compile --------------------------------------------------------------

struct adder {
  int amount = 0;
  using writes = sg::writes<&Logged::counter>;
  auto operator()(sg::view<Logged, sg::reads<>>) const { return sg::write<&Logged::counter>(amount); }
};
struct below {
  int limit = 0;
  using reads = sg::reads<&Logged::counter>;
  sg::go<adder, sg::end> operator()(sg::view<Logged, reads> in) const {
    if (in.get<&Logged::counter>() < limit) return sg::to<adder>;
    return sg::to<sg::end>;
  }
};
using configured = sg::graph<Logged, sg::edge<sg::start, adder>, sg::branch<adder, below>>;

// Nodes and routers that carry data of different sizes, so that each sits at its own offset
// in the app: a step of two nodes (tagger, scaler), then steps of one (lone, looped by gate).
struct tagger {
  std::string tag;
  using writes = sg::writes<&Logged::counter, &Logged::log>;
  auto operator()(sg::view<Logged, sg::reads<>>) const {
    return sg::write<&Logged::counter>(1) | sg::write<&Logged::log>(tag);
  }
};
struct scaler {
  std::array<int, 5> pad{};
  int amount = 0;
  using writes = sg::writes<&Logged::counter>;
  auto operator()(sg::view<Logged, sg::reads<>>) const { return sg::write<&Logged::counter>(amount + pad[4]); }
};
struct lone {
  std::string label;
  using writes = sg::writes<&Logged::counter, &Logged::log>;
  auto operator()(sg::view<Logged, sg::reads<>>) const {
    return sg::write<&Logged::counter>(1) | sg::write<&Logged::log>(label);
  }
};
struct stop {
  std::string why;  // only there to give the next router a non-zero offset
  using reads = sg::reads<>;
  sg::go<sg::end> operator()(sg::view<Logged, reads>) const { return sg::to<sg::end>; }
};
struct gate {
  int limit = 0;
  using reads = sg::reads<&Logged::counter>;
  sg::go<lone, sg::end> operator()(sg::view<Logged, reads> in) const {
    if (in.get<&Logged::counter>() < limit) return sg::to<lone>;
    return sg::to<sg::end>;
  }
};
using stateful = sg::graph<Logged, sg::edge<sg::start, tagger>, sg::edge<sg::start, scaler>, sg::edge<tagger, lone>,
                           sg::branch<scaler, stop>, sg::branch<lone, gate>>;

TEST_CASE("node and router instances are reached in steps of several nodes and of one, on both executors") {
  const std::array<int, 5> pad{0, 0, 0, 0, 2};
  auto sequential = sg::compile<stateful>(tagger{"T"}, scaler{pad, 8}, lone{"L"}, stop{"no reason"}, gate{14});
  auto pooled = sg::compile<stateful>(gate{14}, lone{"L"}, stop{"no reason"}, scaler{pad, 8}, tagger{"T"},
                                      sg::with_executor(sg::thread_pool{2}));
  for (const Logged& out : {sequential.invoke(Logged{}), pooled.invoke(Logged{})}) {
    CHECK(out.counter == 14);  // step 1: 1 + 10; then lone alone: 12, 13, 14
    CHECK(out.log == strings{"T", "L", "L", "L"});
  }
  auto copy = sequential;  // the copy reaches its own nodes
  CHECK(copy.invoke(Logged{.counter = 1}).counter == 14);
  CHECK(copy.invoke(Logged{.counter = 1}).log == strings{"T", "L", "L"});
}

// ---- input through reducers -------------------------------------------------------------------

struct Inputs {
  sg::bounded<int, 2> recent;
  sg::counter<int> total;
  sg::append<std::string> seen;
  sg::reduced<std::set<int>, sg::set_union> tags;
  std::string plain;
};
struct inspector {
  using reads = sg::reads<&Inputs::recent, &Inputs::total, &Inputs::tags, &Inputs::plain>;
  using writes = sg::writes<&Inputs::recent, &Inputs::seen>;
  auto operator()(sg::view<Inputs, reads> in) const {
    std::string s;
    for (int r : in.get<&Inputs::recent>()) s += std::to_string(r) + ",";
    s += "|" + std::to_string(in.get<&Inputs::total>()) + "|" + std::to_string(in.get<&Inputs::tags>().size()) + "|" +
         in.get<&Inputs::plain>();
    return sg::write<&Inputs::seen>(std::move(s)) | sg::write<&Inputs::recent>(6);
  }
};
using inspect = sg::graph<Inputs, sg::edge<sg::start, inspector>, sg::edge<inspector, sg::end>>;

}  // namespace unit_routing

using namespace unit_routing;

TEST_CASE("a go_all router starts every chosen target in the next step") {
  auto app = sg::compile<fan_out>();
  CHECK(app.invoke(Logged{}).log == strings{"a", "x", "z"});         // reads 1: x and z
  CHECK(app.invoke(Logged{.counter = 1}).log == strings{"a", "y"});  // reads 2: y
  CHECK(app.invoke(Logged{.counter = 10}).log == strings{"a"});      // reads 11: none, the run ends
  CHECK(app.invoke(Logged{.counter = 10}).counter == 11);
}

TEST_CASE("a command's goto targets run in addition to its static edges") {
  auto app = sg::compile<commanded>();
  CHECK(app.invoke(Logged{.counter = 1}).log == strings{"commander", "y", "x"});
  CHECK(app.invoke(Logged{.counter = 0}).log == strings{"commander", "y"});  // goto end: y only
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

TEST_CASE("a router sees the merged state of its step, including a sibling's writes") {
  // semantics.md allows routers to run on the merged state at the barrier, if documented;
  // LangGraph's router would see only its own source's writes here, and choose `no`.
  Flags out = sg::compile<sibling_write>().invoke(Flags{});
  CHECK(out.log == strings{"source", "setter", "yes"});
}

TEST_CASE("node and router instances passed to compile are used, in any order") {
  auto by_three = sg::compile<configured>(adder{3}, below{10});
  CHECK(by_three.invoke(Logged{}).counter == 12);  // 3, 6, 9, 12
  auto by_five = sg::compile<configured>(below{11}, adder{5});
  CHECK(by_five.invoke(Logged{}).counter == 15);  // 5, 10, 15
  auto pooled = sg::compile<configured>(below{11}, sg::with_executor(sg::thread_pool{2}), adder{5});
  CHECK(pooled.invoke(Logged{}).counter == 15);
  auto defaults = sg::compile<configured>(adder{4});  // the router default-constructed: limit 0
  CHECK(defaults.invoke(Logged{}).counter == 4);
}

TEST_CASE("the input is applied through the reducers onto a default state") {
  Inputs in{.recent = {1, 2, 3, 4, 5}, .total = 7, .seen = {"input"}, .tags = std::set<int>{1, 2}, .plain = "p"};
  CHECK(in.recent.size() == 5);  // constructing a wrapper does not trim; the reducer does
  Inputs out = sg::compile<inspect>().invoke(std::move(in));
  CHECK(out.seen == strings{"input", "4,5,|7|2|p"});
  CHECK(out.recent == std::vector<int>{5, 6});
  CHECK(out.total == 7);
  CHECK(out.tags == std::set<int>{1, 2});
  CHECK(out.plain == "p");
}
