// invoke() takes short cuts on the sequential executor and the thread pool: a graph that
// can only ever run one node per step runs without any barrier bookkeeping, a step whose
// only task is one node skips the result slots, and a fixed plan builds its results in
// place. This checks each short cut against the general superstep on the same graph — the
// one an executor of the user's own runs (the short cuts are only for the library's two), and
// the one stream() runs — on final states, on the error a failing node raises, and on the
// recursion limit.
#include <stategraph/stategraph.hpp>

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace paths {

namespace sg = stategraph;

struct State {
  sg::counter<int> counter;
  sg::append<std::string> log;
  sg::ephemeral<int> flash;  // written by one step, read by the next, then cleared
  int seen = 0;              // last value: what `flash` held when it was read
};

// Any executor but the library's two: it sees every task, so invoke takes the general step.
struct own_executor {
  template <class F>
  void for_each_task(std::size_t count, F& task) const {
    for (std::size_t i = 0; i < count; ++i) task(i);
  }
};

template <class Self>
struct logs {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::counter, &State::log>;
  auto operator()(sg::view<State, reads>) const {
    return sg::write<&State::counter>(1) | sg::write<&State::log>(std::string(sg::node_traits<Self>::name));
  }
};

template <class Node, int Limit>
struct until {
  using reads = sg::reads<&State::counter>;
  sg::go<Node, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::counter>() < Limit) return sg::to<Node>;
    return sg::to<sg::end>;
  }
};

// ---- one node at a time: a loop through a router, a command, an ephemeral channel ----------

struct step : logs<step> {};
template <int Limit>
using loop = sg::graph<State, sg::edge<sg::start, step>, sg::branch<step, until<step, Limit>>>;

struct pong;
struct ping {
  using reads = sg::reads<&State::counter>;
  using writes = sg::writes<&State::counter, &State::log, &State::flash>;
  using goes = sg::goes<pong, sg::end>;
  auto operator()(sg::view<State, reads> in) const {
    const int c = in.get<&State::counter>();
    sg::go<pong, sg::end> next = c < 12 ? sg::go<pong, sg::end>(sg::to<pong>) : sg::to<sg::end>;
    return sg::command{sg::write<&State::counter>(1) | sg::write<&State::log>("ping") | sg::write<&State::flash>(c),
                       next};
  }
};
struct pong {
  using reads = sg::reads<&State::flash>;
  using writes = sg::writes<&State::log, &State::seen>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::log>("pong:" + std::to_string(in.get<&State::flash>())) |
           sg::write<&State::seen>(in.get<&State::flash>());
  }
};
using ping_pong = sg::graph<State, sg::edge<sg::start, ping>, sg::edge<pong, ping>>;

// A node that throws when the counter reaches 7, inside a loop.
struct flaky {
  using reads = sg::reads<&State::counter>;
  using writes = sg::writes<&State::counter, &State::log>;
  auto operator()(sg::view<State, reads> in) const {
    if (in.get<&State::counter>() == 7) throw std::runtime_error("seven");
    return sg::write<&State::counter>(1) | sg::write<&State::log>("flaky");
  }
};
using flaky_loop = sg::graph<State, sg::edge<sg::start, flaky>, sg::branch<flaky, until<flaky, 20>>>;

// ---- steps of one node and steps of several, in one loop -----------------------------------

struct split : logs<split> {};
struct left : logs<left> {};
struct right : logs<right> {};
struct tail : logs<tail> {};
struct meet : logs<meet> {};
using mixed = sg::graph<State, sg::edge<sg::start, split>, sg::edge<split, left>, sg::edge<split, right>,
                        sg::edge<right, tail>, sg::join<meet, left, tail>, sg::branch<meet, until<split, 30>>>;

// ---- a fixed plan with several nodes per step ----------------------------------------------

struct a : logs<a> {};
struct b : logs<b> {};
struct c : logs<c> {};
struct d : logs<d> {};
using diamond = sg::graph<State, sg::edge<sg::start, a>, sg::edge<a, b>, sg::edge<a, c>, sg::edge<a, d>,
                          sg::edge<b, sg::end>, sg::edge<c, sg::end>, sg::edge<d, sg::end>>;
static_assert(sg::analysis<diamond>::plan.fixed);

struct outcome {
  int counter = 0;
  std::vector<std::string> log;
  int seen = 0;
  friend bool operator==(const outcome&, const outcome&) = default;
};
outcome of(const State& s) {
  return {static_cast<int>(s.counter), std::vector<std::string>(s.log.begin(), s.log.end()), s.seen};
}

