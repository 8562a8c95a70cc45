// Edges and joins (semantics.md, "Supersteps"): plain edges from nodes of different steps run
// their target once per step; a join waits for every source, across steps, and re-arms
// inside a loop.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_edges_joins {

using unit::Logged;
using unit::logs_name;
using unit::strings;
namespace sg = stategraph;

namespace unit_joins {

// ---- plain edges from different steps versus a join -----------------------------------------

struct a : logs_name<a> {};
struct p : logs_name<p> {};
struct q : logs_name<q> {};
struct b : logs_name<b> {};
struct c : logs_name<c> {};
struct fan : logs_name<fan> {};

// a runs in step 1, b in step 2 (after p): c follows each of them.
using plain_edges = sg::graph<Logged, sg::edge<sg::start, a>, sg::edge<sg::start, p>, sg::edge<p, b>, sg::edge<a, c>,
                              sg::edge<b, c>, sg::edge<c, sg::end>>;
using joined = sg::graph<Logged, sg::edge<sg::start, a>, sg::edge<sg::start, p>, sg::edge<p, b>, sg::join<c, a, b>,
                         sg::edge<c, sg::end>>;
// a runs twice (steps 1 and 2) before b (step 3): the join still fires once.
using joined_after_repeat = sg::graph<Logged, sg::edge<sg::start, a>, sg::edge<sg::start, p>, sg::edge<p, q>,
                                      sg::edge<p, a>, sg::edge<q, b>, sg::join<c, a, b>, sg::edge<c, sg::end>>;
// A join inside a loop: each round must arrive at both sources again, which finish in
// different steps of the round (a in its second, b in its third).
using joined_loop = sg::graph<Logged, sg::edge<sg::start, fan>, sg::edge<fan, a>, sg::edge<fan, p>, sg::edge<p, b>,
                              sg::join<c, a, b>, sg::branch<c, unit::loop_until<fan, 15>>>;

long count_of(const std::vector<std::string>& log, const std::string& name) {
  return std::count(log.begin(), log.end(), name);
}

}  // namespace unit_joins

using namespace unit_joins;

TEST_CASE("plain edges from nodes of different steps run the target once per step") {
  Logged out = sg::compile<plain_edges>().invoke(Logged{});
  CHECK(out.log == strings{"a", "p", "b", "c", "c"});
  CHECK(count_of(out.log, "c") == 2);
  CHECK(out.counter == 5);
}

TEST_CASE("a join waits for every source, across steps") {
  SUBCASE("sources in steps 1 and 2") {
    Logged out = sg::compile<joined>().invoke(Logged{});
    CHECK(out.log == strings{"a", "p", "b", "c"});
    CHECK(out.counter == 4);
  }
  SUBCASE("one source twice before the other: still one firing") {
    Logged out = sg::compile<joined_after_repeat>().invoke(Logged{});
    CHECK(out.log == strings{"a", "p", "a", "q", "b", "c"});
    CHECK(count_of(out.log, "c") == 1);
  }
}

TEST_CASE("a join inside a loop re-arms after it fires") {
  Logged out = sg::compile<joined_loop>().invoke(Logged{});
  const strings round{"fan", "a", "p", "b", "c"};
  strings expected;
  for (int r = 0; r < 3; ++r) expected.insert(expected.end(), round.begin(), round.end());
  CHECK(out.log == expected);
  CHECK(count_of(out.log, "c") == 3);
  CHECK(out.counter == 15);
}

}  // namespace unity_edges_joins
