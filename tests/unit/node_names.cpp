// Node identity (contract §2): a node's name is its type's unqualified name unless it
// declares one; lambda nodes are named after their tag; a node may take a runtime context.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "logged_state.hpp"

using unit::Logged;
using unit::logs_name;
using unit::strings;
namespace sg = stategraph;

namespace unit_names {

struct plain_node : logs_name<plain_node> {};
struct renamed : logs_name<renamed> {
  static constexpr std::string_view name = "custom name";
};
template <int N>
struct numbered : logs_name<numbered<N>> {};
namespace inner {
struct deep : logs_name<deep> {};
}  // namespace inner
// State of its own called `name` is not a declared name: the node keeps its type's name.
struct greeter {
  std::string name = "ada";
  using writes = sg::writes<&Logged::log>;
  auto operator()(sg::view<Logged, sg::reads<>>) const { return sg::write<&Logged::log>("hello " + name); }
};

static_assert(sg::node_traits<plain_node>::name == "plain_node");
static_assert(sg::node_traits<greeter>::name == "greeter");
static_assert(sg::node_traits<renamed>::name == "custom name");
static_assert(sg::node_traits<numbered<3>>::name == "numbered<3>");
static_assert(sg::node_traits<inner::deep>::name == "deep");
static_assert(sg::node_traits<sg::start>::name == "__start__");
static_assert(sg::node_traits<sg::end>::name == "__end__");

using named_graph =
    sg::graph<Logged, sg::edge<sg::start, plain_node>, sg::edge<plain_node, renamed>, sg::edge<renamed, numbered<3>>,
              sg::edge<numbered<3>, inner::deep>, sg::edge<inner::deep, sg::end>>;

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

// ---- lambda nodes -----------------------------------------------------------------------------

struct lambda_tag {};

}  // namespace unit_names

using namespace unit_names;

TEST_CASE("the app names nodes by type, or by their declared name") {
  using app_t = decltype(sg::compile<named_graph>());
  CHECK(app_t::node_names[0] == "plain_node");
  CHECK(app_t::node_names[1] == "custom name");
  CHECK(app_t::node_names[2] == "numbered<3>");
  CHECK(app_t::node_names[3] == "deep");
  Logged out = sg::compile<named_graph>().invoke(Logged{});
  CHECK(out.log == strings{"plain_node", "custom name", "numbered<3>", "deep"});
}

TEST_CASE("a node whose data member is called name runs under its type's name") {
  using G = sg::graph<Logged, sg::edge<sg::start, greeter>, sg::edge<greeter, sg::end>>;
  CHECK(decltype(sg::compile<G>())::node_names[0] == "greeter");
  CHECK(sg::compile<G>(greeter{"grace"}).invoke(Logged{}).log == strings{"hello grace"});
}

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

TEST_CASE("a lambda node is bound by compile and named after its tag") {
  using G = sg::graph<Logged, sg::edge<sg::start, lambda_tag>, sg::edge<lambda_tag, sg::end>>;
  auto app = sg::compile<G>(
      sg::node<lambda_tag, sg::any_stage, sg::reads<&Logged::counter>, sg::writes<&Logged::counter, &Logged::log>>(
          [](sg::view<Logged, sg::reads<&Logged::counter>> in) {
            return sg::write<&Logged::counter>(in.get<&Logged::counter>() + 1) | sg::write<&Logged::log>("lambda");
          }));
  CHECK(decltype(app)::node_names[0] == "lambda_tag");
  Logged out = app.invoke(Logged{.counter = 2});
  CHECK(out.counter == 5);  // 2 from the input, plus what the lambda wrote: 2 + 1
  CHECK(out.log == strings{"lambda"});
}

TEST_CASE("lambda nodes beside type nodes: captures, a context, a loop through a branch") {
  using G = sg::graph<Logged, sg::edge<sg::start, plain_node>, sg::edge<plain_node, lambda_tag>,
                      sg::branch<lambda_tag, unit::loop_until<lambda_tag, 20>>>;
  const int step = 4;
  auto by_capture = sg::compile<G>(sg::node<lambda_tag, sg::any_stage, sg::reads<>, sg::writes<&Logged::counter>>(
      [step](sg::view<Logged, sg::reads<>>) { return sg::write<&Logged::counter>(step); }));
  CHECK(decltype(by_capture)::node_names[0] == "plain_node");
  CHECK(decltype(by_capture)::node_names[1] == "lambda_tag");
  Logged out = by_capture.invoke(Logged{});
  CHECK(out.counter == 21);  // 1 from plain_node, then 4 per round until at least 20
  CHECK(out.log == strings{"plain_node"});

  auto with_context = sg::compile<G>(sg::node<lambda_tag, sg::any_stage, sg::reads<>, sg::writes<&Logged::counter>>(
      [](sg::view<Logged, sg::reads<>>, Ctx& ctx) {
        ++ctx.calls;
        return sg::write<&Logged::counter>(ctx.base);
      }));
  Ctx ctx{.base = 5};
  CHECK(with_context.invoke(Logged{}, ctx).counter == 21);  // 1, then 5 per round: 6, 11, 16, 21
  CHECK(ctx.calls == 4);
}
