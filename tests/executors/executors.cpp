// Executors (semantics.md): sg::thread_pool gives the same state as sg::sequential on many
// graphs and random inputs, and reports failures alike; sg::sequential calls the nodes of a
// step in node order.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_executors_executors {

namespace sg = stategraph;

namespace executors_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  std::vector<std::uint32_t> seeds;  // the random input: drives every choice of the run
  sg::counter<long> total;
  sg::append<std::string> log;
  sg::counter<int> rounds;
};

// Mixes a seed with the node's identity: what a node writes depends only on its input.
inline std::uint32_t mix(std::uint32_t x, std::uint32_t salt) {
  x ^= salt * 0x9e3779b9u;
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  return x;
}

template <int K>
struct worker {
  static constexpr std::string_view name = "worker";
  using reads = sg::reads<&State::seeds, &State::rounds>;
  using writes = sg::writes<&State::total, &State::log>;
  auto operator()(sg::view<State, reads> in) const {
    const auto& seeds = in.get<&State::seeds>();
    std::uint32_t s = seeds.empty() ? 0 : seeds[static_cast<std::size_t>(in.get<&State::rounds>()) % seeds.size()];
    std::uint32_t v = mix(s, K) % 1000;
    return sg::write<&State::total>(static_cast<long>(v)) | sg::write<&State::log>("w" + std::to_string(K) + ":" + std::to_string(v));
  }
};

struct split {
  using writes = sg::writes<&State::rounds>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::rounds>(1); }
};

// Chooses a random subset of the workers for the next step.
struct pick {
  using reads = sg::reads<&State::seeds, &State::rounds>;
  sg::go_all<worker<1>, worker<2>, worker<3>, worker<4>, worker<5>> operator()(sg::view<State, reads> in) const {
    const auto& seeds = in.get<&State::seeds>();
    std::uint32_t s = mix(seeds.empty() ? 7 : seeds[static_cast<std::size_t>(in.get<&State::rounds>()) % seeds.size()], 99);
    sg::go_all<worker<1>, worker<2>, worker<3>, worker<4>, worker<5>> g;
    if (s & 1) g.add(sg::to<worker<1>>);
    if (s & 2) g.add(sg::to<worker<2>>);
    if (s & 4) g.add(sg::to<worker<3>>);
    if (s & 8) g.add(sg::to<worker<4>>);
    if ((s & 15) == 0 || (s & 16)) g.add(sg::to<worker<5>>);
    return g;
  }
};

struct gather {
  using reads = sg::reads<&State::total>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::log>("sum=" + std::to_string(in.get<&State::total>())); }
};

// Loops back to split a random number of times.
struct again {
  using reads = sg::reads<&State::rounds, &State::seeds>;
  sg::go<split, sg::end> operator()(sg::view<State, reads> in) const {
    std::size_t limit = in.get<&State::seeds>().size() % 5 + 1;
    if (static_cast<std::size_t>(in.get<&State::rounds>()) < limit) return sg::to<split>;
    return sg::to<sg::end>;
  }
};

using random_fanout = sg::graph<State, sg::edge<sg::start, split>, sg::branch<split, pick>, sg::edge<worker<1>, gather>,
                                sg::edge<worker<2>, gather>, sg::edge<worker<3>, gather>, sg::edge<worker<4>, gather>,
                                sg::edge<worker<5>, gather>, sg::branch<gather, again>>;

// A send fan-out whose width comes from the input.
struct unit;
struct scatter {
  using reads = sg::reads<&State::seeds>;
  using sends = sg::sends<unit>;
  std::vector<sg::send_to<unit, std::uint32_t>> operator()(sg::view<State, reads> in) const {
    std::vector<sg::send_to<unit, std::uint32_t>> out;
    for (auto s : in.get<&State::seeds>()) out.push_back(sg::send<unit>(s));
    return out;
  }
};
struct unit {
  using writes = sg::writes<&State::total, &State::log>;
  auto operator()(sg::view<State, sg::reads<>>, const std::uint32_t& s) const {
    auto v = mix(s, 5) % 100;
    std::string entry = "u";  // not "u" + to_string(v): GCC 12 warns falsely (-Wrestrict, its bug 105329)
    entry += std::to_string(v);
    return sg::write<&State::total>(static_cast<long>(v)) | sg::write<&State::log>(std::move(entry));
  }
};
using random_sends = sg::graph<State, sg::edge<sg::start, scatter>, sg::edge<unit, gather>, sg::edge<gather, sg::end>>;

