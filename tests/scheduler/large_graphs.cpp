// Graphs of more than 256 nodes. Clang caps a fold expression at 256 operands, and the
// library's checks and runs once folded over a graph's elements, nodes and steps: such a
// graph did not compile with Clang (tests/compile_fail.cmake also compiles this file with the
// other compiler). g++ once stopped at its template depth of 900 (about 225 nodes).
#include <stategraph/stategraph.hpp>

#include <boost/mp11/algorithm.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_scheduler_large_graphs {

namespace sg = stategraph;

namespace large_graph_cases {  // named: Clang cannot reflect types with internal linkage

// A reducer that refuses a negative write: a failure in the merge, after the node returned.
struct refuses_negative {
  int operator()(int current, int written) const {
    if (written < 0) throw std::invalid_argument("negative write");
    return current + written;
  }
};

struct Big {
  sg::counter<int> count;
  sg::append<int> order;
  sg::reduced<int, refuses_negative> checked;
};

inline int failing_link = -1;  // the link that throws, none when negative
inline bool link_pauses = false;  // it calls for an interrupt instead
inline bool router_fails = false;

template <int I>
struct link {
  using writes = sg::writes<&Big::count, &Big::order>;
  auto operator()(sg::view<Big, sg::reads<>>) const {
    if (I == failing_link) {
      if (link_pauses) throw sg::interrupt_signal{"\"ok?\"", 0};
      throw std::runtime_error("link broke");
    }
    return sg::write<&Big::count>(1) | sg::write<&Big::order>(I);
  }
};

constexpr int length = 300;

// start -> link<0> -> ... -> link<299> -> end: a fixed plan of 300 steps, past the 32 compiled
// inline and past 256 steps.
template <int... I>
sg::graph<Big, sg::edge<sg::start, link<0>>, sg::edge<link<I>, link<I + 1>>..., sg::edge<link<length - 1>, sg::end>>
chain_of(std::integer_sequence<int, I...>);
using chain = decltype(chain_of(std::make_integer_sequence<int, length - 1>{}));

// 40 links and a node whose write the reducer refuses: a long plan (past the 32 steps
// compiled inline) that fails in its merge.
struct negative {
  using writes = sg::writes<&Big::checked>;
  auto operator()(sg::view<Big, sg::reads<>>) const { return sg::write<&Big::checked>(-1); }
};
template <int... I>
sg::graph<Big, sg::edge<sg::start, link<0>>, sg::edge<link<I>, link<I + 1>>..., sg::edge<link<39>, negative>,
          sg::edge<negative, sg::end>>
refused_chain_of(std::integer_sequence<int, I...>);
using refused_chain = decltype(refused_chain_of(std::make_integer_sequence<int, 39>{}));

// The same links, and a router after the last that goes round twice: one node at a time on
// the frontier (the chain-link path), 600 steps.
struct again {
  using reads = sg::reads<&Big::count>;
  sg::go<link<0>, sg::end> operator()(sg::view<Big, reads> in) const {
    if (router_fails) throw std::logic_error("router broke");
    if (in.get<&Big::count>() < 2 * length) return sg::to<link<0>>;
    return sg::to<sg::end>;
  }
};
template <int... I>
sg::graph<Big, sg::edge<sg::start, link<0>>, sg::edge<link<I>, link<I + 1>>..., sg::branch<link<length - 1>, again>>
loop_of(std::integer_sequence<int, I...>);
using loop = decltype(loop_of(std::make_integer_sequence<int, length - 1>{}));

// 40 layers of a hub and two nodes it fans out to, which both lead to the next hub: a fixed
// plan of 80 steps, every other one running two nodes (detail::plan_step).
template <int I>
struct hub : link<I> {};
template <int I>
struct left : link<1000 + I> {};
template <int I>
struct right : link<2000 + I> {};
constexpr int layers = 40;
template <int I>
using layer = sg::detail::mp_list<sg::edge<hub<I>, left<I>>, sg::edge<hub<I>, right<I>>, sg::edge<left<I>, hub<I + 1>>,
                                  sg::edge<right<I>, hub<I + 1>>>;
template <class... Layers>
struct layered_graph;
template <class... E>
struct layered_graph<sg::detail::mp_list<E...>> {
  using type = sg::graph<Big, sg::edge<sg::start, hub<0>>, E..., sg::edge<hub<layers>, sg::end>>;
};
template <int... I>
boost::mp11::mp_append<layer<I>...> layers_of(std::integer_sequence<int, I...>);
using layered = typename layered_graph<decltype(layers_of(std::make_integer_sequence<int, layers>{}))>::type;

std::vector<int> rounds(int n) {
  std::vector<int> out;
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < length; ++i) out.push_back(i);
  return out;
}

