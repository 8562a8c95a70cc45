// The shapes of benchmarks.md's W1–W3, run for their results: the final counter and the
// exact log, whose order within a step is node-declaration order (semantics.md). Also:
// reordering independent nodes changes only that merge order.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_scheduler_workloads {

using unit::Logged;
using unit::logs_name;
using unit::strings;
namespace sg = stategraph;

namespace unit_workloads {

// ---- W1: start -> n1 -> ... -> n10 -> end ---------------------------------------------------

struct n1 : logs_name<n1> {};
struct n2 : logs_name<n2> {};
struct n3 : logs_name<n3> {};
struct n4 : logs_name<n4> {};
struct n5 : logs_name<n5> {};
struct n6 : logs_name<n6> {};
struct n7 : logs_name<n7> {};
struct n8 : logs_name<n8> {};
struct n9 : logs_name<n9> {};
struct n10 : logs_name<n10> {};

using w1 = sg::graph<Logged, sg::edge<sg::start, n1>, sg::edge<n1, n2>, sg::edge<n2, n3>, sg::edge<n3, n4>,
                     sg::edge<n4, n5>, sg::edge<n5, n6>, sg::edge<n6, n7>, sg::edge<n7, n8>, sg::edge<n8, n9>,
                     sg::edge<n9, n10>, sg::edge<n10, sg::end>>;
static_assert(sg::analysis<w1>::plan.fixed && sg::analysis<w1>::plan.steps == 10);

// ---- W2: start -> split -> w1..w8 -> join (all 8) -> end -------------------------------------

struct split : logs_name<split> {};
struct wk1 : logs_name<wk1> {};
struct wk2 : logs_name<wk2> {};
struct wk3 : logs_name<wk3> {};
struct wk4 : logs_name<wk4> {};
struct wk5 : logs_name<wk5> {};
struct wk6 : logs_name<wk6> {};
struct wk7 : logs_name<wk7> {};
struct wk8 : logs_name<wk8> {};
struct gather : logs_name<gather> {};

using w2 = sg::graph<Logged, sg::edge<sg::start, split>, sg::edge<split, wk1>, sg::edge<split, wk2>,
                     sg::edge<split, wk3>, sg::edge<split, wk4>, sg::edge<split, wk5>, sg::edge<split, wk6>,
                     sg::edge<split, wk7>, sg::edge<split, wk8>,
                     sg::join<gather, wk1, wk2, wk3, wk4, wk5, wk6, wk7, wk8>, sg::edge<gather, sg::end>>;
static_assert(sg::analysis<w2>::plan.fixed && sg::analysis<w2>::plan.steps == 3);

// The same workers declared in reverse: only the merge order of their step changes.
using w2_reversed = sg::graph<Logged, sg::edge<sg::start, split>, sg::edge<split, wk8>, sg::edge<split, wk7>,
                              sg::edge<split, wk6>, sg::edge<split, wk5>, sg::edge<split, wk4>, sg::edge<split, wk3>,
                              sg::edge<split, wk2>, sg::edge<split, wk1>,
                              sg::join<gather, wk1, wk2, wk3, wk4, wk5, wk6, wk7, wk8>, sg::edge<gather, sg::end>>;

// ---- W3: one node that loops through a branch until the counter reaches 1000 ---------------

struct step : logs_name<step> {};
using w3 = sg::graph<Logged, sg::edge<sg::start, step>, sg::branch<step, unit::loop_until<step, 1000>>>;
static_assert(!sg::analysis<w3>::plan.fixed);

// ---- two independent appenders, declared in either order -----------------------------------

struct left : logs_name<left> {};
struct right : logs_name<right> {};
using left_first = sg::graph<Logged, sg::edge<sg::start, left>, sg::edge<sg::start, right>, sg::edge<left, sg::end>,
                             sg::edge<right, sg::end>>;
using right_first = sg::graph<Logged, sg::edge<sg::start, right>, sg::edge<sg::start, left>, sg::edge<left, sg::end>,
                              sg::edge<right, sg::end>>;
// Declaration order is first appearance anywhere, an end edge included.
using right_first_by_end = sg::graph<Logged, sg::edge<right, sg::end>, sg::edge<sg::start, left>,
                                     sg::edge<sg::start, right>, sg::edge<left, sg::end>>;

// The same pair in a loop (a frontier run, not a fixed plan): the order holds in every step.
struct fork : logs_name<fork> {};
template <class First, class Second>
using looped_pair = sg::graph<Logged, sg::edge<sg::start, fork>, sg::edge<fork, First>, sg::edge<fork, Second>,
                              sg::branch<left, unit::loop_until<fork, 9>>, sg::edge<right, sg::end>>;

}  // namespace unit_workloads

