// Failures and retry policies, streaming (callback and range), contexts and seams,
// per-node config layers, subgraphs.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sg = stategraph;
using namespace std::chrono_literals;

namespace failures_streams_cases {  // named: Clang cannot reflect types with internal linkage

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

// ---- contexts and seams -----------------------------------------------------------------------

struct reasoning {
  virtual ~reasoning() = default;
  virtual std::string think(const std::string& about) = 0;
};
struct fake_reasoning : reasoning {
  int calls = 0;
  std::string think(const std::string& about) override {
    ++calls;
    return "thought about " + about;
  }
};
struct app_context {
  fake_reasoning brain;
  template <class Seam>
  Seam& provide() {
    return brain;
  }
};
struct thinker {
  using seam = reasoning;
  using reads = sg::reads<&State::title>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in, app_context& ctx) const {
    return sg::write<&State::log>(sg::seam<reasoning>(ctx).think(in.get<&State::title>()));
  }
};
using thinking = sg::graph<State, sg::edge<sg::start, thinker>, sg::edge<thinker, sg::end>>;

// ---- subgraphs --------------------------------------------------------------------------------

struct inner_a {
  using writes = sg::writes<&State::log, &State::n>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("a") | sg::write<&State::n>(1); }
};
struct inner_b {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log, &State::title>;
  auto operator()(sg::view<State, reads> in) const {
    if (in.get<&State::n>() > 5) throw std::runtime_error("too many");
    return sg::write<&State::log>("b") | sg::write<&State::title>("T" + std::to_string(in.get<&State::n>()));
  }
};
using inner_graph = sg::graph<State, sg::edge<sg::start, inner_a>, sg::edge<inner_a, inner_b>, sg::edge<inner_b, sg::end>>;
struct research {};
using research_node = sg::subgraph<research, inner_graph>;
struct before {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("before"); }
};
using outer_graph = sg::graph<State, sg::edge<sg::start, before>, sg::edge<before, research_node>,
                              sg::edge<research_node, sg::end>>;

struct Notes {
  sg::append<std::string> items;
  sg::counter<int> count;
};
struct note {
  using writes = sg::writes<&Notes::items, &Notes::count>;
  auto operator()(sg::view<Notes, sg::reads<>>) const { return sg::write<&Notes::items>("note") | sg::write<&Notes::count>(2); }
};
using notes_graph = sg::graph<Notes, sg::edge<sg::start, note>, sg::edge<note, sg::end>>;
struct noting {};
using notes_node = sg::subgraph<noting, notes_graph, sg::maps<&State::log, &Notes::items>, sg::maps<&State::n, &Notes::count>>;
using mapped_graph = sg::graph<State, sg::edge<sg::start, before>, sg::edge<before, notes_node>, sg::edge<notes_node, sg::end>>;

struct deep {};
using deep_node = sg::subgraph<deep, outer_graph>;  // a subgraph whose child has a subgraph
using nested_graph = sg::graph<State, sg::edge<sg::start, deep_node>, sg::edge<deep_node, sg::end>>;

struct model_config {
  std::string model;
  double temperature = 0;
  int max_tokens = 0;
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

}  // namespace failures_streams_cases
using namespace failures_streams_cases;

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

TEST_CASE("a node's seam comes from the runtime context") {
  auto app = sg::compile<thinking>();
  app_context ctx;
  State out = app.invoke(State{.title = "graphs"}, ctx);
  CHECK(static_cast<const std::vector<std::string>&>(out.log) == std::vector<std::string>{"thought about graphs"});
  CHECK(ctx.brain.calls == 1);
  static_assert(sg::detail::provides_seam<app_context, reasoning>);
  static_assert(!sg::detail::provides_seam<sg::detail::no_context, reasoning>);
}

TEST_CASE("config layers: the node's override wins, missing keys fall back to the default") {
  sg::config_layers<model_config> cfg{{.model = "small", .temperature = 0.2, .max_tokens = 100}};
  cfg.set<&model_config::model>("review", std::string("large")).set<&model_config::max_tokens, thinker>(500);
  model_config review = cfg.for_node("review");
  CHECK(review.model == "large");
  CHECK(review.temperature == 0.2);
  CHECK(review.max_tokens == 100);
  model_config think = cfg.for_node<thinker>();
  CHECK(think.model == "small");
  CHECK(think.max_tokens == 500);
  CHECK(cfg.overrides<&model_config::model>("review"));
  CHECK(!cfg.overrides<&model_config::temperature>("review"));
  CHECK(cfg.for_node("nobody").model == "small");
}

TEST_CASE("a subgraph sharing the schema runs as one node; its writes merge through the parent's reducers") {
  auto app = sg::compile<outer_graph>();
  State out = app.invoke(State{.n = 2, .log = {"in"}});
  CHECK(out.n == 3);  // the child added 1: the parent receives +1, not the child's whole counter
  CHECK(out.title == "T3");
  CHECK(static_cast<const std::vector<std::string>&>(out.log) == std::vector<std::string>{"in", "before", "a", "b"});
  using reads = research_node::reads;
  using writes = research_node::writes;
  static_assert(std::is_same_v<writes, sg::writes<&State::n, &State::log, &State::title>>);
  static_assert(std::is_same_v<reads, sg::reads<&State::n, &State::log, &State::title>>);
}

