// BSP semantics (semantics.md, "Supersteps"): one snapshot per step, and ephemeral channels
// visible for exactly one step. Joins are in edges/joins.cpp, the call order within a step
// in executors/executors.cpp.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_scheduler_supersteps {

using unit::strings;
namespace sg = stategraph;

namespace unit_supersteps {

// ---- snapshot: nodes of one step do not see each other's writes ----------------------------

struct Snap {
  sg::counter<int> x;
  sg::append<std::string> seen;
};

// Reports the x it read, then adds Add to it.
template <class Self, int Add>
struct reads_then_adds {
  using reads = sg::reads<&Snap::x>;
  using writes = sg::writes<&Snap::x, &Snap::seen>;
  auto operator()(sg::view<Snap, reads> in) const {
    return sg::write<&Snap::seen>(std::string(sg::node_traits<Self>::name) + ":" + std::to_string(in.get<&Snap::x>())) |
           sg::write<&Snap::x>(Add);
  }
};
struct sa : reads_then_adds<sa, 10> {};
struct sb : reads_then_adds<sb, 100> {};
struct sc : reads_then_adds<sc, 1000> {};
struct stop {
  using reads = sg::reads<>;
  sg::go<sg::end> operator()(sg::view<Snap, reads>) const { return sg::to<sg::end>; }
};

// a and b in step 1, c (after both, by plain edges: once) in step 2.
using snap_fixed = sg::graph<Snap, sg::edge<sg::start, sa>, sg::edge<sg::start, sb>, sg::edge<sa, sc>, sg::edge<sb, sc>,
                             sg::edge<sc, sg::end>>;
// The same run through the frontier (a branch rules out the fixed plan).
using snap_frontier = sg::graph<Snap, sg::edge<sg::start, sa>, sg::edge<sg::start, sb>, sg::edge<sa, sc>,
                                sg::edge<sb, sc>, sg::branch<sc, stop>>;
static_assert(sg::analysis<snap_fixed>::plan.fixed);
static_assert(!sg::analysis<snap_frontier>::plan.fixed);

// ---- ephemeral channels ---------------------------------------------------------------------

struct Eph {
  sg::ephemeral<std::string> note;
  sg::append<std::string> log;
  sg::counter<int> rounds;
};

struct writer {
  using writes = sg::writes<&Eph::note>;
  auto operator()(sg::view<Eph, sg::reads<>>) const { return sg::write<&Eph::note>(std::string("hi")); }
};
template <class Self>
struct note_reader {
  using reads = sg::reads<&Eph::note>;
  using writes = sg::writes<&Eph::log>;
  auto operator()(sg::view<Eph, reads> in) const {
    return sg::write<&Eph::log>(std::string(sg::node_traits<Self>::name) + ":" + in.get<&Eph::note>());
  }
};
struct r1 : note_reader<r1> {};
struct r2 : note_reader<r2> {};

using eph_chain =
    sg::graph<Eph, sg::edge<sg::start, writer>, sg::edge<writer, r1>, sg::edge<r1, r2>, sg::edge<r2, sg::end>>;
using eph_from_input = sg::graph<Eph, sg::edge<sg::start, r1>, sg::edge<r1, r2>, sg::edge<r2, sg::end>>;

// Writes the note only in even rounds, and logs what it saw: the note written in one round
// is seen in the next and gone in the one after.
struct blinker {
  using reads = sg::reads<&Eph::note, &Eph::rounds>;
  using writes = sg::writes<&Eph::note, &Eph::log, &Eph::rounds>;
  auto operator()(sg::view<Eph, reads> in) const {
    const bool even = in.get<&Eph::rounds>() % 2 == 0;
    return sg::write<&Eph::log>("saw:" + in.get<&Eph::note>()) | sg::write<&Eph::rounds>(1) |
           sg::maybe_write<&Eph::note>(even ? std::optional<std::string>("x") : std::nullopt);
  }
};
struct four_rounds {
  using reads = sg::reads<&Eph::rounds>;
  sg::go<blinker, sg::end> operator()(sg::view<Eph, reads> in) const {
    if (in.get<&Eph::rounds>() < 4) return sg::to<blinker>;
    return sg::to<sg::end>;
  }
};
using eph_loop = sg::graph<Eph, sg::edge<sg::start, blinker>, sg::branch<blinker, four_rounds>>;

}  // namespace unit_supersteps

using namespace unit_supersteps;

TEST_CASE("nodes of one step read the snapshot of the step start") {
  const strings expected{"sa:1", "sb:1", "sc:111"};
  SUBCASE("fixed plan") {
    Snap out = sg::compile<snap_fixed>().invoke(Snap{.x = 1});
    CHECK(out.seen == expected);
    CHECK(out.x == 1111);
  }
  SUBCASE("frontier") {
    Snap out = sg::compile<snap_frontier>().invoke(Snap{.x = 1});
    CHECK(out.seen == expected);
    CHECK(out.x == 1111);
  }
  SUBCASE("frontier on a thread pool") {
    auto app = sg::compile<snap_frontier>(sg::with_executor(sg::thread_pool{2}));
    for (int run = 0; run < 20; ++run) {
      Snap out = app.invoke(Snap{.x = 1});
      CHECK(out.seen == expected);
      CHECK(out.x == 1111);
    }
  }
}

TEST_CASE("an ephemeral channel is visible for exactly one step") {
  SUBCASE("written by a node") {
    Eph out = sg::compile<eph_chain>().invoke(Eph{});
    CHECK(out.log == strings{"r1:hi", "r2:"});
    CHECK(out.note.empty());
  }
  SUBCASE("given as input: visible to the first step only") {
    Eph out = sg::compile<eph_from_input>().invoke(Eph{.note = "in"});
    CHECK(out.log == strings{"r1:in", "r2:"});
    CHECK(out.note.empty());
  }
  SUBCASE("in a loop on the frontier") {
    Eph out = sg::compile<eph_loop>().invoke(Eph{});
    CHECK(out.log == strings{"saw:", "saw:x", "saw:", "saw:x"});
    CHECK(out.rounds == 4);
    CHECK(out.note.empty());
  }
}

}  // namespace unity_scheduler_supersteps
