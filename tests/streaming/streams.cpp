// Streaming (semantics.md, "Streaming"): values, updates and debug events through a callback
// or as a range-v3 input range, and the debug event of a failing node.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_streaming_streams {

namespace sg = stategraph;

namespace streaming_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::counter<int> n;
  sg::append<std::string> log;
  std::string title;
};

// A node that fails its first `fail_times` calls (as in failures/retry.cpp).
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

// ---- a small chain for streams ----------------------------------------------------------------

struct first {
  using writes = sg::writes<&State::n, &State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::n>(1) | sg::write<&State::log>("first"); }
};
struct second {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::title>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::title>("n=" + std::to_string(in.get<&State::n>())); }
};
struct silent {
  void operator()(sg::view<State, sg::reads<>>) const {}
};
using chain = sg::graph<State, sg::edge<sg::start, first>, sg::edge<first, second>, sg::edge<first, silent>,
                        sg::edge<second, sg::end>, sg::edge<silent, sg::end>>;

}  // namespace streaming_cases
using namespace streaming_cases;

TEST_CASE("stream with a callback: debug, updates and values in a fixed order") {
  auto app = sg::compile<chain>();
  std::vector<std::string> seen;
  State out = app.stream(State{}, sg::stream_mode::values | sg::stream_mode::updates | sg::stream_mode::debug,
                         [&](const sg::event<State>& e) {
                           std::string line = std::to_string(e.step) + ":";
                           if (e.mode == sg::stream_mode::values) line += "values n=" + std::to_string(e.values->n);
                           if (e.mode == sg::stream_mode::updates) {
                             line += "updates " + std::string(e.node);
                             for (auto c : e.channels) line += " " + std::string(c);
                           }
                           if (e.mode == sg::stream_mode::debug)
                             line += std::string(e.phase == sg::debug_phase::start ? "start " : "end ") + std::string(e.node);
                           seen.push_back(line);
                         });
  CHECK(out.title == "n=1");
  CHECK(seen == std::vector<std::string>{"0:values n=0",
                                         "1:start first", "1:end first", "1:updates first n log", "1:values n=1",
                                         "2:start second", "2:end second", "2:start silent", "2:end silent",
                                         "2:updates second title", "2:updates silent", "2:values n=1"});
}

TEST_CASE("stream as a range-v3 input range") {
  auto app = sg::compile<chain>();
  auto titles = app.stream(State{}, sg::stream_mode::values) |
                ranges::views::transform([](const sg::event<State>& e) { return e.values->title; }) |
                ranges::to<std::vector>();
  CHECK(titles == std::vector<std::string>{"", "", "n=1"});
  auto writers = app.stream(State{}, sg::stream_mode::updates) |
                 ranges::views::filter([](const sg::event<State>& e) { return !e.channels.empty(); }) |
                 ranges::views::transform([](const sg::event<State>& e) { return std::string(e.node); }) |
                 ranges::to<std::vector>();
  CHECK(writers == std::vector<std::string>{"first", "second"});
}

TEST_CASE("stream debug reports the error of a failing node") {
  flaky::calls = 0;
  flaky::fail_times = 10;
  auto app = sg::compile<retried>();
  std::vector<sg::event<State>> events;
  CHECK_THROWS_AS(app.stream(State{}, sg::stream_mode::debug, [&](const sg::event<State>& e) { events.push_back(e); },
                             sg::run_config{.sleep = [](std::chrono::nanoseconds) {}}),
                  sg::node_error);
  REQUIRE(events.size() == 2);
  CHECK(events[1].phase == sg::debug_phase::error);
  CHECK(events[1].node == "flaky");
  CHECK(events[1].error.find("transient") != std::string::npos);
}

}  // namespace unity_streaming_streams