using namespace unit_workloads;

TEST_CASE("W1: a chain of 10 runs each node once, in order") {
  auto app = sg::compile<w1>();
  Logged out = app.invoke(Logged{});
  CHECK(out.counter == 10);
  CHECK(out.log == strings{"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10"});
  // The input is applied through the reducers first: the counter adds, the log appends.
  Logged again = app.invoke(Logged{.counter = 5, .log = {"input"}});
  CHECK(again.counter == 15);
  REQUIRE(again.log.size() == 11);
  CHECK(again.log.front() == "input");
  CHECK(again.log.back() == "n10");
}

TEST_CASE("W2: split, eight workers merged in declaration order, then the join once") {
  Logged out = sg::compile<w2>().invoke(Logged{});
  CHECK(out.counter == 10);
  CHECK(out.log == strings{"split", "wk1", "wk2", "wk3", "wk4", "wk5", "wk6", "wk7", "wk8", "gather"});
  // On a thread pool the workers finish in any order; the merge order stays the same.
  auto pooled = sg::compile<w2>(sg::with_executor(sg::thread_pool{2}));
  for (int run = 0; run < 50; ++run) {
    Logged p = pooled.invoke(Logged{});
    CHECK(p.counter == out.counter);
    CHECK(p.log == out.log);
  }
}

TEST_CASE("W3: a loop of 1000 supersteps through a branch") {
  Logged out = sg::compile<w3>().invoke(Logged{});
  CHECK(out.counter == 1000);
  REQUIRE(out.log.size() == 1000);
  CHECK(std::count(out.log.begin(), out.log.end(), std::string("step")) == 1000);
  // Starting part-way only runs the rest; starting past the limit still runs the node once.
  CHECK(sg::compile<w3>().invoke(Logged{.counter = 990}).counter == 1000);
  CHECK(sg::compile<w3>().invoke(Logged{.counter = 5000}).counter == 5001);
}

TEST_CASE("reordering independent nodes changes only the merge order") {
  SUBCASE("two appenders in one step") {
    Logged a = sg::compile<left_first>().invoke(Logged{});
    Logged b = sg::compile<right_first>().invoke(Logged{});
    Logged c = sg::compile<right_first_by_end>().invoke(Logged{});
    CHECK(a.log == strings{"left", "right"});
    CHECK(b.log == strings{"right", "left"});
    CHECK(c.log == strings{"right", "left"});
    CHECK(a.counter == 2);
    CHECK(b.counter == a.counter);
    CHECK(c.counter == a.counter);
  }
  SUBCASE("W2 with its workers declared in reverse") {
    Logged out = sg::compile<w2_reversed>().invoke(Logged{});
    CHECK(out.counter == 10);
    CHECK(out.log == strings{"split", "wk8", "wk7", "wk6", "wk5", "wk4", "wk3", "wk2", "wk1", "gather"});
  }
  SUBCASE("the same pair inside a loop") {
    Logged lr = sg::compile<looped_pair<left, right>>().invoke(Logged{});
    Logged rl = sg::compile<looped_pair<right, left>>().invoke(Logged{});
    // Each round: fork, then the pair (3 per round) until the counter reaches 9.
    CHECK(lr.counter == 9);
    CHECK(rl.counter == 9);
    CHECK(lr.log == strings{"fork", "left", "right", "fork", "left", "right", "fork", "left", "right"});
    CHECK(rl.log == strings{"fork", "right", "left", "fork", "right", "left", "fork", "right", "left"});
  }
}

}  // namespace unity_scheduler_workloads
