// A node that throws (semantics.md, "Failures"): invoke throws sg::node_error naming the
// node and the step, carrying the original exception, whatever the executor and plan; and
// around a node that runs alone in its step, errors that are not the node's own.
#include <doctest/doctest.h>

#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_failures_errors {

using unit::Logged;
using unit::logs_name;
namespace sg = stategraph;

namespace unit_errors {

struct first : logs_name<first> {};
struct sibling : logs_name<sibling> {};
struct after : logs_name<after> {};

// Throws once the counter (as the step starts) reaches Threshold.
template <int Threshold>
struct thrower {
  using reads = sg::reads<&Logged::counter>;
  using writes = sg::writes<&Logged::counter>;
  auto operator()(sg::view<Logged, reads> in) const {
    if (in.get<&Logged::counter>() >= Threshold) throw std::runtime_error("boom");
    return sg::write<&Logged::counter>(1);
  }
};
struct fails : thrower<0> {};

struct throws_int {
  using reads = sg::reads<>;
  sg::patch<> operator()(sg::view<Logged, reads>) const { throw 42; }
};

struct renamed_thrower : thrower<0> {
  static constexpr std::string_view name = "the_thrower";
};

// first and sibling in step 1; fails (after first) in step 2 beside after (after sibling).
using fixed_graph = sg::graph<Logged, sg::edge<sg::start, first>, sg::edge<sg::start, sibling>, sg::edge<first, fails>,
                              sg::edge<sibling, after>, sg::edge<fails, sg::end>, sg::edge<after, sg::end>>;
static_assert(sg::analysis<fixed_graph>::plan.fixed);

// A loop whose node throws in its sixth step.
struct looping : thrower<5> {};
using loop_graph = sg::graph<Logged, sg::edge<sg::start, looping>, sg::branch<looping, unit::loop_until<looping, 100>>>;

struct guarded : thrower<3> {};
using guarded_graph = sg::graph<Logged, sg::edge<sg::start, guarded>, sg::edge<guarded, sg::end>>;

using int_graph =
    sg::graph<Logged, sg::edge<sg::start, first>, sg::edge<first, throws_int>, sg::edge<throws_int, sg::end>>;
using renamed_graph = sg::graph<Logged, sg::edge<sg::start, renamed_thrower>, sg::edge<renamed_thrower, sg::end>>;

// Two nodes of one step that both throw: the error names the first in node order.
struct fails_too : thrower<0> {};
using both_fail_fixed = sg::graph<Logged, sg::edge<sg::start, fails>, sg::edge<sg::start, fails_too>,
                                  sg::edge<fails, sg::end>, sg::edge<fails_too, sg::end>>;
using both_fail_frontier = sg::graph<Logged, sg::edge<sg::start, fails>, sg::edge<sg::start, fails_too>,
                                     sg::branch<fails, unit::loop_until<fails, 0>>, sg::edge<fails_too, sg::end>>;

static_assert(std::is_base_of_v<sg::error, sg::node_error>);
static_assert(std::is_base_of_v<std::runtime_error, sg::error>);

template <class F>
sg::node_error node_error_of(F&& f) {
  try {
    f();
  } catch (const sg::node_error& e) {
    return e;
  }
  FAIL("no node_error was thrown");
  return sg::node_error("", 0, nullptr);
}

std::string cause_text(const sg::node_error& e) {
  try {
    e.rethrow_cause();
  } catch (const std::runtime_error& inner) {
    return inner.what();
  } catch (...) {
    return "not a runtime_error";
  }
}

}  // namespace unit_errors

using namespace unit_errors;

TEST_CASE("a throwing node in a fixed plan: node_error names node and step") {
  auto e = node_error_of([] { sg::compile<fixed_graph>().invoke(Logged{}); });
  CHECK(e.node() == "fails");
  CHECK(e.step() == 2);
  REQUIRE(e.cause());
  CHECK(cause_text(e) == "boom");
  CHECK(std::string(e.what()) == "stategraph: node 'fails' failed in step 2: boom");
}

TEST_CASE("a throwing node on the frontier: the step is the superstep it failed in") {
  auto e = node_error_of([] { sg::compile<loop_graph>().invoke(Logged{}); });
  CHECK(e.node() == "looping");
  CHECK(e.step() == 6);
  CHECK(cause_text(e) == "boom");
  CHECK(std::string(e.what()) == "stategraph: node 'looping' failed in step 6: boom");
}

