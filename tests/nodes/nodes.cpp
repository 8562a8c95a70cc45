// Nodes (contract §2): a node's name is its type's unqualified name unless it declares one;
// lambda nodes are bound by compile and named after their tag; node and router instances
// passed to compile are the ones that run.
#include <array>
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "../common/logged_state.hpp"

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_nodes_nodes {

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

// ---- a runtime context, for a lambda node that takes one (context/ tests contexts) ----------

struct Ctx {
  int base = 0;
  int calls = 0;
};

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

namespace node_instances {

// ---- instances passed to compile --------------------------------------------------------------

struct adder {
  int amount = 0;
  using writes = sg::writes<&Logged::counter>;
  auto operator()(sg::view<Logged, sg::reads<>>) const { return sg::write<&Logged::counter>(amount); }
};
struct below {
  int limit = 0;
  using reads = sg::reads<&Logged::counter>;
  sg::go<adder, sg::end> operator()(sg::view<Logged, reads> in) const {
    if (in.get<&Logged::counter>() < limit) return sg::to<adder>;
    return sg::to<sg::end>;
  }
};
using configured = sg::graph<Logged, sg::edge<sg::start, adder>, sg::branch<adder, below>>;

// Nodes and routers that carry data of different sizes, so that each sits at its own offset
// in the app: a step of two nodes (tagger, scaler), then steps of one (lone, looped by gate).
struct tagger {
  std::string tag;
  using writes = sg::writes<&Logged::counter, &Logged::log>;
  auto operator()(sg::view<Logged, sg::reads<>>) const {
    return sg::write<&Logged::counter>(1) | sg::write<&Logged::log>(tag);
  }
};
struct scaler {
  std::array<int, 5> pad{};
  int amount = 0;
  using writes = sg::writes<&Logged::counter>;
  auto operator()(sg::view<Logged, sg::reads<>>) const { return sg::write<&Logged::counter>(amount + pad[4]); }
};
struct lone {
  std::string label;
  using writes = sg::writes<&Logged::counter, &Logged::log>;
  auto operator()(sg::view<Logged, sg::reads<>>) const {
    return sg::write<&Logged::counter>(1) | sg::write<&Logged::log>(label);
  }
};
struct stop {
  std::string why;  // only there to give the next router a non-zero offset
  using reads = sg::reads<>;
  sg::go<sg::end> operator()(sg::view<Logged, reads>) const { return sg::to<sg::end>; }
};
struct gate {
  int limit = 0;
  using reads = sg::reads<&Logged::counter>;
  sg::go<lone, sg::end> operator()(sg::view<Logged, reads> in) const {
    if (in.get<&Logged::counter>() < limit) return sg::to<lone>;
    return sg::to<sg::end>;
  }
};
using stateful = sg::graph<Logged, sg::edge<sg::start, tagger>, sg::edge<sg::start, scaler>, sg::edge<tagger, lone>,
                           sg::branch<scaler, stop>, sg::branch<lone, gate>>;

TEST_CASE("node and router instances are reached in steps of several nodes and of one, on both executors") {
  const std::array<int, 5> pad{0, 0, 0, 0, 2};
  auto sequential = sg::compile<stateful>(tagger{"T"}, scaler{pad, 8}, lone{"L"}, stop{"no reason"}, gate{14});
  auto pooled = sg::compile<stateful>(gate{14}, lone{"L"}, stop{"no reason"}, scaler{pad, 8}, tagger{"T"},
                                      sg::with_executor(sg::thread_pool{2}));
  for (const Logged& out : {sequential.invoke(Logged{}), pooled.invoke(Logged{})}) {
    CHECK(out.counter == 14);  // step 1: 1 + 10; then lone alone: 12, 13, 14
    CHECK(out.log == strings{"T", "L", "L", "L"});
  }
  auto copy = sequential;  // the copy reaches its own nodes
  CHECK(copy.invoke(Logged{.counter = 1}).counter == 14);
  CHECK(copy.invoke(Logged{.counter = 1}).log == strings{"T", "L", "L"});
}

}  // namespace node_instances

using namespace node_instances;

TEST_CASE("node and router instances passed to compile are used, in any order") {
  auto by_three = sg::compile<configured>(adder{3}, below{10});
  CHECK(by_three.invoke(Logged{}).counter == 12);  // 3, 6, 9, 12
  auto by_five = sg::compile<configured>(below{11}, adder{5});
  CHECK(by_five.invoke(Logged{}).counter == 15);  // 5, 10, 15
  auto pooled = sg::compile<configured>(below{11}, sg::with_executor(sg::thread_pool{2}), adder{5});
  CHECK(pooled.invoke(Logged{}).counter == 15);
  auto defaults = sg::compile<configured>(adder{4});  // the router default-constructed: limit 0
  CHECK(defaults.invoke(Logged{}).counter == 4);
}

}  // namespace unity_nodes_nodes