TEST_CASE("a subgraph's failure names its node parent/child") {
  auto app = sg::compile<outer_graph>();
  try {
    app.invoke(State{.n = 9});
    FAIL("expected node_error");
  } catch (const sg::node_error& e) {
    CHECK(e.node() == "research/inner_b");
    CHECK(e.step() == 2);
    CHECK(std::string(e.what()).find("too many") != std::string::npos);
  }
}

TEST_CASE("a subgraph with mapped channels") {
  auto app = sg::compile<mapped_graph>();
  State out = app.invoke(State{.n = 1, .log = {"in"}});
  CHECK(static_cast<const std::vector<std::string>&>(out.log) == std::vector<std::string>{"in", "before", "note"});
  CHECK(out.n == 3);
  static_assert(std::is_same_v<notes_node::writes, sg::writes<&State::log, &State::n>>);
}

namespace failures_streams_cases {
// One line per event: "step.substep what".
struct event_log {
  std::vector<std::string> lines;
  void operator()(const sg::event<State>& e) {
    std::string line = std::to_string(e.step) + "." + std::to_string(e.substep) + " ";
    if (e.mode == sg::stream_mode::updates) {
      line += "update " + std::string(e.node);
      for (auto c : e.channels) line += " " + std::string(c);
    } else if (e.mode == sg::stream_mode::debug) {
      line += std::string(e.phase == sg::debug_phase::start ? "start " : e.phase == sg::debug_phase::end ? "end " : "error ") +
              std::string(e.node);
    } else {
      line += "values n=" + std::to_string(e.values->n);
    }
    lines.push_back(line);
  }
};
}  // namespace failures_streams_cases

TEST_CASE("a subgraph's updates and debug events reach the parent's stream, named parent/child") {
  const std::vector<std::string> expected{
      "0.0 values n=0",
      "1.0 start before", "1.0 end before", "1.0 update before log", "1.0 values n=0",
      "2.0 start research",
      "2.1 start research/inner_a", "2.1 end research/inner_a", "2.1 update research/inner_a log n",
      "2.2 start research/inner_b", "2.2 end research/inner_b", "2.2 update research/inner_b log title",
      "2.0 end research", "2.0 update research n log title", "2.0 values n=1"};
  const auto all = sg::stream_mode::values | sg::stream_mode::updates | sg::stream_mode::debug;
  SUBCASE("sequential") {
    event_log log;
    State out = sg::compile<outer_graph>().stream(State{}, all, std::ref(log));
    CHECK(log.lines == expected);
    CHECK(out.title == "T1");
  }
  SUBCASE("on a thread pool: the same events in the same order") {
    event_log log;
    sg::compile<outer_graph>(sg::with_executor(sg::thread_pool{2})).stream(State{}, all, std::ref(log));
    CHECK(log.lines == expected);
  }
  SUBCASE("as a range") {
    event_log log;
    for (const auto& e : sg::compile<outer_graph>().stream(State{}, all)) log(e);
    CHECK(log.lines == expected);
  }
  SUBCASE("only the modes asked for are forwarded") {
    event_log updates, values;
    sg::compile<outer_graph>().stream(State{}, sg::stream_mode::updates, std::ref(updates));
    CHECK(updates.lines == std::vector<std::string>{"1.0 update before log", "2.1 update research/inner_a log n",
                                                    "2.2 update research/inner_b log title",
                                                    "2.0 update research n log title"});
    sg::compile<outer_graph>().stream(State{}, sg::stream_mode::values, std::ref(values));
    CHECK(values.lines == std::vector<std::string>{"0.0 values n=0", "1.0 values n=0", "2.0 values n=1"});
  }
}

TEST_CASE("nested subgraphs: events carry the whole path; a child's failure is streamed before the parent's") {
  event_log log;
  sg::compile<nested_graph>().stream(State{}, sg::stream_mode::updates, std::ref(log));
  CHECK(log.lines == std::vector<std::string>{"1.1 update deep/before log", "1.2 update deep/research/inner_a log n",
                                              "1.2 update deep/research/inner_b log title",
                                              "1.2 update deep/research n log title", "1.0 update deep n log title"});
  event_log failing;
  CHECK_THROWS_AS(sg::compile<outer_graph>().stream(State{.n = 9}, sg::stream_mode::debug, std::ref(failing)),
                  sg::node_error);
  CHECK(failing.lines == std::vector<std::string>{"1.0 start before", "1.0 end before", "2.0 start research",
                                                  "2.1 start research/inner_a", "2.1 end research/inner_a",
                                                  "2.2 start research/inner_b", "2.2 error research/inner_b",
                                                  "2.0 error research"});
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
  // A lone node that pauses, in a run without a store: sg::error saying a store is needed.
  try {
    app.invoke(State{.title = "tail pauses"});
    FAIL("expected sg::error");
  } catch (const sg::node_error&) {
    FAIL("a pause without a store was reported as a node failure");
  } catch (const sg::error& e) {
    CHECK(std::string(e.what()).find("checkpoint store") != std::string::npos);
  }
}