template <class G>
void compare_executors(int runs, std::uint32_t seed) {
  auto sequential = sg::compile<G>();
  auto pooled = sg::compile<G>(sg::with_executor(sg::thread_pool{3}));
  std::mt19937 rng(seed);
  for (int r = 0; r < runs; ++r) {
    State input;
    std::size_t n = rng() % 9;
    for (std::size_t i = 0; i < n; ++i) input.seeds.push_back(static_cast<std::uint32_t>(rng()));
    State a = sequential.invoke(input);
    State b = pooled.invoke(input);
    INFO("seed " << seed << " run " << r);
    REQUIRE(a.total == b.total);
    REQUIRE(a.rounds == b.rounds);
    REQUIRE(static_cast<const std::vector<std::string>&>(a.log) == static_cast<const std::vector<std::string>&>(b.log));
  }
}

}  // namespace executors_cases

// Before `using namespace executors_cases`, whose node `unit` would hide the namespace `unit`.
namespace sequential_order {

using unit::Logged;

// ---- call order within a step on the sequential executor ------------------------------------

struct Calls {
  std::string order;
};
template <char Name>
struct records_call {
  using writes = sg::writes<&Logged::counter>;
  auto operator()(sg::view<Logged, sg::reads<>>, Calls& calls) const {
    calls.order += Name;
    return sg::write<&Logged::counter>(1);
  }
};
using ra = records_call<'a'>;
using rb = records_call<'b'>;
using rc = records_call<'c'>;
using three_fixed = sg::graph<Logged, sg::edge<sg::start, ra>, sg::edge<sg::start, rb>, sg::edge<sg::start, rc>,
                              sg::edge<ra, sg::end>, sg::edge<rb, sg::end>, sg::edge<rc, sg::end>>;
struct end_now {
  using reads = sg::reads<>;
  sg::go<sg::end> operator()(sg::view<Logged, reads>) const { return sg::to<sg::end>; }
};
using three_frontier = sg::graph<Logged, sg::edge<sg::start, ra>, sg::edge<sg::start, rb>, sg::edge<sg::start, rc>,
                                 sg::branch<ra, end_now>, sg::edge<rb, sg::end>, sg::edge<rc, sg::end>>;

}  // namespace sequential_order

using namespace executors_cases;
using namespace sequential_order;

TEST_CASE("thread_pool and sequential give identical states on random go_all fan-outs") {
  compare_executors<random_fanout>(300, 20261130u);
}

TEST_CASE("thread_pool and sequential give identical states on random send fan-outs") {
  compare_executors<random_sends>(300, 7u);
}

TEST_CASE("thread_pool reports a node's failure like sequential does") {
  struct boom {
    using writes = sg::writes<&State::total>;
    sg::patch<> operator()(sg::view<State, sg::reads<>>) const { throw std::runtime_error("boom"); }
  };
  struct fine {
    using writes = sg::writes<&State::log>;
    auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>("fine"); }
  };
  using G = sg::graph<State, sg::edge<sg::start, fine>, sg::edge<sg::start, boom>, sg::edge<fine, sg::end>,
                      sg::edge<boom, sg::end>>;
  auto pooled = sg::compile<G>(sg::with_executor(sg::thread_pool{2}));
  try {
    pooled.invoke(State{});
    FAIL("expected a node_error");
  } catch (const sg::node_error& e) {
    CHECK(e.node() == "boom");
    CHECK(e.step() == 1);
    CHECK(std::string(e.what()).find("boom") != std::string::npos);
  }
}

TEST_CASE("the sequential executor calls the nodes of a step in node order (frontier)") {
  Calls calls;
  CHECK(sg::compile<three_frontier>().invoke(Logged{}, calls).counter == 3);
  CHECK(calls.order == "abc");
}

TEST_CASE("the sequential executor calls the nodes of a step in node order (fixed plan)") {
  Calls calls;
  CHECK(sg::compile<three_fixed>().invoke(Logged{}, calls).counter == 3);
  CHECK(calls.order == "abc");
}

}  // namespace unity_executors_executors
