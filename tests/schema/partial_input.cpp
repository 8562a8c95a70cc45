// Partial inputs on the plain app: `invoke(sg::write<&S::a>(x) | sg::write<&S::b>(y))` writes
// only the named channels, through their reducers, onto a default-constructed state (the
// predicates of SG014 are in tests/rules/rule_predicates.cpp).
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_schema_partial_input {

namespace sg = stategraph;

namespace partial_input_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  sg::append<std::string> log;
  std::string mode = "default";
  sg::counter<int> n;
};

struct echo {
  using reads = sg::reads<&State::mode, &State::n>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::log>(in.get<&State::mode>() + ":" + std::to_string(in.get<&State::n>()));
  }
};
using fixed = sg::graph<State, sg::edge<sg::start, echo>, sg::edge<echo, sg::end>>;

struct Ctx {
  int seen = 0;
};
struct counted {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in, Ctx& ctx) const {
    ++ctx.seen;
    return sg::write<&State::log>("n=" + std::to_string(in.get<&State::n>()));
  }
};
struct again {
  using reads = sg::reads<&State::log>;
  sg::go<counted, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::log>().size() < 3) return sg::to<counted>;
    return sg::to<sg::end>;
  }
};
using looping = sg::graph<State, sg::edge<sg::start, counted>, sg::branch<counted, again>>;

}  // namespace partial_input_cases
using namespace partial_input_cases;

TEST_CASE("a partial input writes only the channels it names") {
  auto app = sg::compile<fixed>();
  State out = app.invoke(sg::write<&State::n>(3));
  CHECK(out.mode == "default");  // not named: the state's own default, not an input's
  CHECK(out.n == 3);
  CHECK(out.log.value() == std::vector<std::string>{"default:3"});
  State both = app.invoke(sg::write<&State::n>(2) | sg::write<&State::mode>("set") | sg::write<&State::log>("in"));
  CHECK(both.log.value() == std::vector<std::string>{"in", "set:2"});
  // invoke(State) writes every channel.
  State whole = app.invoke(State{.mode = "whole"});
  CHECK(whole.log.value() == std::vector<std::string>{"whole:0"});
}

TEST_CASE("a partial input with a context, on a frontier, on both executors") {
  auto seq = sg::compile<looping>();
  Ctx ctx;
  State out = seq.invoke(sg::write<&State::n>(7), ctx);
  CHECK(out.log.value() == std::vector<std::string>{"n=7", "n=7", "n=7"});
  CHECK(ctx.seen == 3);
  auto pool = sg::compile<looping>(sg::with_executor(sg::thread_pool{2}));
  Ctx ctx2;
  CHECK(pool.invoke(sg::write<&State::n>(1), ctx2, sg::run_config{.recursion_limit = 5}).log.value() ==
        std::vector<std::string>{"n=1", "n=1", "n=1"});
  CHECK_THROWS_AS(pool.invoke(sg::write<&State::n>(1), ctx2, sg::run_config{.recursion_limit = 2}),
                  sg::recursion_limit_error);
}

}  // namespace unity_schema_partial_input
