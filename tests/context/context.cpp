// Contexts and seams (contract §2): a node may take the runtime context passed to invoke; a
// node's seam (an interface it needs) is provided by that context; per-node config layers.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_context_context {

using unit::Logged;
using unit::logs_name;
using unit::strings;
namespace sg = stategraph;

namespace context_cases {  // named: Clang cannot reflect types with internal linkage

// ---- a runtime context ---------------------------------------------------------------------

struct Ctx {
  int base = 0;
  int calls = 0;
};

struct uses_context {
  using reads = sg::reads<&Logged::counter>;
  using writes = sg::writes<&Logged::counter, &Logged::log>;
  auto operator()(sg::view<Logged, reads> in, Ctx& ctx) const {
    ++ctx.calls;
    return sg::write<&Logged::counter>(ctx.base) |
           sg::write<&Logged::log>("ctx saw " + std::to_string(in.get<&Logged::counter>()));
  }
};
struct no_context : logs_name<no_context> {};

using context_chain = sg::graph<Logged, sg::edge<sg::start, uses_context>, sg::edge<uses_context, no_context>,
                                sg::edge<no_context, sg::end>>;
using context_loop =
    sg::graph<Logged, sg::edge<sg::start, uses_context>, sg::branch<uses_context, unit::loop_until<uses_context, 50>>>;

// ---- seams ------------------------------------------------------------------------------------

struct State {
  sg::counter<int> n;
  sg::append<std::string> log;
  std::string title;
};

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

// ---- config layers ------------------------------------------------------------------------------

struct model_config {
  std::string model;
  double temperature = 0;
  int max_tokens = 0;
};

}  // namespace context_cases
using namespace context_cases;

TEST_CASE("a node that takes a runtime context gets the one passed to invoke") {
  auto app = sg::compile<context_chain>();
  Ctx ctx{.base = 10};
  Logged out = app.invoke(Logged{.counter = 1}, ctx);
  CHECK(ctx.calls == 1);
  CHECK(out.counter == 12);  // 1 + base 10 + 1 from no_context
  CHECK(out.log == strings{"ctx saw 1", "no_context"});

  ctx.base = 20;
  CHECK(app.invoke(Logged{}, ctx).counter == 21);
  CHECK(ctx.calls == 2);
}

TEST_CASE("a context in a frontier run, with a run_config") {
  auto app = sg::compile<context_loop>();
  Ctx ctx{.base = 10};
  CHECK(app.invoke(Logged{}, ctx).counter == 50);
  CHECK(ctx.calls == 5);

  sg::run_config tight;
  tight.recursion_limit = 4;
  CHECK_THROWS_AS(app.invoke(Logged{}, ctx, tight), sg::recursion_limit_error);
  CHECK(ctx.calls == 9);  // four more steps ran before the limit
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

}  // namespace unity_context_context