TEST_CASE("a throwing node on a thread pool gives the same error") {
  auto pooled = sg::compile<fixed_graph>(sg::with_executor(sg::thread_pool{2}));
  auto e = node_error_of([&] { pooled.invoke(Logged{}); });
  CHECK(e.node() == "fails");
  CHECK(e.step() == 2);
  CHECK(cause_text(e) == "boom");
}

TEST_CASE("an exception not derived from std::exception is carried as the cause") {
  auto e = node_error_of([] { sg::compile<int_graph>().invoke(Logged{}); });
  CHECK(e.node() == "throws_int");
  CHECK(e.step() == 2);
  CHECK(std::string(e.what()) ==
        "stategraph: node 'throws_int' failed in step 2: an exception not derived from std::exception");
  int thrown = 0;
  try {
    e.rethrow_cause();
  } catch (int i) {
    thrown = i;
  }
  CHECK(thrown == 42);
}

TEST_CASE("node_error uses a node's declared name and is caught as sg::error") {
  std::string what;
  try {
    sg::compile<renamed_graph>().invoke(Logged{});
  } catch (const sg::error& e) {
    what = e.what();
  }
  CHECK(what == "stategraph: node 'the_thrower' failed in step 1: boom");
}

TEST_CASE("the step counts from the run's first superstep; a failed run leaves the app usable") {
  auto app = sg::compile<loop_graph>();
  // From -3 the node reads -3, -2, ... and throws when it reads 5: in step 9.
  CHECK(node_error_of([&] { app.invoke(Logged{.counter = -3}); }).step() == 9);
  CHECK(node_error_of([&] { app.invoke(Logged{.counter = 100}); }).step() == 1);

  auto once = sg::compile<guarded_graph>();
  CHECK(node_error_of([&] { once.invoke(Logged{.counter = 3}); }).node() == "guarded");
  CHECK(once.invoke(Logged{.counter = 2}).counter == 3);
}

TEST_CASE("when two nodes of a step throw, the first in node order is named") {
  CHECK(node_error_of([] { sg::compile<both_fail_frontier>().invoke(Logged{}); }).node() == "fails");
  auto pooled = sg::compile<both_fail_frontier>(sg::with_executor(sg::thread_pool{2}));
  for (int run = 0; run < 20; ++run) CHECK(node_error_of([&] { pooled.invoke(Logged{}); }).node() == "fails");
  auto pooled_fixed = sg::compile<both_fail_fixed>(sg::with_executor(sg::thread_pool{2}));
  CHECK(node_error_of([&] { pooled_fixed.invoke(Logged{}); }).node() == "fails");
}

TEST_CASE("when two nodes of a step throw in a fixed plan, the first in node order is named") {
  CHECK(node_error_of([] { sg::compile<both_fail_fixed>().invoke(Logged{}); }).node() == "fails");
}

namespace lone_node_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::counter<int> n;
  sg::append<std::string> log;
  std::string title;
};

// ---- a node failing alone in a step of a frontier graph ------------------------------------
// gate runs alone (step 1), fans out to left and right (step 2, two nodes: so the graph is
// not one that runs one node at a time), which both lead to tail (alone again, step 3).
// What each node does is chosen by `title`.
void fail_if(const std::string& title, std::string_view who) {
  if (title == std::string(who) + " throws") throw std::runtime_error(std::string(who) + " broke");
  if (title == std::string(who) + " pauses") throw sg::interrupt_signal{"\"ok?\"", 0};
}
struct gate {
  using reads = sg::reads<&State::title>;
  using writes = sg::writes<&State::n, &State::log>;
  auto operator()(sg::view<State, reads> in) const {
    fail_if(in.get<&State::title>(), "gate");
    return sg::write<&State::n>(1) | sg::write<&State::log>("gate");
  }
};
template <int K>
struct side {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::n, &State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::n>(10) | sg::write<&State::log>("side"); }
};
struct tail {
  using reads = sg::reads<&State::title>;
  using writes = sg::writes<&State::n, &State::log>;
  auto operator()(sg::view<State, reads> in) const {
    fail_if(in.get<&State::title>(), "tail");
    return sg::write<&State::n>(100) | sg::write<&State::log>("tail");
  }
};
struct fan {
  using reads = sg::reads<>;
  sg::go_all<side<1>, side<2>> operator()(sg::view<State, reads>) const {
    return sg::go_all<side<1>, side<2>>{sg::to<side<1>>, sg::to<side<2>>};
  }
};
using alone_steps = sg::graph<State, sg::edge<sg::start, gate>, sg::branch<gate, fan>,
                              sg::join<tail, side<1>, side<2>>, sg::edge<tail, sg::end>>;

