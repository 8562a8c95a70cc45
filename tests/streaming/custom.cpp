// Custom events (stream_mode::custom): a node emits its own typed events through a context
// that derives from sg::emitter<T>; a stream reports them in node order on every executor,
// between the node's debug start and end, and a run that does not stream them drops them.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_streaming_custom {

namespace sg = stategraph;

namespace streaming_custom {  // named: Clang cannot reflect types with internal linkage

struct Token {
  int index = 0;
  std::string text;
};

struct State {
  std::string answer;
  sg::counter<int> tokens;
};

struct token_ctx : sg::emitter<Token> {
  int calls = 0;
};

struct speak {
  using writes = sg::writes<&State::answer, &State::tokens>;
  auto operator()(sg::view<State, sg::reads<>>, token_ctx& ctx) const {
    ++ctx.calls;
    std::string all;
    int i = 0;
    for (const char* t : {"Hel", "lo"}) {
      ctx.emit(Token{i++, t});
      all += t;
    }
    return sg::write<&State::answer>(all) | sg::write<&State::tokens>(i);
  }
};
struct count {
  using writes = sg::writes<&State::tokens>;
  auto operator()(sg::view<State, sg::reads<>>, token_ctx& ctx) const {
    ctx.emit(Token{100, "count"});
    return sg::write<&State::tokens>(1);
  }
};
using parallel = sg::graph<State, sg::edge<sg::start, speak>, sg::edge<sg::start, count>, sg::edge<speak, sg::end>,
                           sg::edge<count, sg::end>>;

template <class App>
std::vector<std::string> stream_custom(const App& app, sg::stream_mode mode) {
  token_ctx ctx;
  std::vector<std::string> seen;
  State out = app.stream(State{}, mode, ctx, [&](const sg::event<State, Token>& e) {
    if (e.mode == sg::stream_mode::custom)
      seen.push_back(std::to_string(e.step) + " " + std::string(e.node) + " " + std::to_string(e.custom->index) + " " +
                     e.custom->text);
    else if (e.mode == sg::stream_mode::debug)
      seen.push_back(std::string(e.phase == sg::debug_phase::start ? "start " : "end ") + std::string(e.node));
    else
      seen.push_back(std::string(sg::has_mode(e.mode, sg::stream_mode::updates) ? "update " : "? ") + std::string(e.node));
  });
  CHECK(out.answer == "Hello");
  CHECK(out.tokens == 3);
  CHECK(ctx.calls == 1);
  return seen;
}

}  // namespace streaming_custom
using namespace streaming_custom;

TEST_CASE("custom events come in node order, between the node's debug start and end, on both executors") {
  const std::vector<std::string> expected{"start speak", "1 speak 0 Hel", "1 speak 1 lo", "end speak",
                                          "start count", "1 count 100 count", "end count",
                                          "update speak", "update count"};
  auto seq = sg::compile<parallel>();
  CHECK(stream_custom(seq, sg::stream_mode::custom | sg::stream_mode::debug | sg::stream_mode::updates) == expected);
  auto pool = sg::compile<parallel>(sg::with_executor(sg::thread_pool{2}));
  for (int i = 0; i < 50; ++i)
    CHECK(stream_custom(pool, sg::stream_mode::custom | sg::stream_mode::debug | sg::stream_mode::updates) == expected);
}

TEST_CASE("a stream without custom mode, and a plain invoke, drop what nodes emit") {
  auto app = sg::compile<parallel>();
  CHECK(stream_custom(app, sg::stream_mode::updates) == std::vector<std::string>{"update speak", "update count"});
  token_ctx ctx;
  State out = app.invoke(State{}, ctx);
  CHECK(out.answer == "Hello");
  CHECK(sg::detail::current_custom<Token> == nullptr);
}

TEST_CASE("an sg::event<State> callback takes the events of an emitting context") {
  auto app = sg::compile<parallel>();
  token_ctx ctx;
  int custom = 0;
  app.stream(State{}, sg::stream_mode::custom, ctx, [&](const sg::event<State>& e) {
    if (e.mode == sg::stream_mode::custom) ++custom;
  });
  CHECK(custom == 3);
}

}  // namespace unity_streaming_custom
