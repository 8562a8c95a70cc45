// Retry policies (semantics.md, "Failures"): backoff through an injected sleep, giving up
// after max_attempts, logic errors not retried by default, jitter.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_failures_retry {

namespace sg = stategraph;
using namespace std::chrono_literals;

namespace retry_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::counter<int> n;
  sg::append<std::string> log;
  std::string title;
};

// ---- retries ------------------------------------------------------------------------------

struct flaky {
  static inline int calls = 0;
  static inline int fail_times = 2;
  static constexpr sg::retry_policy retry{.max_attempts = 4, .initial_interval = 0.5, .backoff_factor = 3.0,
                                          .max_interval = 1.0, .jitter = false};
  using writes = sg::writes<&State::n>;
  auto operator()(sg::view<State, sg::reads<>>) const {
    if (++calls <= fail_times) throw std::runtime_error("transient");
    return sg::write<&State::n>(1);
  }
};
using retried = sg::graph<State, sg::edge<sg::start, flaky>, sg::edge<flaky, sg::end>>;

struct picky {
  static inline int calls = 0;
  static constexpr sg::retry_policy retry{.max_attempts = 5, .jitter = false};
  using writes = sg::writes<&State::n>;
  sg::patch<> operator()(sg::view<State, sg::reads<>>) const {
    ++calls;
    throw std::invalid_argument("bad input: not retried");
  }
};
using not_retried = sg::graph<State, sg::edge<sg::start, picky>, sg::edge<picky, sg::end>>;

struct jittery {
  static inline int calls = 0;
  static constexpr sg::retry_policy retry{.max_attempts = 2, .initial_interval = 0.25};
  using writes = sg::writes<&State::n>;
  auto operator()(sg::view<State, sg::reads<>>) const {
    if (++calls == 1) throw std::runtime_error("once");
    return sg::write<&State::n>(1);
  }
};
using jittered = sg::graph<State, sg::edge<sg::start, jittery>, sg::edge<jittery, sg::end>>;

}  // namespace retry_cases
using namespace retry_cases;

TEST_CASE("retry policy: backoff without jitter, through an injected sleep") {
  flaky::calls = 0;
  flaky::fail_times = 2;
  std::vector<std::chrono::nanoseconds> slept;
  auto app = sg::compile<retried>();
  State out = app.invoke(State{}, sg::run_config{.sleep = [&](std::chrono::nanoseconds d) { slept.push_back(d); }});
  CHECK(out.n == 1);
  CHECK(flaky::calls == 3);
  REQUIRE(slept.size() == 2);
  CHECK(slept[0] == 500ms);
  CHECK(slept[1] == 1000ms);  // 0.5 * 3 = 1.5, capped at max_interval 1.0
}

TEST_CASE("retry policy: gives up after max_attempts and reports the node") {
  flaky::calls = 0;
  flaky::fail_times = 10;
  int sleeps = 0;
  auto app = sg::compile<retried>();
  try {
    app.invoke(State{}, sg::run_config{.sleep = [&](std::chrono::nanoseconds) { ++sleeps; }});
    FAIL("expected node_error");
  } catch (const sg::node_error& e) {
    CHECK(e.node() == "flaky");
    CHECK(std::string(e.what()).find("transient") != std::string::npos);
  }
  CHECK(flaky::calls == 4);
  CHECK(sleeps == 3);
}

TEST_CASE("retry policy: logic errors are not retried by default") {
  picky::calls = 0;
  auto app = sg::compile<not_retried>();
  CHECK_THROWS_AS(app.invoke(State{}, sg::run_config{.sleep = [](std::chrono::nanoseconds) {}}), sg::node_error);
  CHECK(picky::calls == 1);
}

TEST_CASE("retry policy: jitter adds up to one second") {
  jittery::calls = 0;
  std::vector<std::chrono::nanoseconds> slept;
  auto app = sg::compile<jittered>();
  app.invoke(State{}, sg::run_config{.sleep = [&](std::chrono::nanoseconds d) { slept.push_back(d); }});
  REQUIRE(slept.size() == 1);
  CHECK(slept[0] >= 250ms);
  CHECK(slept[0] < 1250ms);
  static_assert(sg::retry_policy{}.max_attempts == 3 && sg::retry_policy{}.interval(1) == 0.5 &&
                sg::retry_policy{}.interval(3) == 2.0 && sg::retry_policy{}.interval(20) == 128.0);
}

}  // namespace unity_failures_retry
