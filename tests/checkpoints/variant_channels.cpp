// A std::variant channel whose alternatives have no operator==: it checkpoints and works in
// every place that looks at a channel's value — a whole input on a thread, a partial input,
// update_state, a subgraph writing it, a reactive graph woken by the input — without
// asking the user's types for an operator== they do not have.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

using namespace durable_test;

namespace durable_variants {

// No operator== on purpose.
struct Text {
  std::string words;
};
struct Picture {
  int width = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Text, words)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Picture, width)
using Body = std::variant<Text, Picture>;
using Pair = std::pair<int, Text>;

static_assert(std::equality_comparable<Body>);  // what the standard says, though == does not compile
static_assert(!sg::detail::comparable<Body>);
static_assert(!sg::detail::comparable<std::vector<Body>>);
static_assert(!sg::detail::comparable<std::optional<Text>>);
static_assert(!sg::detail::comparable<Pair>);
static_assert(sg::detail::comparable<std::variant<int, std::string>>);
static_assert(sg::detail::comparable<std::vector<std::pair<int, std::string>>>);

struct Doc {
  sg::append<std::string> log;
  Body body;
  sg::last_value<std::vector<Body>> pages;
  std::optional<Text> note;
};

std::string describe(const Body& b) {
  if (const auto* t = std::get_if<Text>(&b)) return "text:" + t->words;
  return "picture:" + std::to_string(std::get<Picture>(b).width);
}

struct render {
  using reads = sg::reads<&Doc::body>;
  using writes = sg::writes<&Doc::log>;
  auto operator()(sg::view<Doc, reads> in) const { return sg::write<&Doc::log>(describe(in.get<&Doc::body>())); }
};
struct enlarge {
  using reads = sg::reads<&Doc::body>;
  using writes = sg::writes<&Doc::body, &Doc::pages>;
  auto operator()(sg::view<Doc, reads> in) const {
    Body next = Picture{10};
    if (const auto* p = std::get_if<Picture>(&in.get<&Doc::body>())) next = Picture{p->width * 2};
    return sg::write<&Doc::body>(next) | sg::write<&Doc::pages>(std::vector<Body>{next, Text{"caption"}});
  }
};
using doc_graph = sg::graph<Doc, sg::edge<sg::start, render>, sg::edge<render, enlarge>, sg::edge<enlarge, sg::end>>;

// The same writer as a subgraph: the child's change of the variant becomes a write in the parent.
struct inner {};
using inner_node = sg::subgraph<inner, doc_graph>;
using outer_graph = sg::graph<Doc, sg::edge<sg::start, inner_node>, sg::edge<inner_node, sg::end>>;

// A reactive graph: a node subscribed to the variant channel, woken by the input.
struct on_body {
  using subscribes = sg::subscribes<&Doc::body>;
  using reads = sg::reads<&Doc::body>;
  using writes = sg::writes<&Doc::log>;
  auto operator()(sg::view<Doc, reads> in) const {
    return sg::write<&Doc::log>("changed:" + describe(in.get<&Doc::body>()));
  }
};
struct idle {
  void operator()(sg::view<Doc, sg::reads<>>) const {}
};
using reactive_graph = sg::graph<Doc, sg::edge<sg::start, idle>, sg::edge<idle, sg::end>, sg::edge<on_body, sg::end>>;

TEST_CASE_TEMPLATE("a variant channel without operator== checkpoints through every entry point", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<doc_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"doc"};

  Doc first = app.invoke(Doc{.body = Text{"hello"}, .note = Text{"n"}}, t);
  CHECK(first.log.value() == strings{"text:hello"});
  CHECK(describe(first.body) == "picture:10");
  REQUIRE(first.pages.value().size() == 2);
  CHECK(describe(first.pages.value()[0]) == "picture:10");
  CHECK(describe(first.pages.value()[1]) == "text:caption");
  REQUIRE(first.note.has_value());
  CHECK(first.note->words == "n");

  // A whole input on the thread writes every channel.
  Doc second = app.invoke(Doc{.body = Picture{3}}, t);
  CHECK(second.log.value() == strings{"text:hello", "picture:3"});
  CHECK(describe(second.body) == "picture:6");
  CHECK_FALSE(second.note.has_value());

  // A partial input writes the variant alone; the others keep the thread's values.
  Doc third = app.invoke(sg::write<&Doc::body>(Body{Text{"again"}}), t);
  CHECK(third.log.value() == strings{"text:hello", "picture:3", "text:again"});
  CHECK(describe(third.body) == "picture:10");
  CHECK(third.pages.value().size() == 2);

  app.update_state(t, sg::write<&Doc::body>(Body{Text{"edited"}}), sg::as_node<enlarge>);
  const auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(describe(s->values.body) == "text:edited");
  CHECK(s->values.log.value() == third.log.value());
  CHECK(s->next.empty());

  // Read back by a new app: the stored values decode.
  auto other = sg::compile<doc_graph>(sg::with_store(fx.store));
  CHECK(describe(other.get_state(t)->values.body) == "text:edited");
  CHECK(other.history(t).size() == app.history(t).size());
}

TEST_CASE_TEMPLATE("a subgraph writes a variant channel without operator== into its parent", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<outer_graph>(sg::with_store(fx.store));
  Doc out = app.invoke(Doc{.body = Picture{4}}, sg::thread_id{"outer"});
  CHECK(out.log.value() == strings{"picture:4"});
  CHECK(describe(out.body) == "picture:8");
  CHECK(out.pages.value().size() == 2);
  // The same without a store.
  Doc plain = sg::compile<outer_graph>().invoke(Doc{.body = Picture{4}});
  CHECK(describe(plain.body) == "picture:8");
}

TEST_CASE("a reactive graph is woken by a variant input without operator==") {
  auto app = sg::compile<reactive_graph>();
  Doc out = app.invoke(Doc{.body = Picture{5}});
  // A value that cannot be compared counts as set by the input.
  CHECK(out.log.value() == strings{"changed:picture:5"});
  memory_fixture fx;
  auto durable = sg::compile<reactive_graph>(sg::with_store(fx.store));
  CHECK(durable.invoke(Doc{.body = Text{"t"}}, sg::thread_id{"r"}).log.value() == strings{"changed:text:t"});
}

}  // namespace durable_variants