// gate, then a router's choice of tail: one node in every step, so each step is a chain link.
struct to_tail {
  using reads = sg::reads<>;
  sg::go<tail, sg::end> operator()(sg::view<State, reads>) const { return sg::to<tail>; }
};
using one_at_a_time = sg::graph<State, sg::edge<sg::start, gate>, sg::branch<gate, to_tail>, sg::edge<tail, sg::end>>;
static_assert(sg::analysis<one_at_a_time>::one_at_a_time && !sg::analysis<one_at_a_time>::plan.fixed);

}  // namespace lone_node_cases
using namespace lone_node_cases;

// A node that pauses, in a run without a store: sg::error saying a store is needed, not a
// node's failure.
template <class F>
void check_pause_needs_store(F&& run) {
  try {
    run();
    FAIL("expected sg::error");
  } catch (const sg::node_error&) {
    FAIL("a pause without a store was reported as a node failure");
  } catch (const sg::error& e) {
    CHECK(std::string(e.what()).find("checkpoint store") != std::string::npos);
  }
}

TEST_CASE("a node failing alone in a step of a frontier graph: node_error names it and its step") {
  auto app = sg::compile<alone_steps>();
  auto pool = sg::compile<alone_steps>(sg::thread_pool{2});
  CHECK(app.invoke(State{}).n == 121);  // gate 1 + two sides 10 + tail 100: the graph runs
  CHECK(pool.invoke(State{}).n == 121);
  struct expectation {
    const char* title;
    const char* node;
    std::size_t step;
  };
  for (const auto& [title, node, step] : {expectation{"gate throws", "gate", 1}, expectation{"tail throws", "tail", 3}}) {
    try {
      app.invoke(State{.title = title});
      FAIL("expected node_error");
    } catch (const sg::node_error& e) {
      CHECK(e.node() == node);
      CHECK(e.step() == step);
      CHECK(std::string(e.what()).find(std::string(node) + " broke") != std::string::npos);
    }
    try {
      pool.invoke(State{.title = title});
      FAIL("expected node_error");
    } catch (const sg::node_error& e) {
      CHECK(e.node() == node);
      CHECK(e.step() == step);
    }
  }
}

TEST_CASE("around a lone node's call, the recursion limit and a pause without a store are not node failures") {
  auto app = sg::compile<alone_steps>();
  // Step 3 (tail, alone) is over a limit of 2: the limit's own error, not a node_error.
  try {
    app.invoke(State{}, sg::run_config{.recursion_limit = 2});
    FAIL("expected recursion_limit_error");
  } catch (const sg::node_error&) {
    FAIL("the recursion limit was reported as a node failure");
  } catch (const sg::recursion_limit_error& e) {
    CHECK(e.step() == 3);  // the step that would have run
    CHECK(std::string(e.what()).find("tail") != std::string::npos);
  }
  CHECK(app.invoke(State{}, sg::run_config{.recursion_limit = 3}).n == 121);
  // A lone node that pauses, in a run without a store.
  check_pause_needs_store([&] { app.invoke(State{.title = "tail pauses"}); });
}

TEST_CASE("in a graph that runs one node at a time, a node's failure and a pause without a store") {
  auto app = sg::compile<one_at_a_time>();
  CHECK(app.invoke(State{}).n == 101);
  try {
    app.invoke(State{.title = "tail throws"});
    FAIL("expected node_error");
  } catch (const sg::node_error& e) {
    CHECK(e.node() == "tail");
    CHECK(e.step() == 2);
  }
  check_pause_needs_store([&] { app.invoke(State{.title = "tail pauses"}); });
}

}  // namespace unity_failures_errors
