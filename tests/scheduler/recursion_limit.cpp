// recursion_limit (semantics.md): a run that needs exactly L supersteps passes under limit
// L; one that needs more throws recursion_limit_error naming the limit, the step and the
// nodes still active — for a fixed plan and for a frontier run alike.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_scheduler_recursion_limit {

using unit::Logged;
using unit::logs_name;
using unit::strings;
namespace sg = stategraph;

namespace unit_recursion {

struct n1 : logs_name<n1> {};
struct n2 : logs_name<n2> {};
struct n3 : logs_name<n3> {};
struct x : logs_name<x> {};
struct y : logs_name<y> {};
struct step : logs_name<step> {};

using chain3 = sg::graph<Logged, sg::edge<sg::start, n1>, sg::edge<n1, n2>, sg::edge<n2, n3>, sg::edge<n3, sg::end>>;
static_assert(sg::analysis<chain3>::plan.fixed && sg::analysis<chain3>::plan.steps == 3);

// Two nodes in the second step, to see both named.
using forked = sg::graph<Logged, sg::edge<sg::start, n1>, sg::edge<n1, x>, sg::edge<n1, y>, sg::edge<x, sg::end>,
                         sg::edge<y, sg::end>>;

template <int Steps>
using loop = sg::graph<Logged, sg::edge<sg::start, step>, sg::branch<step, unit::loop_until<step, Steps>>>;
static_assert(!sg::analysis<loop<3>>::plan.fixed);

using names = std::vector<std::string_view>;

sg::run_config limit(std::size_t l) {
  sg::run_config c;
  c.recursion_limit = l;
  return c;
}

// Runs f, which must throw recursion_limit_error, and returns the error.
template <class F>
sg::recursion_limit_error limit_error_of(F&& f) {
  try {
    f();
  } catch (const sg::recursion_limit_error& e) {
    return e;
  }
  FAIL("no recursion_limit_error was thrown");
  return sg::recursion_limit_error(0, 0, {});
}

static_assert(std::is_base_of_v<sg::error, sg::recursion_limit_error>);
static_assert(sg::default_recursion_limit == 10'000);

}  // namespace unit_recursion

using namespace unit_recursion;

TEST_CASE("the default recursion limit is 10000") {
  CHECK(sg::run_config{}.recursion_limit == 10'000);
  // A loop of exactly 10000 supersteps passes with the default; one more does not.
  Logged out = sg::compile<loop<10'000>>().invoke(Logged{});
  CHECK(out.counter == 10'000);
  auto e = limit_error_of([] { sg::compile<loop<10'001>>().invoke(Logged{}); });
  CHECK(e.limit() == 10'000);
  CHECK(e.step() == 10'001);
  CHECK(e.active_nodes() == names{"step"});
}

TEST_CASE("fixed plan: L supersteps pass under limit L, not under L - 1") {
  auto app = sg::compile<chain3>();
  Logged out = app.invoke(Logged{}, limit(3));
  CHECK(out.log == strings{"n1", "n2", "n3"});

  auto e = limit_error_of([&] { app.invoke(Logged{}, limit(2)); });
  CHECK(e.limit() == 2);
  CHECK(e.step() == 3);  // the step that would have run
  CHECK(e.active_nodes() == names{"n3"});
  CHECK(std::string(e.what()) ==
        "stategraph: recursion limit of 2 supersteps reached before step 3; still active: n3 "
        "(raise it with run_config::recursion_limit)");

  auto zero = limit_error_of([&] { app.invoke(Logged{}, limit(0)); });
  CHECK(zero.limit() == 0);
  CHECK(zero.step() == 1);
  CHECK(zero.active_nodes() == names{"n1"});
}

TEST_CASE("fixed plan: every node still active is named") {
  auto app = sg::compile<forked>();
  CHECK(app.invoke(Logged{}, limit(2)).counter == 3);
  auto e = limit_error_of([&] { app.invoke(Logged{}, limit(1)); });
  CHECK(e.step() == 2);
  CHECK(e.active_nodes() == names{"x", "y"});
  CHECK(std::string(e.what()).find("still active: x y ") != std::string::npos);
}

TEST_CASE("frontier: L supersteps pass under limit L, not under L - 1") {
  auto app = sg::compile<loop<1000>>();
  Logged out = app.invoke(Logged{}, limit(1000));
  CHECK(out.counter == 1000);
  CHECK(out.log.size() == 1000);

  auto e = limit_error_of([&] { app.invoke(Logged{}, limit(999)); });
  CHECK(e.limit() == 999);
  CHECK(e.step() == 1000);
  CHECK(e.active_nodes() == names{"step"});
  const std::string what = e.what();
  CHECK(what.find("recursion limit of 999") != std::string::npos);
  CHECK(what.find("before step 1000") != std::string::npos);
  CHECK(what.find("still active: step") != std::string::npos);
}

TEST_CASE("a recursion_limit_error is caught as sg::error") {
  bool caught = false;
  try {
    sg::compile<loop<5>>().invoke(Logged{}, limit(4));
  } catch (const sg::error& e) {
    caught = std::string(e.what()).find("recursion limit of 4") != std::string::npos;
  }
  CHECK(caught);
}

}  // namespace unity_scheduler_recursion_limit