// For each node in turn made to throw (`failing` set to its number): the run's node_error
// names that node, with the step step_of gives and the node's message; `after` checks what
// the failed run left.
struct node_failure {
  int at;
  std::string_view node;
};
template <class State, class App, class StepOf, class After>
void check_node_failures(const App& app, int& failing, std::initializer_list<node_failure> failures, StepOf step_of,
                         std::string_view message, After after) {
  for (auto [at, node] : failures) {
    failing = at;
    try {
      app.invoke(State{});
      FAIL("expected node_error");
    } catch (const sg::node_error& e) {
      CHECK(e.node() == node);
      CHECK(e.step() == step_of(at));
      CHECK(std::string(e.what()).find(message) != std::string::npos);
    }
    after();
  }
  failing = -1;
}
// The links of the chain and the loop: link<I> runs in step I + 1 (the first round's).
template <class App>
void check_link_failures(const App& app, std::initializer_list<node_failure> failures) {
  check_node_failures<Big>(
      app, failing_link, failures, [](int at) { return static_cast<std::size_t>(at) + 1; }, "link broke", [] {});
}

// A written value that counts its live objects: a step's result left undestroyed, or
// destroyed twice, shows in the count.
struct counted {
  static inline int live = 0;
  int value = 0;
  counted(int v = 0) : value(v) { ++live; }  // NOLINT: implicit, as a channel value
  counted(const counted& o) : value(o.value) { ++live; }
  counted(counted&& o) noexcept : value(o.value) { ++live; }
  counted& operator=(const counted&) = default;
  counted& operator=(counted&&) noexcept = default;
  ~counted() { --live; }
};
struct Wide {
  sg::counter<int> count;
  sg::append<counted> seen;
};
inline int failing_leaf = -1;
struct wide_hub {
  using writes = sg::writes<&Wide::count>;
  auto operator()(sg::view<Wide, sg::reads<>>) const { return sg::write<&Wide::count>(1); }
};
template <int I>
struct leaf {
  using writes = sg::writes<&Wide::count, &Wide::seen>;
  auto operator()(sg::view<Wide, sg::reads<>>) const {
    if (I == failing_leaf) throw std::runtime_error("leaf broke");
    return sg::write<&Wide::count>(1) | sg::write<&Wide::seen>(counted{I});
  }
};
constexpr int leaves = 200;
template <int... I>
sg::graph<Wide, sg::edge<sg::start, wide_hub>, sg::edge<wide_hub, leaf<I>>..., sg::edge<leaf<I>, sg::end>...>
fan_of(std::integer_sequence<int, I...>);
using fan = decltype(fan_of(std::make_integer_sequence<int, leaves>{}));

// An executor other than the library's two: every step, of one node or of 200, is the
// general step, with its results in the step's result store.
struct own_executor {
  template <class F>
  void for_each_task(std::size_t count, F& task) const {
    for (std::size_t i = 0; i < count; ++i) task(i);
  }
};

TEST_CASE("a chain of 300 nodes runs as a fixed plan of 300 steps, in order") {
  static_assert(sg::analysis<chain>::size == length);
  static_assert(sg::analysis<chain>::plan.fixed && sg::analysis<chain>::plan.steps == length);
  auto app = sg::compile<chain>();
  Big out = app.invoke(Big{});
  CHECK(static_cast<int>(out.count) == length);
  CHECK(std::vector<int>(out.order) == rounds(1));

  sg::run_config short_limit;
  short_limit.recursion_limit = 299;
  CHECK_THROWS_AS(app.invoke(Big{}, short_limit), sg::recursion_limit_error);
}

TEST_CASE("in a chain of 300 nodes, a node that throws is named with its step; other failures pass through") {
  auto app = sg::compile<chain>();
  // The first and last of a chunk of steps among them.
  check_link_failures(app, {{0, sg::node_traits<link<0>>::name},
                            {127, sg::node_traits<link<127>>::name},
                            {128, sg::node_traits<link<128>>::name},
                            {200, sg::node_traits<link<200>>::name},
                            {299, sg::node_traits<link<299>>::name}});
  CHECK(sg::node_traits<link<127>>::name != sg::node_traits<link<128>>::name);
  // The recursion limit and a reducer's refusal are not a node's failure.
  try {
    app.invoke(Big{}, sg::run_config{.recursion_limit = 150});
    FAIL("expected recursion_limit_error");
  } catch (const sg::node_error&) {
    FAIL("the recursion limit was reported as a node failure");
  } catch (const sg::recursion_limit_error& e) {
    CHECK(e.step() == 151);  // the step that would have run
  }
  auto refused = sg::compile<refused_chain>();
  static_assert(sg::analysis<refused_chain>::plan.fixed && sg::analysis<refused_chain>::plan.steps == 41);
  CHECK_THROWS_AS(refused.invoke(Big{}), std::invalid_argument);
  CHECK(static_cast<int>(app.invoke(Big{}).count) == length);  // the app is still usable
}