// invoke with each executor and stream: the same final state, whatever path each takes.
template <class G>
outcome same_everywhere(State input = {}, const sg::run_config& config = {}) {
  const auto sequential = sg::compile<G>();
  const auto pool = sg::compile<G>(sg::with_executor(sg::thread_pool{2}));
  const auto general = sg::compile<G>(sg::with_executor(own_executor{}));
  const outcome want = of(general.invoke(input, config));
  CHECK(of(sequential.invoke(input, config)) == want);
  CHECK(of(pool.invoke(input, config)) == want);
  CHECK(of(sequential.stream(input, sg::stream_mode::values, [](const auto&) {}, config)) == want);
  return want;
}

struct failure {
  std::string what;
  std::size_t step = 0;
  std::vector<std::string> names;
  friend bool operator==(const failure&, const failure&) = default;
};
template <class F>
failure failure_of(F&& run) {
  try {
    run();
  } catch (const sg::node_error& e) {
    return {e.what(), e.step(), {std::string(e.node())}};
  } catch (const sg::recursion_limit_error& e) {
    return {e.what(), e.step(), std::vector<std::string>(e.active_nodes().begin(), e.active_nodes().end())};
  }
  return {};
}
template <class G>
failure same_failure_everywhere(const sg::run_config& config = {}) {
  const auto sequential = sg::compile<G>();
  const auto pool = sg::compile<G>(sg::with_executor(sg::thread_pool{2}));
  const auto general = sg::compile<G>(sg::with_executor(own_executor{}));
  const failure want = failure_of([&] { general.invoke(State{}, config); });
  CHECK(failure_of([&] { sequential.invoke(State{}, config); }) == want);
  CHECK(failure_of([&] { pool.invoke(State{}, config); }) == want);
  return want;
}

sg::run_config limit(std::size_t l) {
  sg::run_config c;
  c.recursion_limit = l;
  return c;
}

TEST_CASE("a loop through a router") {
  const outcome o = same_everywhere<loop<40>>();
  CHECK(o.counter == 40);
  CHECK(o.log == std::vector<std::string>(40, "step"));
}

TEST_CASE("the input is applied before the first step") {
  State input;
  input.counter = 35;
  input.log.push_back("given");
  const outcome o = same_everywhere<loop<40>>(input);
  CHECK(o.counter == 40);
  REQUIRE(o.log.size() == 6);
  CHECK(o.log.front() == "given");
}

TEST_CASE("a command's goto, and an ephemeral channel read one step later") {
  const outcome o = same_everywhere<ping_pong>();
  CHECK(o.counter == 13);
  REQUIRE(o.log.size() == 25);
  CHECK(o.log[0] == "ping");
  CHECK(o.log[1] == "pong:0");
  CHECK(o.log[23] == "pong:11");
  CHECK(o.log[24] == "ping");
  CHECK(o.seen == 11);
}

TEST_CASE("steps of one node and of several in one loop, with a join") {
  const outcome o = same_everywhere<mixed>();
  CHECK(o.counter == 30);
  REQUIRE(o.log.size() == 30);
  CHECK(o.log[0] == "split");
  CHECK(o.log[1] == "left");  // left and right share a step: node order
  CHECK(o.log[2] == "right");
  CHECK(o.log[3] == "tail");
  CHECK(o.log[4] == "meet");
}

TEST_CASE("a fixed plan merges the nodes of a step in node order") {
  const outcome o = same_everywhere<diamond>();
  CHECK(o.log == std::vector<std::string>{"a", "b", "c", "d"});
}

TEST_CASE("a node failing inside a loop: the same node_error on every path") {
  const failure f = same_failure_everywhere<flaky_loop>();
  REQUIRE(f.names == std::vector<std::string>{"flaky"});
  CHECK(f.step == 8);
}

TEST_CASE("the recursion limit: passes at L, fails at L - 1, the same error on every path") {
  same_everywhere<loop<10>>(State{}, limit(10));
  const failure f = same_failure_everywhere<loop<10>>(limit(9));
  CHECK(f.step == 10);
  CHECK(f.names == std::vector<std::string>{"step"});
  const failure one = same_failure_everywhere<mixed>(limit(4));  // before the second round's split
  CHECK(one.step == 5);
  CHECK(one.names == std::vector<std::string>{"split"});
  const failure two = same_failure_everywhere<mixed>(limit(5));  // before a step of two nodes
  CHECK(two.step == 6);
  CHECK(two.names == std::vector<std::string>{"left", "right"});
}

}  // namespace paths