TEST_CASE("a layered graph of 121 nodes runs as a fixed plan of 81 steps, two nodes in every other") {
  using A = sg::analysis<layered>;
  static_assert(A::size == 3 * layers + 1 && A::plan.fixed && A::plan.steps == 2 * layers + 1);
  auto app = sg::compile<layered>();
  Big out = app.invoke(Big{});
  CHECK(static_cast<int>(out.count) == 3 * layers + 1);
  std::vector<int> expected;
  for (int i = 0; i < layers; ++i) {
    expected.push_back(i);
    expected.push_back(1000 + i);  // the two nodes of a step merge in node order
    expected.push_back(2000 + i);
  }
  expected.push_back(layers);
  CHECK(std::vector<int>(out.order) == expected);
}

TEST_CASE("a step of 200 nodes in the general step: results merged in node order, each destroyed once") {
  static_assert(sg::analysis<fan>::size == leaves + 1);
  auto app = sg::compile<fan>(sg::with_executor(own_executor{}));
  {
    Wide out = app.invoke(Wide{});
    CHECK(static_cast<int>(out.count) == leaves + 1);
    const std::vector<counted>& seen = out.seen;
    REQUIRE(seen.size() == static_cast<std::size_t>(leaves));
    for (int i = 0; i < leaves; ++i) CHECK(seen[static_cast<std::size_t>(i)].value == i);
    CHECK(counted::live == leaves);  // the state's values only: every result was destroyed
  }
  CHECK(counted::live == 0);
  // A leaf that throws fails the step: the results of the leaves that ran are destroyed too.
  check_node_failures<Wide>(
      app, failing_leaf,
      {{0, sg::node_traits<leaf<0>>::name},
       {150, sg::node_traits<leaf<150>>::name},
       {leaves - 1, sg::node_traits<leaf<leaves - 1>>::name}},
      [](int) { return std::size_t{2}; }, "leaf broke", [] { CHECK(counted::live == 0); });
  // The same graph on the sequential executor runs a fixed plan: the same values.
  Wide fixed = sg::compile<fan>().invoke(Wide{});
  CHECK(static_cast<int>(fixed.count) == leaves + 1);
  CHECK(static_cast<const std::vector<counted>&>(fixed.seen).back().value == leaves - 1);
}

TEST_CASE("a loop of 300 nodes runs one node at a time, round twice") {
  static_assert(sg::analysis<loop>::size == length && !sg::analysis<loop>::plan.fixed);
  auto app = sg::compile<loop>();
  Big out = app.invoke(Big{});
  CHECK(static_cast<int>(out.count) == 2 * length);
  CHECK(std::vector<int>(out.order) == rounds(2));
}

TEST_CASE("in a loop of 300 nodes, a node that throws is named with its step; other failures pass through") {
  auto app = sg::compile<loop>();
  check_link_failures(app, {{0, sg::node_traits<link<0>>::name},
                            {127, sg::node_traits<link<127>>::name},
                            {128, sg::node_traits<link<128>>::name},
                            {299, sg::node_traits<link<299>>::name}});
  // A link that pauses in a run without a store: the error says a store is needed.
  failing_link = 128;
  link_pauses = true;
  try {
    app.invoke(Big{});
    FAIL("expected sg::error");
  } catch (const sg::node_error&) {
    FAIL("a pause without a store was reported as a node failure");
  } catch (const sg::error& e) {
    CHECK(std::string(e.what()).find("checkpoint store") != std::string::npos);
  }
  failing_link = -1;
  link_pauses = false;
  // The router and the recursion limit are not a node's failure.
  router_fails = true;
  CHECK_THROWS_WITH_AS(app.invoke(Big{}), "router broke", std::logic_error);
  router_fails = false;
  try {
    app.invoke(Big{}, sg::run_config{.recursion_limit = 450});
    FAIL("expected recursion_limit_error");
  } catch (const sg::node_error&) {
    FAIL("the recursion limit was reported as a node failure");
  } catch (const sg::recursion_limit_error& e) {
    CHECK(e.step() == 451);
  }
  CHECK(static_cast<int>(app.invoke(Big{}).count) == 2 * length);
}

}  // namespace large_graph_cases

}  // namespace unity_scheduler_large_graphs
